"""The one-dimensional piecewise-exponential integrals and sums
(exactdp/exact/piecewise_exp.py), against sympy's own integration and summation."""

from __future__ import annotations

import random
from fractions import Fraction as F

import mpmath
import pytest
import sympy

from exactdp.exact.piecewise_exp import (
    ONE,
    add_term,
    integrate_piece,
    plus,
    reduce_fraction,
    sum_piece,
    sums_to_one,
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


def _value_expr_one_term_at_a_time(v, lam):
    """The reference: sympy's own flattening, one term at a time."""
    def num(a):
        return sympy.Rational(a.numerator, a.denominator)
    return sympy.Add(*[num(q) * lam**e * sympy.exp(lam * num(w)) for (e, w), q in v.items()])


def test_value_expr_at_a_rational_unit_is_sympy_s_canonical_expression():
    """At a rational lam the terms are assembled in bulk (Add / Mul from their arguments):
    the expression must be the very one sympy builds term by term (same arguments, same
    printing, same hash), on random values with lam**e terms, repeated exponents (lam W
    equal for two keys), coefficients 1 and -1, a constant, exp(1) = E and the empty sum."""
    rng = random.Random(3)
    for _ in range(1500):
        lam = sympy.Rational(rng.randint(1, 9), rng.randint(1, 9))
        v = {}
        for _ in range(rng.randint(0, 9)):
            q = rng.choice([F(1), F(-1), F(rng.randint(-5, 5), rng.choice([1, 2, 7]))])
            v[(rng.choice([0, 0, 1, 2]), F(rng.randint(-6, 6), rng.choice([1, 2, 3, 4])))] = q
        mine, ref = value_expr(v, lam), _value_expr_one_term_at_a_time(v, lam)
        assert mine.args == ref.args and str(mine) == str(ref) and hash(mine) == hash(ref)
        assert sympy.srepr(mine) == sympy.srepr(ref)
    assert value_expr({(0, F(1)): F(1)}, sympy.Integer(1)) is sympy.E
    assert value_expr({(0, F(0)): F(2), (1, F(0)): F(-2)}, sympy.Integer(1)) == 0


def test_sums_to_one_term_by_term():
    # (1 - e^(-lam)/2) + e^(-lam)/2 = 1 for every lam; lam e^(-lam) terms cancel too
    a = {(0, F(0)): F(1), (0, F(-1)): F(-1, 2), (1, F(-1)): F(1, 3)}
    b = {(0, F(-1)): F(1, 2), (1, F(-1)): F(-1, 3)}
    assert sums_to_one([a, b])
    assert not sums_to_one([a])  # 1 - e^(-lam)/2 + lam e^(-lam)/3
    assert not sums_to_one([{(0, F(0)): F(1, 2)}, {(0, F(0)): F(1, 3)}])
    assert sums_to_one([{(0, 0): F(1, 2)}, {(0, F(0)): F(1, 2)}, {}])


def test_sum_piece_goes_on_after_a_constant_term():
    """Mutation seed 11: a constant term (rate 0) before a geometric one. By hand, at any
    lam: sum_{z=1}^{3} (2 + exp(-lam z)) = 6 + (exp(-lam) - exp(-4 lam)) / (1 - exp(-lam))."""
    piece = {(F(0), F(0)): F(2), (F(-1), F(0)): F(1)}
    out: dict = {}
    sum_piece(out, piece, 1, 3)
    lam = sympy.Rational(7, 5)
    got = sum(value_expr(v, lam) / (1 if r == 0 else 1 - sympy.exp(lam * sympy.Rational(r)))
              for r, v in out.items())
    want = 6 + sum(sympy.exp(-lam * z) for z in (1, 2, 3))
    assert sympy.simplify(got - want) == 0
    assert set(out) == {0, F(-1)}


def test_add_term_adds_new_keys_and_drops_zero_sums():
    v: dict = {}
    add_term(v, (0, F(1)), F(0))  # a zero at a new key adds nothing
    assert v == {}
    add_term(v, (0, F(1)), F(2))
    add_term(v, (1, F(0)), F(1, 3))
    add_term(v, (0, F(1)), F(-1))
    assert v == {(0, F(1)): F(1), (1, F(0)): F(1, 3)}
    add_term(v, (0, F(1)), F(-1))
    assert v == {(1, F(0)): F(1, 3)}
