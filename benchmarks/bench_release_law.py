"""The released value's float CDF and piecewise forms, code tree against code tree.

Usage: ``python benchmarks/bench_release_law.py TREE [TREE ...] [--rounds 3]``, each TREE
a checkout of exactdp (``git worktree add /tmp/old <commit>``), run in turn with
``PYTHONPATH=TREE`` in a fresh process per round (rounds interleaved).

Calls (CPU seconds, ``time.process_time``, least over the rounds; the engine's lazy
import and a first trace done on another vector before timing): ``SparseVector(1, 1, c,
variant=3)`` on ``[1, 0, 2, 1, 1/2]``, ``cdf_float`` of the first value of a pattern
releasing ``min(c, 2)`` values at 200 points (a first call on the distribution, and again);
``ReportNoisyMax(1, output="value")`` (Laplace, exponential), ``density_expr`` and
``cdf_expr`` on ``n`` scores, a number epsilon and a symbolic one (docs/benchmarks.md,
"The released value's law on its cells").
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CHILD = r"""
import json, time
import numpy as np
import sympy
from exactdp import ReportNoisyMax, SparseVector

R = sympy.Rational
out = {}


def timed(name, fn):
    t = time.process_time()
    fn()
    out[name] = time.process_time() - t


for c in (1, 2):
    mech = SparseVector(1, 1, c, variant=3)
    for scores, label in (([0, 1, 1, 2, 0], None), ([1, 0, 2, 1, R(1, 2)], "svt3")):
        d = mech.distribution(scores)
        p = next(p for p in d.outputs if sum(x is True for x in p) == min(c, 2))
        i = [k for k, x in enumerate(p) if x is True][0]
        pts = np.linspace(-3, 5, 200 if label else 5)
        if label is None:  # the engine's import and a first trace
            d.cdf_float(p, i, pts)
            continue
        d.probabilities
        timed(f"SVT3 c={c} cdf_float 200 points, first", lambda: d.cdf_float(p, i, pts))
        timed(f"SVT3 c={c} cdf_float 200 points, again", lambda: d.cdf_float(p, i, pts))
eps = sympy.Symbol("epsilon", positive=True)
ReportNoisyMax(1, output="value").distribution([5, 4]).density_expr
for noise in ("laplace", "exponential"):
    for n in (3, 5, 8):
        for e, tag in ((1, "1"), (eps, "symbolic")):
            scores = [R(k * k, 7) for k in range(n)]
            d = ReportNoisyMax(e, noise=noise, output="value").distribution(scores)
            timed(f"RNM value {noise} n={n} eps={tag}: density_expr + cdf_expr",
                  lambda d=d: (d.density_expr, d.cdf_expr))
import exactdp
out["tree"] = exactdp.__file__
print(json.dumps(out))
"""


def run(tree: str) -> dict:
    env = dict(os.environ, PYTHONPATH=tree)
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                          check=True, env=env, cwd=tree)  # cwd: "-c" puts it first on the path
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    best: dict[str, dict[str, float]] = {t: {} for t in args.trees}
    for _ in range(args.rounds):
        for tree in args.trees:
            got = run(tree)
            assert got.pop("tree").startswith(os.path.abspath(tree)), tree
            for call, sec in got.items():
                best[tree][call] = min(sec, best[tree].get(call, float("inf")))
    first = args.trees[0]
    print("call | " + " | ".join(args.trees))
    for call, base in best[first].items():
        cells = [f"{best[t][call]:.4f} ({best[t][call] / base:.2f}x)" if base > 0 else
                 f"{best[t][call]:.4f}" for t in args.trees]
        print(f"{call} | " + " | ".join(cells))


if __name__ == "__main__":
    main()
