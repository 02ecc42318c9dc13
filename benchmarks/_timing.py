"""CPU-time timers shared by every benchmark script (run from the repository root).

All timings are CPU seconds of this process (:func:`time.process_time`: user + system time
of every thread), not wall time: on the shared machine the wall clock measures the other
jobs' load as much as the code (wall-clock ratios of 137x were measured for an 11x CPU
ratio under load). A best-of-k time is the minimum over k runs made one after the other in
the same process, so ratios compare runs on the same input at the same moment
(docs/benchmarks.md). A command run in a child process is timed by the child's CPU
(:func:`child_cpu`: the ``RUSAGE_CHILDREN`` difference around the waited-for child).
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["best_of", "child_cpu", "median_of", "once", "stopwatch"]


def stopwatch() -> Callable[[], float]:
    """Start a CPU clock; the returned function gives the CPU seconds used since."""
    start = time.process_time()
    return lambda: time.process_time() - start


def best_of(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    """Least CPU time in seconds of ``repeat`` calls of ``fn()``, and the last result."""
    best, out = float("inf"), None
    for _ in range(max(1, int(repeat))):
        elapsed = stopwatch()
        out = fn()
        best = min(best, elapsed())
    return best, out


def once(fn: Callable[[], Any]) -> tuple[float, Any]:
    """CPU time in seconds of one call of ``fn()``, and its result."""
    return best_of(fn, 1)


def median_of(fn: Callable[[], Any], repeat: int) -> float:
    """Median CPU time in seconds of ``repeat`` calls of ``fn()``."""
    times = []
    for _ in range(max(1, int(repeat))):
        elapsed = stopwatch()
        fn()
        times.append(elapsed())
    return statistics.median(times)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def child_cpu(args: Sequence[str], env: Mapping[str, str] | None = None,
              cwd: str | None = None) -> tuple[float, subprocess.CompletedProcess]:
    """CPU seconds (user + system) of the command ``args`` run to its end in a child process.

    The child's CPU is the growth of ``getrusage(RUSAGE_CHILDREN)`` around the waited-for
    child (its own waited-for children included), so the parent's CPU and the machine's
    other jobs are not counted. Output is captured; the completed process is returned.
    """
    start = _children_cpu()
    done = subprocess.run(list(args), env=None if env is None else dict(env), cwd=cwd,
                          capture_output=True, text=True, check=False)
    return _children_cpu() - start, done
