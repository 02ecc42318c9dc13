"""exactdp.audit.exact_tests: the exact tests of rare outputs, against scipy run directly."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

from exactdp.audit.exact_tests import max_statistic, rare_p_value


def test_rare_p_value_is_the_bonferroni_minimum_of_the_binomial_tests():
    p = np.array([0.9, 0.06, 0.03, 0.01])
    counts = np.array([880, 70, 40, 10])
    rare = [2, 3]
    n = int(counts.sum())
    rt = rare_p_value(counts, p, rare, n)
    total = scipy.stats.binomtest(50, n, 0.04).pvalue  # two-sided, the rare outputs together
    tails = [scipy.stats.binom.sf(40 - 1, n, 0.03), scipy.stats.binom.sf(10 - 1, n, 0.01)]
    assert rt.n_tests == 3 and rt.k_total == 50 and rt.p_total == pytest.approx(0.04)
    assert rt.p_value == pytest.approx(min(1.0, 3 * min(total, *tails)), rel=1e-12)
    assert rt.worst == 2  # output 2's upper tail is the smaller one
    # the smallest attainable p-value: every draw on one output (k = 0 or k = n)
    floor_total = min(scipy.stats.binomtest(0, n, 0.04).pvalue,
                      scipy.stats.binomtest(n, n, 0.04).pvalue)
    floor = min(floor_total, 0.03**n, 0.01**n)
    assert rt.min_p_value == pytest.approx(min(1.0, 3 * floor), rel=1e-9)


def test_rare_p_value_with_one_kind_of_test():
    p = np.array([0.5, 0.5])
    counts = np.array([3, 7])
    only_total = rare_p_value(counts, p, [1], 10, total=True, each=False)
    assert only_total.n_tests == 1 and only_total.worst == -1
    assert only_total.p_value == pytest.approx(scipy.stats.binomtest(7, 10, 0.5).pvalue)
    only_each = rare_p_value(counts, p, [0, 1], 10, total=False, each=True)
    assert only_each.n_tests == 2 and only_each.worst == 1
    assert only_each.p_value == pytest.approx(min(1, 2 * scipy.stats.binom.sf(6, 10, 0.5)))


@pytest.mark.parametrize("test", ["chi2", "gtest"])
def test_max_statistic_is_attained_with_every_draw_in_the_least_likely_cell(test):
    cell_p = np.array([0.5, 0.3, 0.15, 0.05])
    n = 200
    lam = {"chi2": "pearson", "gtest": "log-likelihood"}[test]
    best = 0.0
    for k in range(cell_p.size):  # the statistic is convex: its maximum is at a vertex
        obs = np.zeros(cell_p.size)
        obs[k] = n
        best = max(best, scipy.stats.power_divergence(obs, n * cell_p, lambda_=lam).statistic)
    assert max_statistic(cell_p, n, test) == pytest.approx(best, rel=1e-12)
