"""``OptimalRegularMechanism``'s float views against permute-and-flip's at n = 10^6 (CPU time).

Usage: ``PYTHONPATH=. python benchmarks/bench_optimal.py [--rounds R] [--n N]``.

The optimal regular mechanism's solution is permute-and-flip's distribution, so its float
view is PF's float engine on the same gaps (issue 36 asks <= 1.2x). Each round times every
contender once, interleaved, on a fresh copy of the scores (no cache shared between calls),
by ``time.process_time``; the table gives the median CPU milliseconds and the ratio to PF's
``to_numpy()`` of the same input (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from exactdp import OptimalRegularMechanism, PermuteAndFlip


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--n", type=int, default=10**6)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    inputs = {"float64 in [0, 40]": rng.uniform(0, 40, args.n),
              "int64 0..40": rng.integers(0, 41, args.n)}
    opt, pf = OptimalRegularMechanism(1), PermuteAndFlip(1)
    rows = {
        "PF `to_numpy()` (baseline)": lambda q: pf.distribution(q).to_numpy(),
        "Optimal `to_numpy()`": lambda q: opt.distribution(q).to_numpy(),
        "Optimal `expected_error(method=\"float\")`":
            lambda q: opt.distribution(q).expected_error(method="float"),
        "Optimal `entropy(method=\"float\")`":
            lambda q: opt.distribution(q).entropy(method="float"),
    }
    print("| input | call | CPU ms | / PF `to_numpy()` |")
    print("|---|---|---:|---:|")
    for label, base in inputs.items():
        times: dict[str, list[float]] = {k: [] for k in rows}
        for _ in range(args.rounds):
            for k, fn in rows.items():
                q = base.copy()
                start = time.process_time()
                fn(q)
                times[k].append(time.process_time() - start)
        med = {k: statistics.median(v) for k, v in times.items()}
        ref = med["PF `to_numpy()` (baseline)"]
        for k, t in med.items():
            print(f"| {label} | {k} | {t * 1e3:.1f} | {t / ref:.2f} |")


if __name__ == "__main__":
    main()
