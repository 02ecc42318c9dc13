"""exactdp/mechanisms/noisy_max_value.py: the law of the released value of
ReportNoisyMax(output="value"), checked by quadrature, by the CDF's derivative and by
Monte Carlo of the algorithm (a KS test at 1e5 draws)."""

import mpmath
import numpy as np
import pytest
import sympy
from scipy import stats

import exactdp
from exactdp.mechanisms.noisy_max_value import V, ValueDistribution, engine_route

NOISES = ("laplace", "exponential", "gumbel")


def test_the_suites_noise_scale_is_two_over_epsilon():
    # the suite's Laplace(2/eps) / exponential(2/eps) noise: c = 2, sensitivity 1
    for noise in ("laplace", "exponential"):
        m = exactdp.ReportNoisyMax("0.1", noise=noise, output="value")
        assert 1 / m.rate == 20
        assert m.capabilities == frozenset({"density", "sample"})
        assert m.output_kind == "release"
        assert isinstance(m.distribution([1] * 5), ValueDistribution)
    assert "density" not in exactdp.ReportNoisyMax("0.1", noise="laplace").capabilities


@pytest.mark.parametrize("noise", ("laplace", "exponential"))
def test_density_integrates_to_one_and_the_cdf_is_its_integral(noise):
    d = exactdp.ReportNoisyMax(1, noise=noise, output="value").distribution([0, -1, 1, 1])
    f = lambda v: d.density(v, method="mpmath", dps=15)  # noqa: E731
    with mpmath.workdps(15):
        total = mpmath.quad(f, [-mpmath.inf, -1, 0, 1, mpmath.inf])
        assert abs(total - 1) < mpmath.mpf("1e-12")
        for t in (-2, 3):
            pieces = [-mpmath.inf] + [b for b in (-1, 0, 1) if b < t] + [t]
            upto = mpmath.quad(f, pieces)
            assert abs(upto - d.cdf((True,), 0, t, method="mpmath", dps=15)) < mpmath.mpf("1e-12")


@pytest.mark.parametrize("noise", NOISES)
def test_piecewise_expressions_agree_with_the_point_values_and_the_float_view(noise):
    d = exactdp.ReportNoisyMax(2, noise=noise, output="value").distribution([0, 2, 1])
    dens, cdf = d.density_expr, d.cdf_expr
    assert isinstance(cdf, sympy.Piecewise) or noise == "gumbel"
    for t in (sympy.Rational(-3, 2), sympy.Rational(1, 3), sympy.Integer(5)):
        exact = sympy.N(d.density(t), 30)
        assert abs(sympy.N(dens.subs(V, t), 30) - exact) < 1e-28
        k = next((i for i, b in enumerate(d.breakpoints) if t < b), len(d.breakpoints))
        slope = sympy.diff(d._piece(k)[1], V).subs(V, t)  # the CDF's derivative on its piece
        assert abs(sympy.N(slope, 30) - exact) < 1e-28
        assert d.density(float(t), method="float") == pytest.approx(
            float(d.density(t, method="mpmath")), rel=1e-12)
        assert d.cdf((True,), 0, float(t), method="float") == pytest.approx(
            float(d.cdf((True,), 0, t, method="mpmath")), rel=1e-12)


@pytest.mark.parametrize("noise", NOISES)
def test_samples_of_the_algorithm_pass_a_ks_test_against_the_exact_cdf(noise):
    d = exactdp.ReportNoisyMax("0.1", noise=noise, output="value").distribution([1, 1, 0, 2, 2])
    draws = d.sample(100_000, rng=np.random.default_rng(7))  # the algorithm itself
    res = stats.kstest(draws, lambda v: d.cdf((True,), 0, v, method="float"))
    assert res.pvalue > 1e-3
    wrong = exactdp.ReportNoisyMax("0.1", noise=noise, output="value").distribution([2] * 5)
    assert stats.kstest(draws, lambda v: wrong.cdf((True,), 0, v, method="float")).pvalue < 1e-6


def test_exponential_noise_has_no_mass_below_the_top_score():
    d = exactdp.ReportNoisyMax(1, noise="exponential", output="value").distribution([1, 0])
    assert d.density(sympy.Rational(1, 2)) == 0 and d.cdf((True,), 0, 1) == 0
    # Pr[V <= 2] = (1 - e^{-1/2}) (1 - e^{-1}) with b = 2
    assert sympy.simplify(d.cdf((True,), 0, 2) - (1 - sympy.exp(-sympy.Rational(1, 2)))
                          * (1 - sympy.exp(-1))) == 0


