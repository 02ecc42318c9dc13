"""The supremum of a log ratio of exponential polynomials on a cell
(exactdp.programs.release_sup): certified critical points, exact rational zeros."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import sympy

from exactdp.exact import flint_prec, to_arb
from exactdp.programs import release_sup as S


def test_a_certified_interior_critical_point():
    # L(v) = ln(e^v + e^-v) - v/2 has its minimum at v = ln(3)/2, value ln(4/sqrt 3) - ln(3)/4
    lam = Fraction(1)
    f = {(Fraction(1), Fraction(0)): (Fraction(1),), (Fraction(-1), Fraction(0)): (Fraction(1),)}
    g = {(Fraction(1, 2), Fraction(0)): (Fraction(1),)}
    d = S.add(S.mul(S.derivative(f, lam), g), S.mul(f, S.derivative(g, lam)), -1)
    roots = S.zeros(d, lam, None, None, "test")
    assert len(roots) == 1
    x, y = roots[0]
    assert x < sympy.log(3) / 2 < y
    val, _, _ = S.refine(f, g, d, lam, x, y)
    exact = sympy.log(4 / sympy.sqrt(3)) - sympy.log(3) / 4
    with flint_prec(200):
        assert val.overlaps(to_arb(exact, 200))
    assert float(val.rad()) * 2 <= max(1e-6 * float(exact), 1e-12)
    # the steps are added to a shared budget, and the same roots are found within it
    spent = [5]
    assert S.zeros(d, lam, None, None, "test", 10_000, spent) == roots and spent[0] == 6
    # sin-like: D = (v - 1/3)(v - 1/2) exp(v) needs several bisections to separate its roots
    two = {(Fraction(1), Fraction(0)): (Fraction(1, 6), Fraction(-5, 6), Fraction(1))}
    spent = [0]
    assert len(S.zeros(two, lam, Fraction(0), Fraction(1), "test", 10_000, spent)) == 2
    with pytest.raises(ValueError, match="more than 2 bisections"):
        S.zeros(two, lam, Fraction(0), Fraction(1), "test", 2)
    assert spent[0] > 2


def test_an_exact_rational_critical_point_is_found_exactly():
    # D(v) = v^2 (a double zero at 0): no sign change, no interval; the zone is certified
    lam = Fraction(1)
    d = {(Fraction(0), Fraction(0)): (Fraction(0), Fraction(0), Fraction(1))}
    assert S.zeros(d, lam, Fraction(-1), Fraction(1), "test") in ([], [(0, 0)])
    assert S.simplest(Fraction(1, 3), Fraction(1, 2)) == Fraction(1, 2)
    assert S.simplest(Fraction(-7, 3), Fraction(-2)) == -2


def test_exact_at_and_leading_terms():
    # f(v) = (1 + v) e^(v/2) + 3 e^(-v + 1): at v = 2 and its leading term at +oo
    f = {(Fraction(1, 2), Fraction(0)): (Fraction(1), Fraction(1)),
         (Fraction(-1), Fraction(1)): (Fraction(3),)}
    lam = Fraction(1)
    assert sympy.expand(S.exact_at(f, Fraction(2), lam) - 3 * sympy.E - 3 * sympy.exp(-1)) == 0
    assert S.leading(f, lam) == (Fraction(1, 2), 1, 1)
    assert S.leading(S.negate_v(f), lam) == (Fraction(1), 0, 3 * sympy.E)


def test_magnitude_raises_the_working_precision_for_huge_answers():
    # a term exp(lam (v + w)) with w = -10**300 needs w to 2**-PREC absolute: PREC + ~1000 bits
    assert S.prec() == S.PREC
    with S.magnitude([Fraction(10**300), Fraction(0)]):
        assert S.prec() >= S.PREC + (10**300).bit_length()
        with flint_prec(S.prec()):
            lam = Fraction(1, 4)
            f = {(Fraction(1), Fraction(-(10**300))): (Fraction(1),)}
            b = S.ball(f, S.fraction_ball(Fraction(10**300 + 4)), lam)  # exp(1), to PREC bits
            assert b.overlaps(to_arb(sympy.E, 200)) and b.rel_accuracy_bits() > 150
    with S.magnitude([Fraction(3), Fraction(1, 10**300)]):
        assert S.prec() == S.PREC  # small and tiny answers keep the default
    assert S.prec() == S.PREC


def test_taylor_form_encloses_a_sum_of_cancelling_terms():
    # f(v) = exp(v/20) - sum_{i <= 8} (v/20)^i / i!: terms about 1, f about 1e-16 on [1, 2]
    # (as SVT3's D = f' g - f g' at 10 queries: terms 1e-5, D 1e-13)
    from math import factorial

    lam = Fraction(1)
    f = {(Fraction(1, 20), Fraction(0)): (Fraction(1),),
         (Fraction(0), Fraction(0)): tuple(-Fraction(1, 20**i * factorial(i)) for i in range(9))}
    df = S.derivative(f, lam)
    x, y = Fraction(1), Fraction(2)
    with flint_prec(S.prec()):
        box = S.interval(x, y)
        mean_value = S.ball(f, S.fraction_ball(Fraction(3, 2)), lam) + S.ball(df, box, lam) * (
            box - S.fraction_ball(Fraction(3, 2)))
        taylor = S.taylor_ball(f, lam, x, y)
        assert float(mean_value.rad()) > 1e-4 and float(taylor.rad()) < 1e-13
        for v in (x, Fraction(5, 4), Fraction(3, 2), y):  # it holds every value (exact series)
            exact = sympy.exp(sympy.Rational(v) / 20) - sum(
                (sympy.Rational(v) / 20) ** i / sympy.factorial(i) for i in range(9))
            assert taylor.contains(to_arb(exact, S.prec()))
    # no zero on [1, 2] (f > 0 for v > 0: the exponential's tail), decided in a few steps
    spent = [0]
    assert S.zeros(f, lam, x, y, "test", 200, spent) == [] and spent[0] < 50


def test_exact_at_is_the_term_by_term_sympy_sum():
    """``exact_at`` (assembled in bulk) is the expression sympy builds from the terms one
    at a time, ``sum p(v) exp(lam (k v + w))``: equal, with the same arguments (the same
    canonical form), on random sums, ``exp(1)`` as ``E`` and a constant term included."""
    import random

    rng = random.Random(5)
    F = Fraction
    for i in range(500):
        f = {}
        for _ in range(rng.randint(0, 10)):
            p = tuple(F(rng.randint(-4, 4), rng.randint(1, 6)) for _ in range(rng.randint(1, 3)))
            while p and p[-1] == 0:
                p = p[:-1]
            if p:
                f[(F(rng.randint(-3, 3), rng.choice([1, 2])), F(rng.randint(-4, 4), 2))] = p
        lam = F(rng.randint(1, 6), rng.randint(1, 6)) if i % 3 else F(1)
        v = F(rng.randint(-6, 6), rng.choice([1, 2, 3]))
        slow = sympy.Add(*[sympy.Rational(a) * sympy.Rational(v) ** j
                           * sympy.exp(sympy.Rational(lam * (k * v + w)))
                           for (k, w), p in f.items() for j, a in enumerate(p)])
        fast = S.exact_at(f, v, lam)
        assert fast == slow and fast.args == slow.args


def test_zeros_an_exact_zero_of_high_multiplicity_at_an_end_is_not_a_tangential_one():
    """``exp(-2 lam v) (1 - exp(-lam v))**8`` (``lam = 1/40``: noisy top-2 with gap's
    exponential noise at epsilon 1/10, ten answers) vanishes to order 8 at ``v = 0``, an end
    of ``[0, 2]``, and nowhere inside: bisection alone met pieces near 0 whose enclosures
    held 0 down to 2**-80 (an undecided critical point); the end's exact zero gets its
    Rolle zone first (``f^(8)`` excludes 0 there). Times ``(exp(-lam v) - exp(-lam))`` a
    sign change at ``v = 1`` is still isolated."""
    lam = Fraction(1, 40)
    f = {(Fraction(-2 - j), Fraction(0)): (Fraction(math.comb(8, j) * (-1) ** j),)
         for j in range(9)}
    assert S.zeros(f, lam, Fraction(0), Fraction(2), "t") == []
    g = S.add(S.mul(f, {(Fraction(-1), Fraction(0)): (Fraction(1),)}),
              S.mul(f, {(Fraction(0), Fraction(-1)): (Fraction(1),)}), -1)
    (x, y), = S.zeros(g, lam, Fraction(0), Fraction(2), "t")
    assert x <= 1 <= y and y - x < 1


def test_zero_at_in_integers_is_the_grouped_sum_of_fractions():
    """``zero_at`` against the exponent groups summed in Fractions (``exp`` of distinct
    rationals are linearly independent), on random sums built to cancel at ``r`` and on
    perturbed ones."""
    import random

    from exactdp.programs.release_sup import zero_at

    def slow(f, r):
        groups = {}
        for (k, w), p in f.items():
            e = k * r + w
            groups[e] = groups.get(e, Fraction(0)) + sum(a * r**i for i, a in enumerate(p))
        return all(v == 0 for v in groups.values())

    rng = random.Random(5)
    F = Fraction
    seen = set()
    for _ in range(300):
        r = F(rng.randint(-9, 9), rng.randint(1, 6))
        f = {}
        for _ in range(rng.randint(1, 6)):  # a term and its cancelling twin at r
            k, w = F(rng.randint(-4, 4), rng.choice([1, 2, 3])), F(rng.randint(-9, 9), 5)
            k2 = k + F(rng.randint(1, 3), rng.choice([1, 2]))
            w2 = k * r + w - k2 * r  # the same exponent at r
            p = (F(rng.randint(-5, 5), rng.randint(1, 4)), F(rng.randint(-3, 3), 7))
            f[(k, w)] = p
            f[(k2, w2)] = (-(p[0] + p[1] * r),)
        if rng.random() < 0.5:
            key = next(iter(f))
            f[key] = (f[key][0] + F(1, 11), *f[key][1:])
        got = zero_at(f, r, F(1, 3))
        assert got == slow(f, r)
        seen.add(got)
    assert seen == {True, False}


def test_exact_at_in_integers_is_the_grouped_sum_of_fractions():
    """``exact_at`` against the exponents' groups summed in Fractions and built by
    ``value_expr`` (the route before the integer sums): the same expression, on random
    sums with cancelling groups."""
    import random

    from exactdp.exact.piecewise_exp import value_expr
    from exactdp.programs.release_sup import exact_at

    def slow(f, v, lam):
        groups = {}
        for (k, w), p in f.items():
            val = sum((a * v**i for i, a in enumerate(p)), Fraction(0))
            if val:
                e = (0, lam * (k * v + w))
                groups[e] = groups.get(e, Fraction(0)) + val
        return value_expr({e: c for e, c in groups.items() if c}, sympy.Integer(1))

    rng = random.Random(11)
    F = Fraction
    for _ in range(200):
        v, lam = F(rng.randint(-9, 9), rng.randint(1, 6)), F(rng.randint(1, 5), rng.randint(1, 9))
        f = {}
        for _ in range(rng.randint(0, 6)):
            k, w = F(rng.randint(-4, 4), rng.choice([1, 2, 3])), F(rng.randint(-9, 9), 5)
            f[(k, w)] = tuple(F(rng.randint(-5, 5), rng.randint(1, 4))
                              for _ in range(rng.randint(1, 3)))
            if rng.random() < 0.5:  # a twin with the same exponent at v, cancelling
                k2 = k + 1
                f[(k2, k * v + w - k2 * v)] = (-sum(a * v**i for i, a in enumerate(f[(k, w)])),)
        assert exact_at(f, v, lam) == slow(f, v, lam)
