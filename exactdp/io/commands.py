"""The command line's commands: ``exactdp table``, ``exactdp report``, ``exactdp suite``.

:mod:`exactdp.io.cli` parses and checks the arguments (:mod:`exactdp.io.cli_args`) and
imports this module only then: it loads sympy, the registry and the report. Each command is
a function ``args -> str`` returning the text to print (a :class:`CLIError` for a user
error); :func:`run_command` runs one with the library's errors in the command's words.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import textwrap
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mpmath
import sympy

from ..cost import SECONDS_LIMIT
from ..exact.signs import UndecidedSignError
from ..mechanisms import REGISTRY
from ..numbers import ExactConversionWarning, exact_number
from ..printing import Math, format_number, scores_latex
from .cli_args import (
    EXACT_TABLE_N,
    CLIError,
    check_out_path,
    exact_table_seconds,
    mechanism_keys,
    score_items,
)
from .latex import LATEX_PACKAGES, latex_document, probability_table
from .report_numeric import check_numeric_report, exact_report_seconds, exact_route

#: The ``--mechanisms`` choices: the selection mechanisms of :data:`exactdp.mechanisms.REGISTRY`
#: that epsilon calibrates (short name -> spec); :data:`exactdp.io.cli_args.SELECTION_MECHANISMS`
#: holds their names for the parser.
MECHANISMS = {key: spec for key, spec in REGISTRY.items()
              if spec.kind == "selection" and spec.calibrated}

#: Seconds ``--scheduler`` waits to connect (Dask's own default is 30): an address with no
#: scheduler is refused quickly, in words naming it.
SCHEDULER_TIMEOUT = 8


def run_command(command: Callable[[argparse.Namespace], Any],
                args: argparse.Namespace) -> Any:
    """``command(args)`` at mpmath's 15 digits, exact-conversion warnings silenced; a
    library error (ValueError, IndexError, an undecided sign) becomes a :class:`CLIError`
    in the command's words."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExactConversionWarning)
            with mpmath.workdps(15):
                return command(args)
    except (ValueError, IndexError, UndecidedSignError) as exc:
        raise CLIError(_in_options(str(exc), args.command)) from None


def build_mechanism(key: str, epsilon, sensitivity, monotonic: bool):
    """``(label, mechanism)`` of the :data:`MECHANISMS` entry ``key`` at ``epsilon``."""
    key = key.strip().lower()
    if key not in MECHANISMS:
        raise CLIError(f"unknown mechanism {key!r}; choose from {', '.join(MECHANISMS)}")
    spec = MECHANISMS[key]
    return spec.label, spec.at_epsilon(epsilon, sensitivity=sensitivity, monotonic=monotonic)




def parse_scores(text: str, option: str = "--scores"):
    items = score_items(text, option)
    return tuple(exact_number(s, option, i) for i, s in enumerate(items))


def cmd_table(args) -> str:
    """``exactdp table``: the probability table (text, Markdown or LaTeX)."""
    keys = mechanism_keys(args.mechanisms)
    args.score_given = args.score is not None
    args.score = args.score or "buyers"
    if args.example:
        from ..examples.pricing import PRICES, PRICING, all_answers

        func = PRICING.score(args.score)
        db = PRICING.neighbour if args.neighbour else PRICING.database
        scores = func.scores(db)
        if args.sensitivity is None:
            sens = func.sensitivity(PRICING.database, all_answers()).sensitivity
        else:
            sens = args.sensitivity
        labels = [str(r) for r in PRICES]
        where = "neighbour $D'$" if args.neighbour else "database $D$"
        where_t = "neighbour D'" if args.neighbour else "database D"
        head = (f"Pricing example, score {args.score}, {where}: ",
                f"Pricing example, score {args.score}, {where_t}: ")
    else:
        scores = parse_scores(args.scores)
        sens = 1 if args.sensitivity is None else args.sensitivity
        labels = None
        head = ("", "")
    _check_epsilon(args.epsilon)
    exact = not args.no_exact and (args.exact or len(scores) <= EXACT_TABLE_N)
    if exact and (est := exact_table_seconds(len(scores), len(keys))) > 2:
        if est > SECONDS_LIMIT:
            raise CLIError(f"--exact: the exact forms of {len(scores)} scores would take about "
                           f"{est:.0f} s CPU (limit {SECONDS_LIMIT:.0f} s); drop --exact for "
                           "the decimals, or print fewer --mechanisms")
        print(f"exactdp table: the exact forms of {len(scores)} scores take about {est:.0f} s "
              "CPU (--no-exact prints the decimals at once)", file=sys.stderr)
    dists = {}
    for key in keys:
        label, mech = build_mechanism(key, args.epsilon, sens, args.monotonic)
        dists[label] = mech.distribution(scores)
    caption = _caption(head, scores, mech.sensitivity, mech.epsilon, args.monotonic)
    out = probability_table(dists, labels, fmt=args.format, exact=exact,
                            dps=args.dps, caption=caption)
    if not exact and not args.no_exact:
        note = (f"exact forms omitted for {len(scores)} scores (more than {EXACT_TABLE_N}); "
                "pass --exact to print them (slow for large n)")
        out = f"{out}\n{'%' if args.format == 'latex' else '#'} {note}"
    if args.format == "latex":
        if args.standalone:
            return latex_document(out)
        return LATEX_PREAMBLE_NOTE + "\n" + out
    return out


