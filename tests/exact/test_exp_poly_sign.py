"""Exponential polynomials and their sign on (0, oo) (exactdp.exact.exp_poly_sign).

Independent routes: mpmath at 50 digits on a dense grid (the sign changes it sees), closed
forms of the zeros (logarithms, square roots), exact Taylor coefficients by sympy's series.
"""

from __future__ import annotations

import random
from fractions import Fraction as F

import mpmath
import pytest
import sympy

from exactdp.exact.exp_poly import ExpPoly
from exactdp.exact.exp_poly_sign import sign_on_positive_reals

t = sympy.Symbol("t")


def _mp(f: ExpPoly, x: mpmath.mpf) -> mpmath.mpf:
    return mpmath.fsum(mpmath.mpf(c.numerator) / c.denominator * x**j
                       * mpmath.exp(mpmath.mpf(w.numerator) / w.denominator * x)
                       for w, cs in f.terms for j, c in enumerate(cs))


def _inside(root, value) -> bool:
    return root.lo <= value <= root.hi if root.lo < root.hi else root.lo == value


def test_zeros_against_closed_forms():
    # (e^t - 2)(e^t - 3)(e^t - 5): N = 4 terms of degree 0, so at most 3 zeros: all found
    f = ExpPoly.from_sympy(sympy.expand((sympy.exp(t) - 2) * (sympy.exp(t) - 3)
                                        * (sympy.exp(t) - 5)), t)
    chart = sign_on_positive_reals(f)
    assert f.zero_bound == 3 and len(chart.roots) == 3
    for r, v in zip(chart.roots, (sympy.log(2), sympy.log(3), sympy.log(5)), strict=True):
        assert r.kind == "isolated" and _inside(r, F(str(sympy.N(v, 30))))
        assert r.hi - r.lo < F(1, 2**40)
    assert chart.gap_signs == (-1, 1, -1, 1)
    neg = chart.negative_intervals()
    assert neg[0][0] == 0 and neg[0][1] is chart.roots[0]
    assert neg[1] == (chart.roots[1], chart.roots[2])
    # a rational zero is exact: (t - 3)(e^{-t} + 1)
    g = ExpPoly.from_sympy(sympy.expand((t - 3) * (sympy.exp(-t) + 1)), t)
    (r,) = sign_on_positive_reals(g).roots
    assert r.kind == "exact" and r.exact == 3


def test_zero_counts_against_dense_mpmath_evaluation():
    """Random exponential polynomials: every sign change mpmath sees at 50 digits on a
    grid of (0, 20] is inside one isolating interval, the roots there change sign where the
    grid says so, and the count never exceeds the Polya-Szego bound."""
    rng = random.Random(20261203)
    mpmath.mp.dps = 50
    grid = [mpmath.mpf(k) / 20 for k in range(1, 401)]
    checked = 0
    for _ in range(60):
        terms: dict = {}
        for _ in range(rng.randint(2, 7)):
            key = (rng.randint(0, 2), F(rng.randint(-6, 6), rng.choice([1, 2, 3])))
            terms[key] = terms.get(key, 0) + F(rng.randint(-9, 9), rng.randint(1, 4))
        f = ExpPoly.from_terms(terms)
        if f.is_zero:
            continue
        chart = sign_on_positive_reals(f)
        assert len(chart.roots) <= f.zero_bound
        assert not chart.undecided
        signs = [mpmath.sign(_mp(f, x)) for x in grid]
        assert signs[0] in (0, chart.first) or any(r.hi <= F(1, 20) for r in chart.roots)
        changes = [(grid[i], grid[i + 1]) for i in range(len(grid) - 1)
                   if signs[i] * signs[i + 1] < 0]
        for a, b in changes:
            assert any(F(str(a)) <= r.lo and r.hi <= F(str(b)) and r.left != r.right
                       for r in chart.roots), (f, a, b)
        crossing = [r for r in chart.roots if r.left != r.right
                    and F(1, 20) < r.lo and r.hi < 20]
        assert len(crossing) == len(changes), f
        # the gap signs agree with mpmath at the midpoints between roots
        for r in chart.roots:
            if r.lo > 0 and r.kind == "isolated":
                assert mpmath.sign(_mp(f, mpmath.mpf(r.lo.numerator) / r.lo.denominator)) == r.left
                assert mpmath.sign(_mp(f, mpmath.mpf(r.hi.numerator) / r.hi.denominator)) == r.right
        checked += 1
    assert checked > 40


