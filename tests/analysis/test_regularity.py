"""Tests of the exact regularity checks (docs/formulas.md section 3)."""

import pytest
import sympy

import exactdp
from exactdp.analysis.regularity import is_monotonic, is_shift_invariant, is_symmetric
from exactdp.mechanisms.custom import mechanism_from_function

EPS = sympy.Symbol("epsilon", positive=True)
R = sympy.Rational


@pytest.mark.parametrize(
    "mech",
    [
        exactdp.PermuteAndFlip(1),
        exactdp.ExponentialMechanism(EPS),
        exactdp.ReportNoisyMax(R(1, 2), noise="gumbel"),
        exactdp.ReportNoisyMax(1, noise="laplace"),
    ],
)
def test_core_mechanisms_are_regular_on_the_lattice(mech):
    for check in (is_symmetric, is_shift_invariant, is_monotonic):
        res = check(mech)
        assert res.holds and res.witness is None
        assert res.comparisons > 100 and res.vectors >= 27


def test_given_vectors_all_permutations():
    res = is_symmetric(exactdp.PermuteAndFlip(1), [[0, -1, -3, 2]])
    assert res.holds and res.comparisons == 24 * 4


def _softmax(weights):
    total = sum(weights)
    return [w / total for w in weights]


def test_biased_mechanism_is_not_symmetric():
    m = mechanism_from_function(
        lambda q, e: _softmax([sympy.exp(e * v / 2) * (2 if i == 0 else 1)
                               for i, v in enumerate(q)]),
        epsilon=1,
    )
    res = is_symmetric(m)
    ce = res.witness
    assert not res.holds
    assert ce.probability != ce.neighbour_probability
    assert ce.probability == m.distribution(ce.scores).probabilities[ce.output]
    assert is_shift_invariant(m).holds and is_monotonic(m).holds


def test_absolute_score_mechanism_is_not_shift_invariant():
    # temperature depends on the top score: breaks shift invariance only
    m = mechanism_from_function(
        lambda q, e: _softmax([sympy.exp(e * v / (2 + max(q) ** 2)) for v in q]), epsilon=1
    )
    res = is_shift_invariant(m)
    assert not res.holds
    a, b = res.witness.scores, res.witness.neighbour
    assert len({y - x for x, y in zip(a, b, strict=True)}) == 1
    assert is_symmetric(m).holds


def test_reverse_mechanism_is_not_monotone():
    # favours low scores: symmetric and shift-invariant but not monotone
    m = mechanism_from_function(lambda q, e: _softmax([sympy.exp(-e * v / 2) for v in q]),
                                epsilon=1)
    res = is_monotonic(m)
    ce = res.witness
    assert not res.holds and sympy.N(ce.probability - ce.neighbour_probability) < 0
    assert is_symmetric(m).holds and is_shift_invariant(m).holds


def test_given_vectors_and_steps():
    m = exactdp.PermuteAndFlip(1)
    assert is_monotonic(m, [[0, R(1, 2), 3]], step=R(1, 2)).holds
    assert is_shift_invariant(m, [[0, 1]], shifts=[R(7, 3)]).holds
    with pytest.raises(ValueError):
        is_symmetric(m, n=0)


def test_undecided_sign_is_an_error_not_a_counterexample():
    # RNM-Laplace with symbolic epsilon: 1/3 vs e^{-eps/2}(eps/8 + 7/24) + e^{-eps}/24 is a
    # true inequality for every eps > 0, but not decidable by the polynomial route;
    # the check must say so rather than report a false counterexample.
    eps = sympy.Symbol("epsilon", positive=True)
    with pytest.raises(exactdp.UndecidedSignError, match="cannot decide"):
        is_monotonic(exactdp.ReportNoisyMax(eps, noise="laplace"))
