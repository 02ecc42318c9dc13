"""The polynomial route of report-noisy-max's released value
(exactdp.mechanisms.noisy_max_loss), which serves pairs with more distinct scores than the
program engine computes quickly: the same exact loss as the engine where both run, and as
closed forms (epsilon/2 per moved top score for Laplace noise)."""

from __future__ import annotations

import sympy

import exactdp


def test_many_distinct_scores_take_the_polynomial_route_with_the_same_loss():
    """A fresh user's trial: 20 distinct scores ran over 60 s CPU in the engine with no
    refusal. Beyond ENGINE_MAX_SCORES distinct scores the polynomial route answers; at the
    boundary both routes give the same exact loss."""
    import time

    from exactdp.mechanisms.noisy_max_loss import value_loss_supremum
    from exactdp.mechanisms.noisy_max_value_engine import ENGINE_MAX_SCORES
    from exactdp.scores import as_scores

    for noise in ("laplace", "exponential"):
        m = exactdp.ReportNoisyMax(1, noise=noise, output="value")
        q = list(range(ENGINE_MAX_SCORES - 1))
        q2 = [1, *q[1:]]
        sv, sv2 = as_scores(q, "q"), as_scores(q2, "q2")
        engine = exactdp.privacy_loss(m, q, q2)  # at most ENGINE_MAX_SCORES: the engine
        poly = value_loss_supremum(m, noise, sv, sv2, "test")
        assert sympy.simplify(engine.loss - poly.loss) == 0
        assert engine.attained == poly.attained
    m = exactdp.ReportNoisyMax(1, noise="laplace", output="value")
    direct = value_loss_supremum(m, "laplace", as_scores([0, 0, 0], "q"),
                                 as_scores([1, 1, 1], "q2"), "test")
    assert direct.loss == sympy.Rational(3, 2) and direct.attained  # n eps / 2, attained
    q = list(range(20))
    start = time.process_time()
    loss = exactdp.privacy_loss(m, q, [1, *q[1:]])
    assert time.process_time() - start < 20  # 0.3 s idle; over 60 s before
    assert loss.loss == sympy.Rational(1, 2)  # the top score is unmoved: eps/2, as at n = 5