def test_polya_szego_bound_is_attained_with_multiplicity():
    # (t - 1)(t - 2)(t - 3) e^{t/2}: N = 4, three zeros
    f = ExpPoly.from_sympy(sympy.expand((t - 1) * (t - 2) * (t - 3) * sympy.exp(t / 2)), t)
    chart = sign_on_positive_reals(f)
    assert [r.exact for r in chart.roots] == [1, 2, 3] and f.zero_bound == 3


def test_tangential_zero_at_an_algebraic_point_is_decided_exactly():
    """(t - 1)^2 (e^t - 2): a double zero at 1 (a double root of every p_k: decided by
    their gcd, Lindemann-Weierstrass) and a simple one at log 2; (t^2 - 2)^2 (e^t - 3): a
    double zero at sqrt 2, isolated with its polynomial t^2 - 2."""
    f = ExpPoly.from_sympy(sympy.expand((t - 1) ** 2 * (sympy.exp(t) - 2)), t)
    chart = sign_on_positive_reals(f)
    (a, b) = chart.roots
    assert a.kind == "isolated" and _inside(a, F(str(sympy.N(sympy.log(2), 30))))
    assert b.kind == "exact" and b.exact == 1 and b.left == b.right == 1
    g = ExpPoly.from_sympy(sympy.expand((t**2 - 2) ** 2 * (sympy.exp(t) - 3)), t)
    chart = sign_on_positive_reals(g)
    (a, b) = chart.roots
    assert _inside(a, F(str(sympy.N(sympy.log(3), 30))))
    assert b.kind == "algebraic" and b.polynomial == (F(-2), F(0), F(1))
    assert b.lo < F(str(sympy.N(sympy.sqrt(2), 30))) < b.hi and b.left == b.right == 1
    assert chart.negative_intervals() == ((F(0), a),)


def test_tangential_zero_at_a_transcendental_point_is_undecided():
    # (e^t - 2)^2 >= 0 touches 0 at log 2: no exact algebra decides it, so it is reported
    # undecided with a tiny interval around log 2, never guessed
    f = ExpPoly.from_sympy(sympy.expand((sympy.exp(t) - 2) ** 2), t)
    chart = sign_on_positive_reals(f)
    (r,) = chart.undecided
    assert r.kind == "undecided" and _inside(r, F(str(sympy.N(sympy.log(2), 40))))
    assert r.hi - r.lo < F(1, 2**50)
    assert not chart.nonnegative and chart.negative_intervals() == ()
    assert chart.first == 1 and r.left == r.right == 1


def test_two_close_zeros_are_split():
    # (e^t - 2)(e^t - 2 - 10^-6): two simple zeros 5e-7 apart
    d = sympy.Rational(1, 10**6)
    f = ExpPoly.from_sympy(sympy.expand((sympy.exp(t) - 2) * (sympy.exp(t) - 2 - d)), t)
    chart = sign_on_positive_reals(f)
    assert [r.kind for r in chart.roots] == ["isolated", "isolated"]
    assert _inside(chart.roots[0], F(str(sympy.N(sympy.log(2), 40))))
    assert _inside(chart.roots[1], F(str(sympy.N(sympy.log(2 + d), 40))))
    assert chart.gap_signs == (1, -1, 1)



def test_identically_zero_has_an_empty_chart():
    g = ExpPoly.from_sympy(sympy.exp(-t / 2) ** 2 - sympy.exp(-t), t)
    chart = sign_on_positive_reals(g)
    assert chart.is_zero and chart.first == 0 and chart.roots == () and chart.nonnegative
    with pytest.raises(ValueError, match="ExpPoly"):
        sign_on_positive_reals(t)


def test_decided_is_false_only_with_an_undecided_interval():
    # (e^t - 2)^2 has a tangential zero at the transcendental point ln 2: undecided there;
    # (e^t - 2)(e^t - 3) changes sign at ln 2 and ln 3 (both decided, f < 0 between them)
    tt = sympy.Symbol("t")
    tangential = sign_on_positive_reals(
        ExpPoly.from_sympy(sympy.expand((sympy.exp(tt) - 2)**2), tt))
    assert not tangential.decided and tangential.undecided
    crossing = sign_on_positive_reals(
        ExpPoly.from_sympy(sympy.expand((sympy.exp(tt) - 2) * (sympy.exp(tt) - 3)), tt))
    assert crossing.decided and not crossing.undecided
    ((lo, hi),) = crossing.negative_intervals()
    assert lo.lo < sympy.log(2) < lo.hi and hi.lo < sympy.log(3) < hi.hi


