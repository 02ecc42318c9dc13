"""Tests of :mod:`exactdp.proofs.dp_of_pf_and_em`: PF and EM are eps-DP for every eps."""

import pytest

from exactdp.proofs import dp_of_pf_and_em as m


def test_verify_n5_gaps4():
    res = m.verify()
    assert res.holds, res.failures
    assert dict(res.certificates) == {
        "pf, reduced neighbours": True, "pf, every vertex neighbour": True,
        "em, reduced neighbours": True, "em, every vertex neighbour": True,
        "two items, real gaps": True}


@pytest.mark.slow
def test_every_vertex_neighbour_n5():
    assert m.verify(exhaustive_n_max=5).holds


@pytest.mark.parametrize("wrong", ["wrong_pf_coins_eps_over_delta",
                                   "wrong_em_exponent_eps_q_over_delta"])
def test_negative_control_wrong_variants_fail(wrong):
    res = m.verify(n_max=3, gap_max=2, exhaustive_n_max=2, mechanisms=(wrong,))
    assert not res.holds
    failures = dict(res.failures)
    assert failures[f"{wrong}, reduced neighbours"]  # vectors named
    assert (0, -1) in [q for q, _ in failures[f"{wrong}, every vertex neighbour"]]


def test_negative_control_two_items_wrong_em_is_not_lipschitz_enough():
    from exactdp.mechanisms.custom import WRONG_VARIANTS

    wrong = WRONG_VARIANTS["em_exponent_eps_q_over_delta"]
    assert m.two_items_all_real_gaps()[0]
    assert not m.two_items_all_real_gaps((wrong,))[0]
