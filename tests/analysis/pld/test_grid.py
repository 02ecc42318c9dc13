"""exactdp.analysis.pld.grid: the lower-bound PLD on a grid, against hand-computed curves."""

from __future__ import annotations

from fractions import Fraction

import flint
import mpmath

from exactdp.analysis import DiscretisedPLD


def _in_ball(value: mpmath.mpf, ball) -> bool:
    """``value`` (mpmath at 40+ digits) lies in the ball, up to 1e-35."""
    mid = mpmath.mpf(ball.mid().str(45, radius=False))
    rad = mpmath.mpf(ball.rad().str(5, radius=False))
    return abs(value - mid) <= rad + mpmath.mpf(10) ** -35


def test_from_points_delta_and_max_loss_by_hand():
    """Masses 1/4 at loss 1 (index 4 of step 1/4) twice, and 1/2 at loss -1/2: delta(eps) =
    (1/2)(1 - e^(eps - 1)) for 0 <= eps <= 1 (the loss -1/2 never counts), max loss 1."""
    grid = DiscretisedPLD.from_points(Fraction(1, 4), [4, -2, 4],
                                      [Fraction(1, 4), Fraction(1, 2), Fraction(1, 4)],
                                      Fraction(0), 1, "by hand")
    assert grid.offset == -2 and len(grid.masses) == 7
    assert grid.max_loss() == 1
    with mpmath.workdps(40):
        for eps in ("0", "0.5"):
            want = (1 - mpmath.exp(mpmath.mpf(eps) - 1)) / 2
            assert _in_ball(want, grid.delta_ball(flint.arb(eps), 140))
            assert _in_ball(want, grid.delta(eps, 30).ball)
    # composing two copies: loss 2 with mass 1/4 is the only loss above 1.5
    two = grid.self_compose(2)
    with mpmath.workdps(40):
        want = (1 - mpmath.exp(mpmath.mpf("1.5") - 2)) / 4
        assert _in_ball(want, two.delta_ball(flint.arb("1.5"), 140))
    assert two.max_loss() == 2
