"""exactdp.exact.poly: balls of sympy values, signs at transcendental points, x-forms."""


import flint
import pytest
import sympy

from exactdp.exact.arb import to_arb
from exactdp.exact.poly import Y, as_fmpq_poly, sign_at, xform_from_probabilities

x = Y
R = sympy.Rational


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
    x, forms, kappa = xform_from_probabilities(probs, eps)
    assert x == sympy.Symbol("x", positive=True)  # the generator x = exp(-epsilon/N), N = 2
    assert kappa == R(1, 2)
    for f, p in zip(forms, probs, strict=True):
        assert sympy.simplify(f.subs(x, sympy.exp(-eps / 2)) - p) == 0
    with pytest.raises(ValueError, match="rational"):
        xform_from_probabilities([(1 + eps) * sympy.exp(-eps), 1 - (1 + eps) * sympy.exp(-eps)],
                                 eps)
