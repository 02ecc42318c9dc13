"""exactdp/analysis/engines/select.py: which engine holds a mechanism's probabilities."""

from __future__ import annotations

import warnings

import pytest
import sympy

import exactdp
import exactdp.analysis.engines.select as S
from exactdp import ExponentialMechanism, GaussianNoisyMax, PermuteAndFlip, ReportNoisyMax
from exactdp.analysis.engines.select import (
    ENGINE_PASSES,
    make_engine,
    output_count,
    pf_tree_gaps,
)
from exactdp.programs import library as L
from exactdp.programs import program
from exactdp.progress import NoBar
from exactdp.scores import ScoreVector, as_scores

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


@program(adjacency="one", domain=(0, 1))
def reveal(q, epsilon):
    """Its output is decided without noise: (False,) on q = (0,), (True,) on (1,)."""
    return q[0] == 1


def test_vectors_reaching_different_outputs_are_aligned_over_their_union():
    """Each vector's output has probability 1 there and 0 on the other vector: the engine
    holds both over the union (False, True), by output value, never by position (which
    would pair False with True and read a loss of 0)."""
    m = reveal(epsilon=1)
    assert m.distribution([0]).outputs == (False,)
    assert m.distribution([1]).outputs == (True,)
    e = make_engine(m, [ScoreVector.from_input([0]), ScoreVector.from_input([1])], "f")
    assert e.outputs == (False, True)
    probs = [[e.prob_sympy(p) for p in row] for row in e.probs]
    assert probs == [[1, 0], [0, 1]]
    assert e.is_zero(e.probs[0][1]) and e.is_zero(e.probs[1][0])


class _Reversed:
    """A distribution's outputs and exact probabilities listed in the reverse order."""

    def __init__(self, dist):
        self.outputs = tuple(reversed(dist.outputs))
        self.probabilities = tuple(reversed(tuple(dist.probabilities)))
        self.capabilities = frozenset({"exact"})


def test_the_same_outputs_in_another_order_align_by_value(monkeypatch):
    """Randomized response on two bits at epsilon 1/2 (a sequence of four outputs), the
    neighbour's distribution listed backwards: the same loss, at the same output, as in
    the canonical order. By hand: each bit is kept with probability e^(1/2)/(1 + e^(1/2)),
    so moving one bit changes the probability of every output by e^(+-1/2): loss 1/2."""
    m = L.randomized_response(epsilon=sympy.Rational(1, 2))
    q, q2 = [0, 1], [1, 1]
    plain = exactdp.privacy_loss(m, q, q2)
    first = m.distribution(q)
    monkeypatch.setattr(S, "distribution_of", lambda mech, v: (
        first if list(v.values) == q else _Reversed(first.mechanism.distribution(v))))
    e = make_engine(m, [ScoreVector.from_input(q), ScoreVector.from_input(q2)], "f")
    assert e.outputs == first.outputs  # the union in q's order
    canonical = m.distribution(q2)
    assert canonical.outputs != _Reversed(canonical).outputs  # really listed otherwise
    for r, out in enumerate(e.outputs):  # each output's own probability on q2
        p = canonical.probabilities[canonical.outputs.index(out)]
        assert sympy.simplify(e.prob_sympy(e.probs[1][r]) - p) == 0
    flipped = exactdp.privacy_loss(m, q, q2)
    assert sympy.simplify(plain.value - sympy.Rational(1, 2)) == 0
    assert sympy.simplify(flipped.value - plain.value) == 0
    assert flipped.label == plain.label
    for a, b in zip(flipped.ratios, plain.ratios, strict=True):
        assert sympy.simplify(a - b) == 0


def test_a_top_k_loss_names_its_output_tuple():
    """The witness of a top-k pair is the ordered tuple itself, not its index in
    ``itertools.permutations`` order (index 5 of top-2 of 3 is (2, 1))."""
    from exactdp import PermuteAndFlip, TopK, check_dp, privacy_loss

    mech = TopK(PermuteAndFlip(1), 2)
    loss = privacy_loss(mech, [0, 1, 2], [1, 0, 1])
    assert loss.output == 5 and loss.label == (2, 1)
    assert "output=(2, 1)" in repr(loss)
    assert check_dp(mech, [0, 1, 2]).witness.output == (1, 0)


