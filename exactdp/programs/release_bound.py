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
from .integrate_stars import Units, units
from .runs import Run

#: Laws whose noise may be translated (a density with ``f(z + d) >= exp(-t |d|) f(z)``).
SHIFTABLE = ("laplace", "exponential")


@lru_cache(maxsize=4096)
def _frac(x: sympy.Expr) -> Fraction:
    return Fraction(int(x.p), int(x.q))


def minimise(cost: Sequence[Fraction],
             rows: Sequence[tuple[Sequence[Fraction | flint.fmpq], str, Fraction | flint.fmpq]]
             ) -> Fraction | None:
    """``min cost . x`` over ``x >= 0`` with ``row . x (>= or ==) b`` for each ``(row, rel,
    b)``, exactly (None: infeasible). ``cost >= 0``, so the minimum exists when feasible.

    Two-phase tableau simplex in exact rationals (flint ``fmpq``), Bland's rule (Chvatal
    1983, chapter 3). A ``>=`` row with ``b <= 0`` starts with its slack in the basis
    (``-row . x + s = -b >= 0``), the others with an artificial variable: phase 1 only
    drives those out (the optimum's value is the same from any starting basis).
    """
    return _solve(cost, rows)[0]


def _solve(cost: Sequence[Fraction],
           rows: Sequence[tuple[Sequence[Fraction | flint.fmpq], str, Fraction | flint.fmpq]]
           ) -> tuple[Fraction | None, list[int] | None]:
    """:func:`minimise`, and its optimal basis (the columns of ``x`` and then of the
    slacks of the ``>=`` rows, one per row) where no row was redundant, else None."""
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
        return None, None
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
    return Fraction(int(v.p), int(v.q)), (list(basis) if len(keep) == len(rows) else None)


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


#: Optimal bases of the translation LPs, by the LP without its right-hand side (the run's
#: shape, :func:`_shape`): the inverse of the basis matrix, the dual prices ``c_B B^-1``
#: and the basic columns (at most :data:`MAX_BASES` per shape, the last to fit first).
_BASES: dict[int, list[tuple[flint.fmpq_mat, flint.fmpq_mat, list[int]]]] = {}
MAX_BASES = 48
#: Pivots of the dual simplex from a held basis before the two-phase simplex takes over.
DUAL_PIVOTS = 40


def warm_minimise(shape: int, cost: Sequence[Fraction],
                  rows: Sequence[tuple[Sequence[Fraction | flint.fmpq], str,
                                       Fraction | flint.fmpq]]
                  ) -> Fraction | None:
    """:func:`minimise` of an LP whose cost and rows (not their right-hand sides ``b``)
    are fixed by ``shape``, from an optimal basis ``B`` of an earlier LP of that shape
    where one fits: the simplex stops when every reduced cost is at least 0, and those
    do not depend on ``b``, so where ``x_B = B^-1 b >= 0`` the basic solution is feasible
    and optimal, of value ``c_B B^-1 b`` (Chvatal 1983, chapter 10: the optimality test
    of a basis). Exact (``fmpq``); else the dual simplex from the last basis held
    (:func:`_dual`), else the two-phase simplex; the new basis is kept. Where ``x = 0`` is
    feasible (every ``b`` at most 0, equal on the ``==`` rows) the minimum is 0 at once
    (costs at least 0)."""
    if not rows:
        return minimise(cost, rows)
    if all(r[2] <= 0 if r[1] == ">=" else r[2] == 0 for r in rows):
        return Fraction(0)  # x = 0 is feasible and the costs are at least 0
    b = flint.fmpq_mat(len(rows), 1, [_q(r[2]) for r in rows])
    held = _BASES.setdefault(shape, [])
    for n, (inv, y, _) in enumerate(held):
        x = inv * b
        if all(x[i, 0] >= 0 for i in range(len(rows))):
            v = (y * b)[0, 0]
            if n:  # the bases that fit most often are tried first
                held.insert(0, held.pop(n))
            return Fraction(int(v.p), int(v.q))
    n, m = len(cost), len(rows)
    slack = [i for i, (_, rel, _) in enumerate(rows) if rel == ">="]

    def entry(i: int, j: int) -> flint.fmpq:
        if j < n:
            return _q(rows[i][0][j])
        return flint.fmpq(-1) if slack[j - n] == i else _ZERO

    dual = _dual(held[0], cost, [[entry(i, j) for j in range(n + len(slack))]
                                 for i in range(m)], b) if held else None
    value, basis = dual if dual is not None else _solve(cost, rows)
    if basis is not None:
        if len(held) >= MAX_BASES:
            held.pop()  # the one that fitted least recently
        mat = flint.fmpq_mat(m, m, [entry(i, j) for i in range(m) for j in basis])
        inv = mat.inv()
        c_b = flint.fmpq_mat(1, m, [_q(cost[j]) if j < n else _ZERO for j in basis])
        held.insert(0, (inv, c_b * inv, list(basis)))
    return value


