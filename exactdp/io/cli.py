"""Command line: ``exactdp table``, ``exactdp report``, ``exactdp suite`` (also ``python -m
exactdp``).

Errors are one line on standard error and exit code 2.

Adding a subcommand takes two small functions and one line: ``_add_foo(sub)`` builds its
parser and sets ``run=_cmd_foo`` with ``set_defaults``; ``_cmd_foo(args) -> str`` returns the
text to print (raise :class:`CLIError` for a user error); append ``_add_foo`` to
:data:`SUBCOMMANDS`.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

import mpmath
import sympy

from .. import __version__
from .._validate import integer_range, message
from ..analysis.pld.core import MAX_COPIES
from ..cost import SECONDS_LIMIT
from ..mechanisms import REGISTRY
from ..numbers import (
    ExactConversionWarning,
    exact_number,
)
from ..printing import Math, format_number, scores_latex
from ..proofs.runner import add_parser as _add_prove
from .analyse import add_parser as _add_analyse
from .latex import LATEX_PACKAGES, latex_document, probability_table
from .report import DEFAULT_MECHANISMS as REPORT_MECHANISMS
from .report_numeric import check_numeric_report, exact_report_seconds, exact_route

MANIFEST_NAME = "exactdp-manifest.txt"  # exactdp.io.document.MANIFEST (not imported: lazy)

#: The ``--mechanisms`` choices: the selection mechanisms of :data:`exactdp.mechanisms.REGISTRY`
#: that epsilon calibrates (short name -> spec).
MECHANISMS = {key: spec for key, spec in REGISTRY.items()
              if spec.kind == "selection" and spec.calibrated}


class CLIError(Exception):
    """A user error: reported as one line, exit code 2."""


def build_mechanism(key: str, epsilon, sensitivity, monotonic: bool):
    """``(label, mechanism)`` of the :data:`MECHANISMS` entry ``key`` at ``epsilon``."""
    key = key.strip().lower()
    if key not in MECHANISMS:
        raise CLIError(f"unknown mechanism {key!r}; choose from {', '.join(MECHANISMS)}")
    spec = MECHANISMS[key]
    return spec.label, spec.at_epsilon(epsilon, sensitivity=sensitivity, monotonic=monotonic)


def _mechanism_keys(text: str) -> list[str]:
    """The ``--mechanisms`` list: known short names (:data:`MECHANISMS`), at least one."""
    keys = [k.strip().lower() for k in text.split(",") if k.strip()]
    if not keys:
        raise CLIError("--mechanisms: give at least one mechanism")
    for key in keys:
        if key not in MECHANISMS:
            raise CLIError(f"unknown mechanism {key!r}; choose from {', '.join(MECHANISMS)}")
    return keys


def _parse_scores(text: str, option: str = "--scores"):
    items = [s.strip() for s in text.split(",")]
    if not text.strip() or any(not s for s in items):
        raise CLIError(f"{option}: expected comma-separated numbers, got {text!r}")
    name = option.lstrip("-").replace("-", "_")
    return tuple(exact_number(s, name, i) for i, s in enumerate(items))


_NUMERIC_OPTIONS = ("--scores", "--neighbour-scores", "--epsilon", "--sensitivity")


def _fix_negative_values(argv: list[str]) -> list[str]:
    """Let ``--scores -1,2`` work: glue a value that starts with '-' to its option."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok in _NUMERIC_OPTIONS and i + 1 < len(argv):
            nxt = argv[i + 1]
            if nxt.startswith("-") and len(nxt) > 1 and (nxt[1].isdigit() or nxt[1] == "."):
                out.append(f"{tok}={nxt}")
                i += 2
                continue
        out.append(tok)
        i += 1
    return out


