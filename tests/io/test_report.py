"""The report: every result present, numbers from exact values, a PDF whose tables fit.

Independent routes: softmax and two-item closed forms computed here with mpmath from the
scores (the formula page, docs/formulas.md), exact privacy losses from ``privacy_loss``,
exact entropies and expected errors from the exact probabilities.
"""

from __future__ import annotations

import dataclasses
import os
import re

import mpmath
import pytest
import sympy

from exactdp import ExponentialMechanism, PermuteAndFlip, ReportNoisyMax, privacy_loss
from exactdp.io.document import compile_latex, find_engine, overfull_boxes, write_report
from exactdp.io.figures import (
    compute_curves,
    plot_entropy,
    plot_expected_error,
    plot_privacy_loss,
)
from exactdp.io.report import build_report, pricing_report, render

BUYERS = (3, 4, 3, 2, 2)
BUYERS_NEIGHBOUR = (3, 3, 2, 1, 1)


def need_engine():
    """Skip without a LaTeX engine, except in CI (CI=true), where its absence fails."""
    if find_engine() is None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("CI must install a LaTeX engine (see .ci/run)")
        pytest.skip("no LaTeX engine (latexmk / pdflatex) installed")


@pytest.fixture(scope="module")
def report():
    return build_report("1")


@pytest.fixture(scope="module")
def written(report, tmp_path_factory):
    return write_report(report, tmp_path_factory.mktemp("report"),
                        pdf=find_engine() is not None)


def _em_expected_error(q, eps, sens):
    with mpmath.workdps(40):
        top = max(q)
        w = [mpmath.exp(mpmath.mpf(eps) * (v - top) / (2 * sens)) for v in q]
        return mpmath.fsum((top - v) * x for v, x in zip(q, w, strict=True)) / mpmath.fsum(w)


def test_every_result_is_in_the_text_summary(report):
    text = render(report, "text")
    for needle in ("database D", "person", "q(D) = (3, 4, 3, 2, 2)", "q(D') = (3, 3, 2, 1, 1)",
                   "sensitivity 1", "sensitivity 5", "monotonic: no", "EM", "PF", "RNM-Exp",
                   "RNM-Laplace", "Optimal", "E[error]", "worst loss", "Dominance",
                   "worst neighbours", "certified"):
        assert needle in text, needle
    # EM, buyers, eps = 1: softmax of q/2 (Delta = 1, c = 2), computed here independently
    assert mpmath.nstr(_em_expected_error(BUYERS, 1, 1), 6) in text
    # PF's loss on the pair is exactly eps/2 = 0.5 (both buyers PF rows print 0.5)
    row = next(ln for ln in text.splitlines() if ln.strip().startswith("PF "))
    assert " 0.5 " in row


def test_pricing_report_is_the_pricing_example_in_one_string():
    md = pricing_report("1", fmt="markdown", dps=8)
    assert "sensitivity 1" in md and "sensitivity 5" in md
    # EM, buyers, eps = 1, 8 digits: the softmax of q/2 computed here independently
    assert mpmath.nstr(_em_expected_error(BUYERS, 1, 1), 8) in md


def test_digits_25_are_exact_not_float_noise(report):
    text = render(dataclasses.replace(report, dps=25), "text")  # dps: printing only
    pf = PermuteAndFlip(1)
    exact = privacy_loss(pf, BUYERS, BUYERS_NEIGHBOUR).value  # log of a ratio of exp sums
    em = privacy_loss(ExponentialMechanism(1), BUYERS, BUYERS_NEIGHBOUR).value
    with mpmath.workdps(40):
        assert mpmath.nstr(mpmath.mpf(sympy.N(em, 40)), 25) in text
    assert sympy.simplify(exact - sympy.Rational(1, 2)) == 0
    with mpmath.workdps(40):
        err = _em_expected_error(BUYERS, 1, 1)
    assert mpmath.nstr(err, 25) in text


def test_scores_mode_and_markdown():
    rep = build_report("1/2", example=None, scores=["1", "0"], neighbour=["0", "1"])
    md = render(rep, "markdown")
    assert md.startswith("# exactdp report") and "| EM |" in md.replace("|EM|", "| EM |")
    # two items, gap 1, eps = 1/2, c = 2: PF loses w.p. e^{-1/4}/2 (formula page, section 2)
    assert mpmath.nstr(mpmath.exp(-0.25) / 2, 6) in md
    with pytest.raises(ValueError, match=r"build_report: len\(neighbour\) must be 2"):
        build_report("1", example=None, scores=[1, 0], neighbour=[0, 1, 2])


