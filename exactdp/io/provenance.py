"""What reproduces a report, and what it refuses: its provenance, the size guard, labels.

:func:`provenance` lists the exactdp version, the date, the command line, the library
versions and the input (the report prints it in a first-page box, in ``summary.md`` and as
comments in ``report.tex``); :data:`REPORT_MAX_N` is the exact route's size (beyond it the
report takes the numeric route of :mod:`exactdp.io.report_numeric`); :func:`check_labels` validates
``--labels``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from .. import __version__
from .._validate import argument_error
from ..printing import latex_escape, scores_latex


class CaseInput(Protocol):
    """What the provenance reads of one case of a report (its input), declared here so
    that this module knows no report class (:class:`exactdp.io.report.Case` has it)."""

    @property
    def key(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def scores(self) -> tuple: ...
    @property
    def neighbour(self) -> tuple | None: ...
    @property
    def sensitivity(self) -> Any: ...
    @property
    def monotonic(self) -> bool: ...


#: The most scores the exact report takes (every mechanism exact, the vertex-neighbour
#: DP check, the certificates for every epsilon): measured 19 s at n = 12, 43 s at n = 25,
#: past 90 s at n = 50 on one core, before the figures and LaTeX. Beyond, the report takes
#: the numeric route (:func:`exactdp.io.report_numeric.numeric_case`).
REPORT_MAX_N = 40


def check_labels(func: str, labels: Sequence[str], n: int) -> list[str]:
    """``labels`` as n distinct non-empty strings (a ValueError otherwise)."""
    names = [str(v).strip() for v in labels]
    if len(names) != n:
        raise argument_error(func, "len(labels)", f"{n} (one per score)", len(names))
    if any(not v for v in names) or len(set(names)) != n:
        raise argument_error(func, "labels", "distinct non-empty names", list(labels))
    return names


def given_labels_note(names: Sequence[str]) -> tuple[str, str]:
    return ("outputs r named by the given labels, in the order of the scores",
            "outputs $r$ named by the given labels, in the order of the scores")


def _versions() -> tuple[tuple[str, str], ...]:
    import platform
    from importlib.metadata import PackageNotFoundError, version

    out = [("Python", platform.python_version())]
    for name, dist in (("sympy", "sympy"), ("mpmath", "mpmath"), ("python-flint", "python-flint")):
        try:
            out.append((name, version(dist)))
        except PackageNotFoundError:
            out.append((name, "not installed"))
    return tuple(out)


def _date() -> str:
    """Today (UTC), or the date of ``SOURCE_DATE_EPOCH`` when set (reproducible builds)."""
    import datetime
    import os

    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    when = (datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc)
            if epoch and epoch.isdigit() else datetime.datetime.now(datetime.timezone.utc))
    return when.strftime("%Y-%m-%d")


def provenance(epsilon: Any, dps: int, cases: Sequence[CaseInput],
               options: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """What reproduces a report at ``epsilon`` with ``dps`` digits on ``cases``: (name,
    value) pairs, in the order they are printed."""
    command = options.get("command_line")
    if not command:
        case = cases[0]
        args = ("example='pricing'" if case.key != "scores" else
                f"example=None, scores={[str(v) for v in case.scores]!r}"
                + ("" if case.neighbour is None else
                   f", neighbour={[str(v) for v in case.neighbour]!r}")
                + f", sensitivity={str(case.sensitivity)!r}"
                + (", monotonic=True" if case.monotonic else ""))
        command = f"exactdp.io.report.build_report({str(epsilon)!r}, {args})"
    rows = [("exactdp", __version__), ("date", _date()), ("command", command), *_versions()]
    for case in cases:
        q = scores_latex(case.scores, dps).text
        what = f"scores {case.title}" if case.key != "scores" else "scores"
        text = f"q = {q}"
        if case.neighbour is not None:
            text += f", q' = {scores_latex(case.neighbour, dps).text}"
        rows.append((what, text + f"; sensitivity {case.sensitivity}"
                     + ("; monotonic" if case.monotonic else "")))
    rows.append(("epsilon", str(epsilon)))
    return tuple(rows)


def provenance_section(rows: Sequence[tuple[str, str]], fmt: str) -> str | None:
    """The first-page box: what reproduces the report (version, date, command, input), from
    the pairs of :func:`provenance`; None when there are none."""
    if not rows:
        return None
    items = dict(rows)
    libs = ", ".join(f"{k} {items[k]}" for k in ("Python", "sympy", "mpmath", "python-flint"))
    inputs = [(k, v) for k, v in rows if k.startswith("scores") or k == "epsilon"]
    if fmt == "latex":
        cmd = latex_escape(items["command"]).replace(",", r",\allowbreak{}")
        lines = [rf"\textbf{{Provenance.}} \texttt{{exactdp}} {latex_escape(items['exactdp'])}, "
                 rf"{items['date']}; {latex_escape(libs)}.",
                 rf"Command: \texttt{{{cmd}}}.",
                 "Input: " + "; ".join(latex_escape(f"{k}: {v}").replace(",", r",\allowbreak{}")
                                       for k, v in inputs) + "."]
        return "\n".join([r"\noindent\fbox{\parbox{\dimexpr\linewidth-2\fboxsep-2\fboxrule"
                          r"\relax}{\small\raggedright", r" \\ ".join(lines) + "}}",
                          r"\par\medskip"])
    if fmt == "markdown":
        return "\n".join(["> **Provenance.** exactdp " + items["exactdp"] + ", "
                          + items["date"] + "; " + libs + ".", ">",
                          "> Command: `" + items["command"] + "`", ">",
                          "> Input: " + "; ".join(f"{k}: {v}" for k, v in inputs) + "."])
    return (f"exactdp {items['exactdp']}, {items['date']}; {libs}\n"
            f"command: {items['command']}")
