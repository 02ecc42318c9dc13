"""Tests of :mod:`exactdp.proofs.thm_5_2_dominance`: PF dominates EM for every epsilon."""

import pytest

from exactdp.proofs import thm_5_2_dominance as m
from exactdp.proofs.checks import em_dominates_pf
from exactdp.proofs.result import sweep_check


def test_verify_n5_gaps4():
    res = m.verify()
    assert res.holds, res.failures
    assert res.cases == 125 + 1  # 5 + 15 + 35 + 70 vectors, plus the symbolic two-item case


@pytest.mark.slow
def test_verify_n6_gaps4():
    assert m.verify(n_max=6).holds


def test_negative_control_reversed_dominance_fails_everywhere():
    ok, cases, failures = sweep_check(em_dominates_pf, 3, 2)
    assert not ok
    # every vector with a non-maximiser fails; only the all-tied vectors (0, 0), (0, 0, 0) pass
    assert len(failures) == cases - 2
