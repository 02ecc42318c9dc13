"""exactdp/analysis/engines/select.py: which engine holds a mechanism's probabilities."""

from __future__ import annotations

import warnings

import pytest
import sympy

from exactdp import ExponentialMechanism, GaussianNoisyMax, PermuteAndFlip, ReportNoisyMax
from exactdp.analysis.engines.select import make_engine, output_count, pf_tree_gaps
from exactdp.scores import ScoreVector

VECTORS = [ScoreVector.from_input([3, 1, 0]), ScoreVector.from_input([2, 2, 0])]


@pytest.mark.parametrize(("mech", "engine"), [
    (PermuteAndFlip(1), "LazyXEngine"),  # x = exp(-eps/2): balls, flint forms on demand
    (ExponentialMechanism(1), "XEngine"),
    (ReportNoisyMax(1, noise="laplace"), "XEngine"),  # exp-polynomial, rational in x too
    (GaussianNoisyMax(2), "BallEngine"),  # no exact probabilities: certified balls
])
def test_the_engine_follows_the_distributions_capabilities(mech, engine):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = make_engine(mech, VECTORS, "f")
    assert type(e).__name__ == engine
    assert len(e.probs) == 2
    for p, v in zip(e.probs, VECTORS, strict=True):
        assert len(p) == output_count(mech.distribution(v.values), v) == 3


def test_pf_tree_gaps_are_the_sorted_integer_gaps_of_pf_only():
    # q* - q of (3, 1, 0) is (0, 2, 3); of (2, 2, 0) it is (0, 0, 2) (sensitivity 1, L = 1)
    assert pf_tree_gaps(PermuteAndFlip(1), VECTORS) == [(0, 0, 2), (0, 2, 3)]
    assert pf_tree_gaps(ExponentialMechanism(1), VECTORS) == []  # no product tree declared


def test_a_releasing_mechanism_has_no_table_to_run_on():
    with pytest.raises(ValueError, match=r"^f: .* releases real values \(output kind "
                                         r"'release'\)"):
        make_engine(ReportNoisyMax(1, noise="laplace", output="value"), VECTORS, "f")


def test_vectors_reaching_different_outputs_are_refused_not_misaligned():
    """A program whose output is decided without noise reaches (False,) on q = (0,) and
    (True,) on (1,): its loss is infinite (each output has probability 1 under one vector,
    0 under the other), and position-wise comparison would read 0. Refused in one line,
    naming both vectors and an output reached on one only; the same for a coin of
    probability 0 (incorrect randomized response at epsilon 1 flips nothing)."""
    import exactdp
    from exactdp.programs import library as L
    from exactdp.programs import program

    @program(adjacency="one", domain=(0, 1))
    def reveal(q, epsilon):
        return q[0] == 1

    assert reveal(epsilon=1).distribution([0]).outputs == (False,)
    assert reveal(epsilon=1).distribution([1]).outputs == (True,)
    with pytest.raises(ValueError, match=r"^privacy_loss: reveal reaches different outputs on "
                       r"\(0,\) and \(1,\) \(for example True on one only\)"):
        exactdp.privacy_loss(reveal(epsilon=1), [0], [1])
    with pytest.raises(ValueError, match="^check_dp: randomized_response_incorrect reaches "
                       "different outputs"):
        exactdp.check_dp(L.randomized_response_incorrect(epsilon=1), [0])
    # at epsilon 9/10 every output is reached on both: the exact loss ln 19 (by hand:
    # flip probability 1/20, ratio (19/20) / (1/20))
    loss = exactdp.privacy_loss(L.randomized_response_incorrect(epsilon=sympy.Rational(9, 10)),
                                [0], [1])
    assert sympy.simplify(loss.value - sympy.log(19)) == 0
