"""Certified two-sided composition against dp_accounting (issue 22):
``python benchmarks/bench_compose.py``.

For each pair and k, in the same run: exactdp's ``self_compose(k).delta(eps, rtol=...)``
(certified ``lower`` and ``upper``; the time includes building the lattice) and
dp_accounting's PLD of the same pair (``from_two_probability_mass_functions`` at its default
``value_discretization_interval = 1e-4``, pessimistic and optimistic, ``self_compose(k)``,
``get_delta_for_epsilon``). Prints the bounds, ``upper/lower - 1`` and the time ratio
exactdp / dp_accounting (pessimistic). Best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import math
import warnings

from _timing import best_of

import exactdp

CASES = [
    ("EM(1) [3,1,0] -> [2,2,0]", exactdp.ExponentialMechanism(1), [3, 1, 0], [2, 2, 0],
     [(1000, "96.3", 1e-3), (10**4, 963, 1e-3)]),
    ("PF(1) [-1,2,1] -> [0,1,2]", exactdp.PermuteAndFlip(1), [-1, 2, 1], [0, 1, 2],
     [(1000, 300, 1e-3), (10**4, 3000, 1e-2)]),
    ("RNM-Laplace(1) [0,1,2] -> [1,0,1]", exactdp.ReportNoisyMax(1, noise="laplace"),
     [0, 1, 2], [1, 0, 1], [(1000, 100, 1e-3), (10**4, 1000, 1e-2)]),
]


def _library(mech, a, b, k, eps, pessimistic):
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    p = mech.distribution(a).to_numpy()
    q = mech.distribution(b).to_numpy()
    up = {i: math.log(v) for i, v in enumerate(p) if v > 0}
    lo = {i: math.log(v) for i, v in enumerate(q) if v > 0}
    base = pld_lib.from_two_probability_mass_functions(lo, up,
                                                       pessimistic_estimate=pessimistic)
    return float(base.self_compose(k).get_delta_for_epsilon(float(eps)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    print("| pair | k | eps | rtol | exactdp lower | exactdp upper | upper/lower - 1 | exactdp s "
          "| dp_accounting pess. | opt. | dp_accounting s | time ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, mech, a, b, runs in CASES:
        pld = exactdp.privacy_loss_distribution(mech, a, b)
        for k, eps, rtol in runs:
            t_ours, h = best_of(
                lambda p=pld, k=k, eps=eps, r=rtol: p.self_compose(k).delta(eps, rtol=r),
                args.repeat)
            t_lib, pess = best_of(
                lambda m=mech, a=a, b=b, k=k, eps=eps: _library(m, a, b, k, eps, True),
                args.repeat)
            opt = _library(mech, a, b, k, eps, False)
            gap = float(h.upper / h.lower - 1) if h.lower else math.inf
            print(f"| {name} | {k} | {eps} | {rtol:g} | {float(h.lower):.10g} | "
                  f"{float(h.upper):.10g} | {gap:.2g} | {t_ours:.2f} | {pess:.10g} | "
                  f"{opt:.10g} | {t_lib:.2f} | {t_ours / t_lib:.2f} |")


if __name__ == "__main__":
    main()
