"""exactdp.io.latex: labels and tables, against hand-written strings and exact values."""

from __future__ import annotations

import mpmath

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


def test_a_table_of_astronomical_scores_keeps_its_lines_short():
    """Scores (1e400, 0): EM's P_1 = e^{-g/2} / (1 + e^{-g/2}) with g = 10**400, so
    ln P_1 = -5.0e+399 to 6 digits. Before, the decimal printed its 400-digit exponent
    and the exact forms x**(10**400) in full: lines of 822 characters."""
    from exactdp.io.latex import probability_table

    q = [10**400, 0]
    dists = {"EM": exactdp.ExponentialMechanism(1).distribution(q),
             "PF": exactdp.PermuteAndFlip(1).distribution(q)}
    for fmt in ("text", "markdown", "latex"):
        out = probability_table(dists, fmt=fmt)
        assert max(len(line) for line in out.splitlines()) < (120 if fmt != "latex" else 200)
        # ln P_1 = -5.0e399: P_1 = 1.64008 * 10**-K with K of 400 digits, named K1
        with mpmath.workdps(450):  # 10**400 / (2 ln 10), its integer part plus 1
            digits = str(int(mpmath.floor(mpmath.mpf(10) ** 400 / 2 / mpmath.log(10))) + 1)
        assert "1.64008" in out and ("e-K1" in out or "10^{-K_{1}}" in out)
        assert digits[:76] in out and len(digits) == 400
        assert "too long to print: integers of over 100 digits" in out
    # a modest table prints its exact forms as before
    small = probability_table({"PF": exactdp.PermuteAndFlip(1).distribution([1, 0])})
    assert "too long" not in small and "x" in small.split("exact:")[1]


def test_probability_table_splits_decimals_that_tie_but_differ():
    """Scores ``[1e-300, 0]``: every probability rounds to 0.5; the table shows 0.5 plus
    each cell's offset, checked against the closed forms in mpmath at 400 digits (EM
    ``1/(1 + x)``, PF ``1 - x/2``, ``x = exp(-10**-300 / 2)``); a true tie (equal scores)
    keeps plain decimals."""
    from exactdp.io.latex import TIE_CHECK_N, probability_table

    dists = {"EM": exactdp.ExponentialMechanism(1).distribution(["1e-300", 0]),
             "PF": exactdp.PermuteAndFlip(1).distribution(["1e-300", 0])}
    with mpmath.workdps(400):
        x = mpmath.exp(-mpmath.mpf(10) ** -300 / 2)
        em, pf = 1 / (1 + x) - mpmath.mpf(1) / 2, mpmath.mpf(1) / 2 - x / 2
        want = [mpmath.nstr(v, 6, strip_zeros=True) for v in (em, pf)]
    text = probability_table(dists, fmt="text", exact=False)
    assert f"0  0.5 + {want[0]}  0.5 + {want[1]}" in text, text
    assert f"1  0.5 - {want[0]}  0.5 - {want[1]}" in text
    assert r"$0.5 + 1.25 \times 10^{-301}$" in probability_table(dists, fmt="latex",
                                                                 exact=False)
    tie = probability_table({"PF": exactdp.PermuteAndFlip(1).distribution([1, 1, 0])},
                            fmt="text", exact=False)
    assert "0.398912" in tie and " + " not in tie and TIE_CHECK_N >= 2


def test_probability_table_offsets_near_thirds_from_one_third_at_25_digits():
    """EM on (3, 1, 0) at epsilon = 1e-300 prints ``0.333...`` (25 threes) in every row;
    the table shows ``1/3`` plus each row's offset, 25 right digits each (a softmax in
    mpmath at 400 digits, an independent route), the rows apart."""
    from exactdp.io.latex import probability_table

    dists = {"EM": exactdp.ExponentialMechanism("1e-300").distribution([3, 1, 0])}
    with mpmath.workdps(400):
        eps = mpmath.mpf(10) ** -300
        ws = [mpmath.exp(eps * s / 2) for s in (3, 1, 0)]
        offs = [w / mpmath.fsum(ws) - mpmath.mpf(1) / 3 for w in ws]
        want = [("+ " if v > 0 else "- ") + mpmath.nstr(abs(v), 25) for v in offs]
    text = probability_table(dists, fmt="text", exact=False, dps=25)
    for r, w in enumerate(want):
        assert f"{r}  1/3 {w}" in text, text


def test_named_exponents_are_braced_math_and_the_table_compiles():
    """Scores (1e300, 0, 0): P_1 = 1.35579 * 10**-K1 (K1 of 300 digits) is a math cell in
    braces (it sits in an l or an S column), so pdflatex compiles the table; it stopped at
    "Missing $ inserted" before."""
    import shutil
    import subprocess
    import tempfile

    from exactdp.io.latex import probability_table

    q = [10**300, 0, 0]
    out = probability_table({"EM": exactdp.ExponentialMechanism(1).distribution(q)},
                            fmt="latex")
    assert r"{$1.35579 \times 10^{-K_{1}}$}" in out
    if shutil.which("pdflatex") is None:
        return
    head = (r"\documentclass{article}\usepackage{amsmath,amssymb,booktabs,siunitx,longtable,"
            r"pdflscape,array}\begin{document}")
    with tempfile.TemporaryDirectory() as tmp:
        with open(f"{tmp}/a.tex", "w") as fh:
            fh.write(f"{head}\n{out}\n\\end{{document}}\n")
        done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                               "a.tex"], cwd=tmp, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout[-2000:]
