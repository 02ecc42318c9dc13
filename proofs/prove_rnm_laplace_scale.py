"""Tests of :mod:`exactdp.proofs.rnm_laplace_scale`: Lap(2 Delta/eps) private, not half."""

from exactdp.mechanisms.custom import WRONG_VARIANTS
from exactdp.proofs import rnm_laplace_scale as m


def test_verify():
    res = m.verify()
    assert res.holds, res.failures


def test_negative_control_half_scale_fails_the_same_sweep():
    ok, _, bad = m.private_at(make=WRONG_VARIANTS["rnm_laplace_half_scale"],
                              epsilons=(1,), n_max=2, gap_max=2)
    assert not ok and bad


def test_half_scale_loss_tends_to_two_epsilon():
    losses = [float(m.half_scale_not_private(g)[2].split()[1]) for g in (1, 6, 20)]
    assert losses[0] < 1 < losses[1] < losses[2] < 2
