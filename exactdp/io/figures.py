"""Figures of the report: exact values on a grid of epsilon, drawn with matplotlib.

Every plotted value is an exact quantity (sympy) evaluated with mpmath to
:data:`CURVE_DPS` digits and only then rounded to a float for drawing:

- expected error ``E[q* - q_M(q)]`` against epsilon (McKenna & Sheldon 2020, section 2);
- the EM / PF expected-error ratio against epsilon;
- the privacy loss ``max_r |ln Pr[M(q) = r] - ln Pr[M(q') = r]|`` of a pair of neighbouring
  score vectors against epsilon, with the line ``loss = epsilon`` (the DP bound);
- the output probabilities against epsilon;
- the Shannon entropy (nats) against the temperature ``T = c Delta / epsilon`` (the scale of
  the noise; EM is the Gibbs distribution at that temperature).

The formulas are on the documentation's formula page (``docs/formulas.md``). matplotlib is
used through its object API (``Figure`` + the Agg canvas): no pyplot state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import mpmath
import sympy
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..printing import format_number

#: Working precision (decimal digits) of every plotted value.
CURVE_DPS = 30
_STYLES = {"EM": ("C0", "-"), "PF": ("C1", "-"), "RNM-Exp": ("C2", ":"),
           "RNM-Laplace": ("C3", "--"), "RNM-Gumbel": ("C4", ":"), "Optimal": ("C5", "-.")}


def epsilon_grid(lo_exp: int = -13, hi_exp: int = 10) -> tuple[sympy.Rational, ...]:
    """Exact grid ``10^(k/10)`` rounded to 3 significant digits, ``k = lo_exp..hi_exp``.

    The default runs from 0.05 to 10 in 24 points, evenly spaced on a log axis.
    """
    out = []
    for k in range(lo_exp, hi_exp + 1):
        text = mpmath.nstr(mpmath.mpf(10) ** (mpmath.mpf(k) / 10), 3)
        out.append(sympy.Rational(text))
    return tuple(dict.fromkeys(out))


@dataclass(frozen=True)
class Curves:
    """Exact quantities of one case on an epsilon grid, as mpmath numbers.

    Attributes
    ----------
    title : str
        The case (e.g. ``"buyers"``).
    grid : tuple of sympy.Rational, shape (m,)
    gaps : tuple of sympy.Expr, shape (n,)
        ``q* - q_r``.
    probabilities, neighbour_probabilities : dict label -> list of tuple of mpf, shape (m, n)
        ``Pr[M(q) = r]`` and ``Pr[M(q') = r]`` per grid point (the second empty without q').
    temperature : dict label -> list of sympy.Expr, shape (m,)
        ``c Delta / epsilon`` per grid point.
    """

    title: str
    grid: tuple
    gaps: tuple
    labels: tuple
    probabilities: dict = field(default_factory=dict)
    neighbour_probabilities: dict = field(default_factory=dict)
    temperature: dict = field(default_factory=dict)

    def expected_error(self, label: str) -> list:
        """``sum_r (q* - q_r) Pr[M(q) = r]`` per grid point (mpf)."""
        with mpmath.workdps(CURVE_DPS):
            gaps = [mpmath.mpf(sympy.N(g, CURVE_DPS + 5)) for g in self.gaps]
            return [mpmath.fsum(g * p for g, p in zip(gaps, ps, strict=True))
                    for ps in self.probabilities[label]]

    def loss(self, label: str) -> list:
        """``max_r |ln P_r - ln P'_r|`` per grid point (mpf; inf if one side is 0)."""
        out = []
        with mpmath.workdps(CURVE_DPS):
            for ps, qs in zip(self.probabilities[label], self.neighbour_probabilities[label],
                              strict=True):
                worst = mpmath.mpf(0)
                for a, b in zip(ps, qs, strict=True):
                    if (a == 0) != (b == 0):
                        worst = mpmath.inf
                    elif a != 0:
                        worst = max(worst, abs(mpmath.log(a) - mpmath.log(b)))
                out.append(worst)
        return out

    def entropy(self, label: str) -> list:
        """``-sum_r P_r ln P_r`` (nats) per grid point (mpf)."""
        with mpmath.workdps(CURVE_DPS):
            return [-mpmath.fsum(p * mpmath.log(p) for p in ps if p > 0)
                    for ps in self.probabilities[label]]


def compute_curves(title: str, mechanisms: dict, scores, neighbour=None,
                   grid: Sequence | None = None, progress=None) -> Curves:
    """Evaluate each mechanism's exact distribution on the grid (and on the neighbour).

    Parameters
    ----------
    title : str
    mechanisms : dict label -> Mechanism
        Their own epsilon is replaced by each grid value (``with_epsilon``).
    scores, neighbour : sequences of numbers, shape (n,)
    grid : sequence of exact numbers, optional
        Default :func:`epsilon_grid`.
    progress : tqdm-like, optional
        ``update(1)`` after each mechanism.
    """
    grid = tuple(epsilon_grid() if grid is None else grid)
    first = next(iter(mechanisms.values())).distribution(scores)
    curves = Curves(title, grid, first.scores.gaps_exact, tuple(mechanisms))
    for label, mech in mechanisms.items():
        probs, nprobs, temps = [], [], []
        for eps in grid:
            m = mech.with_epsilon(eps)
            probs.append(m.distribution(scores).evalf(CURVE_DPS))
            if neighbour is not None:
                nprobs.append(m.distribution(neighbour).evalf(CURVE_DPS))
            temps.append(m.c * m.sensitivity / m.epsilon)
        curves.probabilities[label] = probs
        curves.temperature[label] = temps
        if neighbour is not None:
            curves.neighbour_probabilities[label] = nprobs
        if progress is not None:
            progress.update(1)
    return curves


# ---------------------------------------------------------------------------- drawing
def _floats(values) -> list[float]:
    return [float(v) for v in values]


def _new(ncols: int, nrows: int = 1, height: float = 2.7) -> Figure:
    fig = Figure(figsize=(6.4, height * nrows), layout="constrained")
    FigureCanvasAgg(fig)
    fig.subplots(nrows, ncols, squeeze=False)
    return fig


def _line(ax, x, y, label: str) -> None:
    color, style = _STYLES.get(label, (None, "-"))
    ax.plot(_floats(x), _floats(y), style, color=color, label=label, lw=1.4)


def _mark_epsilon(ax, epsilon) -> None:
    if epsilon is not None:
        ax.axvline(float(sympy.N(epsilon, 20)), color="0.6", lw=0.8, ls=":")


def plot_expected_error(cases: Sequence[Curves], epsilon=None) -> Figure:
    """Expected error against epsilon, one panel per case (log epsilon axis)."""
    fig = _new(len(cases))
    for ax, c in zip(fig.axes, cases, strict=True):
        for label in c.labels:
            _line(ax, c.grid, c.expected_error(label), label)
        _mark_epsilon(ax, epsilon)
        ax.set(xscale="log", xlabel=r"privacy parameter $\varepsilon$",
               ylabel="expected error (score units)", title=f"score {c.title}")
        ax.grid(alpha=0.3)
    fig.axes[0].legend(fontsize=7, frameon=False)
    return fig


def _ratio(a, b):
    """``a / b``, or 1 where both errors are 0 (every score tied: both mechanisms always
    pick a maximizer, and the ratio's limit as the gaps close is 1)."""
    return mpmath.mpf(1) if b == 0 and a == 0 else a / b


def plot_error_ratio(cases: Sequence[Curves], epsilon=None, num="EM", den="PF") -> Figure:
    """``E[error of num] / E[error of den]`` against epsilon, one line per case."""
    fig = _new(1, height=2.6)
    ax = fig.axes[0]
    for k, c in enumerate(cases):
        with mpmath.workdps(CURVE_DPS):
            ratio = [_ratio(a, b) for a, b in zip(c.expected_error(num),
                                                  c.expected_error(den), strict=True)]
        ax.plot(_floats(c.grid), _floats(ratio), ["-", "--", ":"][k % 3], lw=1.4,
                label=f"score {c.title}")
    ax.axhline(1, color="0.6", lw=0.8)
    _mark_epsilon(ax, epsilon)
    ax.set(xscale="log", xlabel=r"privacy parameter $\varepsilon$",
           ylabel=f"E[error {num}] / E[error {den}]")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, frameon=False)
    return fig


