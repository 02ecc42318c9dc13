"""exactdp.io.figures: equal curves drawn once, tied outputs, the round epsilon grid.

Independent routes: the ties are read off the scores here; PF = RNM-Exp is Theorem 6.1
(Ding et al. 2021), checked on the exact curves.
"""

from __future__ import annotations

import sympy

from exactdp import ExponentialMechanism, PermuteAndFlip, ReportNoisyMax
from exactdp.io.figures import compute_curves, plot_expected_error

BUYERS = (3, 4, 3, 2, 2)


def test_equal_curves_drawn_once_with_a_joined_legend_entry():
    """Issue 23: PF hid under RNM-Exp (equal by Theorem 6.1) and tied outputs hid under each
    other, so legend entries showed no curve; the legend was only in the left panel."""
    from exactdp.io.figures import plot_probabilities, tied_outputs

    grid = (sympy.Rational(1, 2), 1, 2)
    mechs = {"EM": ExponentialMechanism(1), "PF": PermuteAndFlip(1),
             "RNM-Exp": ReportNoisyMax(1, noise="exponential")}
    c = compute_curves("buyers", mechs, BUYERS, None, grid)
    fig = plot_expected_error([c, c])
    labels = [ln.get_label() for ln in fig.axes[0].lines if not ln.get_label().startswith("_")]
    assert labels == ["EM", "PF = RNM-Exp"]  # one curve each, every entry visible
    assert len(fig.legends) == 1 and all(ax.get_legend() is None for ax in fig.axes)
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["EM", "PF = RNM-Exp"]
    # buyers (3, 4, 3, 2, 2): outputs 1, 3 tied and 4, 5 tied (prices 1..5)
    names = ["1", "2", "3", "4", "5"]
    assert tied_outputs([c], names) == [("buyers", ("1", "3")), ("buyers", ("4", "5"))]
    fig = plot_probabilities([c], outputs=names)
    got = [ln.get_label() for ln in fig.axes[0].lines if not ln.get_label().startswith("_")]
    assert got == ["r = 1, 3", "r = 2", "r = 4, 5"]


def test_epsilon_grid_is_round():
    from exactdp.io.figures import epsilon_grid

    grid = epsilon_grid()
    assert grid[:4] == (sympy.Rational(1, 20), sympy.Rational(3, 50), sympy.Rational(2, 25),
                        sympy.Rational(1, 10))
    assert grid[-1] == 10 and len(grid) == 24 and sympy.Integer(1) in grid
    assert all(sympy.Rational(str(g)) == g for g in grid)  # short decimals

