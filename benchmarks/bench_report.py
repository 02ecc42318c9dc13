"""Benchmark of ``exactdp report`` (issues 20 and 21): CPU seconds, not wall time.

Usage: ``PYTHONPATH=. python benchmarks/bench_report.py [--large]``. Measures in one run:

(a) the README's first command without LaTeX (``exactdp report --no-pdf``, the pricing
    example) in a child process: CPU seconds (user + system, ``resource.getrusage`` of the
    children), the import included; the issue's target is 4 s;
(b) its parts in this process (``time.process_time``): the import, ``build_report``, the
    curves, the figures, the three renderings;
(c) the figures saved the way the report saves them (one drawing, the PNG from the Agg
    canvas, the PDF with the layout frozen: :func:`exactdp.io.figures.save_figure`) against
    the baseline of two ``savefig`` calls, each running the constrained layout, on the same
    figures in the same run: the ratio;
(d) with ``--large``: the report on 3000 scores (``i % 7`` and ``0..2999``, the neighbour
    moving each score by one) by the numeric route, CPU seconds of a child process;
(e) the collector's share of the command (``gc.callbacks``, CPU seconds in collections)
    in child processes, in turn: the command line at Python's default thresholds
    (``exactdp.io.cli.main``) and the console entry point (``exactdp.io.entry.main``,
    :data:`~exactdp.io.entry.COMMAND_GC_THRESHOLD`);
(f) with ``--against DIR``: (a) interleaved, ``--rounds`` times, with ``PYTHONPATH=DIR``
    (another tree, e.g. main unpacked by ``git archive``) and with this one (the current
    ``PYTHONPATH``): every round's CPU seconds and the medians (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def child_cpu(argv: list[str], pythonpath: str | None = None) -> float:
    """CPU seconds (user + system) of a child ``python -P -m exactdp ...`` (with
    ``PYTHONPATH=pythonpath`` if given). ``-P``: ``-m`` would put the working directory
    first on ``sys.path``, so that a child started in a work tree ran that tree's exactdp
    whatever ``PYTHONPATH`` said (both sides of ``--against`` timed the same code)."""
    env = None if pythonpath is None else dict(os.environ, PYTHONPATH=pythonpath)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-P", "-m", "exactdp", *argv], check=True,
                   capture_output=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def parts(out: Path) -> dict[str, float]:
    t = time.process_time()
    from exactdp.io.figures import figure_cases, report_figures
    from exactdp.io.report import build_report, render
    got = {"import": time.process_time() - t}
    t = time.process_time()
    rep = build_report("1")
    got["build_report"] = time.process_time() - t
    t = time.process_time()
    curves = figure_cases(rep)
    got["curves"] = time.process_time() - t
    t = time.process_time()
    report_figures(curves, out, rep.epsilon, rep.cases[0].labels)
    got["figures (5, PNG + PDF)"] = time.process_time() - t
    t = time.process_time()
    for fmt in ("markdown", "latex", "text"):
        render(rep, fmt)
    got["render x3"] = time.process_time() - t
    return got


def figure_saves(out: Path) -> tuple[float, float]:
    """CPU seconds of saving the five figures: the report's way, and two savefig calls."""
    from matplotlib import rc_context

    from exactdp.io import figures as F
    from exactdp.io.report import build_report

    rep = build_report("1")
    curves = F.figure_cases(rep)

    def make():
        return [F.plot_expected_error(curves, rep.epsilon),
                F.plot_error_ratio(curves, rep.epsilon),
                F.plot_privacy_loss(curves, rep.epsilon),
                F.plot_probabilities(curves, rep.epsilon, outputs=rep.cases[0].labels),
                F.plot_entropy(curves)]

    with rc_context(F.STYLE):
        figs = make()
        t = time.process_time()
        for i, fig in enumerate(figs):
            fig.savefig(out / f"base{i}.png", dpi=200, metadata={"Software": None})
            fig.savefig(out / f"base{i}.pdf", metadata={"CreationDate": None})
        base = time.process_time() - t
        figs = make()
        t = time.process_time()
        for i, fig in enumerate(figs):
            F.save_figure(fig, out, f"once{i}")
        once = time.process_time() - t
    return base, once


