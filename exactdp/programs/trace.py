"""Running a program: symbolically, once per prefix of decisions, or with random draws.

Symbolic execution is re-execution. A *decision* is a point where the run forks: the truth
of a comparison of noisy values (2 branches, ``True`` first), a Bernoulli coin (2), the
winner of ``argmax`` / ``argmin`` (one per index), the value of a returned clamped discrete
noise (one per integer). The program is run with a prefix of decisions: within the prefix
each decision takes the recorded branch; past it, the first branch. After each complete run
the next prefix is the last decision with a branch left, advanced by one (a depth-first
walk of the decision tree, one execution per leaf). Each complete run gives a
:class:`~exactdp.programs.runs.Run`: its draws, the constraints its comparisons fixed, the
weight of its coins and its output in canonical form (:func:`canonical`).

Outputs are keyed by a type-tagged canonical form, also their sort order: ``True`` before
``False``, then ``None``, then integers (increasing), then tuples (lexicographic); so ``True``
and ``1`` are different outputs, and answer sequences come in the order of
:class:`~exactdp.SparseVector` (``True`` before ``False`` at each position).

Limits (never a hang): at most :data:`MAX_STEPS` executed lines of the program's file per
run (a loop without end is refused naming its line) and :data:`MAX_RUNS` runs per call
(refused with the estimate from the first run's branching, Knuth's estimator: D. E. Knuth,
"Estimating the efficiency of backtrack programs", Math. Comp. 29, 1975).
"""

from __future__ import annotations

import math
import os
import traceback
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from .._validate import short_number
from ..cost import fmt_size, refuse
from .limits import BAND_WORK, band_refusal, decide, execution_work, past
from .runs import (
    REAL,
    RELEASE_LAWS,
    RELEASED_KEY,
    Budget,
    Constraint,
    Draw,
    Estimate,
    Linear,
    Run,
    estimate_tree,
)
from .selection_cost import price_selection
from .steps import MAX_STEPS, StepCounter, StepLimit
from .values import (
    ACTIVE,
    Comparison,
    Executor,
    Noisy,
    ProgramError,
    exact_probability,
    exact_scale,
    user_line,
)

#: Most decisions (forks) one run may make: a loop on noisy values that never ends forks at
#: every turn, and is refused here long before the step limit.
MAX_DECISIONS = 4096
#: Most runs (executions) one symbolic enumeration may make.
MAX_RUNS = 4096
#: An enumeration still going after this many runs is re-estimated by :data:`PROBES`
#: random probes (:func:`probe_runs`) and refused at once if the estimate exceeds the limit.
PROBE_AT = 256
PROBES = 256
#: The cheaper route of a refused enumeration or integration.
CHEAPER = ("use fewer queries, or an earlier cut-off (stop after fewer answers: a smaller "
           "c); a plain noisy max or top-k has closed forms: ReportNoisyMax, TopK")
#: The cheaper route of an exact analysis refused for its number of answers or noises.
SAMPLE_ROUTE = ("draw with .sample(size, rng) (it runs the program); a plain noisy max or "
                "top-k has closed forms: ReportNoisyMax, TopK")
ANSWERS_ROUTE = "use fewer answers, or " + SAMPLE_ROUTE


class _Infeasible(Exception):  # noqa: N818 (internal control flow, never seen by users)
    """The run's constraints are contradictory before its output is formed (probability 0)."""


#: Most draws one run may make (a histogram of 10,000 answers draws 10,000).
MAX_DRAWS = 10_000


