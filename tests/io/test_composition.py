"""The composition figure of ``report --compose K`` (issue 22 item 5, issue 23 item 3).

Independent routes: the k-fold delta of a pair by enumerating every output sequence with
mpmath (from the exact output probabilities), and dp_accounting's own PLD of the pair.
"""

from __future__ import annotations

import itertools
import re
from fractions import Fraction

import mpmath
import pytest
import sympy

from exactdp import ExponentialMechanism, PermuteAndFlip
from exactdp.io.composition import (
    composition_epsilons,
    pair_composition,
    plot_pair_compositions,
)
from exactdp.io.document import find_engine, overfull_boxes, write_report
from exactdp.io.report import build_report
from tests.io.test_report import need_engine, page_blank_fractions

Q, Q2 = (0, 1, 2), (1, 0, 1)  # neighbours: ||q - q'||_inf = 1


def _enumerated_delta(mech, k: int, eps) -> mpmath.mpf:
    """``sum over output sequences of max(0, P^k - e^eps Q^k)``, at 40 digits."""
    with mpmath.workdps(40):
        p = mech.distribution(Q).evalf(40)
        q = mech.distribution(Q2).evalf(40)
        e = mpmath.exp(mpmath.mpf(sympy.N(eps, 45)))
        total = mpmath.mpf(0)
        for seq in itertools.product(range(len(p)), repeat=k):
            a = mpmath.fprod(p[r] for r in seq)
            b = mpmath.fprod(q[r] for r in seq)
            total += max(mpmath.mpf(0), a - e * b)
        return total


@pytest.mark.parametrize("mech", [ExponentialMechanism(1), PermuteAndFlip(1)])
def test_certified_curves_enclose_the_enumerated_delta(mech):
    k = 3
    pc = pair_composition(mech, Q, Q2, k, "pair")
    assert len(pc.epsilons) >= 5 and pc.epsilons[0] == 0
    assert all(float(e) < pc.top for e in pc.epsilons)
    for e, lo, hi in zip(pc.epsilons, pc.lower, pc.upper, strict=True):
        exact = _enumerated_delta(mech, k, e)
        assert lo <= hi
        assert float(lo) <= float(exact) * (1 + 1e-12) + 1e-30
        assert float(exact) <= float(hi) * (1 + 1e-12) + 1e-30
        assert abs(float(exact) - float(lo)) <= 1e-3 * float(exact) + 1e-12
    # dp_accounting's estimates of the same pair: pessimistic above the certified lower
    # curve, optimistic below the certified upper curve (up to its 1e-15 tail floor)
    pytest.importorskip("dp_accounting")  # the accounting extra (the certified part ran)
    assert pc.pessimistic is not None and pc.optimistic is not None
    for lo, hi, pe, op in zip(pc.lower, pc.upper, pc.pessimistic, pc.optimistic,
                              strict=True):
        assert pe >= float(lo) * (1 - 1e-9)
        assert op <= float(hi) * (1 + 1e-9) + 1e-14
        assert op <= pe * (1 + 1e-9) + 1e-14
        assert abs(pe - float(lo)) <= 0.05 * float(lo) + 1e-9  # the same pair: close


def test_lattice_route_encloses_the_enumerated_delta(monkeypatch):
    """Beyond FIGURE_MAX_SUPPORT output-count vectors the figure uses the certified lattice."""
    from exactdp.io import composition

    monkeypatch.setattr(composition, "FIGURE_MAX_SUPPORT", 2)
    mech = PermuteAndFlip(1)
    pc = pair_composition(mech, Q, Q2, 3, "pair")
    assert pc.algorithms == ("grid",)
    for e, lo, hi in zip(pc.epsilons, pc.lower, pc.upper, strict=True):
        exact = float(_enumerated_delta(mech, 3, e))
        assert float(lo) <= exact * (1 + 1e-12) and exact <= float(hi) * (1 + 1e-12)
        assert float(hi - lo) <= max(1e-2 * float(lo), 1e-12) * 1.01


def test_epsilon_grid_is_round_and_below_top():
    grid = composition_epsilons(1.98)
    assert grid == tuple(sympy.Rational(i, 5) for i in range(10))
    assert composition_epsilons(0.0) == (0,)
    grid = composition_epsilons(0.03)
    assert grid[1] == sympy.Rational(1, 400) and float(grid[-1]) < 0.03


