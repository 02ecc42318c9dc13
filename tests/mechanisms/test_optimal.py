"""The section-5 recursion equals PF's integral polynomials identically."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import sympy

from exactdp.mechanisms.optimal import pf_polynomials, section5_exact
from exactdp.numeric.pf import pf_float
from tests.reference import PF_Q31002_EPS2

x = sympy.Symbol("x")


def gap_multisets(n, top):
    """Sorted gap multisets of size n over 0..top containing a 0."""
    for rest in itertools.combinations_with_replacement(range(top + 1), n - 1):
        yield (0, *rest)


def test_known_value_math_section2():
    want = [1 - x / 2 - x**2 / 2 + x**3 / 3, x / 2 - x**3 / 6, x**2 / 2 - x**3 / 6]
    for route in (section5_exact, pf_polynomials):
        got = route([0, 1, 2])
        assert all(sympy.expand(g.as_expr() - w) == 0 for g, w in zip(got, want, strict=True))


def test_identity_exhaustive_up_to_n6_gaps3():
    count = 0
    for n in range(1, 7):
        for G in gap_multisets(n, 3):
            a, b = section5_exact(G), pf_polynomials(G)
            assert a == b, G  # sympy Poly equality: identical coefficients over QQ
            assert sum(b, sympy.Poly(0, x, domain=sympy.QQ)) == sympy.Poly(1, x, domain="QQ")
            count += 1
    assert count == sum(math.comb(n - 1 + 3, 3) for n in range(1, 7))


def test_identity_unsorted_input_order_and_larger_gaps():
    G = [3, 0, 7, 3, 1, 0]
    a, b = section5_exact(G), pf_polynomials(G)
    assert a == b
    # input order is kept: equal gaps equal polynomials, the maximizers share
    assert a[0] == a[3] and a[1] == a[5]


def test_section5_equations_hold_for_pf():
    # P_r(G) = x^{G_r} P_r(G with G_r raised to the max), checked on PF's own polynomials
    G = (0, 1, 1, 2, 4)
    P = pf_polynomials(G)
    for r, g in enumerate(G):
        if g:
            raised = list(G)
            raised[r] = 0
            assert P[r] == sympy.Poly(x**g, x, domain="QQ") * pf_polynomials(raised)[r]


def test_polynomials_match_float_engine():
    rng = np.random.default_rng(4)
    G = rng.integers(0, 11, 30)
    G[3] = 0
    P = pf_polynomials(G)
    for rate in (0.05, 0.7, 3.0):
        xv = math.exp(-rate)
        f = pf_float(rate * G.astype(float))
        vals = np.array([float(p.eval(sympy.Rational(xv))) for p in P])
        assert np.allclose(vals, f, rtol=1e-12, atol=0)


def test_pf_polynomials_n50_sum_to_one():  # its speed: benchmarks/bench_pf.py
    rng = np.random.default_rng(0)
    G = rng.integers(0, 11, 50)
    G[0] = 0
    P = pf_polynomials(G)
    assert sum(P, sympy.Poly(0, x, domain="QQ")) == sympy.Poly(1, x, domain="QQ")


@pytest.mark.parametrize("route", [section5_exact, pf_polynomials])
@pytest.mark.parametrize(
    "bad, match",
    [([], "G must be non-empty"), ([1, 2], "G must be a sequence containing a 0"),
     ([0, -1], r"G\[1\]"), ([0, 1.5], r"G\[1\]"), ([0, True], r"G\[1\]"),
     ("01", "sequence"), (5, "sequence")],
)
def test_bad_input(route, bad, match):
    with pytest.raises(ValueError, match=match):
        route(bad)


# ------------------------------------------------------------ OptimalRegularMechanism.distribution
from exactdp import OptimalRegularMechanism, PermuteAndFlip  # noqa: E402

EPS = sympy.Symbol("epsilon", positive=True)


def opt(q, epsilon, *args, **kwargs):
    """The optimal regular mechanism's distribution on ``q``."""
    return OptimalRegularMechanism(epsilon, *args, **kwargs).distribution(q)


def test_optimal_closed_form_equals_the_recursion_identically():
    # the closed form (product tree) against the section-5 recursion itself, which the
    # closed form replaced in the exact route: every gap multiset, n <= 6, gaps <= 3
    for n in range(1, 7):
        for G in gap_multisets(n, 3):
            q = [-g for g in G]
            rf = opt(q, 1).rational_form()
            ref = section5_exact(G, rf.x)
            assert all(sympy.expand(a - b.as_expr()) == 0
                       for a, b in zip(rf.forms, ref, strict=True)), q


def test_optimal_closed_form_unsorted_ties_and_probabilities():
    q = [4, -3, 4, 0, 1, -3, 2]
    G = [4 - v for v in q]
    d = opt(q, "1/3")
    x = d.rational_form().x
    rec = section5_exact(G, x)
    lam = sympy.Rational(1, 6)  # x = exp(-epsilon/2)
    for p, r in zip(d.probabilities, rec, strict=True):
        assert sympy.expand(p - r.as_expr().subs(x, sympy.exp(-lam))) == 0


