"""The verification suite: every program of the library, one row each.

Usage: ``PYTHONPATH=. python benchmarks/bench_suite.py [--programs A,B]``.

For each program of :func:`exactdp.verification_suite`: the CPU seconds (``time.process_time``:
one core, robust to the other load of the shared machine) of its row (StatDP's patterns and
check_dp's heuristic search where the row runs it, the every-epsilon column apart) and of its
every-epsilon column on DiPC's domain (158 pairs, cold: the forms cache cleared first). The
targets: a row at most 1 s, the column at most 60 s. Baselines: the tools' published times
on the same program (DiPC through Mathematica on 3 queries; DP-Sniper's search and estimate).
"""

from __future__ import annotations

import argparse
import time

from exactdp.analysis.certify_laplace import forms_cache_clear
from exactdp.audit.every_epsilon import every_epsilon, every_epsilon_cache_clear
from exactdp.audit.program_suite import library
from exactdp.audit.verification import suite_row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--programs", default=",".join(library()))
    args = ap.parse_args()
    print("| program | row CPU s | <= 1 s | every-epsilon CPU s | column | DiPC s | "
          "DP-Sniper s |")
    print("|---|---:|---|---:|---|---:|---:|")
    for name in args.programs.split(","):
        t0 = time.process_time()
        row = suite_row(name, every=False)
        seconds = time.process_time() - t0
        forms_cache_clear()
        every_epsilon_cache_clear()
        t0 = time.process_time()
        column = every_epsilon(name)
        every = time.process_time() - t0
        dipc = row.tools.dipc.seconds if row.tools.dipc else "--"
        sniper = row.tools.dpsniper.seconds if row.tools.dpsniper else "--"
        print(f"| {name} | {seconds:.2f} | {'met' if seconds <= 1 else 'not met'} | "
              f"{every:.2f} | {column.status} | {dipc} | {sniper} |", flush=True)


if __name__ == "__main__":
    main()
