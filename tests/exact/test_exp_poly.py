"""Exponential polynomials (exactdp.exact.exp_poly): construction, exact parsing, Taylor
coefficients (against sympy's series), signs at points (against arb balls of the closed
form)."""

from __future__ import annotations

from fractions import Fraction as F

import flint
import pytest
import sympy

from exactdp.exact.arb import to_arb
from exactdp.exact.exp_poly import ExpPoly

t = sympy.Symbol("t")


# ------------------------------------------------------------------ construction
def test_from_terms_merges_equal_rates_and_scales():
    # q lam^e exp(lam W), lam = t/2: 3 exp(-t/2) + (1/2)(t/2)exp(-t/2)... merged by W
    f = ExpPoly.from_terms({(0, F(-1)): F(3), (1, F(-1)): F(1), (0, F(0)): F(-1)}, scale=F(1, 2))
    assert f.terms == ((F(-1, 2), (F(3), F(1, 2))), (F(0), (F(-1),)))
    assert f.zero_bound == 2
    g = ExpPoly.from_sympy(3 * sympy.exp(-t / 2) + t * sympy.exp(-t / 2) / 2 - 1, t)
    assert f == g


def test_from_sympy_parses_exactly_and_refuses_other_shapes():
    e = sympy.Symbol("epsilon", positive=True)
    f = ExpPoly.from_sympy(e * (sympy.exp(-e) / 4 + sympy.exp(-e / 2)) / 2 + 1 - sympy.exp(-e), e)
    assert f.to_sympy(e).equals(sympy.expand(e * (sympy.exp(-e) / 4 + sympy.exp(-e / 2)) / 2
                                             + 1 - sympy.exp(-e)))
    for bad, why in [(sympy.Float(0.5) * sympy.exp(-e), "float"),
                     (sympy.exp(-e**2), "not exp"),
                     (sympy.exp(sympy.Integer(2)) * e, "rational w"),
                     (sympy.sqrt(2) * e, "is not a rational"),
                     (sympy.exp(-sympy.sqrt(2) * e), "rational w")]:
        with pytest.raises(ValueError, match=why) as info:
            ExpPoly.from_sympy(bad, e)
        assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match="scale"):
        ExpPoly.from_terms({(0, F(0)): F(1)}, scale=0)
    with pytest.raises(ValueError, match="power of lam"):
        ExpPoly.from_terms({(-1, F(0)): F(1)})
    with pytest.raises(ValueError, match="exact rational"):
        ExpPoly.from_terms({(0, 0.5): F(1)})


def test_identically_zero_is_decided_exactly():
    # (1 + t) e^{-t} written twice with opposite signs, and e^{-t/2}^2 - e^{-t}
    f = ExpPoly.from_terms({(0, F(-1)): F(1), (1, F(-1)): F(1)})
    assert (f - f).is_zero and (f - f).zero_bound == -1
    g = ExpPoly.from_sympy(sympy.exp(-t / 2) ** 2 - sympy.exp(-t), t)
    assert g.is_zero and g.sign_near_zero() == 0 and g.sign_at_infinity() == 0


# ------------------------------------------------------------------ signs at the ends
def test_sign_near_zero_from_exact_taylor_coefficients():
    # e^t - 1 - t - t^2/2 - t^3/6 = t^4/24 + ...: the first non-zero coefficient is the 4th
    f = ExpPoly.from_sympy(sympy.exp(t) - 1 - t - t**2 / 2 - t**3 / 6, t)
    series = sympy.series(f.to_sympy(t), t, 0, 7).removeO()
    for n in range(7):
        assert f.taylor(n) == F(str(series.coeff(t, n)))
    assert [f.taylor(n) for n in range(5)] == [0, 0, 0, 0, F(1, 24)]
    assert f.sign_near_zero() == 1 and (-f).sign_near_zero() == -1
    # t e^{-t} - t + t^2 = t^3/2 - t^4/6 + ...: positive near 0, but negative beyond a zero
    g = ExpPoly.from_sympy(t * sympy.exp(-t) - t + t**2, t)
    assert [g.taylor(n) for n in range(4)] == [0, 0, 0, F(1, 2)]
    assert g.sign_near_zero() == 1 and g.sign_at_infinity() == 1


def test_sign_at_infinity_is_the_leading_term():
    f = ExpPoly.from_sympy(-t**2 * sympy.exp(t / 3) + 1000 * t**5 + sympy.exp(t / 4) * 10**6, t)
    assert f.sign_at_infinity() == -1
    assert f.sign_at(200) == -1 and f.sign_at(1) == 1


