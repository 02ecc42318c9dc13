"""Selection mechanisms with exact output distributions."""

from .base import Mechanism, RationalForm, X
from .custom import WRONG_VARIANTS, mechanism_from_function
from .exponential import ExponentialMechanism
from .gaussian_noisy_max import GaussianNoisyMax
from .noisy_max import NOISES, ReportNoisyMax
from .permute_flip import PermuteAndFlip
from .topk import TopK, TopKDistribution

__all__ = [
    "Mechanism",
    "RationalForm",
    "X",
    "ExponentialMechanism",
    "PermuteAndFlip",
    "ReportNoisyMax",
    "TopK",
    "TopKDistribution",
    "GaussianNoisyMax",
    "NOISES",
    "WRONG_VARIANTS",
    "mechanism_from_function",
]
