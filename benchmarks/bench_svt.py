"""The sparse vector technique at the suite's sizes: ``privacy_loss`` on the tools' pairs and
the exhaustive neighbour search, against baselines in the same run.

Usage: ``PYTHONPATH=. python benchmarks/bench_svt.py [--queries M] [--sympy-route]``.

Rows: every variant (Lyu-Su-Li 1, 2, 4, 5, 6; epsilon 1/10, c = 1, threshold 1/2 for
SVT1 and 1 for the others: DP-Sniper's ``exp_default.py``, docs/suite.md) on the eight
pairs of StatDP's patterns at m queries (default 10). Each exact ``privacy_loss`` runs cold
(the integral cache cleared first); times are CPU seconds of this process
(``time.process_time``: one core, robust to other load) with the wall time beside it.
Baselines, same pairs, same run:

- float64: ``distribution(a).to_numpy()`` of both vectors and ``max |log p - log p'|`` (the
  numbers alone, no exact decision);
- ``--sympy-route``: the route before issue 24's speed-up, on the half-half pair only: the
  sympy probabilities, the x-form extracted from them (``xform_from_probabilities``) and the
  ratios by ``cancel`` / ``powsimp`` (seconds to minutes per pair).

Then ``check_dp`` with no neighbour at m = 6 (the exhaustive 3^6 - 1 = 728 vertices) per
variant, and at m (the heuristic search), and the refusal time of a search too large.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import sympy

from exactdp import SparseVector, check_dp, privacy_loss
from exactdp.analysis.common import score_vector
from exactdp.analysis.engines.xform import XEngine, poly_pair
from exactdp.analysis.loss import _loss_from_engine
from exactdp.cost import TooCostly
from exactdp.exact.poly import xform_from_probabilities
from exactdp.mechanisms.sparse_vector_integral import segment_integral

EPS = sympy.Rational(1, 10)
VARIANTS = (1, 2, 4, 5, 6)


def mechanism(variant: int) -> SparseVector:
    return SparseVector(EPS, sympy.Rational(1, 2) if variant == 1 else 1, variant=variant)


def pairs(m: int) -> dict[str, tuple[list[int], list[int]]]:
    """StatDP's patterns (docs/suite.md): (1, ..., 1) against each, and the X shape."""
    h = m // 2
    ones = [1] * m
    return {
        "one above": (ones, [0] + [1] * (m - 1)),
        "one below": (ones, [2] + [1] * (m - 1)),
        "above, rest below": (ones, [2] + [0] * (m - 1)),
        "below, rest above": (ones, [0] + [2] * (m - 1)),
        "half half": (ones, [2] * h + [0] * (m - h)),
        "all above": (ones, [2] * m),
        "all below": (ones, [0] * m),
        "X shape": ([1] * h + [0] * (m - h), [0] * h + [1] * (m - h)),
    }


def timed(fn):
    """(cpu seconds, wall seconds, result) of one cold call."""
    segment_integral.cache_clear()
    c0, w0 = time.process_time(), time.perf_counter()
    out = fn()
    return time.process_time() - c0, time.perf_counter() - w0, out


def float_loss(mech: SparseVector, a: list[int], b: list[int]) -> float:
    p, q = mech.distribution(a).to_numpy(), mech.distribution(b).to_numpy()
    keep = (p > 0) | (q > 0)  # sequences impossible under both carry no loss
    with np.errstate(divide="ignore"):
        return float(np.max(np.abs(np.log(p[keep]) - np.log(q[keep]))))


def sympy_route(mech: SparseVector, a: list[int], b: list[int]):
    """The previous route: sympy probabilities -> x-form extraction -> canonical ratios."""
    vectors = [score_vector(v, "scores", "bench_svt") for v in (a, b)]
    probs = []
    N = 1
    forms = []
    for v in vectors:
        gen, fs, kappa = xform_from_probabilities(mech.distribution(v).probabilities,
                                                  mech.epsilon)
        forms.append((gen, fs, kappa))
        N = int(np.lcm(N, int(kappa.q)))
    for gen, fs, kappa in forms:
        probs.append([poly_pair(f, gen, int(N * kappa)) for f in fs])
    engine = XEngine(mech.epsilon, N, probs)
    return _loss_from_engine(engine, 0, 1, *vectors)


def loss_table(m: int, old: bool) -> None:
    print(f"## privacy_loss, m = {m} queries (CPU s / wall s, cold)\n")
    head = "| variant | pair | exact loss | CPU s | wall s | float64 CPU s | ratio |"
    print(head + (" sympy route CPU s | speed-up |" if old else ""))
    print("|---" * (head.count("|") - 1 + (2 if old else 0)) + "|")
    for v in VARIANTS:
        mech = mechanism(v)
        worst = 0.0
        for name, (a, b) in pairs(m).items():
            cpu, wall, res = timed(lambda: privacy_loss(mech, a, b))  # noqa: B023
            fcpu, _, fl = timed(lambda: float_loss(mech, a, b))  # noqa: B023
            val = float(res.loss)
            assert val == fl or abs(val - fl) < 1e-9 * max(1.0, val)
            worst = max(worst, cpu)
            row = (f"| SVT{v} | {name} | {val:.6g} | {cpu:.3f} | {wall:.3f} | {fcpu:.3f} | "
                   f"{cpu / fcpu:.1f} |")
            if old and name == "half half":
                ocpu, _, ores = timed(lambda: sympy_route(mech, a, b))  # noqa: B023
                same = ores.loss == res.loss or abs(sympy.N(ores.loss - res.loss, 30)) < 1e-25
                assert same, (ores.loss, res.loss)
                row += f" {ocpu:.2f} | {ocpu / cpu:.0f}x |"
            elif old:
                row += " | |"
            print(row, flush=True)
        print(f"| SVT{v} | **slowest pair** | | **{worst:.3f}** | | | |" + (" | |" if old else ""))


def search_table(m: int) -> None:
    print("\n## check_dp with no neighbour (CPU s / wall s, cold)\n")
    print("| variant | m | search | neighbours | holds | loss | CPU s | wall s |")
    print("|---|---|---|---|---|---|---|---|")
    for v in VARIANTS:
        mech = mechanism(v)
        for mm in (6, m):
            cpu, wall, res = timed(lambda: check_dp(mech, [1] * mm))  # noqa: B023
            print(f"| SVT{v} | {mm} | {res.search.split(' ')[0].rstrip(',')} | "
                  f"{res.neighbours_checked} | {res.holds} | {float(res.loss):.6g} | "
                  f"{cpu:.2f} | {wall:.2f} |", flush=True)
    for label, call in [
        ("exhaustive at m = 9", lambda: check_dp(mechanism(6), [1] * 9, search="exhaustive")),
        ("distinct answers, m = 10", lambda: check_dp(mechanism(6), list(range(10)))),
    ]:
        w0 = time.perf_counter()
        try:
            call()
            print(f"| refusal: {label} | not refused |")
        except TooCostly:
            print(f"| refusal: {label} | | | | | | | {time.perf_counter() - w0:.2f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=10)
    ap.add_argument("--sympy-route", action="store_true",
                    help="also time the previous sympy route on the half-half pair (slow)")
    args = ap.parse_args()
    loss_table(args.queries, args.sympy_route)
    search_table(args.queries)


if __name__ == "__main__":
    main()
