"""The verification suite: the exact route per row on the tools' own pairs, against the
tools' published times.

Usage: ``PYTHONPATH=. python benchmarks/bench_suite.py [--queries M] [--algorithms A,B]
[--search-queries K]``.

For each row of :func:`exactdp.verification_suite` it times the exact losses on StatDP's
8 patterns (the row's ``seconds``: ``privacy_loss`` per pair) and,
separately, the exhaustive vertex search (``search_seconds``; 0 = skipped, the default).
The baseline is each tool's published time on the same algorithm (DP-Sniper's
``time_dd_search + time_final_estimate_eps``, StatDP's ``statdp_time``, from
eth-sri/dp-sniper's eval_sp2021/reference-results logs): about 60 s per algorithm and more.
One run each (the times are seconds, not milliseconds; docs/benchmarks.md).
"""

from __future__ import annotations

import argparse

from _timing import once

from exactdp import verification_suite
from exactdp.audit.suite_specs import ALGORITHMS, SPECS

#: Every row of the suite.
DEFAULT = ALGORITHMS


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=10)
    ap.add_argument("--search-queries", type=int, default=0)
    ap.add_argument("--algorithms", default=",".join(DEFAULT),
                    help=f"comma-separated, from {','.join(ALGORITHMS)}")
    args = ap.parse_args()
    spec = {s.name: s for s in SPECS}
    print("| row | m | pairs | exact s (8 pairs) | s per pair | vertex search s | "
          "DP-Sniper s | StatDP s | DP-Sniper / exact |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.algorithms.split(","):
        wall, rows = once(lambda n=name: verification_suite(
            args.queries, algorithms=[n], search_queries=args.search_queries or None))
        row = rows[0]
        pubs = {p.tool: p.seconds for p in spec[name].published()}
        sniper, statdp = pubs.get("DP-Sniper"), pubs.get("StatDP")
        ratio = f"{sniper / row.seconds:.2g}x" if sniper else "--"
        print(f"| {name} | {row.queries} | {len(row.pairs)} | {row.seconds:.2f} | "
              f"{row.seconds / len(row.pairs):.2f} | {row.search_seconds:.2f} | "
              f"{sniper or '--'} | {statdp or '--'} | {ratio} |", flush=True)


if __name__ == "__main__":
    main()
