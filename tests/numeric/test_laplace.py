"""Report-noisy-max with Laplace noise: exact closed form vs quadrature vs float vs sampling."""

from __future__ import annotations

import time
import warnings
from fractions import Fraction
from math import lcm

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from exactdp.numeric.laplace import (
    laplace_exact,
    laplace_exact_general,
    laplace_exact_polys,
    laplace_float,
    laplace_mp,
    laplace_quad,
)
from tests.reference import (
    RNM_LAPLACE_Q012_EPS1,
    STATDP_DOWN,
    STATDP_LOSS_DOWN,
    STATDP_LOSS_UP,
    STATDP_UP,
)

HALF = sympy.Rational(1, 2)
LAM = sympy.Symbol("lam", positive=True)


@pytest.fixture(autouse=True)
def _high_mp_precision():
    """Comparisons below happen at 50 digits (the engines set their own precision)."""
    with mpmath.workdps(50):
        yield


def _N(exprs, dps=40):
    return [mpmath.mpf(sympy.N(e, dps)) for e in exprs]


def _rel(a, b):
    return max(abs(x - y) / abs(y) for x, y in zip(a, b, strict=True))


# ---------------------------------------------------------------- known values (docs/formulas.md)


def test_three_items_known_values():
    # q = (0, -1, -2), eps = 1, b = 2: d = (0, 1/2, 1)
    want = list(RNM_LAPLACE_Q012_EPS1)
    exact = laplace_exact([0, 1, 2], HALF)
    assert [round(float(sympy.N(e, 20)), 6) for e in exact] == want
    assert [round(float(x), 6) for x in laplace_mp([0, 0.5, 1], 20)] == want
    np.testing.assert_allclose(laplace_float(np.array([0, 0.5, 1.0])), want, atol=6e-7)
    # the closed form itself (checked by hand from the piecewise integral)
    e1, e2, e3 = (sympy.exp(-k * HALF) for k in (1, 2, 3))
    assert sympy.simplify(exact[2] - (e2 / 2 - e3 / 24)) == 0
    assert sympy.simplify(exact[1] - (5 * e1 / 8 - e2 / 4 + e3 / 12)) == 0


def test_statdp_pair():
    # b = 2/eps = 20, eps = 0.1; scaled gaps in units of lam = 1/10
    lam = sympy.Rational(1, 10)
    flat = laplace_exact([0] * 5, lam)
    assert all(p == sympy.Rational(1, 5) for p in flat)
    up = laplace_exact([0, 1, 1, 1, 1], lam)[0]  # q = (2, 0, 0, 0, 0), output 0
    down = laplace_exact([1, 0, 0, 0, 0], lam)[0]  # q = (0, 2, 2, 2, 2), output 0
    assert abs(float(sympy.N(up, 30)) - STATDP_UP) < 1e-10
    assert abs(float(sympy.N(down, 30)) - STATDP_DOWN) < 1e-10
    assert abs(float(sympy.log(sympy.N(up, 30) / sympy.Rational(1, 5))) - STATDP_LOSS_UP) < 1e-7
    assert abs(float(sympy.log(sympy.Rational(1, 5) / sympy.N(down, 30))) - STATDP_LOSS_DOWN) < 1e-7
    f = laplace_float(np.array([0, 0.1, 0.1, 0.1, 0.1]))
    assert abs(f[0] - STATDP_UP) < 1e-10


@pytest.mark.parametrize("g", [1, 2, 5, 17])
def test_two_items_formula_symbolic(g):
    lose = laplace_exact([0, g], LAM)[1]
    want = (1 + g * LAM / 2) * sympy.exp(-g * LAM) / 2
    assert sympy.simplify(lose - want) == 0
    # not rational in x = e^{-lam}: a lam * e^{-g lam} term is present
    A, B = laplace_exact_polys([0, g])[1]
    assert B != 0 and A != 0


