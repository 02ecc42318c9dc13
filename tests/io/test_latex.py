"""exactdp.io.latex: labels and tables, against hand-written strings and exact values."""

from __future__ import annotations

import exactdp


def test_mechanism_label_names():
    from exactdp.printing import mechanism_label

    assert mechanism_label(exactdp.PermuteAndFlip(1)) == "PF"
    assert mechanism_label(exactdp.ReportNoisyMax(1, noise="laplace")) == "RNM-Laplace"
    assert mechanism_label(exactdp.GaussianNoisyMax(1)) == "RNM-Gauss"
