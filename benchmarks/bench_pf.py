"""Benchmark of the permute-and-flip numeric engine (issue 5).

Usage: ``python benchmarks/bench_pf.py [--quick]``. Measures in one run:

(a) ``pf_float`` vs numpy EM softmax on the same vector, n = 10^3 .. 10^6, with the fitted
    scaling exponent of ``pf_float`` from 10^4 to 10^6;
(b) ``pf_float`` vs the authors' naive O(n^2) alternating-sum formula in float64 (written
    here from docs/formulas.md section 2, used only as a baseline): speed and the baseline's error;
(c) exact PF polynomials (``pf_polynomials``) for n = 50 integer scores in a range of 10.
"""

from __future__ import annotations

import argparse
import platform

import numpy as np
from _baselines import alternating_sum, softmax
from _timing import best_of, stopwatch

from exactdp.mechanisms.optimal import pf_polynomials
from exactdp.numeric.pf import pf_float, pf_mp


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    repeat = 3 if args.quick else 7
    cpu = platform.processor() or platform.machine()
    print(f"machine: {cpu}, python {platform.python_version()}, numpy {np.__version__}")

    print("\n(a) pf_float vs numpy EM softmax (same vector: d uniform in [0, 5])")
    print(f"{'n':>9} {'pf_float ms':>12} {'softmax ms':>11} {'ratio':>7}")
    sizes = [10**3, 10**4, 10**5, 10**6]
    times = {}
    for n in sizes:
        d = rng.uniform(0, 5, n)
        d[0] = 0.0
        tp = best_of(lambda d=d: pf_float(d), repeat)[0]
        te = best_of(lambda d=d: softmax(d, -1.0), repeat)[0]
        times[n] = tp
        print(f"{n:>9} {tp * 1e3:>12.3f} {te * 1e3:>11.3f} {tp / te:>7.2f}")
    slope = np.polyfit(np.log([1e4, 1e5, 1e6]), np.log([times[n] for n in sizes[1:]]), 1)[0]
    print(f"fitted scaling exponent of pf_float, 10^4..10^6: {slope:.3f}")

    print("\n(b) pf_float vs naive O(n^2) alternating sum in float64")
    print(f"{'n':>6} {'eps':>6} {'naive s':>9} {'pf ms':>8} {'speedup':>9} "
          f"{'naive sum':>12} {'naive max abs err':>18} {'pf max rel err':>15}")
    nb = [50, 100, 1000] if args.quick else [50, 100, 1000, 10**4]
    for n in nb:
        q = -rng.uniform(0, 10, n)
        q[0] = 0.0
        for eps in (0.01, 1.0):
            d = eps * (q.max() - q) / 2
            elapsed = stopwatch()
            with np.errstate(over="ignore", invalid="ignore"):
                nv = alternating_sum(d)
            tn = elapsed()
            tp = best_of(lambda d=d: pf_float(d), repeat)[0]
            pf = pf_float(d)
            if n <= 1000:
                ref = np.array([float(v) for v in pf_mp(list(d), 30)])
                nerr = f"{np.max(np.abs(nv - ref)):>18.3g}"
                perr = f"{np.max(np.abs(pf - ref) / ref):>15.2g}"
            else:
                nerr = f"{np.max(np.abs(nv - pf)):>18.3g}"
                perr = f"{'(vs pf_float)':>15}"
            print(f"{n:>6} {eps:>6} {tn:>9.3f} {tp * 1e3:>8.3f} {tn / tp:>9.0f} "
                  f"{nv.sum():>12.5g} {nerr} {perr}")

    print("\n(c) exact PF polynomials, n = 50 integer scores in a range of 10")
    G = rng.integers(0, 11, 50)
    G[0] = 0
    t = best_of(lambda: pf_polynomials(G), repeat)[0]
    print(f"pf_polynomials: {t * 1e3:.1f} ms (goal < 1000 ms)")


if __name__ == "__main__":
    main()
