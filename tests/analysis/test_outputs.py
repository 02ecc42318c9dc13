"""exactdp/analysis/outputs.py: aligning distributions over the union of their outputs."""

from __future__ import annotations

import flint
import mpmath

from exactdp.analysis.engines.ball import BallEngine
from exactdp.analysis.outputs import (
    OutputUnion,
    PaddedBalls,
    output_key,
    output_union,
    probabilities_over,
)
from exactdp.programs import laplace, program


def test_output_keys_tell_true_from_one_element_by_element():
    assert output_key(True) != output_key(1)
    assert output_key((True, None)) != output_key((1, None))
    assert output_key((False, (None, 2))) == output_key((False, (None, 2)))
    assert output_key(0) != output_key(False)


def test_the_same_outputs_in_the_same_order_need_no_alignment():
    assert output_union([((True,), (False,)), ((True,), (False,)), ((True,), (False,))]) is None


def test_outputs_in_another_order_are_aligned_by_value_not_position():
    u = output_union([("a", "b", "c"), ("c", "a", "b")])
    assert isinstance(u, OutputUnion)
    assert u.outputs == ("a", "b", "c")
    # vector 1 lists c, a, b: a is its position 1, b its 2, c its 0
    assert u.positions == ((0, 1, 2), (1, 2, 0))
    assert u.align(1, ["pc", "pa", "pb"], 0) == ["pa", "pb", "pc"]


def test_the_union_lists_the_first_vectors_outputs_then_the_new_ones():
    # (False,) on the first vector only, (None,) on the third only, True and 1 differ
    u = output_union([((True,), (False,)), ((True,), 1), ((None,), (True,))])
    assert u is not None
    assert u.outputs == ((True,), (False,), 1, (None,))
    assert u.positions == ((0, 1, None, None), (0, None, 1, None), (1, None, None, 0))
    assert u.align(2, ["p_none", "p_true"], 0) == ["p_true", 0, 0, "p_none"]


class _Dist:
    def __init__(self, outputs, probabilities, balls=None):
        self.outputs, self.probabilities, self._balls = outputs, probabilities, balls
        self.balls_certified = (True, None)

    def evalf_balls(self, dps):
        return self._balls


def test_probabilities_over_stored_outputs_and_an_output_not_stored():
    d = _Dist(((False,), (True,)), ("p0", "p1"))
    assert probabilities_over(((True,), (None,), (False,)), d, 0) == ["p1", 0, "p0"]
    assert probabilities_over(((True,),), d, 0) is None  # reaches (False,), not stored


def test_padded_balls_put_an_exact_zero_where_a_vector_does_not_reach():
    half = flint.arb(1) / 2
    u = output_union([(True, False), (False, None)])
    assert u is not None
    d = _Dist((False, None), (), (half, half))
    padded = PaddedBalls(d, u, 1)
    assert padded.balls_certified == (True, None)
    balls = padded.evalf_balls(30)
    assert len(balls) == 3  # True, False, None
    assert balls[0].is_exact() and balls[0].is_zero()
    assert balls[1] is half and balls[2] is half


@program(adjacency="one", domain=(0, 1))
def overlap(q, epsilon):
    """On q = (1,) True or False by a noisy test, on (0,) the integer 1 or False: the
    output sets overlap in False only (1 is not True). Laplace(1/eps) has P(L >= t) =
    e^(-eps t)/2, t >= 0: on (1,) P(True) = P(False) = 1/2; on (0,) P(1) = e^-eps/2,
    P(False) = 1 - e^-eps/2. (The other analyses' tests import it.)"""
    noisy = q[0] + laplace(1 / epsilon) >= 1
    if q[0] == 1:
        return True if noisy else False
    return 1 if noisy else False


def test_the_ball_engine_reads_padded_balls_over_the_union():
    """The certified route (a program past the exact cost limit falls back to balls): over
    (True, False, 1) the log-ratios from (1,) to (0,) are +oo (True: 0 on (0,)), the finite
    ln((1/2)/(1 - e^-1/2)) at False (by hand, mpmath at 40 digits), and -oo (1)."""
    m = overlap(epsilon=1)
    dists = [m.distribution([1]), m.distribution([0])]
    u = output_union([d.outputs for d in dists])
    assert u is not None and u.outputs == (True, False, 1)
    e = BallEngine([PaddedBalls(d, u, i) for i, d in enumerate(dists)], "f", "overlap")
    e.check_normalised(0, "f", "overlap", (1,))
    e.check_normalised(1, "f", "overlap", (0,))
    assert e.is_zero(e.probs[1][0]) and e.is_zero(e.probs[0][2])
    old = flint.ctx.dps
    flint.ctx.dps = 30  # log_ratios works at the caller's precision
    try:
        logs = e.log_ratios(0, 1, 30)
    finally:
        flint.ctx.dps = old
    assert str(logs[0]) == "oo" and str(logs[2]) == "-oo"
    with mpmath.workdps(40):
        want = mpmath.log(mpmath.mpf(1) / 2 / (1 - mpmath.exp(-1) / 2))
        mid = mpmath.mpf(logs[1].mid().str(40, radius=False))
        assert abs(mid - want) < mpmath.mpf(10) ** -28
        assert mpmath.mpf(logs[1].rad().str(5, radius=False)) < mpmath.mpf(10) ** -28

