"""The x-form engine's ball pre-filter (issue 21): every comparison it decides by balls is
the one the exact polynomial sign gives, ties included, and check_dp's verdict, loss and
witness are the same with the pre-filter off.

Independent route: the same engine with ``_filtering`` off decides every comparison by the
exact sign of one polynomial (``sign_at`` with the Lindemann-Weierstrass zero test), the
route used before the pre-filter existed; and a float64 loss by numpy softmax.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import flint
import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp import ExponentialMechanism, PermuteAndFlip, check_dp
from exactdp.analysis.common import score_vector
from exactdp.analysis.engines.select import make_engine
from exactdp.analysis.engines.xform import FlintForms, Ratio, XEngine

vectors = st.lists(st.integers(-4, 4), min_size=2, max_size=6)
MECHANISMS = {"PF": PermuteAndFlip(1), "EM": ExponentialMechanism(sympy.Rational(1, 3))}


def engine_for(mech, qs) -> XEngine:
    engine = make_engine(mech, [score_vector(q, "scores", "test") for q in qs], "test")
    assert isinstance(engine, XEngine) and engine._filtering
    return engine


def ratios(engine: XEngine, i: int, j: int) -> list:
    """The ratios ``p_r / p'_r`` of two vectors' non-zero probabilities, both ways."""
    out = []
    for a, b in zip(engine.probs[i], engine.probs[j], strict=True):
        if not (engine.is_zero(a) or engine.is_zero(b)):
            R = engine.ratio(a, b)
            out += [R, engine.inv(R)]
    return out


def exact_twin(engine: XEngine) -> XEngine:
    twin = XEngine(engine.eps, engine.N, engine.probs)
    twin._filtering = False
    return twin


@pytest.mark.parametrize("name", MECHANISMS)
@settings(max_examples=25, deadline=None)
@given(q=vectors, data=st.data())
def test_ball_decisions_equal_exact_signs(name, q, data):
    q2 = data.draw(st.lists(st.integers(-4, 4), min_size=len(q), max_size=len(q)))
    engine = engine_for(MECHANISMS[name], [q, q2, q])  # the third: ties with the first
    exact = exact_twin(engine)
    for i, j in itertools.combinations(range(3), 2):
        for a, b in zip(engine.probs[i], engine.probs[j], strict=True):
            assert engine.cmp_prob(a, b) == exact.cmp_prob(a, b)
    both = ratios(engine, 0, 1) + ratios(engine, 0, 2)
    assert all(isinstance(R, Ratio) and R.ball is not None for R in both)
    for R in both:
        assert engine.cmp_one(R) == exact.cmp_one(R)
        assert engine.cmp_one(engine.inv(R)) == exact.cmp_one(engine.inv(R))
        assert engine.cmp_exp(R, engine.eps) == exact.cmp_exp(R, engine.eps)
    for R1, R2 in itertools.product(both, repeat=2):
        assert engine.cmp(R1, R2) == exact.cmp(R1, R2)


def test_exact_ties_go_to_the_exact_sign():
    # PF on two items: Pr[1] = x^g / 2, so gaps 10 and 12 give the ratio x^-2 = e^eps
    # exactly (x = exp(-eps/2)): the balls of ratio and e^eps overlap, the exact polynomial
    # decides 0
    engine = engine_for(PermuteAndFlip(1), [[0, -10], [1, -11]])
    R = engine.ratio(engine.probs[0][1], engine.probs[1][1])  # (x^10 / 2) / (x^12 / 2)
    assert engine.cmp_exp(R, engine.eps) == 0
    assert engine.cmp_exp(R, engine.eps * 2) == -1 and engine.cmp_exp(R, engine.eps / 2) == 1
    assert check_dp(PermuteAndFlip(1), [0, -10], [1, -11]).loss == 1
    again = engine.ratio(engine.probs[0][1], engine.probs[1][1])  # new polynomials, same value
    assert {engine.cmp(R, again), engine.cmp(R, engine.inv(again))} == {0, 1}


@pytest.mark.parametrize("name", MECHANISMS)
def test_check_dp_same_with_the_filter_off(name, monkeypatch):
    mech = MECHANISMS[name]
    q = [int(v) for v in np.random.default_rng(5).integers(0, 5, 9)]
    fast = check_dp(mech, q)
    monkeypatch.setattr(XEngine, "_prob_ball", lambda self, p: None)  # no balls: exact only
    slow = check_dp(mech, q)
    assert (fast.holds, fast.loss, fast.witness) == (slow.holds, slow.loss, slow.witness)
    assert fast.neighbours_checked == slow.neighbours_checked == 20


def test_check_dp_loss_against_softmax():
    eps = sympy.Rational(1, 3)
    q = [0, 2, 2, 5, 1, 4]
    res = check_dp(ExponentialMechanism(eps), q)
    p = np.exp(float(eps) / 2 * np.array(res.witness.scores, dtype=float))
    p2 = np.exp(float(eps) / 2 * np.array(res.witness.neighbour, dtype=float))
    p, p2 = p / p.sum(), p2 / p2.sum()
    assert abs(float(res) - float(np.abs(np.log(p / p2)).max())) < 1e-12
    assert res.holds and float(res) < float(eps)


@pytest.mark.parametrize("name", MECHANISMS)
@settings(max_examples=15, deadline=None)
@given(q=vectors, data=st.data())
def test_loss_expression_equals_sympys_full_cancel(name, q, data):
    # to_sympy reduces by the flint gcd and skips cancel's sign pre-pass: the same
    # expression (==, same structure) as sympy's cancel of the unreduced ratio
    from exactdp.analysis.common import X
    from exactdp.exact.poly import fmpq_poly_to_sympy

    q2 = data.draw(st.lists(st.integers(-4, 4), min_size=len(q), max_size=len(q)))
    engine = engine_for(MECHANISMS[name], [q, q2])
    for R in ratios(engine, 0, 1):
        u, v = (fmpq_poly_to_sympy(p, X).as_expr() for p in R)
        want = sympy.powsimp(sympy.cancel(u / v).subs(X, engine.x_value))
        got = engine.to_sympy(R)
        assert got == want and sympy.srepr(got) == sympy.srepr(want)


def test_canonical_pair_is_sympy_cancel_normal_form():
    """The flint normal form of the final ratio equals sympy.cancel's (same srepr), on
    random coprime pairs with rational coefficients, constants and negative leading terms."""
    import random

    import flint
    import sympy

    from exactdp.analysis.common import X
    from exactdp.analysis.engines.xform import canonical_pair
    from exactdp.exact.poly import fmpq_poly_to_sympy

    rnd = random.Random(21)

    def poly(d):
        return flint.fmpq_poly([flint.fmpq(rnd.randint(-30, 30) * rnd.choice([1, 2, 6]),
                                           rnd.choice([1, 2, 3, 4, 9])) for _ in range(d + 1)])

    checked = 0
    for _ in range(400):
        a, b = poly(rnd.randint(0, 6)), poly(rnd.randint(0, 6))
        if a == 0 or b == 0:
            continue
        g = a.gcd(b)
        num, den = a // g, b // g
        ref = sympy.cancel(fmpq_poly_to_sympy(num, X).as_expr()
                           / fmpq_poly_to_sympy(den, X).as_expr(), _signsimp=False)
        P, Q = canonical_pair(num, den)
        got = fmpq_poly_to_sympy(flint.fmpq_poly(P), X).as_expr()
        if Q != 1:
            got = got / fmpq_poly_to_sympy(flint.fmpq_poly(Q), X).as_expr()
        assert sympy.srepr(got) == sympy.srepr(ref)
        checked += 1
    assert checked > 300


def test_dense_keeps_a_constant_at_any_power():
    # epsilon = 10**-400 makes the common generator's power 10**400: a constant form is
    # itself (flint's inflate takes a C long), a linear one is x**power
    one, half = flint.fmpq_poly([1]), flint.fmpq_poly([1, 1])
    forms = FlintForms([(one, one)])
    assert forms.dense(10**400)[0] == (one, one)
    assert FlintForms([(half, one)]).dense(3)[0][0] == flint.fmpq_poly([1, 0, 0, 1])


def test_a_ratio_whose_gcd_densifies_stays_sparse():
    """EM(1) on (45781/1850, 0) against (45781/1850 + 1, 0): in x = exp(-1/3700) the
    ratio is (1 + x**98962)/(x**3700 + x**98962) up to x-powers, whose gcd 1 + x**2 would
    leave 49481 terms (minutes of sympy); the loss is exact, two terms each side, and
    equals the closed form max |log p(d)/p(d + 1)| over both outputs, p(d) =
    e**(-d/2)/(1 + e**(-d/2)), in mpmath at 30 digits."""
    import mpmath

    from exactdp import privacy_loss

    q0 = Fraction(45781, 1850)
    loss = privacy_loss(ExponentialMechanism(1), [q0, 0], [q0 + 1, 0])
    assert len(loss.value.atoms(sympy.exp)) <= 3
    with mpmath.workdps(30):
        d = mpmath.mpf(q0.numerator) / q0.denominator

        def p(t):
            return mpmath.exp(-t / 2) / (1 + mpmath.exp(-t / 2))

        want = max(abs(mpmath.log(p(d) / p(d + 1))),
                   abs(mpmath.log((1 - p(d)) / (1 - p(d + 1)))))
        assert abs(sympy.N(loss.value, 30) - sympy.Float(str(want), 30)) < 1e-25
