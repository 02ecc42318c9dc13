"""The integration of a selection priced at the selection itself, before its runs exist.

An ``argmax`` over ``n`` values forks ``n`` ways (``topk`` over ``k`` places,
``n! / (n - k)!``), and every branch's run carries a star (a tree for ``topk``) as large
as the selection: the integration's cost is known at the call, while the enumeration,
the structural trace and the plans of those runs would take seconds more
(``noisy_max_laplace`` on 200 answers: 4 s of them before the integration's estimate
refused). So when the caller is about to integrate (a
:class:`~exactdp.programs.runs.Budget`), the first execution's first selection prices a
few of its branches (:data:`SAMPLES`: winners spread over the ranks of the values'
constants, the rest of a ``topk`` order drawn with a fixed seed) as the runs they start,
the program's comparisons so far plus the selection's, and ``budget.check`` refuses
``weight * branches * mean cost`` past the limit: ``weight`` the product of the
branchings before the selection on this path (Knuth's estimator along the first path:
D. E. Knuth, "Estimating the efficiency of backtrack programs", Math. Comp. 29, 1975).
The rest of the program can only add work, so this under-estimates at worst. A selection
whose runs are surely cheap (:data:`SURE_CHEAP`) is not priced.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any, Protocol

from ..cost import TooCostly
from .runs import Budget, Constraint, Draw, Estimate, Run

#: Branches of one selection priced (each a run's integration cost: a plan and a sweep).
SAMPLES = 8
#: Pricing costs a few plans (milliseconds); a selection is not priced when ``weight *
#: branches * (values + comparisons before it)**4`` is under this: its runs' products
#: grow about as the fourth power of their leaves (an argmax over 17 answers, about 1.4e6
#: here, integrates in 0.3 s), so those runs are surely cheap (the exhaustive searches'
#: many small vectors).
SURE_CHEAP = 10**6


class Selecting(Protocol):
    """What :func:`price_selection` reads of the symbolic execution making the selection
    (:class:`~exactdp.programs.trace.SymbolicRun`)."""

    budget: Budget | None
    draws: list[Draw]
    constraints: list[Constraint]
    arities: list[int]
    weight: Any

    def noises(self, v: Any) -> dict[int, Any]: ...


def orders(constants: Sequence[Any], minimize: bool, top: int) -> list[tuple[int, ...]]:
    """The branches priced: at most :data:`SAMPLES` orders of ``top`` distinct indices,
    the first spread over the ranks of ``constants`` (largest first; smallest for
    ``minimize``), the others drawn with a fixed seed.

    Examples
    --------
    >>> orders([3, 1, 2], False, 1)
    [(0,), (2,), (1,)]
    """
    n = len(constants)
    ranked = sorted(range(n), key=lambda i: constants[i], reverse=not minimize)
    rng = random.Random(0)
    count = min(SAMPLES, math.prod(range(n - top + 1, n + 1)))
    out = []
    for s in range(count):
        first = ranked[(s * n) // count]
        out.append((first, *rng.sample([i for i in ranked if i != first], top - 1)))
    return out


def price_selection(run: Selecting, values: Sequence[Any], minimize: bool,
                    k: int | None, line: str, value: bool = False) -> None:
    """Refuse (``run.budget.check``) the integration of the runs a selection starts, priced
    at the selection (module docstring); once per execution (``run.budget`` is cleared).

    Parameters
    ----------
    run : Selecting
        The symbolic execution reaching the selection; its ``budget`` (None: not priced)
        is read and cleared.
    values : sequence of noisy values, length n
        The values the selection compares (their ``const`` parts rank the orders priced).
    minimize : bool
        An argmin rather than an argmax.
    k : int or None
        The number selected (``topk``), None for one.
    line : str
        The program's line, named by the constraints (and so by a refusal).
    value : bool
        The winner's value is released (:func:`~exactdp.programs.builtins.max_value`):
        each branch is priced as the run releasing it, so that a loss supremum prices a
        released maximum by its own estimate (:func:`~exactdp.programs.release_cost.
        loss_seconds`: no integral; :func:`~exactdp.programs.release_max.max_seconds`
        with both inputs' offsets) rather than as the integrals of an argmax.

    Returns
    -------
    None
        Cheap selections (under :data:`SURE_CHEAP`) and selections outside the exact class
        return at once; the integrator says why later.

    Raises
    ------
    TooCostly
        From ``budget.check``: the estimate is past the caller's limit.
    """
    budget, run.budget = run.budget, None
    if budget is None:
        return
    n, top = len(values), 1 if k is None else k
    branches = math.prod(range(n - top + 1, n + 1))
    weight = math.prod(run.arities)
    if weight * branches * (n + len(run.constraints)) ** 4 < SURE_CHEAP:
        return
    costs = []
    for order in orders([v.const for v in values], minimize, top):
        left = [i for i in range(n) if i not in order]
        cons = list(run.constraints)
        for hi, lo in [*zip(order, order[1:], strict=False), *((order[-1], j) for j in left)]:
            diff = (values[lo] - values[hi]) if minimize else (values[hi] - values[lo])
            noisy = type(diff)(diff.const, run.noises(diff), diff.laws)
            cons.append(Constraint(noisy.linear(), ">" if lo < hi else ">=", line))
        try:
            best = values[order[0]]  # its noises alone (a symbolic trace's answers apart)
            released = (type(best)(best.const, run.noises(best), best.laws).linear(),
                        ) if value else ()
            costs.append(budget.cost(Run(tuple(run.draws), tuple(cons), run.weight, None,
                                         released)))
        except TooCostly:
            raise
        except ValueError:  # outside the exact class: the integrator says why, later
            return
    runs = weight * branches
    budget.check(Estimate(runs, runs * sum(costs) / len(costs)))
