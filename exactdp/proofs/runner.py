"""``exactdp prove [NAME ...] [--list] [--workers N] [--scheduler ADDRESS]``.

Runs the ``verify()`` of each proof module (:data:`exactdp.proofs.PROOFS`) and prints a
Markdown table: statement, scope, holds, cases, time. ``--workers N`` runs the exhaustive
sweeps on a local process pool of N workers; ``--scheduler ADDRESS`` on a Dask cluster
(``dask.distributed.Client(ADDRESS).get_executor()``, the ``dask`` extra).
"""

from __future__ import annotations

import os
import re
import sys
from concurrent.futures import ProcessPoolExecutor

from .._validate import argument_error, check_int, choices_text
from . import PROOFS, load
from .result import ProofResult


class ProofFailed(ValueError):
    """Some statement did not verify (the table is printed first; exit code 2)."""


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def format_table(results: list[ProofResult]) -> str:
    """A Markdown table of the results (statement, scope, holds, cases, time)."""
    lines = ["| statement | scope | holds | cases | time (s) |", "|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {_cell(r.statement)} (`{r.name}`) | {_cell(r.scope)} | "
                     f"{'yes' if r.holds else '**NO**'} | {r.cases} | {r.seconds:.1f} |")
    failed = [r for r in results if not r.holds]
    for r in failed:
        lines.append(f"\n{r.name} failed: {_cell(repr(r.failures))[:2000]}")
    return "\n".join(lines)


def _markdown(doc: str) -> str:
    """Module docstring (numpydoc / RST) -> Markdown: math roles to $...$, headings."""
    doc = re.sub(r":math:`([^`]*)`", r"$\1$", doc)
    doc = re.sub(r":(?:func|mod|data|class):`~?([^`]*)`", r"`\1`", doc)
    doc = re.sub(r"\.\. math::\n((?:   .*\n?)+)",
                 lambda m: "$$" + " ".join(x.strip() for x in m.group(1).splitlines()) + "$$\n",
                 doc)
    lines = doc.strip("\n").splitlines()
    out: list[str] = []
    for i, line in enumerate(lines):
        if set(line) == {"-"} and i > 0:
            out[-1] = "#### " + out[-1]
            continue
        out.append(line)
    return "\n".join(out)


def docs_page(results: list[ProofResult]) -> str:
    """The table, then each module's statement, human proof, method and scope."""
    parts = [format_table(results)]
    for r in results:
        doc = load(r.name).__doc__ or ""
        title, _, body = doc.strip().partition("\n")
        parts.append(f"### `{r.name}`: {_markdown(title)}\n\n{_markdown(body)}")
    return "\n\n".join(parts)


def _executor(args):
    if args.workers is not None and args.scheduler is not None:
        raise ValueError("prove: give --workers or --scheduler, not both")
    if args.workers is not None:
        cap = max(32, 4 * (os.cpu_count() or 1))
        check_int("prove", "--workers", args.workers, 1, cap)
        return ProcessPoolExecutor(args.workers), None
    if args.scheduler is not None:
        try:
            from dask.distributed import Client
        except ImportError as exc:
            raise ValueError("prove: --scheduler needs the 'dask' extra "
                             "(pip install 'exactdp[dask]')") from exc
        try:
            client = Client(args.scheduler, timeout=8)  # Dask waits 30 s by default
        except OSError as exc:
            raise ValueError(f"prove: cannot connect to the Dask scheduler at "
                             f"{args.scheduler} ({exc})") from None
        return client.get_executor(), client
    return None, None


def run(args) -> str:
    """Run the ``prove`` subcommand; returns the table (raises if a statement fails)."""
    if args.list:
        return "\n".join(f"{name}: {load(name).STATEMENT}" for name in PROOFS)
    names = [n.removeprefix("prove_") for n in args.names] or list(PROOFS)
    for n in names:  # every name checked before any proof runs, in the command's words
        if n not in PROOFS:
            raise argument_error("prove", "NAME", f"a known proof, {choices_text(PROOFS)}", n)
    executor, client = _executor(args)
    try:
        results = [load(n).verify(executor=executor) for n in names]
    finally:
        if client is not None:
            client.close()
        elif executor is not None:
            executor.shutdown()
    table = docs_page(results) if args.docs else format_table(results)
    if not all(r.holds for r in results):
        print(table)
        sys.stdout.flush()
        raise ProofFailed(f"prove: {sum(not r.holds for r in results)} statement(s) failed")
    return table