#: A child that runs the report through ``ENTRY`` and prints the command's CPU seconds
#: and the collector's (``gc.callbacks``: the time between each collection's start and stop).
COLLECTOR_CHILD = """
import gc, sys, time
spent = [0.0, 0.0]
def watch(phase, info):
    if phase == "start":
        spent[1] = time.process_time()
    else:
        spent[0] += time.process_time() - spent[1]
gc.callbacks.append(watch)
start = time.process_time()
from ENTRY import main
main(["report", "--no-pdf", "--out", sys.argv[1]])
print(time.process_time() - start, spent[0])
"""


def collector(out: Path, rounds: int = 3) -> dict[str, list[tuple[float, float]]]:
    """``(command CPU s, collector CPU s)`` per round for the default thresholds (the
    command line called directly) and the entry point's, interleaved."""
    got: dict[str, list[tuple[float, float]]] = {"exactdp.io.cli": [], "exactdp.io.entry": []}
    for _ in range(rounds):
        for entry in got:
            child = COLLECTOR_CHILD.replace("ENTRY", entry)
            run = subprocess.run([sys.executable, "-P", "-c", child, str(out / "gc")],
                                 check=True, capture_output=True, text=True)
            cpu, gc_cpu = map(float, run.stdout.split()[-2:])
            got[entry].append((cpu, gc_cpu))
    return got


def large(out: Path) -> None:
    for name, q in (("i % 7", [i % 7 for i in range(3000)]), ("0..2999", list(range(3000)))):
        q2 = [v + (1 if i % 2 else -1) for i, v in enumerate(q)]
        secs = child_cpu(["report", "--scores", ",".join(map(str, q)), "--neighbour-scores",
                          ",".join(map(str, q2)), "--no-pdf", "--out", str(out / "big")])
        print(f"  3000 scores {name:>8}: {secs:6.1f} s CPU")


def against(out: Path, other: str, rounds: int) -> None:
    """(f): the command with ``PYTHONPATH=other`` and with this tree, interleaved."""
    trees = {"other": other, "this": os.environ.get("PYTHONPATH", "")}
    got: dict[str, list[float]] = {k: [] for k in trees}
    for _ in range(rounds):
        for name, path in trees.items():
            got[name].append(child_cpu(["report", "--no-pdf", "--force", "--out",
                                        str(out / f"vs-{name}")], path))
    for name, runs in got.items():
        cells = ", ".join(f"{v:.2f}" for v in runs)
        print(f"  {name:<6} {cells}   median {statistics.median(runs):.2f}")
    print(f"  ratio of medians (this / other) "
          f"{statistics.median(got['this']) / statistics.median(got['other']):.2f}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--large", action="store_true", help="also the report on 3000 scores")
    ap.add_argument("--against", metavar="DIR",
                    help="only (f): the command under PYTHONPATH=DIR against this tree")
    ap.add_argument("--rounds", type=int, default=6, help="rounds of (f)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        if args.against:
            print(f"(f) exactdp report --no-pdf, {args.against} against this tree (CPU s)")
            against(out, args.against, args.rounds)
            return
        print("(a) exactdp report --no-pdf (pricing example), child process")
        print(f"  CPU {child_cpu(['report', '--no-pdf', '--out', str(out / 'r')]):.2f} s "
              "(target 4 s)")
        print("(b) parts, this process (CPU s)")
        for name, secs in parts(out / "p").items():
            print(f"  {name:<24} {secs:6.2f}")
        base, once = figure_saves(out)
        print("(c) saving the five figures (CPU s)")
        print(f"  two savefig calls (baseline) {base:6.2f}")
        print(f"  one drawing (save_figure)    {once:6.2f}   ratio {once / base:.2f}")
        print("(e) the collector's share of the command (CPU s: command, in collections)")
        for entry, runs in collector(out).items():
            cells = ", ".join(f"{cpu:.2f} / {gc_cpu:.2f}" for cpu, gc_cpu in runs)
            print(f"  {entry:<18} {cells}")
        if args.large:
            print("(d) the numeric route")
            large(out)


if __name__ == "__main__":
    main()
