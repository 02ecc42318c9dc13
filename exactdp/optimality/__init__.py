"""The McKenna-Sheldon lattice linear program and the exact region where PF is optimal.

The program (docs/formulas.md section 4; McKenna & Sheldon 2020, code ``linear-program.ipynb`` of
``ryan112358/permute-and-flip``) optimises over *regular* (symmetric, shift-invariant)
selection mechanisms on the score lattice ``{0, -2D, ..., -2kD}^n`` (``D`` the sensitivity).

Lattice units
-------------
A canonical score vector is stored by its *gaps* ``g = (0, g_2, ..., g_n)``, sorted
ascending, ``0 <= g_i <= k``; its scores are ``-2 D g``.  With ``x = exp(-epsilon)`` (the
generator with the lattice's ``N = 1``) the
coin of an item with gap ``g`` is ``p = exp(-epsilon * 2 D g / (2 D)) = x**g`` for both
PF and EM, so every quantity below is a polynomial or rational function of ``x``;
``exp(epsilon)`` rational makes everything rational.

Variables ``P(g, v)``: probability of *each* output whose gap in ``g`` is ``v`` (ties merged;
``m(g, v)`` outputs share the value).  Rows:

* ``sum_v m(g, v) P(g, v) = 1`` for every canonical ``g``;
* raise one output of gap ``v`` by ``2D``.  If ``v > 0`` the neighbour is ``g`` with one
  ``v`` replaced by ``v - 1`` ("step" row, always in the lattice).  If ``v = 0`` the
  output becomes the unique maximum and re-canonicalising shifts every other gap up by
  one ("top" row, in the lattice iff ``max(g) <= k - 1``).  The DP row
  ``P(q + 2D e_r, r) <= e^eps P(q, r)`` is stored multiplied by ``x = e^-eps``:
  ``x * P(target) - P(source) <= 0`` (same feasible set, better scaled).

Float solves (``method="float"``) work in ``v = P / P_PF`` (PF's probabilities, computed
by the one PF engine from the gaps ``v * epsilon``, never from an underflowing ``y``), so PF
is ``v = 1`` and the privacy coefficients ``y P_PF(target) / P_PF(source)`` are O(1) (exactly
1 on PF's tight rows); the solution is then checked (``max_violation``).

Objective: ``sum`` over every grid vector of the expected error, i.e. canonical ``g`` is
weighted by ``(#distinct permutations) * (k - max(g) + 1)`` in-grid shifts, and output
``(g, v)`` has error ``2 D v``.
"""

from .exact_solve import DualCertificate
from .lattice import lattice_size
from .program import LatticeLPResult, lattice_lp
from .region import PFOptimalityRegion, RegionBoundary, pf_optimality_region

__all__ = [
    "LatticeLPResult",
    "DualCertificate",
    "PFOptimalityRegion",
    "RegionBoundary",
    "lattice_lp",
    "pf_optimality_region",
    "lattice_size",
]
