"""Sparse vector variants that release values (exactdp/mechanisms/sparse_vector_release.py):
Lyu-Su-Li's Algorithm 3 through ``SparseVector(..., variant=3)``, and the shared machinery.

Independent routes: mpmath quadrature at 40 digits of the defining integrals (the Laplace
density and CDF written here from their definitions), Monte Carlo of the algorithm itself
(goodness of fit of the pattern frequencies, a KS-style check of a released value), and a
dense numeric maximisation of the log density ratio over outputs for the loss.
"""

from __future__ import annotations

import itertools
import time
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy

import exactdp
from exactdp import SparseVector
from exactdp.audit import goodness_of_fit
from exactdp.mechanisms.sparse_vector_release import (
    SparseVectorRelease,
    lyu_su_li_3,
    numerical_svt,
)

EPS = sympy.Rational(1, 2)


# ---------------------------------------------------------------- the independent route
def lap_pdf(x, b):
    return mpmath.exp(-abs(x) / b) / (2 * b)


def lap_cdf(z, b):
    return mpmath.exp(z / b) / 2 if z < 0 else 1 - mpmath.exp(-z / b) / 2


def scales(mech):
    """(b1, b2) of Algorithm 3 in mpmath: Lap(2D/eps) and Lap(2cD/eps)."""
    eps = mpmath.mpf(sympy.N(mech.epsilon, 60))
    D = mpmath.mpf(sympy.N(mech.sensitivity, 60))
    return 2 * D / eps, 2 * mech.c * D / eps


def quad_density(mech, a, output, dps=40):
    """The density of one output of Algorithm 3 from the defining integral over rho:
    prod_A [g(v_i - a_i) 1{v_i >= T + rho}] prod_B Pr[a_i + nu_i < T + rho]."""
    with mpmath.workdps(dps + 10):
        b1, b2 = scales(mech)
        T = mpmath.mpf(sympy.N(mech.threshold, 60))
        a = [mpmath.mpf(sympy.N(x, 60)) for x in a]
        vals = {i: mpmath.mpf(sympy.N(sympy.Rational(v), 60))
                for i, v in enumerate(output) if v is not None and v is not False}

        def integrand(r):
            f = lap_pdf(r, b1)
            for i, v in vals.items():
                f *= lap_pdf(v - a[i], b2) if v >= T + r else 0
            for i, v in enumerate(output):
                if v is False:
                    f *= lap_cdf(T + r - a[i], b2)
            return f
        cuts = sorted({mpmath.mpf(0), *[x - T for x in a], *[v - T for v in vals.values()]})
        return mpmath.quad(integrand, [-mpmath.inf, *cuts, mpmath.inf])


def quad_pattern(b1, b2, T, a, pattern, dps=40):
    """Pr[pattern] = int p(rho) prod_A Pr[above | rho] prod_B Pr[below | rho] (quadrature)."""
    with mpmath.workdps(dps + 10):
        def integrand(r):
            f = lap_pdf(r, b1)
            for x, p in zip(a, pattern, strict=True):
                if p is not None:
                    below = lap_cdf(T + r - x, b2)
                    f *= (1 - below) if p else below
            return f
        cuts = sorted({mpmath.mpf(0), *[x - T for x in a]})
        return mpmath.quad(integrand, [-mpmath.inf, *cuts, mpmath.inf])


def close(expr, want, digits=38):
    """Whether the exact ``expr`` and the quadrature ``want`` agree to ``digits`` digits."""
    with mpmath.workdps(digits + 15):
        got = mpmath.mpf(str(sympy.N(expr, digits + 15)))
        return abs(got - want) <= mpmath.mpf(10) ** -digits * abs(want)


# ---------------------------------------------------------------- the schemes
def test_schemes_hold_the_papers_rates():
    s3 = lyu_su_li_3(2)
    assert (s3.threshold_rate, s3.query_rate, s3.release_rate, s3.cutoff) == (
        Fraction(1, 2), Fraction(1, 4), None, 2)
    assert s3.coupled and s3.value_rate == Fraction(1, 4)
    ns = numerical_svt(2)
    assert (ns.threshold_rate, ns.query_rate, ns.release_rate) == (
        Fraction(1, 3), Fraction(1, 12), Fraction(1, 6))
    assert not ns.coupled and ns.value_rate == Fraction(1, 6)
    assert ns.pattern_scheme.cutoff == 2 and ns.pattern_scheme.query_rate == Fraction(1, 12)