def _dual(held: tuple[flint.fmpq_mat, flint.fmpq_mat, list[int]], cost: Sequence[Fraction],
          a: list[list[flint.fmpq]], b: flint.fmpq_mat
          ) -> tuple[Fraction | None, list[int] | None] | None:
    """The LP ``min cost . x``, ``A x = b`` (``a``: the rows with their slack columns),
    ``x >= 0``, by the dual simplex from a basis ``B`` optimal for another ``b`` (its
    reduced costs ``c - c_B B^-1 A`` are at least 0 whatever ``b``: dual feasible), from
    the tableau ``B^-1 A | B^-1 b``: while a basic value is negative, its row (the first)
    leaves and the column of least ratio ``d_j / -t_rj`` over ``t_rj < 0`` enters (the
    least index among ties); a negative row without ``t_rj < 0`` proves the LP infeasible
    (``(None, None)``). Chvatal 1983, chapter 10 (the dual simplex method). None: past
    :data:`DUAL_PIVOTS` pivots (the caller's two-phase simplex then solves it)."""
    inv, y, basis = held
    m, width = len(a), len(a[0])
    mat = flint.fmpq_mat(m, width, [x for row in a for x in row])
    t, xb, reduced = inv * mat, inv * b, y * mat
    tab = [[t[i, j] for j in range(width)] + [xb[i, 0]] for i in range(m)]
    obj = [(_q(cost[j]) if j < len(cost) else _ZERO) - reduced[0, j] for j in range(width)]
    obj.append(-(y * b)[0, 0])
    basis = list(basis)
    for _ in range(DUAL_PIVOTS):
        r = next((i for i in range(m) if tab[i][-1] < _ZERO), None)
        if r is None:
            v = -obj[-1]
            return Fraction(int(v.p), int(v.q)), basis
        cols = [(obj[j] / -tab[r][j], j) for j in range(width) if tab[r][j] < _ZERO]
        if not cols:
            return None, None
        _pivot(tab, basis, obj, r, min(cols)[1])
    return None


#: The shape (as a number, :data:`_SHAPE_IDS`) and the rates of a run by its identity
#: (:func:`_read`: the runs of a trace are cached and read again by every neighbour).
_READ: dict[int, tuple[Run, int, Units]] = {}
#: Each run shape met (:func:`_shape_of`) numbered: the memos below are keyed on the number.
_SHAPE_IDS: dict[tuple, int] = {}


def _read(run: Run) -> tuple[int, Units]:
    """``(the number of _shape_of(run), units(run))``, memoised on the run's identity."""
    hit = _READ.get(id(run))
    if hit is not None and hit[0] is run:
        return hit[1], hit[2]
    if len(_READ) > 65_536:
        _READ.clear()
    if len(_SHAPE_IDS) > 65_536:  # the numbers start again: every memo keyed on them too
        for memo in (_SHAPE_IDS, _READ, _SHIFTS, _BASES, _PROGRAMMES):
            memo.clear()
    sid = _SHAPE_IDS.setdefault(_shape_of(run), len(_SHAPE_IDS))
    _READ[id(run)] = (run, sid, units(run))
    return sid, _READ[id(run)][2]


def _shape(run: Run) -> int:
    return _read(run)[0]


