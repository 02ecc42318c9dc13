"""privacy_loss_distribution (exactdp/analysis/pld/pair.py) on a user's function mechanism."""

from __future__ import annotations

import sympy

import exactdp
from exactdp import mechanism_from_function

from ..test_outputs import overlap


def _randomized_response(q, eps):
    """Report the better of two outputs with probability e^eps / (1 + e^eps)."""
    e = sympy.exp(eps)
    if q[0] >= q[1]:
        return [e / (1 + e), 1 / (1 + e)]
    return [1 / (1 + e), e / (1 + e)]


RR = mechanism_from_function(_randomized_response, epsilon=1)
E = sympy.E


def _contains(ball, value) -> bool:
    return ball.contains(exactdp.exact.to_arb(value, 200))


def test_randomized_response_pld_by_hand():
    """Issue 20: these raised AttributeError ('_XForm' has no attribute 'L').

    The loss ln(P_r/Q_r) of (1, 0) against (0, 1) is +1 w.p. p = e/(1+e) and -1 w.p. 1 - p,
    so delta(0) = p (1 - e^-1) = (e-1)/(e+1) = tanh(1/2). Two rounds: loss 2 w.p. p^2, 0 and
    -2 otherwise, so delta_2(1) = p^2 (1 - e^-1) = e (e-1)/(e+1)^2.
    """
    pld = exactdp.privacy_loss_distribution(RR, [1, 0], [0, 1])
    one = pld.delta(0)
    assert one.certified and _contains(one.ball, (E - 1) / (E + 1))
    assert abs(float(one.ball.mid()) - 0.46211715726000974) < 1e-14  # tanh(1/2)
    two = pld.self_compose(2).delta(1)
    assert _contains(two.ball, E * (E - 1) / (E + 1) ** 2)
    bound = exactdp.composition_lower_bound(RR, [1, 0], 2, 1)
    assert _contains(bound.delta.ball, E * (E - 1) / (E + 1) ** 2)
    check = exactdp.check_accountant(RR, [1, 0], 2, [1], claims=["basic", "kov"])
    assert check.holds


def test_sparse_vector_pld_is_the_enumerated_law_of_its_answer_sequences():
    """The output space of SparseVector is the answer sequences (2**m of them, not m):
    delta(eps) against the direct sum over every sequence of max(0, P - e^eps Q) at 30
    digits, and the infinite-loss mass against the sequences impossible under Q."""
    import mpmath

    for variant, a, b in [(6, [1, 1, 1, 1], [2, 2, 0, 0]), (1, [1, 0, 2], [2, 1, 1]),
                          (5, [0, 0], [1, -1])]:
        mech = exactdp.SparseVector("1/2", 1 if variant != 5 else 0, variant=variant)
        pld = exactdp.privacy_loss_distribution(mech, a, b)
        P = mech.distribution(a).evalf(30)
        Q = mech.distribution(b).evalf(30)
        assert len(P) == 2 ** len(a) or variant == 1
        with mpmath.workdps(30):
            for eps in (0, sympy.Rational(1, 10), sympy.Rational(1, 2)):
                bound = mpmath.exp(mpmath.mpf(sympy.N(eps, 40)))
                ref = sum(max(0, p - bound * q) for p, q in zip(P, Q, strict=True))
                assert abs(mpmath.mpf(str(pld.delta(eps).evalf(25))) - ref) < 1e-24
            inf_mass = sum(p for p, q in zip(P, Q, strict=True) if q == 0)
            assert abs(mpmath.mpf(str(sympy.N(pld.p_inf, 30))) - inf_mass) < 1e-25
            minus_inf = sum(q for p, q in zip(P, Q, strict=True) if p == 0)
            assert abs(mpmath.mpf(str(sympy.N(pld.q_ninf, 30))) - minus_inf) < 1e-25
    assert minus_inf > 0  # Algorithm 5: equal answers are never answered differently


def _hockey_stick(P, Q, t):
    """sum_r max(P_r - e^t Q_r, 0) over every output, P and Q dicts by (type, output)."""
    keys = set(P) | set(Q)
    return sum(sympy.Max(P.get(k, 0) - sympy.exp(t) * Q.get(k, 0), 0) for k in keys)


def test_different_output_sets_put_their_mass_at_infinite_loss():
    """(1,) -> (0,): True is reached on (1,) only, so delta(t) >= P(True) = 1/2 for every t
    (by hand, over the outputs by value: 1/2 + max(1/2 - e^t (1 - e^-1/2), 0) = 1/2 for
    t >= 0); (0,) -> (1,): the output 1 carries e^-1/2, delta(0) = 1/2, delta(1) = e^-1/2."""
    m = overlap(epsilon=1)
    by_value = {
        v: {(type(o), o): p for o, p in zip(m.distribution([v]).outputs,
                                             m.distribution([v]).probabilities, strict=True)}
        for v in (0, 1)}
    half = sympy.Rational(1, 2)
    pld = exactdp.privacy_loss_distribution(m, [1], [0])
    assert pld.p_inf == half
    for t in (0, 1, 5):
        assert sympy.simplify(pld.delta(t).value - half) == 0
        assert sympy.simplify(_hockey_stick(by_value[1], by_value[0], t) - half) == 0
    back = exactdp.privacy_loss_distribution(m, [0], [1])
    assert sympy.simplify(back.p_inf - sympy.exp(-1) / 2) == 0
    for t, want in ((0, half), (1, sympy.exp(-1) / 2), (5, sympy.exp(-1) / 2)):
        assert sympy.simplify(back.delta(t).value - want) == 0
        assert sympy.simplify(_hockey_stick(by_value[0], by_value[1], t) - want) == 0