def test_optimality_statement():
    # ln((3 + sqrt 5)/2) = 0.962423650119...: decided exactly on either side
    assert opt([0, 1], "0.9625").optimal is True
    assert opt([0, 1], "0.9624").optimal is None
    assert opt([0, 1], sympy.log(3)).optimal is True
    assert opt([0, 1], EPS).optimal is None
    assert "not guaranteed" in opt([0, 1], "1/2").optimality
    assert "optimal:" in opt([0, 1], 1).optimality


def test_optimal_n50_distinct_gaps_closed_form():
    # n = 50 with 50 distinct gaps: far beyond the recursion (2**49 states); checked
    # against the float engine and for normalisation
    q = list(range(50))
    d = opt(q, 1)
    rf = d.rational_form()
    assert sum(rf.polys[1:], rf.polys[0]) == 1
    import flint

    from exactdp.exact import flint_prec

    with flint_prec(256):  # exact coefficients, x = exp(-1/2) as a 256-bit ball
        x = flint.arb(-0.5).exp()
        vals = [float(flint.arb_poly([flint.arb(c) for c in p.coeffs()])(x).mid())
                for p in rf.polys[:5]]
    fl = pf_float(np.array([(49 - v) / 2 for v in q], dtype=float))
    assert np.allclose(vals, fl[:5], rtol=1e-12)


def test_optimal_rational_and_symbolic_and_irrational():
    d = opt(["1/2", 0, "-1/3"], EPS, sensitivity=2, monotonic=True)
    ref = PermuteAndFlip(EPS, 2, True).distribution(["1/2", 0, "-1/3"]).probabilities
    assert all(sympy.simplify(a - b) == 0 for a, b in zip(d.probabilities, ref, strict=True))
    irr = opt(["sqrt(2)", 0, 1, 0], 1).probabilities
    ref = PermuteAndFlip(1).distribution(["sqrt(2)", 0, 1, 0]).probabilities
    assert all(abs(sympy.N(a - b, 40)) < 1e-35 for a, b in zip(irr, ref, strict=True))


def test_optimal_numeric_views_agree_and_certified_balls_contain_truth():
    q = [3, 1, 0, 0, -2]
    exact = [sympy.N(v, 60) for v in opt(q, 2).probabilities]
    fl = opt(q, 2).to_numpy()
    mp = opt(q, 2).evalf(40)
    balls = opt(q, "log(3)").evalf_balls(30)
    exact_log3 = [sympy.N(v, 60) for v in opt(q, sympy.log(3)).probabilities]
    for e, f, m in zip(exact, fl, mp, strict=True):
        assert abs(f - float(e)) <= 1e-15 * float(e)
        assert abs(m - mpmath_mpf(e)) < 1e-38 * abs(mpmath_mpf(e))
    for ball, e in zip(balls, exact_log3, strict=True):
        assert ball.contains(flint_arb(e))
        assert float(ball.rad()) < 1e-29 * float(e)
    assert [float(v) for v in exact] == pytest.approx(
        list(PF_Q31002_EPS2), abs=1e-6)


def mpmath_mpf(e):
    import mpmath

    with mpmath.workdps(60):
        return mpmath.mpf(str(e))


def flint_arb(e):
    import flint

    old = flint.ctx.prec
    flint.ctx.prec = 200
    try:
        return flint.arb(str(e))
    finally:
        flint.ctx.prec = old


def test_optimal_bad_input():
    with pytest.raises(ValueError, match="symbolic"):
        opt([0, 1], EPS).to_numpy()
    with pytest.raises(ValueError, match="epsilon"):
        opt([0, 1], -1)  # 0 and oo are exact limits (tests/test_options.py)
    with pytest.raises(ValueError, match="empty"):
        opt([], 1)
    with pytest.raises(ValueError, match=r"evalf: dps must be an integer in 1\.\.10000, got 0"):
        opt([0, 1], 1).evalf(0)


def test_optimal_float_is_fast_and_stable_at_large_n():
    rng = np.random.default_rng(1)
    q = rng.normal(size=100_000)
    for eps in ("1e-9", 1, "1e9"):
        v = opt(q, eps).to_numpy()
        assert np.all(np.isfinite(v)) and np.all(v >= 0)
        assert abs(v.sum() - 1) < 1e-12


def test_optimal_evalf_is_pf_numeric_route_on_exact_and_float_scores():
    """evalf takes PF's numeric route (balls' midpoints or the quadrature): the digits of
    PF's own evalf, within 10^-dps of the exact values (exact scores) and of the mpmath
    quadrature (float scores)."""
    import mpmath

    from exactdp.numeric.pf import pf_mp

    for q in ([3, 8, 9, 8, 10], [0.5, 2.25, 1.0]):
        for dps in (11, 30):
            d = opt(q, 1)
            got = d.evalf(dps)
            ref = PermuteAndFlip(1).distribution(q).evalf(dps)
            quad = pf_mp(d.mechanism.scaled_gaps_mp(d.scores, dps), dps)  # the former route
            with mpmath.workdps(dps + 10):
                for a, b, c in zip(got, ref, quad, strict=True):
                    assert abs(a - b) <= mpmath.mpf(10) ** -dps * b
                    assert abs(a - c) <= mpmath.mpf(10) ** -dps * c
