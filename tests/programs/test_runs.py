"""The runs contract's estimates: the probes' importance weights (one over the mixture's
probability of the path) and the estimates of a decision tree's leaves, checked against
the exact leaf counts of trees whose size has a closed form."""

from __future__ import annotations

import math
import random
import re
from fractions import Fraction
from math import comb

import pytest
import sympy

from exactdp.cost import TooCostly
from exactdp.programs.library import svt1
from exactdp.programs.runs import BIASES, Estimate, estimate_tree, path_weight
from exactdp.programs.trace import MAX_RUNS, PROBE_AT, PROBES, enumerate_runs


def cut_off_tree(n, c):
    """The decision tree of a sparse vector on ``n`` answers with cut-off ``c``: a binary
    decision per answer (branch 0: above, counted) until ``c`` are counted. Its leaves:
    ``sum_{k<c} C(n, k)`` (fewer than c above) ``+ C(n, c)`` (the c-th above, at any place
    whose prefix has c - 1 above: sum_j C(j - 1, c - 1) = C(n, c))."""
    def walk(choose):
        arities, choices, count = [], [], 0
        while len(choices) < n and count < c:
            choice = choose(2)
            arities.append(2)
            choices.append(choice)
            count += choice == 0
        return arities, choices, None
    return walk, sum(comb(n, k) for k in range(c)) + comb(n, c)


def knuth(walk, probes, seed=0):
    """Knuth's estimator (uniform probes, weight the product of the branchings): the
    estimator this module replaced, for the comparison."""
    rng = random.Random(seed)
    return sum(math.prod(walk(rng.randrange)[0]) for _ in range(probes)) / probes


def mixture(arities, choices, shares):
    """The mixture's probability of a path, exactly (Fractions), by the definition."""
    total = Fraction(0)
    for bias, share in zip(BIASES, shares, strict=True):
        q = Fraction(1)
        for a, c in zip(arities, choices, strict=True):
            if bias is None:
                q /= a
            elif a > 1:
                q *= bias if c == 0 else (1 - bias) / (a - 1)
        total += Fraction(share, sum(shares)) * q
    return total


def leaves(arities_of, prefix=()):
    """Every leaf (arities, choices) of a tree given by ``arities_of(prefix)``."""
    arity = arities_of(prefix)
    if arity is None:
        yield (), ()
        return
    for c in range(arity):
        for a, cs in leaves(arities_of, (*prefix, c)):
            yield (arity, *a), (c, *cs)


def test_a_uniform_probe_weighs_the_product_of_its_branchings():
    # one share on the uniform proposal: Knuth's weight 2 * 2 * 3
    assert path_weight([2, 2, 3], [0, 1, 2], [1] + [0] * (len(BIASES) - 1)) == 12.0
    assert path_weight([], [], [1] * len(BIASES)) == 1.0  # one leaf: the root


def test_the_weights_are_one_over_the_mixture_so_the_estimator_is_unbiased():
    # an irregular tree: a 3-way decision, then a coin on branch 0 only, then 2 or 4 ways;
    # sum over the leaves of q(leaf) * weight(leaf) = the number of leaves (unbiased)
    def arities_of(prefix):
        return {(): 3, (0,): 2, (1,): 4, (0, 1): 2}.get(prefix)
    shares = [29, 29, 29, 29, 28, 28, 28, 28, 28]
    tree = list(leaves(arities_of))
    assert len(tree) == 8  # (0, 0), (0, 1, 0), (0, 1, 1), (1, 0) ... (1, 3), (2,)
    for arities, choices in tree:
        want = 1 / mixture(arities, choices, shares)
        assert path_weight(arities, choices, shares) == pytest.approx(float(want), rel=1e-12)
    expectation = sum(mixture(a, c, shares) * Fraction(path_weight(a, c, shares))
                      for a, c in tree)
    assert expectation == pytest.approx(len(tree), rel=1e-12)


@pytest.mark.parametrize(("n", "c"), [(40, 4), (40, 3), (100, 2), (16, 1), (16, 5),
                                      (12, 3), (200, 1)])
def test_the_leaves_of_a_cut_off_tree_are_estimated_within_2x(n, c):
    walk, size = cut_off_tree(n, c)
    estimate = estimate_tree(walk, PROBES)
    assert size / 2 < estimate.runs < 2 * size, (estimate, size)
    assert estimate.seconds == 0.0  # no cost given


def test_knuths_uniform_probes_missed_the_deep_paths():
    # before: 40 answers, c = 4 (102,091 leaves) came out about 20x too low, so the
    # enumeration of SVT1 ran to the run limit (4,096 executions, 6 s) before refusing
    walk, size = cut_off_tree(40, 4)
    assert knuth(walk, PROBES) < size / 10
    assert estimate_tree(walk, PROBES).runs > size / 2


def test_the_cost_is_weighted_like_the_runs():
    # a cost of 1 per run: the seconds estimate the number of (possible) runs, the same sum
    def walk(choose):
        choices = [choose(2) for _ in range(5)]
        return [2] * 5, choices, object()
    est = estimate_tree(walk, PROBES, cost=lambda run: 1.0)
    assert isinstance(est, Estimate)
    assert est.seconds == pytest.approx(est.runs, abs=1)
    assert 32 / 2 < est.runs < 2 * 32
    assert estimate_tree(walk, PROBES) == estimate_tree(walk, PROBES)  # seeded


def test_a_weight_on_a_path_of_thousands_of_decisions_stays_finite():
    # 2**4000 overflows a float: the weight is capped near 1e300, still past every limit
    weight = path_weight([2] * 4000, [0, 1] * 2000, [1] * len(BIASES))
    assert 1e299 < weight < math.inf


def test_svt1_with_c4_on_40_answers_is_refused_at_the_probes():
    """SVT1, c = 4, 40 answers: 102,091 runs. Before, Knuth's probes estimated about 2,500
    and the enumeration went on to the run limit (4,097 executions, 5.5-6.5 s CPU) before
    refusing; now the probes estimate about 1e5 and the enumeration stops at PROBE_AT runs.
    The executions of the program are counted (the step counter of the enumeration)."""
    m = svt1(epsilon=sympy.Rational(1, 2), threshold=1, c=4)
    call = m.program.bind(tuple(sympy.Integer(0) for _ in range(40)), m.epsilon, m.arguments)
    executions = 0

    def counted():
        nonlocal executions
        executions += 1
        return call()
    size = sum(comb(40, k) for k in range(4)) + comb(40, 4)
    assert size == 102_091
    with pytest.raises(TooCostly, match=r"^distribution: the runs of program svt1 would need "
                       r"about \S+ runs \(limit 4096 runs\)") as info:
        enumerate_runs(counted, "svt1", m.program.filename)
    estimate = float(re.search(r"about (\S+) runs", str(info.value))[1])
    assert size / 2 < estimate < 2 * size
    assert executions == PROBE_AT + PROBES < MAX_RUNS
