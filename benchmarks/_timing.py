"""Wall-clock timers shared by every benchmark script (run from the repository root).

All timings use :func:`time.perf_counter`; a best-of-k time is the minimum over k runs made
one after the other in the same process, so ratios compare runs on the same input at the
same moment (docs/benchmarks.md).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

__all__ = ["best_of", "median_of", "once", "stopwatch"]


def stopwatch() -> Callable[[], float]:
    """Start a clock; the returned function gives the seconds elapsed since."""
    start = time.perf_counter()
    return lambda: time.perf_counter() - start


def best_of(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    """Best wall time in seconds of ``repeat`` calls of ``fn()``, and the last result."""
    best, out = float("inf"), None
    for _ in range(max(1, int(repeat))):
        elapsed = stopwatch()
        out = fn()
        best = min(best, elapsed())
    return best, out


def once(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Wall time in seconds of one call of ``fn()``, and its result."""
    return best_of(fn, 1)


def median_of(fn: Callable[[], Any], repeat: int) -> float:
    """Median wall time in seconds of ``repeat`` calls of ``fn()``."""
    times = []
    for _ in range(max(1, int(repeat))):
        elapsed = stopwatch()
        fn()
        times.append(elapsed())
    return statistics.median(times)