@pytest.mark.parametrize("r", [F(1, 2), F(1), F(2)])
def test_a_rational_zero_met_by_the_search_from_one_is_exact(r):
    """(t - r)(1 + e^-t) increases on (0, oo) (derivative 1 + (1 + r - t) e^-t > 0) and
    vanishes only at r; the search for a sign change starts at t = 1 and halves or doubles,
    so r = 1/2, 1, 2 are met exactly on the way."""
    f = ExpPoly.from_sympy(sympy.expand((t - sympy.Rational(r.numerator, r.denominator))
                                        * (1 + sympy.exp(-t))), t)
    chart = sign_on_positive_reals(f)
    (root,) = chart.roots
    assert root.kind == "exact" and root.exact == r and (root.lo, root.hi) == (r, r)
    assert (root.left, root.right) == (-1, 1) and chart.first == -1
    with mpmath.workdps(30):
        x = mpmath.mpf(r.numerator) / r.denominator
        assert _mp(f, x - mpmath.mpf(1) / 8) < 0 < _mp(f, x + mpmath.mpf(1) / 8)


def test_refusal_names_the_argument():
    with pytest.raises(ValueError, match=r"^sign_on_positive_reals: f must be an ExpPoly, "
                       r"got 3$"):
        sign_on_positive_reals(3)


def test_a_zero_between_two_turning_points_is_searched_from_the_left_one():
    """(t - 1)(t - 3)(e^t - 3): three simple zeros 1 < ln 3 < 3 (closed forms), each in its
    own interval; ln 3 lies between two extrema of phi and is found from the first one."""
    f = ExpPoly.from_sympy(sympy.expand((t - 1) * (t - 3) * (sympy.exp(t) - 3)), t)
    chart = sign_on_positive_reals(f)
    assert len(chart.roots) == 3 <= f.zero_bound
    for r, v in zip(chart.roots, (F(1), F(str(sympy.N(sympy.log(3), 40))), F(3)), strict=True):
        assert _inside(r, v) and r.left == -r.right
    assert chart.roots[0].hi < chart.roots[1].lo and chart.roots[1].hi < chart.roots[2].lo
    assert chart.gap_signs == (-1, 1, -1, 1)


@pytest.mark.parametrize("c", [F(-4, 3), F(-1), F(-2)])
def test_an_increasing_function_over_an_undecided_critical_point(c):
    """g = 2 e^{2t} - 4/3 e^{3t} + 1/4 e^{4t} + c has g' = e^{2t} (e^t - 2)^2 >= 0, a
    tangential zero of g' at the transcendental ln 2 (undecided there), so g increases and
    has one zero. At c = -4/3, g(ln 2) = 8 - 32/3 + 4 + c = 0: a triple zero inside the
    undecided interval, reported as undecided; for c = -1, -2 the zero is away from ln 2
    (mpmath's root of g, by findroot) and isolated."""
    g = ExpPoly.from_terms({(0, F(2)): F(2), (0, F(3)): F(-4, 3), (0, F(4)): F(1, 4),
                            (0, F(0)): c})
    chart = sign_on_positive_reals(g)
    (root,) = chart.roots
    assert (root.left, root.right, chart.first) == (-1, 1, -1)
    if c == F(-4, 3):
        assert root.kind == "undecided" and _inside(root, F(str(sympy.N(sympy.log(2), 40))))
        assert not chart.nonnegative and chart.negative_intervals() == ((F(0), root),)
        return
    with mpmath.workdps(40):
        z = mpmath.findroot(lambda x: _mp(g, x), (0.01, 2), solver="anderson")
        assert root.kind == "isolated" and _inside(root, F(mpmath.nstr(z, 35)))
    assert not chart.undecided


