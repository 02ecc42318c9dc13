"""Tests of :mod:`exactdp.proofs.error_ratio_at_most_two`: E[err_EM] <= 2 E[err_PF]."""

import pytest

from exactdp.proofs import error_ratio_at_most_two as m


def test_verify_n5_gaps4():
    res = m.verify()
    assert res.holds, res.failures
    assert res.cases == 125 + 1 + 2  # vectors, two items, three items (two polynomials)


@pytest.mark.slow
def test_verify_n6_gaps4():
    assert m.verify(n_max=6).holds


def test_negative_control_factor_19_over_10_fails():
    # two items: the ratio is 2/(1 + x^g) -> 2 as eps -> oo, so 1.9 fails at every gap > 0
    res = m.verify(n_max=3, gap_max=2, factor="19/10")
    assert not res.holds
    failed = [q for q, _ in dict(res.failures)["integer family"]]
    assert (0, -1) in failed and (0, -2) in failed


def test_negative_control_three_items_factor_199_over_100_fails():
    assert not m.three_items_ratio("199/100")[0]
    assert m.three_items_ratio(2)[0]