def test_files_written_and_summary(written):
    names = {p.name for p in written.directory.iterdir()}
    for stem in ("expected-error", "error-ratio", "privacy-loss", "probabilities", "entropy"):
        assert {f"{stem}.png", f"{stem}.pdf"} <= names
        assert (written.directory / f"{stem}.png").stat().st_size > 10_000
    summary = written.summary.read_text()
    assert "![" in summary and "expected-error.png" in summary
    tex = written.tex.read_text()
    assert r"\documentclass" in tex and r"\begin{document}" in tex
    assert r"\varepsilon = 1" in tex and r"\Delta = 5" in tex
    assert tex.count(r"\includegraphics") == 5 and r"\appendix" in tex


def test_report_pdf_compiles_and_everything_fits(written):
    need_engine()
    assert written.compiled is not None and written.compiled.pdf is not None, (
        written.compiled.message)
    boxes = overfull_boxes(written.compiled.log)
    assert all(b <= 1.0 for b in boxes), boxes
    assert "LaTeX Warning: Reference" not in written.compiled.log
    pages = re.search(r"Output written on .*?\((\d+) pages?", written.compiled.log)
    assert pages and 3 <= int(pages.group(1)) <= 12


def test_readme_table_example_fits_on_the_page(tmp_path, capsys):
    """The README's wide table (four mechanisms with exact forms) compiles without overflow."""
    from exactdp.io.cli import main

    need_engine()
    code = main(["table", "--scores", "3,1,0,0,-2", "--epsilon", "2", "--mechanisms",
                 "em,pf,rnm-exp,rnm-laplace", "--format", "latex", "--standalone"])
    out = capsys.readouterr().out
    assert code == 0
    tex = tmp_path / "table.tex"
    tex.write_text(out)
    res = compile_latex(tex)
    assert res.pdf is not None, res.message
    assert all(b <= 1.0 for b in overfull_boxes(res.log)), overfull_boxes(res.log)


def test_overfull_parser():
    log = ("Overfull \\hbox (477.3pt too wide) in paragraph\n"
           "Overfull \\vbox (2.0pt too high) has occurred\nUnderfull \\hbox (badness 10000)")
    assert overfull_boxes(log) == [477.3, 2.0]


# ---------------------------------------------------------------------------- figures
GRID = (sympy.Rational(1, 10), sympy.Integer(1), sympy.Integer(3))


@pytest.fixture(scope="module")
def curves():
    mechs = {"EM": ExponentialMechanism(1), "PF": PermuteAndFlip(1),
             "RNM-Laplace": ReportNoisyMax(1, noise="laplace")}
    return compute_curves("buyers", mechs, BUYERS, BUYERS_NEIGHBOUR, GRID)


def _ydata(fig, label):
    line = next(ln for ln in fig.axes[0].lines if ln.get_label() == label)
    return list(line.get_xdata()), list(line.get_ydata())


def test_plotted_errors_equal_exact_values(curves):
    fig = plot_expected_error([curves])
    for label, mech in (("EM", ExponentialMechanism), ("PF", PermuteAndFlip)):
        xs, ys = _ydata(fig, label)
        assert xs == [float(e) for e in GRID]
        for eps, y in zip(GRID, ys, strict=True):
            exact = mech(eps).distribution(BUYERS).expected_error(method="exact")
            assert y == pytest.approx(float(sympy.N(exact, 30)), rel=1e-14)
    # and EM against the softmax computed here
    _, ys = _ydata(fig, "EM")
    assert ys[1] == pytest.approx(float(_em_expected_error(BUYERS, 1, 1)), rel=1e-14)


def test_plotted_losses_equal_exact_privacy_loss(curves):
    fig = plot_privacy_loss([curves])
    for label, mech in (("EM", ExponentialMechanism(1)), ("PF", PermuteAndFlip(1)),
                        ("RNM-Laplace", ReportNoisyMax(1, noise="laplace"))):
        _, ys = _ydata(fig, label)
        for eps, y in zip(GRID, ys, strict=True):
            exact = privacy_loss(mech.with_epsilon(eps), BUYERS, BUYERS_NEIGHBOUR).value
            assert y == pytest.approx(float(sympy.N(exact, 30)), rel=1e-13)
    _, bound = _ydata(fig, r"loss $= \varepsilon$")
    assert bound == [float(e) for e in GRID]


def test_plotted_entropy_against_temperature(curves):
    fig = plot_entropy([curves])
    xs, ys = _ydata(fig, "PF")
    assert xs == [float(2 / e) for e in GRID]  # T = c Delta / eps, c = 2, Delta = 1
    for eps, y in zip(GRID, ys, strict=True):
        exact = PermuteAndFlip(eps).distribution(BUYERS).entropy(method="exact")
        assert y == pytest.approx(float(sympy.N(exact, 30)), rel=1e-13)


