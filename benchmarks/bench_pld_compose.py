"""A pair's k-fold composition against dp_accounting's PLD (issue 36, first row).

Usage: ``PYTHONPATH=. python benchmarks/bench_pld_compose.py [--k 10 100 ...] [--rounds R]``
(run from the repository root; with ``PYTHONPATH=.`` the worktree's exactdp is timed).

For ``privacy_loss_distribution(ExponentialMechanism(1), [2, 0, -1], [1, 1, -1])`` and each
k, in the same process and interleaved round by round:

- exactdp's default ``self_compose(k).delta(eps)`` (whatever route it takes; the PLD
  rebuilt each round so that no cache is reused);
- the exact count ``self_compose(k, max_support=MAX_SUPPORT).delta(eps)`` while it fits
  (``C(k + 2, 2) <= 200 000``, k <= 630);
- dp_accounting's PLD of the same pair (float64 probabilities,
  ``from_two_probability_mass_functions(..., value_discretization_interval=1e-3)``,
  pessimistic, ``self_compose(k)``, ``get_delta_for_epsilon``).

``eps = k mu + 2 sqrt(k) sigma`` (``mu``, ``sigma`` the mean and standard deviation of the
loss under P), rounded to 3 decimals, so that delta is neither 0 nor 1. Prints the medians
of the CPU times (``time.process_time``) over ``--rounds`` rounds, the ratios to
dp_accounting, the route, and the certified interval's width relative to delta (both
routes, where the exact count runs).
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
import warnings

import exactdp
from exactdp.analysis.pld.core import MAX_SUPPORT

SCORES, NEIGHBOUR = [2, 0, -1], [1, 1, -1]


def cpu(fn):
    """CPU seconds of one call of ``fn()`` and its result."""
    start = time.process_time()
    out = fn()
    return time.process_time() - start, out


def library(p: list, q: list, k: int, eps: float) -> float:
    """dp_accounting's pessimistic delta of the k-fold composition (grid 1e-3)."""
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    up = {i: math.log(v) for i, v in enumerate(p)}
    lo = {i: math.log(v) for i, v in enumerate(q)}
    base = pld_lib.from_two_probability_mass_functions(lo, up,
                                                       value_discretization_interval=1e-3)
    return float(base.self_compose(k).get_delta_for_epsilon(eps))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, nargs="+", default=[10, 30, 100, 300, 600, 1000, 3000,
                                                         10**4])
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    mech = exactdp.ExponentialMechanism(1)
    p = [float(v) for v in mech.distribution(SCORES).to_numpy()]
    q = [float(v) for v in mech.distribution(NEIGHBOUR).to_numpy()]
    loss = [math.log(a / b) for a, b in zip(p, q, strict=True)]
    mu = sum(a * v for a, v in zip(p, loss, strict=True))
    sd = math.sqrt(sum(a * (v - mu) ** 2 for a, v in zip(p, loss, strict=True)))
    library(p, q, 2, 0.1)  # import dp_accounting outside the timings

    def pld():
        return exactdp.privacy_loss_distribution(mech, SCORES, NEIGHBOUR)

    print("| k | eps | delta | route | exactdp s | exact count s | dp_accounting s "
          "| ratio | exact count ratio | width / delta | exact count width / delta |")
    print("|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for k in args.k:
        eps = f"{k * mu + 2 * math.sqrt(k) * sd:.3f}"
        exact_fits = math.comb(k + 2, 2) <= MAX_SUPPORT
        ours, counted, lib = [], [], []
        h = hx = None
        for _ in range(args.rounds):
            t, h = cpu(lambda k=k, eps=eps: pld().self_compose(k).delta(eps))
            ours.append(t)
            if exact_fits:
                t, hx = cpu(lambda k=k, eps=eps: pld().self_compose(
                    k, max_support=MAX_SUPPORT).delta(eps))
                counted.append(t)
            t, _ = cpu(lambda k=k, eps=eps: library(p, q, k, float(eps)))
            lib.append(t)
        t_ours, t_lib = statistics.median(ours), statistics.median(lib)
        width = float((h.upper - h.lower) / h.lower)
        row = [str(k), eps, f"{float(h.lower):.12g}", h.algorithm, f"{t_ours:.4f}"]
        if counted:
            t_x = statistics.median(counted)
            row += [f"{t_x:.4f}", f"{t_lib:.4f}", f"{t_ours / t_lib:.2f}", f"{t_x / t_lib:.2f}",
                    f"{width:.2g}", f"{float((hx.upper - hx.lower) / hx.lower):.2g}"]
        else:
            row += ["", f"{t_lib:.4f}", f"{t_ours / t_lib:.2f}", "", f"{width:.2g}", ""]
        print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
