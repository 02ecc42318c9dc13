"""The law of one released value on its cells (exactdp.programs.release_law), checked
against quadrature at 30 digits (mpmath, 40 working digits) of densities written from the
algorithms' definitions, against the engine's exact CDF at rational points (the
integrator's route, not the cells), and symbolic epsilon against a number substituted."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy

from exactdp.cost import SECONDS_LIMIT, TooCostly
from exactdp.programs import library_release as L
from exactdp.programs import library_sums as LS
from exactdp.programs.release_law import (
    ValueLaw,
    add,
    at,
    law_seconds,
    pattern_law,
    primitive,
    runs_law,
)

from .quadrature import exponential_cdf, exponential_pdf, laplace_cdf, laplace_pdf

v = sympy.Symbol("v", real=True)
TOL = mpmath.mpf(10) ** -30


def _max_density(q, b, law):
    """The density of ``max_r (q_r + Z_r)`` from its definition (Feller II, I.6)."""
    pdf, cdf = (laplace_pdf, laplace_cdf) if law == "laplace" else (exponential_pdf,
                                                                     exponential_cdf)

    def f(x):
        return mpmath.fsum(pdf(x - a, b) * mpmath.fprod(cdf(x - c, b) for c in q if c is not a)
                           for a in q)
    return f


@pytest.mark.parametrize("law", ["laplace", "exponential"])
def test_noisy_max_value_law_equals_quadrature_at_30_digits(law):
    prog = L.noisy_max_value_laplace if law == "laplace" else L.noisy_max_value_exponential
    q = [0, 2, 1, Fraction(1, 2)]
    d = prog(epsilon=1).distribution(q)
    res = pattern_law(d, d.keys[0], 0, "test")
    dens, cdf = res.expr(0, v), res.expr(1, v)
    with mpmath.workdps(40):
        f = _max_density([mpmath.mpf(x.numerator) / x.denominator if isinstance(x, Fraction)
                          else mpmath.mpf(x) for x in q], mpmath.mpf(2), law)
        kinks = [mpmath.mpf(0), mpmath.mpf(1) / 2, mpmath.mpf(1), mpmath.mpf(2)]
        for t in (Fraction(-3, 2), Fraction(1, 3), Fraction(3, 2), Fraction(5)):
            x = mpmath.mpf(t.numerator) / t.denominator
            st = sympy.Rational(t.numerator, t.denominator)
            assert abs(sympy.N(dens.subs(v, st), 40) - f(x)) < TOL
            upto = mpmath.quad(f, [-mpmath.inf, *[k for k in kinks if k < x], x])
            assert abs(sympy.N(cdf.subs(v, st), 40) - upto) < TOL
            assert abs(res.mp(1, x) - upto) < TOL
        assert res.mass == {(0, Fraction(0), Fraction(0)): (Fraction(1),)}  # exactly 1


def test_svt3_marginal_cdf_equals_quadrature_and_the_integrators_cdf():
    """Algorithm 3 (rho ~ Lap(2), nu ~ Lap(4) at epsilon 1, c = 2): given rho = z the
    queries are independent; the first released value exceeds x iff nu_0 > max(x, T + z)
    - a_0 (Lyu, Su and Li 2017, Figure 1)."""
    a, T = [1, 0, 2], 1
    d = L.svt3(epsilon=1, threshold=T, c=2).distribution(a)
    k = next(i for i, p in enumerate(d.outputs) if p[0] is not False and p[1] is False
             and p[2] is not False)
    pattern, key = d.outputs[k], d.keys[k]
    res = pattern_law(d, key, 0, "test")
    with mpmath.workdps(40):
        def over(x):
            def g(z):
                return (laplace_pdf(z, 2) * laplace_cdf(T + z - a[1], 4)
                        * (1 - laplace_cdf(T + z - a[2], 4))
                        * (1 - laplace_cdf(max(x, T + z) - a[0], 4)))
            kinks = sorted({-1, 0, 1} | ({x - T} if x != -mpmath.inf else set()))
            return mpmath.quad(g, [-mpmath.inf, *kinks, mpmath.inf])

        mass = over(-mpmath.inf)
        for t in (Fraction(-2), Fraction(1, 2), Fraction(3), Fraction(7, 2)):
            x = mpmath.mpf(t.numerator) / t.denominator
            expect = 1 - over(x) / mass
            assert abs(sympy.N(res.expr(1, v).subs(v, sympy.Rational(t)), 40) - expect) < TOL
            assert abs(sympy.N(d.cdf(pattern, 0, t), 40) - expect) < TOL
    pts = np.linspace(-4, 6, 41)
    exact = [float(sympy.N(d.cdf(pattern, 0, Fraction(float(x))), 20)) for x in pts]
    assert np.allclose(d.cdf_float(pattern, 0, pts), exact, rtol=1e-12, atol=1e-15)


def test_symbolic_epsilon_is_the_law_at_a_number():
    e = sympy.Symbol("epsilon", positive=True)
    for prog in (L.noisy_max_value_laplace, L.noisy_max_value_exponential):
        d, d2 = prog(epsilon=e).distribution([0, 1, 3]), prog(epsilon=sympy.Rational(3, 2)
                                                                  ).distribution([0, 1, 3])
        sym, num = (pattern_law(x, x.keys[0], 0, "t") for x in (d, d2))
        assert sym.unit == e  # the scales 2/epsilon: the unit epsilon, rates folded
        for which in (0, 1):
            s, n = sym.expr(which, v), num.expr(which, v)
            for t in (sympy.Rational(-1, 2), sympy.Rational(2), sympy.Rational(9, 2)):
                got = s.subs(v, t).subs(e, sympy.Rational(3, 2))
                assert sympy.simplify(got - n.subs(v, t)) == 0


def test_laplace_mechanism_law_is_the_laplace_cdf_and_floats_agree():
    d = L.laplace_mechanism(epsilon=1).distribution([0])
    res = pattern_law(d, d.keys[0], 0, "t")
    assert isinstance(res, ValueLaw)
    assert [(p.lo, p.hi) for p in res.pieces] == [(None, 0), (0, None)]
    assert res.expr(0, v) == sympy.Piecewise((sympy.exp(v) / 2, v < 0), (sympy.exp(-v) / 2, True))
    x = np.array([-3.0, -0.5, 0.0, 0.5, 40.0])
    ref = np.where(x < 0, np.exp(x) / 2, 1 - np.exp(-x) / 2)
    assert np.allclose(res.floats(1, x), ref, rtol=1e-14)
    assert np.allclose(res.floats(0, x.reshape(5, 1)).ravel(), np.exp(-np.abs(x)) / 2,
                       rtol=1e-14)
    assert res.piece_at(Fraction(0)).lo == 0  # a cell end: the right cell
    assert res.floats(1, np.array([-np.inf, -1e308, 1e308, np.inf])).tolist() == [0, 0, 1, 1]


def test_primitive_differentiates_back_and_at_evaluates_exactly():
    lam = sympy.Symbol("lam", positive=True)
    f = {(1, Fraction(2), Fraction(-1)): (Fraction(1), Fraction(0), Fraction(3)),
         (0, Fraction(0), Fraction(1)): (Fraction(1, 2), Fraction(1))}
    law = ValueLaw(lam, (), {})
    back = sympy.diff(law.term_expr(primitive(f), v), v)
    assert sympy.simplify(back - law.term_expr(f, v)) == 0
    val = law.term_expr(at(f, Fraction(1, 2)), v)
    assert sympy.simplify(val - law.term_expr(f, v).subs(v, sympy.Rational(1, 2))) == 0
    assert add(f, f, -1) == {}


def test_bad_index_and_the_cost_model_refuse_in_one_line():
    d = L.noisy_max_value_laplace(epsilon=1).distribution([0, 1])
    with pytest.raises(ValueError, match=r"^t: i must be a released value of the pattern"):
        pattern_law(d, d.keys[0], 1, "t")
    big = L.noisy_max_value_laplace(epsilon=1).distribution(
        [Fraction(k * k, 97) for k in range(20)])
    runs = big.runs[big.keys[0]]  # 2**19 terms a cell at most: about 600 s estimated
    assert law_seconds(runs) > SECONDS_LIMIT
    with pytest.raises(TooCostly, match="^t: "):
        runs_law(runs, "t")


def test_a_law_past_the_line_seconds_prints_its_start_line(monkeypatch, capsys):
    """Off a terminal, a law whose estimate passes LINE_SECONDS says so on standard error
    as it starts (set to 0 here: the estimate of a two-answer law is milliseconds)."""
    from exactdp import progress

    d = L.noisy_max_value_laplace(epsilon=1).distribution([0, 1])
    monkeypatch.setattr(progress, "LINE_SECONDS", 0.0)
    monkeypatch.setattr(progress.sys.stderr, "isatty", lambda: False, raising=False)
    runs_law(d.runs[d.keys[0]], "t")
    assert capsys.readouterr().err.startswith("t: started, about 0 s CPU estimated")


@pytest.mark.parametrize("make", [
    lambda: L.gap_svt(epsilon=1, threshold=1, c=2),
    lambda: L.adaptive_svt(epsilon=1, threshold=1),
    lambda: L.noisy_top_k_gap_exponential(epsilon=1),
    lambda: LS.prefix_sum(epsilon=1),
    lambda: LS.smart_sum(epsilon=1),
])
def test_cdf_float_is_the_integrators_exact_cdf_for_other_programs(make):
    """``ProgramRelease.cdf_float`` (the law on its cells, in floats) against the exact CDF
    at each point by the integrator (one run probability per point, the other route)."""
    from exactdp.programs.release_patterns import real_count

    d = make().distribution([1, 0, 2])
    pts = np.array([-1.5, 0.25, 1.0, 2.5])
    for p in d.outputs[:4]:
        for i in range(min(real_count(p), 2)):
            exact = [float(sympy.N(d.cdf(p, i, Fraction(float(x))), 20)) for x in pts]
            assert np.allclose(d.cdf_float(p, i, pts), exact, rtol=1e-12, atol=1e-15), (p, i)
