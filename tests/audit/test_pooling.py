"""exactdp.audit.pooling: cells and standardized deviations, by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.audit.pooling import make_cells, max_deviation, pool_cells


def test_make_cells_pools_rare_outputs_and_counts_each_cell():
    p = np.array([0.6, 0.3, 0.07, 0.03, 0.0])
    counts = np.array([55, 33, 8, 4, 0])
    c = make_cells(p, counts, 100, 5.0, "chi2")
    # expected counts 60, 30, 7, 3, 0: output 3 is rare and absorbs output 2 (7) to reach 5
    assert c.cells == pool_cells(100 * p, 5.0) == ((0,), (1,), (2, 3))
    assert c.method == "chi2" and c.rare == [3] and c.pooled == (2, 3)
    assert c.observed == (55, 33, 12)
    assert c.expected == pytest.approx((60.0, 30.0, 10.0))
    assert c.cell_p == pytest.approx([0.6, 0.3, 0.1])


def test_make_cells_falls_back_to_a_binomial_cell_when_pooling_leaves_one():
    p = np.array([0.97, 0.02, 0.01])
    c = make_cells(p, np.array([100, 2, 1]), 103, 5.0, "gtest")
    # expected 99.91, 2.06, 1.03: pooling would merge everything into one cell
    assert c.method == "binomial" and c.cells == ((0,), (1, 2)) and c.observed == (100, 3)


def test_max_deviation_is_the_binomial_z_score_of_the_worst_cell():
    p = np.array([0.5, 0.3, 0.2])
    counts = np.array([40, 30, 30])
    c = make_cells(p, counts, 100, 5.0, "chi2")
    z = [(o - 100 * q) / math.sqrt(100 * q * (1 - q)) for o, q in zip(counts, p, strict=True)]
    dev, cell = max_deviation(c, 100)
    k = int(np.argmax(np.abs(z)))
    assert cell == k and dev == pytest.approx(z[k], rel=1e-12)


def test_max_deviation_without_a_testable_cell():
    c = make_cells(np.array([1.0, 0.0]), np.array([9, 0]), 9, 5.0, "chi2")
    assert max_deviation(c, 9) == (0.0, -1)

# ---------------------------------------------------------------------------- pooling


def test_pool_cells_examples():
    assert pool_cells([100, 3, 2, 50]) == ((0,), (3,), (1, 2))
    assert pool_cells([100, 3, 1, 50]) == ((0,), (1, 2, 3))
    # the pooled cell (3) is below 5: it absorbs the smallest other cell (6)
    assert pool_cells([100, 2, 1, 6]) == ((0,), (1, 2, 3))
    # zero expectations form no cell
    assert pool_cells([10, 0, 10]) == ((0,), (2,))
    assert pool_cells([1, 1]) == ((0, 1),)
    assert pool_cells([5, 5]) == ((0,), (1,))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0, 50), min_size=1, max_size=12), st.floats(0.5, 10))
def test_pool_cells_partition(expected, min_expected):
    cells = pool_cells(expected, min_expected)
    flat = [i for c in cells for i in c]
    assert sorted(flat) == [i for i, e in enumerate(expected) if e > 0]
    assert len(flat) == len(set(flat))
    totals = [sum(expected[i] for i in c) for c in cells]
    if len(cells) > 1:
        assert min(totals) >= min_expected
