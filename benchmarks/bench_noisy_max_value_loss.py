"""Report-noisy-max returning the value: the class against the library program, loss of 10 pairs.

Usage: ``PYTHONPATH=. python benchmarks/bench_noisy_max_value_loss.py [--rounds R]``.

For ``ReportNoisyMax(1, noise=..., output="value")`` and ``noisy_max_value_laplace`` /
``noisy_max_value_exponential`` at epsilon 1: the CPU seconds (``time.process_time``, the
least of ``R`` rounds, class and program interleaved in one process) of
``exactdp.privacy_loss`` on 10 pairs, whether the two results agree exactly (value, and
whether attained), and the ratio program / class (docs/benchmarks.md, "Report-noisy-max
value: class and program on 10 pairs"). Since the class was rebuilt on the engine both
columns run the engine (a check that they agree); the old class against the engine is
``benchmarks/bench_engine.py --value-baseline PATH --only "RNM3 value"``.
"""

from __future__ import annotations

import argparse
import time

import sympy

import exactdp
from exactdp import ReportNoisyMax
from exactdp.programs import library_release as L

PAIRS = [("laplace", [0] * 3, [1] * 3), ("laplace", [0, 1, 3], [1, 0, 2]),
         ("laplace", [1] * 5, [0, 1, 1, 1, 1]), ("laplace", [1] * 5, [2, 2, 0, 0, 0]),
         ("laplace", [1, 0, 1, 0, 1], [0, 1, 0, 1, 0]), ("exponential", [0, 0], [1, 1]),
         ("exponential", [1] * 5, [0, 1, 1, 1, 1]), ("exponential", [0, 1, 3], [0, 1, 2]),
         ("exponential", [2, 0], [2, 1]), ("exponential", [1] * 5, [2, 2, 0, 0, 0])]


def _text(loss: exactdp.PrivacyLoss) -> str:
    if loss.interval is not None and loss.value is None:
        lo, hi = loss.interval
        return f"bracket [{float(lo):.3g}, {float(hi):.3g}]"
    value = loss.loss
    text = f"{float(value):.6g}" if value.has(sympy.log) else str(value)
    return text + ("" if loss.attained else " (limit)")


def _same(a: exactdp.PrivacyLoss, b: exactdp.PrivacyLoss) -> bool:
    if a.value is None or b.value is None or a.attained != b.attained:
        return False
    if sympy.oo in (a.value, b.value):
        return bool(a.value == b.value)
    return bool(sympy.simplify(sympy.exp(a.value) - sympy.exp(b.value)) == 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print("| pair | loss (program) | equals the class | class s | program s | ratio |")
    print("|---|---|---|---:|---:|---:|")
    for noise, a, b in PAIRS:
        cls = ReportNoisyMax(1, noise=noise, output="value")
        prog = (L.noisy_max_value_laplace if noise == "laplace"
                else L.noisy_max_value_exponential)(epsilon=1)
        times: dict[str, list[float]] = {"class": [], "program": []}
        got = {}
        for _ in range(args.rounds):
            for name, mech in (("class", cls), ("program", prog)):
                t = time.process_time()
                got[name] = exactdp.privacy_loss(mech, a, b, allow_non_neighbour=True)
                times[name].append(time.process_time() - t)
        tc, tp = min(times["class"]), min(times["program"])
        same = "yes" if _same(got["class"], got["program"]) else f"no: {_text(got['class'])}"
        print(f"| {noise}, `{a}` vs `{b}` | {_text(got['program'])} | {same} | {tc:.3f} | "
              f"{tp:.3f} | {tp / max(tc, 1e-4):.0f}x |")


if __name__ == "__main__":
    main()