def _shape_of(run: Run) -> tuple:
    return (tuple((d.law, d.scale) for d in run.draws),
            tuple((c.expr.coefficients, c.relation) for c in run.constraints),
            run.weight, tuple(r.coefficients for r in run.released))


#: :func:`run_shift_bound` by the run's shape and the differences of the constants (all the
#: linear programme reads): the suite's neighbours share about half of their programmes.
_SHIFTS: dict[tuple, Fraction | None] = {}

def run_shift_bound(run: Run, other: Run) -> Fraction | None:
    """``min sum_i rate_i |delta_i|`` (rates in the run's unit) over the shifts mapping
    ``run``'s event into ``other``'s (same shape, other constants), or None (no shift).
    Memoised on the shape and the constants' differences (:data:`_SHIFTS`)."""
    shape, u = _read(run)
    if not u.exact:
        return None
    diffs = tuple(_minus(c.expr.constant, c2.expr.constant)
                  for c, c2 in zip(run.constraints, other.constraints, strict=True)) + tuple(
        _minus(r.constant, r2.constant)
        for r, r2 in zip(run.released, other.released, strict=True))
    key = (shape, diffs)
    if key not in _SHIFTS:
        if len(_SHIFTS) > 65_536:
            _SHIFTS.clear()
        _SHIFTS[key] = _shift_bound(shape, _programme(shape, run),
                                    [flint.fmpq(p, q) for p, q in diffs])
    return _SHIFTS[key]


@lru_cache(maxsize=4096)
def _ratio(x: sympy.Expr) -> tuple[int, int]:
    return int(x.p), int(x.q)


def _minus(x: sympy.Expr, y: sympy.Expr) -> tuple[int, int]:
    """``x - y`` as a numerator and a positive denominator (not reduced: a key of ints,
    whose hash is cheap, where an ``fmpq``'s costs microseconds)."""
    (p, q), (p2, q2) = _ratio(x), _ratio(y)
    return (p - p2, q) if q == q2 else (p * q2 - p2 * q, q * q2)


#: A translation LP without its right-hand sides: the costs, the rows ``(position of the
#: constant difference, line, relation)``, and the rows without a variable (``b`` then
#: decides feasibility alone).
_Programme = tuple[list[Fraction], list[tuple[int, list[flint.fmpq], str]], list[tuple[int, str]]]
_PROGRAMMES: dict[int, _Programme] = {}


def _programme(shape: int, run: Run) -> _Programme:
    """The LP of the runs of ``shape`` (memoised; one row per comparison, but ``!=`` on
    continuous noises, and per released value)."""
    if shape in _PROGRAMMES:
        return _PROGRAMMES[shape]
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
    rows: list[tuple[int, list[flint.fmpq], str]] = []
    tests: list[tuple[int, str]] = []
    specs = [(c.expr.coefficients, c.relation, all(run.draws[i].law in SHIFTABLE
                                                   for i, _ in c.expr.coefficients))
             for c in run.constraints] + [(r.coefficients, "==", False) for r in run.released]
    for pos, (coefficients, relation, continuous) in enumerate(specs):
        if relation == "!=" and continuous:
            continue  # holds almost surely on both inputs
        rel = ">=" if relation in (">", ">=") else "=="
        coef = {i: _fmpq(c) for i, c in coefficients}
        line = [coef.get(i, _ZERO) if s > 0 else -coef.get(i, _ZERO) for i, s in var]
        if any(line):
            rows.append((pos, line, rel))
        else:
            tests.append((pos, rel))
    _PROGRAMMES[shape] = (cost, rows, tests)
    return _PROGRAMMES[shape]


def _shift_bound(shape: int, programme: _Programme, diffs: list[flint.fmpq]
                 ) -> Fraction | None:
    cost, rows, tests = programme
    if not all(diffs[pos] <= 0 if rel == ">=" else diffs[pos] == 0 for pos, rel in tests):
        return None
    return warm_minimise(shape, cost, [(line, rel, diffs[pos]) for pos, line, rel in rows])