def test_the_release_protocol():
    """One pattern, (True,), of probability 1; the value's law given it is V's; the loss
    against a neighbour is the mechanism's (no member exists only to refuse)."""
    m = exactdp.ReportNoisyMax(1, noise="laplace", output="value")
    d = m.distribution([0, 1])
    assert d.outputs == ((True,),) and d.probabilities == (1,) and len(d) == 1
    assert d.pmf((True,)) == 1
    for bad in (lambda: d.pmf(0), lambda: d.cdf((False,), 0, 1), lambda: d.cdf((True,), 1, 1)):
        with pytest.raises(ValueError, match="ValueDistribution"):
            bad()
    assert d.loss_supremum([1, 1]).loss == exactdp.privacy_loss(m, [0, 1], [1, 1]).loss
    assert d.n == 2 and d.capabilities == frozenset({"density", "sample"})
    assert d.breakpoints == (0, 1) and d.scale == 2
    with pytest.raises(ValueError, match="method must be"):
        d.density(0, method="arb")
    assert isinstance(d.sample(rng=1), float)


def test_bad_output_and_min_are_refused():
    with pytest.raises(ValueError, match="ReportNoisyMax: output must be"):
        exactdp.ReportNoisyMax(1, output="values")
    with pytest.raises(ValueError, match="ReportNoisyMax: optimize must be 'max' with"):
        exactdp.ReportNoisyMax(1, output="value", optimize="min")
    with pytest.raises(ValueError, match="no exact view: the released value is continuous"):
        exactdp.ReportNoisyMax(1, noise="laplace", output="value").evaluate(
            "exact", exactdp.scores.as_scores([0, 1]))


@pytest.mark.parametrize("noise", ("laplace", "exponential"))
def test_exact_point_values_are_the_installed_engine_route_and_equal_the_closed_form(noise):
    from exactdp.mechanisms.noisy_max_value_engine import value_view

    assert engine_route("view") is value_view
    d = exactdp.ReportNoisyMax(2, noise=noise, output="value").distribution([0, 2, 1])
    for t in (sympy.Rational(-3, 2), sympy.Integer(1), sympy.Rational(7, 3)):
        k = next((i for i, b in enumerate(d.breakpoints) if t < b), len(d.breakpoints))
        dens, cdf = d._piece(k)  # the closed form of the piece, independent of the engine
        assert sympy.simplify(d.density(t) - dens.subs(V, t)) == 0
        assert sympy.simplify(d.cdf((True,), 0, t) - cdf.subs(V, t)) == 0


def test_engine_routes_are_the_engine_modules_and_names_are_checked():
    from exactdp.mechanisms import noisy_max_value_engine as E
    from exactdp.mechanisms.noisy_max_value import set_engine_route

    assert engine_route("view") is E.value_view
    assert engine_route("loss").__module__ == E.__name__
    with pytest.raises(ValueError, match=r"^set_engine_route: name must be"):
        set_engine_route("density", E.value_view)
    with pytest.raises(RuntimeError, match="no cdf route installed"):
        engine_route("cdf")


def _definition(noise, q, b):
    """The density of ``max_r (q_r + Z_r)`` in mpmath from its definition, ``sum_r f(v -
    q_r) prod_{s != r} F(v - q_s)`` (Feller II, I.6), independent of the engine."""
    def pdf(z):
        if noise == "laplace":
            return mpmath.exp(-abs(z) / b) / (2 * b)
        return mpmath.exp(-z / b) / b if z >= 0 else mpmath.mpf(0)

    def cdf(z):
        if noise == "laplace":
            return mpmath.exp(z / b) / 2 if z < 0 else 1 - mpmath.exp(-z / b) / 2
        return -mpmath.expm1(-z / b) if z >= 0 else mpmath.mpf(0)

    return lambda v: mpmath.fsum(pdf(v - a) * mpmath.fprod(cdf(v - c) for j, c in enumerate(q)
                                                           if j != i) for i, a in enumerate(q))