# ---------------------------------------------------------------------------- outputs
def canonical(value: object, line: str, resolve: Callable[[Noisy, str], Hashable]) -> Hashable:
    """The type-tagged canonical key of an output (also its sort key).

    ``(0, 0)`` True, ``(0, 1)`` False, ``(1,)`` None, ``(2, k)`` the integer k, ``(3, keys)``
    a tuple. A comparison is decided (it forks); a noisy value goes to ``resolve`` (the
    clamped discrete values; continuous ones are refused there).
    """
    if isinstance(value, Comparison):
        value = bool(value)
    if isinstance(value, (bool, sympy.logic.boolalg.BooleanAtom)):  # q[0] >= 1: sympy.true
        return (0, 0 if value else 1)
    if value is None:
        return (1,)
    if isinstance(value, int):
        return (2, int(value))
    if isinstance(value, sympy.Integer) or (type(value).__module__ == "numpy"
                                            and getattr(value, "dtype", None) is not None
                                            and value.dtype.kind in "iu"):  # type: ignore[attr-defined]
        return (2, int(value))  # type: ignore[call-overload]
    if isinstance(value, tuple):
        return (3, tuple(canonical(v, line, resolve) for v in value))
    if isinstance(value, Noisy):
        return resolve(value, line)  # (2, k): a clamped discrete value; or RELEASED_KEY
    if isinstance(value, (list, dict, set)):
        raise ProgramError(f"{line}: the output is unhashable (a {type(value).__name__}); "
                           "return a tuple")
    if isinstance(value, (Fraction, sympy.Rational)):
        raise ProgramError(f"{line}: the output {short_number(value)} is not an integer (a "
                           "clamp of a discrete noise takes integer constants: min(max(v, "
                           "lo), hi))")
    raise ProgramError(f"{line}: the output {value!r} is not made of booleans, None, integers "
                       "and tuples (a released real value is a + noise, declared with "
                       "@program(output='release'))")


def decode(key: Hashable) -> Any:
    """The output value of a canonical key (inverse of :func:`canonical`)."""
    tag = key[0]  # type: ignore[index]
    if tag == 0:
        return key[1] == 0  # type: ignore[index]
    if tag == 1:
        return None
    if tag == 2:
        return key[1]  # type: ignore[index]
    return REAL if tag == 4 else tuple(decode(k) for k in key[1])  # type: ignore[index]


