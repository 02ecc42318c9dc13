"""Tables of output probabilities, as LaTeX (booktabs) or plain text: printing in one place."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import mpmath
import sympy

if TYPE_CHECKING:
    from ..distribution import OutputDistribution

__all__ = ["probability_table", "distribution_latex", "mechanism_label"]


def mechanism_label(mech) -> str:
    """A short label: EM, PF, RNM-Exp, RNM-Gumbel, RNM-Laplace, RNM-Gauss."""
    name = getattr(mech, "name", type(mech).__name__)
    noise = getattr(mech, "noise", None)
    if name == "RNM" and noise:
        return {"exponential": "RNM-Exp", "gumbel": "RNM-Gumbel", "laplace": "RNM-Laplace",
                "gaussian": "RNM-Gauss"}[noise]
    return name


def _decimal(value: mpmath.mpf, digits: int) -> str:
    """Decimal text; a number below 1e-100000 is shown as ``exp(-...)`` to stay readable."""
    if value > 0 and mpmath.log10(value) < -100_000:
        return f"exp({mpmath.nstr(mpmath.log(value), digits)})"
    return mpmath.nstr(value, digits, min_fixed=-5, max_fixed=5)


def _exact_entries(dist: OutputDistribution) -> tuple[sympy.Expr, ...] | None:
    try:
        return dist.probabilities
    except ValueError:
        return None


def probability_table(
    distributions: Mapping[str, OutputDistribution],
    labels: Sequence[str] | None = None,
    *,
    fmt: str = "text",
    exact: bool = True,
    digits: int = 6,
    caption: str | None = None,
) -> str:
    """A table with one row per output and, per mechanism, its probability.

    Parameters
    ----------
    distributions : mapping of column label -> OutputDistribution
        All over the same range (same n).
    labels : sequence of str, optional
        Row labels (default ``r = 0..n-1``).
    fmt : {"text", "latex"}
    exact : bool
        Also show the exact expression (its LaTeX in the latex format).
    digits : int
        Significant digits of the decimals (computed with mpmath, correct to that many).
    caption : str, optional

    Raises
    ------
    ValueError
        Unknown format, mismatched range sizes.
    """
    if fmt not in ("text", "latex"):
        raise ValueError(f"probability_table: fmt must be 'text' or 'latex', got {fmt!r}")
    dists = list(distributions.items())
    if not dists:
        raise ValueError("probability_table: no distributions given")
    n = dists[0][1].n
    if any(d.n != n for _, d in dists):
        raise ValueError("probability_table: all distributions must have the same range size")
    labels = list(labels) if labels is not None else [str(r) for r in range(n)]
    if len(labels) != n:
        raise ValueError(f"probability_table: {len(labels)} labels for {n} outputs")
    columns = []
    for name, dist in dists:
        decimals = [_decimal(v, digits) for v in dist.evalf(max(digits + 5, 15))]
        exacts = _exact_entries(dist) if exact else None
        columns.append((name, decimals, exacts))
    if fmt == "latex":
        return _latex_table(columns, labels, caption)
    return _text_table(columns, labels, caption)


def _text_table(columns, labels, caption) -> str:
    header = ["r"] + [name for name, _, _ in columns]
    rows = [[lab] + [col[1][i] for col in columns] for i, lab in enumerate(labels)]
    widths = [max(len(str(x)) for x in [h] + [row[j] for row in rows])
              for j, h in enumerate(header)]
    lines = []
    if caption:
        lines.append(caption)
    lines.append("  ".join(h.rjust(w) for h, w in zip(header, widths, strict=False)))
    lines.append("  ".join("-" * w for w in widths))
    for row in rows:
        lines.append("  ".join(str(c).rjust(w) for c, w in zip(row, widths, strict=False)))
    exact_cols = [(name, ex) for name, _, ex in columns if ex is not None]
    if exact_cols:
        lines.append("")
        lines.append("exact:")
        for name, ex in exact_cols:
            for lab, e in zip(labels, ex, strict=False):
                lines.append(f"  {name}[{lab}] = {sympy.sstr(e)}")
    return "\n".join(lines)


def _latex_table(columns, labels, caption) -> str:
    spec = "l" + "r" * len(columns)
    head = " & ".join(["$r$"] + [name for name, _, _ in columns]) + r" \\"
    body = []
    for i, lab in enumerate(labels):
        cells = [f"${lab}$"]
        for _, dec, ex in columns:
            if ex is not None:
                cells.append(f"${sympy.latex(ex[i])} \\approx {dec[i]}$")
            else:
                cells.append(f"${dec[i]}$")
        body.append(" & ".join(cells) + r" \\")
    lines = [r"\begin{table}[ht]", r"\centering"]
    if caption:
        lines.append(r"\caption{" + caption + "}")
    lines += [r"\begin{tabular}{" + spec + "}", r"\toprule", head, r"\midrule", *body,
              r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines)


def distribution_latex(dist: OutputDistribution) -> str:
    """LaTeX of a distribution: ``\\Pr[M(q) = r]`` for each r, exact when available."""
    label = mechanism_label(dist.mechanism)
    try:
        probs = dist.probabilities
        entries = [sympy.latex(p) for p in probs]
    except ValueError:
        entries = [_decimal(v, 15) for v in dist.evalf(20)]
    rows = [rf"\Pr[\mathrm{{{label}}}(q) = {r}] &= {e}" for r, e in enumerate(entries)]
    return r"\begin{aligned}" + r" \\ ".join(rows) + r"\end{aligned}"