def plot_privacy_loss(cases: Sequence[Curves], epsilon=None) -> Figure:
    """Privacy loss of the pair (q, q') against epsilon, with ``loss = epsilon``."""
    cases = [c for c in cases if c.neighbour_probabilities]
    fig = _new(len(cases))
    for ax, c in zip(fig.axes, cases, strict=True):
        for label in c.labels:
            _line(ax, c.grid, c.loss(label), label)
        ax.plot(_floats(c.grid), _floats(c.grid), color="k", lw=0.9, ls=(0, (5, 3)),
                label=r"loss $= \varepsilon$")
        _mark_epsilon(ax, epsilon)
        ax.set(xscale="log", yscale="log", xlabel=r"privacy parameter $\varepsilon$",
               ylabel="privacy loss (nats)", title=f"score {c.title}")
        ax.grid(alpha=0.3)
    fig.axes[0].legend(fontsize=7, frameon=False)
    return fig


def plot_probabilities(cases: Sequence[Curves], epsilon=None, mechanisms=("EM", "PF"),
                       outputs: Sequence[str] | None = None) -> Figure:
    """Each output's probability against epsilon: rows = mechanisms, columns = cases."""
    fig = _new(len(cases), len(mechanisms), height=2.5)
    axes = [fig.axes[i * len(cases):(i + 1) * len(cases)] for i in range(len(mechanisms))]
    for row, label in zip(axes, mechanisms, strict=True):
        for ax, c in zip(row, cases, strict=True):
            probs = c.probabilities[label]
            for r in range(len(probs[0])):
                name = outputs[r] if outputs else str(r)
                ax.plot(_floats(c.grid), _floats(p[r] for p in probs), lw=1.3,
                        ls=["-", "--", "-.", ":"][r % 4], label=f"r = {name}")
            _mark_epsilon(ax, epsilon)
            ax.set(xscale="log", xlabel=r"privacy parameter $\varepsilon$",
                   ylabel=rf"$\Pr[\mathrm{{{label}}}(q) = r]$", title=f"{label}, score {c.title}",
                   ylim=(0, 1))
            ax.grid(alpha=0.3)
    fig.axes[0].legend(fontsize=7, frameon=False, ncol=2)
    return fig