# ---------------------------------------------------------------- Algorithm 3: distribution
@pytest.mark.parametrize("c", [1, 2])
def test_pattern_probabilities_match_quadrature_and_sum_to_one(c):
    mech = SparseVector(EPS, "1/2", c=c, variant=3, sensitivity=2)
    a = [1, 0, "5/2"]
    d = mech.distribution(a)
    assert isinstance(d, SparseVectorRelease) and len(d) == len(d.outputs)
    assert sympy.simplify(sum(d.probabilities) - 1) == 0
    b1, b2 = scales(mech)
    with mpmath.workdps(50):
        T, av = mpmath.mpf(1) / 2, [mpmath.mpf(1), mpmath.mpf(0), mpmath.mpf(5) / 2]
        for pattern, p in zip(d.outputs, d.probabilities, strict=True):
            assert close(p, quad_pattern(b1, b2, T, av, pattern))
            assert d.pmf(pattern) == d.probabilities[d.index(pattern)]
    assert np.allclose(d.to_numpy(), [float(p) for p in d.evalf(20)], rtol=1e-14)


@pytest.mark.parametrize("c,output", [(1, (False, False, "1/3")), (1, ("-2", None, None)),
                                      (1, (False, "7/2", None)), (1, (False, False, False)),
                                      (2, ("5/2", False, "-1")), (2, ("1", "3", None)),
                                      (3, ("4", "-1/2", "2"))])
def test_density_matches_quadrature_at_40_digits(c, output):
    mech = SparseVector(EPS, "1/2", c=c, variant=3, sensitivity=2)
    a = [1, 0, "5/2"]
    d = mech.distribution(a)
    with mpmath.workdps(50):
        want = quad_density(mech, [sympy.Rational(x) for x in a], output)
        assert close(d.density(output), want)


def test_density_integrates_to_the_pattern_probability():
    mech = SparseVector(1, 0, c=1, variant=3)
    d = mech.distribution([1, 0])
    with mpmath.workdps(20):
        dens = lambda v: mpmath.mpf(str(sympy.N(  # noqa: E731
            d.density((False, sympy.Rational(mpmath.nstr(v, 25)))), 25)))
        total = mpmath.quad(dens, [-mpmath.inf, -1, 0, 1, mpmath.inf])
    assert abs(total - mpmath.mpf(str(sympy.N(d.pmf((False, True)), 25)))) < 1e-12


def test_sampler_fits_the_pattern_probabilities():
    d = SparseVector(EPS, "1/2", c=2, variant=3).distribution([1, 0, 2])
    fit = goodness_of_fit(d.sample_index, d.to_numpy(), 100_000, rng=11)
    assert fit.verdict == "consistent", fit
    out = d.sample(rng=3)
    assert len(out) == 3 and all(x is None or x is False or isinstance(x, float) for x in out)


def test_released_value_follows_its_density_ks():
    """KS-style: the empirical CDF of the released value of (False, v), against the CDF of
    the exact density integrated numerically on a grid."""
    mech = SparseVector(1, 0, c=1, variant=3)
    d = mech.distribution([1, 0])
    codes, values = d.sample(100_000, rng=5)
    keep = (codes[:, 0] == 0) & (codes[:, 1] == 1)
    sample = np.sort(values[keep, 1])
    p = float(d.pmf((False, True)))
    assert abs(keep.mean() - p) < 4 * np.sqrt(p * (1 - p) / len(keep))
    grid = np.linspace(-3, 6, 19)
    with mpmath.workdps(15):
        def f(x):
            return mpmath.mpf(str(sympy.N(d.density((False, sympy.Rational(str(x)))), 20)))
        nodes = np.linspace(-30, 6, 721)
        vals = np.array([float(f(round(x, 6))) for x in nodes])
    cdf = np.concatenate([[0], np.cumsum((vals[1:] + vals[:-1]) / 2 * np.diff(nodes))]) / p
    worst = max(abs(np.searchsorted(sample, x, side="right") / len(sample)
                    - np.interp(x, nodes, cdf)) for x in grid)
    assert worst < 1.63 / np.sqrt(len(sample)) + 2e-3  # KS critical value at 1 %


