"""Report-noisy-max returning the value: the engine's loss against the deleted polynomial route.

Usage: ``PYTHONPATH=. python benchmarks/bench_noisy_max_value_loss.py [--rounds R]
[--baseline PATH]``.

For ``ReportNoisyMax(1, noise=..., output="value")`` at epsilon 1: the CPU seconds
(``time.process_time``, the least of ``R`` rounds) of ``exactdp.privacy_loss`` on 16 pairs
of 2 to 20 scores, the program engine's route (the released maximum read by
``exactdp.programs.release_max``; every cache of ``exactdp.programs`` cleared before each
call, so each is a first call) interleaved in one process with the polynomial route it
replaced: ``--baseline PATH``, the file ``exactdp/mechanisms/noisy_max_loss.py`` of a
commit before its deletion (``git show 38ec708:exactdp/mechanisms/noisy_max_loss.py >
/tmp/old.py``), loaded as a module of this package (it reads ``noisy_max_value`` and the
exact helpers) and installed in turn as the class's loss route, so that both columns are
``exactdp.privacy_loss`` of the class. Without a baseline only the engine's column.
Whether both give the same exact loss, and the ratio engine / old (docs/benchmarks.md,
"Report-noisy-max value: the released maximum on the engine").
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from typing import Any

import sympy

import exactdp
from exactdp import ReportNoisyMax
from exactdp.exact.signs import compare
from exactdp.mechanisms.noisy_max_value import engine_route, set_engine_route

PAIRS = [("laplace", [0] * 3, [1] * 3), ("laplace", [0, 1, 3], [1, 0, 2]),
         ("laplace", [1] * 5, [0, 1, 1, 1, 1]), ("laplace", [1] * 5, [2, 2, 0, 0, 0]),
         ("laplace", [1, 0, 1, 0, 1], [0, 1, 0, 1, 0]), ("exponential", [0, 0], [1, 1]),
         ("exponential", [1] * 5, [0, 1, 1, 1, 1]), ("exponential", [0, 1, 3], [0, 1, 2]),
         ("exponential", [2, 0], [2, 1]), ("exponential", [1] * 5, [2, 2, 0, 0, 0]),
         ("laplace", [0, 0, 1, 0, 0], [0, -1, 1, 0, 1]),
         ("laplace", [3, 0, 0, 1, 2, 2, 4, 1], [2, 1, 0, 1, 2, 3, 4, 1]),
         ("laplace", [4, 2, 2, 3, 0, 0, 4, 1, 2, 4, 1, 2], [4, 3, 1, 3, -1, -1, 4, 2, 3, 3, 2, 2]),
         ("laplace", list(range(20)), [1, *range(1, 20)]),
         ("exponential", [-1, 2, -2, 1, 2, 0, 1, 2], [-2, 2, -2, 1, 2, 0, 1, 1]),
         ("exponential", list(range(20)), [1, *range(1, 20)])]


def _clear_caches() -> None:
    for name, module in list(sys.modules.items()):
        if name.startswith(("exactdp.programs", "exactdp.mechanisms.noisy_max_value_engine")):
            for obj in vars(module).values():
                clear = getattr(obj, "cache_clear", None)
                if callable(clear):
                    clear()


def _baseline(path: str) -> Any:
    spec = importlib.util.spec_from_file_location("exactdp.mechanisms._old_noisy_max_loss",
                                                  path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.value_loss_supremum


def _text(loss: Any) -> str:
    if loss.interval is not None:
        lo, hi = loss.interval
        return f"[{float(lo):.8g}, {float(hi):.8g}]"
    value = loss.value
    text = f"{float(value):.6g}" if value.has(sympy.log) else str(value)
    return text + ("" if loss.attained else " (limit)")


def _same(a: Any, b: Any) -> bool:
    if a.attained != b.attained or (a.interval is None) != (b.interval is None):
        return False
    if a.interval is not None:
        return bool(a.interval[0] <= b.interval[1] and b.interval[0] <= a.interval[1])
    va, vb = a.value, b.value
    if sympy.oo in (va, vb):
        return bool(va == vb)
    return compare(va, vb) == 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", default=None)
    args = parser.parse_args()
    old = _baseline(args.baseline) if args.baseline else None
    engine = engine_route("loss")
    print("| pair | loss (engine) | equals the old route | old s | engine s | ratio |")
    print("|---|---|---|---:|---:|---:|")
    for noise, a, b in PAIRS:
        mech = ReportNoisyMax(1, noise=noise, output="value")
        times: dict[str, list[float]] = {"old": [], "engine": []}
        got: dict[str, Any] = {}
        for _ in range(args.rounds):
            _clear_caches()
            t = time.process_time()
            got["engine"] = exactdp.privacy_loss(mech, a, b, allow_non_neighbour=True)
            times["engine"].append(time.process_time() - t)
            if old is not None:
                set_engine_route("loss", old)
                t = time.process_time()
                got["old"] = exactdp.privacy_loss(mech, a, b, allow_non_neighbour=True)
                times["old"].append(time.process_time() - t)
                set_engine_route("loss", engine)
        te = min(times["engine"])
        if old is None:
            print(f"| {noise}, `{a}` vs `{b}` | {_text(got['engine'])} | - | - | {te:.3f} | - |")
            continue
        to = min(times["old"])
        same = "yes" if _same(got["engine"], got["old"]) else f"no: {_text(got['old'])}"
        print(f"| {noise}, `{a}` vs `{b}` | {_text(got['engine'])} | {same} | {to:.4f} | "
              f"{te:.4f} | {te / max(to, 1e-4):.2f}x |")


if __name__ == "__main__":
    main()
