"""The structural cache: a program's runs traced once per length of the answers, the answers
substituted per vector.

The sparse vector and noisy max programs of :mod:`exactdp.programs.library` decide only by
comparisons of noisy values: their decision tree (which comparisons, in which order, and
the output of each leaf) is the same for every vector of ``m`` answers, and each comparison
is ``beta + sum_i alpha_i a_i + sum_j c_j z_j  relation  0`` with ``beta``, ``alpha`` and
``c`` fixed by the tree. So the enumeration (:func:`~exactdp.programs.trace.enumerate_runs`,
one execution of the program per run) is done once per ``(mechanism, m)``, with each answer
``a_i`` carried as a symbol alongside its value (:class:`AnswerRun`); every later vector of
``m`` answers gets its runs by substituting its answers into each comparison's constant
(:func:`structural_trace`): no execution, the same :class:`~exactdp.programs.runs.Run`
values as a fresh enumeration (tested on every library program).

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
from typing import Any

import sympy

from .runs import Budget, Constraint, Linear, Run
from .trace import StepLimit, SymbolicRun, Trace, enumerate_runs
from .values import Noisy, ProgramError

#: The law recorded for an answer's symbol: a discrete law, so that ``a + noise == t`` is
#: decided by the noise alone (``Noisy.continuous``), as on a plain number.
_ANSWER_LAW = "discrete_laplace"
#: Most cached trees (mechanism, length); the least recently used goes first.
MAX_TEMPLATES = 64
#: The module whose programs are traced symbolically.
LIBRARY = "exactdp.programs.library"


class AnswerDependent(ProgramError):
    """A run's decisions or output depend on the answers themselves (internal: the program
    is then traced per vector)."""


def _slot(i: int) -> int:
    """The (negative) index of answer ``i``'s symbol among a Noisy's coefficients."""
    return -1 - i


class AnswerRun(SymbolicRun):
    """A :class:`~exactdp.programs.trace.SymbolicRun` whose answers are symbols with values:
    every constraint is recorded with its answers' values substituted (the runs of this
    vector) and, in ``affine``, its constant as ``(beta, ((i, alpha_i), ...))``."""

    def __init__(self, prefix: list[int], sites: list, chooser: Callable[[int], int] | None,
                 release: bool, answers: tuple[Fraction, ...],
                 sink: list[tuple[Run, tuple]]) -> None:
        super().__init__(prefix, sites, chooser, release)
        self.answers = answers
        self.sink = sink
        self.affine: list[tuple[Fraction, tuple[tuple[int, Fraction], ...]]] = []

    def noises(self, v: Noisy) -> dict[int, Any]:
        return {i: c for i, c in v.coef.items() if i >= 0}

    def _value(self, v: Noisy) -> Noisy:
        """``v`` with the answers' values in its constant."""
        const = v.const
        coef: dict[int, Any] = {}
        for i, c in v.coef.items():
            if i >= 0:
                coef[i] = c
            else:
                const = const + c * self.answers[-1 - i]
        return Noisy(const, coef, {i: v.laws[i] for i in coef})

    def signature(self, v: Noisy) -> Hashable:
        return super().signature(self._value(v))

    def branch(self, comparison: Any) -> bool:
        if not self.noises(comparison.expr):
            raise AnswerDependent(f"{comparison.line}: a comparison of answers without noise")
        return super().branch(comparison)

    def constrain(self, expr: Noisy, relation: str, line: str) -> None:
        alpha = tuple(sorted((-1 - i, Fraction(c)) for i, c in expr.coef.items() if i < 0))
        self.affine.append((Fraction(expr.const), alpha))
        super().constrain(self._value(expr), relation, line)

    def resolve(self, v: Noisy, line: str) -> tuple:
        if v.coef:  # a clamped discrete noise: its range depends on the constants
            raise AnswerDependent(f"{line}: a returned noisy value")
        return super().resolve(v, line)

    def result(self, key: Hashable) -> Run:
        run = super().result(key)
        if self.chooser is None:  # the enumeration's runs, not the probes'
            self.sink.append((run, tuple(self.affine)))
        return run


#: ``(runs with their constants' affine forms, outputs, executions)`` of a traced tree.
Template = tuple[tuple[tuple[Run, tuple], ...], dict, int]
_TEMPLATES: OrderedDict[tuple[Any, int], Template | None] = OrderedDict()


def eligible(mechanism: Any) -> bool:
    """Whether ``mechanism``'s program is traced symbolically: a program of the library
    (:data:`LIBRARY`) with discrete outputs (no released values)."""
    prog = mechanism.program
    return (getattr(prog.func, "__module__", None) == LIBRARY
            and prog.declaration.output != "release")


def traced_runs(mechanism: Any, answers: tuple, func: str, budget: Budget | None) -> Trace:
    """The runs of ``mechanism``'s program on ``answers``: from the cached tree
    (:func:`structural_trace`), else enumerated (:func:`~exactdp.programs.trace.enumerate_runs`)."""
    trace = structural_trace(mechanism, answers, budget, func)
    if trace is not None:
        return trace
    prog = mechanism.program
    call = prog.bind(answers, mechanism.epsilon, mechanism.arguments)
    return enumerate_runs(call, prog.name, prog.filename, func=func, budget=budget)


def structural_trace(mechanism: Any, answers: tuple, budget: Budget | None,
                     func: str) -> Trace | None:
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
    trace, template = _trace(mechanism, answers, budget, func)
    _TEMPLATES[key] = template
    while len(_TEMPLATES) > MAX_TEMPLATES:
        _TEMPLATES.popitem(last=False)
    return trace


def _trace(mechanism: Any, answers: tuple, budget: Budget | None,
           func: str) -> tuple[Trace | None, Template | None]:
    """The first enumeration, with the answers as symbols: this vector's trace and the
    tree (both None when a run depends on the answers)."""
    prog = mechanism.program
    values = _fractions(answers)
    assert values is not None  # checked by structural_trace
    symbols = tuple(Noisy(0, {_slot(i): 1}, {_slot(i): _ANSWER_LAW})
                    for i in range(len(answers)))
    sink: list[tuple[Run, tuple]] = []

    def executor(prefix: list[int], sites: list, chooser: Callable[[int], int] | None,
                 release: bool) -> AnswerRun:
        return AnswerRun(prefix, sites, chooser, release, values, sink)

    call = prog.bind(symbols, mechanism.epsilon, mechanism.arguments)
    try:
        trace = enumerate_runs(call, prog.name, prog.filename, func=func, budget=budget,
                               executor=executor)
    except StepLimit:
        raise
    except ProgramError:  # the tree depends on the answers (or the run fails: it says so)
        return None, None
    return trace, (tuple(sink), trace.outputs, trace.executions)


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
    sum alpha_i a_i`` (each distinct constraint built once)."""
    runs, outputs, executions = template
    values = _fractions(answers)
    assert values is not None  # checked by structural_trace
    made: dict[tuple, Constraint] = {}
    out = []
    for run, affine in runs:
        cons = []
        for c, (beta, alpha) in zip(run.constraints, affine, strict=True):
            k = (c.expr.coefficients, c.relation, c.line, beta, alpha)
            con = made.get(k)
            if con is None:
                const = beta + sum((a * values[i] for i, a in alpha), Fraction(0))
                con = made[k] = Constraint(Linear(_sympy(const), c.expr.coefficients),
                                           c.relation, c.line)
            cons.append(con)
        out.append(Run(run.draws, tuple(cons), run.weight, run.output, run.released))
    return Trace(tuple(out), dict(outputs), executions)