class _OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr with exit code 2."""

    def error(self, message: str):
        self.exit(2, f"exactdp: error: {message} (see {self.prog} --help)\n")


def _check_dps(args) -> None:
    """``--dps`` is an int in 1..1000 (a CLIError otherwise)."""
    if not 1 <= args.dps <= 1000:
        raise CLIError(message(None, "--dps", integer_range(1, 1000), args.dps))


#: Above this many scores ``exactdp table`` prints decimals only unless ``--exact`` is given.
EXACT_TABLE_N = 20


def exact_table_seconds(n: int, mechanisms: int) -> float:
    """Estimated CPU seconds of ``exactdp table``'s exact forms of ``n`` scores: sympy
    brings each output's form to a common denominator and prints it, about
    ``4.5e-4 n^3`` s a mechanism (measured PF on ``1..n``: n = 20 / 30 took 3.1 / 11.5 s
    beyond the import, n = 50 past 15 s)."""
    return 4.5e-4 * n**3 * mechanisms


def _add_table(sub) -> None:
    t = sub.add_parser("table", help="output-probability table for a score vector",
                       description="Exact output probabilities of selection mechanisms.")
    src = t.add_mutually_exclusive_group(required=True)
    src.add_argument("--scores", help="comma-separated scores, e.g. 3,1,0,0,-2 or 1/2,0.1")
    src.add_argument("--example", choices=["pricing"], help="a built-in example")
    t.add_argument("--score", choices=["buyers", "revenue"], default=None,
                   help="score function of the pricing example (default buyers)")
    t.add_argument("--neighbour", action="store_true",
                   help="pricing example: use the neighbouring database D'")
    t.add_argument("--mechanisms", default="em,pf",
                   help=f"comma-separated, from {','.join(MECHANISMS)} (default em,pf)")
    t.add_argument("--epsilon", default="1", help="privacy parameter (exact: 1, 1/2, log(2))")
    t.add_argument("--sensitivity", default=None,
                   help="sensitivity Delta (default 1; the example computes its own)")
    t.add_argument("--monotonic", action="store_true",
                   help="monotonic score function (c = 1)")
    t.add_argument("--format", choices=["text", "markdown", "latex"], default="text",
                   help="output format (default text)")
    t.add_argument("--standalone", action="store_true",
                   help="--format latex: a complete document (else a fragment)")
    t.add_argument("--dps", type=int, default=6,
                   help="significant digits, 1..1000 (default 6)")
    t.add_argument("--no-exact", action="store_true", help="decimals only")
    t.add_argument("--exact", action="store_true",
                   help=f"exact forms also for more than {EXACT_TABLE_N} scores")
    t.set_defaults(run=_cmd_table)


def _add_report(sub) -> None:
    r = sub.add_parser(
        "report", help="the full report: LaTeX document, PDF, figures, summary",
        description="Every result on one example (default: the built-in pricing example): "
                    "probabilities, expected errors, dominance, privacy losses, certificates. "
                    "Writes report.tex, report.pdf (when LaTeX is installed), the figures and "
                    "summary.md into --out; prints the summary.")
    src = r.add_mutually_exclusive_group()
    src.add_argument("--example", choices=["pricing"], default=None,
                     help="a built-in example (the default when --scores is not given)")
    src.add_argument("--scores", help="comma-separated scores instead of the example")
    r.add_argument("--neighbour-scores", default=None,
                   help="--scores: a neighbouring score vector (for the pair's loss)")
    r.add_argument("--sensitivity", default=None, help="--scores: sensitivity Delta (default 1)")
    r.add_argument("--monotonic", action="store_true",
                   help="--scores: monotonic score function (c = 1)")
    r.add_argument("--epsilon", default="1", help="privacy parameter (default 1)")
    r.add_argument("--mechanisms", default=",".join(REPORT_MECHANISMS),
                   help=f"comma-separated, from {','.join(MECHANISMS)} (default "
                        f"{','.join(REPORT_MECHANISMS)})")
    r.add_argument("--out", default="exactdp-report",
                   help="output directory (default exactdp-report)")
    r.add_argument("--no-files", action="store_true",
                   help="print the summary only; write no files")
    r.add_argument("--no-pdf", action="store_true", help="write report.tex but do not compile")
    aux = r.add_mutually_exclusive_group()
    aux.add_argument("--clean", dest="keep_aux", action="store_false", default=False,
                     help="remove LaTeX's auxiliary files (.aux .log .fls ...) after "
                          "compiling (the default)")
    aux.add_argument("--keep-aux", dest="keep_aux", action="store_true",
                     help="keep LaTeX's auxiliary files in --out")
    r.add_argument("--force", action="store_true",
                   help="overwrite files in --out that no earlier report wrote (the report "
                        f"replaces its own files, listed in {MANIFEST_NAME})")
    r.add_argument("--labels", default=None,
                   help="comma-separated names of the outputs, one per score (default: the "
                        "prices of the example, or 0-based positions for --scores)")
    r.add_argument("--format", choices=["text", "markdown", "latex"], default="text",
                   help="terminal form of the summary (default text)")
    r.add_argument("--dps", type=int, default=6,
                   help="significant digits, 1..1000 (default 6)")
    r.add_argument("--compose", type=int, default=None, metavar="K",
                   help="also check accountants' claims for K rounds (EM, PF, RNM-Laplace on "
                        "--scores, default 0,1,2): tables, composition-*.png in --out, and a "
                        "Composition section in the PDF (the report's pair after K rounds: "
                        "certified lower/upper delta(eps), dp_accounting's estimates)")
    r.set_defaults(run=_cmd_report)


def _add_suite(sub) -> None:
    s = sub.add_parser(
        "suite", help="the DP-testing tools' suite (noisy max, sparse vector), exactly",
        description="The exact privacy loss of report-noisy-max RNM1-RNM4, the sparse vector "
                    "variants SVT1-SVT6 and the numerical SVT on StatDP's input patterns and "
                    "an exhaustive vertex search, beside DP-Sniper's and StatDP's published "
                    "lower bounds (docs/suite.md).")
    s.add_argument("--format", choices=["text", "markdown", "latex"], default="text",
                   help="output format (default text)")
    s.add_argument("--queries", type=int, default=10, metavar="M",
                   help="queries of the sparse vector rows (default 10, the tools' number)")
    s.add_argument("--search-queries", type=int, default=4, metavar="K",
                   help="queries of the exhaustive vertex search, 1..6, 0 for none (default 4)")
    s.add_argument("--algorithms", default=None,
                   help="comma-separated rows, e.g. RNM1,SVT6 (default all)")
    s.add_argument("--library", action="store_true",
                   help="one row per program of the library (exactdp.library_suite): the "
                        "worst pair of the patterns and check_dp's heuristic search, the "
                        "every-epsilon column on DiPC's domain, every tool's published result")
    s.add_argument("--programs", default=None,
                   help="with --library: comma-separated program names (default all)")
    s.add_argument("--no-progress", action="store_true",
                   help="with --library: no progress bar on standard error")
    s.set_defaults(run=_cmd_suite)


#: The subcommands, in the order ``exactdp --help`` lists them. Each entry adds one parser
#: to the ``add_subparsers`` object and sets ``run`` (a function ``args -> str``).
SUBCOMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [
    _add_table, _add_report, _add_suite, _add_prove, _add_analyse,
]


def _parser() -> argparse.ArgumentParser:
    p = _OneLineParser(
        prog="exactdp",
        description="Exact output distributions of differentially private selection.",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in SUBCOMMANDS:
        add(sub)
    return p


def _cmd_table(args) -> str:
    _check_dps(args)
    keys = _mechanism_keys(args.mechanisms)
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
        if args.neighbour or args.score_given:
            raise CLIError("--score and --neighbour apply to --example only")
        scores = _parse_scores(args.scores)
        sens = 1 if args.sensitivity is None else args.sensitivity
        labels = None
        head = ("", "")
    _check_epsilon(args.epsilon)
    if args.exact and args.no_exact:
        raise CLIError("--exact and --no-exact exclude each other")
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


def _cmd_report(args) -> str:
    from .document import OverwriteRefused, write_report
    from .report import build_report, render

    _check_dps(args)
    if args.compose is not None and not 1 <= args.compose <= MAX_COPIES:
        raise CLIError(message(None, "--compose: K", integer_range(1, MAX_COPIES), args.compose))
    if args.scores is None and (args.neighbour_scores or args.sensitivity or args.monotonic):
        raise CLIError("--neighbour-scores, --sensitivity and --monotonic apply to --scores only")
    n_keys, slow = len(_mechanism_keys(args.mechanisms)), ""
    if args.scores is not None:  # the numeric route: refuse at once beyond what it takes
        items = [s.strip() for s in args.scores.split(",")]
        if not exact_route(len(items), len(set(items)), n_keys):
            check_numeric_report("--scores", len(items), len(set(items)))
        elif (est := exact_report_seconds(len(items), len(set(items)), n_keys)) > 2:
            slow = (f"exactdp report: the exact route on {len(items)} scores takes about "
                    f"{est:.0f} s CPU")
    scores = None if args.scores is None else _parse_scores(args.scores)
    if not args.no_files and not str(args.out).strip():  # "" would write into the cwd
        raise CLIError(f"--out must be a directory path, got {args.out!r}")
    neighbour = None
    if args.neighbour_scores is not None:
        neighbour = _parse_scores(args.neighbour_scores, "--neighbour-scores")
    _check_epsilon(args.epsilon)
    labels = None if args.labels is None else [s.strip() for s in args.labels.split(",")]
    if labels is not None:
        n = len(scores) if scores is not None else 5
        if len(labels) != n or any(not v for v in labels) or len(set(labels)) != n:
            raise CLIError(f"--labels must be {n} distinct comma-separated names (one per "
                           f"score), got {args.labels!r}")
    keys = _mechanism_keys(args.mechanisms)
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

    if out.exists() and not out.is_dir():
        raise CLIError(f"--out must be a directory, got {str(out)!r}, which is a file")
    above = next((p for p in out.parents if p.exists()), None)
    if above is not None and not above.is_dir():
        raise CLIError(f"--out must be a directory path, got {str(out)!r}, inside the file "
                       f"{str(above)!r}")
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


def _cmd_suite(args) -> str:
    from ..audit.suite import ALGORITHMS, verification_suite
    from .suite import suite_table

    if args.library:
        return _cmd_library_suite(args)
    if args.queries < 1:
        raise CLIError(message(None, "--queries", "a positive integer", args.queries))
    if not 0 <= args.search_queries <= 6:
        raise CLIError(message(None, "--search-queries", integer_range(0, 6),
                               args.search_queries))
    names = None
    if args.algorithms is not None:
        names = [a.strip() for a in args.algorithms.split(",") if a.strip()]
        unknown = [a for a in names if a not in ALGORITHMS]
        if unknown or not names:
            raise CLIError(f"--algorithms must be names from {', '.join(ALGORITHMS)}, got "
                           f"{args.algorithms!r}")
    try:
        rows = verification_suite(args.queries, algorithms=names,
                                  search_queries=args.search_queries or None)
    except ValueError as exc:  # a row's refusal names its size: say it in the option's words
        raise CLIError(_suite_error(str(exc), args.queries)) from None
    table = suite_table(rows, args.format)
    if args.queries != 10:  # the published columns are the tools' runs at 10 queries
        note = (f"The eps_lcb columns are DP-Sniper's and StatDP's published results at 10 "
                f"queries (5 scores for report-noisy-max); the sparse vector rows here are at "
                f"--queries {args.queries}, so the two are not comparable.")
        table += ("\n% " if args.format == "latex" else "\n\n") + note
    return table


def _cmd_library_suite(args) -> str:
    """``suite --library``: :func:`exactdp.library_suite` as a table (html is for notebooks:
    the text, Markdown and LaTeX formats here)."""
    from ..audit.library_table import library_table
    from ..audit.program_suite import library, library_suite

    names = None
    if args.programs is not None:
        names = [a.strip() for a in args.programs.split(",") if a.strip()]
        unknown = [a for a in names if a not in library()]
        if unknown or not names:
            raise CLIError(f"--programs must be names from {', '.join(library())}, got "
                           f"{args.programs!r}")
    suite = library_suite(names, progress=False if args.no_progress else None)
    return library_table(suite.rows, args.format)


def _suite_error(text: str, queries: int) -> str:
    """A row's refusal in the suite's options: ``--queries``, ``--algorithms``; no internal
    function's name, no advice the command line cannot follow (a mechanism's cut-off)."""
    text = text.replace("verification_suite: ", "suite: ", 1).replace(
        f" on {queries} queries:", f" at --queries {queries}:", 1)
    head, sep, rest = text.partition(f" at --queries {queries}: ")
    if not sep:
        return text
    rest = re.sub(r"^\w+(\.\w+)?: ", "", rest)  # e.g. "SparseVector.distribution: "
    row = head.removeprefix("suite: ")
    if "; " in rest and re.search(r"would (need|take)", rest):
        rest = (rest.rsplit("; ", 1)[0] + f"; choose a smaller --queries, or --algorithms "
                f"without {row}")
    return f"{head}{sep}{rest}"


def _check_epsilon(text: str) -> None:
    """Refuse a bad ``--epsilon`` in the option's own name (not an internal function's)."""
    if str(text).strip().lower() in ("nan", "+nan", "-nan"):
        raise CLIError(f"--epsilon must be a number >= 0 (0 and oo are the limits), got "
                       f"{text!r} (not a number)")
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
                       "PermuteAndFlip", "ReportNoisyMax", "OptimalRegularMechanism",
                       "verification_suite"})


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


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``exactdp`` command. Returns the exit code."""
    argv = _fix_negative_values(list(sys.argv[1:] if argv is None else argv))
    args = _parser().parse_args(argv)
    args.command_line = "exactdp " + shlex.join(argv)  # the report's provenance
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExactConversionWarning)
            with mpmath.workdps(15):
                out = args.run(args)
    except (CLIError, ValueError, IndexError) as exc:
        print(f"exactdp: error: {_in_options(str(exc), args.command)}", file=sys.stderr)
        return 2
    except OSError as exc:  # e.g. --out in a place that cannot be written
        where = f": {exc.filename}" if exc.filename else ""
        print(f"exactdp: error: cannot write the output ({exc.strerror or exc}{where})",
              file=sys.stderr)
        return 2
    try:
        print(out)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. `exactdp report | head`: the reader left, not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
