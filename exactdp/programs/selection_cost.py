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
The rest of the program can only add work, so this under-estimates at worst. The check is
made after every branch priced (the branches not yet priced count as free: a lower bound
of the mean), and before them on a ladder of the first branch with fewer of the values
(:data:`LADDER_START`, times 4 a rung: fewer leaves, a lower bound of its cost), so the
pricing itself stops at the first bound past the limit (an argmax over 8000 answers:
13.8 s of pricing before, 0.4 s now). A selection whose runs are surely cheap
(:data:`SURE_CHEAP`) is not priced.
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
#: The fewest values left out of a branch's order on the ladder of lower bounds
#: (:func:`price_selection`), times 4 a rung.
LADDER_START = 32


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
        loss_seconds`: no integral; :func:`~exactdp.programs.release_max.pair_seconds`
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
    runs = weight * branches
    picked = orders([v.const for v in values], minimize, top)

    def cost(order: tuple[int, ...], others: int) -> float | None:
        """One branch's run with ``others`` of the values left out of ``order`` (fewer
        leaves: a lower bound of its cost); None outside the exact class."""
        left = [i for i in range(n) if i not in order][:others]
        cons = list(run.constraints)
        for hi, lo in [*zip(order, order[1:], strict=False), *((order[-1], j) for j in left)]:
            diff = (values[lo] - values[hi]) if minimize else (values[hi] - values[lo])
            noisy = type(diff)(diff.const, run.noises(diff), diff.laws)
            cons.append(Constraint(noisy.linear(), ">" if lo < hi else ">=", line))
        try:
            best = values[order[0]]  # its noises alone (a symbolic trace's answers apart)
            released = (type(best)(best.const, run.noises(best), best.laws).linear(),
                        ) if value else ()
            return budget.cost(Run(tuple(run.draws), tuple(cons), run.weight, None, released))
        except TooCostly:
            raise
        except ValueError:  # outside the exact class: the integrator says why, later
            return None

    # the first branch on a ladder of fewer values (fewer leaves: a lower bound of its own
    # cost, so of the mean's share it adds), so a selection far past the limit is refused
    # at the first rung past it, before a branch of all its values is priced (argmax over
    # 8000 answers: 1.7 s a branch, 8 branches); not for a released maximum, whose
    # estimate reads the run of every value
    others = n if value else LADDER_START
    while others < n - top:
        c = cost(picked[0], others)
        if c is None:
            return
        budget.check(Estimate(runs, runs * c / len(picked)))
        others *= 4
    costs: list[float] = []
    for order in picked:
        c = cost(order, n)
        if c is None:
            return
        costs.append(c)
        # the branches not yet priced cost at least nothing: a lower bound of the mean
        budget.check(Estimate(runs, runs * sum(costs) / len(picked)))
