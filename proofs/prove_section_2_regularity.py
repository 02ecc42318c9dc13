"""Tests of :mod:`exactdp.proofs.section_2_regularity`: EM and PF are regular."""

from exactdp.proofs import section_2_regularity as m


def test_verify():
    res = m.verify()
    assert res.holds, res.failures
    assert res.cases > 8000


def test_negative_control_bump_mechanism_is_not_monotone():
    ok, _, bad = m.regular(m.bump_mechanism(), ((3, range(3)),))
    assert not ok
    assert [b[0] for b in bad] == ["is_monotonic"]  # symmetric and shift-invariant hold