def runs_bound(runs: Sequence[Run], others: Sequence[Run]) -> sympy.Expr | None:
    """An exact upper bound on ``ln f_a(o) - ln f_a'(o)`` over every output ``o`` of one
    pattern, ``runs`` its runs on ``a`` and ``others`` on ``a'`` (None: some run of ``a``
    has no partner of its shape, or no shift maps it)."""
    found = _run_bounds(runs, others)
    return None if found is None else _largest(found)


def _run_bounds(runs: Sequence[Run], others: Sequence[Run]
                ) -> list[tuple[sympy.Expr, Fraction]] | None:
    """The unit and :func:`run_shift_bound` of each run of ``runs`` paired with the next
    run of its shape in ``others`` (None: no partner, or no shift)."""
    groups: dict[int, list[Run]] = {}
    for r in others:
        groups.setdefault(_shape(r), []).append(r)
    used: dict[int, int] = {}
    out = []
    for r in runs:
        key = _shape(r)
        k = used.get(key, 0)
        partners = groups.get(key, [])
        if k >= len(partners):
            return None
        used[key] = k + 1
        b = run_shift_bound(r, partners[k])
        if b is None:
            return None
        out.append((_read(r)[1].unit, b))
    return out


@lru_cache(maxsize=4096)
def _scaled(unit: sympy.Expr, b: Fraction) -> sympy.Expr:
    return unit * sympy.Rational(b.numerator, b.denominator)


def _largest(found: list[tuple[sympy.Expr, Fraction]]) -> sympy.Expr:
    """``max(0, unit * b)`` over ``found``: in Fractions where every run has one numeric
    unit (it is positive), else as sympy numbers (``Max`` where symbolic)."""
    units_ = {u for u, _ in found}
    if len(units_) == 1 and not (unit := next(iter(units_))).free_symbols:
        return _scaled(unit, max(max(b for _, b in found), Fraction(0)))
    best = sympy.Integer(0)
    for u, b in found:
        value = _scaled(u, b)
        best = sympy.Max(best, value) if value.free_symbols or best.free_symbols else (
            value if value > best else best)
    return best


def pattern_bound(runs: Sequence[Run], others: Sequence[Run]) -> sympy.Expr | None:
    """An exact upper bound on ``|ln f_a(o) / f_a'(o)|`` over the outputs of one pattern
    (both directions; None where no translation bounds one of them)."""
    up, down = _run_bounds(runs, others), _run_bounds(others, runs)
    if up is None or down is None:
        return None
    both = {u for u, _ in up + down}
    if len(both) == 1 and not next(iter(both)).free_symbols:
        return _largest(up + down)  # one numeric unit: the largest Fraction
    up_, down_ = _largest(up), _largest(down)
    if up_.free_symbols or down_.free_symbols:
        return sympy.Max(up_, down_)
    return up_ if up_ >= down_ else down_


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
    seconds = bounds_seconds(both) + (sum(_cost(r) for r in both) if integrals else 0.0)
    what = "the loss" if integrals else "the translation bounds"
    check_seconds(func, f"{what} of {len(keys)} patterns ({len(both)} runs)", seconds,
                  "use fewer answers, or a smaller cut-off c or k where the program has one")


#: :func:`~exactdp.programs.integrate.run_cost` by the run's identity (its own cache hashes
#: the whole run: milliseconds per pair of a suite row).
_COSTS: dict[int, tuple[Run, float]] = {}


def _cost(run: Run) -> float:
    hit = _COSTS.get(id(run))
    if hit is not None and hit[0] is run:
        return hit[1]
    if len(_COSTS) > 65_536:
        _COSTS.clear()
    _COSTS[id(run)] = (run, run_cost(run))
    return _COSTS[id(run)][1]


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
        out = [(k, b) for k, b in out if b is None or _at_least(b, floor)]
    return sorted(out, key=lambda kb: (kb[1] is not None, -kb[1] if kb[1] is not None
                                       else 0))


@lru_cache(maxsize=4096)
def _at_least(bound: sympy.Expr, floor: sympy.Expr) -> bool:
    """``bound >= floor``, exactly (memoised: a search's neighbours meet a few bounds and
    one floor again and again)."""
    return compare(bound, floor) >= 0
