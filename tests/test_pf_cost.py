"""exactdp/pf_cost.py: the cost model of permute-and-flip's exact product tree."""

from __future__ import annotations

import io
import sys
import time

import pytest

from exactdp import PermuteAndFlip
from exactdp.cost import SECONDS_LIMIT, TooCostly
from exactdp.pf_cost import (
    PF_TREE_SECONDS,
    check_pf_tree,
    pf_signs_seconds,
    pf_tree_bar,
    pf_tree_product_seconds,
)
from exactdp.progress import SHOW_SECONDS, NoBar
from exactdp.xform import EXACT_SIZE_LIMIT


def exact_pf_size(gaps: list[int]) -> int:
    """The tree's coefficients ``n (sum G + 1)`` (exactdp.xform.exact_pf_size)."""
    return len(gaps) * (sum(gaps) + 1)


def test_the_estimate_grows_like_size_times_n():
    # the scores 0..199: 200 * 19901 coefficients of about 200 bits; measured 20.8 s at
    # n = 180 for an estimate of 20.9 s (docs/benchmarks.md)
    gaps = list(range(200))
    seconds = pf_tree_product_seconds(200, exact_pf_size(gaps))
    assert seconds == pytest.approx(PF_TREE_SECONDS * 200 * 200 * 19901)
    assert SHOW_SECONDS < seconds < SECONDS_LIMIT  # runs, with a bar on a terminal
    check_pf_tree("probabilities", 200, sum(gaps), exact_pf_size(gaps))  # no refusal


def test_a_tree_past_the_time_limit_refuses_at_once_under_the_size_limit():
    q = [i % 20 for i in range(800)]  # 800 * 7601 coefficients < EXACT_SIZE_LIMIT
    gaps = [19 - v for v in q]
    assert exact_pf_size(gaps) < EXACT_SIZE_LIMIT
    assert pf_tree_product_seconds(800, exact_pf_size(gaps)) > SECONDS_LIMIT
    d = PermuteAndFlip(1).distribution(q)
    t0 = time.process_time()
    with pytest.raises(TooCostly, match=r"^probabilities: exact permute-and-flip polynomials "
                       r"for n = 800 outputs .* would need about 195 s \(limit 120 s\); "
                       r"use \.to_numpy\(\)"):
        d.probabilities  # noqa: B018
    with pytest.raises(TooCostly, match=r"rational_form.*about 195 s.*evalf"):
        d.rational_form()
    assert time.process_time() - t0 < 2.0
    assert d.to_numpy().sum() == pytest.approx(1.0)  # the cheaper route answers


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_bar_has_one_step_per_level_and_shows_past_two_seconds(monkeypatch):
    monkeypatch.setattr(sys, "stderr", _Terminal())
    size = exact_pf_size(list(range(200)))
    bar = pf_tree_bar(200, 200, size)  # 8 levels of the tree over 200 leaves, 1 correlation
    assert bar.total == 9 and bar.delay == 0
    bar.close()
    assert isinstance(pf_tree_bar(10, 10, exact_pf_size(list(range(10)))), NoBar)


def test_the_signs_at_a_symbolic_epsilon_are_priced_by_the_fitted_model():
    """privacy_loss of PF at a symbolic epsilon, CPU seconds measured for the pair (one
    estimate per vector): 0..10 and 300 / 1000, 0, 100, ..., 1100, 0..44, 0..59; within
    0.8-1.25x each, and quadratic in the total gap when it dominates."""
    measured = {(12, 3245): 3.48, (12, 10945): 35.0, (12, 6600): 11.0, (45, 990): 3.2,
                (60, 1770): 10.7}
    for (n, total), cpu in measured.items():
        assert 0.8 < 2 * pf_signs_seconds(n, total) / cpu < 1.25, (n, total)
    assert 3.9 < pf_signs_seconds(12, 20000) / pf_signs_seconds(12, 10000) < 4.0
