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

The formulas are on the documentation's formula page (``docs/formulas.md``). The style,
margins, axes and saving are :mod:`exactdp.io.figure_frame`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import mpmath
import numpy as np
import sympy
from matplotlib.figure import Figure

from ..mechanisms import REGISTRY
from ..printing import format_number
from .figure_frame import STYLE, FigureSpec, log_axes, new_figure, save_figure

if TYPE_CHECKING:
    from .report import Report

#: Working precision (decimal digits) of every plotted value.
CURVE_DPS = 30
#: Above this many outputs the curves come from the float64 view (``to_numpy``, relative
#: error about 1e-15) where every probability is above :data:`FLOAT_FLOOR` (no underflow),
#: else from the mpmath view at :data:`LARGE_CURVE_DPS` digits; the tables keep the exact
#: or mpmath values. Their probability panels draw at most :data:`LARGE_CURVES` groups of
#: tied outputs.
CURVE_FLOAT_N = 40
FLOAT_FLOOR = 1e-290
LARGE_CURVE_DPS = 15
LARGE_CURVES = 8
#: Okabe-Ito colours (safe for colour-blind readers), each with its own line style and
#: marker so that the curves stay apart in greyscale print.
OKABE_ITO = {"blue": "#0072B2", "vermillion": "#D55E00", "green": "#009E73",
              "orange": "#E69F00", "purple": "#CC79A7", "sky": "#56B4E9", "black": "#000000"}
_STYLES = {"EM": (OKABE_ITO["blue"], "-", "o"), "PF": (OKABE_ITO["vermillion"], "--", "s"),
           "RNM-Exp": (OKABE_ITO["green"], ":", "^"),
           "RNM-Laplace": (OKABE_ITO["orange"], "-.", "D"),
           "RNM-Gumbel": (OKABE_ITO["purple"], ":", "v"),
           "Optimal": (OKABE_ITO["sky"], "-.", "x")}
_CASE_COLOURS = (OKABE_ITO["blue"], OKABE_ITO["vermillion"], OKABE_ITO["green"])
OUTPUT_COLOURS = tuple(OKABE_ITO[k] for k in ("blue", "vermillion", "green", "orange",
                                                "purple", "sky", "black"))


#: Round values near ``10^(k/10)``, ``k = 0..9`` (ten per decade, nearly even on a log axis).
ROUND_MANTISSAS = ("1", "1.2", "1.5", "2", "2.5", "3", "4", "5", "6", "8")


def epsilon_grid(lo_exp: int = -13, hi_exp: int = 10) -> tuple[sympy.Rational, ...]:
    """Exact grid of round values near ``10^(k/10)``, ``k = lo_exp..hi_exp``.

    Each point is a mantissa of :data:`ROUND_MANTISSAS` times a power of ten; the default
    runs from 0.05 to 10 in 24 points (0.05, 0.06, 0.08, 0.1, 0.12, ..., 8, 10).
    """
    out = []
    for k in range(lo_exp, hi_exp + 1):
        decade, step = divmod(k, 10)
        out.append(sympy.Rational(ROUND_MANTISSAS[step]) * sympy.Integer(10) ** decade)
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
        """``sum_r (q* - q_r) Pr[M(q) = r]`` per grid point (mpf; float on float rows)."""
        g64 = np.array([float(g) for g in self.gaps])
        with mpmath.workdps(CURVE_DPS):
            gaps = [mpmath.mpf(sympy.N(g, CURVE_DPS + 5)) for g in self.gaps]
            return [float(g64 @ np.array(ps)) if _is_float(ps) else
                    mpmath.fsum(g * p for g, p in zip(gaps, ps, strict=True))
                    for ps in self.probabilities[label]]

    def loss(self, label: str) -> list:
        """``max_r |ln P_r - ln P'_r|`` per grid point (mpf; inf if one side is 0)."""
        out = []
        with mpmath.workdps(CURVE_DPS):
            for ps, qs in zip(self.probabilities[label], self.neighbour_probabilities[label],
                              strict=True):
                if _is_float(ps) and _is_float(qs):  # no zero: above FLOAT_FLOOR only
                    out.append(float(np.max(np.abs(np.log(ps) - np.log(qs)))))
                    continue
                worst = mpmath.mpf(0)
                for a, b in zip(ps, qs, strict=True):
                    if (a == 0) != (b == 0):
                        worst = mpmath.inf
                    elif a != 0:
                        worst = max(worst, abs(mpmath.log(a) - mpmath.log(b)))
                out.append(worst)
        return out

    def entropy(self, label: str) -> list:
        """``-sum_r P_r ln P_r`` (nats) per grid point (mpf; float on float rows)."""
        with mpmath.workdps(CURVE_DPS):
            return [float(-np.dot(ps, np.log(ps))) if _is_float(ps) else
                    -mpmath.fsum(p * mpmath.log(p) for p in ps if p > 0)
                    for ps in self.probabilities[label]]