# ---------------------------------------------------------------------------- symbolic
class SymbolicRun(Executor):
    """One symbolic execution under a prefix of decisions."""

    def __init__(self, prefix: list[int], sites: list[tuple[str, int, Hashable]],
                 chooser: Callable[[int], int] | None = None, release: bool = False) -> None:
        self.chooser = chooser
        self.released: list[Linear] | None = [] if release else None
        self.prefix = prefix
        self.prefix_sites = sites
        self.choices: list[int] = []
        self.arities: list[int] = []
        self.sites: list[tuple[str, int, Hashable]] = []
        self.draws: list[Draw] = []
        self.constraints: list[Constraint] = []
        self.forms: list[tuple[Noisy, str]] = []
        self.weight: sympy.Expr = sympy.Integer(1)
        self.used: set[int] = set()
        self.edges: dict[int, set[int]] = {}
        self.chained: set[int] = set()
        self.log: list[str] = []
        self.budget: Budget | None = None  # the first execution's: price_selection

    def noises(self, v: Noisy) -> dict[int, Any]:
        """The draws of ``v`` with their coefficients (a subclass may hide other terms)."""
        return v.coef

    def result(self, key: Hashable) -> Run:
        """The complete :class:`~exactdp.programs.runs.Run` of this execution, output ``key``."""
        return Run(tuple(self.draws), tuple(self.constraints), self.weight, key,
                   tuple(self.released or ()))

    def signature(self, v: Noisy) -> Hashable:
        """What a decision on ``v`` compares: its constant and its draws with their laws and
        scales (a re-execution must ask the same question at the same decision)."""
        return v.const, tuple((i, c, self.draws[i].law, self.draws[i].scale)
                              for i, c in sorted(v.coef.items()))

    def decide(self, arity: int, line: str, detail: Hashable = None) -> int:
        pos = len(self.choices)
        if pos >= MAX_DECISIONS:
            raise StepLimit(f"{line}: a run made more than {MAX_DECISIONS} decisions (a loop on "
                            "noisy values that does not stop within that many turns?)")
        if pos < len(self.prefix):
            if self.prefix_sites[pos] != (line, arity, detail):
                raise ProgramError(
                    f"{line}: the program took a different path when run again with the same "
                    f"decisions (decision {pos + 1} was at {self.prefix_sites[pos][0]}, comparing "
                    "other noises or another probability); it must be deterministic given its "
                    "draws (no I/O, global state or random)")
            choice = self.prefix[pos]
        else:
            choice = 0 if self.chooser is None else self.chooser(arity)
        self.choices.append(choice)
        self.arities.append(arity)
        self.sites.append((line, arity, detail))
        return choice

    def constrain(self, expr: Noisy, relation: str, line: str) -> None:
        if len(expr.coef) == 2:
            i, j = expr.coef
            self._connect(i, j, line)
        self.constraints.append(Constraint(expr.linear(), relation, line))
        self.forms.append((expr, relation))
        self.used.update(expr.coef)

    def _connect(self, i: int, j: int, line: str) -> None:
        """Record that draws i and j were compared; refuse when their component stops being
        a star (one centre, every other draw compared with it only): a chain of
        comparisons between noises, as a hand-written running maximum makes."""
        if j in self.edges.get(i, ()):  # compared before: the graph is unchanged
            return
        if i in self.chained and j in self.chained:  # a topk chain: a tree, integrated
            self.edges.setdefault(i, set()).add(j)  # leaf first (integrate_tree)
            self.edges.setdefault(j, set()).add(i)
            return
        self.edges.setdefault(i, set()).add(j)
        self.edges.setdefault(j, set()).add(i)
        for c in (i, j):  # c's neighbours touch c only: its component is a star around c
            if all(len(self.edges[k]) == 1 for k in self.edges[c]):
                return
        component, todo = {i}, [i]
        while todo:
            for k in self.edges[todo.pop()]:
                if k not in component:
                    component.add(k)
                    todo.append(k)
        c = max(component, key=lambda v: len(self.edges[v]))  # a star's one centre: O(k)
        if len(component) <= 2 or len(self.edges[c]) == len(component) - 1 and all(
                self.edges[k] == {c} for k in component if k != c):
            return
        cycle = sum(len(self.edges[k]) for k in component) // 2 >= len(component)
        raise ProgramError(
            f"{line}: the comparisons between the noises drawn at "
            f"{', '.join(sorted({self.draws[k].line for k in component}))} "
            f"{'close a cycle' if cycle else 'form a chain'}, not a star (one shared noise "
            "compared with the others); a running maximum over noisy values is argmax / "
            "argmin")

    def draw(self, law: str, scale: Any) -> Noisy:
        line = user_line()
        index = len(self.draws)
        if index >= MAX_DRAWS:  # an exact analysis of more noises than this never ends
            raise ProgramError(f"{line}: a run draws more than {MAX_DRAWS} noises; analyse "
                               "fewer answers or copies, or " + SAMPLE_ROUTE)
        s = exact_scale(scale, law, line)
        self.draws.append(Draw(index, law, s, line))
        return Noisy.draw(index, law)

    def bernoulli(self, p: Any) -> bool:
        line = user_line()
        s = exact_probability(p, line)
        if s.is_zero or (1 - s).is_zero:
            return bool((1 - s).is_zero)
        heads = self.decide(2, line, s) == 0
        self.weight = self.weight * (s if heads else 1 - s)
        self.log.append(f"{line} bernoulli {heads}")
        return heads

    def branch(self, comparison: Comparison) -> bool:
        taken = self.decide(2, comparison.line,
                            (self.signature(comparison.expr), comparison.relation)) == 0
        expr, rel = ((comparison.expr, comparison.relation) if taken
                     else comparison.negation())
        self.constrain(expr, rel, comparison.line)
        self.log.append(f"{comparison.line} {taken}")
        return taken

    def select(self, values: Any, minimize: bool, k: int | None = None,
               value: bool = False) -> Any:
        line = user_line()
        func = ("topk" if k is not None else "argmin" if minimize
                else "max_value" if value else "argmax")
        seen: set[int] = set()
        for n, v in enumerate(values):
            if not (isinstance(v, Noisy) and len(self.noises(v)) == 1):
                raise ProgramError(f"{line}: {func} needs values with one fresh noise each "
                                   f"(a_i + noise); value {n} is {v!r}")
            (i,) = self.noises(v)
            if i in seen or i in self.used:
                raise ProgramError(f"{line}: {func} needs values with one fresh noise each; "
                                   f"value {n}'s noise is shared or already compared")
            seen.add(i)
        price_selection(self, values, minimize, k, line, value)  # with a budget: refused?
        left, order = list(range(len(values))), []
        sig = tuple(self.signature(v) for v in values)
        for _ in range(1 if k is None else k):  # ties: the first index ranks higher
            order.append(left.pop(self.decide(len(left), line, sig)))
        if k is not None:  # topk's chain: a tree
            self.chained.update(i for v in values for i in v.coef)
        for hi, lo in [*zip(order, order[1:], strict=False), *((order[-1], j) for j in left)]:
            diff = (values[lo] - values[hi]) if minimize else (values[hi] - values[lo])
            self.constrain(diff, ">" if lo < hi else ">=", line)
        self.log.append(f"{line} {func} {order}")
        return order[0] if k is None else tuple(order)

    # -- a returned noisy value: clamped discrete noise
    def resolve(self, v: Noisy, line: str) -> tuple:
        if v.is_constant:
            if v.const.denominator != 1:
                raise ProgramError(f"{line}: the output {v.const} is not an integer")
            return (2, int(v.const))
        if v.continuous and self.released is not None:
            if bad := sorted({v.laws[i] for i in v.coef} - set(RELEASE_LAWS)):
                raise ProgramError(f"{line}: a released value with {bad[0]} noise is outside "
                                   "the exact class (Laplace and exponential noise only)")
            self.released.append(v.linear())
            return RELEASED_KEY
        if v.continuous:
            raise ProgramError(f"{line}: the program returns a real value with continuous "
                               "noise; declare @program(output='release') to release it "
                               "(or return comparisons, indices or clamped discrete noise)")
        drawn = ", ".join(sorted({self.draws[i].line for i in v.coef}))
        if v.const.denominator != 1 or any(c.denominator != 1 for c in v.coef.values()):
            raise ProgramError(f"{line}: a returned discrete noise (drawn at {drawn}) must be "
                               "an integer: integer coefficients and constant (no division)")
        lo, hi = self._bounds(v)
        if lo is None or hi is None:
            raise ProgramError(f"{line}: a returned discrete noise v (drawn at {drawn}) must "
                               f"be clamped to a finite range ({_range(lo, hi)}): return "
                               "min(max(v, lo), hi) with integer constants lo <= hi")
        if lo > hi:
            raise _Infeasible
        if lo == hi:
            return (2, lo)
        k = lo + self.decide(hi - lo + 1, line, self.signature(v))
        self.constrain(v - k, "==", line)
        return (2, k)

    def _bounds(self, v: Noisy) -> tuple[int | None, int | None]:
        lo: int | None = None
        hi: int | None = None
        (i0, c0), *_ = v.coef.items()
        for expr, rel in self.forms:
            if set(expr.coef) != set(v.coef) or rel == "!=":
                continue
            s = Fraction(expr.coef[i0]) / c0
            if any(expr.coef[i] != s * c for i, c in v.coef.items()):
                continue
            a = -(expr.const - s * v.const) / s  # expr rel 0  <=>  v rel' a
            if rel == "==":
                if a.denominator != 1:
                    raise _Infeasible
                lo = int(a) if lo is None else max(lo, int(a))
                hi = int(a) if hi is None else min(hi, int(a))
                continue
            strict = rel == ">"
            if s > 0:
                new_lo = math.floor(a) + 1 if strict else math.ceil(a)
                lo = new_lo if lo is None else max(lo, new_lo)
            else:
                new_hi = math.ceil(a) - 1 if strict else math.floor(a)
                hi = new_hi if hi is None else min(hi, new_hi)
        return lo, hi


