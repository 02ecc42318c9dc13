"""exactdp.mechanisms.noisy_max: report-noisy-max with exponential and Gumbel noise, its exact
closed forms against mpmath quadrature of the defining integrals; Gumbel equals EM."""

from __future__ import annotations

import mpmath
import pytest
import sympy

from exactdp import ExponentialMechanism, ReportNoisyMax

EPS = sympy.Symbol("epsilon", positive=True)


def rnm_quad(noise: str, q, b, r):
    """The defining integral of RNM by mpmath quadrature, split at the scores."""
    mpmath.mp.dps = 30
    b = mpmath.mpf(b)
    qs = [mpmath.mpf(v) for v in q]
    if noise == "exponential":
        pdf = lambda z: mpmath.exp(-z / b) / b if z >= 0 else mpmath.mpf(0)  # noqa: E731
        cdf = lambda z: -mpmath.expm1(-z / b) if z >= 0 else mpmath.mpf(0)  # noqa: E731
    else:
        pdf = lambda z: mpmath.exp(-z / b - mpmath.exp(-z / b)) / b  # noqa: E731
        cdf = lambda z: mpmath.exp(-mpmath.exp(-z / b))  # noqa: E731

    def f(y):
        val = pdf(y - qs[r])
        for s, v in enumerate(qs):
            if s != r:
                val *= cdf(y - v)
        return val

    pts = sorted(set(qs))
    lo = pts[0] - 60 * b if noise == "gumbel" else pts[0]
    return mpmath.quad(f, [lo, *pts, pts[-1] + 80 * b, mpmath.inf])


@pytest.mark.parametrize("noise", ["exponential", "gumbel"])
@pytest.mark.parametrize("q", [(0, -1, -2), (3, 1, 0, 0, -2), ("1/2", 0, "-7/3")])
def test_rnm_closed_forms_match_quadrature_of_the_definition(noise, q):
    eps = sympy.Rational(3, 2)
    mech = ReportNoisyMax(eps, noise=noise)
    exact = mech.distribution(q).probabilities
    b = sympy.N(mech.scale, 40)
    qn = [sympy.N(sympy.sympify(v, rational=True), 40) for v in q]
    for r, e in enumerate(exact):
        assert abs(rnm_quad(noise, qn, b, r) - mpmath.mpf(sympy.N(e, 40))) < 1e-20


def test_rnm_gumbel_equals_em_exactly():
    q = ["1/3", 2, 0, 2]
    a = ReportNoisyMax(EPS, noise="gumbel").distribution(q).probabilities
    b = ExponentialMechanism(EPS).distribution(q).probabilities
    assert all(sympy.simplify(u - v) == 0 for u, v in zip(a, b, strict=False))


def test_unknown_noise_lists_supported():
    with pytest.raises(ValueError, match="ReportNoisyMax: noise must be one of 'exponential', 'gu"):
        ReportNoisyMax(1, noise="cauchy")


def test_missing_epsilon_message_allows_zero():
    """epsilon = 0 is accepted (the uniform limit), so the refusal of a missing epsilon
    asks for ``>= 0``, not ``> 0``."""
    with pytest.raises(TypeError, match="epsilon"):
        ReportNoisyMax()  # epsilon is required
    with pytest.raises(ValueError, match=r"^ReportNoisyMax: epsilon must be >= 0"):
        ReportNoisyMax(-1)
    assert ReportNoisyMax(epsilon=0).distribution([0, 5]).probabilities == (
        sympy.Rational(1, 2), sympy.Rational(1, 2))


def test_rnm_laplace_exact_at_gap_1e35():
    """Exact RNM-Laplace probabilities at a score gap of 1e35 (a bare OverflowError from
    flint before): Pr[1] = (2 + d) e^-d / 4, d = epsilon * gap / 2, and evalf agrees."""
    import mpmath

    from exactdp import ReportNoisyMax

    dist = ReportNoisyMax(1, noise="laplace").distribution([0, -10**35])
    d = sympy.Rational(10**35, 2)
    assert sympy.expand(dist.probabilities[1] - (2 + d) * sympy.exp(-d) / 4) == 0
    with mpmath.workdps(80):
        dm = mpmath.mpf(d.p) / d.q
        ref = (2 + dm) * mpmath.exp(-dm) / 4
        assert abs(dist.evalf(30)[1] / ref - 1) < mpmath.mpf(10) ** -29


