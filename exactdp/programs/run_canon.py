"""A canonical renumbering of a run's noises: runs equal up to the names of their noises.

Two runs whose noises can be renumbered into one another (the same laws and scales, the
same comparisons as a set, the same released values in order) describe the same event
of relabelled independent noises, so every density of their released values is the
same function. :func:`canonical` renumbers a run's noises by colour refinement (a noise's
colour: its law and scale, then the comparisons and released values it enters with the
colours of their other noises, refined until stable; Weisfeiler and Leman 1968, as in
graph isomorphism testing) and sorts its comparisons: two runs with the same key are such
renumberings of each other, so one's density serves the other's (the suite's neighbours
of one vector meet the same pattern under many permutations of the answers). Ties of
colour are broken by the original numbering: the key is then not always the same for two
renumbered runs (a missed reuse), but equal keys always mean equal events.

References
----------
B. Weisfeiler and A. Leman, "The reduction of a graph to canonical form and the algebra
which appears therein", NTI Series 2, 1968 (colour refinement).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy

from .runs import Constraint, Draw, Linear, Run

#: :func:`_fr` by the number: a run repeats a few numbers (0, 1, -1, its answers).
_FRACTIONS: dict[sympy.Expr, Fraction] = {}


def _fr(x: sympy.Expr) -> Fraction:
    out = _FRACTIONS.get(x)
    if out is None:
        if len(_FRACTIONS) > 65_536:
            _FRACTIONS.clear()
        out = _FRACTIONS[x] = Fraction(int(x.p), int(x.q))
    return out


def _ranks(sigs: list) -> list[int]:
    order = sorted(set(sigs))
    pos = {s: i for i, s in enumerate(order)}
    return [pos[s] for s in sigs]


#: Laws with a density: a comparison of their noises is strict or not on a null set.
CONTINUOUS = ("laplace", "exponential")


def _normal(run: Run, c: Constraint) -> Constraint:
    """``c`` with ``>=`` for ``>`` where its noises are continuous (the same event up to a
    null set: every density of the released values is the same on the open cells)."""
    noises = c.expr.coefficients  # a comparison of constants alone keeps its strictness
    if c.relation == ">" and noises and all(run.draws[i].law in CONTINUOUS for i, _ in noises):
        return Constraint(c.expr, ">=", c.line)
    return c


def _colours(run: Run) -> list[int]:
    """Each noise's colour after refinement to a stable partition."""
    forms = [(c.relation, _fr(c.expr.constant), [(i, _fr(a)) for i, a in c.expr.coefficients])
             for c in run.constraints]
    values = [[(i, _fr(a)) for i, a in r.coefficients] for r in run.released]
    return _refine(run.draws, forms, values)


def _refine(draws: tuple[Draw, ...], forms: list, values: list) -> list[int]:
    """Colour refinement of the noises ``draws`` by the comparisons ``forms`` (relation,
    an orderable constant, coefficients) and the released values' coefficients."""
    forms, values = _ranked(forms, values)
    n = len(draws)
    kinds: dict[tuple, tuple] = {}
    for d in draws:
        kinds.setdefault((d.law, d.scale), (d.law, str(d.scale), len(kinds)))
    col = _ranks([kinds[(d.law, d.scale)] for d in draws])
    while True:
        sigs: list[list] = [[] for _ in range(n)]
        for rel, const, coefs in forms:
            shape = (rel, const, tuple(sorted((col[i], a) for i, a in coefs)))
            for i, a in coefs:
                sigs[i].append((0, shape, a))
        for k, coefs in enumerate(values):
            for i, a in coefs:
                sigs[i].append((1, k, a))
        new = _ranks([(col[i], tuple(sorted(sigs[i]))) for i in range(n)])
        if len(set(new)) == len(set(col)):
            return new
        col = new


def _ranked(forms: list, values: list) -> tuple[list, list]:
    """``forms`` and ``values`` with each number (a constant, or a pair of them, and the
    coefficients) replaced by its rank among all of them: the same order and equalities,
    so the same refinement, with ints to hash and sort instead of Fractions."""
    nums: set = set()
    for _, const, coefs in forms:
        nums.update(const if isinstance(const, tuple) else (const,))
        nums.update(a for _, a in coefs)
    for coefs in values:
        nums.update(a for _, a in coefs)
    rank = {x: i for i, x in enumerate(sorted(nums))}

    def num(c: Any) -> Any:
        return tuple(rank[x] for x in c) if isinstance(c, tuple) else rank[c]

    return ([(rel, num(const), [(i, rank[a]) for i, a in coefs]) for rel, const, coefs in forms],
            [[(i, rank[a]) for i, a in coefs] for coefs in values])


