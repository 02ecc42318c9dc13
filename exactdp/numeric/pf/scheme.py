"""Parameters of the permute-and-flip integration scheme shared by the float64 and ball routes.

Truncation of the t-integral, number of series terms, the graded panels of the composite
Gauss-Legendre rule and (float64) the node counts chosen from an a priori error bound:
steps 1-4 of the method in :mod:`exactdp.numeric.pf`.
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



#: Bernstein-ellipse parameters tried for each panel (geometric, 1.02 .. ~500).
_RHOS = tuple(1.02 * 1.04**k for k in range(160))
#: Panels whose ellipse reaches ``|z| > _ZMAX`` are not used: there the truncated
#: log-series of the small coins (``u <= 1/2``, at most 61 terms at ``b = 60``) and the
#: geometric series of step 5 are bounded by the constants of :func:`ellipse_bound`.
_ZMAX = 1.25


def ellipse_bound(a: float, b: float, rho: float) -> tuple[float, float] | None:
    r"""``(phi, K)`` with ``|f(z)| <= K exp(Lambda phi)`` on the Bernstein ellipse
    ``E_rho`` of the panel ``[a, b]``, for every integrand of the float64 route.

    The integrand ``g(z) = prod_s (1 - z u_s)^{m_s}`` (``0 <= u_s <= 1``,
    ``Lambda = sum_s m_s u_s``) is bounded two ways, each factor at a time:

    * ``1 - z u = (1 - u) + u (1 - z)`` gives ``|1 - z u| <= 1 - u (1 - R)``,
      ``R = max |1 - z|``, so ``|g| <= exp(Lambda (R - 1))`` (any panel);
    * when ``x = Re z < 1`` on the ellipse, ``log|1 - z u| <= log(1 - x u) + |y| u /
      (1 - x u) <= u (-x + |y| / (1 - x_max^+))``, so ``|g| <= exp(Lambda (-x_min +
      y_max / (1 - x_max^+)))``.

    ``phi`` is the smaller exponent. ``K`` covers what the route integrates besides
    ``g``: one factor of a large coin divided out (``<= e^{|phi|}``), the truncated
    geometric series of a small coin (``|sum_{j<=J'} (z u_r)^j| <= 1/(1 - |z|/2)``) and
    the truncated log-series of the small coins (its tail on ``|z| <= 5/4`` is below
    ``1e-11``: factor 1.01).

    Returns ``None`` when the ellipse reaches ``|z| > 5/4``.
    """
    c, h = 0.5 * (a + b), 0.5 * (b - a)
    A, B = 0.5 * (rho + 1.0 / rho), 0.5 * (rho - 1.0 / rho)  # semi-axes of E_rho
    x_min, x_max, y_max = c - h * A, c + h * A, h * B
    z_max = abs(c) + h * A
    if z_max > _ZMAX:
        return None
    phi = abs(1.0 - c) + h * A - 1.0
    if x_max < 1.0:
        phi = min(phi, -x_min + y_max / (1.0 - max(x_max, 0.0)))
    K = 1.01 * math.exp(abs(phi)) / (1.0 - z_max / 2.0)
    return phi, K


def panel_nodes(a: float, b: float, lam_lo: float, lam_hi: float, tol: float) -> int:
    r"""Least Gauss-Legendre node count on ``[a, b]`` whose error bound is ``<= tol``
    (absolute) for every ``Lambda`` in ``[lam_lo, lam_hi]``.

    Bound (Trefethen 2013, Thm 19.3, with ``N`` nodes; fungrim "Gaussian quadrature"):
    ``|I - I_N| <= h (64/15) M rho^{-2(N-1)} / (rho^2 - 1)``, ``h = (b - a)/2``,
    ``M = sup |f|`` on the ellipse ``E_rho`` of the panel (:func:`ellipse_bound`),
    minimised over the ``rho`` of a fixed grid.
    """
    h = 0.5 * (b - a)
    best = 10**9
    for rho in _RHOS:
        bound = ellipse_bound(a, b, rho)
        if bound is None:
            break  # z_max grows with rho
        phi, K = bound
        lam = lam_hi if phi >= 0 else lam_lo
        lead = h * (64.0 / 15.0) * K * math.exp(lam * phi) / (rho * rho - 1.0)
        N = 1 if lead <= tol else 1 + math.ceil(math.log(lead / tol) / (2.0 * math.log(rho)))
        best = min(best, N)
    return best


def integral_lower_bound(lam: float) -> float:
    """Lower bound of ``int_0^1 g`` for ``Lambda <= lam``: ``g >= exp(-2 tau Lambda)`` on
    ``[0, 1/2]`` (``log(1 - v) >= -2v`` for ``v <= 1/2``), so ``int_0^1 g >= (1 - e^{-lam})
    / (2 lam)``, decreasing in ``lam``."""
    return -math.expm1(-lam) / (2.0 * lam)


@lru_cache(maxsize=128)
def quad_plan(lam_lo: float, lam_hi: float, bits: int) -> tuple[int, tuple[int, ...]]:
    """``(grading, nodes)``: the panels (:func:`panel_edges`) and node counts per panel of
    the composite Gauss-Legendre rule with the fewest nodes whose a priori bound is at most
    ``2^-bits`` relative to ``int_0^1 g`` for every ``Lambda`` in ``[lam_lo, lam_hi]``
    (every integrand of the float64 route is ``>= g`` on ``[0, 1]``, so this bounds each
    output's relative quadrature error). Gradings 1 to 8 are tried."""
    plans = []
    for grading in range(1, 4):
        edges = panel_edges(grading)
        tol = 2.0**-bits * integral_lower_bound(lam_hi) / (len(edges) - 1)
        nodes = tuple(panel_nodes(a, b, lam_lo, lam_hi, tol)
                      for a, b in zip(edges[:-1], edges[1:], strict=True))
        plans.append((sum(nodes), grading, nodes))
    _, grading, nodes = min(plans)
    return grading, nodes


@lru_cache(maxsize=64)
def power_schedule(top: int) -> tuple[tuple[tuple[int, int, int, int], ...], tuple[int, ...]]:
    """How to fill rows ``u^e``, ``e = 1..top``, of a matrix whose row 0 is ``u`` with
    products of two equal-shaped blocks of rows already filled (numpy multiplies those as
    one flat array; a block times one broadcast row costs ~2x more per entry).

    Returns
    -------
    (ops, exponents)
        ``ops``: ``(i, j, m, o)`` meaning rows ``o..o+m-1`` are rows ``i..i+m-1`` times
        rows ``j..j+m-1`` (in order, each op reading filled rows only); ``exponents[r]``:
        the power ``e`` in row ``r`` (each of ``1..top`` once). Greedy: each op is the
        largest block whose products are new powers ``<= top`` (7 ops for ``top = 21``,
        the dense route's usual length, against 5 broadcast doublings). Every ``u^e`` is
        a product tree of ``e`` factors: at most ``e - 1`` roundings, as by any
        schedule.
    """
    exps = [1]
    ops = []
    while len(exps) < top:
        L, have = len(exps), set(exps)
        best = None
        for m in range(L, 0, -1):
            for i in range(L - m + 1):
                for j in range(i, L - m + 1):
                    sums = [exps[i + t] + exps[j + t] for t in range(m)]
                    if (max(sums) <= top and len(set(sums)) == m and have.isdisjoint(sums)
                            and (best is None or min(sums) < min(best[3]))):
                        best = (i, j, m, sums)
            if best is not None:
                break
        if best is None:  # unreachable: u times u^(e - 1) gives the least missing u^e
            raise AssertionError(f"power_schedule({top}): no block")
        i, j, m, sums = best
        ops.append((i, j, m, L))
        exps.extend(sums)
    return tuple(ops), tuple(exps)


def fail_nonneg(func: str, where: str, value: object) -> ValueError:
    """The :class:`ValueError` (for the caller to raise) refusing ``d{where}`` as negative."""
    return argument_error(func, f"d{where}", "a non-negative real number", value)

