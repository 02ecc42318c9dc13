"""Permute-and-flip's float view and exact probabilities against their baselines (issue 36).

Usage: ``PYTHONPATH=. python benchmarks/bench_pf_views.py [--only 1 2 3] [--rounds R]``
(run from the repository root; with ``PYTHONPATH=.`` the worktree's exactdp is timed).

1. ``PermuteAndFlip(1).distribution(q).to_numpy()`` at n = 10^3 (float64 scores uniform in
   [0, 40], int64 scores 0..40) against ``ExponentialMechanism(1).distribution(q)
   .to_numpy()``: median over 9 interleaved samples of 200 calls each of the ratio;
2. the same PF view at n = 10^7, float64 scores, against numpy's softmax (incl.
   ``asarray``): median over 7 interleaved rounds of the ratio;
3. ``tuple(PermuteAndFlip(1).distribution(q).probabilities)`` (every exact sympy
   probability built; the product-tree cache cleared) against the direct python-flint loop
   ``_baselines.pf_flint_loop``, n = 20 and 50 integer scores 0..100: median over 7
   interleaved rounds of the ratio; the probabilities are sums whose terms are built when
   first read (``exactdp.lazy_expr``), so a third row also reads every expression's terms.

Every time is CPU time (``time.process_time``): the machine is shared, so only ratios taken
in the same run are compared (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from _baselines import pf_flint_loop, softmax

import exactdp.xform
from exactdp import ExponentialMechanism, PermuteAndFlip
from exactdp.mechanisms import permute_flip


def cpu(fn, calls: int = 1) -> float:
    """CPU seconds per call of ``fn()`` over ``calls`` calls."""
    start = time.process_time()
    for _ in range(calls):
        fn()
    return (time.process_time() - start) / calls


def ratios(contender, baseline, rounds: int, calls: int = 1) -> tuple[float, float, float]:
    """Median contender / baseline ratio of ``rounds`` interleaved samples, with the
    medians of the two per-call times (seconds)."""
    contender(), baseline()  # warm
    a, b, r = [], [], []
    for _ in range(rounds):
        ta = cpu(contender, calls)
        tb = cpu(baseline, calls)
        a.append(ta)
        b.append(tb)
        r.append(ta / tb)
    return statistics.median(r), statistics.median(a), statistics.median(b)


def row1(rounds: int) -> None:
    print("\n## 1. PF float view, n = 1e3, against EM's float view (per call)\n")
    print("| input | PF us | EM us | PF / EM | target |")
    print("|---|---:|---:|---:|---|")
    rng = np.random.default_rng(0)
    for label, q in (("float64", rng.uniform(0, 40, 1000)),
                     ("int64 0..40", rng.integers(0, 41, 1000))):
        r, a, b = ratios(lambda q=q: PermuteAndFlip(1).distribution(q).to_numpy(),
                         lambda q=q: ExponentialMechanism(1).distribution(q).to_numpy(),
                         rounds, 200)
        print(f"| {label} | {a * 1e6:.0f} | {b * 1e6:.0f} | **{r:.2f}** | <= 3 |")


def row2(rounds: int) -> None:
    print("\n## 2. PF float view, n = 1e7 float64, against numpy softmax\n")
    q = np.random.default_rng(0).uniform(0, 40, 10**7)
    r, a, b = ratios(lambda: PermuteAndFlip(1).distribution(q).to_numpy(),
                     lambda: softmax(q, 0.5), rounds)
    print("| PF ms | softmax ms | PF / softmax | target |")
    print("|---:|---:|---:|---|")
    print(f"| {a * 1e3:.0f} | {b * 1e3:.0f} | **{r:.2f}** | <= 3 |")


def row3(rounds: int) -> None:
    print("\n## 3. every exact PF probability built, against the flint loop\n")
    print("| n | scores | atoms | every output built ms | flint loop ms | ratio | target |")
    print("|---:|---|---|---:|---:|---:|---|")
    cache = exactdp.xform._cached_tree
    atoms = getattr(permute_flip, "_coin_atoms", None)  # None before the atoms were shared
    for n, top in ((20, 100), (50, 100)):
        q = np.random.default_rng(1).integers(0, top + 1, n).tolist()
        G = [max(q) - v for v in q]
        for shared, read in ((True, False), (False, False), (True, True)):
            def every(q=q, shared=shared, read=read):
                cache.cache_clear()
                if atoms is not None and not shared:
                    atoms.cache_clear()  # cold: the first distribution of this rate
                probs = tuple(PermuteAndFlip(1).distribution(q).probabilities)
                if read:  # every term of every expression made (deferred sums built)
                    return [p.args for p in probs]
                return probs

            r, a, b = ratios(every, lambda G=G: pf_flint_loop(G), rounds)
            label = ("shared" if shared else "cold") + (", every term read" if read else "")
            print(f"| {n} | 0..{top} | {label} | {a * 1e3:.1f} | "
                  f"{b * 1e3:.1f} | **{r:.2f}** | {'<= 4' if n == 20 else '(shown)'} |")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+", default=["1", "2", "3"])
    ap.add_argument("--rounds", type=int, default=None, help="override the rounds")
    args = ap.parse_args(argv)
    if "1" in args.only:
        row1(args.rounds or 9)
    if "2" in args.only:
        row2(args.rounds or 7)
    if "3" in args.only:
        row3(args.rounds or 7)


if __name__ == "__main__":
    main()
