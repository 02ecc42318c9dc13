"""exactdp.exact.unit_interval: exact signs of polynomials on (0, 1) and root isolation."""

from fractions import Fraction

import flint
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.exact.poly import Y, as_fmpq_poly
from exactdp.exact.unit_interval import (
    descartes_bound,
    has_unit_root,
    is_nonnegative_on_unit_interval,
    sign_on_unit_interval,
    unit_sign,
    verify_sign_analysis,
)

x = Y
R = sympy.Rational


def test_known_pattern_roots_signs_and_negative_intervals():
    p = (x - R(1, 3)) ** 2 * (x - R(1, 2)) * (x - R(3, 4))
    a = sign_on_unit_interval(p)
    assert a.algorithm == "isolation"
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
    assert a.algorithm == "descartes" and a.positive
    assert descartes_bound(as_fmpq_poly(1 + x, x)) == 0
    assert descartes_bound(as_fmpq_poly((x - R(1, 2)) * (x - R(1, 3)), x)) == 2


def test_verify_rejects_a_tampered_analysis():
    a = sign_on_unit_interval((x - R(1, 2)) * (x - R(3, 4)))
    bad = type(a)(a.poly, a.roots, tuple(-s for s in a.signs), a.algorithm)
    assert not verify_sign_analysis(bad)
    bad_roots = type(a)(a.poly, a.roots[:1], a.signs[:2], a.algorithm)
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


def test_descartes_bound_and_nonnegativity_against_known_roots():

    y = flint.fmpq_poly([0, 1])
    # (y - 1/2)(y - 1/3)(y + 1): two roots in (0, 1)
    p = (y - flint.fmpq(1, 2)) * (y - flint.fmpq(1, 3)) * (y + 1)
    b = descartes_bound(p)
    assert b >= 2 and b % 2 == 0
    assert descartes_bound((y + 1) * (y + 2)) == 0
    Y = sympy.Symbol("y", positive=True)
    assert is_nonnegative_on_unit_interval((Y - R(1, 2)) ** 2)
    assert not is_nonnegative_on_unit_interval((Y - R(1, 2)) * (Y - R(1, 3)))


def test_double_root_is_decided_by_isolation():
    # (y - 1/2)^2 >= 0 with a double root at 1/2: decided by root isolation
    a = sign_on_unit_interval((Y - R(1, 2)) ** 2)
    assert a.algorithm == "isolation" and a.nonnegative and a.exact_roots() == (R(1, 2),)


# ------------------------------------------------------------- mutants that lived (issue 20)
def test_fmpq_poly_input_and_the_zero_polynomial():
    """3x - 1 has its root at 1/3 (negative before, positive after)."""
    res = sign_on_unit_interval(flint.fmpq_poly([-1, 3]))
    assert res.poly.gen == x and res.exact_roots() == (R(1, 3),)
    assert res.signs == (-1, 1) and verify_sign_analysis(res)
    zero = sign_on_unit_interval(sympy.Integer(0) * x)
    assert zero.algorithm == "zero" and verify_sign_analysis(zero)


def test_verify_a_high_degree_descartes_claim():
    """x^30 + 1 > 0 on (0, 1): Descartes' rule, re-verified by isolation above degree 24."""
    res = sign_on_unit_interval(x**30 + 1)
    assert res.algorithm == "descartes" and res.signs == (1,)
    assert verify_sign_analysis(res)


def test_verify_isolating_intervals_that_share_ends():
    """Roots 1/3, 1/sqrt 8 = 0.3536, sqrt(2/15) = 0.3651 (and 1/2, 1/sqrt 3, 3/4): sympy's
    isolating intervals touch; the re-verification separates them, and the signs between
    the known roots are those of p at the midpoints."""
    cases = [
        ((2 * x**2 - R(1, 4)) * (3 * x**2 - R(1, 3)) * (5 * x**2 - R(2, 3)),
         [R(1, 3), 1 / sympy.sqrt(8), sympy.sqrt(R(2, 15))]),
        ((x - R(3, 4)) * (x**2 - R(1, 3)) * (x**2 - R(1, 4)),
         [R(1, 2), 1 / sympy.sqrt(3), R(3, 4)]),
    ]
    for p, roots in cases:
        res = sign_on_unit_interval(sympy.Poly(sympy.expand(p), x))
        assert verify_sign_analysis(res) and len(res.roots) == 3
        edges = [0] + sorted(roots, key=float) + [1]
        pieces = zip(edges[:-1], edges[1:], strict=True)
        expect = tuple(int(sympy.sign(p.subs(x, (lo + hi) / 2))) for lo, hi in pieces)
        assert res.signs == expect


def test_negative_intervals_stop_at_an_even_root():
    # -(x - 1/2)^2 is < 0 on (0, 1) except at 1/2, where it is 0: two intervals, not one
    a = sign_on_unit_interval(-((x - R(1, 2)) ** 2))
    assert a.signs == (-1, -1)
    assert a.negative_intervals() == ((0, R(1, 2)), (R(1, 2), 1))
    assert a.nonnegative is False and a.constant_sign == -1
    # a negative piece, an even root, another negative piece, a sign change, a positive one
    b = sign_on_unit_interval((x - R(1, 3)) ** 2 * (x - R(3, 4)))
    assert b.signs == (-1, -1, 1)
    assert b.negative_intervals() == ((0, R(1, 3)), (R(1, 3), R(3, 4)))
    # an irrational even root stays exact at both interval ends
    c = sign_on_unit_interval(-((2 * x**2 - 1) ** 2))
    r = sympy.sqrt(2) / 2
    assert c.negative_intervals() == ((0, r), (r, 1))
    assert verify_sign_analysis(a) and verify_sign_analysis(b) and verify_sign_analysis(c)


@settings(max_examples=60, deadline=None)
@given(st.lists(fractions01, min_size=0, max_size=5), st.sampled_from([1, -1, 0]))
def test_unit_sign_and_roots_agree_with_the_full_analysis(roots, lead):
    """unit_sign / has_unit_root (flint only when Descartes' rule proves no root) against
    sign_on_unit_interval's constant sign and roots, on products of known linear factors
    (the zero polynomial too)."""
    p = lead * sympy.Mul(*[(x - R(r.numerator, r.denominator)) for r in roots])
    f = as_fmpq_poly(sympy.Poly(sympy.expand(p), x, domain="QQ"), x)
    full = sign_on_unit_interval(f)
    assert unit_sign(f) == full.constant_sign
    assert has_unit_root(f) == bool(full.roots)
    inside = any(0 < r < 1 for r in roots)
    assert has_unit_root(f) == (lead != 0 and inside)
