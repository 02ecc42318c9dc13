"""Parameters of the permute-and-flip integration scheme shared by the float64 and ball routes.

Truncation of the t-integral, number of series terms, the graded panels of the composite
Gauss-Legendre rule: steps 1-4 of the method in :mod:`exactdp.numeric.pf`.
"""

from __future__ import annotations

import math
from functools import lru_cache

from ..._validate import argument_error

THETA = 0.125  # coins with u > THETA are "large" (set A)
GRADING = 8  # panels graded down to 2^-GRADING at both ends
N_HI = 24  # Gauss-Legendre nodes per panel of the answer (the check uses fewer)


def trunc_const(bits: int) -> float:
    """``C`` with ``e^{1-C}/0.316 <= 2^-bits`` (truncation of the t-integral at ``C/S``)."""
    return bits * math.log(2.0) + 2.5


def series_terms(umax: float, lam: float, bits: int) -> int:
    """Least J with ``lam * umax^J / ((J+1)(1-umax)) <= 2^-bits`` (log-series tail)."""
    if umax <= 0.0 or lam <= 0.0:
        return 0
    tol = 2.0**-bits

    def above(J: int) -> bool:
        return lam * umax**J / ((J + 1) * (1.0 - umax)) > tol

    # start below the least J (the bound without the 1/(J+1) is larger), then step up
    J = max(1, math.floor(math.log(tol * (1.0 - umax) / lam) / math.log(umax)) - 8)
    while J > 1 and not above(J - 1):
        J -= 1
    while above(J):
        J += 1
    return J


def horner_terms(umax: float, bits: int) -> int:
    """Least J' with ``umax^(J'+1)/(1-umax) <= 2^-bits`` (geometric-series tail)."""
    if umax <= 0.0:
        return 0
    tol = 2.0**-bits

    def above(J: int) -> bool:
        return umax ** (J + 1) / (1.0 - umax) > tol

    J = max(0, math.floor(math.log(tol * (1.0 - umax)) / math.log(umax)) - 3)
    while J > 0 and not above(J - 1):
        J -= 1
    while above(J):
        J += 1
    return J


@lru_cache(maxsize=8)
def panel_edges(grading: int) -> tuple[float, ...]:
    """Panel edges of ``[0, 1]``, geometrically graded towards 0 and towards 1 (exact dyadics)."""
    left = [0.0] + [2.0 ** -k for k in range(grading, 0, -1)]  # 0, 2^-g, ..., 1/2
    right = [1.0 - 2.0 ** -k for k in range(2, grading + 1)] + [1.0]  # 3/4, ..., 1
    return tuple(left + right)



def fail_nonneg(func: str, where: str, value: object) -> ValueError:
    """The :class:`ValueError` (for the caller to raise) refusing ``d{where}`` as negative."""
    return argument_error(func, f"d{where}", "a non-negative real number", value)

