"""The three hand-written release classes against the library's programs on the engine.

Usage: ``PYTHONPATH=. python benchmarks/bench_release_classes.py [--only num svt3 nmv]``.

For ``NumericalSparseVector(1, 1, c=2)`` / ``numerical_svt``, ``SparseVector(1, 1, 2,
variant=3)`` / ``svt3`` and ``ReportNoisyMax(1, noise=..., output="value")`` /
``noisy_max_value_laplace`` (``_exponential``): the CPU seconds (``time.process_time``) of
``exactdp.privacy_loss`` on a few pairs, of 16 densities at 5 queries, of ``cdf_float`` at 200
points and of ``sample(100000)``, each side in a fresh process after one warm-up pair, with
the ratio program / class (docs/benchmarks.md, "The three hand-written release classes
against the program engine").
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, sys, time
import numpy as np
import sympy
import exactdp
from exactdp import NumericalSparseVector, ReportNoisyMax, SparseVector
from exactdp.programs import REAL
from exactdp.programs import library_release as L

which, side = sys.argv[1], sys.argv[2]
R = sympy.Rational
MAKE = {
    "num": (lambda: NumericalSparseVector(1, 1, 2),
            lambda: L.numerical_svt(epsilon=1, threshold=1, c=2)),
    "svt3": (lambda: SparseVector(1, 1, 2, variant=3),
             lambda: L.svt3(epsilon=1, threshold=1, c=2)),
    "nmv": (lambda: ReportNoisyMax(1, noise="laplace", output="value"),
            lambda: L.noisy_max_value_laplace(epsilon=1)),
}
PAIRS = {
    "num": [([0, 0], [1, 1]), ([1, 1, 1], [2, 0, 0]), ([1] * 5, [0] + [1] * 4),
            ([1] * 10, [2] * 5 + [0] * 5), ([1] * 10, [0] + [1] * 9)],
    "svt3": [([0, 0], [1, 1]), ([1] * 5, [0] + [1] * 4), ([1] * 10, [0] + [1] * 9),
             ([1, 1, 1], [2, 0, 0])],
    "nmv": [([0] * 3, [1] * 3), ([0, 1, 3], [1, 0, 2]), ([1] * 5, [0] + [1] * 4),
            ([1] * 5, [2] * 2 + [0] * 3)],
}
mech = MAKE[which][0 if side == "class" else 1]()
exactdp.privacy_loss(mech, [5, 5], [4, 6])  # warm-up
out = {}
for a, b in PAIRS[which]:
    t = time.process_time()
    try:
        loss = exactdp.privacy_loss(mech, a, b)
        text = (f"bracket [{float(loss.interval[0]):.4g}, {float(loss.interval[1]):.4g}]"
                if loss.interval is not None else f"{float(loss.value):.6g}")
    except ValueError as exc:
        text = "refused: " + str(exc)[:60]
    out[f"privacy_loss {a} vs {b}"] = (time.process_time() - t, text)
if which != "nmv":
    d = mech.distribution([1, 0, 2, 1, R(1, 2)])
    vals = [R(3, 2), R(-1, 3), R(5, 2), R(1, 2), R(7, 4)]
    t = time.process_time()
    for p in d.outputs:
        d.density(tuple(vals[i] if x is True or x is REAL else x for i, x in enumerate(p)))
    out["16 densities, 5 queries"] = (time.process_time() - t, "")
    p = next(p for p in d.outputs if sum(x is True or x is REAL for x in p) == 2)
    i = 0 if side == "program" else [k for k, x in enumerate(p) if x is True][0]
    t = time.process_time()
    d.cdf_float(p, i, np.linspace(-3, 5, 200))
    out["cdf_float, 200 points"] = (time.process_time() - t, "")
d = mech.distribution([1, 0, 2])
t = time.process_time()
d.sample(100000, rng=1)
out["sample(100000), 3 answers"] = (time.process_time() - t, "")
print(json.dumps(out))
"""


def run(which: str, side: str) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, which, side], capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=["num", "svt3", "nmv"],
                        choices=["num", "svt3", "nmv"])
    args = parser.parse_args()
    for which in args.only:
        mine, theirs = run(which, "class"), run(which, "program")
        print(f"\n{which}: call | class | program (ratio)")
        for call, (t_class, v_class) in mine.items():
            t_prog, v_prog = theirs[call]
            ratio = t_prog / t_class if t_class > 0 else float("inf")
            print(f"  {call} | {t_class:.3f} s {v_class} | {t_prog:.3f} s {v_prog} "
                  f"({ratio:.1f}x)")


if __name__ == "__main__":
    main()
