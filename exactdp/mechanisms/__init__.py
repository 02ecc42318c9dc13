"""Selection mechanisms with exact output distributions.

Importing this package imports every module in it, so each mechanism defined with
``@register(...)`` (:mod:`exactdp.mechanisms.registry`) is in :data:`REGISTRY`: a new module
``exactdp/mechanisms/<name>.py`` needs no other file touched.
"""

import importlib
import pkgutil

from .base import CAPABILITIES, Mechanism, X
from .custom import WRONG_VARIANTS, mechanism_from_function
from .exponential import ExponentialMechanism
from .gaussian_noisy_max import GaussianNoisyMax
from .noisy_max import NOISES, ReportNoisyMax
from .parameters import Parameter
from .permute_flip import PermuteAndFlip
from .registry import REGISTRY, MechanismSpec, register
from .topk import TopK, TopKDistribution

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")

__all__ = [
    "CAPABILITIES",
    "Mechanism",
    "MechanismSpec",
    "Parameter",
    "REGISTRY",
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
    "register",
]
