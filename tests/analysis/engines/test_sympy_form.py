"""ratio_at against the substitution route it replaces (powsimp((P/Q).subs(X, x))): the
same expression (==, srepr) at rational epsilons, and exactly equal values
(sympy.simplify(a - b) == 0) whatever the route."""

from __future__ import annotations

import random

import flint
import pytest
import sympy

from exactdp.analysis.common import X
from exactdp.analysis.engines.sympy_form import ratio_at
from exactdp.analysis.engines.xform import canonical_pair
from exactdp.exact.poly import fmpq_poly_to_sympy


def _slow(P, Q, x_value):
    u = fmpq_poly_to_sympy(flint.fmpq_poly(P), X).as_expr()
    r = u if Q == 1 else u / fmpq_poly_to_sympy(flint.fmpq_poly(Q), X).as_expr()
    return sympy.powsimp(r.subs(X, x_value))


def _pairs(seed: int, count: int = 40):
    rng = random.Random(seed)
    for _ in range(count):
        num = flint.fmpq_poly([flint.fmpq(rng.randint(-9, 9), rng.randint(1, 4))
                               for _ in range(rng.randint(1, 7))])
        den = flint.fmpq_poly([flint.fmpq(rng.randint(-9, 9), rng.randint(1, 4))
                               for _ in range(rng.randint(1, 5))])
        if den == 0 or num == 0:
            continue
        g = num.gcd(den)
        yield canonical_pair(num // g, den // g)
    # a constant denominator, a monomial numerator, a zero numerator
    yield flint.fmpz_poly([1, 2, 3]), flint.fmpz_poly([3])
    yield flint.fmpz_poly([0, 0, 5]), flint.fmpz_poly([1, 1])
    yield flint.fmpz_poly([]), flint.fmpz_poly([1])
    yield flint.fmpz_poly([-2, -9, -4, -6, -14, 30]), flint.fmpz_poly([0, 6])  # c x^m
    yield flint.fmpz_poly([-4, 3]), flint.fmpz_poly([0, 0, 1])


@pytest.mark.parametrize("eps, N", [(sympy.Integer(1), 2), (sympy.Rational(1, 3), 1),
                                    (sympy.Integer(7), 5)])
def test_rational_epsilon_same_expression_as_powsimp_of_subs(eps, N):
    x_value = sympy.exp(-eps / N)
    for i, (P, Q) in enumerate(pair for seed in range(2) for pair in _pairs(seed)):
        fast, slow = ratio_at(P, Q, x_value), _slow(P, Q, x_value)
        assert fast == slow and sympy.srepr(fast) == sympy.srepr(slow)
        if i % 10 == 0:
            assert sympy.simplify(fast - slow) == 0


@pytest.mark.parametrize("eps", [sympy.log(3), 1 + sympy.log(2)])
def test_other_epsilons_take_the_substitution_route(eps):
    x_value = sympy.exp(-eps / 2)
    for P, Q in _pairs(5, 10):
        assert ratio_at(P, Q, x_value) == _slow(P, Q, x_value)


@pytest.mark.parametrize("N", [1, 2, 3, 12])
def test_symbolic_epsilon_same_expression_as_powsimp_of_subs(N):
    """At a symbolic epsilon each x^k is the single atom exp(-k epsilon/N): built directly,
    the same expression (==, srepr) as the substitution route, whose powsimp walks took
    20 s a ratio at degree 1000; at N = 2 degree 60 too."""
    x_value = sympy.exp(-sympy.Symbol("epsilon", positive=True) / N)
    for P, Q in (pair for seed in range(3) for pair in _pairs(seed)):
        fast, slow = ratio_at(P, Q, x_value), _slow(P, Q, x_value)
        assert fast == slow and sympy.srepr(fast) == sympy.srepr(slow)
    if N == 2:
        rng = random.Random(7)
        P = flint.fmpz_poly([rng.randint(-50, 50) for _ in range(61)])
        Q = flint.fmpz_poly([rng.randint(1, 50) for _ in range(40)])
        g = P.gcd(Q)
        P, Q = canonical_pair(flint.fmpq_poly(P // g), flint.fmpq_poly(Q // g))
        assert ratio_at(P, Q, x_value) == _slow(P, Q, x_value)