# ---------------------------------------------------------------------------- the printer
def test_table_long_wide_and_formats():
    from exactdp.io.latex import table

    long_rows = [[str(i), sympy.Rational(1, i + 1)] for i in range(50)]
    tex = table(long_rows, ["i", "1/(i+1)"], fmt="latex", caption="long")
    assert r"\begin{longtable}" in tex and r"\endhead" in tex  # breaks across pages
    assert "0.0204082" in tex  # 1/49 to 6 digits, from the exact rational
    wide = [[f"r{i}"] + [sympy.Rational(1, 3)] * 14 for i in range(3)]
    heads = ["r"] + [f"mechanism {k}" for k in range(14)]
    tex = table(wide, heads, fmt="latex", caption="wide")
    assert r"\begin{landscape}" in tex or tex.count(r"\begin{tabular}") > 1
    assert tex.count(r"\begin{tabular}") >= 2 and "(continued)" in tex  # too wide: split
    md = table([["a|b", 1, None, True]], ["x", "n", "none", "ok"], fmt="markdown")
    assert r"a\|b" in md and "| - |" in md and "yes" in md
    with pytest.raises(ValueError, match=r"table: len\(rows\[0\]\) must be 2"):
        table([[1]], ["a", "b"])
    with pytest.raises(ValueError, match="fmt must be one of"):
        table([[1]], ["a"], fmt="html")


def test_format_number_exact_digits_and_huge_values():
    from exactdp.io.latex import format_number

    third = sympy.Rational(1, 3)
    assert format_number(third, 25) == "0." + "3" * 25
    assert format_number(sympy.Integer(10) ** 5000, 3) == "1.0e+5000"
    # exp(-1e6) = 10**(-1e6/ln 10): mantissa and exponent from log10 (independent route)
    with mpmath.workdps(60):
        L = -mpmath.mpf(10) ** 6 / mpmath.ln10
        k = int(mpmath.floor(L))
        mant = mpmath.nstr(mpmath.power(10, L - k), 4)
    assert format_number(sympy.exp(-sympy.Integer(10) ** 6), 4) == f"{mant}e{k}"
    assert format_number(sympy.oo) == "inf" and format_number(12345, 6) == "12345"
    with pytest.raises(TypeError, match="float"):
        format_number(0.1)
    with pytest.raises(ValueError, match="dps"):
        format_number(third, 0)


def test_wide_and_long_tables_compile_without_overflow(tmp_path):
    from exactdp.io.latex import latex_document, table

    need_engine()
    wide = [[f"r{i}"] + [sympy.Rational(i + 1, 7)] * 14 for i in range(60)]
    heads = ["r"] + [f"mechanism {k}" for k in range(14)]
    body = table(wide, heads, fmt="latex", caption="A wide, long table")
    tex = tmp_path / "wide.tex"
    tex.write_text(latex_document(body))
    res = compile_latex(tex)
    assert res.pdf is not None, res.message
    assert all(b <= 1.0 for b in overfull_boxes(res.log)), overfull_boxes(res.log)


def page_blank_fractions(pdf, dpi: int = 40, min_gap_in: float = 0.35) -> list[float]:
    """Per page, the fraction of the text block (A4, 2.2 cm margins) in blank bands taller
    than ``min_gap_in`` inches (from ``pdftoppm`` page images, read with Pillow)."""
    import shutil
    import subprocess
    import tempfile
    from pathlib import Path

    from PIL import Image

    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm (poppler-utils) is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["pdftoppm", "-r", str(dpi), "-gray", str(pdf), f"{tmp}/p"],
                       check=True, capture_output=True)
        pages = sorted(Path(tmp).glob("p-*.pgm"), key=lambda p: int(p.stem.split("-")[1]))
        out = []
        for page in pages:
            img = Image.open(page)
            w, h = img.size
            px = img.load()
            margin = round(2.2 / 2.54 * dpi)
            rows = range(margin, h - margin)
            blank = [all(px[x, y] > 200 for x in range(margin, w - margin)) for y in rows]
            gap = big = 0
            for b in [*blank, False]:
                if b:
                    gap += 1
                    continue
                if gap >= min_gap_in * dpi:
                    big += gap
                gap = 0
            out.append(big / len(blank))
    return out


def test_page_blank_fractions_sees_a_blank_page(tmp_path):
    need_engine()
    tex = tmp_path / "t.tex"
    tex.write_text("\\documentclass{article}\\usepackage[a4paper,margin=2.2cm]{geometry}"
                   "\\begin{document}\\noindent\\rule{\\linewidth}{0.95\\textheight}\\newpage "
                   "\\noindent\\rule{\\linewidth}{0.5\\textheight}\\newpage x\\end{document}\n")
    res = compile_latex(tex)
    fill = page_blank_fractions(res.pdf)
    assert len(fill) == 3
    assert fill[0] < 0.15 and 0.4 < fill[1] < 0.6 and fill[2] > 0.9


