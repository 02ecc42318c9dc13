"""The privacy analyzer: exact loss, neighbour search, certificates, regularity, divergences."""

from .certify import ConditionCertificate, DPCertificate, certify_dp
from .check import DPCheck, check_dp
from .composition import (
    AccountantCheck,
    AccountantRow,
    CompositionBound,
    check_accountant,
    composition_lower_bound,
)
from .engines.ball import BALL_DPS, BallUndecided
from .loss import PrivacyLoss, privacy_loss
from .loss_range import BoundedRange, bounded_range
from .neighbourhood import neighbours
from .pld.additive import (
    GaussianPLD,
    LaplacePLD,
    compose,
    gaussian_privacy_loss_distribution,
    laplace_privacy_loss_distribution,
)
from .pld.core import PrivacyLossDistribution
from .pld.grid import DiscretisedPLD
from .pld.pair import privacy_loss_distribution
from .pld.results import EpsilonResult, HockeyStick
from .regularity import (
    RegularityCheck,
    is_monotonic,
    is_shift_invariant,
    is_symmetric,
)
from .renyi import kl_divergence, max_divergence, renyi_divergence
from .score_function import ScoreFunction, SensitivityResult, sensitivity
from .supremum import SupremumResult, sup_privacy_loss
from .utility import (
    DominanceCertificate,
    DominanceResult,
    ErrorRatioStudy,
    WorstCaseError,
    certify_dominance,
    check_dominance,
    error_ratio_study,
    error_tails,
    worst_case_error,
)
from .witness import Witness
from .zcdp import ZCDPCheck, check_zcdp

__all__ = [
    "AccountantCheck",
    "AccountantRow",
    "BALL_DPS",
    "BallUndecided",
    "BoundedRange",
    "CompositionBound",
    "ConditionCertificate",
    "DPCertificate",
    "DPCheck",
    "DiscretisedPLD",
    "DominanceCertificate",
    "DominanceResult",
    "EpsilonResult",
    "ErrorRatioStudy",
    "GaussianPLD",
    "HockeyStick",
    "LaplacePLD",
    "PrivacyLoss",
    "PrivacyLossDistribution",
    "RegularityCheck",
    "ScoreFunction",
    "SensitivityResult",
    "SupremumResult",
    "Witness",
    "WorstCaseError",
    "ZCDPCheck",
    "bounded_range",
    "certify_dominance",
    "certify_dp",
    "check_accountant",
    "check_dominance",
    "check_dp",
    "check_zcdp",
    "compose",
    "composition_lower_bound",
    "error_ratio_study",
    "error_tails",
    "gaussian_privacy_loss_distribution",
    "is_monotonic",
    "is_shift_invariant",
    "is_symmetric",
    "kl_divergence",
    "laplace_privacy_loss_distribution",
    "max_divergence",
    "neighbours",
    "privacy_loss",
    "privacy_loss_distribution",
    "renyi_divergence",
    "sensitivity",
    "sup_privacy_loss",
    "worst_case_error",
]