def _range(lo: int | None, hi: int | None) -> str:
    """The bounds a run put on a returned value, in words."""
    if lo is None and hi is None:
        return "this run does not bound it"
    return f"this run only knows v >= {lo}" if hi is None else f"this run only knows v <= {hi}"


@dataclass(frozen=True)
class Trace:
    """The runs of a program on one input.

    Attributes
    ----------
    runs : tuple of Run
        Every complete run (contradictory ones dropped early are not included).
    outputs : dict
        Canonical key -> output value, of every run's output.
    executions : int
        The number of executions the enumeration made.
    """

    runs: tuple[Run, ...]
    outputs: dict[Hashable, Any]
    executions: int


def _run_error(name: str, exc: BaseException, run: SymbolicRun | None,
               filename: str) -> ProgramError:
    """The one-line refusal of a run that raised: the line (the innermost frame of the
    program's file), and the run's decisions."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
    where = f"{os.path.basename(filename)}:{frames[-1].lineno}" if frames else "<unknown>"
    path = "" if run is None else (
        "; its decisions: " + (", ".join(run.log[:8]) + (" ..." if len(run.log) > 8 else "")
                               if run.log else "none"))
    return ProgramError(f"{name}: a run raised {type(exc).__name__}: {exc} at {where}{path}")


def execute(executor: Executor, call: Callable[[], Any], counter: StepCounter, name: str,
            finish: Callable[[Any], Any]) -> Any:
    """Run ``call`` under ``executor`` and the step counter; ``finish`` turns the returned
    value into the output (still under the executor: it may fork). Errors become one-line
    ProgramErrors naming ``name``."""
    ACTIVE.append(executor)
    run = executor if isinstance(executor, SymbolicRun) else None
    try:
        with counter:
            value = call()
        return finish(value)
    except _Infeasible:
        raise
    except ProgramError as exc:
        if str(exc).startswith(f"{name}: "):
            raise
        raise type(exc)(f"{name}: {exc}") from None
    except ValueError as exc:
        if type(exc).__name__ == "TooCostly":
            raise
        raise _run_error(name, exc, run, counter.filename) from None
    except Exception as exc:
        raise _run_error(name, exc, run, counter.filename) from None
    finally:
        ACTIVE.pop()


def enumerate_runs(call: Callable[[], Any], name: str, filename: str, *,
                   max_runs: int = MAX_RUNS, max_steps: int = MAX_STEPS,
                   func: str = "distribution", budget: Budget | None = None,
                   release: bool = False,
                   executor: Callable[..., SymbolicRun] = SymbolicRun,
                   step: Callable[[], Any] = lambda: None) -> Trace:
    """Every run of ``call`` (a program bound to its input), depth first; ``step()`` after
    each execution (a progress bar).

    With a ``budget``, the probes at :data:`PROBE_AT` runs also estimate the integration
    cost of every run (the mean of the branchings' product times ``budget.cost`` of the
    probe's run) and ``budget.check`` refuses it there, before the enumeration goes on.

    Raises
    ------
    ProgramError
        A run outside the language, one that raised, or past the step limit; or the first
        run, run again at the end, returning another output (state kept between runs).
    TooCostly
        More than ``max_runs`` executions: refused after the first run when its branchings
        multiply to more, after :data:`PROBE_AT` runs when random probes estimate more
        (:func:`probe_runs`), else when the count passes the limit; or refused by
        ``budget.check`` at :data:`PROBE_AT` runs.
    """
    prefix: list[int] = []
    sites: list[tuple[str, int, Hashable]] = []
    runs: list[Run] = []
    outputs: dict[Hashable, Any] = {}
    counter = StepCounter(filename, max_steps, name)
    executions = estimate = work = 0
    band = False  # an estimate near the limit: the exact count decides (limits.py)
    first: tuple[list[int], list[tuple[str, int, Hashable]], Hashable, Run] | None = None
    while True:
        executions += 1
        if executions > max_runs:  # the probes under-estimated: say only what is known
            raise _too_many(func, name, estimate, max_runs, known=executions - 1)
        run = executor(prefix, sites, None, release)
        run.budget = budget if executions == 1 else None
        try:
            key = execute(run, call, counter, name, _finisher(run, counter))
        except _Infeasible:
            key = None
        work += execution_work(len(run.arities), len(run.draws))
        step()
        if executions == 1:
            estimate = math.prod(run.arities)
            if past(estimate, max_runs):
                raise _too_many(func, name, estimate, max_runs)
        elif executions == PROBE_AT:
            probed = probe_runs(call, name, filename, max_steps,
                                cost=None if budget is None else budget.cost,
                                release=release, executor=executor)
            estimate, work = max(estimate, probed.runs), work + work * PROBES // PROBE_AT
            band = decide(estimate, max_runs, probed, budget,
                          _too_many(func, name, estimate, max_runs))
        if band and work > BAND_WORK:
            raise band_refusal(func, name, estimate, max_runs, CHEAPER)
        if key is not None:
            outputs.setdefault(key, decode(key))
            runs.append(run.result(key))
            first = first or (run.choices, run.sites, key, runs[-1])
        i = len(run.choices) - 1
        while i >= 0 and run.choices[i] + 1 >= run.arities[i]:
            i -= 1
        if i < 0:
            if first is not None:
                _replay(call, name, counter, *first, release=release, executor=executor)
            return Trace(tuple(runs), outputs, executions)
        prefix = run.choices[:i] + [run.choices[i] + 1]
        sites = run.sites[: i + 1]


class _FirstRun(SymbolicRun):
    """The execution of :func:`first_run`: past :data:`MAX_DRAWS` draws it stops, unrefused
    (a size the views refuse in their own names, and ``sample`` runs)."""

    def draw(self, law: str, scale: Any) -> Noisy:
        if len(self.draws) >= MAX_DRAWS:
            raise _Infeasible
        return super().draw(law, scale)


def first_run(mechanism: Any, answers: tuple) -> None:
    """Run ``mechanism``'s program once on ``answers``, every decision on its first branch:
    a draw of a scale that is not > 0 and finite (``discrete_laplace(0)``), a float, or a
    run that raises is refused in one line when the distribution is made, before any
    enumeration or integral (one execution; the other paths' draws are checked as the runs
    are enumerated). Sizes are not refused here: a run past :data:`MAX_DRAWS` draws or
    :data:`MAX_DECISIONS` decisions stops unrefused (the exact views refuse it, in their
    names; ``sample`` runs it).

    Raises
    ------
    ProgramError
        As :func:`enumerate_runs` for that run, the message starting with the program's
        name (as every refusal of its runs).
    """
    prog = mechanism.program
    run = _FirstRun([], [], None, mechanism.output_kind == "release")
    counter = StepCounter(prog.filename, MAX_STEPS, prog.name)
    try:
        execute(run, prog.bind(answers, mechanism.epsilon, mechanism.arguments), counter,
                prog.name, _finisher(run, counter))
    except (_Infeasible, StepLimit):  # a contradictory first path, or a size: not here
        pass


def _replay(call: Callable[[], Any], name: str, counter: StepCounter, choices: list[int],
            sites: list[tuple[str, int, Hashable]], key: Hashable, first: Run, *,
            release: bool = False,
            executor: Callable[..., SymbolicRun] = SymbolicRun) -> None:
    """Run the first complete run again, last (one execution): the same decisions must give
    the same run (output, draws with their laws and scales, released values, weight).
    Catches state kept between runs that changes only the returned value (a counter in the
    output) or a noise's scale, which the decisions' checks cannot see."""
    run = executor(choices, sites, None, release)
    try:
        again = execute(run, call, counter, name, _finisher(run, counter))
    except _Infeasible:
        again = None
    if again != key:
        shown = "no output" if again is None else repr(decode(again))
        raise ProgramError(
            f"{name}: {_line(counter)}: the program returned {shown} when its first run was "
            f"run again with the same decisions (first {decode(key)!r}); it must be "
            "deterministic given its draws (no I/O, global state or random)")
    if (tuple(run.draws), tuple(run.constraints), run.weight, tuple(run.released or ())) != (
            first.draws, first.constraints, first.weight, first.released):  # not result():
        # an executor may record its results (the structural cache's AnswerRun)
        raise ProgramError(
            f"{name}: {_line(counter)}: its first run, run again with the same decisions, "
            "drew other noises or released other values (a scale or constant read from "
            "state kept between runs?); it must be deterministic given its draws (no I/O, "
            "global state or random)")


def probe_runs(call: Callable[[], Any], name: str, filename: str,
               max_steps: int = MAX_STEPS, probes: int = PROBES,
               cost: Callable[[Run], float] | None = None,
               release: bool = False,
               executor: Callable[..., SymbolicRun] = SymbolicRun) -> Estimate:
    """Estimates of the enumeration from ``probes`` random paths of the decision tree:
    the number of runs, and the sum of ``cost`` over them (0 for a run that cannot
    happen); see :func:`~exactdp.programs.runs.estimate_tree`."""
    counter = StepCounter(filename, max_steps, name)

    def walk(chooser: Callable[[int], int]) -> tuple[list[int], list[int], Run | None]:
        run = executor([], [], chooser, release)
        try:
            key = execute(run, call, counter, name, _finisher(run, counter))
        except _Infeasible:
            return run.arities, run.choices, None
        return run.arities, run.choices, run.result(key)
    return estimate_tree(walk, probes, cost)


def _finisher(run: SymbolicRun, counter: StepCounter) -> Callable[[Any], Hashable]:
    """The canonical key of the value ``run`` returned (it may fork)."""
    return lambda value: canonical(value, _line(counter), run.resolve)


def _line(counter: StepCounter) -> str:
    """``file:line`` of the last line the run executed (its return)."""
    return f"{os.path.basename(counter.filename)}:{counter.last}"


def _too_many(func: str, name: str, estimate: int, limit: int, known: int = 0):
    size = f"more than {known} runs" if known > estimate else f"about {fmt_size(estimate)} runs"
    return refuse(func, f"the runs of program {name}", size, f"{limit} runs", CHEAPER)
