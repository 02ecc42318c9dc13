"""exactdp.io.figure_frame: plain-text log axes, fixed margins, one drawing per saved figure.

Independent routes: the plotted values against the closed form of EM's expected error; the
written PNG's size against the figure's inches times its resolution; the PDF's page box
against its inches in points.
"""

from __future__ import annotations

import re

import sympy

from exactdp import ExponentialMechanism
from exactdp.io.figure_frame import (
    PNG_DPI,
    _decade_label,
    log_axes,
    new_figure,
    save_figure,
)
from exactdp.io.figures import compute_curves, plot_expected_error

BUYERS = (3, 4, 3, 2, 2)


def test_tick_labels_are_plain_text_and_the_curves_unchanged():
    """The figures' tick labels need no mathtext (it was half of their drawing time): the
    log axes read 0.1, 1, 10; the plotted values are the curves' own (here the exact
    expected error of EM at epsilon = 1 on (3, 4, 3, 2, 2), by the closed form
    ``sum_r gap_r e^{-gap_r / 2} / sum_r e^{-gap_r / 2}``)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    assert [_decade_label(x) for x in (0.01, 0.1, 1.0, 10.0, 100.0)] == [
        "0.01", "0.1", "1", "10", "100"]
    grid = (sympy.Rational(1, 10), 1, 10)
    c = compute_curves("buyers", {"EM": ExponentialMechanism(1)}, BUYERS, None, grid)
    fig = plot_expected_error([c])
    FigureCanvasAgg(fig).draw()
    ax = fig.axes[0]
    texts = [t.get_text() for t in (*ax.get_xticklabels(), *ax.get_yticklabels())]
    assert texts and not any("$" in t for t in texts)
    assert {"0.1", "1", "10"} <= set(texts)
    assert ax.get_xscale() == "log" and ax.get_yscale() == "linear"
    gaps = [1, 0, 1, 2, 2]
    w = [sympy.exp(-sympy.Rational(g, 2)) for g in gaps]
    want = float(sum(g * x for g, x in zip(gaps, w, strict=True)) / sum(w))
    assert abs(ax.lines[0].get_ydata()[1] - want) < 1e-12
    log_axes(ax, "xy")
    assert ax.get_yscale() == "log"
    assert len(ax.xaxis.get_minor_locator().tick_values(1, 10)) == 0  # decades only


def test_a_narrow_log_axis_has_ticks_at_1_2_5():
    """A grid spanning less than NARROW_LOG_SPAN (here 1/2 to 2) keeps labelled ticks inside
    its view: 0.5, 1, 2."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    grid = (sympy.Rational(1, 2), 1, 2)
    c = compute_curves("buyers", {"EM": ExponentialMechanism(1)}, BUYERS, None, grid)
    fig = plot_expected_error([c])
    FigureCanvasAgg(fig).draw()
    lo, hi = fig.axes[0].get_xlim()
    shown = {t.get_text() for t in fig.axes[0].get_xticklabels()
             if lo <= t.get_position()[0] <= hi}
    assert {"0.5", "1", "2"} <= shown


def test_save_figure_writes_the_png_and_the_pdf_at_their_sizes(tmp_path):
    """One drawing gives both files: the PNG at PNG_DPI (pixels = inches x dpi), the PDF's
    page box the figure's inches in points (72 per inch)."""
    from PIL import Image

    fig = new_figure(2)
    w, h = fig.get_size_inches()
    png, pdf = save_figure(fig, tmp_path, "frame")
    with Image.open(png) as im:
        assert im.size == (round(w * PNG_DPI), round(h * PNG_DPI))
    box = re.search(rb"/MediaBox \[ *0 0 ([\d.]+) ([\d.]+) *\]", pdf.read_bytes())
    assert box is not None
    assert abs(float(box[1]) - w * 72) < 0.01 and abs(float(box[2]) - h * 72) < 0.01


#: A child process: the PDF backend imported after defer_font_subsetting, whether
#: fontTools' subsetter ran (its table classes loaded), then a Type 42 save (the subsetter
#: used) and whether the PDF embeds the TrueType font program (/FontFile2).
_DEFERRED = """
import sys
from exactdp.io.figure_frame import defer_font_subsetting, new_figure
defer_font_subsetting()
import matplotlib.backends.backend_pdf
print("fontTools.ttLib.tables.otTables" in sys.modules)
from matplotlib import rc_context
fig = new_figure(1, legend=False)
fig.axes[0].set_title("Type 42")
with rc_context({"pdf.fonttype": 42}):
    fig.savefig(sys.argv[1])
print(b"/FontFile2" in open(sys.argv[1], "rb").read())
"""


def test_font_subsetting_is_deferred_until_a_type_42_pdf_needs_it(tmp_path):
    """The PDF backend imports fontTools' subsetter at its top; deferred, its code runs
    only when a Type 42 PDF is saved, which then still embeds the TrueType font."""
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", _DEFERRED, str(tmp_path / "t42.pdf")],
                         capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["False", "True"]
