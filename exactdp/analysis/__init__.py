"""The privacy analyzer: exact loss, neighbour search, certificates, regularity, divergences."""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .certify import ConditionCertificate, DPCertificate, certify_dp
    from .certify_laplace import EpsilonInterval, LaplaceDPCertificate
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
    "EpsilonInterval",
    "EpsilonResult",
    "ErrorRatioStudy",
    "GaussianPLD",
    "HockeyStick",
    "LaplaceDPCertificate",
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


#: Where each exported name lives; imported on first use (PEP 562), so importing the package
#: loads none of its modules (docs/benchmarks.md, start-up).
_EXPORTS = {
    "ConditionCertificate": ".certify",
    "DPCertificate": ".certify",
    "certify_dp": ".certify",
    "EpsilonInterval": ".certify_laplace",
    "LaplaceDPCertificate": ".certify_laplace",
    "DPCheck": ".check",
    "check_dp": ".check",
    "AccountantCheck": ".composition",
    "AccountantRow": ".composition",
    "CompositionBound": ".composition",
    "check_accountant": ".composition",
    "composition_lower_bound": ".composition",
    "BALL_DPS": ".engines.ball",
    "BallUndecided": ".engines.ball",
    "PrivacyLoss": ".loss",
    "privacy_loss": ".loss",
    "BoundedRange": ".loss_range",
    "bounded_range": ".loss_range",
    "neighbours": ".neighbourhood",
    "GaussianPLD": ".pld.additive",
    "LaplacePLD": ".pld.additive",
    "compose": ".pld.additive",
    "gaussian_privacy_loss_distribution": ".pld.additive",
    "laplace_privacy_loss_distribution": ".pld.additive",
    "PrivacyLossDistribution": ".pld.core",
    "DiscretisedPLD": ".pld.grid",
    "privacy_loss_distribution": ".pld.pair",
    "EpsilonResult": ".pld.results",
    "HockeyStick": ".pld.results",
    "RegularityCheck": ".regularity",
    "is_monotonic": ".regularity",
    "is_shift_invariant": ".regularity",
    "is_symmetric": ".regularity",
    "kl_divergence": ".renyi",
    "max_divergence": ".renyi",
    "renyi_divergence": ".renyi",
    "ScoreFunction": ".score_function",
    "SensitivityResult": ".score_function",
    "sensitivity": ".score_function",
    "SupremumResult": ".supremum",
    "sup_privacy_loss": ".supremum",
    "DominanceCertificate": ".utility",
    "DominanceResult": ".utility",
    "ErrorRatioStudy": ".utility",
    "WorstCaseError": ".utility",
    "certify_dominance": ".utility",
    "check_dominance": ".utility",
    "error_ratio_study": ".utility",
    "error_tails": ".utility",
    "worst_case_error": ".utility",
    "Witness": ".witness",
    "ZCDPCheck": ".zcdp",
    "check_zcdp": ".zcdp",
}


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__, globals())
