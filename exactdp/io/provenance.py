"""What reproduces a report, and what it refuses: its provenance, the size guard, labels.

:func:`provenance` lists the exactdp version, the date, the command line, the library
versions and the input (the report prints it in a first-page box, in ``summary.md`` and as
comments in ``report.tex``); :func:`check_labels` validates ``--labels``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from .. import __version__
from .._validate import argument_error
from ..printing import latex_escape, prose_latex, scores_latex


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
    """Python's version and the running sympy, mpmath and python-flint's (their modules'
    ``__version__``: the code that ran, read without ``importlib.metadata``'s scan of every
    installed distribution, ~30 ms of the report)."""
    import platform

    import flint
    import mpmath
    import sympy

    return (("Python", platform.python_version()), ("sympy", sympy.__version__),
            ("mpmath", mpmath.__version__), ("python-flint", flint.__version__))


def _date() -> str:
    """Today (UTC), or the date of ``SOURCE_DATE_EPOCH`` when set (reproducible builds)."""
    import datetime
    import os

    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    when = (datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc)
            if epoch and epoch.isdigit() else datetime.datetime.now(datetime.timezone.utc))
    return when.strftime("%Y-%m-%d")


def git_commit() -> str | None:
    """The git commit of the exactdp source the report ran (12 hex digits, ``+ changes``
    when the work tree differs from it), or None outside a git checkout (an installed
    wheel) or without git."""
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        return None
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"],
                              capture_output=True, text=True, timeout=10, check=True)
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--",
                                "exactdp"], capture_output=True, text=True, timeout=10,
                               check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return head.stdout.strip() + (" + changes" if dirty.stdout.strip() else "")


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
    commit = git_commit()
    rows = [("exactdp", __version__), *([("git commit", commit)] if commit else []),
            ("date", _date()), ("command", command), *_versions()]
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
        git = (f" (git \\texttt{{{latex_escape(items['git commit'])}}})"
               if "git commit" in items else "")
        lines = [rf"\textbf{{Provenance.}} \texttt{{exactdp}} {latex_escape(items['exactdp'])}"
                 rf"{git}, {items['date']}; {latex_escape(libs)}.",
                 rf"Command: \texttt{{{cmd}}}.",
                 "Input: " + "; ".join(_primes(_input_latex(k, v)).replace(
                     ",", r",\allowbreak{}") for k, v in inputs) + "."]
        return "\n".join([r"\noindent\fbox{\parbox{\dimexpr\linewidth-2\fboxsep-2\fboxrule"
                          r"\relax}{\small\raggedright", r" \\ ".join(lines) + "}}",
                          r"\par\medskip"])
    if fmt == "markdown":
        git = f" (git {items['git commit']})" if "git commit" in items else ""
        return "\n".join(["> **Provenance.** exactdp " + items["exactdp"] + git + ", "
                          + items["date"] + "; " + libs + ".", ">",
                          "> Command: `" + items["command"] + "`", ">",
                          "> Input: " + "; ".join(f"{k}: {v}" for k, v in inputs) + "."])
    git = f" (git {items['git commit']})" if "git commit" in items else ""
    return (f"exactdp {items['exactdp']}{git}, {items['date']}; {libs}\n"
            f"command: {items['command']}")


def _input_latex(key: str, value: str) -> str:
    """``key: value`` of the input line in LaTeX; epsilon's ``oo`` as ``$\\infty$``
    (:func:`~exactdp.printing.prose_latex`), not sympy's two letters."""
    return latex_escape(f"{key}: ") + (prose_latex(value) if key == "epsilon"
                                       else latex_escape(value))


def _primes(text: str) -> str:
    """``q'`` and ``q`` of the input line as mathematics (a prime, not a typed quote)."""
    return text.replace("q' = ", "$q'$ = ").replace("q = ", "$q$ = ")