def test_laplace_balls_from_the_polynomials_contain_the_exact_probabilities():
    """RNM-Laplace balls on rational scores evaluate A_r(x) + lam B_r(x) at a ball of
    x = exp(-lam) (no exact coin, so eps = 1e40 log 3 works): they hold the exact closed
    form's values and have the digits asked for."""
    import flint as _flint
    import sympy as _sympy

    from exactdp import ReportNoisyMax
    from exactdp.exact.enclosure import enclose

    d = ReportNoisyMax(_sympy.Rational(3, 2), noise="laplace").distribution(
        [0, -1, -3, _sympy.Rational(1, 2), 0])
    balls = d.evalf_balls(40)
    for b, p in zip(balls, d.probabilities, strict=True):
        assert b.overlaps(enclose(p, 60))
        assert b.rad() < abs(b.mid()) * _flint.arb(10) ** -39


def test_laplace_evalf_groups_tied_scores():
    """RNM-Laplace evalf on 400 integer scores with 9 distinct values (the series route on
    9 grouped gaps): tied outputs get one value, the float64 engine (an independent
    integral) agrees to 1e-12, and the sum is 1 to 28 digits."""
    import mpmath
    import numpy as np

    from exactdp import ReportNoisyMax

    q = np.array([(7 * i) % 9 for i in range(400)])
    d = ReportNoisyMax(1, noise="laplace").distribution(q)
    vals = d.evalf(30)
    assert np.allclose([float(v) for v in vals], d.to_numpy(), rtol=1e-12, atol=0)
    for a, b in zip(q, vals, strict=True):
        assert vals[int(np.flatnonzero(q == a)[0])] == b
    assert abs(mpmath.fsum(vals) - 1) < mpmath.mpf(10) ** -28


@pytest.mark.parametrize("gap", [lambda k: sympy.sqrt(k + 2), lambda k: sympy.log(k + 2),
                                 lambda k: sympy.sqrt(2) * (k % 3 + 1)])
def test_laplace_balls_on_nine_irrational_gaps_are_fast_and_right(gap):
    """Issue 20: evalf_balls of RNM-Laplace on 9 irrational gaps took ~100 s (balls of the
    sympy closed form, whose terms grow like 2.35^groups). The piecewise form in arb on
    rigorous gap balls: every ball holds the tanh-sinh quadrature of the defining integral
    (laplace_quad, independent code) and has 15 relative digits; ties (sqrt 2 multiples)
    share a value."""
    import time

    import flint

    from exactdp.numeric.laplace.quadrature import laplace_quad

    eps = sympy.Rational(3, 2)
    scores = [0] + [-gap(k) for k in range(9)]
    dist = ReportNoisyMax(eps, noise="laplace").distribution(scores)
    t0 = time.process_time()
    balls = dist.evalf_balls(15)
    assert time.process_time() - t0 < 5  # ~0.1 s unloaded
    with mpmath.workdps(40):
        d = [mpmath.mpf(sympy.N(eps / 2 * -s, 40)) for s in scores]
        ref = laplace_quad(d, 17)
    for b, r in zip(balls, ref, strict=True):
        assert b.rad() < abs(b.mid()) * flint.arb(10) ** -14
        with mpmath.workdps(30):
            mid = mpmath.mpf(b.mid().str(30, radius=False))
            assert abs(mid / r - 1) < mpmath.mpf(10) ** -14
    assert sum(balls).contains(1)


def test_laplace_balls_on_many_irrational_gaps_refuse_by_the_cost_model():
    """Beyond VIEW_SECONDS_LIMIT (n = 400 sqrt gaps: ~160 s estimated) evalf_balls refuses
    at once in its own name, naming .evalf (the series route)."""
    import time

    from exactdp.cost import TooCostly

    dist = ReportNoisyMax(1, noise="laplace").distribution(
        [0] + [-sympy.sqrt(k + 2) for k in range(400)])
    t0 = time.process_time()
    with pytest.raises(TooCostly, match=r"^evalf_balls: RNM-Laplace balls .*\.evalf\(dps\)"):
        dist.evalf_balls(15)
    assert time.process_time() - t0 < 5


def test_irrational_scores_are_priced_by_their_general_closed_form():
    """RNM-Laplace on scores with log(2): the sympy closed form of each distinct gap
    multiset (laplace_general_seconds), not 0.0; check_dp's 81 vectors of 4 scores ran
    15.5 s with no estimate shown, now over the 2 s a start line needs."""
    from fractions import Fraction as F

    from exactdp.analysis.neighbourhood import neighbours
    from exactdp.cost import laplace_general_seconds
    from exactdp.progress import SHOW_SECONDS
    from exactdp.scores import as_scores

    m = ReportNoisyMax(1, noise="laplace")
    q = as_scores([F(724905, 20254), F(-848, 2885), "log(2)", F(-1331, 22156)])
    one = laplace_general_seconds(q.gaps_exact)
    assert m.analysis_seconds([q]) == pytest.approx(one)
    assert m.analysis_seconds([q, q]) == pytest.approx(one)  # one closed form
    nbrs, _ = neighbours(m, q)
    assert m.analysis_seconds([q, *nbrs]) > SHOW_SECONDS
