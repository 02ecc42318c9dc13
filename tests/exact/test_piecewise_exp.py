"""The one-dimensional piecewise-exponential integrals and sums
(exactdp/exact/piecewise_exp.py), against sympy's own integration and summation."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
import sympy

from exactdp.exact.piecewise_exp import (
    ONE,
    integrate_piece,
    plus,
    reduce_fraction,
    sum_piece,
    times,
    value_expr,
)

LAM = sympy.Symbol("lam", positive=True)
Z = sympy.Symbol("z", real=True)


def piece_expr(piece, z):
    return sum(sympy.Rational(q) * sympy.exp(LAM * (sympy.Rational(r) * z + sympy.Rational(w)))
               for (r, w), q in piece.items())


@pytest.mark.parametrize("lo,hi", [(None, F(0)), (F(-1), F(2)), (F(1, 3), None)])
def test_integrate_piece_is_the_integral(lo, hi):
    piece = {(F(1), F(0)): F(1, 2), (F(0), F(1)): F(3), (F(-2), F(1, 2)): F(-1)}
    if lo is None:
        piece.pop((F(0), F(1))), piece.pop((F(-2), F(1, 2)))
    if hi is None:
        piece.pop((F(0), F(1)), None), piece.pop((F(1), F(0)), None)
    out: dict = {}
    integrate_piece(out, piece, lo, hi, e=1)
    ref = sympy.integrate(LAM * piece_expr(piece, Z),
                          (Z, -sympy.oo if lo is None else sympy.Rational(lo),
                           sympy.oo if hi is None else sympy.Rational(hi)))
    assert sympy.simplify(value_expr(out, LAM) - ref) == 0


def test_integrate_piece_refuses_a_divergent_integral():
    with pytest.raises(ArithmeticError, match="does not decay"):
        integrate_piece({}, {(F(-1), F(0)): F(1)}, None, F(0))
    with pytest.raises(ArithmeticError, match="infinite"):
        integrate_piece({}, {(F(0), F(0)): F(1)}, F(0), None)


@pytest.mark.parametrize("lo,hi", [(None, -1), (-2, 3), (0, None)])
def test_sum_piece_is_the_geometric_sum(lo, hi):
    """Against mpmath's nsum at lam = 3/2, 30 digits."""
    piece = {(F(1, 2), F(1)): F(2)} if lo is None else {(F(-1), F(0)): F(1, 3)}
    if lo is not None and hi is not None:
        piece[(F(0), F(2))] = F(5)
    out: dict = {}
    sum_piece(out, piece, lo, hi)
    lam = sympy.Rational(3, 2)
    got = sum(value_expr(v, lam) / (1 if r == 0 else 1 - sympy.exp(lam * sympy.Rational(r)))
              for r, v in out.items())
    mpmath.mp.dps = 30
    def mp(f):
        return mpmath.mpf(f.numerator) / f.denominator

    ref = mpmath.nsum(lambda k: sum(mp(q) * mpmath.exp(mp(F(3, 2)) * (mp(r) * k + mp(w)))
                                    for (r, w), q in piece.items()),
                      [-mpmath.inf if lo is None else lo, mpmath.inf if hi is None else hi])
    assert abs(sympy.N(got, 30) - sympy.Float(ref, 30)) < sympy.Float("1e-25")


def test_reduce_fraction_cancels_the_gcd():
    """(1 - y^2) / (1 - y) = 1 + y with y = exp(lam / 2)."""
    num = {(0, F(0)): F(1), (0, F(1)): F(-1)}
    den = {(0, F(0)): F(1), (0, F(1, 2)): F(-1)}
    n2, d2 = reduce_fraction(num, den)
    assert d2 == ONE and n2 == {(0, F(0)): F(1), (0, F(1, 2)): F(1)}
    lam_term = {(1, F(0)): F(1)}
    assert reduce_fraction(lam_term, den) == (lam_term, den)   # a lam power: unchanged


def test_times_and_plus():
    a = {(0, F(1)): F(2)}
    b = {(1, F(-1)): F(3), (0, F(0)): F(1)}
    assert times(a, b) == {(1, F(0)): F(6), (0, F(1)): F(2)}
    assert times(ONE, b) == b and times(b, ONE) is not b
    assert plus(a, a, -1) == {}
