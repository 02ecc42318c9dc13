"""The release programs' loss at the suite's settings: SVT3 and the numerical SVT.

Usage: ``PYTHONPATH=. python benchmarks/bench_release.py``.

Claimed epsilon 1/10, 10 queries, threshold 1; SVT3 with ``c = 1`` (and ``c = 2``), the
numerical SVT with ``c = 2`` (the suite's settings, ``exactdp/audit/suite_specs.py``). For
each of StatDP's 8 patterns: the CPU seconds (``time.process_time``) of
``exactdp.privacy_loss`` on the program and its result (exact, or a certified bracket).
Then a screened row: the translation bounds of every pair
(``ProgramRelease.loss_upper_bound``, no integral), the exact loss of the pairs in
decreasing order of their bound until the bound is at most the worst loss found.
"""

from __future__ import annotations

import time

import sympy

import exactdp
from exactdp.audit.suite_specs import patterns
from exactdp.programs import library_release as R

EPS = sympy.Rational(1, 10)


def _text(loss) -> str:
    if loss.interval is not None:
        lo, hi = loss.interval
        return f"bracket [{float(lo):.6g}, {float(hi):.6g}]"
    return f"exact {loss.value}"


def per_pair(mech) -> float:
    total = 0.0
    for name, (a, b) in patterns(10).items():
        t = time.process_time()
        loss = exactdp.privacy_loss(mech, a, b)
        dt = time.process_time() - t
        total += dt
        print(f"| {mech} | {name} | {_text(loss)} | {dt:.2f} |")
    return total


def screened(mech) -> tuple[float, str]:
    t = time.process_time()
    bounds = [(mech.distribution(a).loss_upper_bound(b), name, a, b)
              for name, (a, b) in patterns(10).items()]
    bounds.sort(key=lambda x: -x[0])
    best, where = None, ""
    for bound, name, a, b in bounds:
        if best is not None and bound <= best:
            break
        loss = exactdp.privacy_loss(mech, a, b)
        top = loss.interval[1] if loss.interval is not None else loss.value
        if best is None or top > best:
            best, where = top, f"{name}: {_text(loss)}"
    return time.process_time() - t, where


def main() -> None:
    mechs = [R.svt3(epsilon=EPS, threshold=1, c=1), R.svt3(epsilon=EPS, threshold=1, c=2),
             R.numerical_svt(epsilon=EPS, threshold=1, c=2)]
    print("| program | pattern | loss | CPU s |\n|---|---|---|---:|")
    totals = {str(m): per_pair(m) for m in mechs}
    print("\n| program | 8 pairs CPU s | screened row CPU s | worst |\n|---|---:|---:|---|")
    for m in mechs:
        dt, where = screened(m)
        print(f"| {m} | {totals[str(m)]:.2f} | {dt:.2f} | {where} |")


if __name__ == "__main__":
    main()