@pytest.mark.parametrize("noise", ("laplace", "exponential"))
@pytest.mark.parametrize("symbolic", (False, True))
def test_engine_expressions_equal_quadrature_at_30_digits(noise, symbolic):
    """density_expr and cdf_expr (the engine's law; a symbolic epsilon substituted by 3/2
    afterwards) against the definition's density and its quadrature, 40 working digits."""
    eps = sympy.Symbol("epsilon", positive=True) if symbolic else sympy.Rational(3, 2)
    scores = [0, 2, 1, sympy.Rational(1, 2)]
    d = exactdp.ReportNoisyMax(eps, noise=noise, output="value").distribution(scores)
    dens = d.density_expr.subs(eps, sympy.Rational(3, 2))
    cdf = d.cdf_expr.subs(eps, sympy.Rational(3, 2))
    with mpmath.workdps(40):
        q = [mpmath.mpf(sympy.N(s, 50)) for s in scores]
        f = _definition(noise, q, mpmath.mpf(4) / 3)  # b = 2 / epsilon
        kinks = sorted(set(q))
        for t in (sympy.Rational(-3, 2), sympy.Rational(1, 3), sympy.Rational(3, 2),
                  sympy.Integer(5)):
            x = mpmath.mpf(sympy.N(t, 50))
            assert abs(sympy.N(dens.subs(V, t), 40) - f(x)) < mpmath.mpf("1e-30")
            upto = mpmath.quad(f, [-mpmath.inf, *[k for k in kinks if k < x], x])
            assert abs(sympy.N(cdf.subs(V, t), 40) - upto) < mpmath.mpf("1e-30")
            if symbolic:  # the exact views at a point with a symbolic epsilon: the law's
                got = d.cdf((True,), 0, t).subs(eps, sympy.Rational(3, 2))
                assert abs(sympy.N(got, 40) - upto) < mpmath.mpf("1e-30")


def test_engine_expressions_equal_the_frozen_class_values():
    """The frozen table of the deleted closed forms (tests/programs/release_closed_forms.json,
    epsilon 1): density_expr and cdf_expr at its points, exactly."""
    import json
    from pathlib import Path

    rows = json.loads((Path(__file__).parents[1] / "programs" / "release_closed_forms.json"
                       ).read_text())["noisy_max_value"]
    for row in rows:
        d = exactdp.ReportNoisyMax(1, noise=row["noise"], output="value").distribution(
            [sympy.Rational(a) for a in row["scores"]])
        dens, cdf = d.density_expr, d.cdf_expr
        for v, f, F in zip(row["points"], row["density"], row["cdf"], strict=True):
            for mine, frozen in ((dens, f), (cdf, F)):
                diff = mine.subs(V, sympy.Rational(v)) - sympy.sympify(frozen)
                assert sympy.expand(sympy.powsimp(sympy.expand(diff))) == 0, (row, v)


def test_gumbel_keeps_its_closed_form_and_limits_refuse_in_one_line():
    from exactdp.mechanisms.noisy_max_value import gumbel_forms

    d = exactdp.ReportNoisyMax(1, noise="gumbel", output="value").distribution([0, 1])
    assert d.cdf_expr == gumbel_forms(d.scale, (0, 1))[1]
    with mpmath.workdps(30):  # F_V(v) = prod_r exp(-exp(-(v - q_r)/b)), b = 2
        ref = mpmath.exp(-mpmath.exp(-mpmath.mpf(3) / 2) - mpmath.exp(-1))
        assert abs(sympy.N(d.cdf((True,), 0, 3), 30) - ref) < mpmath.mpf("1e-28")
    inf = exactdp.ReportNoisyMax(sympy.oo, noise="laplace", output="value").distribution([0])
    with pytest.raises(ValueError, match="ValueDistribution.density_expr: at epsilon = oo"):
        _ = inf.density_expr
    with pytest.raises(ValueError, match="ValueDistribution.density: epsilon is oo; the float"):
        inf.density(0, method="float")


def test_sampling_at_a_limit_or_a_symbol_is_a_one_line_error():
    """Before: ``TypeError: Cannot convert complex to float`` at epsilon = 0, and the
    density's message showed sympy's ``zoo`` as the scale."""
    d0 = exactdp.ReportNoisyMax(0, noise="laplace", output="value").distribution([0, 1])
    with pytest.raises(ValueError, match=r"^ValueDistribution.sample: at epsilon = 0 the "
                       "noise has infinite scale"):
        d0.sample(3, rng=0)
    with pytest.raises(ValueError, match="the noise has infinite scale: V has no density"):
        d0.density(0)
    e = sympy.Symbol("e", positive=True)
    de = exactdp.ReportNoisyMax(e, noise="laplace", output="value").distribution([0, 1])
    with pytest.raises(ValueError, match=r"epsilon is symbolic \(e\)"):
        de.sample(3, rng=0)
    doo = exactdp.ReportNoisyMax(sympy.oo, noise="laplace", output="value").distribution([0, 1])
    assert list(doo.sample(2, rng=0)) == [1.0, 1.0]  # no noise: the maximum itself
