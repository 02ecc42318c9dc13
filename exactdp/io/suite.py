"""The verification suite as a table: :func:`suite_table` (``exactdp suite``, docs/suite.md).

One line per :class:`~exactdp.audit.suite.SuiteRow`: the literature's verdict, the exact
loss on the pair each tool reported beside its published lower confidence bound, the worst
pair exactdp found with its exact loss, the verdict and its witness output, and the time.
Losses print in decimals correct to the digits shown (from the exact values, never a float).
"""

from __future__ import annotations

from collections.abc import Sequence

from .._validate import check_choice
from ..audit.suite import PairLoss, SuiteRow
from ..printing import format_number, latex_escape

FORMATS = ("text", "markdown", "latex")
#: Significant digits of the losses in the table.
DIGITS = 6
#: The columns, in order.
HEADER = ("algorithm", "literature", "DP-Sniper pair", "exact there", "DP-Sniper eps_lcb",
          "StatDP pair", "exact there", "StatDP eps_lcb", "worst pair found", "exact loss",
          "verdict", "witness output", "time s")


def _compact(v: tuple) -> str:
    """``1111122222`` for small non-negative integer entries, else ``(a,b,...)``."""
    if all(isinstance(x, int) and 0 <= x <= 9 for x in v):
        return "".join(str(x) for x in v)
    return "(" + ",".join(str(x) for x in v) + ")"


def pair_text(p: PairLoss) -> str:
    """``half half 1111111111/2222200000``: the pattern and the pair."""
    return f"{p.pattern} {_compact(p.scores)}/{_compact(p.neighbour)}"


def loss_text(p: PairLoss | None) -> str:
    """The loss in decimals (``sup`` before a supremum that no output attains)."""
    if p is None:
        return "--"
    text = format_number(p.loss, DIGITS)
    return text if p.attained else f"sup {text}"


def row_cells(row: SuiteRow) -> list[str]:
    """The cells of one row, in :data:`HEADER` order."""
    cells = [row.algorithm, "private" if row.private else "not private"]
    for tool in ("DP-Sniper", "StatDP"):
        pub = next((p for p in row.published if p.tool == tool), None)
        if pub is None:
            cells += ["--", "--", "--"]
            continue
        mine = row.tool_pair(tool)
        cells += [pub.pattern + (" (swapped)" if pub.swapped else ""), loss_text(mine),
                  f"{pub.lower_bound:.4f}"]
    worst = row.worst
    where = f" (m = {row.search_queries})" if worst.pattern == "vertex search" else ""
    cells += [pair_text(worst) + where, loss_text(worst), row.verdict, worst.output,
              f"{row.seconds + row.search_seconds:.1f}"]
    return cells


def suite_table(rows: Sequence[SuiteRow], fmt: str = "text") -> str:
    """The suite as a ``"text"``, ``"markdown"`` or ``"latex"`` table.

    Raises
    ------
    ValueError
        An unknown format.

    Examples
    --------
    >>> import exactdp
    >>> rows = exactdp.verification_suite(algorithms=["RNM2"], search_queries=None)
    >>> print(suite_table(rows, "markdown").splitlines()[2][:39])
    | RNM2 | private | one below rest above
    """
    fmt = check_choice("suite_table", "fmt", fmt, FORMATS)
    body = [row_cells(r) for r in rows]
    if fmt == "markdown":
        lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
        lines += ["| " + " | ".join(c.replace("|", "/") for c in cells) + " |"
                  for cells in body]
        return "\n".join(lines)
    if fmt == "latex":
        head = " & ".join(latex_escape(h) for h in HEADER) + r" \\"
        lines = [r"\begin{tabular}{" + "l" * len(HEADER) + "}", r"\hline", head, r"\hline"]
        lines += [" & ".join(latex_escape(c) for c in cells) + r" \\" for cells in body]
        return "\n".join(lines + [r"\hline", r"\end{tabular}"])
    widths = [max(len(h), *(len(c[i]) for c in body)) for i, h in enumerate(HEADER)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(HEADER, widths, strict=True)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()
              for cells in body]
    return "\n".join(lines)

