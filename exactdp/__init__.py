"""exactdp: exact analysis of differentially private selection.

Exact output distributions of the exponential mechanism, permute-and-flip and
report-noisy-max (exponential, Gumbel, Laplace, Gaussian noise); an analyzer for the
epsilon-DP ratio bound; the section-5 linear program of McKenna & Sheldon (2020).
"""

from .distribution import OutputDistribution
from .lp import (
    DualCertificate,
    LatticeLPResult,
    PFOptimalityRegion,
    lattice_lp,
    lattice_size,
    pf_optimality_region,
)
from .mechanisms import (
    ExponentialMechanism,
    Mechanism,
    PermuteAndFlip,
    RationalForm,
    ReportNoisyMax,
)
from .numbers import ExactConversionWarning, exact_number
from .optimal import OptimalRegularMechanism, optimal_mechanism
from .scores import ScoreVector, as_scores

__version__ = "0.1.0"

__all__ = [
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
    "ScoreVector",
    "as_scores",
    "exact_number",
]
