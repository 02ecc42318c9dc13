"""Exact closed forms of report-noisy-max with Laplace noise (sympy / flint).

:func:`laplace_exact_polys` gives the exp-polynomials in ``x = e^{-lam}`` for integer gaps,
:func:`laplace_exact` the sympy probabilities, :func:`laplace_exact_general` any exact gaps.
Convention and references: :mod:`exactdp.numeric.laplace`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import cmp_to_key
from math import lcm

import numpy as np
import sympy
from flint import fmpq_poly

from ..._validate import argument_error
from ...cost import (
    check_seconds,
    fmt_size,
    laplace_exact_seconds,
    laplace_general_seconds,
    refuse,
)
from ...exact.signs import UndecidedSignError, compare
from ..gaps import DENSE_DEGREE_LIMIT, as_list, check_int_gaps, check_lam, coin, fail_value
from .pieces import FlintOps, ScalarOps, SparseOps, expand, group_gaps

# --------------------------------------------------------------------------------------
# exact engines
# --------------------------------------------------------------------------------------


def _check_closed_form_cost(func: str, groups: int) -> None:
    """Refuse the exact closed form on too many distinct gaps (cost about groups^3.5)."""
    check_seconds(func, f"the exact RNM-Laplace closed form on {groups} distinct gaps",
                  laplace_exact_seconds(groups),
                  "use .evalf(dps) (the series route, certified digits) or .to_numpy()")


def laplace_exact_polys(G: Sequence[int]) -> list[tuple[fmpq_poly, fmpq_poly]]:
    """Exact RNM-Laplace probabilities for integer gaps as polynomial pairs.

    Parameters
    ----------
    G : sequence of int, shape (n,)
        Non-negative integer gaps: item r has scaled gap ``d_r = G_r * lam``. Shifted so
        that ``min(G) = 0`` (the distribution is shift-invariant).

    Returns
    -------
    list of (A, B), length n
        ``flint.fmpq_poly`` pairs with ``Pr[RNM = r] = A_r(x) + lam * B_r(x)``,
        ``x = e^{-lam}``. ``sum_r A_r = 1`` and ``sum_r B_r = 0`` exactly.

    Raises
    ------
    ValueError
        If G is empty or holds a negative or non-integer entry.

    References
    ----------
    Module docstring (piecewise integration); docs/formulas.md section 2.
    """
    Gs = check_int_gaps(G, "laplace_exact_polys")
    if max(Gs) > DENSE_DEGREE_LIMIT:
        raise refuse("laplace_exact_polys", f"dense polynomials of degree {fmt_size(max(Gs))}",
                     f"arrays of {fmt_size(max(Gs))} coefficients",
                     f"degree <= {DENSE_DEGREE_LIMIT}",
                     "laplace_exact(G, lam) keeps only the nonzero terms")
    u, cnt, idx = group_gaps(Gs)
    _check_closed_form_cost("laplace_exact_polys", len(u))
    res = expand(u, cnt, idx, FlintOps())
    sA = sum((a for a, _ in res), fmpq_poly([]))
    sB = sum((b for _, b in res), fmpq_poly([]))
    if sA != 1 or sB != 0:  # pragma: no cover - internal invariant
        raise AssertionError("laplace_exact_polys: probabilities do not sum to 1")
    return res


#: Most distinct gaps of the sparse exact route (gaps beyond ``DENSE_DEGREE_LIMIT``): each
#: probability is a sum of up to ``2^p`` terms ``exp(-(sum of a subset of gaps) lam)``
#: (p = 12: about 30 000 terms in 1.3 s; p = 14: 130 000 in 7 s).
SPARSE_MAX_DISTINCT = 12


def _sparse_pairs(G: list[int], func: str) -> list[tuple[dict, dict]]:
    """:func:`laplace_exact_polys` for huge integer gaps, as sparse ``{exponent: Fraction}``."""
    u, cnt, idx = group_gaps(G)
    if len(u) > SPARSE_MAX_DISTINCT:
        raise refuse(func, f"exact RNM-Laplace probabilities with {len(u)} distinct gaps "
                     f"up to {fmt_size(max(G))}", f"up to 2^{len(u)} exponential terms each",
                     f"{SPARSE_MAX_DISTINCT} distinct gaps beyond {DENSE_DEGREE_LIMIT}",
                     "use .evalf(dps), .evalf_balls(dps) or .to_numpy()")
    return expand(u, cnt, idx, SparseOps())


def _poly_to_sympy(poly, lam: sympy.Expr, cache: dict) -> sympy.Expr:
    """``sum_e c_e x^e`` with ``x = exp(-lam)`` as a sympy expression (exp atoms cached);
    ``poly`` a flint ``fmpq_poly`` or a sparse ``{e: Fraction}``."""
    items = (poly.items() if isinstance(poly, dict)
             else ((e, Fraction(int(c.p), int(c.q))) for e, c in enumerate(poly.coeffs())))
    terms = []
    for e, c in sorted(items):
        if c != 0:
            q = sympy.Rational(c.numerator, c.denominator)
            if e == 0:
                terms.append(q)
                continue
            atom = cache.get(e)
            if atom is None:  # coin refuses exp(-k log 3) with an astronomical k
                atom = cache[e] = coin(e, lam)
            terms.append(sympy.Mul(q, atom))
    return sympy.Add(*terms)


def laplace_exact(G: Sequence[int], lam: sympy.Expr,
                  func: str = "laplace_exact") -> tuple[sympy.Expr, ...]:
    """Exact RNM-Laplace output distribution for gaps ``d_r = G_r * lam``.

    Parameters
    ----------
    G : sequence of int, shape (n,)
        Non-negative integer gaps in units of ``lam`` (rational scores reduce to this with
        a common denominator L: ``G_r = L (q* - q_r)``, ``lam = epsilon/(c sensitivity L)``).
    lam : sympy.Expr
        Positive exact number or positive Symbol (scaled-gap unit).

    Returns
    -------
    tuple of sympy.Expr, length n
        ``Pr[RNM = r] = A_r + lam * B_r`` with ``A_r, B_r`` rational combinations of
        ``exp(-k*lam)``. They sum to exactly 1. Ties are exact. Cost about n^3 small
        polynomial operations (n = 12 distinct gaps: well under a second); gaps beyond
        ``DENSE_DEGREE_LIMIT`` (say 10**35) are carried as sparse terms, up to ``2^p`` of
        them for p distinct gaps.
    func : str
        The public function named in a refusal.

    Raises
    ------
    ValueError
        Bad G (empty, negative, non-integer) or lam not a positive exact expression.
    exactdp.cost.TooCostly
        More than :data:`SPARSE_MAX_DISTINCT` distinct gaps beyond ``DENSE_DEGREE_LIMIT``.

    References
    ----------
    docs/formulas.md section 2 (two items: ``(1 + d/2) e^{-d}/2``); module docstring.
    """
    lam = check_lam(lam, "laplace_exact")
    Gs = check_int_gaps(G, "laplace_exact")
    # flint polynomials, or sparse {exponent: Fraction} terms for huge gaps
    polys: list[tuple[fmpq_poly, fmpq_poly]] | list[tuple[dict, dict]]
    if max(Gs) > DENSE_DEGREE_LIMIT:  # a gap of 10**35: sparse terms, not dense arrays
        polys = _sparse_pairs(Gs, func)
    else:
        polys = laplace_exact_polys(Gs)
    out = []
    cache: dict = {}
    for a, b in polys:
        expr = _poly_to_sympy(a, lam, cache)
        bexpr = _poly_to_sympy(b, lam, cache)
        out.append(expr + lam * bexpr if bexpr != 0 else expr)
    return tuple(out)


def _sympy_cmp_factory(vals: list, func: str) -> Callable[[int, int], int]:
    def cmp(i: int, j: int) -> int:
        diff = sympy.expand(vals[i] - vals[j])
        if diff.free_symbols:  # symbolic gaps: sympy's assumptions decide, or nobody does
            for form in (diff, sympy.factor(diff)):
                for test, value in ((form.is_zero, 0), (form.is_positive, 1),
                                    (form.is_negative, -1)):
                    if test:
                        return value
        try:
            return compare(vals[i], vals[j])
        except UndecidedSignError:
            raise fail_value(func, "d", f"must hold gaps that can be ordered exactly; {vals[i]} "
                             f"and {vals[j]} cannot") from None

    return cmp


def laplace_exact_general(
    d: Sequence[sympy.Expr], *, func: str = "laplace_exact_general"
) -> tuple[sympy.Expr, ...]:
    """Exact RNM-Laplace output distribution for arbitrary exact gaps (e.g. ``sqrt(2)``).

    Parameters
    ----------
    d : sequence of sympy.Expr, shape (n,)
        Non-negative exact scaled gaps (numbers, or expressions in positive Symbols whose
        order sympy can decide). Intended for small n: on gaps that are not all rational
        the work grows like ``2^groups`` on independent irrational gaps
        (``cost.laplace_general_seconds``), so about 12 such gaps and more are refused.
    func : str
        The public function named in refusals (the caller's, e.g. ``probabilities``).

    Returns
    -------
    tuple of sympy.Expr, length n
        Sums of ``rational * exp(-t)`` and ``t * exp(-t)`` terms; they sum to 1
        (``sympy.simplify``).

    Raises
    ------
    ValueError
        Empty input, a Float, a negative gap, or gaps whose order cannot be decided;
        :class:`~exactdp.cost.TooCostly` when the estimated time exceeds
        ``cost.SECONDS_LIMIT``.

    References
    ----------
    Module docstring; docs/formulas.md section 2.
    """
    vals = []
    for i, v in enumerate(as_list(d, func, "d")):
        if isinstance(v, (float, np.floating)):
            raise argument_error(func, f"d[{i}]", "exact, not a float", v)
        try:
            v = sympy.sympify(v, strict=True)
        except (sympy.SympifyError, TypeError):
            raise argument_error(func, f"d[{i}]", "an exact number", v) from None
        if v.has(sympy.Float) or v.has(sympy.nan) or v.is_real is False:
            raise argument_error(func, f"d[{i}]", "an exact real number", v)
        if v.is_nonnegative is not True or v.is_finite is not True:
            raise argument_error(func, f"d[{i}]", "a finite gap known to be >= 0", v)
        vals.append(v)
    cmp = _sympy_cmp_factory(vals, func)
    best = min(range(len(vals)), key=cmp_to_key(cmp))
    vals = [sympy.expand(v - vals[best]) for v in vals]
    u, cnt, idx = group_gaps(vals, _sympy_cmp_factory(vals, func))
    u[0] = sympy.Integer(0)
    if all(v.is_Rational for v in vals):
        # rational gaps d_r = G_r / L: the integer engine (flint polynomials, ~groups^3.5)
        L = lcm(*(int(v.q) for v in vals))
        return laplace_exact([int(v * L) for v in vals], sympy.Rational(1, L), func)
    check_seconds(func, f"the exact RNM-Laplace closed form on {len(u)} distinct "
                  "irrational or symbolic gaps", laplace_general_seconds(vals),
                  "use .evalf(dps) (the series route, certified digits) or .to_numpy()")
    ops = ScalarOps(lambda t: sympy.exp(-t), None, sympy.Integer(1), sympy.Rational(1, 2))
    res = expand(u, cnt, idx, ops)
    return tuple(sympy.expand(sympy.powsimp(sympy.expand(r))) for r in res)
