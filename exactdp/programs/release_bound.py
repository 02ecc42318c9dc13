"""A rigorous upper bound on a pattern's privacy loss: the best translation of the noises.

For two answer vectors ``a, a'`` a run of a program has the same noises, the same
coefficients in its comparisons and released values, and other constants: its comparisons
are ``L_k(z) + c_k rel 0`` (``c'_k`` on ``a'``) and its released values ``M_j(z) + e_j``.
If a shift ``delta`` of the noises satisfies ``L_k(delta) >= c_k - c'_k`` for every
inequality and ``M_j(delta) = e_j - e'_j`` for every released value, then ``z -> z + delta``
maps the event of the run on ``a`` at the output ``o`` into the event on ``a'`` at ``o``
(a translation: the measure on the slice of released values is preserved), and the noise
density changes by at most ``exp(sum_i rate_i |delta_i|)`` (a Laplace density ``exp(-t
|z|)``; an exponential one for ``delta_i >= 0``). So on every output of the run

    ``f_a(o) <= exp(lam * min_delta sum_i rate_i |delta_i|) f_a'(o)``,

and a pattern's density (the sum over its runs) obeys the largest bound of its runs, each
paired with a run of the same shape on ``a'``. The minimum is a linear programme, solved
exactly (:func:`minimise`: the simplex method on Fractions with Bland's rule). This is the
coupling ("randomness alignment") argument of LightDP and ShadowDP, applied to one pair of
inputs; it bounds ``|ln f_a / f_a'|`` over all outputs of the pattern, released values of
any number, and it is attained on the sparse vector family's one-way pairs.

References
----------
D. Zhang and D. Kifer, "LightDP: towards automating differential privacy proofs", POPL
2017 (randomness alignment). Y. Wang, Z. Ding, G. Wang, D. Kifer and D. Zhang, "Proving
differential privacy with shadow execution", PLDI 2019. V. Chvatal, *Linear Programming*,
Freeman 1983, chapters 2-3 (two-phase simplex; Bland's rule prevents cycling).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextvars import ContextVar
from fractions import Fraction
from functools import lru_cache
from typing import Any

import flint
import sympy

from ..cost import check_seconds
from ..exact.signs import compare
from .integrate import run_cost
from .integrate_stars import units
from .runs import Run

#: Laws whose noise may be translated (a density with ``f(z + d) >= exp(-t |d|) f(z)``).
SHIFTABLE = ("laplace", "exponential")


@lru_cache(maxsize=4096)
def _frac(x: sympy.Expr) -> Fraction:
    return Fraction(int(x.p), int(x.q))


def minimise(cost: Sequence[Fraction],
             rows: Sequence[tuple[Sequence[Fraction | flint.fmpq], str, Fraction]]
             ) -> Fraction | None:
    """``min cost . x`` over ``x >= 0`` with ``row . x (>= or ==) b`` for each ``(row, rel,
    b)``, exactly (None: infeasible). ``cost >= 0``, so the minimum exists when feasible.

    Two-phase tableau simplex in exact rationals (flint ``fmpq``), Bland's rule (Chvatal
    1983, chapter 3). A ``>=`` row with ``b <= 0`` starts with its slack in the basis
    (``-row . x + s = -b >= 0``), the others with an artificial variable: phase 1 only
    drives those out (the optimum's value is the same from any starting basis).
    """
    n = len(cost)
    slack = [i for i, (_, rel, _) in enumerate(rows) if rel == ">="]
    ns = n + len(slack)
    width = ns + len(rows)
    zero = flint.fmpq(0)
    tab: list[list[flint.fmpq]] = []
    basis: list[int] = []
    for i, (row, rel, b) in enumerate(rows):
        line = [_q(x) for x in row] + [zero] * (width - n) + [_q(b)]
        if rel == ">=":
            line[n + slack.index(i)] = flint.fmpq(-1)
        if rel == ">=" and line[-1] <= 0:  # -row . x + s = -b >= 0: s is basic
            line = [-x for x in line]
            basis.append(n + slack.index(i))
        else:
            if line[-1] < 0:
                line = [-x for x in line]
            line[ns + i] = flint.fmpq(1)
            basis.append(ns + i)
        tab.append(line)
    # phase 1: minimise the sum of the artificials (objective row: reduced costs, -value)
    obj = [zero] * (width + 1)
    for line, col in zip(tab, basis, strict=True):
        if col >= ns:
            for j in range(ns):
                obj[j] -= line[j]
            obj[-1] -= line[-1]
    _simplex(tab, basis, obj, ns)
    if obj[-1] != 0:
        return None
    for r, col in enumerate(basis):  # drive the artificials out of the basis
        if col >= ns:
            col2 = next((j for j in range(ns) if tab[r][j] != 0), None)
            if col2 is not None:
                _pivot(tab, basis, obj, r, col2)
    keep = [r for r, col in enumerate(basis) if col < ns]  # others: redundant zero rows
    tab[:] = [tab[r][:ns] + [tab[r][-1]] for r in keep]  # the artificials leave for good
    basis[:] = [basis[r] for r in keep]
    obj = [_q(x) for x in cost] + [zero] * (ns - n + 1)
    for r, col in enumerate(basis):
        if obj[col] != 0:
            f = obj[col]
            obj = [x - f * y for x, y in zip(obj, tab[r], strict=True)]
    _simplex(tab, basis, obj, ns)
    v = -obj[-1]
    return Fraction(int(v.p), int(v.q))


def _q(x: Fraction | int | flint.fmpq) -> flint.fmpq:
    if type(x) is flint.fmpq:
        return x
    x = x if type(x) is Fraction else Fraction(x)  # type: ignore[arg-type]
    return flint.fmpq(x.numerator, x.denominator)


_ZERO, _ONE = flint.fmpq(0), flint.fmpq(1)


@lru_cache(maxsize=4096)
def _fmpq(x: sympy.Expr) -> flint.fmpq:
    return flint.fmpq(int(x.p), int(x.q))


def _pivot(tab: list[list[flint.fmpq]], basis: list[int], obj: list[flint.fmpq], r: int,
           j: int) -> None:
    p = tab[r][j]
    if p != _ONE:
        tab[r] = [x / p if x else x for x in tab[r]]
    piv = tab[r]
    for i, line in enumerate(tab):  # the tableau is sparse: zero entries of piv skipped
        if i != r and line[j]:
            f = line[j]
            tab[i] = [x - f * y if y else x for x, y in zip(line, piv, strict=True)]
    if obj[j]:
        f = obj[j]
        obj[:] = [x - f * y if y else x for x, y in zip(obj, piv, strict=True)]
    basis[r] = j


def _simplex(tab: list[list[flint.fmpq]], basis: list[int], obj: list[flint.fmpq],
             allowed: int) -> None:
    """Pivot until no reduced cost in ``obj`` (columns below ``allowed``) is negative
    (Bland's rule: the first such column, the first row of least ratio). Bounded: the
    costs are at least 0."""
    while True:
        col = next((j for j in range(allowed) if obj[j] < _ZERO), None)
        if col is None:
            return
        j = col
        ratios = [(tab[i][-1] / tab[i][j], basis[i], i) for i in range(len(tab))
                  if tab[i][j] > _ZERO]
        if not ratios:  # pragma: no cover - costs >= 0 keep the programme bounded
            raise ArithmeticError("an unbounded linear programme")
        _, _, r = min(ratios)
        _pivot(tab, basis, obj, r, j)


def _shape(run: Run) -> tuple:
    return (tuple((d.law, d.scale) for d in run.draws),
            tuple((c.expr.coefficients, c.relation) for c in run.constraints),
            run.weight, tuple(r.coefficients for r in run.released))


#: :func:`run_shift_bound` by the run's shape and the differences of the constants (all the
#: linear programme reads): the suite's neighbours share about half of their programmes.
_SHIFTS: dict[tuple, Fraction | None] = {}

#: :func:`_facts` by ``id`` of the run (the entry holds the run: a recycled ``id`` never
#: hits).
_FACTS: dict[int, tuple[Run, tuple]] = {}
#: Each shape seen, numbered (a number hashes at once; a shape's nested tuples of sympy
#: numbers are hashed anew at each look-up of :data:`_SHIFTS`).
_SHAPES: dict[tuple, int] = {}


def _facts(run: Run) -> tuple:
    """``(shape, units, constants, released constants, shape number)`` of a run
    (Fractions), made once per run object: a search over pairs bounds one vector's runs
    against each neighbour."""
    hit = _FACTS.get(id(run))
    if hit is not None and hit[0] is run:
        return hit[1]
    if len(_FACTS) > 65_536:
        _FACTS.clear()  # (never _SHAPES: a shape's number is part of the memo's keys)
    shape = _shape(run)
    facts = (shape, units(run), tuple(_frac(c.expr.constant) for c in run.constraints),
             tuple(_frac(r.constant) for r in run.released),
             _SHAPES.setdefault(shape, len(_SHAPES)))
    _FACTS[id(run)] = (run, facts)
    return facts


def run_shift_bound(run: Run, other: Run) -> Fraction | None:
    """``min sum_i rate_i |delta_i|`` (rates in the run's unit) over the shifts mapping
    ``run``'s event into ``other``'s (same shape, other constants), or None (no shift).
    Memoised on the shape and the constants' differences (:data:`_SHIFTS`)."""
    _, u, consts, released, number = _facts(run)
    if not u.exact:
        return None
    _, _, consts2, released2, _ = _facts(other)
    key = (number, tuple(a - b for a, b in zip(consts, consts2, strict=True)),
           tuple(a - b for a, b in zip(released, released2, strict=True)))
    found = _SHIFTS.get(key, _SHIFTS)
    if found is _SHIFTS:
        if len(_SHIFTS) > 65_536:
            _SHIFTS.clear()
        found = _SHIFTS[key] = _shift_bound(run, other)
    return found  # type: ignore[return-value]


def _shift_bound(run: Run, other: Run) -> Fraction | None:
    u = units(run)
    var: list[tuple[int, int]] = []  # (draw, sign) of the columns delta = p - n
    cost: list[Fraction] = []
    for d in run.draws:
        if d.law in SHIFTABLE:
            var.append((d.index, 1))
            cost.append(u.rates[d.index])
            if d.law == "laplace":
                var.append((d.index, -1))
                cost.append(u.rates[d.index])
    rows: list[tuple[list[flint.fmpq], str, Fraction]] = []

    zero = flint.fmpq(0)

    def row(coefficients: tuple, b: Fraction, rel: str) -> bool:
        coef = {i: _fmpq(c) for i, c in coefficients}
        line = [coef.get(i, zero) if s > 0 else -coef.get(i, zero) for i, s in var]
        if not any(line):
            return (b <= 0) if rel == ">=" else (b == 0)
        rows.append((line, rel, b))
        return True

    for c, c2 in zip(run.constraints, other.constraints, strict=True):
        b = _frac(c.expr.constant) - _frac(c2.expr.constant)
        continuous = all(run.draws[i].law in SHIFTABLE for i, _ in c.expr.coefficients)
        if c.relation == "!=" and continuous:
            continue  # holds almost surely on both inputs
        rel = ">=" if c.relation in (">", ">=") else "=="
        if not row(c.expr.coefficients, b, rel):
            return None
    for r, r2 in zip(run.released, other.released, strict=True):
        if not row(r.coefficients, _frac(r.constant) - _frac(r2.constant), "=="):
            return None
    return minimise(cost, rows)


def runs_bound(runs: Sequence[Run], others: Sequence[Run]) -> sympy.Expr | None:
    """An exact upper bound on ``ln f_a(o) - ln f_a'(o)`` over every output ``o`` of one
    pattern, ``runs`` its runs on ``a`` and ``others`` on ``a'`` (None: some run of ``a``
    has no partner of its shape, or no shift maps it)."""
    groups: dict[int, list[Run]] = {}
    for r in others:
        groups.setdefault(_facts(r)[4], []).append(r)
    used: dict[int, int] = {}
    found: list[tuple[sympy.Expr, Fraction]] = []
    for r in runs:
        _, u, _, _, key = _facts(r)
        k = used.get(key, 0)
        partners = groups.get(key, [])
        if k >= len(partners):
            return None
        used[key] = k + 1
        b = run_shift_bound(r, partners[k])
        if b is None:
            return None
        found.append((u.unit, b))
    units_ = {unit for unit, _ in found}
    if len(units_) == 1 and (unit := units_.pop()).is_Rational and unit > 0:
        # one positive rational unit: the largest value is the unit times the largest b
        b = max(b for _, b in found)
        return unit * sympy.Rational(b.numerator, b.denominator)
    best = sympy.Integer(0)
    for unit, b in found:
        value = unit * sympy.Rational(b.numerator, b.denominator)
        best = sympy.Max(best, value) if value.free_symbols or best.free_symbols else (
            value if value > best else best)
    return best


def pattern_bound(runs: Sequence[Run], others: Sequence[Run]) -> sympy.Expr | None:
    """An exact upper bound on ``|ln f_a(o) / f_a'(o)|`` over the outputs of one pattern
    (both directions; None where no translation bounds one of them)."""
    up, down = runs_bound(runs, others), runs_bound(others, runs)
    if up is None or down is None:
        return None
    if up.free_symbols or down.free_symbols:
        return sympy.Max(up, down)
    return up if up >= down else down


#: Seconds of one translation LP per run (overhead), and per unit of ``rows**2 * columns``
#: (dense exact simplex: about ``rows`` pivots of ``rows * columns`` Fraction updates).
#: Measured on one core: SVT34Parallel c = 2, 10 queries, 100 patterns: 1.7 s for
#: 2.7e6 units (6.4e-7 each); AdaptiveSVT at 2 queries 1216 units in 3.4 ms.
LP_RUN_SECONDS = 1e-4
LP_UNIT_SECONDS = 7e-7


def bounds_seconds(runs: Sequence[Run]) -> float:
    """The estimated seconds of the translation LPs (:func:`run_shift_bound`) of ``runs``,
    one per run: ``LP_RUN_SECONDS + LP_UNIT_SECONDS rows**2 columns`` with ``rows`` its
    constraints and released values and ``columns`` twice its draws."""
    return sum(LP_RUN_SECONDS + LP_UNIT_SECONDS * (len(r.constraints) + len(r.released))**2
               * 2 * len(r.draws) for r in runs)


def check_bounds(func: str, runs: dict, others: dict, keys: Sequence,
                 integrals: bool = False) -> None:
    """Refuse (:class:`~exactdp.cost.TooCostly`) the translation bounds of the patterns
    ``keys`` (runs by pattern on both inputs) estimated above the limit, before any LP;
    with ``integrals``, the densities' integrals too (:func:`~exactdp.programs.integrate.
    run_cost` of every run: the loss of :mod:`exactdp.programs.release_loss`)."""
    both = [r for k in keys for r in (*runs.get(k, ()), *others.get(k, ()))]
    seconds = bounds_seconds(both) + (sum(run_cost(r) for r in both) if integrals else 0.0)
    what = "the loss" if integrals else "the translation bounds"
    check_seconds(func, f"{what} of {len(keys)} patterns ({len(both)} runs)", seconds,
                  "use fewer queries, or a smaller cut-off c")


class BelowFloor(Exception):  # noqa: N818 (internal control flow)
    """Raised by a loss supremum computed under :data:`FLOOR` once every pattern is proved
    strictly below the floor (:meth:`~exactdp.programs.release.ProgramRelease.
    loss_at_least` then answers None without forming the loss's closed form)."""


#: A loss below which no pattern is wanted (:meth:`~exactdp.programs.release.ProgramRelease.
#: loss_at_least`): :func:`ordered_patterns` leaves out the patterns bounded below it.
FLOOR: ContextVar[sympy.Expr | None] = ContextVar("FLOOR", default=None)


def ordered_patterns(dist: Any, other: Any, keys: list) -> list[tuple[Any, sympy.Expr | None]]:
    """The common patterns ``keys`` of two release distributions with their translation
    bounds (:func:`pattern_bound`), the largest bound first (those without a bound first of
    all: nothing caps them), without those bounded strictly below :data:`FLOOR` when it is
    set. Their cost is checked by :func:`check_bounds` before."""
    out = [(k, pattern_bound(dist.runs[k], other.runs[k])) for k in keys]
    floor = FLOOR.get()
    if floor is not None:
        out = [(k, b) for k, b in out if b is None or compare(b, floor) >= 0]
    return sorted(out, key=lambda kb: (kb[1] is not None, -kb[1] if kb[1] is not None
                                       else 0))
