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
from .divergence import (
    BoundedRange,
    ZCDPCheck,
    bounded_range,
    check_zcdp,
    kl_divergence,
    max_divergence,
    renyi_divergence,
)
from .engines.ball import BALL_DPS, BallUndecided
from .loss import PrivacyLoss, privacy_loss
from .neighbourhood import neighbours
from .pld import (
    DiscretisedPLD,
    EpsilonResult,
    HockeyStick,
    PrivacyLossDistribution,
    privacy_loss_distribution,
)
from .regularity import (
    RegularityCheck,
    is_monotonic,
    is_shift_invariant,
    is_symmetric,
)
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

__all__ = [
    "AccountantCheck",
    "AccountantRow",
    "CompositionBound",
    "DiscretisedPLD",
    "EpsilonResult",
    "HockeyStick",
    "PrivacyLossDistribution",
    "check_accountant",
    "composition_lower_bound",
    "privacy_loss_distribution",
    "BALL_DPS",
    "BallUndecided",
    "DominanceCertificate",
    "DominanceResult",
    "ErrorRatioStudy",
    "WorstCaseError",
    "certify_dominance",
    "check_dominance",
    "error_ratio_study",
    "error_tails",
    "worst_case_error",
    "BoundedRange",
    "ConditionCertificate",
    "DPCertificate",
    "DPCheck",
    "PrivacyLoss",
    "RegularityCheck",
    "SupremumResult",
    "Witness",
    "ZCDPCheck",
    "bounded_range",
    "certify_dp",
    "check_dp",
    "is_monotonic",
    "is_shift_invariant",
    "is_symmetric",
    "kl_divergence",
    "max_divergence",
    "neighbours",
    "privacy_loss",
    "renyi_divergence",
    "sup_privacy_loss",
    "check_zcdp",
]