def test_make_engine_opens_its_own_bar_with_the_mechanisms_estimate(monkeypatch):
    """Without a caller's step, make_engine opens a bar over the vectors with the
    mechanism's own estimate (shown past 2 s on a terminal: bounded_range, check_zcdp);
    the engine's values are those of the call with a step."""
    seen = []

    def fake(total, desc, **kw):
        seen.append((total, desc, kw["seconds"]))
        return NoBar()

    monkeypatch.setattr(S, "progress_bar", fake)
    mech = ReportNoisyMax(1, noise="laplace")
    vectors = [as_scores([0, 1, 2]), as_scores([1, 0, 1])]
    own = make_engine(mech, vectors, "bounded_range")
    assert seen == [(2 * ENGINE_PASSES, "bounded_range", mech.analysis_seconds(vectors))]
    assert seen[0][2] > 0
    given = make_engine(mech, vectors, "bounded_range", step=lambda: None)
    assert len(seen) == 1  # a caller's step: no second bar
    assert own.probs == given.probs


def _pf_estimate(vectors) -> float:
    """check_pf_trees' estimate: the fitted product-tree model over the distinct trees."""
    from exactdp.pf_cost import pf_tree_product_seconds

    return sum(pf_tree_product_seconds(len(G), len(G) * (sum(G) + 1))  # n (sum G + 1)
               for G in pf_tree_gaps(PermuteAndFlip(1), vectors))


def test_pf_trees_seconds_is_the_fitted_model_over_the_trees():
    """The estimate of the distinct trees of 0..59 and its neighbours is the independent sum
    of the fitted model (n (sum G + 1) coefficients per tree); one gap over 60 scores is
    priced well under a second (check_dp's start line stays silent there)."""
    vectors = [as_scores(range(60))]
    trees = pf_tree_gaps(PermuteAndFlip(1), vectors)
    assert S.pf_trees_seconds(trees) == pytest.approx(_pf_estimate(vectors), rel=1e-12)
    assert S.pf_trees_seconds([(1,) + (0,) * 59]) < 1 < S.pf_trees_seconds(trees) * 100
    assert S.pf_trees_seconds([]) == 0


