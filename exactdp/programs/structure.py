"""The structural cache: a program's runs traced once per length of the answers, the answers
substituted per vector.

The sparse vector and noisy max programs of :mod:`exactdp.programs.library` and those of
:mod:`exactdp.programs.library_release` decide only by comparisons of noisy values: their
decision tree (which comparisons, in which order, and the output of each leaf) is the same
for every vector of ``m`` answers, and each comparison is ``beta + sum_i alpha_i a_i +
sum_j c_j z_j  relation  0`` with ``beta``, ``alpha`` and ``c`` fixed by the tree, as is
each released value ``beta + sum_i alpha_i a_i + sum_j c_j z_j``. So the enumeration
(:func:`~exactdp.programs.trace.enumerate_runs`, one execution of the program per run) is
done once per ``(mechanism, m)``, with each answer ``a_i`` carried as a symbol alongside its
value (:class:`AnswerRun`); every later vector of ``m`` answers gets its runs by
substituting its answers into each comparison's and released value's constant
(:func:`structural_trace`): no execution, the same :class:`~exactdp.programs.runs.Run`
values as a fresh enumeration (tested on every library program: noisy top-2 with gap on
10 answers, 91 executions of 1.8 ms CPU, is one substitution per later vector).

Whether the tree depends on the answers is checked, not assumed: a run that compares
answers without noise (``if a > 0``), uses one as a Python number (``int(a)``), in a scale
or a Bernoulli probability, or returns a clamped noise (whose range depends on the answers)
stops the symbolic trace, and that program at that length is traced per vector as before.
Only the library's programs are traced symbolically (:func:`eligible`): a user's program
may also branch on the type or identity of an answer, which no symbol can see.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from fractions import Fraction
from functools import partial
from typing import Any

import sympy

from ..progress import progress_bar
from .integrate import supply_plan
from .integrate_plan import Bound, Plan, Star, plan
from .runs import Budget, Constraint, Linear, Run
from .steps import StepLimit
from .trace import SymbolicRun, Trace, enumerate_runs
from .values import Noisy, ProgramError

#: The law recorded for an answer's symbol: a discrete law, so that ``a + noise == t`` is
#: decided by the noise alone (``Noisy.continuous``), as on a plain number.
_ANSWER_LAW = "discrete_laplace"
#: Most cached trees (mechanism, length); the least recently used goes first.
MAX_TEMPLATES = 64
#: The modules whose programs are traced symbolically (discrete and release outputs).
LIBRARY = ("exactdp.programs.library", "exactdp.programs.library_release")


class AnswerDependent(ProgramError):
    """A run's decisions or output depend on the answers themselves (internal: the program
    is then traced per vector)."""


def _slot(i: int) -> int:
    """The (negative) index of answer ``i``'s symbol among a Noisy's coefficients."""
    return -1 - i


class AnswerRun(SymbolicRun):
    """A :class:`~exactdp.programs.trace.SymbolicRun` whose answers are symbols with values:
    answer ``i`` is ``Noisy(a_i, {-1 - i: 1})``, its value in the constant and its symbol a
    coefficient, so every constraint is recorded with the answers' values (the runs of this
    vector) and, in ``affine``, the coefficients ``((i, alpha_i), ...)`` of the answers in
    its constant."""

    def __init__(self, prefix: list[int], sites: list, chooser: Callable[[int], int] | None,
                 release: bool, sink: list[tuple[Run, tuple, tuple]], memo: dict) -> None:
        super().__init__(prefix, sites, chooser, release)
        self.sink, self.memo = sink, memo
        self.affine: list[tuple[tuple[int, Any], ...]] = []
        self.shown: list[tuple[tuple[int, Any], ...]] = []  # each released value's alphas

    def noises(self, v: Noisy) -> dict[int, Any]:
        return {i: c for i, c in v.coef.items() if i >= 0}

    def signature(self, v: Noisy) -> Hashable:
        draws = self.draws
        return v.const, tuple((i, c, draws[i].law, draws[i].scale) if i >= 0 else (i, c)
                              for i, c in sorted(v.coef.items()))

    def branch(self, comparison: Any) -> bool:
        if all(i < 0 for i in comparison.expr.coef):
            raise AnswerDependent(f"{comparison.line}: a comparison of answers without noise")
        return super().branch(comparison)

    def constrain(self, expr: Noisy, relation: str, line: str) -> None:
        """As :meth:`SymbolicRun.constrain`, on ``expr`` without the answers' symbols, each
        distinct constraint made once per enumeration (its sympy numbers: the runs repeat
        most comparisons)."""
        coef: dict[int, Any] = {}
        alpha: list[tuple[int, Any]] = []
        for i, c in expr.coef.items():
            if i >= 0:
                coef[i] = c
            else:
                alpha.append((-1 - i, c))
        self.affine.append(tuple(sorted(alpha)))
        value = Noisy(expr.const, coef, {i: expr.laws[i] for i in coef})
        if len(coef) == 2:
            i, j = coef
            self._connect(i, j, line)
        key = (expr.const, tuple(sorted(coef.items())), relation, line)
        con = self.memo.get(key)
        if con is None:
            con = self.memo[key] = Constraint(value.linear(), relation, line)
        self.constraints.append(con)
        self.forms.append((value, relation))
        self.used.update(coef)

    def resolve(self, v: Noisy, line: str) -> tuple:
        noise = {i: c for i, c in v.coef.items() if i >= 0}
        value = Noisy(v.const, noise, {i: v.laws[i] for i in noise})
        if self.released is not None and value.continuous:  # a released value: its
            key = super().resolve(value, line)  # answers' coefficients kept apart
            self.shown.append(tuple(sorted((-1 - i, c) for i, c in v.coef.items() if i < 0)))
            return key
        if v.coef:  # a clamped discrete noise: its range depends on the constants
            raise AnswerDependent(f"{line}: a returned noisy value")
        return super().resolve(v, line)

    def result(self, key: Hashable) -> Run:
        run = super().result(key)
        if self.chooser is None:  # the enumeration's runs, not the probes'
            self.sink.append((run, tuple(self.affine), tuple(self.shown)))
        return run


class Template:
    """A traced tree (a cache entry, not a value): the runs on the answers ``traced``, each
    run's constraints as indices into the distinct constraints, each distinct constraint's
    answer coefficients, and each run's plan with its bounds tagged by constraint
    (:func:`_plan_template`, made when a run's plan is first read).
    """

    __slots__ = ("alphas", "distinct", "executions", "ids", "outputs", "plans", "runs",
                 "shown", "traced")

    def __init__(self, sink: list[tuple[Run, tuple, tuple]], outputs: dict, executions: int,
                 traced: tuple[Fraction, ...]) -> None:
        index: dict[tuple, int] = {}
        self.distinct: list[Constraint] = []
        self.alphas: list[tuple] = []
        self.shown = tuple(shown for _, _, shown in sink)  # the released values' alphas
        ids = []
        for run, affine, _ in sink:
            row = []
            for c, alpha in zip(run.constraints, affine, strict=True):
                key = (c, alpha)
                if key not in index:
                    index[key] = len(self.distinct)
                    self.distinct.append(c)
                    self.alphas.append(alpha)
                row.append(index[key])
            ids.append(tuple(row))
        self.runs = tuple(run for run, _, _ in sink)
        self.ids = tuple(ids)
        self.outputs, self.executions, self.traced = outputs, executions, traced
        self.plans: tuple | None = None


_TEMPLATES: OrderedDict[tuple[Any, int], Template | None] = OrderedDict()


def eligible(mechanism: Any) -> bool:
    """Whether ``mechanism``'s program is traced symbolically: a program of the library
    (:data:`LIBRARY`)."""
    return mechanism.program.func.__module__ in LIBRARY


def traced_runs(mechanism: Any, answers: tuple, func: str, budget: Budget | None) -> Trace:
    """The runs of ``mechanism``'s program on ``answers``: from the cached tree
    (:func:`structural_trace`), else enumerated (:func:`~exactdp.programs.trace.enumerate_runs`),
    with a count of the executions on a terminal once it has run 2 s."""
    with progress_bar(None, f"{func} (runs)", unit="run") as bar:
        trace = structural_trace(mechanism, answers, budget, func, bar.update)
        if trace is not None:
            return trace
        prog = mechanism.program
        call = prog.bind(answers, mechanism.epsilon, mechanism.arguments)
        return enumerate_runs(call, prog.name, prog.filename, func=func, budget=budget,
                              step=bar.update)


def structural_trace(mechanism: Any, answers: tuple, budget: Budget | None,
                     func: str, step: Callable[[], Any] = lambda: None) -> Trace | None:
    """The runs of ``mechanism``'s program on ``answers`` from its cached tree for this
    length (traced on the first vector), or None when the program is not eligible or its
    tree depends on the answers (then the caller enumerates, as before).

    Raises
    ------
    TooCostly, StepLimit
        From the first enumeration, as :func:`~exactdp.programs.trace.enumerate_runs`.
    """
    if not eligible(mechanism) or _fractions(answers) is None:
        return None
    key = (mechanism, len(answers))
    if key in _TEMPLATES:
        _TEMPLATES.move_to_end(key)
        template = _TEMPLATES[key]
        return None if template is None else substitute(template, answers)
    trace, template = _trace(mechanism, answers, budget, func, step)
    _TEMPLATES[key] = template
    while len(_TEMPLATES) > MAX_TEMPLATES:
        _TEMPLATES.popitem(last=False)
    return trace


def _trace(mechanism: Any, answers: tuple, budget: Budget | None, func: str,
           step: Callable[[], Any] = lambda: None) -> tuple[Trace | None, Template | None]:
    """The first enumeration, with the answers as symbols: this vector's trace and the
    tree (both None when a run depends on the answers)."""
    prog = mechanism.program
    values = _fractions(answers)
    assert values is not None  # checked by structural_trace
    symbols = tuple(Noisy(a, {_slot(i): 1}, {_slot(i): _ANSWER_LAW})
                    for i, a in enumerate(values))
    sink: list[tuple[Run, tuple, tuple]] = []
    memo: dict[tuple, Constraint] = {}

    def executor(prefix: list[int], sites: list, chooser: Callable[[int], int] | None,
                 release: bool) -> AnswerRun:
        return AnswerRun(prefix, sites, chooser, release, sink, memo)

    call = prog.bind(symbols, mechanism.epsilon, mechanism.arguments)
    try:
        trace = enumerate_runs(call, prog.name, prog.filename, func=func, budget=budget,
                               release=prog.declaration.output == "release",
                               executor=executor, step=step)
    except StepLimit:
        raise
    except ProgramError:  # the tree depends on the answers (or the run fails: it says so)
        return None, None
    template = Template(sink, trace.outputs, trace.executions, values)
    zero = [Fraction(0)] * len(template.distinct)
    for k, run in enumerate(template.runs):  # this vector's plans, made when read: the
        supply_plan(run, partial(_supplied, template, k, run, zero))  # integrator's too
    return trace, template


def _supplied(template: Template, k: int, run: Run, shifts: list[Fraction]) -> Plan:
    """The plan of ``run``, the template's ``k``-th run on other answers: the tagged plan's
    bounds moved (:func:`_moved_plan`), or planned anew where the template has none."""
    tp = _plans(template)[k]
    return plan(run) if tp is None else _moved_plan(tp, run.draws, shifts)


def _plans(template: Template) -> tuple:
    """The template's tagged plans (:func:`_plan_template`), made once."""
    if template.plans is None:
        template.plans = tuple(_plan_template(run, ids, template.distinct)
                               for run, ids in zip(template.runs, template.ids, strict=True))
    return template.plans


def _fractions(answers: tuple) -> tuple[Fraction, ...] | None:
    """The answers as Fractions, or None when one is not a sympy rational."""
    if not all(isinstance(a, sympy.Rational) for a in answers):
        return None
    return tuple(Fraction(int(a.p), int(a.q)) for a in answers)


def _sympy(f: Fraction) -> sympy.Rational:
    return sympy.Integer(f.numerator) if f.denominator == 1 else sympy.Rational(
        f.numerator, f.denominator)


def substitute(template: Template, answers: tuple) -> Trace:
    """The runs of the tree ``template`` on ``answers``: each constraint's constant ``beta +
    sum alpha_i a_i``, from the traced one by ``sum alpha_i (a_i - a0_i)`` (each distinct
    constraint built once), each run's plan from the traced one (its bounds' offsets
    moved by the same amounts, :func:`_moved_plan`) handed to the integrator
    (:func:`~exactdp.programs.integrate.supply_plan`), made when the integrator first
    reads it."""
    values = _fractions(answers)
    assert values is not None  # checked by structural_trace
    delta = [a - a0 for a, a0 in zip(values, template.traced, strict=True)]
    shifts: list[Fraction] = []
    made: list[Constraint] = []
    for c, alpha in zip(template.distinct, template.alphas, strict=True):
        d = sum((a * delta[i] for i, a in alpha), Fraction(0))
        shifts.append(d)
        if d:
            k = c.expr.constant
            c = Constraint(Linear(_sympy(Fraction(int(k.p), int(k.q)) + d),
                                  c.expr.coefficients), c.relation, c.line)
        made.append(c)
    out = []
    for k, (run, ids, shown) in enumerate(zip(template.runs, template.ids, template.shown,
                                              strict=True)):
        released = tuple(_moved(r, alpha, delta) for r, alpha in zip(run.released, shown,
                                                                      strict=True))
        new = Run(run.draws, tuple(made[i] for i in ids), run.weight, run.output, released)
        supply_plan(new, partial(_supplied, template, k, new, shifts))  # made when read
        out.append(new)
    return Trace(tuple(out), dict(template.outputs), template.executions)


def _moved(form: Linear, alpha: tuple, delta: list[Fraction]) -> Linear:
    """A released value ``beta + sum alpha_i a_i + noises`` on the new answers."""
    d = sum((a * delta[i] for i, a in alpha), Fraction(0))
    if not d:
        return form
    k = form.constant
    return Linear(_sympy(Fraction(int(k.p), int(k.q)) + d), form.coefficients)


#: A tag that marks a bound's constraint in its line while the template's plan is made.
_TAG = "\x00"


def _plan_template(run: Run, ids: tuple[int, ...], distinct: list[Constraint]) -> tuple | None:
    """The plan of ``run`` (:func:`~exactdp.programs.integrate_plan.plan`) with each bound
    as ``(bound, constraint index, coefficient of the bounded draw)``; None when the run
    is refused (the integrator then plans it itself and says why)."""
    tagged = Run(run.draws, tuple(
        Constraint(c.expr, c.relation, f"{c.line}{_TAG}{i}")
        for c, i in zip(run.constraints, ids, strict=True)), run.weight, run.output)
    try:
        p = plan(tagged)
    except ValueError:
        return None
    if not all(isinstance(s, Star) for _, stars in p.alternatives for s in stars):
        return None  # a tree (a topk chain): the integrator plans it itself

    def bounds(bs: tuple[Bound, ...], draw: int) -> tuple:
        out = []
        for b in bs:
            line, i = b.line.rsplit(_TAG, 1)
            c = distinct[int(i)]
            a = next(v for j, v in c.expr.coefficients if j == draw)
            out.append((Bound(b.slope, b.offset, b.lower, b.strict, line), int(i),
                        Fraction(int(a.p), int(a.q))))
        return tuple(out)

    def star(s: object) -> tuple:
        assert isinstance(s, Star)  # a tree returned None above
        return (s.kind, s.centre, bounds(s.centre_bounds, s.centre),
                tuple((v, bounds(bs, v)) for v, bs in s.leaves))

    return tuple((sign, tuple(star(s) for s in stars)) for sign, stars in p.alternatives)


def _moved_plan(tp: tuple, draws: tuple, shifts: list[Fraction]) -> Plan:
    """The plan of a substituted run: each bound ``draw > slope z + offset`` from
    constraint ``c`` (``a draw + ... + k``, offset ``-k / a``) has its offset moved by
    ``-shift_c / a``."""
    def moved(bs: tuple) -> tuple[Bound, ...]:
        return tuple(b if not shifts[i] else Bound(b.slope, b.offset - shifts[i] / a, b.lower,
                                                   b.strict, b.line) for b, i, a in bs)

    return Plan(draws, tuple((sign, tuple(Star(kind, centre, moved(cb),
                                               tuple((v, moved(bs)) for v, bs in leaves))
                                          for kind, centre, cb, leaves in stars))
                             for sign, stars in tp))