@pytest.mark.parametrize("d", [0.0, 1e-8, 0.3, 2.0, 40.0, 600.0])
def test_two_items_formula_numeric(d):
    with mpmath.workdps(40):
        want = (1 + mpmath.mpf(d) / 2) * mpmath.exp(-mpmath.mpf(d)) / 2
    got = laplace_mp([0, d], 30)[1]
    assert abs(got - want) <= mpmath.mpf(10) ** -29 * want
    f = laplace_float(np.array([0.0, d]))[1]
    assert abs(f - float(want)) <= 1e-14 * float(want) * (1 + d)


# ---------------------------------------------------------------- exactness


def test_single_item():
    assert laplace_exact([0], HALF) == (1,)
    assert laplace_exact([5], LAM) == (1,)
    assert laplace_mp([3.5]) == [1]
    assert laplace_float(np.array([2.0])).tolist() == [1.0]
    assert laplace_float(np.array([np.inf, 0.0, np.inf])).tolist() == [0.0, 1.0, 0.0]


@given(st.lists(st.integers(0, 6), min_size=1, max_size=8))
@settings(max_examples=30, deadline=None)
def test_sum_exactly_one(G):
    probs = laplace_exact(G, LAM)
    assert sympy.expand(sum(probs) - 1) == 0
    A = sum((a for a, _ in laplace_exact_polys(G)), start=laplace_exact_polys([0])[0][0] * 0)
    assert A == 1


def test_n12_speed_and_sum():
    G = [0, 1, 3, 4, 7, 9, 12, 15, 20, 22, 23, 30]
    t = time.process_time()
    probs = laplace_exact(G, LAM)
    assert time.process_time() - t < 5.0
    assert sympy.expand(sum(probs) - 1) == 0
    lam = sympy.Rational(1, 7)
    vals = [p.subs(LAM, lam) for p in probs]
    ref = laplace_mp([Fraction(g, 7) for g in G], 30)
    assert _rel(_N(vals), ref) < 1e-28


def test_ties_and_symmetry():
    G = [3, 0, 1, 1, 0, 3]
    p = laplace_exact(G, HALF)
    assert p[1] == p[4] and p[2] == p[3] and p[0] == p[5]
    perm = [5, 2, 0, 4, 1, 3]
    q = laplace_exact([G[i] for i in perm], HALF)
    assert all(sympy.simplify(q[k] - p[perm[k]]) == 0 for k in range(6))
    f = laplace_float(np.array(G, float) / 2)
    assert f[1] == f[4] and f[2] == f[3] and f[0] == f[5]


def test_shift_invariance():
    assert laplace_exact([0, 1, 4], HALF) == laplace_exact([2, 3, 6], HALF)


def test_symbolic_lam_then_substitute():
    G = [0, 2, 3, 3, 7]
    sym = laplace_exact(G, LAM)
    for lam in (sympy.Rational(1, 3), sympy.Rational(5, 2)):
        num = laplace_exact(G, lam)
        assert all(sympy.simplify(s.subs(LAM, lam) - v) == 0 for s, v in zip(sym, num, strict=True))


def test_general_irrational_gaps():
    d = [sympy.Integer(0), sympy.sqrt(2), sympy.Integer(1), sympy.sqrt(2)]
    p = laplace_exact_general(d)
    assert sympy.simplify(sum(p) - 1) == 0
    assert sympy.simplify(p[1] - p[3]) == 0
    ref = laplace_quad([0, mpmath.sqrt(2), 1, mpmath.sqrt(2)], 30)
    assert _rel(_N(p), ref) < 1e-25
    # rational gaps go to the integer engine: checked against the quadrature
    q = laplace_exact_general([sympy.Rational(1, 2), 0, 1])
    assert sympy.simplify(sum(q) - 1) == 0
    assert _rel(_N(q), laplace_quad([mpmath.mpf(1) / 2, 0, 1], 30)) < 1e-25