def test_check_dp_on_pf_at_moderate_n_runs_under_the_fitted_tree_estimate(monkeypatch):
    """check_dp on PF(1) and the scores 0..59 (q and its 2n + 2 = 122 neighbours, 121
    distinct gap tuples): the fitted model prices them at about 31 s, under the limit, and the check
    runs (PF is epsilon-DP, the loss attains epsilon); the Horner model said 228 s and
    refused. Its recorded measurements (docs/benchmarks.md, one tree of 0..n-1: 0.335 s at
    n = 60, 5.91 s at n = 120) grow 17.6x; the model's 16.1x is within 10% of that."""
    from exactdp.cost import SECONDS_LIMIT
    from exactdp.pf_cost import pf_tree_product_seconds

    seen = []
    real = S.check_pf_trees
    monkeypatch.setattr(S, "check_pf_trees", lambda f, m, vs: (seen.append(list(vs)),
                                                                real(f, m, vs)))
    result = exactdp.check_dp(PermuteAndFlip(1), list(range(60)))
    assert result.holds and result.loss == 1
    (vectors,) = seen
    assert len(vectors) == 123 and len(pf_tree_gaps(PermuteAndFlip(1), vectors)) == 121
    assert 25 < _pf_estimate(vectors) < SECONDS_LIMIT / 3

    def tree(n):
        return pf_tree_product_seconds(n, n * (n * (n - 1) // 2 + 1))

    assert tree(120) / tree(60) == pytest.approx(5.91 / 0.335, rel=0.1)
    assert tree(100) / tree(60) == pytest.approx(2.832 / 0.335, rel=0.15)


def _one_moves(n):
    """0..n-1 and its 2n neighbours moving one score by +-1."""
    q = list(range(n))
    out = [ScoreVector.from_input(q)]
    for i in range(n):
        for d in (1, -1):
            out.append(ScoreVector.from_input(q[:i] + [q[i] + d] + q[i + 1:]))
    return out


def test_pf_trees_past_the_limit_refuse_within_two_seconds():
    """0..89 and its 180 one-moves: about 235 s by the fitted model (181 trees of about
    1.3 s), refused at once naming the call, the estimate and the cheaper routes; 0..69
    (under the limit) passes."""
    import time

    from exactdp.cost import SECONDS_LIMIT, TooCostly

    big = _one_moves(90)
    assert SECONDS_LIMIT < _pf_estimate(big) < 3 * SECONDS_LIMIT
    t0 = time.process_time()
    with pytest.raises(TooCostly, match=r"^check_dp: the exact permute-and-flip polynomials "
                       r"of 181 score vectors of n = 90 outputs .* about 2\d\d s \(limit "
                       r"120 s\); pass the one neighbour"):
        S.check_pf_trees("check_dp", PermuteAndFlip(1), big)
    assert time.process_time() - t0 < 2.0
    small = _one_moves(70)
    assert _pf_estimate(small) < SECONDS_LIMIT
    S.check_pf_trees("check_dp", PermuteAndFlip(1), small)  # no refusal
    # end to end: privacy_loss at a symbolic epsilon takes the general route (a tree per
    # vector); two trees of 0..239, about 66 s each by the model (the model's 16x per
    # doubling of n on the 5.9 s measured at n = 120: about 95 s each), refused at once
    e = sympy.Symbol("e", positive=True)
    q = list(range(240))
    t0 = time.process_time()
    with pytest.raises(TooCostly, match=r"^privacy_loss: the exact permute-and-flip "
                       r"polynomials of 2 score vectors of n = 240 outputs .* about 132 s"):
        exactdp.privacy_loss(PermuteAndFlip(e), q, [1] + q[1:])
    assert time.process_time() - t0 < 2.0


def test_pf_signs_at_a_symbolic_epsilon_are_priced_and_refused_at_once():
    """privacy_loss of PF at a symbolic epsilon on 0..10 and a twelfth score 2000 steps up:
    the exact signs of polynomials of degree about 2 * 21,945 are estimated at about 140 s
    (0..10 and 1000: 36 s estimated, 35 s measured) and refused within 2 s CPU, naming the
    call, the estimate and the numeric epsilon; at a numeric epsilon they cost nothing."""
    import time

    from exactdp.analysis.engines.select import pf_signs_estimate
    from exactdp.cost import SECONDS_LIMIT, TooCostly

    e = sympy.Symbol("e", positive=True)
    q, q2 = [*range(11), 2000], [1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 1999]
    est = pf_signs_estimate(PermuteAndFlip(e), [as_scores(q), as_scores(q2)])
    assert SECONDS_LIMIT < est < 2 * SECONDS_LIMIT
    assert pf_signs_estimate(PermuteAndFlip(1), [as_scores(q), as_scores(q2)]) == 0.0
    t0 = time.process_time()
    with pytest.raises(TooCostly, match=r"^privacy_loss: the exact signs on \(0, 1\) of the "
                       r"permute-and-flip polynomials of 2 score vectors at a symbolic epsilon "
                       r".* about 1\d\d s \(limit 120 s\); give a numeric epsilon"):
        exactdp.privacy_loss(PermuteAndFlip(e), q, q2)
    assert time.process_time() - t0 < 2.0


def test_pf_loss_at_a_symbolic_epsilon_with_a_spread_score_is_its_numeric_value():
    """0..10 and 50 against a neighbour: over 100 s before (sympy's powsimp walks on each
    ratio of degree about 1000), now well under the start line; the symbolic loss at
    epsilon = 1 equals the numeric-epsilon route's loss (balls, another engine path)."""
    e = sympy.Symbol("e", positive=True)
    q, q2 = [*range(11), 50], [1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 49]
    symbolic = exactdp.privacy_loss(PermuteAndFlip(e), q, q2).value
    numeric = exactdp.privacy_loss(PermuteAndFlip(1), q, q2).value
    assert abs(sympy.N(symbolic.subs(e, 1) - numeric, 30)) < 1e-25


def test_an_epsilon_sympy_expands_is_refused_at_the_first_sparse_form():
    """RNM at log(3) on 6 scores, one of -1e20: the exhaustive search's 729 vectors had
    their x-forms computed (7-14 s CPU) before the sparse engine refused the epsilon; the
    first vector's form, already sparse, refuses it: the x-form pass stops at its first
    vector's step (the earlier passes step over every vector)."""
    from fractions import Fraction as F

    from exactdp.analysis.neighbourhood import neighbours

    mech = ReportNoisyMax("log(3)")
    q = as_scores([F(-233, 2012), F(397, 8518), -1000000, "-10**20", "0.1", -3684])
    nbrs, _ = neighbours(mech, q)
    made: list[int] = []
    with pytest.raises(ValueError, match=r"^check_dp: epsilon = log\(3\): sympy rewrites "
                       r"x\*\*k = exp\(-k\*epsilon/\d+\) as a power"):
        S.make_engine(mech, [q, *nbrs], "check_dp", step=lambda: made.append(1))
    assert len(nbrs) == 728 and len(made) % 729 == 1
    assert len(made) < S.ENGINE_PASSES * 729
