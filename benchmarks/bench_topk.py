"""Timings of exact top-k distributions and the sensitivity enumeration (issue 13).

Run: ``python benchmarks/bench_topk.py [--repeat 3]``. One line per task: best CPU time of
``--repeat`` runs and a check value (sum of the exact probabilities, which must be 1).

Tasks
-----
1. Peeling PF / EM, exact (sympy, rational x = 1/2 and symbolic-free epsilon = 1), n = 5,
   k = 3 (60 ordered tuples) and n = 6, k = 2.
2. One-shot report-noisy-max, exact iterated integral (exponential, Gumbel, Laplace noise),
   same sizes.
3. Float64 views of the same (peeling reuses the mechanisms' float engines).
4. ``exactdp.sensitivity`` on the pricing example: local (124 pairs) and global with
   ``max_size=2`` (replace: 16368 pairs).
"""

from __future__ import annotations

import argparse

import sympy
from _timing import best_of

import exactdp
from exactdp import ExponentialMechanism, PermuteAndFlip, ReportNoisyMax, TopK
from exactdp.examples.pricing import PRICING, all_answers

Q5 = [0, -1, -2, -2, -4]
Q6 = [3, 1, 0, 0, -2, 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    mechs = {
        "peel EM": ExponentialMechanism(1),
        "peel PF": PermuteAndFlip(1),
        "one-shot exponential": ReportNoisyMax(1),
        "one-shot Gumbel": ReportNoisyMax(1, noise="gumbel"),
        "one-shot Laplace": ReportNoisyMax(1, noise="laplace"),
    }
    for (q, k) in ((Q5, 3), (Q6, 2)):
        for name, mech in mechs.items():
            t, probs = best_of(lambda m=mech, q=q, k=k: TopK(m, k).distribution(q).probabilities,
                             args.repeat)
            total = sympy.N(sum(probs), 20)
            tf, p = best_of(lambda m=mech, q=q, k=k: TopK(m, k).distribution(q).to_numpy(),
                          args.repeat)
            print(f"n={len(q)} k={k} {name:22s} exact {t:8.3f} s  float {tf:8.3f} s  "
                  f"sum {total}  (float sum {p.sum():.15f})")
    for label, kwargs in (("local", {"database": PRICING.database}), ("global", {"max_size": 2})):
        t, res = best_of(lambda kw=kwargs: exactdp.sensitivity(PRICING.score("revenue"),
                                                             all_answers(), **kw), args.repeat)
        print(f"sensitivity revenue {label:6s} {t:8.3f} s  Delta = {res.sensitivity}, "
              f"{res.pairs_checked} pairs")


if __name__ == "__main__":
    main()
