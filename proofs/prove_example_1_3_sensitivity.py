"""Tests of :mod:`exactdp.proofs.example_1_3_sensitivity`: Delta_1 = 1, Delta_2 = 5."""

from exactdp.proofs import example_1_3_sensitivity as m


def test_verify():
    res = m.verify()
    assert res.holds, res.failures
    assert res.cases == 4 + 6 + 4


def test_negative_control_wrong_claim_is_refuted():
    res = m.verify(claimed={"buyers": 1, "revenue": 4})
    assert not res.holds
    assert ("revenue", "local", 5, 4) in dict(res.failures)["sensitivities"]


def test_negative_control_squared_price_score_has_sensitivity_25():
    ok, _, bad = m.sensitivities({"sq": 5}, {"sq": m.squared_price_revenue()})
    assert not ok and bad[0][2] == 25