def _turn_of(expr, lo, hi):
    """``_turn`` on a polynomial ``g`` (one term of rate 0, so ``h = g'``) across the sign
    change of ``h`` in ``(lo, hi)``: the bisection's first midpoint is ``(lo + hi) / 2``."""
    import flint

    from exactdp.exact.exp_poly import shifted_derivative, sign_at_point
    from exactdp.exact.exp_poly_sign import _Ev, _turn

    g = ExpPoly.from_sympy(sympy.expand(expr), t).flint_terms
    dg = h = shifted_derivative(g, flint.fmpq(0))
    a, b = flint.fmpq(lo.numerator, lo.denominator), flint.fmpq(hi.numerator, hi.denominator)
    left, right = sign_at_point(h, a), sign_at_point(h, b)
    T = _Ev("iso", a, b, left, right)
    return [(ev.kind, F(int(ev.lo.p), int(ev.lo.q)), F(int(ev.hi.p), int(ev.hi.q)), ev.left,
             ev.right) for ev in _turn(g, dg, h, T, sign_at_point(g, a), sign_at_point(g, b))]


def test_turn_decides_zeros_met_exactly_at_the_first_midpoint():
    """By closed forms: (t - 1)^2 has its minimum and a double zero at the midpoint 1 of
    (1/2, 3/2): one exact event, positive on both sides. (t - 1)(t - 5/4), minimum at 9/8,
    and (t - 1)(t - 3/4), minimum at 7/8, are positive at both ends and vanish at the
    midpoint 1: an exact zero there (- on the side of the minimum) and an isolated one on
    the far side of the minimum."""
    half, three_halves = F(1, 2), F(3, 2)
    assert _turn_of((t - 1) ** 2, half, three_halves) == [("exact", 1, 1, 1, 1)]
    # the isolated zeros 5/4 and 3/4 lie inside their intervals
    assert _turn_of((t - 1) * (t - sympy.Rational(5, 4)), half, three_halves) == [
        ("exact", 1, 1, 1, -1), ("iso", 1, three_halves, -1, 1)]
    assert _turn_of((t - 1) * (t - sympy.Rational(3, 4)), half, three_halves) == [
        ("iso", half, 1, 1, -1), ("exact", 1, 1, -1, 1)]


def test_root_prints_the_midpoint_of_its_interval():
    """Mutation seed 11: a root known by an interval prints its midpoint (by hand: the
    midpoint of [1/2, 1] is 3/4), an exact root its rational value."""
    from exactdp.exact.exp_poly_sign import Root

    assert str(Root(F(1, 2), F(1), "isolated", 1, -1)) == "~0.75"
    assert str(Root(F(1, 2), F(1), "undecided", 1, 1)) == "~0.75 (undecided)"
    assert str(Root(F(2, 3), F(2, 3), "exact", 1, -1)) == "2/3"


def test_a_critical_point_at_a_rational_is_decided_exactly():
    """Mutation seed 11: e^t - 3t and e^t - 2t have their critical point at exactly t = 1
    (d/dt (1 - k t e^-t) = k (t - 1) e^-t, an exact rational event of the derivative).
    e - 3 < 0: two zeros, by mpmath's findroot about 0.619 and 1.512, one on each side;
    e - 2 > 0: no zero at all (the minimum is positive)."""
    f = ExpPoly.from_sympy(sympy.exp(t) - 3 * t, t)
    chart = sign_on_positive_reals(f)
    mpmath.mp.dps = 30
    zeros = [mpmath.findroot(lambda x: mpmath.exp(x) - 3 * x, x0) for x0 in (0.6, 1.5)]
    assert [r.kind for r in chart.roots] == ["isolated", "isolated"]
    assert all(_inside(r, F(mpmath.nstr(z, 25))) for r, z in zip(chart.roots, zeros,
                                                                    strict=True))
    assert (chart.roots[0].left, chart.roots[0].right, chart.roots[1].right) == (1, -1, 1)
    g = ExpPoly.from_sympy(sympy.exp(t) - 2 * t, t)
    assert sign_on_positive_reals(g).roots == () and sign_on_positive_reals(g).nonnegative


def test_turn_splits_at_an_extremum_met_exactly_at_the_first_midpoint():
    """Mutation seed 11: (t - 1)^2 - 1/16 has its minimum -1/16 exactly at the midpoint 1
    of (1/2, 3/2) and is positive at both ends: its zeros 3/4 and 5/4 (by hand) are
    isolated on each side of the midpoint."""
    half, three_halves = F(1, 2), F(3, 2)
    assert _turn_of((t - 1) ** 2 - sympy.Rational(1, 16), half, three_halves) == [
        ("iso", half, 1, 1, -1), ("iso", 1, three_halves, -1, 1)]
