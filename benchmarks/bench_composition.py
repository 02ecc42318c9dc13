"""Timings of exact composition (issue 14): ``python benchmarks/bench_composition.py``.

Prints one line per task with the CPU time (best of ``--repeat`` runs) and the result.

Tasks
-----
1. ``self_compose(k)`` of the PF pair [-1, 2, 1] -> [0, 1, 2] at epsilon 1 (three distinct
   losses) for k = 10, 100, 300 (merging by the factorisation of the loss ratios over Q), and
   the exact ``delta(10)`` of the k = 100 composition.
2. The same pair with four distinct losses ([0, 1, 2, 3] -> [1, 0, 3, 2]) at k = 100:
   176 851 count vectors merged into 10 201 atoms (integer exponent keys), then
   ``delta(5)``.
3. The grid lower bound of task 2 (``self_compose(100, max_support=50)``: the default grid
   of 2**18 points, step 2**-10) and its ``delta(5)``.
4. ``check_accountant`` for EM, PF and RNM-Laplace at k = 10 on [0, 1, 2] (26 neighbours,
   both directions, eight claims, three epsilons).
"""

from __future__ import annotations

import argparse
import warnings

from _timing import best_of

import exactdp
from exactdp import privacy_loss_distribution


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    pf = exactdp.PermuteAndFlip(1)
    three = privacy_loss_distribution(pf, [-1, 2, 1], [0, 1, 2])
    for k in (10, 100, 300):
        t, comp = best_of(lambda k=k: three.self_compose(k), args.repeat)
        print(f"self_compose({k}) 3 losses: {t:.3f} s, {len(comp)} atoms")
    comp = three.self_compose(100)
    t, h = best_of(lambda: comp.delta(10), args.repeat)
    print(f"delta(10), k = 100: {t:.3f} s, {h.ball}")
    four = privacy_loss_distribution(pf, [0, 1, 2, 3], [1, 0, 3, 2])
    t, comp4 = best_of(lambda: four.self_compose(100), args.repeat)
    print(f"self_compose(100) 4 losses: {t:.3f} s, {comp4.support_terms} count vectors")
    t, h = best_of(lambda: comp4.delta(5), args.repeat)
    print(f"delta(5), k = 100, 4 losses: {t:.3f} s, {h.ball}")
    t, grid = best_of(lambda: four.self_compose(100, max_support=50), args.repeat)
    print(f"grid (step {grid.step}) k = 100: {t:.3f} s, {len(grid)} points; "
          f"delta(5) >= {float(grid.delta(5).lower):.6f}")
    for mech in (exactdp.ExponentialMechanism(1), pf, exactdp.ReportNoisyMax(1, noise="laplace")):
        t, res = best_of(lambda mech=mech: exactdp.check_accountant(mech, [0, 1, 2], 10,
                                                                  [2, 4, 6]), args.repeat)
        print(f"check_accountant {type(mech).__name__} k = 10: {t:.2f} s, "
              f"{len(res.refuted())} refuted rows of {len(res.rows)}")


if __name__ == "__main__":
    main()