def plot_entropy(cases: Sequence[Curves]) -> Figure:
    """Entropy (nats) against the temperature ``c Delta / epsilon``, with ``ln n``."""
    fig = _new(len(cases))
    for ax, c in zip(fig.axes, cases, strict=True):
        for label in c.labels:
            _line(ax, c.temperature[label], c.entropy(label), label)
        n = len(c.gaps)
        ax.axhline(float(mpmath.log(n)), color="k", lw=0.9, ls=(0, (5, 3)), label=r"$\ln n$")
        ax.set(xscale="log", xlabel=r"temperature $T = c\Delta/\varepsilon$ (score units)",
               ylabel="entropy (nats)", title=f"score {c.title}")
        ax.grid(alpha=0.3)
    fig.axes[0].legend(fontsize=7, frameon=False)
    return fig


@dataclass(frozen=True)
class FigureSpec:
    """A written figure: its file stem, the PNG and PDF paths and its caption."""

    name: str
    png: Path
    pdf: Path
    caption: str  # LaTeX
    caption_text: str


def save_figure(fig: Figure, out_dir: Path, name: str) -> tuple[Path, Path]:
    """Write ``name.png`` (200 dpi) and ``name.pdf`` (no creation date: reproducible)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    png, pdf = out_dir / f"{name}.png", out_dir / f"{name}.pdf"
    fig.savefig(png, dpi=200, metadata={"Software": None})
    fig.savefig(pdf, metadata={"CreationDate": None, "Creator": None, "Producer": None})
    return png, pdf


def report_figures(cases: Sequence[Curves], out_dir: Path, epsilon=None,
                   outputs: Sequence[str] | None = None, progress=None) -> list[FigureSpec]:
    """Draw and write the five figures of the report; returns their specs in order."""
    grid = cases[0].grid
    lo, hi = format_number(grid[0], 3), format_number(grid[-1], 3)
    span = (rf"$\varepsilon$ from ${lo}$ to ${hi}$ ({len(grid)} points, log-spaced; "
            "exact values)")
    span_t = f"epsilon from {lo} to {hi} ({len(grid)} points, log-spaced; exact values)"
    mark = " The dotted vertical line marks the report's $\\varepsilon$." if epsilon else ""
    items = [
        ("expected-error", plot_expected_error(cases, epsilon),
         "Expected error $\\mathbb{E}[q^* - q_{M(q)}]$ against $\\varepsilon$, " + span + "."
         + mark, "Expected error against epsilon, " + span_t + "."),
        ("error-ratio", plot_error_ratio(cases, epsilon),
         "Ratio of the expected errors of EM and PF against $\\varepsilon$ (above 1: PF has "
         "the smaller error; where both errors are 0, every score tied, the ratio is drawn "
         "at its limit 1), " + span + "." + mark,
         "EM / PF expected-error ratio against epsilon, " + span_t + "."),
    ]
    if any(c.neighbour_probabilities for c in cases):
        items.append(("privacy-loss", plot_privacy_loss(cases, epsilon),
                      "Privacy loss $\\max_r |\\ln \\Pr[M(q)=r] - \\ln \\Pr[M(q')=r]|$ of the "
                      "pair $(q, q')$ against $\\varepsilon$; the dashed line is the bound "
                      "$\\varepsilon$, " + span + "." + mark,
                      "Privacy loss of the pair against epsilon with the line loss = epsilon, "
                      + span_t + "."))
    items += [
        ("probabilities", plot_probabilities(cases, epsilon, outputs=outputs),
         "Output probabilities of EM and PF against $\\varepsilon$, " + span + "." + mark,
         "Output probabilities against epsilon, " + span_t + "."),
        ("entropy", plot_entropy(cases),
         "Shannon entropy of the output against the temperature $T = c\\Delta/\\varepsilon$ "
         "(large $T$: nearly uniform, entropy $\\ln n$), " + span + ".",
         "Entropy against temperature, " + span_t + "."),
    ]
    specs = []
    for name, fig, cap, cap_t in items:
        png, pdf = save_figure(fig, out_dir, name)
        specs.append(FigureSpec(name, png, pdf, cap, cap_t))
        if progress is not None:
            progress.update(1)
    return specs
