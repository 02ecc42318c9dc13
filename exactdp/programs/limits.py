"""The run limit near its edge: an exact count where the estimate cannot decide.

The enumeration (:func:`~exactdp.programs.trace.enumerate_runs`) estimates its number of
runs twice: the product of the first run's branchings, then :data:`~exactdp.programs.trace.PROBES`
random probes at :data:`~exactdp.programs.trace.PROBE_AT` runs
(:func:`~exactdp.programs.runs.estimate_tree`: unbiased, seeded, but off by tens of
percent on an unlucky tree). Refusing whenever an estimate passes the limit would refuse
some trees under it (the sparse vector 6 on 12 answers has exactly 4,096 runs; its probes
estimate 4,382) and let others over it run to the limit. So the decision is:

- an estimate past ``MARGIN`` times the limit: refused at once (the tree is past the
  limit unless the estimate is off by more than ``MARGIN``);
- an estimate within the band ``[limit / MARGIN, MARGIN * limit]``: the enumeration goes
  on and the exact count decides (refused when the count passes the limit; the
  integration's estimated cost is still checked at the probes, and its exact cost by the
  caller after), under a budget of :data:`BAND_WORK` draws and decisions so
  that a refusal stays within about 2 s (the work is counted, not timed: the same tree
  gets the same answer on any machine and under any load);
- below the band: the enumeration goes on (refused at the limit if the estimate was off
  by more than ``MARGIN``).
"""

from __future__ import annotations

from ..cost import TooCostly, fmt_size, refuse
from .runs import Budget, Estimate

#: How far an estimate may be from the limit and still leave the decision to the exact
#: count (a factor either way).
MARGIN = 1.3
#: Most draws plus decisions an enumeration whose estimate fell in the band may execute
#: (:func:`execution_work`, its executions counted from the first, and its probes counted
#: as many again as the runs before them: they walk the same tree): 10-20 microseconds
#: each on one core of the 2-core x86-64 machine, idle to loaded (the sparse vector
#: programs, 2026-12), so about 1.2-2.3 s. The 4,096 runs of the sparse vector 6 on 12
#: answers, with their probes, are 113,152.
BAND_WORK = 115_000


def past(estimate: float, limit: float) -> bool:
    """Whether ``estimate`` is past the band: refused at once.

    Examples
    --------
    >>> past(5400, 4096), past(5000, 4096)
    (True, False)
    """
    return estimate > MARGIN * limit


def near(estimate: float, limit: float) -> bool:
    """Whether ``estimate`` is within the band around ``limit`` (the exact count decides).

    Examples
    --------
    >>> near(3200, 4096), near(3000, 4096), near(5000, 4096)
    (True, False, True)
    """
    return limit / MARGIN <= estimate <= MARGIN * limit


def execution_work(decisions: int, draws: int) -> int:
    """The work of one execution counted against :data:`BAND_WORK`: its decisions and
    draws, and 1 for the call itself."""
    return decisions + draws + 1


def decide(estimate: int, limit: int, probed: Estimate, budget: Budget | None,
           refusal: TooCostly) -> bool:
    """The verdict of the probes on an enumeration: raise ``refusal`` for a run estimate
    past the band (:func:`past`), and ``budget.check``'s refusal of the integration's
    estimated cost (not deferred: that estimate counts the enumeration's own cost, which
    the exact count would spend); True when the run estimate is :func:`near` the limit:
    the enumeration goes on and the exact count decides, under :data:`BAND_WORK`."""
    if past(estimate, limit):
        raise refusal
    if budget is not None:
        budget.check(probed)
    return near(estimate, limit)


def band_refusal(func: str, name: str, estimate: int, limit: int, cheaper: str) -> TooCostly:
    """The refusal of an enumeration in the band that passed :data:`BAND_WORK`."""
    return refuse(func, f"an exact count of the runs of program {name} (estimated at about "
                  f"{fmt_size(estimate)}, near the limit of {limit} runs)",
                  f"more than {BAND_WORK} draws and decisions",
                  f"{BAND_WORK} near the run limit", cheaper)
