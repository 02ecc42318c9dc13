"""How PF's sub-optimality on the lattice LP depends on the grid depth k (docs/lp.md).

Run: ``python benchmarks/lp_k_trend.py [--n 3] [--ks 2,4,6,8,12,16,24,32,40]``. For each k
prints PF/OPT at eps = 1/2 (float LP, HiGHS) with the McKenna-Sheldon raise rows and with
the full DP constraints, and the supremum over eps below eps*(n, k) (a 24-point scan, then
a bounded scalar maximisation, tolerance about 1e-4 in eps).
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import stopwatch
from scipy.optimize import minimize_scalar

from exactdp import lattice_lp, pf_optimality_region


def ratio(n: int, k: int, eps: float, rows: str) -> float:
    return float(lattice_lp(n, k, repr(float(eps)), constraints=rows).pf_ratio)


def sup_ratio(n: int, k: int, rows: str, top: float) -> tuple[float, float]:
    grid = np.linspace(0.05, top, 24)
    vals = [ratio(n, k, e, rows) for e in grid]
    i = int(np.argmax(vals))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    res = minimize_scalar(lambda e: -ratio(n, k, e, rows), bounds=(lo, hi),
                          method="bounded", options={"xatol": 1e-4})
    return max(-res.fun, vals[i]), float(res.x)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=3)
    ap.add_argument("--ks", default="2,4,6,8,12,16,24,32,40")
    ap.add_argument("--sup", action="store_true", help="also the sup over eps (slower)")
    args = ap.parse_args()
    print("| k | eps*(n,k) | PF/OPT raise, eps=1/2 | PF/OPT full, eps=1/2 | sup raise (at eps) "
          "| sup full (at eps) | s |")
    print("|---|---|---|---|---|---|---|")
    for k in (int(v) for v in args.ks.split(",")):
        elapsed = stopwatch()
        region = pf_optimality_region(args.n, k) if k <= 12 else None
        star = region.boundaries[0].epsilon_float if region and region.boundaries else None
        r_raise = ratio(args.n, k, 0.5, "raise")
        r_full = ratio(args.n, k, 0.5, "full")
        cells = ["", ""]
        if args.sup:
            top = star if star else 0.7
            cells = [f"{v:.6f} ({e:.3f})" for v, e in
                     (sup_ratio(args.n, k, "raise", top), sup_ratio(args.n, k, "full", top))]
        star_txt = f"{star:.6f}" if star else "-"
        print(f"| {k} | {star_txt} | {r_raise:.6f} | {r_full:.6f} | {cells[0]} | {cells[1]} "
              f"| {elapsed():.0f} |", flush=True)


if __name__ == "__main__":
    main()