def test_general_symbolic_factor():
    t = sympy.Symbol("t", positive=True)
    p = laplace_exact_general([0, t, sympy.sqrt(3) * t])
    vals = [e.subs(t, sympy.Rational(2, 3)) for e in p]
    ref = laplace_mp([0, mpmath.mpf(2) / 3, 2 * mpmath.sqrt(3) / 3], 30)
    assert _rel(_N(vals), ref) < 1e-27


# ---------------------------------------------------------------- independent routes


@given(st.lists(st.integers(0, 9), min_size=2, max_size=8), st.integers(1, 6))
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_closed_form_vs_quadrature_integer(G, k):
    lam = sympy.Rational(k, 4)
    exact = _N(laplace_exact(G, lam), 45)
    with mpmath.workdps(45):
        d = [g * mpmath.mpf(k) / 4 for g in G]
    quad = laplace_quad(d, 30)
    assert _rel(exact, quad) < 1e-25


@given(st.lists(st.fractions(min_value=0, max_value=3, max_denominator=5), min_size=2, max_size=8))
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_closed_form_vs_quadrature_rational(q):
    L = lcm(*(Fraction(x).denominator for x in q))
    G = [int(x * L) for x in q]
    lam = sympy.Rational(1, L)  # eps/(c*Delta) = 1
    exact = _N(laplace_exact(G, lam), 45)
    with mpmath.workdps(45):
        d = [mpmath.mpf(x.numerator) / x.denominator for x in q]
    quad = laplace_quad(d, 30)
    assert _rel(exact, quad) < 1e-25
    assert _rel(laplace_mp(d, 30), quad) < 1e-25


def test_mp_is_certified_at_requested_digits():
    """30 digits of laplace_mp against an independent route: tanh-sinh quadrature of the
    defining integral (laplace_quad), not against more digits of the same code."""
    rng = np.random.default_rng(7)
    d = list(rng.exponential(2.0, 6))
    got = laplace_mp(d, 30)
    quad = laplace_quad(d, 30)
    with mpmath.workdps(40):
        assert _rel(got, quad) < 1e-28


@pytest.mark.parametrize("scale", [0.01, 0.5, 3.0, 50.0, 300.0])
@pytest.mark.parametrize("n", [3, 8, 40])
def test_float_vs_mp(n, scale):
    rng = np.random.default_rng(n * 1000 + int(scale * 10))
    d = rng.exponential(scale, n)
    d[rng.integers(n)] = 0.0
    d[1] = d[2]  # a tie
    f = laplace_float(d)
    m = np.array([float(x) for x in laplace_mp(list(d), 20)])
    pos = m > 1e-300
    assert np.all(np.abs(f[pos] - m[pos]) <= 1e-13 * (1 + d[pos]) * m[pos])
    assert np.all(f[~pos] <= 1e-290)
    assert abs(f.sum() - 1) < 1e-14


def test_monte_carlo():
    rng = np.random.default_rng(20240601)
    d = np.array([0.0, 0.4, 0.4, 1.3, 2.5])
    probs = laplace_float(d)
    size = 200_000
    noisy = -d[None, :] + rng.laplace(0.0, 1.0, size=(size, d.size))
    counts = np.bincount(noisy.argmax(axis=1), minlength=d.size)
    assert chisquare(counts, probs * size).pvalue > 1e-3
    # the test has power: the distribution for noise of scale 1/2 is rejected
    wrong = laplace_float(2 * d)
    assert chisquare(counts, wrong * size).pvalue < 1e-9


# ---------------------------------------------------------------- large n and extremes


def test_float_extreme_gaps():
    d = np.array([0, 1e-300, 1e-10, 1, 700, 740, 800, 1e5, 1e300, np.inf])
    f = laplace_float(d)
    assert np.all(np.isfinite(f)) and np.all(f >= 0)
    assert abs(f.sum() - 1) < 1e-15
    assert f[0] == f[1]
    assert f[4] > 0 and f[6] == 0 and f[-1] == 0 and f[-2] == 0
    m = laplace_mp(list(d), 20)
    assert abs(f[4] - float(m[4])) < 1e-12 * float(m[4])
    assert abs(f[3] - float(m[3])) < 1e-14


