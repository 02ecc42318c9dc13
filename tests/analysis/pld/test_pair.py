"""privacy_loss_distribution (exactdp/analysis/pld/pair.py) on a user's function mechanism."""

from __future__ import annotations

import sympy

import exactdp
from exactdp import mechanism_from_function


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