# ------------------------------------------------------------------ zeros
# ------------------------------------------------------------------ tangential zeros
def test_sign_at_rational_points_is_exact():
    # at t = 2, t - 2 vanishes in every coefficient: exactly 0 (Lindemann-Weierstrass)
    f = ExpPoly.from_sympy(sympy.expand((t - 2) * (sympy.exp(t) - 7)), t)
    assert f.sign_at(2) == 0 and f.sign_at(1) == 1 and f.sign_at(3) == 1
    assert (f.ball(3, 200) - to_arb(sympy.exp(3) - 7, 200)).contains(0)
    with pytest.raises(ValueError, match="exact rational"):
        f.sign_at(0.5)


def test_derivative_is_sympy_s_derivative():
    # (t^2/3 - 1) exp(-t/2) + 5 t + 2: f' by sympy.diff of the closed form, exactly
    expr = (t**2 / 3 - 1) * sympy.exp(-t / 2) + 5 * t + 2
    f = ExpPoly.from_sympy(expr, t)
    assert sympy.simplify(f.derivative().to_sympy(t) - sympy.diff(expr, t)) == 0
    assert f.derivative().derivative() == ExpPoly.from_sympy(sympy.diff(expr, t, 2), t)


def test_an_unevaluated_integer_power_of_an_exponential_is_its_rate_times_k():
    # exp(t)**2 kept unevaluated is exp(2 t): the same terms as sympy's evaluated form
    e = sympy.Pow(sympy.exp(t), 2, evaluate=False)
    assert e.is_Pow and isinstance(e.base, sympy.exp)
    f = ExpPoly.from_sympy(e - 3, t)
    assert f == ExpPoly.from_sympy(sympy.exp(2 * t) - 3, t)
    assert f == ExpPoly.from_terms({(0, F(2)): F(1), (0, F(0)): F(-3)})


def test_refusals_of_from_terms_name_the_function_and_the_argument():
    with pytest.raises(ValueError, match=r"^ExpPoly: W must be an exact rational, got 0\.5$"):
        ExpPoly.from_terms({(0, 0.5): F(1)})
    with pytest.raises(ValueError, match=r"^ExpPoly\.from_terms: scale must be > 0, got 0$"):
        ExpPoly.from_terms({(0, F(0)): F(1)}, scale=0)
    with pytest.raises(ValueError, match=r"^ExpPoly\.from_terms: terms must be keys \(e, W\) "
                       r"with a power of lam e an integer >= 0, got -1$"):
        ExpPoly.from_terms({(-1, F(0)): F(1)})


def test_shifted_derivative_and_sign_at_point_against_sympy():
    from exactdp.exact.exp_poly import shifted_derivative, sign_at_point

    # f = (1 + 2t) e^{-t} - 3 e^{t/2}: f' - w f by sympy, term by term, and signs at points
    expr = (1 + 2 * t) * sympy.exp(-t) - 3 * sympy.exp(t / 2)
    f = ExpPoly.from_sympy(expr, t)
    for w in (F(0), F(-1), F(1, 2)):
        shifted = ExpPoly._from_flint(shifted_derivative(f.flint_terms, flint.fmpq(w.numerator,
                                                                                  w.denominator)))
        want = sympy.expand(sympy.diff(expr, t) - sympy.Rational(w.numerator, w.denominator)
                            * expr)
        assert sympy.simplify(shifted.to_sympy(t) - want) == 0
    for point in (F(0), F(-3), F(1, 3), F(4)):
        value = expr.subs(t, sympy.Rational(point.numerator, point.denominator))
        exact_sign = 1 if value.evalf(50) > 0 else -1
        got = sign_at_point(f.flint_terms, flint.fmpq(point.numerator, point.denominator))
        assert got == exact_sign
    # an exact zero at t = 0: e^{t} - 1 - t
    g = ExpPoly.from_sympy(sympy.exp(t) - 1 - t, t)
    assert sign_at_point(g.flint_terms, flint.fmpq(0)) == 0


def test_from_sympy_reads_products_and_sums_without_expanding():
    """A closed form ``A + lam B`` (RNM-Laplace's shape), a power of a sum and a form that
    only its expansion makes parseable give sympy's expansion (an independent route)."""
    lam = t / 2
    forms = [
        sympy.Rational(1, 3) + sympy.exp(-lam) / 4
        + lam * (sympy.exp(-lam) / 5 - sympy.exp(-2 * lam)),
        (t + sympy.exp(-t)) ** 3 - t / 2,
        sympy.sqrt(2) * t + t * (t - sympy.sqrt(2)),  # sqrt(2) cancels on expansion only
    ]
    for f in forms:
        assert ExpPoly.from_sympy(f, t).to_sympy(t).equals(sympy.expand(f))
    assert ExpPoly.from_sympy(forms[2], t) == ExpPoly.from_terms({(2, F(0)): F(1)})