def test_capability_density_is_per_instance():
    assert SparseVector(1, 0, variant=3).capabilities == frozenset({"density", "sample"})
    assert "density" not in SparseVector(1, 0, variant=1).capabilities
    with pytest.raises(ValueError, match="discrete"):
        SparseVector(1, 0, variant=1).evaluate("density", exactdp.as_scores([0]),
                                               exactdp.as_scores([1]))


# ---------------------------------------------------------------- bad input and cost
@pytest.mark.parametrize("output,match", [
    ((False,), "output must be an answer pattern of length 2"),
    ((True, None), "output.0. must be a rational number|output.0. must be"),
    ((1, 2), "output must be an answer pattern"),
    ("x", "output must be a tuple of length 2"),
    ((False, "pi"), r"output\[1\] must be a rational number"),
])
def test_bad_outputs_are_one_line_errors(output, match):
    d = SparseVector(1, 0, variant=3).distribution([0, 0])
    with pytest.raises(ValueError, match=match) as info:
        d.density(output)
    assert "\n" not in str(info.value)


def test_bad_arguments_are_one_line_errors():
    for kwargs, match in [({"c": 0}, "SparseVector: c must be a positive integer, got 0"),
                          ({"threshold": float("inf")}, "SparseVector: threshold must be"),
                          ({"variant": 0}, "SparseVector: variant must be one of 1..6")]:
        with pytest.raises(ValueError, match=match):
            SparseVector(**{"epsilon": 1, "threshold": 0, "variant": 3, **kwargs})
    with pytest.raises(ValueError, match=r"len\(neighbour\) must be 2"):
        exactdp.privacy_loss(SparseVector(1, 0, variant=3), [0, 0], [1])


def test_too_many_queries_refuse_by_the_cost_model_quickly():
    t0 = time.process_time()
    with pytest.raises(exactdp.cost.TooCostly, match="SparseVector.distribution") as info:
        SparseVector(1, 0, variant=3).distribution(list(range(100)))
    assert time.process_time() - t0 < 2 and "\n" not in str(info.value)


def test_outputs_cover_every_pattern_once():
    d = SparseVector(1, 0, c=2, variant=3).distribution([0, 0, 0])
    pats = set(itertools.product((True, False), repeat=3))
    assert len(d.outputs) == len(set(d.outputs)) == 7 < len(pats)
    # the answer first, then the mechanism
    assert repr(d).startswith("SparseVectorRelease(7 patterns, most likely (T, T, -) at ")
    assert repr(d).endswith("; SparseVector, m=3, c=2)")


def test_algorithm_3_scales_and_replace():
    mech = SparseVector(EPS, 0, c=3, variant=3, sensitivity=2)
    assert mech.scale == 2 * 2 / EPS  # D / eps1, eps1 = eps / 2
    assert mech.query_scale == 3 * 2 * 2 / EPS  # c D / eps2
    again = mech.with_epsilon(1)
    assert again.variant == 3 and again.query_scale == 12


@pytest.mark.parametrize("fresh", [False, True])
def test_cdf_is_the_conditional_law_of_a_released_value(fresh):
    """cdf(pattern, i, v) against the algorithm itself (an independent route): the empirical
    CDF of the value released at i among 200000 runs with that pattern. Fresh noise
    (NumSVT): the Laplace CDF of rate t3 lam around a_i, whatever the pattern."""
    mech = (exactdp.NumericalSparseVector(1, 0) if fresh
            else exactdp.SparseVector(1, 0, variant=3))
    d = mech.distribution([0, 1])
    codes, values = d.sample(200000, rng=7)
    for pat in d.outputs:
        code = [{True: 1, False: 0, None: -1}[a] for a in pat]
        rows = np.all(codes == code, axis=1)
        for i in (j for j, p in enumerate(pat) if p is True):
            for v in (-1, 0, "1/2", 2):
                exact = d.cdf(pat, i, v)
                assert exact.is_real and 0 <= float(exact) <= 1
                emp = float(np.mean(values[rows, i] <= float(sympy.Rational(v))))
                assert abs(float(exact) - emp) < 0.01, (pat, i, v)
            assert float(d.cdf(pat, i, 400)) == pytest.approx(1, abs=1e-12)
    if fresh:  # Laplace of rate t3 lam = 1/3 around a_1 = 1: at v = 1 exactly 1/2
        assert d.cdf((False, True), 1, 1) == sympy.Rational(1, 2)
    with pytest.raises(ValueError, match="i must be a released position"):
        d.cdf((False, True), 0, 1)
    assert d.loss_supremum([1, 1]).loss == exactdp.privacy_loss(mech, [0, 1], [1, 1]).loss


