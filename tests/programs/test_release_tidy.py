"""The quick reduced form of a ratio of exponential sums: the same value as the quotient
(checked exactly against ``sympy.simplify`` of ``f/g - form`` and by 50-digit numbers),
common factors cancelled (a known factorisation)."""

from __future__ import annotations

import sympy

from exactdp.programs.release_tidy import QUICK, quick, quick_ratio, quick_sources

e, r = sympy.exp, sympy.Rational


def test_a_common_factor_cancels_and_the_value_is_the_quotient():
    x = e(r(1, 20))
    f = sympy.expand((3 + 2 * x) * (1 + x**3))  # (3 + 2x)(1 + x^3)
    g = sympy.expand((5 - x**2) * (1 + x**3))
    out = quick_ratio(f, g)
    assert out.equals((3 + 2 * x) / (5 - x**2))  # sympy's own decision
    assert abs(sympy.N(out - f / g, 50)) < sympy.Float("1e-45")
    assert (f, g) in quick_sources(out)


def test_a_monomial_denominator_and_a_non_sum_refused():
    f = 2 + 3 * e(r(1, 10))
    out = quick_ratio(f, 4 * e(r(3, 40)))
    assert sympy.simplify(out - f / (4 * e(r(3, 40)))) == 0
    assert quick_ratio(sympy.sqrt(2) + e(1), 1 + e(2)) is None  # an irrational coefficient
    assert quick_sources(sympy.Integer(5)) == frozenset()


def test_quick_is_set_inside_the_block_only():
    assert not QUICK.get()
    with quick():
        assert QUICK.get()
    assert not QUICK.get()
