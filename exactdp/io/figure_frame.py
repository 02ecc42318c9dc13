"""The figures' frame: matplotlib style, fixed margins, plain-text log axes, saving.

Shared by the report's figures (:mod:`exactdp.io.figures`) and the accountants' figures
(:mod:`exactdp.io.composition`). matplotlib is used through its object API (``Figure`` + the
Agg canvas): no pyplot state.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

#: matplotlib settings of every figure: Computer Modern (the document's font) for text and
#: mathematics, sizes that match a 10 pt document at full width.
STYLE: dict[Any, Any] = {  # Any keys: matplotlib types its keys as Literals
    "font.family": "serif",
    "font.serif": ["cmr10", "Computer Modern Roman", "DejaVu Serif"],
    "mathtext.fontset": "cm",
    # True for the axes' default formatters (matplotlib warns against cmr10 without
    # mathtext); :func:`log_axes` replaces them by plain-text ones
    "axes.formatter.use_mathtext": True,
    "axes.unicode_minus": False,
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    # titles at the top edge plus their pad (matplotlib's default place when no tick label
    # is on top), not placed by measuring every x tick label of the panel (issue 36)
    "axes.titley": 1.0,
}


#: Fixed margins of every figure, in inches: left (y tick labels and label), right, top
#: (a panel title), bottom (x tick labels and label), the legend's row, and the gaps between
#: panels (a y label; an x label above a title). Fixed instead of matplotlib's constrained
#: layout, which measured every tick label of every panel several times per figure (19% of
#: the report's CPU time: issue 36).
MARGINS = {"left": 0.6, "right": 0.08, "top": 0.22, "bottom": 0.45, "legend": 0.3,
           "wspace": 0.68, "hspace": 0.72}


def new_figure(ncols: int, nrows: int = 1, height: float = 1.8, legend: bool = True) -> Figure:
    """A figure of ``nrows x ncols`` panels, 6.4 in wide, with fixed margins (:data:`MARGINS`,
    no layout engine: constrained layout was a fifth of the report's figure time).

    Parameters
    ----------
    ncols, nrows : int
        Panels across and down.
    height : float
        Inches per row of panels.
    legend : bool
        Room for a legend below the panels (0.35 in).

    Returns
    -------
    matplotlib.figure.Figure
        On an Agg canvas; ``fig.axes`` holds the panels row by row.

    Examples
    --------
    >>> fig = new_figure(2)
    >>> len(fig.axes), [round(float(x), 2) for x in fig.get_size_inches()]
    (2, [6.4, 2.15])
    """
    width, total = 6.4, height * nrows + (0.35 if legend else 0)
    fig = Figure(figsize=(width, total))
    FigureCanvasAgg(fig)
    fig.subplots(nrows, ncols, squeeze=False)
    m = MARGINS
    bottom = m["bottom"] + (m["legend"] if legend else 0)
    panel_w = (width - m["left"] - m["right"] - (ncols - 1) * m["wspace"]) / ncols
    panel_h = (total - bottom - m["top"] - (nrows - 1) * m["hspace"]) / nrows
    fig.subplots_adjust(left=m["left"] / width, right=1 - m["right"] / width,
                        bottom=bottom / total, top=1 - m["top"] / total,
                        wspace=m["wspace"] / panel_w, hspace=m["hspace"] / panel_h)
    return fig


def _decade_label(x: float, pos=None) -> str:
    """A log axis's major tick label in plain text: ``0.01``, ``0.1``, ``1``, ``10``, ``100``
    (``1e-05``, ``1e+06`` outside ``[1e-3, 1e4]``), no mathtext."""
    return f"{x:g}"


#: A log axis whose data span less than this factor gets ticks at 1, 2 and 5 times each
#: power of ten instead of the decades alone (:func:`log_axes`; call it after plotting).
NARROW_LOG_SPAN = 30


def log_axes(ax, which: str = "x") -> None:
    """Log scale on the axes ``which`` (``"x"``, ``"y"``, ``"xy"``) and plain-text tick labels
    on both axes.

    The log axes get labelled decade ticks (:func:`_decade_label`; 1, 2 and 5 times each
    decade where the data span less than :data:`NARROW_LOG_SPAN`) and no minor ticks, the
    linear ones matplotlib's scalar labels without mathtext. matplotlib's defaults under
    :data:`STYLE` (mathtext labels, 8 minor ticks per decade, each a ``Tick`` object to build
    and draw twice) were half of the figures' CPU time.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Plotted already (the data limits choose the ticks).
    which : {"x", "y", "xy"}
        The axes made logarithmic.

    Examples
    --------
    >>> fig = new_figure(1, legend=False)
    >>> ax = fig.axes[0]
    >>> _ = ax.plot([1, 10, 100], [1, 2, 3])
    >>> log_axes(ax, "x")
    >>> ax.get_xscale(), ax.get_yscale()
    ('log', 'linear')
    """
    from matplotlib.ticker import (
        FuncFormatter,
        LogLocator,
        NullFormatter,
        NullLocator,
        ScalarFormatter,
    )

    if "x" in which:
        ax.set_xscale("log")
    if "y" in which:
        ax.set_yscale("log")
    spans = {"x": ax.dataLim.intervalx, "y": ax.dataLim.intervaly}
    for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
        if name in which:
            lo, hi = spans[name]
            if 0 < lo and hi < NARROW_LOG_SPAN * lo:  # few decades: ticks at 1, 2, 5 each
                axis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
            axis.set_major_formatter(FuncFormatter(_decade_label))
            axis.set_minor_locator(NullLocator())
            axis.set_minor_formatter(NullFormatter())
        else:
            axis.set_major_formatter(ScalarFormatter(useMathText=False))


@dataclass(frozen=True)
class FigureSpec:
    """A written figure: its file stem, the PNG and PDF paths and its caption."""

    name: str
    png: Path
    pdf: Path
    caption: str  # LaTeX
    caption_text: str


#: Resolution of the PNG figures (dots per inch); the layout is computed at this one.
PNG_DPI = 200


def save_figure(fig: Figure, out_dir: Path, name: str) -> tuple[Path, Path]:
    """Write ``name.png`` (:data:`PNG_DPI` dpi) and ``name.pdf`` (no creation date:
    reproducible) from one drawing of ``fig``.

    The figure is drawn once in Agg at the PNG's resolution (a layout engine, if the figure
    has one, runs there; :func:`new_figure` has fixed margins instead); the PNG is written
    from that canvas's pixels, and the PDF from the same figure with the layout frozen
    (``savefig`` would run the layout again for each format). The figure keeps the frozen
    layout afterwards.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    out_dir : pathlib.Path
        Created if needed.
    name : str
        The files' stem.

    Returns
    -------
    (pathlib.Path, pathlib.Path)
        The PNG and the PDF.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as d:
    ...     png, pdf = save_figure(new_figure(1), Path(d), "demo")
    ...     print(png.name, pdf.name, png.stat().st_size > 0)
    demo.png demo.pdf True
    """
    from matplotlib.image import imsave

    out_dir.mkdir(parents=True, exist_ok=True)
    defer_font_subsetting()
    png, pdf = out_dir / f"{name}.png", out_dir / f"{name}.pdf"
    canvas = FigureCanvasAgg(fig)
    fig.set_dpi(PNG_DPI)
    canvas.draw()  # the layout and the pixels, once
    fig.set_layout_engine("none")  # keep the positions just computed
    no_software: dict[str, Any] = {"Software": None}  # no version stamp: reproducible
    imsave(png, canvas.buffer_rgba(), format="png", origin="upper", dpi=PNG_DPI,
           metadata=no_software)
    fig.savefig(pdf, metadata={"CreationDate": None, "Creator": None, "Producer": None})
    return png, pdf


#: The module matplotlib's PDF backend imports at its top (``_backend_pdf_ps``: ``from
#: fontTools import subset``) but runs only to embed TrueType subsets (``pdf.fonttype`` 42).
FONT_SUBSET_MODULE = "fontTools.subset"


def defer_font_subsetting() -> None:
    """Let the PDF backend's import of :data:`FONT_SUBSET_MODULE` be lazy: its code runs on
    its first attribute access, not at import (~0.1 s CPU, 137 fontTools modules, that the
    report's Type 3 fonts never use).

    Python's own recipe ("Implementing lazy imports", the ``importlib`` documentation:
    :class:`importlib.util.LazyLoader`): the module object is registered in ``sys.modules``
    with a lazy loader, so a later ``pdf.fonttype`` 42 save (a user's matplotlibrc) loads
    it as before. Nothing is done once the module or the backend is imported, or where
    fontTools is missing (the backend's own import then fails as before).
    """
    if FONT_SUBSET_MODULE in sys.modules or "matplotlib.backends.backend_pdf" in sys.modules:
        return
    spec = importlib.util.find_spec(FONT_SUBSET_MODULE)
    if spec is None or spec.loader is None:
        return
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[FONT_SUBSET_MODULE] = module
    loader.exec_module(module)
    # bound on the package too: ``from fontTools import subset`` then finds the attribute
    # without asking the import system, which would read the module's ``__spec__`` (an
    # attribute access: the load itself)
    parent, _, child = FONT_SUBSET_MODULE.rpartition(".")
    setattr(sys.modules[parent], child, module)