@pytest.mark.parametrize("kind", ["exp", "tied", "tiny", "wide"])
def test_float_large_n(kind):
    n = 10_000
    rng = np.random.default_rng(3)
    d = {
        "exp": rng.exponential(1.0, n),
        "tied": np.zeros(n),
        "tiny": rng.uniform(0, 1e-12, n),
        "wide": 10.0 ** rng.uniform(-300, 300, n),
    }[kind]
    f = laplace_float(d)
    assert np.all(np.isfinite(f)) and np.all(f >= 0)
    assert abs(f.sum() - 1) < 1e-12
    if kind == "tied":
        np.testing.assert_allclose(f, 1 / n, rtol=1e-14)


# ------------------------------------------- astronomically spread gaps (regressions)

_EPS_SPREAD = [1e-9, 1e-3, 1.0, 1e3, 1e9]


def _gaps(q, eps):
    """(max q - q) eps/2; overflow to inf is allowed input (probability 0)."""
    with np.errstate(over="ignore"):
        return (q.max() - q) * eps / 2


def _float_quiet(d):
    """laplace_float with every warning turned into an error (none may escape)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return laplace_float(d)


def _check_vs_mp(d, f):
    m = np.array([float(x) for x in laplace_mp(list(d), 20)])
    pos = m > 1e-300
    rel = np.abs(f[pos] - m[pos]) / m[pos]
    assert np.all(rel <= 3e-15 * (1 + d[pos])), (rel.max(), d[pos][rel.argmax()])
    assert np.all(f[~pos] <= 1e-290)
    return m


@pytest.mark.parametrize("eps", _EPS_SPREAD)
def test_float_uniform_1e300_scores(eps):
    # used to raise "Maximum allowed size exceeded" (a grid of ~1e288 points) and warn
    rng = np.random.default_rng(7)
    q = rng.uniform(-1e300, 1e300, 2000)
    d = _gaps(q, eps)
    f = _float_quiet(d)
    assert np.all(np.isfinite(f)) and np.all(f >= 0)
    assert abs(f.sum() - 1) <= 1e-13
    # the runner-up is at least ~1e288 noise scales behind: the top item wins w.p. 1 - tiny
    top = int(np.argmax(q))
    assert f[top] == 1.0 and f.sum() == 1.0
    small = _gaps(rng.uniform(-1e300, 1e300, 50), eps)
    fs = _float_quiet(small)
    m = _check_vs_mp(small, fs)
    assert max(m) == 1 and fs.max() == 1.0


@pytest.mark.parametrize("eps", _EPS_SPREAD + [1e5])
def test_float_normal_scores_all_eps(eps):
    # eps = 1e9 used to give |sum - 1| = 4e-11 (cancellation in y + d_r with d_r ~ 1e7)
    rng = np.random.default_rng(7)
    rng.uniform(-1e300, 1e300, 2000)  # the integration test's stream
    d = _gaps(rng.normal(0, 1, 2000), eps)
    f = _float_quiet(d)
    assert np.all(np.isfinite(f)) and np.all(f >= 0)
    assert abs(f.sum() - 1) <= 1e-13
    if eps >= 1e5:
        assert f[np.argmin(d)] == 1.0  # runner-up at d > 1e3: loses w.p. < e^{-1000}
    small = _gaps(rng.normal(0, 1, 50), eps)
    _check_vs_mp(small, _float_quiet(small))


@given(
    st.integers(2, 30),
    st.floats(-9, 9),
    st.sampled_from(["normal", "cauchy", "lognormal"]),
    st.integers(0, 2**32 - 1),
)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_float_vs_mp_random_spreads(n, log_eps, kind, seed):
    rng = np.random.default_rng(seed)
    q = {"normal": rng.normal, "cauchy": rng.standard_cauchy, "lognormal": rng.lognormal}[kind](
        size=n
    )
    d = _gaps(q, 10.0**log_eps)
    f = _float_quiet(d)
    assert abs(f.sum() - 1) <= 1e-14
    _check_vs_mp(d, f)


@pytest.mark.parametrize("w", [37.3, 300.0, 565.73947801, 700.0, 850.0, 2e7, 1e300])
def test_float_top_item_far_ahead(w):
    # the best item was off by 3.3e-14 at w = 566 (low part anchored at the far piece end)
    f = _float_quiet(np.array([0.0, w]))
    with mpmath.workdps(40):
        lose = (1 + mpmath.mpf(w) / 2) * mpmath.exp(-mpmath.mpf(w)) / 2
    assert abs(f[0] - float(1 - lose)) <= 2.3e-16
    if lose > mpmath.mpf(10) ** -300:
        assert abs(f[1] - float(lose)) <= 3e-15 * (1 + w) * float(lose)
    else:
        assert f[1] <= 1e-290


def test_float_gaps_around_the_cut():
    # items beyond ~870 are dropped from the contest; nothing changes across that edge
    d = np.array([0, 0.3, 700, 740, 850, 860, 870, 880, 900, 1e4, 1e308, np.inf])
    f = _float_quiet(d)
    m = _check_vs_mp(d, f)
    assert f[2] > 0 and f[3] > 0 and np.all(f[4:] == 0)
    assert abs(f[0] - m[0]) <= 2e-16 and abs(f.sum() - 1) <= 2.3e-16


def test_float_many_ties_far_runner_up():
    n = 10_000
    d = np.zeros(n)
    d[-1] = 565.73947801
    f = _float_quiet(d)
    np.testing.assert_allclose(f[:-1], 1 / (n - 1), rtol=1e-14)
    assert 0 < f[-1] < 1e-240 and abs(f.sum() - 1) <= 1e-14


@pytest.mark.slow
def test_float_n_1e5():
    rng = np.random.default_rng(4)
    f = laplace_float(rng.exponential(1.0, 100_000))
    assert abs(f.sum() - 1) < 1e-12 and np.all(f >= 0)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("G", [[], [0, -1], [0, 1.5], [0, True], "01", [0, Fraction(1, 2)], None])
def test_exact_bad_G(G):
    with pytest.raises(ValueError, match="laplace_exact"):
        laplace_exact(G, HALF)


@pytest.mark.parametrize("lam", [0.5, 0, -1, sympy.Symbol("x"), sympy.Float(0.5), "abc"])
def test_exact_bad_lam(lam):
    with pytest.raises(ValueError, match="lam"):
        laplace_exact([0, 1], lam)


@pytest.mark.parametrize(
    "d", [[], [0, -1e-9], [0, float("nan")], [np.inf, np.inf], [0, "x"], [0, True]]
)
@pytest.mark.parametrize("func", [laplace_mp, laplace_quad, laplace_float])
def test_numeric_bad_d(func, d):
    with pytest.raises(ValueError, match=func.__name__):
        func(d)


@pytest.mark.parametrize("dps", [0, -3, 2.5, True])
def test_bad_dps(dps):
    with pytest.raises(ValueError, match="dps"):
        laplace_mp([0, 1], dps)


def test_general_bad_input():
    with pytest.raises(ValueError, match="laplace_exact_general"):
        laplace_exact_general([0, -sympy.sqrt(2)])
    with pytest.raises(ValueError, match="laplace_exact_general"):
        laplace_exact_general([0, 0.5])
    with pytest.raises(ValueError, match="laplace_exact_general"):
        laplace_exact_general([0, sympy.Symbol("s")])


# ------------------------------------------- high-precision series route (large n)


def _rel_all(a, b):
    """Largest relative difference, at 60 digits (zeros must match exactly)."""
    with mpmath.workdps(60):
        worst = mpmath.mpf(0)
        for x, y in zip(a, b, strict=True):
            if x == 0 or y == 0:
                assert x == y
                continue
            worst = max(worst, abs(x - y) / abs(y))
        return worst


@pytest.mark.parametrize(
    "kind", ["real", "integer_ties", "spread_1000", "cluster_far", "leader_far"]
)
def test_series_vs_closed_at_switch_size(kind):
    rng = np.random.default_rng({"real": 1, "integer_ties": 2}.get(kind, 3))
    if kind == "real":
        d = list(rng.exponential(1.5, 101))
    elif kind == "integer_ties":
        d = [int(g) for g in rng.integers(0, 12, 101)]
    elif kind == "spread_1000":  # the closed form is slow on wide spreads: smaller n
        d = [0.0] + list(rng.uniform(0, 1000, 59))
    elif kind == "cluster_far":
        d = list(rng.uniform(0, 0.01, 40)) + list(200 + rng.uniform(0, 0.01, 40))
    else:
        d = [0] + [Fraction(int(k), 7) + 150 for k in rng.integers(0, 7, 79)]
    closed = laplace_mp(d, 30, algorithm="closed")
    series = laplace_mp(d, 30, algorithm="series")
    assert _rel_all(series, closed) < mpmath.mpf(10) ** -29
    if len(d) > 100:  # "auto" takes the series route above 100 items
        assert laplace_mp(d, 30) == series
    with mpmath.workdps(60):
        assert abs(mpmath.fsum(series) - 1) < mpmath.mpf(10) ** -30


@given(
    st.lists(
        st.one_of(
            st.integers(0, 30),
            st.floats(0, 50, allow_nan=False),
            st.sampled_from([0.0, 1e-300, 1e-12, 700.0, 2e4, 1e300, float("inf")]),
        ),
        min_size=2,
        max_size=6,
    ),
    st.sampled_from([10, 30, 45]),
)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_series_vs_closed_small_n_extreme_gaps(d, dps):
    if all(x == float("inf") for x in d):
        d = d + [0]
    closed = laplace_mp(d, dps + 5, algorithm="closed")
    series = laplace_mp(d, dps, algorithm="series")
    assert _rel_all(series, closed) < mpmath.mpf(10) ** (1 - dps)


def test_series_vs_quadrature():
    for d in ([0, 0.5, 1], [0, 0.3, 0.3, 2.5]):
        quad = laplace_quad(d, 30)
        series = laplace_mp(d, 30, algorithm="series")
        assert _rel_all(series, quad) < 1e-28
    # the known values of docs/formulas.md section 7 (q = (0, -1, -2), eps = 1)
    got = laplace_mp([0, 0.5, 1], 20, algorithm="series")
    assert [round(float(x), 6) for x in got] == list(RNM_LAPLACE_Q012_EPS1)


@pytest.mark.parametrize("d", [0.0, 40.0, 600.0, 1e5, 1e300])
def test_series_far_behind_a_tied_pack(d):
    # four tied leaders and one item far behind (the "far item" branch for d >= 600)
    with mpmath.workdps(60):
        want = laplace_mp([0, 0, 0, 0, d], 35, algorithm="closed")
    got = laplace_mp([0, 0, 0, 0, d], 30, algorithm="series")
    assert _rel_all(got, want) < 1e-29
    assert got[4] > 0


def _large_n_vs_float(d):
    """laplace_mp (series route) at n = 1e4: time, agreement with float64, sum."""
    t = time.process_time()
    m = laplace_mp(list(d), 30)
    assert time.process_time() - t < 30.0  # about 2 s on an idle core
    f = laplace_float(d)
    mm = np.array([float(x) for x in m])
    pos = mm > 1e-300
    assert np.all(np.abs(f[pos] - mm[pos]) <= 1e-12 * (1 + d[pos]) * mm[pos])
    assert np.all(f[~pos] <= 1e-290) and np.all([x > 0 for x in m])
    with mpmath.workdps(60):
        assert abs(mpmath.fsum(m) - 1) < mpmath.mpf(10) ** -30


def test_series_large_n_vs_float():
    _large_n_vs_float(np.random.default_rng(11).exponential(1.0, 10_000))


@pytest.mark.slow
def test_series_large_n_vs_float_wide():
    rng = np.random.default_rng(13)
    _large_n_vs_float(np.concatenate([[0.0], rng.uniform(0, 1000, 9_999)]))
    _large_n_vs_float(rng.uniform(0, 1e-12, 10_000))


def test_series_n1000_ties_and_digits():
    rng = np.random.default_rng(12)
    d = [int(g) for g in rng.integers(0, 40, 1000)]
    t = time.process_time()
    m30 = laplace_mp(d, 30)
    assert time.process_time() - t < 20.0
    m45 = laplace_mp(d, 45)
    assert _rel_all(m30, m45) < mpmath.mpf(10) ** -29
    # an independent algorithm (the float64 O(n log n) route) agrees to float accuracy
    flt = laplace_float(np.array(d, dtype=float))
    assert np.allclose(flt, [float(x) for x in m30], rtol=1e-12, atol=0)
    by_gap = {}
    for g, p in zip(d, m30, strict=True):
        assert by_gap.setdefault(g, p) == p  # ties get identical numbers
    assert all(
        by_gap[a] > by_gap[b] for a, b in zip(sorted(by_gap), sorted(by_gap)[1:], strict=False)
    )
    with mpmath.workdps(60):
        assert abs(mpmath.fsum(m30) - 1) < mpmath.mpf(10) ** -30


def test_series_all_tied_and_inf():
    got = laplace_mp([0.5] * 300 + [float("inf")], 30)
    assert got[-1] == 0
    with mpmath.workdps(40):
        assert all(abs(x - mpmath.mpf(1) / 300) < mpmath.mpf(10) ** -31 for x in got[:-1])


@pytest.mark.parametrize("algorithm", ["fast", "", None, 1])
def test_bad_algorithm(algorithm):
    with pytest.raises(ValueError, match="algorithm"):
        laplace_mp([0, 1], 30, algorithm=algorithm)


def test_the_two_algorithms_agree():
    series = laplace_mp([0, 1, 3], 30, algorithm="series")
    # the two algorithms agree (independent formulas) to the requested digits
    closed = laplace_mp([0, 1, 3], 30, algorithm="closed")
    with mpmath.workdps(40):
        assert all(abs(a - b) < mpmath.mpf(10) ** -29 * b
                   for a, b in zip(series, closed, strict=True))


# ------------------------------------------------------------- gaps of 1e35 and more (issue 20)
def test_laplace_exact_at_gap_1e35_closed_form_and_general_route():
    """Integer gaps beyond the dense limit (they raised OverflowError inside flint): two
    items against ``(2 + d) e^-d / 4`` (the difference of two Laplace variables), four
    against the scalar sympy route ``laplace_exact_general``."""
    lam = sympy.Rational(1, 2)
    g = 10**35
    p = laplace_exact([0, g], lam)
    d = g * lam
    assert sympy.expand(p[1] - (2 + d) * sympy.exp(-d) / 4) == 0
    assert sympy.expand(p[0] + p[1] - 1) == 0
    G = [0, g, g, 3 * g + 7]
    sparse = laplace_exact(G, lam)
    general = laplace_exact_general([k * lam for k in G])
    for a, b in zip(sparse, general, strict=True):
        assert sympy.expand(a - b) == 0


def test_laplace_exact_many_huge_gaps_refused_fast():
    """Up to 2^p terms for p distinct huge gaps: beyond the limit, a one-line refusal."""
    t0 = time.process_time()
    with pytest.raises(ValueError, match=r"^probabilities: exact RNM-Laplace .* 21 distinct"):
        laplace_exact([0] + [10**35 + k for k in range(20)], sympy.Integer(1), "probabilities")
    assert time.process_time() - t0 < 2
    with pytest.raises(ValueError, match=r"^laplace_exact_polys: dense polynomials"):
        laplace_exact_polys([0, 10**35])


def test_general_irrational_gaps_refuse_by_their_geometric_cost():
    """Issue 20: the sympy closed form on independent irrational gaps doubles per group
    (7 sqrt of primes ran 3.4 s) while the estimate said groups^3.5: 11 such gaps now
    refuse before any work, in the caller's name, naming evalf."""
    import exactdp
    from exactdp.cost import SECONDS_LIMIT, TooCostly, laplace_general_seconds

    d = [sympy.Integer(0), *(sympy.sqrt(p) for p in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29))]
    assert SECONDS_LIMIT < laplace_general_seconds(d)
    with pytest.raises(TooCostly, match=r"^laplace_exact_general: .* 11 distinct irrational "
                                        r".*\.evalf\(dps\)"):
        laplace_exact_general(d)
    dist = exactdp.ReportNoisyMax(1, noise="laplace").distribution(
        [sympy.sqrt(k + 1) for k in range(12)])
    with pytest.raises(TooCostly, match=r"^probabilities: .* 12 distinct irrational"):
        _ = dist.probabilities
    # the cheaper routes answer, and agree with the quadrature: evalf, and evalf_balls by
    # the piecewise closed form in arb on rigorous gap balls (it refused before)
    got = dist.evalf(20)
    rate = mpmath.mpf(1) / 2  # Laplace scale 2*sensitivity/epsilon
    gaps = [rate * (mpmath.sqrt(12) - mpmath.sqrt(k + 1)) for k in range(12)]
    ref = laplace_quad(gaps, 25)
    assert _rel([mpmath.mpf(v) for v in got], ref) < 1e-15
    balls = dist.evalf_balls(20)
    assert all(b.rad() < 1e-18 * abs(b.mid()) for b in balls)
    assert _rel([mpmath.mpf(b.mid().str(25, radius=False)) for b in balls], ref) < 1e-15
    # ten distinct rational gaps go to the polynomial route (groups^3.5: 0.1 s, not the
    # 13 s of the sympy route they took before)
    q = laplace_exact_general([sympy.Rational(k, 2) for k in range(10)])
    assert sympy.simplify(sum(q) - 1) == 0
    ref = laplace_quad([mpmath.mpf(k) / 2 for k in range(10)], 30)
    assert _rel(_N(q), ref) < 1e-25


@pytest.mark.parametrize("route", ["closed", "series"])
def test_laplace_mp_counts_equal_the_expanded_gaps(route):
    """laplace_mp(d, counts=m) is laplace_mp on d with d[k] repeated m[k] times, through
    the closed form (n <= 60) and the series (n > 60); the float64 engine agrees."""
    d = [0, Fraction(1, 2), 1, 3, Fraction(11, 3)]
    m = [2, 3, 1, 4, 2] if route == "closed" else [20, 31, 7, 40, 2]
    full = [g for g, c in zip(d, m, strict=True) for _ in range(c)]
    grouped = laplace_mp(d, 30, counts=m)
    expanded = laplace_mp(full, 30)
    first = [sum(m[:k]) for k in range(len(m))]
    for k, i in enumerate(first):
        assert abs(grouped[k] / expanded[i] - 1) < mpmath.mpf(10) ** -28
    floats = laplace_float(np.array([float(g) for g in full]))
    assert np.allclose([float(v) for v in grouped], floats[first], rtol=1e-12)
    total = mpmath.fsum(c * p for c, p in zip(m, grouped, strict=True))
    assert abs(total - 1) < mpmath.mpf(10) ** -28
