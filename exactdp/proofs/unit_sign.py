"""Exact signs of rational polynomials on ``(0, b]`` and ``(0, 1)`` (python-flint, sympy).

Used by the proof modules for certificates "for every epsilon": with
``x = exp(-epsilon/N)`` a polynomial inequality on (0, 1) covers every epsilon > 0. A fast
sufficient test (Descartes' rule of signs after a Moebius substitution) is tried first and
exact Sturm counting decides the rest; nothing is sampled.
"""

from __future__ import annotations

from fractions import Fraction

import flint
import sympy


def positive_on(p: flint.fmpq_poly, b: Fraction) -> bool:
    """Exactly decide ``p(y) > 0`` for every ``y in (0, b]``, ``0 < b <= 1`` rational.

    Descartes' rule of signs on ``(1+s)^d p(b/(1+s))`` (no sign change and ``p(b) > 0``
    prove it); when that is inconclusive, Sturm counting (sympy ``count_roots``) on
    ``[0, b]`` plus the signs at the ends.
    """
    bq = flint.fmpq(b.numerator, b.denominator)
    if p.is_zero() or p(bq) <= 0:
        return False
    scaled = [c * bq**i for i, c in enumerate(p.coeffs())]
    rev = flint.fmpq_poly(list(reversed(scaled)))  # sum a_i u^(d-i), u = 1 + s
    coeffs = [c for c in rev(flint.fmpq_poly([1, 1])).coeffs() if c != 0]
    if all(c > 0 for c in coeffs):
        return True
    coeffs = p.coeffs()
    low = next(i for i, c in enumerate(coeffs) if c != 0)  # divide out y^low (> 0 on (0, b])
    if coeffs[low] < 0:  # the sign as y -> 0+
        return False
    y = sympy.Symbol("y")
    sp = sympy.Poly([sympy.Rational(int(c.p), int(c.q)) for c in reversed(coeffs[low:])], y)
    return sp.count_roots(0, sympy.Rational(b.numerator, b.denominator)) == 0


def nonnegative_on_unit(p: flint.fmpq_poly) -> bool:
    """``p >= 0`` on (0, 1), exactly: :func:`positive_on` with ``b = 1``, else Sturm counting
    of the square-free part (a root of odd multiplicity inside means a sign change)."""
    if p.is_zero() or positive_on(p, Fraction(1)):
        return True
    y = sympy.Symbol("y")
    sp = sympy.Poly([sympy.Rational(int(c.p), int(c.q)) for c in reversed(p.coeffs())], y)
    if sp.degree() <= 0:
        return sp.LC() >= 0
    for fac, e in sp.factor_list()[1]:
        inside = fac.count_roots(0, 1) - int(fac.eval(0) == 0) - int(fac.eval(1) == 0)
        if fac.degree() > 0 and e % 2 == 1 and inside > 0:
            return False
    return sp.eval(sympy.Rational(1, 2)) >= 0  # no sign change: the sign of any interior point




def _bernstein(coeffs: dict, d1: int, d2: int) -> list[list[Fraction]]:
    """Bernstein coefficients on [0, 1]^2 of ``sum a_kl x^k u^l`` (degrees d1, d2)."""
    from math import comb

    out = [[Fraction(0)] * (d2 + 1) for _ in range(d1 + 1)]
    for i in range(d1 + 1):
        for j in range(d2 + 1):
            out[i][j] = sum(
                (Fraction(comb(i, k) * comb(j, m), comb(d1, k) * comb(d2, m)) * a
                 for (k, m), a in coeffs.items() if k <= i and m <= j), Fraction(0))
    return out


def _split(b: list[list[Fraction]], axis: int) -> tuple[list, list]:
    """de Casteljau at 1/2 along ``axis`` (0: x, 1: u): Bernstein nets of both halves."""
    if axis == 1:
        lo, hi = zip(*(_split_row(row) for row in b), strict=True)
        return list(lo), list(hi)
    cols = [_split_row([b[i][j] for i in range(len(b))]) for j in range(len(b[0]))]
    lo = [[cols[j][0][i] for j in range(len(cols))] for i in range(len(b))]
    hi = [[cols[j][1][i] for j in range(len(cols))] for i in range(len(b))]
    return lo, hi


def _split_row(row: list[Fraction]) -> tuple[list, list]:
    pts, left, right = list(row), [], []
    while pts:
        left.append(pts[0])
        right.append(pts[-1])
        pts = [(a + c) / 2 for a, c in zip(pts[:-1], pts[1:], strict=True)]
    return left, right[::-1]


def nonnegative_on_square(poly: sympy.Poly, depth: int = 12) -> bool:
    """Exactly prove ``poly(x, u) >= 0`` on ``[0, 1]^2`` by Bernstein subdivision.

    A box is settled when every Bernstein coefficient is ``>= 0`` (the polynomial is a convex
    combination of them); a negative corner coefficient is a value of the polynomial, so it
    refutes; otherwise the box is halved along its longer side, up to ``depth`` levels.
    Returns False when refuted *or* undecided at that depth (never a false True).

    References
    ----------
    Garloff (1986), "Convergent bounds for the range of multivariate polynomials"; the
    rational-arithmetic version of the standard Bernstein range enclosure.
    """
    d1, d2 = poly.degree(poly.gens[0]), poly.degree(poly.gens[1])
    coeffs = {m: Fraction(int(c.p), int(c.q)) for m, c in zip(poly.monoms(), poly.coeffs(),
                                                              strict=True)}
    stack = [(_bernstein(coeffs, d1, d2), 0, 0)]
    while stack:
        b, lx, lu = stack.pop()
        if all(c >= 0 for row in b for c in row):
            continue
        if min(b[0][0], b[0][-1], b[-1][0], b[-1][-1]) < 0 or lx + lu >= 2 * depth:
            return False
        axis = 0 if lx <= lu else 1
        for half in _split(b, axis):
            stack.append((half, lx + (axis == 0), lu + (axis == 1)))
    return True
