"""exactdp/lazy_probabilities.py: exact probabilities built per output on first access."""

from __future__ import annotations

import pickle

import sympy

from exactdp.lazy_probabilities import LazyProbabilities


def test_built_once_per_key_and_equal_to_the_tuple():
    calls = []

    def build(key):
        calls.append(key)
        return sympy.Rational(1, key)

    p = LazyProbabilities((2, 4, 4), build)
    assert len(p) == 3 and calls == []  # nothing built yet
    assert p[1] == sympy.Rational(1, 4) and calls == [4]
    assert p[2] == sympy.Rational(1, 4) and calls == [4]  # shared key: built once
    expected = (sympy.Rational(1, 2), sympy.Rational(1, 4), sympy.Rational(1, 4))
    assert p == expected and hash(p) == hash(expected) and sum(p) == 1
    assert p[:2] == expected[:2] and p + (0,) == (*expected, 0) and (0,) + p == (0, *expected)
    assert repr(p) == repr(expected)
    assert pickle.loads(pickle.dumps(p)) == expected


def test_a_permute_and_flip_distribution_is_lazy_and_exact():
    from exactdp import PermuteAndFlip

    probs = PermuteAndFlip(1).distribution([1, 0]).probabilities
    # P(0) = 1 - exp(-1/2)/2 (the runner-up flipped first with probability 1/2)
    assert sympy.simplify(probs[0] - (1 - sympy.exp(-sympy.Rational(1, 2)) / 2)) == 0
    assert sympy.simplify(sum(probs) - 1) == 0
