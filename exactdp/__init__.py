"""exactdp: exact analysis of differentially private selection.

Exact output distributions of the exponential mechanism, permute-and-flip and
report-noisy-max (exponential, Gumbel, Laplace, Gaussian noise); an analyzer for the
epsilon-DP ratio bound; the section-5 linear program of McKenna & Sheldon (2020).
"""

from .analysis import (
    BallUndecided,
    PrivacyLossDistribution,
    Witness,
    bounded_range,
    certify_dominance,
    certify_dp,
    check_accountant,
    check_dominance,
    check_dp,
    check_zcdp,
    composition_lower_bound,
    error_tails,
    is_monotonic,
    is_shift_invariant,
    is_symmetric,
    kl_divergence,
    max_divergence,
    privacy_loss,
    privacy_loss_distribution,
    renyi_divergence,
    sup_privacy_loss,
    worst_case_error,
)
from .analysis.sensitivity import ScoreFunction, SensitivityResult, sensitivity
from .audit import goodness_of_fit
from .audit.sweeps import SweepResult, sweep
from .distribution import OutputDistribution
from .exact import UndecidedSignError
from .mechanisms import (
    ExponentialMechanism,
    GaussianNoisyMax,
    Mechanism,
    PermuteAndFlip,
    RationalForm,
    ReportNoisyMax,
    TopK,
    TopKDistribution,
    mechanism_from_function,
)
from .mechanisms.optimal import OptimalRegularMechanism, optimal_mechanism
from .numbers import ExactConversionWarning, exact_number
from .optimality import (
    DualCertificate,
    LatticeLPResult,
    PFOptimalityRegion,
    lattice_lp,
    lattice_size,
    pf_optimality_region,
)
from .scores import ScoreVector, as_scores

__version__ = "0.1.0"

__all__ = [
    "PrivacyLossDistribution",
    "Witness",
    "check_accountant",
    "composition_lower_bound",
    "privacy_loss_distribution",
    "BallUndecided",
    "UndecidedSignError",
    "bounded_range",
    "certify_dominance",
    "certify_dp",
    "check_dp",
    "check_dominance",
    "error_tails",
    "goodness_of_fit",
    "is_monotonic",
    "is_shift_invariant",
    "is_symmetric",
    "kl_divergence",
    "max_divergence",
    "mechanism_from_function",
    "privacy_loss",
    "renyi_divergence",
    "ScoreFunction",
    "SensitivityResult",
    "sensitivity",
    "sup_privacy_loss",
    "worst_case_error",
    "check_zcdp",
    "DualCertificate",
    "LatticeLPResult",
    "OptimalRegularMechanism",
    "PFOptimalityRegion",
    "lattice_lp",
    "lattice_size",
    "optimal_mechanism",
    "pf_optimality_region",
    "ExactConversionWarning",
    "ExponentialMechanism",
    "Mechanism",
    "OutputDistribution",
    "PermuteAndFlip",
    "RationalForm",
    "ReportNoisyMax",
    "GaussianNoisyMax",
    "TopK",
    "TopKDistribution",
    "ScoreVector",
    "as_scores",
    "exact_number",
    "SweepResult",
    "sweep",
]
