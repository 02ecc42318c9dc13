"""exactdp.io.latex: labels and tables, against hand-written strings and exact values."""

from __future__ import annotations

import exactdp


def test_mechanism_label_names():
    from exactdp.printing import mechanism_label

    assert mechanism_label(exactdp.PermuteAndFlip(1)) == "PF"
    assert mechanism_label(exactdp.ReportNoisyMax(1, noise="laplace")) == "RNM-Laplace"
    assert mechanism_label(exactdp.GaussianNoisyMax(1)) == "RNM-Gauss"


def test_probability_table_prints_pf_decimals():
    from exactdp.io.latex import probability_table

    # PF on (0, -1) at epsilon 2 (c = 2): Pr[1] = x/2 with x = e^{-1}, Pr[0] = 1 - e^{-1}/2
    # (docs/formulas.md, PF with n = 2): 0.81606, 0.18394 to 5 digits
    d = exactdp.PermuteAndFlip(2).distribution([0, -1])
    text = probability_table({"PF": d}, fmt="text", exact=False, dps=5)
    rows = [line.split() for line in text.splitlines()[2:]]
    assert rows == [["0", "0.81606"], ["1", "0.18394"]]
