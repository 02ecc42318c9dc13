"""The exact integrals of the sparse vector technique
(exactdp/mechanisms/sparse_vector_integral.py)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest

from exactdp.mechanisms.sparse_vector_integral import (
    Scheme,
    answer_sequences,
    segment_integral,
    sequence_count,
    sequence_probabilities,
    translation_bound,
)


def _truncated_product(m: int, c: int | None) -> list[tuple]:
    """The documented order by its definition: product((True, False)) order, every entry
    after the c-th True replaced by None, repeats dropped."""
    seen: list[tuple] = []
    for t in itertools.product((True, False), repeat=m):
        cut, k = list(t), 0
        for i, a in enumerate(t):
            k += a
            if c is not None and k == c:
                cut[i + 1:] = [None] * (m - 1 - i)
                break
        if tuple(cut) not in seen:
            seen.append(tuple(cut))
    return seen


@pytest.mark.parametrize("m,c", [(1, 1), (3, 1), (4, 2), (5, 3), (3, 5), (4, None)])
def test_answer_sequences_order_and_count(m, c):
    seqs = list(answer_sequences(m, c))
    assert seqs == _truncated_product(m, c)
    assert sequence_count(m, c) == len(seqs)
    if c is not None and c < m:  # by a second count: fewer than c Trues, or the c-th at i
        assert len(seqs) == sum(math.comb(m, j) for j in range(c)) + math.comb(m, c)


@pytest.mark.parametrize("scheme", [
    Scheme(Fraction(1, 2), Fraction(1, 2), None),          # Algorithm 6: equal rates
    Scheme(Fraction(1, 2), None, None),                    # Algorithm 5: no query noise
    Scheme(Fraction(1, 2), Fraction(1, 8), 2),             # Algorithm 1, c = 2
])
def test_probabilities_sum_to_one_as_an_identity_in_lam(scheme):
    """Summed term by term (as functions of lam = epsilon/Delta), the probabilities are the
    constant 1: every other term cancels exactly."""
    s = [Fraction(0), Fraction(1), Fraction(-1, 3), Fraction(1)]
    vals = sequence_probabilities(s, scheme)
    assert len(vals) == sequence_count(len(s), scheme.cutoff)
    total: dict = {}
    for v in vals:
        for k, q in v.items():
            total[k] = total.get(k, 0) + q
    assert {k: q for k, q in total.items() if q} == {(0, Fraction(0)): 1}


def test_one_query_by_hand():
    """One query with offset s = 0 and equal rates t: Pr[True] = 1/2 by symmetry; with no
    query noise and s = 1, Pr[True] = Pr[rho <= 1] = 1 - exp(-t lam)/2."""
    half = sequence_probabilities([Fraction(0)], Scheme(Fraction(1), Fraction(1), None))
    assert half == [{(0, Fraction(0)): Fraction(1, 2)}] * 2
    (true, false) = sequence_probabilities([Fraction(1)], Scheme(Fraction(1, 2), None, None))
    assert true == {(0, Fraction(0)): 1, (0, Fraction(-1, 2)): Fraction(-1, 2)}
    assert false == {(0, Fraction(-1, 2)): Fraction(1, 2)}


def test_noiseless_queries_by_hand_from_a_cold_cache():
    """segment_integral caches across score vectors, so a value computed earlier (by any
    test) would hide a change: cleared first. No query noise (Algorithm 5), threshold noise
    of rate t = 1/2 (Laplace CDF F(s) = 1 - e^(-t lam s)/2 for s >= 0): a query of offset s
    is True iff rho <= s, so on s = 1 Pr[True] = F(1); on offsets (1, -1) both are True for
    rho <= -1 (F(-1)), only the first for -1 < rho <= 1 (F(1) - F(-1)), none above 1, and
    (False, True) never happens."""
    segment_integral.cache_clear()
    scheme = Scheme(Fraction(1, 2), None, None)
    (true, false) = sequence_probabilities([Fraction(1)], scheme)
    assert true == {(0, Fraction(0)): 1, (0, Fraction(-1, 2)): Fraction(-1, 2)}
    assert false == {(0, Fraction(-1, 2)): Fraction(1, 2)}
    segment_integral.cache_clear()
    seqs = list(answer_sequences(2, None))
    vals = dict(zip(seqs, sequence_probabilities([Fraction(1), Fraction(-1)], scheme),
                    strict=True))
    # rho <= -1: both True; -1 < rho <= 1: (True, False); rho > 1: both False
    assert vals[(True, True)] == {(0, Fraction(-1, 2)): Fraction(1, 2)}
    assert vals[(True, False)] == {(0, Fraction(0)): 1, (0, Fraction(-1, 2)): -1}
    assert vals[(False, False)] == {(0, Fraction(-1, 2)): Fraction(1, 2)}
    assert not any(vals[(False, True)].values())


def test_a_fresh_threshold_is_the_program_engine_s():
    """Algorithm 2 (the threshold noise redrawn) is computed by the program engine; the
    one-threshold walk refuses it by name."""
    with pytest.raises(ValueError, match="program engine"):
        sequence_probabilities([Fraction(0)], Scheme(Fraction(1, 4), Fraction(1, 8), 2, True))


@pytest.mark.parametrize("scheme", [
    Scheme(Fraction(1, 2), Fraction(1, 4), 1),                        # Algorithm 1
    Scheme(Fraction(1, 2), Fraction(1, 4), 2, fresh_threshold=True),  # Algorithm 2, c = 2
    Scheme(Fraction(1, 4), Fraction(3, 4), 1),                        # Algorithm 4
    Scheme(Fraction(1, 2), Fraction(1, 2), None)])                    # Algorithm 6
def test_translation_bound_is_the_minimum_over_every_shift(scheme):
    """The bound is ``min_t k t1 |t| + t2 sum |t - d_i|``: equal to a scan of ``t`` over a
    grid of step 1/12 on [-3, 3] (an independent minimum; the breakpoints lie on it)."""
    k = 1 if not scheme.fresh_threshold else min(scheme.cutoff, 5)
    for moves in ([1, -1, 0, 2, Fraction(1, 2)], [1, 1, 1, 1, 1], [-1, 0, 0, 0, 2],
                  [0, 0, 0, 0, 0]):
        d = [Fraction(x) for x in moves]
        scan = min(k * scheme.threshold_rate * abs(t) + scheme.query_rate * sum(
            abs(t - x) for x in d) for t in (Fraction(i, 12) for i in range(-36, 37)))
        assert translation_bound(scheme, d) == scan


def test_translation_bound_without_query_noise():
    """Algorithm 5: only the shift ``t = d`` keeps every comparison, so equal moves give
    ``t1 |d|`` and unequal ones no bound (its loss is infinite there)."""
    s5 = Scheme(Fraction(1, 2), None, None)
    assert translation_bound(s5, [Fraction(-2)] * 3) == 1
    assert translation_bound(s5, [Fraction(1), Fraction(0)]) is None
    assert translation_bound(s5, []) == 0