#: The first line of a LaTeX fragment: what the document must load.
LATEX_PREAMBLE_NOTE = ("% exactdp table: needs \\usepackage{" + ",".join(LATEX_PACKAGES)
                       + "} (or use --standalone)")


def _caption(head: tuple[str, str], scores, sens, epsilon, monotonic: bool) -> Math:
    """The table's caption in math: scores, Delta, epsilon and the monotonic flag."""
    q = scores_latex(scores)
    eps, d = epsilon, sens  # validated by the mechanisms
    mono_l = r", monotonic ($c = 1$)" if monotonic else ""
    mono_t = ", monotonic (c = 1)" if monotonic else ""
    latex = (head[0] + f"$q = {q.latex}$, $\\Delta = {_tex(d)}$, "
             f"$\\varepsilon = {_tex(eps)}${mono_l}")
    text = head[1] + f"q = {q.text}, Delta = {_txt(d)}, epsilon = {_txt(eps)}{mono_t}"
    # which outputs r are: the prices (1-based) in the example, positions (0-based) else
    prices = "Pricing" in head[1]
    latex += ("; outputs $r$ are the prices (1-based)" if prices else
              "; outputs $r$ numbered from 0 (0-based)")
    text += ("; outputs r are the prices (1-based)" if prices else
             "; outputs r numbered from 0 (0-based)")
    return Math(latex, text)


def _tex(v) -> str:
    try:
        return sympy.latex(v) if len(str(v)) <= 24 else format_number(v, 6)
    except ValueError:
        return format_number(v, 6)


def _txt(v) -> str:
    try:
        return str(v) if len(str(v)) <= 24 else format_number(v, 6)
    except ValueError:
        return format_number(v, 6)


def cmd_report(args) -> str:
    """``exactdp report``: the report's files and its summary (the checks of
    :func:`exactdp.io.cli_args.check_report` passed)."""
    from .document import OverwriteRefused, write_report
    from .report import build_report, render

    n_keys, slow = len(mechanism_keys(args.mechanisms)), ""
    if args.scores is not None:  # the numeric route: refuse at once beyond what it takes
        items = [s.strip() for s in args.scores.split(",")]
        if not exact_route(len(items), len(set(items)), n_keys):
            check_numeric_report("--scores", len(items), len(set(items)))
        elif (est := exact_report_seconds(len(items), len(set(items)), n_keys)) > 2:
            slow = (f"exactdp report: the exact route on {len(items)} scores takes about "
                    f"{est:.0f} s CPU")
    scores = None if args.scores is None else parse_scores(args.scores)
    neighbour = None
    if args.neighbour_scores is not None:
        neighbour = parse_scores(args.neighbour_scores, "--neighbour-scores")
    _check_epsilon(args.epsilon)
    labels = None if args.labels is None else [s.strip() for s in args.labels.split(",")]
    keys = mechanism_keys(args.mechanisms)
    extra: tuple[str, ...] = ()
    if args.compose is not None:
        extra = tuple(f"composition-{m}.png" for m in
                      ("ExponentialMechanism", "PermuteAndFlip", "ReportNoisyMax"))
    if not args.no_files:  # every argument checked before the report is computed
        _check_out(Path(args.out), extra, args.force)
    if slow:  # said before the wait (the bar follows on a terminal)
        print(slow, file=sys.stderr)
    report = build_report(args.epsilon, example=None if scores else "pricing", scores=scores,
                          neighbour=neighbour, sensitivity=args.sensitivity,
                          monotonic=args.monotonic, dps=args.dps,
                          options=vars(args), progress=True,
                          mechanisms=keys, labels=labels)
    if not args.no_files:
        try:
            files = write_report(report, args.out, pdf=not args.no_pdf, progress=True,
                                 keep_aux=args.keep_aux, force=args.force, extra_files=extra)
        except OverwriteRefused as exc:
            raise CLIError(str(exc).split(": ", 1)[1]) from None
        note = (f"exactdp: wrote {files.tex}, {files.body}, {files.summary} and "
                f"{len(files.figures)} figures")
        if files.compiled is not None:
            note += (f"; {files.compiled.pdf} ({files.compiled.message})"
                     if files.compiled.pdf else f"; no PDF: {files.compiled.message}")
        print(note, file=sys.stderr)
    text = render(report, args.format)
    if args.compose is not None:
        text += "\n\n" + _compose_section(args, scores)
    return text


def _check_out(out: Path, extra: tuple[str, ...], force: bool) -> None:
    """Refuse an ``--out`` the report cannot write into, before anything is computed: an
    existing file, or a directory holding files of the report's names that no earlier
    report wrote (without ``--force``)."""
    from .document import OverwriteRefused, check_overwrite, report_file_names

    check_out_path(str(out))
    try:
        check_overwrite(out, report_file_names(extra), force)
    except OverwriteRefused as exc:
        raise CLIError(str(exc).split(": ", 1)[1]) from None


