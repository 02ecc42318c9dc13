"""Tests of :mod:`exactdp.proofs.thm_5_2_dominance`: PF dominates EM for every epsilon."""

import pytest

from exactdp.proofs import thm_5_2_dominance as m
from exactdp.proofs.checks import em_dominates_pf
from exactdp.proofs.result import sweep_check


def test_verify_n5_gaps4():
    res = m.verify()
    assert res.holds, res.failures
    assert res.cases == 125 + 1 + 2  # 5 + 15 + 35 + 70 vectors, two items, three items


@pytest.mark.slow
def test_verify_n6_gaps4():
    assert m.verify(n_max=6).holds


def test_negative_control_reversed_dominance_fails_everywhere():
    ok, cases, failures = sweep_check(em_dominates_pf, 3, 2)
    assert not ok
    # every vector with a non-maximiser fails; only the all-tied vectors (0, 0), (0, 0, 0) pass
    assert len(failures) == cases - 2


def test_negative_control_bernstein_refutes_a_false_polynomial():
    from exactdp.proofs import three_items as t3
    from exactdp.proofs.unit_sign import nonnegative_on_square

    # the reversed lose-tail margin (PF - EM) is negative inside the square
    reversed_margin = t3.poly((t3.PF[1] + t3.PF[2]) * t3.D - t3.EM_TIMES_D[1] - t3.EM_TIMES_D[2])
    assert not nonnegative_on_square(reversed_margin)
