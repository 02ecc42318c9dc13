"""The notes' claims about PF vs EM (docs/formulas.md section 6), measured.

Run: `python benchmarks/claims_study.py`.

Prints (1) the worst-case expected-error ratio EM/PF over q = (0, -g, ..., -g) and (2) the
expected-error ratio EM/PF averaged over random score vectors from stated distributions
(each vector's errors exact in float64; only the vectors are random). Results go to
docs/claims.md.
"""

from __future__ import annotations

import argparse

from _timing import stopwatch

from exactdp import ExponentialMechanism, PermuteAndFlip
from exactdp.analysis.utility import error_ratio_study, worst_case_error


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=200)
    args = ap.parse_args()
    print("worst case, eps = Delta = 1: n, E_EM, E_PF, ratio")
    for n in (2, 3, 10, 100, 1000, 10_000):
        em = worst_case_error(ExponentialMechanism(1), n)
        pf = worst_case_error(PermuteAndFlip(1), n)
        print(f"| {n} | {float(em.error):.6f} | {float(pf.error):.6f} | "
              f"{float(em.error / pf.error):.4f} |")
    print("\naverages over random score vectors (eps = 1, Delta = 1, c = 2, b = 2)")
    print("| distribution | n | trials | mean ratio | ratio of means | min | max |")
    cases = [
        ("q_i iid N(0, 1)", lambda rng, n: rng.normal(0, 1, n)),
        ("q_i iid N(0, 10^2)", lambda rng, n: rng.normal(0, 10, n)),
        ("q_i iid uniform integers 0..10", lambda rng, n: rng.integers(0, 11, n)),
        ("q_i iid uniform integers 0..100", lambda rng, n: rng.integers(0, 101, n)),
        ("q_i iid Exp(mean 5), negated", lambda rng, n: -rng.exponential(5, n)),
    ]
    elapsed = stopwatch()
    for name, draw in cases:
        for n in (5, 50, 500):
            s = error_ratio_study(PermuteAndFlip(1), ExponentialMechanism(1), n, draw, name,
                                  trials=args.trials, rng=2026)
            print(f"| {name} | {n} | {s.trials} | {s.mean_ratio:.4f} | "
                  f"{s.ratio_of_means:.4f} | {s.min_ratio:.4f} | {s.max_ratio:.4f} |")
    print(f"\n({elapsed():.1f} s)")


if __name__ == "__main__":
    main()
