"""analysis/engines/generic.py: the exact sympy engine (normalisation, comparisons)."""

from __future__ import annotations

import mpmath
import pytest
import sympy

import exactdp
from exactdp.analysis.engines.generic import normalised_by_construction

S, L, R = sympy.sqrt, sympy.log, sympy.Rational


def test_normalised_by_construction_is_an_identity_not_a_guess():
    w = [sympy.Integer(1), sympy.exp(-S(2)), 3 * sympy.exp(-L(5) / 2)]
    D = sympy.Add(*w)
    assert normalised_by_construction([v / D for v in w])
    assert normalised_by_construction([v / D for v in w] + [sympy.Integer(0)])
    # a numerator off by a tiny amount, a different normaliser, or no common one: not proved
    assert not normalised_by_construction([w[0] / D, w[1] / D, (w[2] + R(1, 10**40)) / D])
    assert not normalised_by_construction([w[0] / D, w[1] / D, w[2] / (D + 1)])
    assert not normalised_by_construction([R(1, 2), R(1, 2)])
    assert not normalised_by_construction([sympy.Integer(0)])


def _softmax_loss(scores, neighbour, rate):
    """max_r |ln(P_r(q)/P_r(q'))| of a softmax at 50 digits (mpmath, independent route)."""
    with mpmath.workdps(50):
        def probs(v):
            w = [mpmath.exp(rate * mpmath.mpf(sympy.N(x, 60))) for x in v]
            return [x / sum(w) for x in w]
        p, p2 = probs(scores), probs(neighbour)
        return max(abs(mpmath.log(a / b)) for a, b in zip(p, p2, strict=True))


# cases from a seeded random sample of sqrt / log scores that raised UndecidedSignError
# (issue 20): the first in the normalisation check, the others comparing two equal ratios
CASES = [
    (exactdp.ReportNoisyMax(R(3, 2), noise="gumbel"),
     [L(25), 2 * S(21), R(-1, 3), L(18), 3 * S(13)],
     [L(25), -1 + 2 * S(21), R(1, 6), L(18), 1 + 3 * S(13)], R(3, 4)),
    (exactdp.ExponentialMechanism(R(1, 3)), [2, L(24), -3, 3 * S(6), 5],
     [3, -1 + L(24), -4, R(1, 2) + 3 * S(6), R(11, 2)], R(1, 6)),
    (exactdp.ReportNoisyMax(1, noise="gumbel"), [R(-4, 3), L(5), 3 * S(22), 2 * S(17), L(10)],
     [R(-5, 6), L(5), -1 + 3 * S(22), -1 + 2 * S(17), R(1, 2) + L(10)], R(1, 2)),
]


@pytest.mark.parametrize("mech, q, q2, rate", CASES)
def test_softmax_losses_on_irrational_scores_are_decided(mech, q, q2, rate):
    res = exactdp.privacy_loss(mech, q, q2)
    want = _softmax_loss(q, q2, rate)
    with mpmath.workdps(50):
        assert abs(mpmath.mpf(sympy.N(res.value, 60)) - want) < mpmath.mpf(10) ** -40
    assert exactdp.check_dp(mech, q, q2).holds


def test_pf_privacy_loss_on_sqrt_scores_answers_fast_and_right():
    """Issue 20: privacy_loss of PF on five sqrt scores ran past 60 s (240 s and more in
    the issue): sympy's cancel of each display ratio over one generator per coin. Ratios
    beyond CANCEL_OPS_LIMIT operations are kept as they are (the same exact number); the
    loss equals max |ln(p/q)| of the mpmath view at 40 digits."""
    import time

    import mpmath
    import sympy

    import exactdp

    s = sympy.sqrt
    q = [-5 + s(5), -2 + s(6), s(14) - s(19), 3 * s(3), s(3)]
    nb = [-6 + s(5), -1 + s(6), s(14) - s(19) + 1, 3 * s(3), s(3)]
    pf = exactdp.PermuteAndFlip(1)
    t0 = time.process_time()
    res = exactdp.privacy_loss(pf, q, nb)
    assert time.process_time() - t0 < 30  # ~1 s unloaded (was > 60 s)
    with mpmath.workdps(45):
        p, r = pf.distribution(q).evalf(40), pf.distribution(nb).evalf(40)
        ref = max(abs(mpmath.log(a / b)) for a, b in zip(p, r, strict=True))
        assert abs(mpmath.mpf(sympy.N(res.loss, 40)) - ref) < mpmath.mpf(10) ** -35
    assert res.output == 0


def test_a_ratio_of_steep_exponentials_is_kept_as_it_is():
    """RNM-Laplace (scale 2) on (10**6, 0) vs (999999, 1): output 1's probability is
    ``e^(-g/2) (1 + g/4) / 2`` for the gap g (the difference of two Laplace noises), so the
    loss is ``ln(e (1 + 999998/4) / (1 + 10**6/4)) = ln(500001 e / 500002)``; ``cancel``
    would build polynomials of degree 10**6 in ``exp(1/2)`` (over a minute), and is
    skipped: the same exact number in under a second."""
    import time

    import exactdp
    from exactdp.analysis.engines.generic import _steep

    start = time.process_time()
    loss = exactdp.privacy_loss(exactdp.ReportNoisyMax(epsilon=1, noise="laplace"),
                                [10**6, 0], [999999, 1])
    assert time.process_time() - start < 20
    assert sympy.simplify(loss.loss - sympy.log(500001 * sympy.E / 500002)) == 0
    assert _steep(sympy.exp(-500000) / (1 + sympy.exp(sympy.Rational(-1, 2))))
    assert not _steep(sympy.exp(-3) / (1 + sympy.exp(sympy.Rational(-1, 2))))
