"""exactdp.proofs.checks: the per-vector checks of the sweeps, each true statement against
its negative control, and the error ratio 2 / (1 + x^g) of two items by hand."""

from __future__ import annotations

import pickle

import pytest

from exactdp.proofs import checks


@pytest.mark.parametrize("scores", [(0, -1), (0, -1, -2), (0, 0, -3)])
def test_pf_dominates_em_and_not_the_reverse(scores):
    assert checks.pf_dominates_em(scores)
    assert not checks.em_dominates_pf(scores)  # the false statement, a negative control


def test_the_error_ratio_two_holds_and_nineteen_tenths_fails():
    # two items at gap g: E[err_EM] / E[err_PF] = 2 / (1 + x^g) -> 2 as x -> 0, so the
    # factor 2 holds for every epsilon and 19/10 fails for large epsilon (small x)
    for scores in [(0, -1), (0, -2), (0, -1, -1)]:
        assert checks.error_ratio_at_most(2, scores)
    assert not checks.error_ratio_at_most("19/10", (0, -1))
    assert checks.error_ratio_at_most("19/10", (0, 0))  # both errors 0


def test_dp_certified_for_pf_and_em_not_for_a_wrong_variant():
    assert checks.dp_certified("pf", (0, -1)) and checks.dp_certified("em", (0, -1, -2))
    wrong = sorted(k for k in checks.MECHANISMS if k.startswith("wrong_"))
    assert wrong and not all(checks.dp_certified(k, (0, -1)) for k in wrong)
    assert pickle.loads(pickle.dumps(checks.pf_dominates_em)) is checks.pf_dominates_em