def _is_float(row: Sequence) -> bool:
    """Whether a row of probabilities came from the float64 view (:func:`compute_curves`
    above :data:`CURVE_FLOAT_N` outputs), not the mpmath one."""
    return isinstance(row[0], float)


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
    scores = first.scores  # validated once (a ScoreVector), not at every grid point
    if neighbour is not None:
        neighbour = next(iter(mechanisms.values())).distribution(neighbour).scores
    curves = Curves(title, grid, first.scores.gaps_exact, tuple(mechanisms))
    values = _large_values if first.n > CURVE_FLOAT_N else _values
    for label, mech in mechanisms.items():
        probs, nprobs, temps = [], [], []
        for eps in grid:
            m = mech.with_epsilon(eps)
            probs.append(values(m.distribution(scores)))
            if neighbour is not None:
                nprobs.append(values(m.distribution(neighbour)))
            temps.append(m.c * m.sensitivity / m.epsilon)
        curves.probabilities[label] = probs
        curves.temperature[label] = temps
        if neighbour is not None:
            curves.neighbour_probabilities[label] = nprobs
        if progress is not None:
            progress.update(1)
    return curves


def figure_cases(report: Report, progress=None, grid: Sequence | None = None) -> list:
    """The figures' curves of every case of a report (its mechanisms but the optimal one,
    which is PF's distribution or drawn as PF's)."""
    out = []
    for case in report.cases:
        mechs = {r.label: r.mechanism for r in case.results if r.label != REGISTRY["optimal"].label}
        out.append(compute_curves(case.title, mechs, case.scores, case.neighbour, grid,
                                  progress))
    return out


def _values(dist) -> tuple:
    return dist.evalf(CURVE_DPS)


def _large_values(dist) -> tuple:
    """The float64 view where no probability underflows, else the mpmath view."""
    p = dist.to_numpy()
    if p.min() > FLOAT_FLOOR:
        return tuple(p.tolist())
    return dist.evalf(LARGE_CURVE_DPS)


# ---------------------------------------------------------------------------- drawing
def _floats(values) -> list[float]:
    return [float(v) for v in values]


def _line(ax, x, y, label: str, key: str | None = None) -> None:
    color, style, marker = _STYLES.get(key or label, ("0.3", "-", None))
    ax.plot(_floats(x), _floats(y), ls=style, color=color, label=label, lw=1.3,
            marker=marker, markevery=4, ms=3.5, mfc="white" if marker else None)


def _mark_epsilon(ax, epsilon) -> None:
    if epsilon is not None and epsilon.is_positive and epsilon.is_finite:
        ax.axvline(float(sympy.N(epsilon, 20)), color="0.55", lw=0.8, ls=":")


def _equal(a: Sequence, b: Sequence) -> bool:
    """Whether two curves of exact values (mpf at :data:`CURVE_DPS`) coincide."""
    if any(isinstance(v, float) for v in (*a, *b)):  # the float route: 1e-15 relative
        return all(abs(x - y) <= 1e-12 * max(abs(x), abs(y)) for x, y in zip(a, b, strict=True))
    with mpmath.workdps(CURVE_DPS):
        tol = mpmath.mpf(10) ** (10 - CURVE_DPS)
        return all(x == y or abs(x - y) <= tol * max(abs(x), abs(y), mpmath.mpf(1) * tol)
                   for x, y in zip(a, b, strict=True))


def merge_equal(series: dict) -> list[tuple[tuple, list]]:
    """Group equal curves: ``[(labels, values), ...]`` in the order of first appearance.

    Equal curves (PF and RNM-Exp, by Theorem 6.1; outputs with tied scores) are drawn once
    with a joined legend entry, so that every entry of a legend has a visible curve.
    """
    groups: list[tuple[list, list]] = []
    for label, values in series.items():
        for names, vals in groups:
            if _equal(vals, values):
                names.append(label)
                break
        else:
            groups.append(([label], list(values)))
    return [(tuple(names), vals) for names, vals in groups]


