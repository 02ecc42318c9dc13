"""Exact permute-and-flip ``.probabilities`` against the direct flint loop (issue 21).

Usage: ``PYTHONPATH=. python benchmarks/bench_exact.py [--repeat R]``.

The baseline is the direct flint loop (``benchmarks/_baselines.py``: ``pf_flint_loop``,
the alternating sum over elementary symmetric polynomials, one ``fmpq_poly`` per distinct
gap, no sympy); also shown, PF's own coins by the Poisson-binomial route
(``pf_ring_probabilities``) and its product tree (``pf_polynomials_tree``). The contender
is the public ``PermuteAndFlip(1).distribution(q).probabilities`` (sympy expressions in
the coins ``exp(-k/2)``, built per output on first access), run cold (the product-tree
cache cleared); "every output built" is ``tuple(...)`` of it (all expressions formed).
Medians of interleaved runs (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import sympy
from _baselines import pf_flint_loop

import exactdp.xform
from exactdp import PermuteAndFlip
from exactdp.mechanisms.permute_flip import pf_ring_probabilities
from exactdp.xform import generators_for, pf_polynomials_tree

CASES = ((20, 100), (50, 100), (100, 10))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    cache = getattr(exactdp.xform, "_cached_tree", None)  # None before the cache existed
    print("| n | scores | distinct gaps | flint loop s | Poisson-binomial s | tree s | "
          "`.probabilities` s | / flint loop | every output built s | / flint loop |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n, top in CASES:
        q = np.random.default_rng(1).integers(0, top + 1, n).tolist()
        G = [max(q) - v for v in q]

        def probabilities(q=q):
            if cache is not None:
                cache.cache_clear()
            return PermuteAndFlip(1).distribution(q).probabilities

        def every_output(q=q):
            # built per output on access (LazyProbabilities): all of them, as a tuple
            if cache is not None:
                cache.cache_clear()
            return tuple(PermuteAndFlip(1).distribution(q).probabilities)

        def tree(G=G):
            if cache is not None:
                cache.cache_clear()
            return pf_polynomials_tree(G)

        fns = {"flint": lambda G=G: pf_flint_loop(G),
               "coins": lambda G=G: pf_ring_probabilities(generators_for(G, None,
                                                                          sympy.Integer(1))),
               "tree": tree,
               "probabilities": probabilities,
               "every output": every_output}
        times: dict = {k: [] for k in fns}
        for _ in range(args.repeat):
            for k, f in fns.items():
                start = time.perf_counter()
                f()
                times[k].append(time.perf_counter() - start)
        t = {k: statistics.median(v) for k, v in times.items()}
        print(f"| {n} | 0..{top} | {len(set(G))} | {t['flint']:.3f} | {t['coins']:.3f} | "
              f"{t['tree']:.3f} | {t['probabilities']:.3f} | "
              f"{t['probabilities'] / t['flint']:.2f} | {t['every output']:.3f} | "
              f"{t['every output'] / t['flint']:.2f} |")


if __name__ == "__main__":
    main()