def pair_key(run: Run, other: Run) -> tuple | None:
    """A key of the pair of runs ``(run, other)`` of one pattern on two inputs (the same
    noises and comparisons, other constants) up to one renumbering of the noises of both,
    a ``>`` of continuous noises read as ``>=``: two pairs with one key have the same pair
    of densities of the released values on open sets (not always at single points). None
    where the two runs differ in more than their constants, or a number is not
    rational."""
    run = Run(run.draws, tuple(_normal(run, c) for c in run.constraints), run.weight,
              run.output, run.released)
    other = Run(other.draws, tuple(_normal(other, c) for c in other.constraints),
                other.weight, other.output, other.released)
    if (tuple((d.law, d.scale) for d in run.draws) != tuple((d.law, d.scale)
                                                          for d in other.draws)
            or run.weight != other.weight or len(run.constraints) != len(other.constraints)
            or any((c.relation, c.expr.coefficients) != (c2.relation, c2.expr.coefficients)
                   for c, c2 in zip(run.constraints, other.constraints, strict=True))
            or [r.coefficients for r in run.released] != [r.coefficients
                                                          for r in other.released]):
        return None
    numbers = [x for r in (run, other) for c in r.constraints
               for x in (c.expr.constant, *(a for _, a in c.expr.coefficients))] + [
        x for r in (run, other) for v in r.released
        for x in (v.constant, *(a for _, a in v.coefficients))]
    if not all(isinstance(x, sympy.Rational) for x in numbers):
        return None
    forms = [(c.relation, (_fr(c.expr.constant), _fr(c2.expr.constant)),
              [(i, _fr(a)) for i, a in c.expr.coefficients])
             for c, c2 in zip(run.constraints, other.constraints, strict=True)]
    values = [[(i, _fr(a)) for i, a in r.coefficients] for r in run.released]
    col = _refine(run.draws, forms, values)
    order = sorted(range(len(run.draws)), key=lambda i: (col[i], i))
    new = [0] * len(order)
    for pos, i in enumerate(order):
        new[i] = pos
    cons = sorted((rel, const, tuple(sorted((new[i], a) for i, a in coefs)))
                  for rel, const, coefs in forms)
    released = tuple(((_fr(r.constant), _fr(r2.constant)),
                      tuple(sorted((new[i], _fr(a)) for i, a in r.coefficients)))
                     for r, r2 in zip(run.released, other.released, strict=True))
    return (tuple((run.draws[i].law, run.draws[i].scale) for i in order), tuple(cons),
            run.weight, released)


def _relabel(form: Linear, new: list[int]) -> Linear:
    return Linear(form.constant, tuple(sorted((new[i], a) for i, a in form.coefficients)))


def _form_key(form: Linear) -> tuple:
    return (_fr(form.constant), tuple((i, _fr(a)) for i, a in form.coefficients))


#: :func:`canonical` by the run's identity and ``strict`` (the runs of a trace are cached).
_BY_ID: dict[tuple[int, bool], tuple[Run, tuple[Run, tuple] | None]] = {}


def canonical(run: Run, strict: bool = False) -> tuple[Run, tuple] | None:
    """``(the run renumbered, its key)``: noises in the order of their colours (ties by
    their numbers), each comparison's and released value's noises renumbered, the
    comparisons sorted; the key is the renumbered run without its source lines and
    output. Unless ``strict``, a ``>`` of continuous noises is read as ``>=`` (the same
    densities on open cells, not at every point). None where a constant or coefficient
    is not a rational number. Memoised on the run's identity."""
    hit = _BY_ID.get((id(run), strict))
    if hit is not None and hit[0] is run:
        return hit[1]
    if len(_BY_ID) > 65_536:
        _BY_ID.clear()
    _BY_ID[(id(run), strict)] = (run, _canonical(run, strict))
    return _BY_ID[(id(run), strict)][1]


def _canonical(run: Run, strict: bool) -> tuple[Run, tuple] | None:
    numbers = [c.expr.constant for c in run.constraints] + [
        a for c in run.constraints for _, a in c.expr.coefficients] + [
        x for r in run.released for x in (r.constant, *(a for _, a in r.coefficients))]
    if not all(isinstance(x, sympy.Rational) for x in numbers):
        return None
    if not strict:
        run = Run(run.draws, tuple(_normal(run, c) for c in run.constraints), run.weight,
                  run.output, run.released)
    col = _colours(run)
    order = sorted(range(len(run.draws)), key=lambda i: (col[i], i))
    new = [0] * len(order)
    for pos, i in enumerate(order):
        new[i] = pos
    draws = tuple(Draw(pos, run.draws[i].law, run.draws[i].scale, run.draws[i].line)
                  for pos, i in enumerate(order))
    cons = sorted((Constraint(_relabel(c.expr, new), c.relation, c.line)
                   for c in run.constraints),
                  key=lambda c: (c.relation, _form_key(c.expr)))
    released = tuple(_relabel(r, new) for r in run.released)
    out = Run(draws, tuple(cons), run.weight, run.output, released)
    key = (tuple((d.law, d.scale) for d in draws),
           tuple((c.relation, _form_key(c.expr)) for c in cons), run.weight,
           tuple(_form_key(r) for r in released))
    return out, key
