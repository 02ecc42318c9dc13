"""One engine (issue 33, item 5): the program engine against the old ``SparseVector`` class.

Usage: ``PYTHONPATH=. python benchmarks/bench_engine.py --baseline PATH [--rounds 5]
[--before PATH2] [--value-baseline PATH3] [--numsvt-baseline PATH4] [--only TEXT]``.

``--numsvt-baseline PATH4`` (default ``PATH``): a checkout from before
``NumericalSparseVector``'s loss moved onto the engine (``git worktree add --detach PATH4
7f4daa4``), the old class of the NumSVT rows.

``--before PATH2`` (a checkout of an earlier state of the engine) adds its engine routes to
every row, interleaved with this tree's, so that one run gives the ratios before and after a
change of the engine (the structural cache: ``docs/benchmarks.md``).

``PATH`` is a checkout of the commit before the rebuild (``git worktree add --detach PATH
b2af7ad``): its ``SparseVector`` computed its probabilities with its own integrals (the
baseline). Every measurement runs in a fresh process (``PYTHONPATH`` set to the tree; no
cache is shared), times the call alone by CPU time (``time.process_time``: robust to other
load on the machine), and the rounds interleave the trees so that the ratios compare runs at
the same moment; the table gives the median of the rounds and the ratio of medians.

Rows (docs/benchmarks.md, "One engine"):

- ``privacy_loss`` of SVT1 (c = 1) at 10 queries on ``1^10`` vs ``2^9 0`` (StatDP's "one
  below rest above"), at epsilon 1/2, threshold 4 (the row measured in issue 33) and at the
  suite's parameters (epsilon 1/10, threshold 1/2): the old class; this tree's library
  program ``svt1``; this tree's ``SparseVector`` (the engine since the rebuild).
  Target: at most 1.5x the old class.
- ``privacy_loss`` of the numerical sparse vector (epsilon 1, threshold 1, c = 2) on
  ``1^10`` vs ``2^5 0^5``, ``1^10`` vs ``0 1^9`` and ``1^5`` vs ``0 1^4``: the old class
  (its own loss formula on its own pattern probabilities); this tree's library program
  ``numerical_svt``; this tree's ``NumericalSparseVector`` (the engine's loss since the
  rebuild). Target: at most 1.5x the old class.
- exhaustive ``check_dp`` of SVT1 at 6 queries (728 neighbours): target under 30 s.
- ``distribution(q).probabilities`` of a 5-score noisy max program against
  ``ReportNoisyMax``'s (this tree), summed over 20 score vectors (one is a few ms, too
  short to time alone): target at most 2x.
- ``privacy_loss`` of ``ReportNoisyMax(output="value")`` with Laplace noise (RNM3): the
  suite's worst pair ``1^5`` vs ``2^5`` at epsilon 1/10 (exactly 1/4: a constant ratio
  left of every score) and ``1^5`` vs ``2^2 0^3`` at epsilon 1 (exactly 1/2, cells with
  interior critical points), after one warm-up pair: the old class (its own polynomial
  loss code: ``--value-baseline PATH3``, a checkout of 7f4daa4, default ``PATH``) against
  this tree's class (the program engine since the rebuild). Target: at most 1.5x.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

PAIR = "[1] * 10, [2] * 9 + [0]"
SETUP = {
    "class": "m = exactdp.SparseVector({eps}, {T}, 1, 1)",
    "program": "m = L.svt1(epsilon={eps}, threshold={T}, c=1)",
}
SNIPPET = """
import time, sympy, exactdp
import exactdp.analysis.loss, exactdp.analysis.check
from exactdp.programs import library as L
from exactdp.programs import library_release as LR
R = sympy.Rational
{setup}
t = time.process_time()
{call}
print(time.process_time() - t)
"""

CASES = [
    # (row, epsilon, threshold, call)
    ("privacy_loss SVT1 m=10, eps 1/2, T 4", "eps=R(1, 2)", "T=4",
     f"exactdp.privacy_loss(m, {PAIR})"),
    ("privacy_loss SVT1 m=10, eps 1/10, T 1/2", "eps=R(1, 10)", "T=R(1, 2)",
     f"exactdp.privacy_loss(m, {PAIR})"),
]

#: The numerical sparse vector's rows: (row, pair).
NUMSVT = [
    ("privacy_loss NumSVT m=10 c=2, 1^10 vs 2^5 0^5", "[1] * 10, [2] * 5 + [0] * 5"),
    ("privacy_loss NumSVT m=10 c=2, 1^10 vs 0 1^9", "[1] * 10, [0] + [1] * 9"),
    ("privacy_loss NumSVT m=5 c=2, 1^5 vs 0 1^4", "[1] * 5, [0] + [1] * 4"),
]


def measure(tree: str, setup: str, call: str) -> float:
    """CPU seconds of ``call`` in a fresh process importing exactdp from ``tree``."""
    env = dict(os.environ, PYTHONPATH=tree)
    code = SNIPPET.format(setup=setup, call=call)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True, cwd=tree)
    return float(out.stdout.strip().splitlines()[-1])


VALUE_CASES = [
    # (row, epsilon, scores, neighbour)
    ("privacy_loss RNM3 value 1^5 vs 2^5, eps 1/10", "R(1, 10)", "[1] * 5", "[2] * 5"),
    ("privacy_loss RNM3 value 1^5 vs 2^2 0^3, eps 1", "1", "[1] * 5", "[2, 2, 0, 0, 0]"),
]


def value_rows(baseline: str, here: str) -> list[tuple[str, str, str, str]]:
    """The rows of ``ReportNoisyMax(output="value")``: the old class against this tree's."""
    out = []
    for name, eps, q, q2 in VALUE_CASES:
        setup = (f"m = exactdp.ReportNoisyMax({eps}, noise='laplace', output='value')\n"
                 "exactdp.privacy_loss(m, [0, 0], [1, 0])")  # warm-up pair, untimed
        call = f"exactdp.privacy_loss(m, {q}, {q2}, allow_non_neighbour=True)"
        out += [(name, "old class", baseline, setup + "\n" + call),
                (name, "ReportNoisyMax (engine)", here, setup + "\n" + call)]
    return out


