"""exactdp.exact.poly: balls of sympy values, signs at transcendental points, x-forms."""


import flint
import pytest
import sympy

from exactdp.exact import UndecidedSignError
from exactdp.exact.arb import to_arb
from exactdp.exact.poly import Y, as_fmpq_poly, sgn, sign_at, xform_from_probabilities

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


# ------------------------------------------------------------- mutants that lived (issue 20)
def test_fmpq_poly_to_sympy_keeps_every_coefficient():
    from exactdp.exact.poly import fmpq_poly_to_sympy

    p = flint.fmpq_poly([1, 2, R(3, 5).p, 7]) / 1  # 7y^3 + 3y^2 + 2y + 1
    assert fmpq_poly_to_sympy(p) == sympy.Poly(7 * x**3 + 3 * x**2 + 2 * x + 1, x, domain="QQ")
    assert fmpq_poly_to_sympy(flint.fmpq_poly([])).is_zero


def test_sign_at_an_exact_algebraic_root_is_zero_and_otherwise_refuses():
    """x^2 - 2 vanishes at sqrt 2: 0 with the exact point (minimal polynomial), and a
    refusal naming sign_at from balls alone."""
    p = flint.fmpq_poly([-2, 0, 1])
    point = lambda prec: to_arb(sympy.sqrt(2), prec)  # noqa: E731
    assert sign_at(p, point, exact_point=sympy.sqrt(2)) == 0
    assert sign_at(p, lambda prec: to_arb(sympy.sqrt(3), prec)) == 1
    with pytest.raises(UndecidedSignError, match="sign_at: sign of a degree-2 polynomial"):
        sign_at(p, point, max_prec=1000)


def test_xform_of_exp_one_at_a_rational_epsilon():
    """EM-like probabilities 1/(1 + e), e/(1 + e) at epsilon = 1/2: e = exp(epsilon * 2), so
    with x = exp(-epsilon) they are x^2/(x^2 + 1) and 1/(1 + x^2): checked by substituting
    x back (sympy at 50 digits)."""
    e = sympy.E
    probs = [1 / (1 + e), e / (1 + e)]
    X, forms, kappa = xform_from_probabilities(probs, R(1, 2))
    assert kappa == 1
    assert sympy.simplify(forms[0] - X**2 / (X**2 + 1)) == 0
    for p, f in zip(probs, forms, strict=True):
        assert abs(sympy.N(f.subs(X, sympy.exp(-R(1, 2) * kappa)) - p, 50)) < 1e-45


def test_xform_refuses_irrational_coefficients():
    p = 1 / (1 + sympy.sqrt(2) * sympy.exp(-1))
    with pytest.raises(ValueError, match="non-rational coefficients in x"):
        xform_from_probabilities([p, 1 - p], 1)


def test_sign_at_a_tiny_point_with_cancellation_beyond_2_15_bits():
    """p(y) = 1 - K y with K = floor(e^30000) (a 43281-bit integer): p(e^-30000) =
    1 - K e^-30000 > 0 because K < e^30000 (e^30000 is irrational), and the cancellation
    hides it below 2^-43000: the default precision budget grows with |log2 point|."""
    from exactdp.exact.arb import flint_prec

    with flint_prec(50000):
        big = flint.arb(30000).exp()
        K = int(big.floor().unique_fmpz())
    assert K.bit_length() == 43281
    p = flint.fmpq_poly([1, -K])
    assert sign_at(p, lambda prec: to_arb(sympy.exp(-30000), prec)) == 1
    assert sign_at(-p, lambda prec: to_arb(sympy.exp(-30000), prec)) == -1


EPS = sympy.Symbol("epsilon", positive=True)


def test_xform_collects_the_exp_atoms_of_every_probability():
    """exp(-eps) appears in the first two probabilities only, the last one is the constant
    1/2: with x = exp(-eps) (N = 1) the forms are x/2, 1/2 - x/2, 1/2."""
    e = sympy.exp(-EPS)
    X, forms, kappa = xform_from_probabilities([e / 2, R(1, 2) - e / 2, R(1, 2)], EPS)
    assert kappa == 1
    for f, expect in zip(forms, (X / 2, R(1, 2) - X / 2, R(1, 2)), strict=True):
        assert sympy.expand(f - expect) == 0


def test_xform_refuses_a_denominator_that_is_not_a_polynomial_in_x():
    """p = 1/(1 + sqrt(1 + exp(-eps/2))): N = 2 (x = exp(-eps/2)) and the denominator
    1 + sqrt(1 + x) is no polynomial, so p is not rational in x (each probability is
    checked on its own: the list need not sum to 1 here)."""
    p = 1 / (1 + sympy.sqrt(1 + sympy.exp(-EPS / 2)))
    with pytest.raises(ValueError, match=r"^xform_from_probabilities: .* is not rational in "
                                         r"exp\(epsilon/2\)$"):
        xform_from_probabilities([p], EPS)


def test_xform_refuses_a_stray_symbol_in_a_numerator():
    """y exp(-eps)/(1 + exp(-eps)) holds a symbol y other than epsilon (in its numerator
    only): not a rational function of x alone."""
    y = sympy.Symbol("y", positive=True)
    p = y * sympy.exp(-EPS) / (1 + sympy.exp(-EPS))
    with pytest.raises(ValueError, match=r"^xform_from_probabilities: .* is not rational in "
                                         r"exp\(epsilon/1\)$"):
        xform_from_probabilities([p, 1 - p], EPS)


def test_sgn_of_rationals_and_balls():
    assert [sgn(v) for v in (R(-1, 3), 0, sympy.Integer(0), 2)] == [-1, 0, 0, 1]
    assert sgn(flint.arb(0)) == 0 and sgn(flint.arb(-2)) == -1


def test_xform_refuses_a_degree_past_the_limit_at_once():
    # exp(-eps * g) with g = 0.3's exact binary value 5404319552844595 / 2**54: x =
    # exp(-eps/2**54) would need degree 5404319552844595: refused before any Poly is built
    eps = sympy.Rational(1, 2)
    g = sympy.Rational(5404319552844595, 2**54)
    probs = [sympy.exp(-eps * g) / 2, 1 - sympy.exp(-eps * g) / 2]
    with pytest.raises(ValueError, match=r"degree about \d+, above 200000"):
        xform_from_probabilities(probs, eps)
