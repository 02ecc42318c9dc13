"""Exact signs of rational polynomials on ``(0, b]`` and ``(0, 1)`` (python-flint, sympy).

Used by the proof modules for certificates "for every epsilon": with
``y = exp(-epsilon/N)`` a polynomial inequality on (0, 1) covers every epsilon > 0. A fast
sufficient test (Descartes' rule of signs after a Moebius substitution) is tried first and
exact Sturm counting decides the rest; nothing is sampled.
"""

from __future__ import annotations

from fractions import Fraction

import flint
import sympy

__all__ = ["nonnegative_on_unit", "positive_on"]


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