def test_no_page_but_the_last_more_than_a_quarter_empty(written):
    need_engine()
    fill = page_blank_fractions(written.compiled.pdf)
    assert len(fill) >= 4
    assert all(f <= 0.25 for f in fill[:-1]), [round(f, 2) for f in fill]


def test_a_five_score_pair_leaves_no_page_but_the_last_a_third_empty(tmp_path):
    """On scores other than the pricing example (a five-score pair at epsilon 3/4) page 1 was
    37% white space with the next table floated away; every page but the last is now filled
    to at least 70% of its text block, and both tables stay in section 1, before the Figures."""
    need_engine()
    rep = build_report("3/4", example=None, scores=[3, 1, 0, 0, -2],
                       neighbour=[4, 2, 1, 1, -1])
    written = write_report(rep, tmp_path / "out", pdf=True)
    fill = page_blank_fractions(written.compiled.pdf)
    assert len(fill) >= 3 and all(f <= 0.30 for f in fill[:-1]), [round(f, 2) for f in fill]
    tex = (tmp_path / "out" / "report-body.tex").read_text()
    figures = tex.index(r"\section{Figures}")
    assert tex.count(r"\begin{table}", 0, figures) == 2  # both tables in section 1


def test_added_section_as_docs_report_md_describes(monkeypatch):
    """docs/report.md: a section is a function (report, fmt) -> str | None appended to
    SECTIONS; report.options carries the command-line options."""
    from exactdp.io import report as report_module

    def extra(rep, fmt):
        return f"EXTRA {fmt} {rep.options.get('my_option')}"

    monkeypatch.setattr(report_module, "SECTIONS", [*report_module.SECTIONS, extra])
    rep = build_report("1", example=None, scores=[1, 0], options={"my_option": 42})
    for fmt in ("text", "markdown", "latex"):
        assert f"EXTRA {fmt} 42" in render(rep, fmt)


def test_figures_use_computer_modern(written):
    """Issue 23: sans-serif figure fonts clashed with the document's Computer Modern."""
    data = (written.directory / "expected-error.pdf").read_bytes()
    assert b"DejaVuSans" not in data and (b"CMR10" in data.upper() or b"CMR" in data)


def test_report_body_inputs_into_a_paper(written, tmp_path):
    """Issue 23: report-body.tex is the body alone, for a paper's \\input; its first line
    names the packages; a paper that loads them and inputs it compiles."""
    import shutil

    need_engine()
    first = written.body.read_text().splitlines()[0]
    packages = re.search(r"\\usepackage\{([^}]*)\}", first).group(1)
    for f in written.directory.glob("*.pdf"):
        if f.name != "report.pdf":
            shutil.copy(f, tmp_path / f.name)
    shutil.copy(written.body, tmp_path / "report-body.tex")
    paper = tmp_path / "paper.tex"
    paper.write_text("\\documentclass{article}\n\\usepackage{" + packages + "}\n"
                     "\\begin{document}\n\\input{report-body}\n\\end{document}\n")
    res = compile_latex(paper)
    assert res.pdf is not None, res.message
    assert "\\documentclass" not in written.body.read_text()


def test_labels_name_the_outputs_and_each_table_says_how():
    rep = build_report("1", example=None, scores=[1, 0], labels=["yes", "no"])
    text = render(rep, "latex")
    assert "named by the given labels" in text and r"$\text{yes}$ &" in text
    rep = build_report("1", example=None, scores=[1, 0])
    assert render(rep, "text").count("numbered from 0 (0-based") >= 2
    with pytest.raises(ValueError, match=r"build_report: labels must be distinct"):
        build_report("1", example=None, scores=[1, 0], labels=["a", "a"])


def test_the_progress_bar_counts_every_step_of_the_exact_route(monkeypatch):
    """Issue 35 item 3: the bar moves with each analysis (distribution and pair, worst
    neighbour, certificate per mechanism; the dominance), not once per mechanism."""
    import exactdp.io.report as report_module

    seen = {}

    class Bar:
        def __init__(self, total, progress, seconds=None):
            seen["total"], seen["done"] = total, 0

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def update(self, k):
            seen["done"] += k

    monkeypatch.setattr(report_module, "report_bar", Bar)
    build_report("1", example=None, scores=[2, 1, 0], neighbour=[1, 2, 0],
                 mechanisms=["em", "pf", "optimal"])
    assert seen["total"] == 3 * 3 + 1 == seen["done"]
