"""``check_dp`` at n = 10..40 against a float64 check of the same neighbours (CPU time).

Usage: ``PYTHONPATH=. python benchmarks/bench_check.py [--repeat R] [--n N ...]``.

For each n, q is n integer scores in 0..10 (seeded); the neighbours are the reduced set
``check_dp`` searches (2n + 2 vectors). The baseline is a float64 check of the same
neighbours: the probabilities of q and of every neighbour by the mechanism's float route
(``distribution(v).to_numpy()``) and the largest ``|log p_r - log p'_r|``; a second,
numpy-only one uses softmax (EM) and the O(n^2) alternating sum of
``benchmarks/_baselines.py`` (PF). ``check_dp`` runs cold: the PF product-tree cache is
cleared before each run. Times are CPU seconds (``time.process_time``), the three
contenders interleaved; ratios are of medians (docs/benchmarks.md, issue 36).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from _baselines import alternating_sum, softmax

import exactdp.xform
from exactdp import ExponentialMechanism, PermuteAndFlip, check_dp
from exactdp.analysis.common import score_vector
from exactdp.analysis.neighbourhood import neighbour_list


def scores(n: int) -> list[int]:
    return [int(v) for v in np.random.default_rng(3).integers(0, 11, n)]


def float_check(label: str, vectors: list[np.ndarray], rate: float, mech=None) -> float:
    """Largest float64 privacy loss between the first vector and each of the others (by
    ``mech``'s float route if given, else by numpy alone)."""
    if mech is not None:
        probs = [mech.distribution(v).to_numpy() for v in vectors]
    elif label == "EM":
        probs = [softmax(v, rate) for v in vectors]
    else:
        probs = [alternating_sum(rate * (v.max() - v)) for v in vectors]
    logs = [np.log(p) for p in probs]
    return max(float(np.abs(logs[0] - lp).max()) for lp in logs[1:])


def measure(label: str, mech, n: int, repeat: int) -> str:
    """One table row: check_dp of ``mech`` on the n-score vector against the float checks."""
    q = scores(n)
    nbrs, _ = neighbour_list(mech, score_vector(q, "scores", "check_dp"), None, "auto", False,
                             "check_dp")
    vectors = [np.array(q, dtype=np.float64)]
    vectors += [np.array([float(x) for x in v.data], dtype=np.float64) for v in nbrs]
    rate = 0.5  # PF and EM at epsilon = 1, sensitivity 1, not monotonic

    cache = getattr(exactdp.xform, "_cached_tree", None)  # None before the cache existed

    def cold():
        if cache is not None:
            cache.cache_clear()
        return check_dp(mech, q)

    fns = {"float": lambda: float_check(label, vectors, rate, mech),
           "numpy": lambda: float_check(label, vectors, rate),
           "check_dp": cold}
    times: dict = {k: [] for k in fns}
    out = {k: f() for k, f in fns.items()}
    for _ in range(repeat):
        for k, f in fns.items():
            start = time.process_time()
            f()
            times[k].append(time.process_time() - start)
    t = {k: statistics.median(v) for k, v in times.items()}
    return (f"| {label} | {n} | {len(nbrs)} | {t['float'] * 1e3:.2f} | {t['numpy'] * 1e3:.2f} | "
            f"{t['check_dp'] * 1e3:.1f} | {t['check_dp'] / t['float']:.1f} | "
            f"{t['check_dp'] / t['numpy']:.0f} | {float(out['check_dp']):.12f} | "
            f"{out['float']:.12f} |")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--n", type=int, nargs="*", default=[10, 20, 40])
    args = ap.parse_args(argv)
    print("| mechanism | n | neighbours | float check ms | numpy check ms | check_dp ms | "
          "/ float check | / numpy check | loss (exact) | loss (float) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, mech in (("PF", PermuteAndFlip(1)), ("EM", ExponentialMechanism(1))):
        for n in args.n:
            print(measure(label, mech, n, args.repeat))


if __name__ == "__main__":
    main()
