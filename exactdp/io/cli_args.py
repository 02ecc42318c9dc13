"""The command line's argument checks that need no computation, and the names they read.

:mod:`exactdp.io.cli` runs these checks right after parsing, before it imports a command
(sympy, the mechanisms, the report): a bad argument is refused in about the time of
``import numpy`` (this module and :mod:`exactdp._validate` import nothing heavier), where it
cost 0.9-1.3 s CPU when the parser imported the mechanisms first. Each check says the
option's own name; what needs the library (an epsilon such as ``log(2)``, the suite's row
names, an earlier report's files in ``--out``) is checked by the command itself, still
before any computation.

The names here are copies of the library's (the command line cannot import the registry
without its cost); ``tests/io/test_cli_args.py`` checks that each equals its source.
"""

from __future__ import annotations

import argparse
import re
from fractions import Fraction
from pathlib import Path

from .._validate import integer_range, message


class CLIError(Exception):
    """A user error: reported as one line, exit code 2."""


#: The ``--mechanisms`` words: the selection mechanisms of
#: :data:`exactdp.mechanisms.REGISTRY` that epsilon calibrates, in the registry's order.
SELECTION_MECHANISMS = ("em", "pf", "rnm-exp", "rnm-gumbel", "rnm-laplace", "em-base2",
                        "optimal")
#: ``exactdp report``'s default ``--mechanisms`` (:data:`exactdp.io.report.DEFAULT_MECHANISMS`).
REPORT_MECHANISMS = ("em", "pf", "rnm-exp", "rnm-laplace", "optimal")
#: The largest ``--compose K`` (:data:`exactdp.analysis.pld.core.MAX_COPIES`).
MAX_COMPOSE = 10**5
#: Above this many scores ``exactdp table`` prints decimals only unless ``--exact`` is given.
EXACT_TABLE_N = 20

_PLAIN_NUMBER = re.compile(r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?(/\d+)?\s*$")


def exact_table_seconds(n: int, mechanisms: int) -> float:
    """Estimated CPU seconds of ``exactdp table``'s exact forms of ``n`` scores: sympy
    brings each output's form to a common denominator and prints it, about
    ``4.5e-4 n^3`` s a mechanism (measured PF on ``1..n``: n = 20 / 30 took 3.1 / 11.5 s
    beyond the import, n = 50 past 15 s)."""
    return 4.5e-4 * n**3 * mechanisms


def mechanism_keys(text: str) -> list[str]:
    """The ``--mechanisms`` list: known short names (:data:`SELECTION_MECHANISMS`), at
    least one."""
    keys = [k.strip().lower() for k in text.split(",") if k.strip()]
    if not keys:
        raise CLIError("--mechanisms: give at least one mechanism")
    for key in keys:
        if key not in SELECTION_MECHANISMS:
            raise CLIError(f"unknown mechanism {key!r}; choose from "
                           f"{', '.join(SELECTION_MECHANISMS)}")
    return keys


def score_items(text: str, option: str = "--scores") -> list[str]:
    """The comma-separated items of a score option (each non-empty; not yet numbers)."""
    items = [s.strip() for s in text.split(",")]
    if not text.strip() or any(not s for s in items):
        raise CLIError(f"{option}: expected comma-separated numbers, got {text!r}")
    return items


def check_dps(args: argparse.Namespace) -> None:
    """``--dps`` is an int in 1..1000."""
    if not 1 <= args.dps <= 1000:
        raise CLIError(message(None, "--dps", integer_range(1, 1000), args.dps))


def check_epsilon_text(text: str) -> None:
    """Refuse ``nan`` and a negative plain number (``-1``, ``-1/2``, ``-0.5``) at once;
    an expression (``log(2)``) is the command's to parse."""
    low = str(text).strip().lower()
    if low in ("nan", "+nan", "-nan"):
        raise CLIError(f"--epsilon must be a number >= 0 (0 and oo are the limits), got "
                       f"{text!r} (not a number)")
    if _PLAIN_NUMBER.match(str(text)) and Fraction(str(text).strip()) < 0:
        raise CLIError(f"--epsilon must be >= 0 (0 and oo are the limits), got {text!r}")


def check_out_path(text: str) -> None:
    """``--out`` is a directory path: not empty, not an existing file, not inside one."""
    if not str(text).strip():  # "" would write into the working directory
        raise CLIError(f"--out must be a directory path, got {str(text)!r}")
    out = Path(text)
    if out.exists() and not out.is_dir():
        raise CLIError(f"--out must be a directory, got {str(out)!r}, which is a file")
    above = next((p for p in out.parents if p.exists()), None)
    if above is not None and not above.is_dir():
        raise CLIError(f"--out must be a directory path, got {str(out)!r}, inside the file "
                       f"{str(above)!r}")


def check_table(args: argparse.Namespace) -> None:
    """``exactdp table``'s checks before any import of the library."""
    check_dps(args)
    mechanism_keys(args.mechanisms)
    if not args.example and (args.neighbour or args.score is not None):
        raise CLIError("--score and --neighbour apply to --example only")
    if args.scores is not None:
        score_items(args.scores)
    check_epsilon_text(args.epsilon)
    if args.exact and args.no_exact:
        raise CLIError("--exact and --no-exact exclude each other")


def check_report(args: argparse.Namespace) -> None:
    """``exactdp report``'s checks before any import of the library."""
    check_dps(args)
    if args.compose is not None and not 1 <= args.compose <= MAX_COMPOSE:
        raise CLIError(message(None, "--compose: K", integer_range(1, MAX_COMPOSE),
                               args.compose))
    if args.scores is None and (args.neighbour_scores or args.sensitivity or args.monotonic):
        raise CLIError("--neighbour-scores, --sensitivity and --monotonic apply to --scores only")
    mechanism_keys(args.mechanisms)
    n = 5  # the pricing example's prices
    if args.scores is not None:
        n = len(score_items(args.scores))
    if args.neighbour_scores is not None:
        score_items(args.neighbour_scores, "--neighbour-scores")
    if not args.no_files:
        check_out_path(args.out)
    check_epsilon_text(args.epsilon)
    if args.labels is not None:
        labels = [s.strip() for s in args.labels.split(",")]
        if len(labels) != n or any(not v for v in labels) or len(set(labels)) != n:
            raise CLIError(f"--labels must be {n} distinct comma-separated names (one per "
                           f"score), got {args.labels!r}")


def check_suite(args: argparse.Namespace) -> None:
    """``exactdp suite``'s checks before any import of the library (the names themselves
    are checked against the library by the command, before any row runs)."""
    if args.programs is not None and not [a for a in args.programs.split(",") if a.strip()]:
        raise CLIError(message(None, "--programs", "comma-separated program names",
                               args.programs))
    if args.scheduler is not None and args.no_every_epsilon:
        raise CLIError("--scheduler runs the every-epsilon column: drop --no-every-epsilon")


def check_prove(args: argparse.Namespace) -> None:
    """``exactdp prove``: ``--workers`` and ``--scheduler`` exclude each other."""
    if args.workers is not None and args.scheduler is not None:
        raise CLIError("prove: give --workers or --scheduler, not both")


#: The checks of each subcommand, run before its module is imported.
CHECKS = {"table": check_table, "report": check_report, "suite": check_suite,
          "prove": check_prove}