def test_a_pair_s_loss_refuses_a_non_neighbour():
    """Issue 35 item 6: ``loss_supremum([0], [5])`` gave 5/2 where privacy_loss refused. The
    one public route to a pair's loss is privacy_loss (``loss_supremum`` is gone): it refuses
    the pair in one line, and with ``allow_non_neighbour=True`` gives the supremum, 5/2 =
    (eps / (2 c D)) |0 - 5|."""
    mech = SparseVector(1, 0, variant=3)
    with pytest.raises(ValueError, match=r"neighbour\[0\] must be within the sensitivity 1"
                       r" of scores\[0\]") as info:
        exactdp.privacy_loss(mech, [0], [5])
    assert "\n" not in str(info.value)
    loss = exactdp.privacy_loss(mech, [0], [5], allow_non_neighbour=True)
    assert loss.value == sympy.Rational(5, 2)


def test_cdf_with_two_released_values_against_quadrature():
    """c = 2, answers [1, 0, 2], pattern (True, False, True): the value released at query 0
    is conditioned on query 2 being above the same noisy threshold too. Quadrature of the
    definition: Pr[v_0 > v, pattern] = int p(rho) (1 - F(max(v, T + rho) - a_0))
    Pr[a_1 + nu < T + rho] Pr[a_2 + nu >= T + rho] drho, over Pr[pattern]; the float64
    view agrees to 1e-12."""
    mech = SparseVector(EPS, "1/2", c=2, variant=3)
    a, pat = [1, 0, 2], (True, False, True)
    d = mech.distribution(a)
    b1, b2 = scales(mech)
    T = mpmath.mpf(1) / 2
    with mpmath.workdps(40):
        total = quad_pattern(b1, b2, T, [mpmath.mpf(x) for x in a], pat)
        points = (-1, 0, "1/2", 2, 5)
        for v in points:
            vm = mpmath.mpf(sympy.Rational(v).p) / sympy.Rational(v).q

            def integrand(r, vm=vm):
                return (lap_pdf(r, b1) * (1 - lap_cdf(max(vm, T + r) - a[0], b2))
                        * lap_cdf(T + r - a[1], b2) * (1 - lap_cdf(T + r - a[2], b2)))
            cuts = sorted({mpmath.mpf(0), vm - T, *[x - T for x in a]})
            want = 1 - mpmath.quad(integrand, [-mpmath.inf, *cuts, mpmath.inf]) / total
            assert close(d.cdf(pat, 0, v), want, 30), v
        floats = d.cdf_float(pat, 0, np.array([float(sympy.Rational(v)) for v in points]))
        exact = [float(d.cdf(pat, 0, v)) for v in points]
        assert np.allclose(floats, exact, rtol=0, atol=1e-12) and floats[0] < floats[-1]


def test_the_notebook_shows_a_table_as_every_distribution():
    # at q_1 = T the answer noise and the threshold noise are symmetric: each pattern 1/2
    d = SparseVector(1, threshold=1, variant=3).distribution([1])
    html = d._repr_html_()
    assert html.startswith('<table><caption style="text-align:left"><b>SparseVectorRelease')
    assert "2 patterns, most likely (T,) and 1 more tied, each at 0.5 (exact: 1/2)" in html
    assert "variant=3" in html and "(F,)</th><td style=\"text-align:left\">0.5 (exact: 1/2)" \
        in html
    assert r"\mathbf{SparseVectorRelease}" in d._repr_latex_()