def test_figure_has_the_four_curves_data():
    pytest.importorskip("dp_accounting")  # two of the four curves are its estimates
    from matplotlib import rc_context

    from exactdp.io.figures import STYLE

    pc = pair_composition(ExponentialMechanism(1), Q, Q2, 4, "EM, q")
    with rc_context(STYLE):
        fig = plot_pair_compositions([pc])
    lines = {ln.get_label(): ln for ln in fig.axes[0].get_lines()}
    assert len(lines) == 4 and fig.axes[0].get_yscale() == "log"
    series = {"exactdp lower": pc.lower, "exactdp upper": pc.upper,
              "pessimistic": pc.pessimistic, "optimistic": pc.optimistic}
    for key, ys in series.items():
        (line,) = [ln for lab, ln in lines.items() if key in lab]
        want = [float(y) for y in ys if y > 0]
        assert list(line.get_ydata()) == pytest.approx(want, rel=1e-12)
    assert len(fig.legends) == 1  # one shared legend


def test_without_dp_accounting_the_caption_says_so(monkeypatch, tmp_path):
    def missing(*args, **kwargs):
        raise ImportError("no dp_accounting")

    import exactdp.io.composition as io_composition
    from exactdp.io.composition import composition_figure

    monkeypatch.setattr(io_composition, "dp_accounting_pair_curve", missing)

    rep = build_report("1", example=None, scores=list(Q), neighbour=list(Q2))
    spec = composition_figure(rep, 2, tmp_path)
    assert spec.png.stat().st_size > 10_000 and spec.pdf.exists()
    assert "not installed" in spec.caption and "not installed" in spec.caption_text
    assert "certified" in spec.caption
    # LaTeX: every underscore outside math is escaped (issue 35 item 1: an unescaped
    # ``dp_accounting`` stopped the PDF on the README's install)
    text = re.sub(r"\$[^$]*\$", "", spec.caption)
    assert re.search(r"(?<!\\)_", text) is None, text


def test_bad_k_is_a_one_line_error(tmp_path):
    from exactdp.io.composition import composition_figure

    rep = build_report("1", example=None, scores=list(Q), neighbour=list(Q2))
    with pytest.raises(ValueError, match=r"write_report: options\['compose'\] must be"):
        composition_figure(rep, 0, tmp_path)


@pytest.fixture(scope="module")
def composed(tmp_path_factory):
    rep = build_report("1", options={"compose": 10})
    return write_report(rep, tmp_path_factory.mktemp("composed"),
                        pdf=find_engine() is not None)


def test_report_compose_10_writes_the_figure_in_the_composition_section(composed):
    out = composed.directory
    assert (out / "composition-pair.png").stat().st_size > 10_000
    data = (out / "composition-pair.pdf").read_bytes()
    assert b"DejaVuSans" not in data  # Computer Modern, as the document
    tex = composed.tex.read_text()
    assert r"\section{Composition}" in tex
    assert r"\includegraphics[width=\linewidth]{composition-pair.pdf}" in tex
    cap = tex[tex.index(r"\section{Composition}"):]
    assert "certified" in cap and "float" in cap and "K = 10" in cap
    assert tex.index(r"\section{Composition}") < tex.index(r"\appendix")
    summary = composed.summary.read_text()
    assert "## Composition" in summary and "composition-pair.png" in summary
    assert "composition-pair.png" in (out / "exactdp-manifest.txt").read_text()


def test_report_compose_10_pdf_compiles_and_no_page_is_a_quarter_empty(composed):
    need_engine()
    assert composed.compiled is not None and composed.compiled.pdf is not None, (
        composed.compiled.message)
    assert all(b <= 1.0 for b in overfull_boxes(composed.compiled.log))
    assert "LaTeX Warning: Reference" not in composed.compiled.log
    fill = page_blank_fractions(composed.compiled.pdf)
    assert all(f <= 0.25 for f in fill[:-1]), [round(f, 2) for f in fill]


def test_lower_never_above_upper_in_the_report_pairs():
    from exactdp.io.composition import report_pairs

    rep = build_report("1", example=None, scores=[3, 4, 3, 2, 2], neighbour=[3, 3, 2, 1, 1])
    items = report_pairs(rep, 10)
    assert [it.title for it in items] == ["EM, score q", "PF, score q"]
    for it in items:
        assert all(Fraction(0) <= lo <= hi <= 1 for lo, hi in
                   zip(it.lower, it.upper, strict=True))
        assert it.lower[0] > 0  # delta(0) is the total-variation distance of the pair
