"""Compatibility path: the lattice LP now lives in :mod:`exactdp.optimality`.
"""

from .optimality.exact_solve import (
    DualCertificate,
)
from .optimality.float_solve import (
    HIGHS_TOLERANCE,
)
from .optimality.lattice import (
    MAX_EXACT_VARIABLES,
    MAX_FLOAT_SIZE,
    build_lattice,
    lattice_size,
    pf_dual_polys,
)
from .optimality.program import (
    VIOLATION_TOLERANCE,
    LatticeLPResult,
    lattice_lp,
)
from .optimality.region import (
    PFOptimalityRegion,
    RegionBoundary,
    pf_optimality_region,
)

__all__ = [
    "HIGHS_TOLERANCE",
    "MAX_EXACT_VARIABLES",
    "MAX_FLOAT_SIZE",
    "VIOLATION_TOLERANCE",
    "LatticeLPResult",
    "DualCertificate",
    "PFOptimalityRegion",
    "RegionBoundary",
    "lattice_lp",
    "pf_optimality_region",
    "lattice_size",
]

# Former private names, kept for code written against the single module.
_lattice = build_lattice
_pf_dual_polys = pf_dual_polys