def _compose_section(args, scores) -> str:
    """``report --compose K``: exactdp.io.composition.composition_report on the scores."""
    from .composition import composition_report

    prefix = None if args.no_files else str(Path(args.out) / "composition")
    return composition_report(args.compose, args.epsilon,
                              list(scores) if scores is not None else [0, 1, 2],
                              figure_prefix=prefix)


def cmd_suite(args) -> str:
    """``exactdp suite``: :func:`exactdp.verification_suite` as a table (html is for
    notebooks: the text, Markdown and LaTeX formats here)."""
    from ..audit.library_table import LOSS_NOTE, library_table
    from ..audit.program_suite import library
    from ..audit.verification import verification_suite

    names = None
    if args.programs is not None:
        names = [a.strip() for a in args.programs.split(",") if a.strip()]
        unknown = [a for a in names if a not in library()]
        if unknown:
            raise CLIError(f"--programs must be names from {', '.join(library())}, got "
                           f"{args.programs!r}")
    executor, client = None, None
    if args.scheduler is not None:
        try:
            from dask.distributed import Client
        except ImportError:
            raise CLIError("--scheduler needs the 'dask' extra (pip install "
                           "'exactdp[dask]')") from None
        try:
            client = Client(args.scheduler, timeout=SCHEDULER_TIMEOUT)
        except OSError as exc:  # refused, unreachable, timed out: not an output problem
            raise CLIError(f"cannot connect to the Dask scheduler at {args.scheduler} "
                           f"({exc})") from None
        executor = client.get_executor()
    try:
        if args.no_progress or sys.stderr.isatty():  # a terminal shows the suite's bar
            suite = verification_suite(names, every=not args.no_every_epsilon,
                                       progress=False if args.no_progress else None,
                                       executor=executor)
        else:
            suite = _suite_logged(names or list(library()), not args.no_every_epsilon,
                                  executor)
    finally:
        if client is not None:
            client.close()
    if args.format != "text":
        return library_table(suite.rows, args.format)
    width = terminal_width()
    return library_table(suite.rows, "text", width=width) + "\n" + textwrap.fill(LOSS_NOTE,
                                                                                 width)


def _suite_logged(names: list[str], every: bool, executor) -> Any:
    """The suite row by row, a line on standard error after each (a log or a pipe shows no
    bar, and the whole suite takes a minute of CPU): ``exactdp suite: 3/31 svt1 (0.5 s
    CPU)``."""
    from ..audit.verification import VerificationSuite, verification_suite

    rows: list = []
    for i, name in enumerate(names, 1):
        start = time.process_time()
        rows += verification_suite([name], every=every, progress=False,
                                   executor=executor).rows
        print(f"exactdp suite: {i}/{len(names)} {name} ({time.process_time() - start:.1f} s "
              "CPU)", file=sys.stderr, flush=True)
    return VerificationSuite(tuple(rows))


#: Width of the text tables when standard output is not a terminal (and ``COLUMNS`` unset).
DEFAULT_WIDTH = 120


def terminal_width() -> int:
    """The terminal's width in characters (``COLUMNS`` first; :data:`DEFAULT_WIDTH` when
    standard output is not a terminal), at least
    :data:`exactdp.audit.library_table.MIN_WIDTH`."""
    from ..audit.library_table import MIN_WIDTH

    return max(MIN_WIDTH, shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns)


def _check_epsilon(text: str) -> None:
    """Refuse a bad ``--epsilon`` in the option's own name (not an internal function's)."""
    if str(text).strip().lower() in ("oo", "+oo", "inf", "+inf", "infinity"):
        return  # the documented limit: uniform over the maximizers
    try:
        value = exact_number(text, "epsilon")
    except ValueError:
        raise CLIError(f"--epsilon must be a number >= 0 (0 and oo are the limits), got "
                       f"{text!r}") from None
    if value.is_negative:
        raise CLIError(f"--epsilon must be >= 0 (0 and oo are the limits), got {text!r}")


#: Python argument names of the library's errors, and the option that sets each.
_OPTIONS = {"scores": "--scores", "neighbour": "--neighbour-scores",
            "sensitivity": "--sensitivity", "epsilon": "--epsilon", "dps": "--dps"}
#: Functions and classes the commands call for the user, whose names the user never typed.
_INTERNAL = frozenset({"build_report", "privacy_loss", "check_dp", "ExponentialMechanism",
                       "PermuteAndFlip", "ReportNoisyMax", "OptimalRegularMechanism"})


def _in_options(message: str, command: str | None) -> str:
    """A library error in the command's words: ``build_report: len(neighbour) must ...``
    reads ``report: len(--neighbour-scores) must ...``; hints at Python-only keywords go."""
    head, sep, rest = message.partition(": ")
    if not sep or command is None or head not in _INTERNAL:
        return message
    for name, option in _OPTIONS.items():
        rest = re.sub(rf"(?<![\w-]){name}(?=\[|\)| must)", option, rest, count=1)
    rest = re.sub(r"; pass allow_non_neighbour=True to compare arbitrary vectors", "", rest)
    return f"{command}: {rest}"
