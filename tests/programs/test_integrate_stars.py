"""The star engines on hand-built stars, each against an independent route: the continuous
star by mpmath quadrature of the two Laplace densities, the discrete star by a direct double
sum of the two-sided geometric laws, the Gumbel star by the logistic law of a difference of
Gumbel draws; and the rates of ``units_of``."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import sympy

from exactdp.exact.piecewise_exp import ONE, value_expr
from exactdp.programs.integrate_plan import Bound, Star
from exactdp.programs.integrate_stars import (
    Units,
    active_ends,
    continuous_star,
    discrete_star,
    frac_sum,
    gumbel_stars,
    star_frac,
    units,
    units_of,
)
from exactdp.programs.runs import Draw, Run

#: The leaf's bound ``z1 > z0 + 1`` (strict) and ``z1 >= z0 + 1``.
ABOVE = Bound(F(1), F(1), True, True, "t.py:1")
AT_LEAST = Bound(F(1), F(1), True, False, "t.py:1")


def value(v, lam=1) -> mpmath.mpf:
    """``sum q lam**e exp(lam W)`` of an engine value."""
    return mpmath.fsum(mpmath.mpf(q.numerator) / q.denominator * mpmath.mpf(lam) ** e
                       * mpmath.exp(mpmath.mpf(lam) * w.numerator / w.denominator)
                       for (e, w), q in v.items())


def test_units_of_commensurable_and_incommensurable_scales():
    eps = sympy.Symbol("epsilon", positive=True)
    u = units_of((2 / eps, 4 / eps, 2 / eps))
    assert u.exact and u.unit == eps and u.rates == (F(1, 2), F(1, 4), F(1, 2))
    v = units_of((sympy.Integer(1), sympy.sqrt(2)))
    assert not v.exact and v.rates == (1, 1 / sympy.sqrt(2))
    assert units_of(()).rates == ()


def test_continuous_star_is_the_quadrature_of_the_laplace_densities():
    u = units_of((sympy.Integer(2), sympy.Integer(4)))
    star = Star("continuous", 0, (), ((1, (ABOVE,)),))
    v = continuous_star(star, ["laplace", "laplace"], u)
    # P(Z1 > Z0 + 1), Z0 ~ Lap(2), Z1 ~ Lap(4): int f0(z) (1 - F1(z + 1)) dz
    f0 = lambda z: mpmath.exp(-abs(z) / 2) / 4  # noqa: E731
    tail1 = lambda t: mpmath.exp(-t / 4) / 2 if t >= 0 else 1 - mpmath.exp(t / 4) / 2  # noqa: E731
    with mpmath.workdps(30):
        got = value(v)
        want = mpmath.quad(lambda z: f0(z) * tail1(z + 1), [-mpmath.inf, -1, 0, mpmath.inf])
        assert abs(got - want) < mpmath.mpf(10) ** -25
        num, den = star_frac(star, ["laplace", "laplace"], u, True)
        assert abs(value(num) / value(den) - got) < mpmath.mpf(10) ** -25


def test_discrete_star_is_the_direct_double_sum():
    u = units_of((sympy.Integer(2), sympy.Integer(4)))
    star = Star("discrete", 0, (), ((1, (AT_LEAST,)),))
    num, den = discrete_star(star, u)
    # P(K1 >= K0 + 1), P(K = k) proportional to exp(-|k| / b), b = 2 and 4: direct sums
    # over |k| <= 500 (the rest weighs below exp(-125))
    with mpmath.workdps(30):
        ks = range(-500, 501)

        def law(b):
            w = [mpmath.exp(-mpmath.mpf(abs(k)) / b) for k in ks]
            total = mpmath.fsum(w)
            return [x / total for x in w]

        p0, p1 = law(2), law(4)
        tail = [mpmath.mpf(0)] * (len(ks) + 1)  # tail[i] = P(K1 >= ks[i])
        for i in range(len(ks) - 1, -1, -1):
            tail[i] = tail[i + 1] + p1[i]
        want = mpmath.fsum(p0[i] * tail[i + 1] for i in range(len(ks)))
        got = value(num) / value(den)
        assert abs(got - want) < mpmath.mpf(10) ** -25


def test_gumbel_star_is_the_logistic_law_of_a_difference():
    u = units_of((sympy.Integer(2), sympy.Integer(2)))
    below = Bound(F(1), F(1), False, True, "t.py:1")  # z1 < z0 + 1
    parts = gumbel_stars(Star("gumbel", 0, (), ((1, (below,)),)), u)
    num, den = frac_sum(parts)
    # G1 - G0 is logistic with scale 2: P(G1 - G0 < 1) = 1 / (1 + exp(-1/2))
    assert abs(value(num) / value(den) - 1 / (1 + mpmath.exp(-0.5))) < 1e-14


def test_units_are_fractions_of_one_unit_or_sympy_rates():
    """Scales 2/eps and 4/eps: rates eps/2 and eps/4, Fractions 1/2 and 1/4 of the unit
    eps; with sqrt(2)/eps there is no common rational unit (sympy rates, unit 1)."""
    eps = sympy.Symbol("epsilon", positive=True)

    def run(*scales):
        return Run(tuple(Draw(i, "laplace", s, "f.py:1") for i, s in enumerate(scales)), (),
                   sympy.Integer(1), 0)

    u = units(run(2 / eps, 4 / eps))
    assert u.exact and u.unit == eps and u.rates == (F(1, 2), F(1, 4))
    v = units(run(1 / eps, sympy.sqrt(2) / eps))
    assert not v.exact and v.unit == 1 and sympy.simplify(v.rates[1] - eps / sympy.sqrt(2)) == 0


def _sympy_units(u):
    """The same rates as sympy numbers with unit 1: the dictionary route of discrete_star
    (no Laurent polynomials, no cache)."""
    return Units(sympy.Integer(1), tuple(sympy.Rational(r.numerator, r.denominator)
                                         for r in u.rates), False)


def test_discrete_star_in_laurent_form_is_the_dictionary_route_and_ignores_leaf_order():
    """A centre with a two-sided range and three leaves (one bounded on both sides, one
    with slope 2): the Laurent route's reduced fraction equals the sympy-valued
    dictionary route's unreduced one at lam = 1 to 40 digits; reordering the leaves gives
    the identical (cached) fraction; a centre range left empty is 0."""
    u = units_of((sympy.Integer(2), sympy.Integer(4), sympy.Integer(3), sympy.Integer(6)))
    below = Bound(F(1), F(-1), False, False, "t.py:2")  # leaf <= z - 1
    steep = Bound(F(2), F(0), True, True, "t.py:3")  # leaf > 2 z
    centre = (Bound(F(0), F(-3), True, False, "t.py:4"), Bound(F(0), F(4), False, True, "t.py:5"))
    leaves = ((1, (AT_LEAST,)), (2, (Bound(F(1), F(-2), True, False, "t.py:6"), below)),
              (3, (steep,)))
    star = Star("discrete", 0, centre, leaves)
    num, den = discrete_star(star, u)
    n2, d2 = discrete_star(star, _sympy_units(u))
    with mpmath.workdps(45):
        got = value(num) / value(den)
        want = mpmath.mpf(sympy.N(value_expr(n2, 1) / value_expr(d2, 1), 50))
        assert want > 0 and abs(got - want) < mpmath.mpf(10) ** -40
    assert discrete_star(Star("discrete", 0, centre, leaves[::-1]), u) == (num, den)
    empty = (Bound(F(0), F(3), True, False, "t.py:7"), Bound(F(0), F(1), False, False, "t.py:8"))
    assert discrete_star(Star("discrete", 0, empty, leaves), u) == ({}, ONE)


def test_active_ends_are_the_largest_lower_and_smallest_upper_bound_at_t():
    from exactdp.programs.integrate_plan import Bound
    z_lo, two = Bound(F(1), F(0), True, False, "f:1"), Bound(F(0), F(2), True, False, "f:2")
    five, z_up = Bound(F(0), F(5), False, False, "f:3"), Bound(F(1), F(1), False, False, "f:4")
    bounds = (z_lo, two, five, z_up)
    # at t = 3: lower ends z = 3 and 2, upper ends 5 and z + 1 = 4
    assert active_ends(bounds, F(3)) == (z_lo, z_up)
    # at t = 1: lower ends 1 and 2, upper ends 5 and 2 (an empty interval: the caller's test)
    assert active_ends(bounds, F(1)) == (two, z_up)
    assert active_ends((two,), F(0)) == (two, None) and active_ends((), F(0)) == (None, None)
