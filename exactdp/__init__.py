"""exactdp: exact analysis of differentially private selection.

Exact output distributions of the exponential mechanism, permute-and-flip and
report-noisy-max (exponential, Gumbel, Laplace, Gaussian noise); an analyzer for the
epsilon-DP ratio bound; the section-5 linear program of McKenna & Sheldon (2020).

``exactdp.__all__`` holds the names a user calls; the result types and the building blocks
are exported by the subpackages (:mod:`exactdp.mechanisms`, :mod:`exactdp.analysis`,
:mod:`exactdp.exact`, :mod:`exactdp.optimality`, :mod:`exactdp.audit`, :mod:`exactdp.io`).
"""

from typing import TYPE_CHECKING

from ._lazy import lazy_exports

if TYPE_CHECKING:
    from .analysis import (
        BallUndecided,
        PrivacyLossDistribution,
        ScoreFunction,
        Witness,
        bounded_range,
        certify_dominance,
        certify_dp,
        check_accountant,
        check_dominance,
        check_dp,
        check_zcdp,
        compose,
        composition_lower_bound,
        error_ratio_study,
        error_tails,
        gaussian_privacy_loss_distribution,
        is_monotonic,
        is_shift_invariant,
        is_symmetric,
        kl_divergence,
        laplace_privacy_loss_distribution,
        max_divergence,
        neighbours,
        privacy_loss,
        privacy_loss_distribution,
        renyi_divergence,
        sensitivity,
        sup_privacy_loss,
        worst_case_error,
    )
    from .audit import goodness_of_fit, sweep
    from .audit.verification import SuiteRow, VerificationSuite, verification_suite
    from .distribution import OutputDistribution
    from .exact import UndecidedSignError
    from .mechanisms import (
        ExponentialMechanism,
        GaussianNoisyMax,
        Mechanism,
        PermuteAndFlip,
        ReportNoisyMax,
        TopK,
        mechanism_from_function,
    )
    from .mechanisms.numerical_sparse_vector import NumericalSparseVector
    from .mechanisms.optimal import OptimalRegularMechanism
    from .mechanisms.sparse_vector import SparseVector
    from .numbers import ExactConversionWarning, exact_number
    from .optimality import lattice_lp, lattice_size, pf_optimality_region
    from .rational_form import RationalForm
    from .scores import ScoreVector, as_scores

__version__ = "0.1.0"

__all__ = [
    # mechanisms
    "ExponentialMechanism",
    "GaussianNoisyMax",
    "Mechanism",
    "NumericalSparseVector",
    "OptimalRegularMechanism",
    "PermuteAndFlip",
    "RationalForm",
    "ReportNoisyMax",
    "SparseVector",
    "TopK",
    "mechanism_from_function",
    # scores and distributions
    "OutputDistribution",
    "ScoreVector",
    "as_scores",
    "exact_number",
    # privacy
    "PrivacyLossDistribution",
    "Witness",
    "bounded_range",
    "certify_dp",
    "check_accountant",
    "check_dp",
    "check_zcdp",
    "compose",
    "composition_lower_bound",
    "gaussian_privacy_loss_distribution",
    "kl_divergence",
    "laplace_privacy_loss_distribution",
    "max_divergence",
    "neighbours",
    "privacy_loss",
    "privacy_loss_distribution",
    "renyi_divergence",
    "sup_privacy_loss",
    # regularity and sensitivity
    "ScoreFunction",
    "is_monotonic",
    "is_shift_invariant",
    "is_symmetric",
    "sensitivity",
    # utility
    "certify_dominance",
    "check_dominance",
    "error_ratio_study",
    "error_tails",
    "worst_case_error",
    # optimality (the lattice LP)
    "lattice_lp",
    "lattice_size",
    "pf_optimality_region",
    # audit
    "SuiteRow",
    "goodness_of_fit",
    "sweep",
    "VerificationSuite",
    "verification_suite",
    # exceptions and warnings
    "BallUndecided",
    "ExactConversionWarning",
    "UndecidedSignError",
]


#: Where each public name lives. ``import exactdp`` imports none of them: a name is imported
#: on first use (PEP 562), so start-up costs no sympy, scipy or matplotlib until needed.
_EXPORTS = {
    "BallUndecided": ".analysis",
    "PrivacyLossDistribution": ".analysis",
    "ScoreFunction": ".analysis",
    "Witness": ".analysis",
    "bounded_range": ".analysis",
    "certify_dominance": ".analysis",
    "certify_dp": ".analysis",
    "check_accountant": ".analysis",
    "check_dominance": ".analysis",
    "check_dp": ".analysis",
    "check_zcdp": ".analysis",
    "compose": ".analysis",
    "composition_lower_bound": ".analysis",
    "gaussian_privacy_loss_distribution": ".analysis",
    "laplace_privacy_loss_distribution": ".analysis",
    "error_ratio_study": ".analysis",
    "error_tails": ".analysis",
    "is_monotonic": ".analysis",
    "is_shift_invariant": ".analysis",
    "is_symmetric": ".analysis",
    "kl_divergence": ".analysis",
    "max_divergence": ".analysis",
    "neighbours": ".analysis",
    "privacy_loss": ".analysis",
    "privacy_loss_distribution": ".analysis",
    "renyi_divergence": ".analysis",
    "sensitivity": ".analysis",
    "sup_privacy_loss": ".analysis",
    "worst_case_error": ".analysis",
    "goodness_of_fit": ".audit",
    "sweep": ".audit",
    "SuiteRow": ".audit.verification",
    "VerificationSuite": ".audit.verification",
    "verification_suite": ".audit.verification",
    "OutputDistribution": ".distribution",
    "UndecidedSignError": ".exact",
    "ExponentialMechanism": ".mechanisms",
    "GaussianNoisyMax": ".mechanisms",
    "Mechanism": ".mechanisms",
    "PermuteAndFlip": ".mechanisms",
    "RationalForm": ".rational_form",
    "ReportNoisyMax": ".mechanisms",
    "TopK": ".mechanisms",
    "mechanism_from_function": ".mechanisms",
    "NumericalSparseVector": ".mechanisms.numerical_sparse_vector",
    "OptimalRegularMechanism": ".mechanisms.optimal",
    "SparseVector": ".mechanisms.sparse_vector",
    "ExactConversionWarning": ".numbers",
    "exact_number": ".numbers",
    "lattice_lp": ".optimality",
    "lattice_size": ".optimality",
    "pf_optimality_region": ".optimality",
    "ScoreVector": ".scores",
    "as_scores": ".scores",
}


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__, globals())
