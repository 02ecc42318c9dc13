"""The verification suite as a table: :func:`library_table` (text, Markdown, LaTeX, HTML).

One line per :class:`~exactdp.audit.verification.SuiteRow` (one program of the library):
the literature's verdict, the exact verdict and worst loss with its pair, output and the
search that found it, the every-epsilon column on DiPC's domain, and the tools' published
numbers beside them (DP-Sniper's and StatDP's lower confidence bounds, DiPC's verdict and
time, CheckDP's and ShadowDP's verdicts). Losses print in decimals correct to the digits
shown (from the exact values, never a float); a pair whose loss has no closed form prints
its certified bracket. Every table but LaTeX adds the row's CPU seconds, unless
``seconds=False`` (the committed page, docs/suite.md, is deterministic without it).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from .._validate import check_bool, check_choice, check_int
from ..printing import format_number, latex_escape, prose_latex
from ..result_text import close_brackets

#: Significant digits of the losses in the table.
DIGITS = 6
#: Longest output text in a cell (a release pattern's description is cut with ``...``).
OUTPUT_CHARS = 90


def _compact(v: tuple) -> str:
    """``1111122222`` for small non-negative integer entries, else ``(a,b,...)``."""
    if all(isinstance(x, int) and 0 <= x <= 9 for x in v):
        return "".join(str(x) for x in v)
    return "(" + ",".join(str(x) for x in v) + ")"

#: Narrowest text table (:func:`library_table`'s ``width``): the program column and one more.
MIN_WIDTH = 40

#: The columns of :func:`library_table`, in order.
LIBRARY_HEADER = ("program", "literature", "verdict", "worst loss", "pair", "output",
                  "found by", "search", "every epsilon on DiPC's domain", "DP-Sniper lcb",
                  "StatDP lcb", "DiPC", "CheckDP", "ShadowDP")
LIBRARY_FORMATS = ("text", "markdown", "latex", "html")
#: What the loss column's decimals are (printed under the text table, above the docs' one).
LOSS_NOTE = ("Losses are computed exactly and printed correct to the digits shown (sup: "
             "approached, not attained; in [lo, hi]: a certified bracket).")
#: The extra column of the text, Markdown and HTML tables.
TIME_HEADER = "CPU s"


def loss_cell(row: Any) -> str:
    """The worst loss in decimals correct to the digits shown (computed exactly: the row's
    ``loss`` holds the exact value); a bracket ``[lo, hi]`` where it has no closed form;
    ``--`` when no pair was computed."""
    w = row.worst
    if row.loss is None:
        return "--"
    if w is not None and w.interval is not None:
        lo, hi = w.interval
        return f"in [{format_number(lo, DIGITS)}, {format_number(hi, DIGITS)}]"
    text = format_number(row.loss, DIGITS)
    return text if w is None or w.attained else f"sup {text}"


def output_cell(text: str, limit: int = OUTPUT_CHARS) -> str:
    """``text`` in about ``limit`` characters, cut with ``...``; a cut inside a tuple falls
    after its last whole element (``(False, REAL, ...)``, never ``(False, Fal...)``), every
    bracket it opened closed."""
    if len(text) <= limit:
        return text
    head, opened = text[: limit - 3], []
    for i, ch in enumerate(head):
        if ch in "([{":
            opened.append(i)
        elif ch in ")]}" and opened:
            opened.pop()
    if not opened:
        return head + "..."
    boundary = head.rfind(", ", opened[0])
    head = head[:boundary] + ", ..." if boundary > 0 else head[: opened[0] + 1] + "..."
    return close_brackets(head)


def library_cells(row: Any) -> dict[str, str]:
    """The cells of one :class:`~exactdp.audit.verification.SuiteRow` (losses in
    decimals correct to the digits shown, from the exact values)."""
    w = row.worst
    pubs = {p.tool: p for p in row.tools.lower_bounds()}
    t = row.tools

    def said(v: object) -> str:
        return "--" if v is None else str(v)

    return {
        "program": row.program,
        "literature": {True: "private", False: "not private", None: "--"}[row.private],
        "verdict": row.verdict,
        "worst loss": loss_cell(row),
        "pair": "--" if w is None else f"{_compact(w.scores)} vs {_compact(w.neighbour)}",
        "output": "--" if w is None else output_cell(w.output),
        "found by": "--" if w is None else w.pattern,
        "search": (row.search or "--") + (f" ({row.note})" if row.note else ""),
        "every epsilon on DiPC's domain": str(row.every_epsilon),
        "DP-Sniper lcb": f"{pubs['DP-Sniper'].lower_bound:.4f}" if "DP-Sniper" in pubs else "--",
        "StatDP lcb": f"{pubs['StatDP'].lower_bound:.4f}" if "StatDP" in pubs else "--",
        "DiPC": said(t.dipc),
        "CheckDP": said(t.checkdp),
        "ShadowDP": said(t.shadowdp),
        TIME_HEADER: f"{row.seconds:.2f}",
    }


def library_table(rows: Sequence[Any], fmt: str = "text", seconds: bool = True,
                  width: int | None = None) -> str:
    """The library suite as a ``"text"``, ``"markdown"``, ``"latex"`` or ``"html"`` table
    (:data:`LIBRARY_HEADER`); ``seconds``: the CPU seconds column (:data:`TIME_HEADER`) in
    the text, Markdown and HTML tables (False: left out, a deterministic table); ``width``:
    the text table's longest line (a terminal's width; None: one table, each line as long
    as its cells), the columns wrapped into panels that each repeat the program column
    (:func:`text_panels`); the other formats are never wrapped.

    Raises
    ------
    ValueError
        An unknown format, or a width below :data:`MIN_WIDTH`.
    """
    fmt = check_choice("library_table", "fmt", fmt, LIBRARY_FORMATS)
    if width is not None:
        width = check_int("library_table", "width", width, MIN_WIDTH)
    timed = check_bool("library_table", "seconds", seconds) and fmt != "latex"
    header = LIBRARY_HEADER + ((TIME_HEADER,) if timed else ())
    body = [[library_cells(r)[h] for h in header] for r in rows]
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(c.replace("|", "/") for c in cells) + " |"
                  for cells in body]
        return "\n".join(lines)
    if fmt == "html":
        head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
        trs = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>"
                      for cells in body)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{trs}</tbody></table>"
    if fmt == "latex":
        head = " & ".join(latex_escape(h) for h in header) + r" \\"
        lines = [r"\begin{tabular}{" + "l" * len(header) + "}", r"\hline", head,
                 r"\hline"]
        # a witness's interval and infinity (``(0, oo)``, ``-> -oo``) as math, not text
        lines += [" & ".join(prose_latex(c) for c in cells) + r" \\" for cells in body]
        return "\n".join(lines + [r"\hline", r"\end{tabular}"])
    return text_panels(list(header), body, width)


def _fit(text: str, w: int) -> str:
    return text if len(text) <= w else text[: w - 3] + "..."


def text_panels(header: list[str], body: list[list[str]], width: int | None = None) -> str:
    """A plain-text table, its columns padded; with ``width``, wrapped into panels of at
    most ``width`` characters a line, each led by the first column (the program), a blank
    line between panels, a cell wider than a panel's room cut with ``...``.

    Examples
    --------
    >>> print(text_panels(["program", "verdict", "loss"], [["svt1", "private", "0.1"]], 20))
    program  verdict
    svt1     private
    <BLANKLINE>
    program  loss
    svt1     0.1
    """
    widths = [max(len(h), *(len(c[i]) for c in body)) for i, h in enumerate(header)]
    panels: list[list[int]] = [[]]
    if width is None:
        panels = [list(range(1, len(header)))]
    else:
        room = width - widths[0] - 2
        widths = [widths[0]] + [min(w, room) for w in widths[1:]]
        used = widths[0]  # the current panel's line length
        for i in range(1, len(header)):
            if panels[-1] and used + 2 + widths[i] > width:
                panels.append([])
                used = widths[0]
            panels[-1].append(i)
            used += 2 + widths[i]
    out = []
    for cols in panels:
        keep = [0, *cols]
        lines = ["  ".join(_fit(r[i], widths[i]).ljust(widths[i]) for i in keep).rstrip()
                 for r in [header, *body]]
        out.append("\n".join(lines))
    return "\n\n".join(out)