def rows(baseline: str, here: str, before: str = "", value_baseline: str = "",
         numsvt: str = "") -> list[tuple[str, str, str, str]]:
    """``(row, label, tree, setup + call)`` of every measurement (with the engine routes of
    the tree ``before`` too, labelled "(before)", when given; the value rows' old class from
    ``value_baseline`` and the NumSVT rows' from ``numsvt``, default ``baseline``)."""
    out = _rows(baseline, here) + value_rows(value_baseline or baseline, here)
    for name, pair in NUMSVT:
        call = f"exactdp.privacy_loss(m, {pair})"
        out += [(name, "old class", numsvt or baseline,
                 f"m = exactdp.NumericalSparseVector(1, 1, c=2)\n{call}"),
                (name, "library numerical_svt", here,
                 f"m = LR.numerical_svt(epsilon=1, threshold=1, c=2)\n{call}"),
                (name, "NumericalSparseVector (engine)", here,
                 f"m = exactdp.NumericalSparseVector(1, 1, c=2)\n{call}")]
    if not before:
        return out
    extra = [(name, f"{label} (before)", before, code) for name, label, tree, code in out
             if tree == here]
    return sorted(out + extra, key=lambda r: [n for n, *_ in out].index(r[0]))


def _rows(baseline: str, here: str) -> list[tuple[str, str, str, str]]:
    out = []
    for name, eps, T, call in CASES:
        e, t = eps.split("=")[1], T.split("=")[1]
        old = SETUP["class"].format(eps=e, T=t)
        prog = SETUP["program"].format(eps=e, T=t)
        out += [(name, "old class", baseline, old + "\n" + call),
                (name, "library svt1", here, prog + "\n" + call),
                (name, "SparseVector (engine)", here, old + "\n" + call)]
    search = "exactdp.check_dp(m, [1] * 6)"
    out += [("check_dp SVT1 m=6 exhaustive", "old class", baseline,
             "m = exactdp.SparseVector(R(1, 2), 1)\n" + search),
            ("check_dp SVT1 m=6 exhaustive", "library svt1", here,
             "m = L.svt1(epsilon=R(1, 2), threshold=1)\n" + search),
            ("check_dp SVT1 m=6 exhaustive", "SparseVector (engine)", here,
             "m = exactdp.SparseVector(R(1, 2), 1)\n" + search)]
    loop = "[m.distribution([R(k, 7), 0, 2, 1, R(3, 2)]).probabilities for k in range(20)]"
    out += [("RNM-Laplace 5 scores probabilities (20 vectors)", "ReportNoisyMax", here,
             f"m = exactdp.ReportNoisyMax(1)\n{loop}"),
            ("RNM-Laplace 5 scores probabilities (20 vectors)", "noisy_max_laplace", here,
             f"m = L.noisy_max_laplace(epsilon=1)\n{loop}")]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, help="a checkout of the old class")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", default="", help="rows whose name contains this")
    parser.add_argument("--before", default="", help="an earlier engine's checkout")
    parser.add_argument("--value-baseline", default="",
                        help="a checkout of the old ReportNoisyMax value class (7f4daa4)")
    parser.add_argument("--numsvt-baseline", default="",
                        help="a checkout of the old NumericalSparseVector")
    args = parser.parse_args()
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    before = os.path.abspath(args.before) if args.before else ""
    value = os.path.abspath(args.value_baseline) if args.value_baseline else ""
    numsvt = os.path.abspath(args.numsvt_baseline) if args.numsvt_baseline else ""
    todo = [r for r in rows(os.path.abspath(args.baseline), here, before, value, numsvt)
            if args.only in r[0]]
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.rounds):
        for name, label, tree, code in todo:
            setup, call = code.rsplit("\n", 1)
            times.setdefault((name, label), []).append(measure(tree, setup, call))
    print("| call | route | CPU s (median) | rounds | ratio to the first route |")
    print("|---|---|---:|---:|---:|")
    first: dict[str, float] = {}
    for (name, label), ts in times.items():
        med = statistics.median(ts)
        base = first.setdefault(name, med)
        print(f"| {name} | {label} | {med:.3f} | {len(ts)} | {med / base:.2f}x |")


if __name__ == "__main__":
    main()
