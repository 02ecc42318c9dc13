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
