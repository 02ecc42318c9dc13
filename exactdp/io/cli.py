"""Command line: ``exactdp table``, ``report``, ``suite``, ``prove``, ``analyse`` (also
``python -m exactdp``).

Errors are one line on standard error and exit code 2. This module is the parser: it
imports the standard library and :mod:`exactdp.io.cli_args` (whose checks need no
computation) and nothing of sympy, the mechanisms or a command, so a bad argument is
refused in about the time of ``import numpy``; the command's module
(:mod:`exactdp.io.commands`, :mod:`exactdp.proofs.runner`, :mod:`exactdp.io.analyse`) loads
after the checks pass.

Adding a subcommand takes two small functions and one line: ``_add_foo(sub)`` builds its
parser and sets ``command_target`` (``"module:function"``: a function ``args -> str``
returning the text to print, raising :class:`CLIError` for a user error) with
``set_defaults``; append ``_add_foo`` to :data:`SUBCOMMANDS`, and put the checks that need
no computation in :data:`exactdp.io.cli_args.CHECKS`. A command may return ``(text,
status)`` for another exit status than 0 (``exactdp analyse``: 1 when the verdict is
violated).
"""

from __future__ import annotations

import argparse
import os
import pkgutil
import shlex
import sys
from collections.abc import Callable, Sequence

from .. import __version__
from .cli_args import CHECKS, REPORT_MECHANISMS, SELECTION_MECHANISMS, CLIError
from .cli_args import EXACT_TABLE_N as EXACT_TABLE_N  # re-exported: the table's limit
from .cli_args import exact_table_seconds as exact_table_seconds  # its cost model

MANIFEST_NAME = "exactdp-manifest.txt"  # exactdp.io.document.MANIFEST (not imported: lazy)


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
                   help=f"comma-separated, from {','.join(SELECTION_MECHANISMS)} (default em,pf)")
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
    t.set_defaults(command_target="exactdp.io.commands:cmd_table")


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
                   help=f"comma-separated, from {','.join(SELECTION_MECHANISMS)} (default "
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
    r.set_defaults(command_target="exactdp.io.commands:cmd_report")


def _add_suite(sub) -> None:
    s = sub.add_parser(
        "suite", help="the DP-testing tools' suite: every program of the library, exactly",
        description="One row per program of the library (noisy max, the sparse vector "
                    "variants, randomized response, and the programs releasing values: "
                    "histograms, the Laplace mechanism, partial sums): the exact worst loss "
                    "on StatDP's input patterns and check_dp's heuristic search with its "
                    "pair and output, the verdict against the claimed epsilon 0.1, "
                    "certify_dp for every epsilon on DiPC's domain, and DP-Sniper's, "
                    "StatDP's, DiPC's, CheckDP's and ShadowDP's published results "
                    "(docs/suite.md).")
    s.add_argument("--format", choices=["text", "markdown", "latex"], default="text",
                   help="output format (default text; text adds each row's CPU seconds)")
    s.add_argument("--programs", default=None,
                   help="comma-separated program names, e.g. svt1,svt6 (default all)")
    s.add_argument("--no-every-epsilon", action="store_true",
                   help="skip the column 'every epsilon on DiPC's domain' (certify_dp on "
                        "158 pairs per program)")
    s.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="a Dask scheduler: the every-epsilon column's pairs run there (the "
                        "'dask' extra)")
    s.add_argument("--no-progress", action="store_true",
                   help="no progress bar on standard error")
    s.set_defaults(command_target="exactdp.io.commands:cmd_suite")


def _add_prove(sub: argparse._SubParsersAction) -> None:
    """``exactdp prove`` (its command: :func:`exactdp.proofs.runner.run`)."""
    p = sub.add_parser(
        "prove", help="verify the statements of the notes (proofs/ modules)",
        description="Run the machine-checked statements of the notes and print a table.")
    p.add_argument("names", nargs="*", metavar="NAME",
                   help="proof modules to run (default all; see --list)")
    p.add_argument("--list", action="store_true", help="list the proof modules and exit")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="run the exhaustive sweeps on N local processes")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run the sweeps on a Dask cluster (e.g. tcp://host:8786)")
    p.add_argument("--docs", action="store_true",
                   help="print the table followed by every module's statement, proof, "
                        "method and scope (the body of docs/proofs.md)")
    p.set_defaults(command_target="exactdp.proofs.runner:run")



def _add_analyse(sub: argparse._SubParsersAction) -> None:
    """``exactdp analyse`` (its command: :func:`exactdp.io.analyse.run`)."""
    a = sub.add_parser(
        "analyse", help="a program of your own (@exactdp.programs.program), exactly",
        description="Load the program NAME from PATH.py, build it with the --param values "
                    "and print its exact output probabilities on --scores, the privacy "
                    "loss on the pair (--neighbour-scores) or the largest loss over the "
                    "neighbours searched, and the verdict with its witness "
                    "(docs/programs.md).",
        epilog="Exit status: 0 when the verdict holds (the pair is within epsilon, or "
               "check_dp holds over the neighbours searched), 1 when it is violated, 2 for "
               "a usage error or a refusal (one line on standard error).")
    a.add_argument("target", metavar="PATH.py:NAME", help="the file and the program's name")
    a.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="a parameter of the program (repeat; epsilon is required)")
    a.add_argument("--scores", required=True, help="comma-separated query answers")
    a.add_argument("--neighbour-scores", default=None,
                   help="comma-separated neighbouring answers (default: search neighbours)")
    a.add_argument("--format", choices=("text", "markdown", "latex"), default="text",
                   help="output format (default text)")
    a.set_defaults(command_target="exactdp.io.analyse:run")


#: The subcommands, in the order ``exactdp --help`` lists them. Each entry adds one parser
#: to the ``add_subparsers`` object and sets ``command_target`` (``"module:function"``).
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


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``exactdp`` command. Returns the exit code.

    The arguments are parsed and checked (:data:`exactdp.io.cli_args.CHECKS`) before the
    command's module is imported: a bad argument costs no import of sympy.
    """
    argv = _fix_negative_values(list(sys.argv[1:] if argv is None else argv))
    args = _parser().parse_args(argv)
    args.command_line = "exactdp " + shlex.join(argv)  # the report's provenance
    try:
        if args.command in CHECKS:
            CHECKS[args.command](args)
    except CLIError as exc:
        print(f"exactdp: error: {exc}", file=sys.stderr)
        return 2
    from .commands import run_command  # the library loads only for checked arguments

    try:
        out = run_command(pkgutil.resolve_name(args.command_target), args)
        out, status = out if isinstance(out, tuple) else (out, 0)
    except CLIError as exc:
        print(f"exactdp: error: {exc}", file=sys.stderr)
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
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