def shared_legend(fig: Figure, ncol: int | None = None) -> None:
    """One legend for the whole figure, under the panels (its entries from every panel)."""
    seen: dict = {}
    for ax in fig.axes:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            seen.setdefault(lab, h)
    if seen:
        ncol = ncol or min(len(seen), 6)
        fig.legend(list(seen.values()), list(seen), loc="lower center",
                   bbox_to_anchor=(0.5, 0), ncol=ncol, frameon=False)
        rows = -(-len(seen) // ncol)  # a second row of entries: raise the panels
        if rows > 1:
            fig.subplots_adjust(bottom=fig.subplotpars.bottom
                                + (rows - 1) * 0.17 / fig.get_figheight())


def _mechanism_lines(ax, x, series: dict) -> None:
    """Draw each mechanism's curve, equal ones once (legend entry ``A = B``)."""
    for names, values in merge_equal(series):
        _line(ax, x, values, " = ".join(names), names[0])


def plot_expected_error(cases: Sequence[Curves], epsilon=None) -> Figure:
    """Expected error against epsilon, one panel per case (log epsilon axis)."""
    fig = new_figure(len(cases))
    for ax, c in zip(fig.axes, cases, strict=True):
        _mechanism_lines(ax, c.grid,
                                       {lab: c.expected_error(lab) for lab in c.labels})
        _mark_epsilon(ax, epsilon)
        log_axes(ax)
        ax.set(xlabel=r"privacy parameter $\varepsilon$",
               ylabel="expected error (score units)", title=f"score {c.title}")
        ax.grid(alpha=0.3)
    shared_legend(fig)
    return fig


def _ratio(a, b):
    """``a / b``, or 1 where both errors are 0 (every score tied: both mechanisms always
    pick a maximizer, and the ratio's limit as the gaps close is 1)."""
    return mpmath.mpf(1) if b == 0 and a == 0 else a / b


def plot_error_ratio(cases: Sequence[Curves], epsilon=None, num="EM", den="PF") -> Figure:
    """``E[error of num] / E[error of den]`` against epsilon, one line per case."""
    fig = new_figure(1, height=1.6)
    ax = fig.axes[0]
    for k, c in enumerate(cases):
        with mpmath.workdps(CURVE_DPS):
            ratio = [_ratio(a, b) for a, b in zip(c.expected_error(num),
                                                  c.expected_error(den), strict=True)]
        ax.plot(_floats(c.grid), _floats(ratio), ls=["-", "--", ":"][k % 3], lw=1.3,
                color=_CASE_COLOURS[k % len(_CASE_COLOURS)], marker="os^"[k % 3],
                markevery=4, ms=3.5, mfc="white", label=f"score {c.title}")
    ax.axhline(1, color="0.55", lw=0.8)
    _mark_epsilon(ax, epsilon)
    log_axes(ax)
    # "E[error EM] / E[error PF]" ran past the top of this short panel; the caption says it
    ax.set(xlabel=r"privacy parameter $\varepsilon$", ylabel=f"error ratio {num} / {den}")
    ax.grid(alpha=0.3)
    shared_legend(fig)
    return fig


def plot_privacy_loss(cases: Sequence[Curves], epsilon=None) -> Figure:
    """Privacy loss of the pair (q, q') against epsilon, with ``loss = epsilon``."""
    cases = [c for c in cases if c.neighbour_probabilities]
    fig = new_figure(len(cases))
    for ax, c in zip(fig.axes, cases, strict=True):
        _mechanism_lines(ax, c.grid, {lab: c.loss(lab) for lab in c.labels})
        ax.plot(_floats(c.grid), _floats(c.grid), color="k", lw=0.9, ls=(0, (5, 3)),
                label=r"loss $= \varepsilon$")
        _mark_epsilon(ax, epsilon)
        log_axes(ax, "xy")
        ax.set(xlabel=r"privacy parameter $\varepsilon$",
               ylabel="privacy loss (nats)", title=f"score {c.title}")
        ax.grid(alpha=0.3)
    shared_legend(fig)
    return fig


def plot_probabilities(cases: Sequence[Curves], epsilon=None, mechanisms=("EM", "PF"),
                       outputs: Sequence[str] | None = None) -> Figure:
    """Each output's probability against epsilon: rows = mechanisms, columns = cases.

    Outputs with equal curves (tied scores) are drawn once, labelled ``r = 1, 3``; the
    caption names them (:func:`tied_outputs`). Each panel has its own legend (its outputs'
    curves differ from the other panels').
    """
    fig = new_figure(len(cases), len(mechanisms), height=1.7, legend=False)
    axes = [fig.axes[i * len(cases):(i + 1) * len(cases)] for i in range(len(mechanisms))]
    for row, label in zip(axes, mechanisms, strict=True):
        for ax, c in zip(row, cases, strict=True):
            probs = c.probabilities[label]
            names = list(outputs) if outputs else [str(r) for r in range(len(probs[0]))]
            if len(names) > CURVE_FLOAT_N:
                groups = _tied_groups(c, names, probs)
            else:
                series = {name: [p[r] for p in probs] for r, name in enumerate(names)}
                groups = merge_equal(series)
            for k, (group, values) in enumerate(groups):
                ax.plot(_floats(c.grid), _floats(values), lw=1.3,
                        color=OUTPUT_COLOURS[k % len(OUTPUT_COLOURS)],
                        ls=["-", "--", "-.", ":"][k % 4], marker="os^Dv"[k % 5],
                        markevery=4, ms=3.2, mfc="white", label=f"r = {_names(group)}")
            _mark_epsilon(ax, epsilon)
            log_axes(ax)
            ax.set(xlabel=r"privacy parameter $\varepsilon$",
                   ylabel=rf"$\Pr[\mathrm{{{label}}}(q) = r]$", title=f"{label}, score {c.title}",
                   ylim=(0, 1))
            ax.grid(alpha=0.3)
            ax.legend(frameon=False, ncol=2, fontsize=7, loc="upper left")
    return fig


def _names(group: Sequence[str], most: int = 12) -> str:
    """``0, 7, 14``, or for more than ``most`` names ``0, 7, 14, ... (429 outputs)``."""
    if len(group) <= most:
        return ", ".join(group)
    return ", ".join(group[:3]) + f", ... ({len(group)} outputs)"


def _tied_groups(c: Curves, names: Sequence[str], probs: list) -> list[tuple[tuple, list]]:
    """Outputs grouped by their exact gap (tied scores: equal curves), at most
    :data:`LARGE_CURVES` groups (half of the largest scores, half of the smallest)."""
    groups: dict = {}
    for r, g in enumerate(c.gaps):
        groups.setdefault(g, []).append(r)
    gaps = sorted(groups, key=sympy.sympify)
    if len(gaps) > LARGE_CURVES:
        gaps = gaps[: LARGE_CURVES // 2] + gaps[-(LARGE_CURVES // 2):]
    return [(tuple(names[r] for r in groups[g]), [p[groups[g][0]] for p in probs])
            for g in gaps]


def plot_entropy(cases: Sequence[Curves]) -> Figure:
    """Entropy (nats) against the temperature ``c Delta / epsilon``, with ``ln n``."""
    fig = new_figure(len(cases))
    for ax, c in zip(fig.axes, cases, strict=True):
        first = c.labels[0]
        _mechanism_lines(ax, c.temperature[first],
                                       {lab: c.entropy(lab) for lab in c.labels})
        n = len(c.gaps)
        ax.axhline(float(mpmath.log(n)), color="k", lw=0.9, ls=(0, (5, 3)), label=r"$\ln n$")
        log_axes(ax)
        ax.set(xlabel=r"temperature $T = c\Delta/\varepsilon$ (score units)",
               ylabel="entropy (nats)", title=f"score {c.title}")
        ax.grid(alpha=0.3)
    shared_legend(fig)
    return fig


def merged_mechanisms(cases: Sequence[Curves]) -> list[tuple[str, ...]]:
    """The groups of mechanisms whose expected-error curves coincide in some case."""
    out: list[tuple[str, ...]] = []
    for c in cases:
        for names, _ in merge_equal({lab: c.expected_error(lab) for lab in c.labels}):
            if len(names) > 1 and names not in out:
                out.append(names)
    return out


def tied_outputs(cases: Sequence[Curves], outputs: Sequence[str] | None = None) -> list:
    """``(case title, output names)`` of each group of tied scores (equal gaps)."""
    out = []
    for c in cases:
        names = list(outputs) if outputs else [str(r) for r in range(len(c.gaps))]
        groups: dict = {}
        for name, g in zip(names, c.gaps, strict=True):
            groups.setdefault(g, []).append(name)  # exact gaps: equal iff tied
        out += [(c.title, tuple(v)) for v in groups.values() if len(v) > 1]
    return out


def _merge_note(groups) -> str:
    parts = []
    for names in groups:
        eq = " = ".join(names)
        why = " (Theorem 6.1)" if set(names) == {"PF", "RNM-Exp"} else ""
        parts.append(f"{eq}{why}")
    if not parts:
        return ""
    return (" Equal curves are drawn once: " + "; ".join(parts) + ".")


def _ties_note(ties, latex: bool) -> str:
    if not ties:
        return ""
    r = "$r$" if latex else "r"
    text = "; ".join(f"score {t}: {r} = {_names(names)}" for t, names in ties)
    return (f" Tied scores have equal probabilities and one curve ({text}).")


def report_figures(cases: Sequence[Curves], out_dir: Path, epsilon=None,
                   outputs: Sequence[str] | None = None, progress=None) -> list[FigureSpec]:
    """Draw and write the five figures of the report; returns their specs in order.

    Drawn in :data:`STYLE` (Computer Modern, as the document); equal curves once with a
    joined legend entry and a note in the caption (PF = RNM-Exp, Theorem 6.1; tied scores).
    """
    from matplotlib import rc_context

    with rc_context(STYLE):
        return _report_figures(cases, out_dir, epsilon, outputs, progress)


def _report_figures(cases, out_dir, epsilon, outputs, progress) -> list[FigureSpec]:
    grid = cases[0].grid
    lo, hi = format_number(grid[0], 3), format_number(grid[-1], 3)
    span = (rf"$\varepsilon$ from ${lo}$ to ${hi}$ ({len(grid)} round values, nearly even "
            "on the log axis; exact values)")
    span_t = (f"epsilon from {lo} to {hi} ({len(grid)} round values, nearly even on the log "
              "axis; exact values)")
    marked = epsilon is not None and epsilon.is_positive and epsilon.is_finite
    mark = " The dotted vertical line marks the report's $\\varepsilon$." if marked else ""
    merged = merged_mechanisms(cases)
    same = same_t = _merge_note(merged)
    if same and any(_is_float(ps) for c in cases for rows in c.probabilities.values()
                    for ps in rows):  # float64 curves: equal to plotting precision only
        same = same_t = same[:-1] + " (equal to 12 digits: float64 curves above " \
            f"{CURVE_FLOAT_N} outputs)."
    ties, ties_t = _ties_note(tied_outputs(cases, outputs), True), _ties_note(
        tied_outputs(cases, outputs), False)
    labels = [lab for lab in cases[0].labels if all(lab in c.labels for c in cases)]
    items = [
        ("expected-error", plot_expected_error(cases, epsilon),
         "Expected error $\\mathbb{E}[q^* - q_{M(q)}]$ against $\\varepsilon$, " + span + "."
         + same + mark, "Expected error against epsilon, " + span_t + "." + same_t),
    ]
    if {"EM", "PF"} <= set(labels):  # the ratio needs both (a --mechanisms subset may not)
        items.append(
            ("error-ratio", plot_error_ratio(cases, epsilon),
             "Ratio of the expected errors of EM and PF against $\\varepsilon$ (above 1: PF "
             "has the smaller error; where both errors are 0, every score tied, the ratio is "
             "drawn at its limit 1), " + span + "." + mark,
             "EM / PF expected-error ratio against epsilon, " + span_t + "."))
    if any(c.neighbour_probabilities for c in cases):
        items.append(("privacy-loss", plot_privacy_loss(cases, epsilon),
                      "Privacy loss $\\max_r |\\ln \\Pr[M(q)=r] - \\ln \\Pr[M(q')=r]|$ of the "
                      "pair $(q, q')$ against $\\varepsilon$; the dashed black line is the "
                      "bound $\\varepsilon$, " + span + "." + same + mark,
                      "Privacy loss of the pair against epsilon with the line loss = epsilon, "
                      + span_t + "." + same_t))
    # EM and PF when the report has them, else its first two mechanisms
    drawn = tuple(lab for lab in ("EM", "PF") if lab in labels) or tuple(labels[:2])
    if len(drawn) == 1 and len(labels) > 1:
        drawn = (drawn[0], next(lab for lab in labels if lab != drawn[0]))
    names = " and ".join(drawn)
    items += [
        ("probabilities", plot_probabilities(cases, epsilon, drawn, outputs=outputs),
         f"Output probabilities of {names} against $\\varepsilon$, " + span + "." + ties
         + mark, "Output probabilities against epsilon, " + span_t + "." + ties_t),
        ("entropy", plot_entropy(cases),
         "Shannon entropy of the output against the temperature $T = c\\Delta/\\varepsilon$ "
         "(large $T$: nearly uniform, entropy $\\ln n$), " + span + "." + same,
         "Entropy against temperature, " + span_t + "." + same_t),
    ]
    specs = []
    for name, fig, cap, cap_t in items:
        png, pdf = save_figure(fig, out_dir, name)
        specs.append(FigureSpec(name, png, pdf, cap, cap_t))
        if progress is not None:
            progress.update(1)
    return specs
