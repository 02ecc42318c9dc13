"""exactdp.io.latex: labels and tables, against hand-written strings and exact values."""

from __future__ import annotations

import exactdp


def test_one_mechanism_label_the_registrys():
    """A mechanism's name is its registry entry's label (the most specific entry whose fixed
    parameters it has), the one label of the CLI, the report and the tables."""
    from exactdp.mechanisms import REGISTRY

    assert exactdp.PermuteAndFlip(1).name == "PF"
    assert exactdp.ReportNoisyMax(1, noise="laplace").name == "RNM-Laplace"
    assert exactdp.ReportNoisyMax(1, noise="laplace", output="value").name == (
        "RNM3 (RNM-Laplace-value)")
    assert exactdp.GaussianNoisyMax(1).name == "RNM-Gaussian"
    assert exactdp.OptimalRegularMechanism(1).name == "Optimal"
    for spec in REGISTRY.values():  # TopK names its instances: "top-2 peeling EM"
        if spec.cls is exactdp.TopK:
            continue
        needs = {p.name for p in spec.parameters}
        mech = spec.at_epsilon(1, threshold=0) if "threshold" in needs else spec.instance()
        assert mech.name == spec.label, spec.key
    tex = exactdp.GaussianNoisyMax(1).distribution([0, 0])._repr_latex_()
    assert r"\mathrm{RNM-Gaussian}(q) = 0" in tex


def test_probability_table_prints_pf_decimals():
    from exactdp.io.latex import probability_table

    # PF on (0, -1) at epsilon 2 (c = 2): Pr[1] = x/2 with x = e^{-1}, Pr[0] = 1 - e^{-1}/2
    # (docs/formulas.md, PF with n = 2): 0.81606, 0.18394 to 5 digits
    d = exactdp.PermuteAndFlip(2).distribution([0, -1])
    text = probability_table({"PF": d}, fmt="text", exact=False, dps=5)
    rows = [line.split() for line in text.splitlines()[2:]]
    assert rows == [["0", "0.81606"], ["1", "0.18394"]]
