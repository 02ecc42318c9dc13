"""Tests of exactdp.exact: exact signs of polynomials on (0, 1) and ball arithmetic."""

from fractions import Fraction

import flint
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.exact.poly import Y, as_fmpq_poly, sign_at, to_arb, xform_from_probabilities
from exactdp.exact.unit_interval import (
    descartes_bound,
    is_nonnegative_on_unit_interval,
    sign_on_unit_interval,
    verify_sign_analysis,
)

x = Y
R = sympy.Rational


def test_known_pattern_roots_signs_and_negative_intervals():
    p = (x - R(1, 3)) ** 2 * (x - R(1, 2)) * (x - R(3, 4))
    a = sign_on_unit_interval(p)
    assert a.method == "isolation"
    assert a.exact_roots() == (R(1, 3), R(1, 2), R(3, 4))
    assert [m for _, m in a.roots] == [2, 1, 1]
    # p(0) = (1/9)(-1/2)(-3/4) > 0; even root at 1/3 keeps the sign
    assert a.signs == (1, 1, -1, 1)
    assert a.negative_intervals() == ((R(1, 2), R(3, 4)),)
    assert not a.nonnegative
    assert verify_sign_analysis(a)


def test_irrational_root_is_exact_and_interval_maps():
    a = sign_on_unit_interval(2 * x**2 - 1)
    assert a.exact_roots() == (sympy.sqrt(2) / 2,)
    assert a.negative_intervals() == ((0, sympy.sqrt(2) / 2),)
    assert verify_sign_analysis(a)


def test_roots_at_endpoints_are_outside_the_open_interval():
    a = sign_on_unit_interval(x * (1 - x) ** 3)
    assert a.roots == ()
    assert a.positive and a.nonnegative
    assert verify_sign_analysis(a)


def test_zero_polynomial_and_descartes_route():
    z = sign_on_unit_interval(0 * x)
    assert z.is_zero and z.nonnegative and not z.positive
    a = sign_on_unit_interval(1 + x + x**5)
    assert a.method == "descartes" and a.positive
    assert descartes_bound(as_fmpq_poly(1 + x, x)) == 0
    assert descartes_bound(as_fmpq_poly((x - R(1, 2)) * (x - R(1, 3)), x)) == 2


def test_verify_rejects_a_tampered_analysis():
    a = sign_on_unit_interval((x - R(1, 2)) * (x - R(3, 4)))
    bad = type(a)(a.poly, a.roots, tuple(-s for s in a.signs), a.method)
    assert not verify_sign_analysis(bad)
    bad_roots = type(a)(a.poly, a.roots[:1], a.signs[:2], a.method)
    assert not verify_sign_analysis(bad_roots)


fractions01 = st.fractions(min_value=Fraction(-1, 2), max_value=Fraction(3, 2),
                           max_denominator=12)


@settings(max_examples=40, deadline=None)
@given(st.lists(fractions01, min_size=1, max_size=5), st.sampled_from([1, -1]))
def test_roots_and_nonnegativity_against_the_factorisation(roots, lead):
    p = lead * sympy.Mul(*[(x - R(r.numerator, r.denominator)) for r in roots])
    a = sign_on_unit_interval(sympy.expand(p))
    inside = sorted({R(r.numerator, r.denominator) for r in roots if 0 < r < 1})
    assert a.exact_roots() == tuple(inside)
    assert verify_sign_analysis(a)
    # independent route: exact evaluation on a fine rational grid away from the roots
    grid = [R(k, 97) for k in range(1, 97)]
    values = [p.subs(x, t) for t in grid]
    assert a.nonnegative == all(v >= 0 for v in values)


def test_to_arb_encloses_sympy_value_and_refuses_floats_and_symbols():
    e = sympy.exp(-sympy.Rational(1, 10)) * sympy.log(3) + sympy.sqrt(2) - sympy.pi
    ball = to_arb(e, 200)
    ref = sympy.N(e, 50)
    assert ball.rad() < flint.arb("1e-55")
    assert abs(sympy.Float(ball.mid().str(50, radius=False), 50) - ref) < sympy.Float("1e-45")
    with pytest.raises(ValueError, match="float"):
        to_arb(sympy.Float(0.5) + 1)
    with pytest.raises(ValueError, match="free symbols"):
        to_arb(sympy.Symbol("t") + 1)


def test_sign_at_transcendental_point():
    point = lambda prec: to_arb(-sympy.Integer(1), prec).exp()  # noqa: E731  e^-1
    assert sign_at(as_fmpq_poly(x - R(1, 2), x), point) == -1
    assert sign_at(as_fmpq_poly(x - R(1, 3), x), point) == 1
    assert sign_at(flint.fmpq_poly([]), point) == 0
    # 3678/10000 < e^-1 = 0.367879... < 3679/10000
    assert sign_at(as_fmpq_poly(x - R(3678, 10000), x), point) == 1
    assert sign_at(as_fmpq_poly(x - R(3679, 10000), x), point) == -1


def test_xform_of_softmax_and_refusal_for_laplace_terms():
    eps = sympy.Symbol("epsilon", positive=True)
    w = [sympy.Integer(1), sympy.exp(-eps / 2), sympy.exp(-eps)]
    probs = [v / sum(w) for v in w]
    y, forms, kappa = xform_from_probabilities(probs, eps)
    assert kappa == R(1, 2)
    for f, p in zip(forms, probs, strict=True):
        assert sympy.simplify(f.subs(y, sympy.exp(-eps / 2)) - p) == 0
    with pytest.raises(ValueError, match="rational"):
        xform_from_probabilities([(1 + eps) * sympy.exp(-eps), 1 - (1 + eps) * sympy.exp(-eps)],
                                 eps)


def test_descartes_bound_and_nonnegativity_against_known_roots():
    import flint

    y = flint.fmpq_poly([0, 1])
    # (y - 1/2)(y - 1/3)(y + 1): two roots in (0, 1)
    p = (y - flint.fmpq(1, 2)) * (y - flint.fmpq(1, 3)) * (y + 1)
    b = descartes_bound(p)
    assert b >= 2 and b % 2 == 0
    assert descartes_bound((y + 1) * (y + 2)) == 0
    Y = sympy.Symbol("y", positive=True)
    assert is_nonnegative_on_unit_interval((Y - R(1, 2)) ** 2)
    assert not is_nonnegative_on_unit_interval((Y - R(1, 2)) * (Y - R(1, 3)))
