"""The privacy loss of a release program on one pair: the supremum of the log density ratio.

For answers ``q, q'`` the loss is ``sup_o |ln f_q(o) / f_q'(o)|`` over the outputs ``o``
(:class:`~exactdp.distribution.LossSupremum`): ``f`` the density of the released values
times the probability of the rest of the pattern (an essential supremum: single values of
the released value do not count, limits do). Pattern by pattern:

- no released value: ``|ln P / P'|`` of the exact pattern probabilities (``oo`` when exactly
  one is 0: an event of positive probability under one input only, attained);
- one other released value ``v``: the densities are computed as functions of ``v`` on the cells
  where their closed forms hold (:mod:`exactdp.programs.release_cells`), and on each cell
  the supremum of the log ratio is the largest of its limits at the cell's ends (exact
  sympy), its constant value where the ratio is constant (attained on the whole cell), and
  its values at the interior critical points (certified arb intervals,
  :mod:`exactdp.programs.release_sup`); a cell where exactly one density vanishes gives
  ``oo``, attained (that set of values has positive probability under one input only);
- released values (one or several) that are an invertible linear map of independent
  noises compared with nothing (a fresh noisy value; histograms: diagonal; running sums,
  SmartSum: triangular): after the change of variables the log ratio is a sum of one-noise
  log ratios plus the pattern's, and its supremum the sum of theirs
  (:mod:`~exactdp.programs.release_separable`; these patterns come first, exact and
  without a translation bound); several values coupled only through their least (SVT3
  at ``c >= 2``): the supremum over ``2**k - 1`` lines, each a one-value problem
  (:mod:`~exactdp.programs.release_min`), exact; gaps of a chain
  (:mod:`~exactdp.programs.release_chain`); other patterns with several values: a search,
  a certified bracket under their translation bound, else refused in one line.

The largest candidate is decided by rigorous arb enclosures (exact comparison between
exact candidates: :func:`exactdp.exact.signs.compare`). A value at an interior critical
point is not a closed form: the result then carries ``interval`` (certified) and ``loss``
is its midpoint.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, partial
from itertools import zip_longest
from typing import Any

import flint
import sympy

from ..cost import check_seconds
from ..distribution import LossSupremum
from ..exact import flint_prec, to_arb
from ..exact.piecewise_exp import value_expr
from ..progress import Steps, progress_bar
from ..result_text import bracket_text
from .integrate import run_cost
from .integrate_stars import units
from .release_below import below, constant_ratio, under
from .release_bound import FLOOR, BelowFloor, check_bounds, ordered_patterns
from .release_cells import VPoly, joint_cells
from .release_chain import Tools, exponential_chain, several_values
from .release_chain_plane import CHAIN_PLANE_SECONDS, below_level
from .release_density import run_density
from .release_edge import attained_ends, continuous_ends, edge_limit, point_density
from .release_factor import product_supremum
from .release_loss_price import (
    Ahead,
    Meter,
    cells_seconds,
    critical_seconds,
    pattern_seconds,
    reaches,
)
from .release_max import max_pattern
from .release_patterns import real_count
from .release_products import cross
from .release_search import best_point, grid, screen_cells, search_cost, starts, value_arb
from .release_select import Candidate, abs_ball, hull_ends, kept, select
from .release_separable import separable_candidates
from .release_sup import (
    MAX_STEPS,
    Terms,
    exact_at,
    leading,
    negate_v,
    prec,
    refine,
    zeros,
)
from .runs import Run

#: Bisections of the critical-point search of one pattern (shared by its cells) when a
#: bracket may stand in for it.
BRACKET_STEPS = 600
#: The direction of a directional supremum (:func:`directional_supremum`; 0: ``|ln f/f'|``).
_SIGN: ContextVar[int] = ContextVar("release_sign", default=0)



def _lam(unit: sympy.Expr, func: str) -> Fraction:
    if not unit.is_Rational:
        raise ValueError(f"{func}: the loss of a release program needs a rational epsilon "
                         f"(a rational noise rate); the noise rate here is {unit}")
    return Fraction(int(unit.p), int(unit.q))


def _terms(value: dict, lam: Fraction) -> Terms:
    """A density value with :class:`VPoly` exponents and coefficients as :data:`Terms`."""
    out: Terms = {}
    powers: dict[int, Fraction] = {}
    for (e, w), q in value.items():
        wp = VPoly.lift(w).c
        key = (wp[1] if len(wp) > 1 else Fraction(0), wp[0] if wp else Fraction(0))
        scale = powers.get(e) or powers.setdefault(e, lam**e)
        poly = [a * scale for a in VPoly.lift(q).c]
        old = out.get(key)
        if old is not None:  # as add(out, {key: poly}), in place: a vanishing sum leaves
            poly = [x + y for x, y in zip_longest(old, poly, fillvalue=Fraction(0))]
            while poly and poly[-1] == 0:
                poly.pop()
        if poly:
            out[key] = tuple(poly)
        else:
            out.pop(key, None)
    return out


def _density(runs: list[Run], values: tuple[Any, ...], func: str) -> tuple[sympy.Expr, dict]:
    unit: sympy.Expr = sympy.Integer(1)
    total: dict = {}
    for run in runs:
        if run.weight != 1:
            raise ValueError(f"{func}: a run with a coin (bernoulli) beside released values: "
                             "not in this version")
        try:
            unit, v = run_density(run, values, run.draws[0].line if run.draws else func)
        except ValueError as exc:
            raise ValueError(f"{func}: {exc}") from None
        for k, q in v.items():
            s = total.get(k, 0) + q
            if s:
                total[k] = s
            else:
                total.pop(k, None)
    return unit, total


def _log_ratio(f: sympy.Expr, g: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr]:
    return f, g


def _end(f: Terms, g: Terms, lam: Fraction, side: int, where: str) -> Candidate:
    """The limit of ``ln f / g`` at an infinite end (``side`` +1: ``v -> +oo``)."""
    lf = leading(f if side > 0 else negate_v(f), lam)
    lg = leading(g if side > 0 else negate_v(g), lam)
    assert lf is not None and lg is not None
    if (lf[0], lf[1]) != (lg[0], lg[1]):
        bigger = 1 if (lf[0], lf[1]) > (lg[0], lg[1]) else -1
        return Candidate(None, None, bigger, False, where)
    return Candidate(_log_ratio(lf[2], lg[2]), None, 0, False, where)


def _dratio(f: Terms, g: Terms, lam: Fraction) -> Terms:
    """``f' g - f g'``: the log ratio's derivative times ``f g``."""
    return cross(f, g, lam)


def _cell_candidates(f: Terms, g: Terms, lam: Fraction, lo: Fraction | None,
                     hi: Fraction | None, label: str, func: str,
                     critical: str = "all", steps: int = MAX_STEPS,
                     d: Terms | None = None, constant: bool | None = None) -> list[Candidate]:
    """The candidates of one cell: its ends' limits or its constant ratio (``critical``
    ``"all"`` or ``"none"``; ``constant``: whether the ratio is constant, where known
    without ``d``) and its interior critical points (``"all"`` or ``"only"``)."""
    span = f"{label} with the value in ({'-oo' if lo is None else lo}, " \
           f"{'oo' if hi is None else hi})"
    if not f and not g:
        return []
    if critical == "only":
        d = _dratio(f, g, lam) if d is None and f and g else d
        return _critical(f, g, d, lam, lo, hi, label, func, steps) if f and g and d else []
    if not f or not g:
        return [Candidate(None, None, 1 if f else -1, True,
                          f"{span} (probability 0 under one input only)")]
    if constant is None:
        d = _dratio(f, g, lam) if d is None else d
        constant = not d
    if constant:  # the ratio is constant on the cell
        t = (lo + hi) / 2 if lo is not None and hi is not None else (
            (lo + 1) if lo is not None else (hi - 1) if hi is not None else Fraction(0))
        return [Candidate(_log_ratio(exact_at(f, t, lam), exact_at(g, t, lam)), None, 0,
                          True, f"{span} (a constant ratio)")]
    out: list[Candidate] = []
    for end, side in ((lo, -1), (hi, 1)):
        if end is None:
            out.append(_end(f, g, lam, side, f"{label} as the value -> "
                                               f"{'-oo' if side < 0 else '+oo'}"))
            continue
        fe, ge = exact_at(f, end, lam), exact_at(g, end, lam)
        if fe == 0 or ge == 0:
            if fe == ge:  # both vanish: the support edge of one-sided noise
                inf, pair, where = edge_limit(f, g, lam, end, -side, func, label)
                out.append(Candidate(pair, None, inf, False, where))
                continue
            out.append(Candidate(None, None, 1 if ge == 0 else -1, False,
                                 f"{label} as the value -> {end}"))
            continue
        out.append(Candidate(_log_ratio(fe, ge), None, 0, False,
                             f"{label} as the value -> {end}", end))
    if critical != "all":
        return out
    return out + _critical(f, g, _dratio(f, g, lam) if d is None else d, lam, lo, hi, label,
                           func)


def _critical(f: Terms, g: Terms, d: Terms, lam: Fraction, lo: Fraction | None,
              hi: Fraction | None, label: str, func: str,
              max_steps: int = MAX_STEPS, spent: list[int] | None = None) -> list[Candidate]:
    """The candidates at the interior zeros of ``d = f' g - f g'`` on the cell."""
    out: list[Candidate] = []
    for x, y in zeros(d, lam, lo, hi, func, max_steps, spent):
        if x == y:  # an exact rational critical point
            if (lo is None or x > lo) and (hi is None or x < hi):
                out.append(Candidate(_log_ratio(exact_at(f, x, lam), exact_at(g, x, lam)), None,
                                     0, True, f"{label} with the value {x} (a critical point "
                                     "of the log density ratio)"))
            continue
        val, x2, y2 = refine(f, g, d, lam, x, y)
        at = f"{float(x2):.12g}" if x2 == y2 else f"[{float(x2):.12g}, {float(y2):.12g}]"

        def tighter(x2: Fraction = x2, y2: Fraction = y2) -> flint.arb:
            return refine(f, g, d, lam, x2, y2, "1e-40", "1e-45")[0]

        out.append(Candidate(None, val, 0, True, f"{label} with the value at {at} (a critical "
                             "point of the log density ratio)", tighten=tighter))
    return out


def _cells(dist: Any, other: Any, key: Any, func: str) -> tuple[sympy.Expr, list]:
    """The noise unit and the cells ``(f, g, lam, lo, hi, d)`` of a pattern with one
    released value (each input's cells cached): ``d()`` is ``f' g - f g'``, formed when
    first asked (:func:`~exactdp.programs.release_below.below` seldom needs it)."""
    unit: sympy.Expr = sympy.Integer(1)
    pieces = []
    for cell in joint_cells(dist, other, key, func, _density):
        (unit, fr), (_, gr) = cell.result
        lam = _lam(unit, func)
        f, g = _terms(fr, lam), _terms(gr, lam)
        d = cache(partial(_dratio, f, g, lam)) if f and g else dict
        pieces.append((f, g, lam, cell.lo, cell.hi, d))
    return unit, pieces


def _one_value(dist: Any, other: Any, key: Any, label: str, func: str, unit: sympy.Expr,
               pieces: list) -> tuple[list[Candidate], list]:
    """The candidates of a pattern with one released value at its cells' ends and on its
    cells of constant ratio (:func:`_cells`), and its cells (for :func:`_one_value_critical`;
    empty when a cell has positive probability under one input only: the loss is then
    infinite)."""
    runs_p, runs_q = dist.runs[key], other.runs[key]
    # a cell of positive probability under one input only makes the loss infinite: no
    # critical point elsewhere can matter, so none is searched
    one_sided = [p for p in pieces if bool(p[0]) != bool(p[1])]
    out = [c for f, g, lam, lo, hi, d in one_sided or pieces
           for c in _cell_candidates(f, g, lam, lo, hi, label, func, "none",
                                     constant=bool(f and g) and constant_ratio(f, g, lam, d))]
    out = attained_ends(continuous_ends(out, label), (runs_p, runs_q), label,
                        lambda v, r: point_density(r, v, func, unit, _density))
    return out, [] if one_sided else pieces


def _one_value_critical(pieces: list, label: str, func: str, bound: sympy.Expr | None
                        ) -> tuple[list[Candidate], bool]:
    """The candidates at the critical points of a one-value pattern's cells, and whether
    their search was cut short (with a ``bound``, past :data:`BRACKET_STEPS` bisections
    over its cells, each a fair share of those left, at least 40: the pattern is then
    bracketed; its lower end the exact ratio at the best point of a screen, :func:`_screened`)."""
    out: list[Candidate] = []
    if bound is None:
        for f, g, lam, lo, hi, d in pieces:
            out += _cell_candidates(f, g, lam, lo, hi, label, func, "only", MAX_STEPS, d())
        return out, False
    spent, todo = [0], [p for p in pieces if p[0] and p[1] and p[5]()]
    try:  # each cell a fair share of what is left: a cell needing few steps leaves the rest
        for i, (f, g, lam, lo, hi, d) in enumerate(todo):
            steps = max(40, (BRACKET_STEPS - spent[0]) // (len(todo) - i))
            out += _critical(f, g, d(), lam, lo, hi, label, func, steps, spent)
    except ValueError:
        return out, True
    return out, False


def _screened(pieces: list, label: str) -> list[Candidate]:
    """The exact log ratio at the best point of :func:`~exactdp.programs.release_search.
    screen_cells`: a lower bound, attained there."""
    found = screen_cells(pieces)
    if found is None:
        return []
    x, f, g, lam = found
    return [Candidate(_log_ratio(exact_at(f, x, lam), exact_at(g, x, lam)), None, 0, True,
                      f"{label} with the value {x}")]


def _released_max(dist: Any, other: Any, key: Any, label: str, func: str
                  ) -> list[Candidate] | None:
    """A released maximum's candidate (:func:`~exactdp.programs.release_max.max_pattern`)."""
    m = max_pattern(dist.runs[key], other.runs[key], label, func)
    return None if m is None else [Candidate(m.exact, m.enclosure, m.infinite, m.attained,
                                             m.witness, tighten=m.tighten, log=m.log)]


@dataclass(frozen=True)
class Bracketed:
    """A pattern whose supremum is not decided: its candidates are lower bounds, and
    ``upper`` (the translation bound, :mod:`exactdp.programs.release_bound`) bounds it."""

    label: str
    upper: sympy.Expr
    why: str
    faces: tuple = ()  # undecided polygons of two gaps (release_chain_plane.below_level)


#: The candidates and the brackets of a pair's patterns.
Found = tuple[list[Candidate], list[Bracketed]]


def _candidates(dist: Any, other: Any, func: str) -> Found:
    """The candidates and brackets of every pattern, with a bar (one step per pattern) on a
    terminal when the cost model's estimate (:meth:`~exactdp.programs.release.
    ProgramRelease.loss_seconds`) exceeds :data:`exactdp.progress.SHOW_SECONDS`; off a
    terminal, the start line of the patterns left once the loss runs long
    (:class:`~exactdp.programs.release_loss_price.Meter`)."""
    keys = sorted(set(dist.keys) | set(other.keys))
    for key in keys:
        if not (key in dist.runs and key in other.runs):
            mine = key in dist.runs
            src = dist if mine else other
            label = f"the pattern {src.outputs[src.keys.index(key)]!r}"
            return [Candidate(None, None, 1 if mine else -1, True,
                              f"{label} (reached under one input only)")], []
    total = len(keys)
    with progress_bar(total, func, seconds=dist.loss_seconds(func), unit="pattern",
                      line=False) as bar:  # off a terminal the start line is the Meter's
        step = Steps(bar, total)
        found = _patterns(dist, other, func, step)
        step.finish()
    return found


def _patterns(dist: Any, other: Any, func: str, step: Steps) -> Found:
    out: list[Candidate] = []
    brackets: list[Bracketed] = []
    pending: list[tuple[Any, sympy.Expr | None, str, list]] = []
    lead: list[Any] = [None, 0]  # (the candidate of largest lower end, that end), seen
    budget = [CHAIN_PLANE_SECONDS]  # the plane route's estimated seconds on two gaps

    def top() -> Candidate | None:
        with flint_prec(prec()):
            for c in out[lead[1]:]:
                if not c.infinite and kept(c, _SIGN.get()):
                    low = abs_ball(c).lower()
                    if lead[0] is None or low > lead[0][1]:
                        lead[0] = (c, low)
            lead[1] = len(out)
        return None if lead[0] is None else lead[0][0]

    keys = sorted(set(dist.keys) | set(other.keys))
    rest = []
    for key in keys:  # separable values first: exact at once (their integrals are the
        pattern = dist.outputs[dist.keys.index(key)]  # probabilities'), no bound needed
        label = f"the pattern {pattern!r}"
        sep = separable_candidates(dist, other, key, label) if real_count(pattern) else None
        sep = _released_max(dist, other, key, label, func) if sep is None and real_count(
            pattern) == 1 and not _SIGN.get() else sep
        out += sep if sep is not None else []
        rest += [key] if sep is None else []
        if sep is not None:
            step()
    check_bounds(func, dist.runs, other.runs, rest, integrals=True)
    ordered, ahead = ordered_patterns(dist, other, rest), Ahead(_cells)
    meter = _meter(dist, other, ordered, func)
    for n, (key, bound) in enumerate(ordered):
        t = top()
        if bound is not None and t is not None and reaches(t, bound):
            step()
            continue  # no output of this pattern exceeds the best found
        meter.check(ordered, n, pending, 0, t, meter.first[key])
        pattern = dist.outputs[dist.keys.index(key)]
        label = f"the pattern {pattern!r}"
        k = real_count(pattern)
        if k == 0:
            P, Q = dist.pmf(pattern), other.pmf(pattern)
            if (P == 0 or Q == 0) and P != Q:
                return [Candidate(None, None, 1 if Q == 0 else -1, True, label)], []
            if P != 0 and Q != 0:  # both 0: no output of this pattern
                out.append(Candidate(_log_ratio(P, Q), None, 0, True, label))
        elif k == 1 and not exponential_chain(dist.runs[key], other.runs[key]):
            unit, pieces = ahead.cells.pop(key) if key in ahead.cells else _cells(
                dist, other, key, func)
            if below(pieces, ahead.level(t), whole=True):
                step()  # every output of the pattern below a loss found (or the floor)
                continue
            found, pieces = _one_value(dist, other, key, label, func, unit, pieces)
            out += found
            if any(c.infinite and c.attained for c in out):
                return out, []  # the loss is infinite, attained: nothing else can matter
            pending.append((key, bound, label, pieces))
            meter.critical[key] = critical_seconds(pieces)
            ahead.fetch(dist, other, ordered[n + 1:], bound, top(), func, _SIGN.get())
            continue  # its step after its critical points, below
        else:  # gaps of a chain (noisy top-k): exact, or rays; else a search
            found, why = several_values(dist.runs[key], other.runs[key], label, func,
                                        _tools(bound, budget, partial(
                                            meter.plane, ordered, n, t, budget=budget[0]),
                                            top), partial(_multi, dist, other, key, label,
                                                          func, bound))
            out += found
            if why is not None:
                brackets.append(Bracketed(label, bound, why.why, why.faces))
        step()
    _pending(pending, out, brackets, top, step, func, meter)
    return out, brackets


def _meter(dist: Any, other: Any, ordered: list, func: str) -> Meter:
    """The :class:`~exactdp.programs.release_loss_price.Meter` of the patterns ``ordered``:
    a one-value pattern (not a chain's) pays its cells first and its critical points last."""
    first, critical, values = {}, {}, {}
    for key, _ in ordered:
        runs_p, runs_q = dist.runs[key], other.runs[key]
        whole = pattern_seconds(runs_p, runs_q)
        values[key] = k = real_count(dist.outputs[dist.keys.index(key)])
        cells = cells_seconds(runs_p) if k == 1 and not exponential_chain(runs_p, runs_q) \
            else whole
        first[key], critical[key] = min(cells, whole), max(whole - cells, 0.0)
    return Meter(func, dict(ordered), first, critical, values)


def _pending(pending: list, out: list[Candidate], brackets: list[Bracketed],
             top: Callable[[], Candidate | None], step: Steps, func: str, meter: Meter
             ) -> None:
    """The critical points of the one-value patterns last (appended to ``out`` and
    ``brackets``), where the other candidates leave room below the bound."""
    for i, (key, bound, label, pieces) in enumerate(pending):
        if i:
            step()  # the pattern before is done (the last one: Steps.finish)
        if any(c.infinite for c in out):
            break  # the loss is infinite: no critical value can matter
        t = top()
        if bound is not None and t is not None and reaches(t, bound):
            continue
        level = None if t is None else abs_ball(t)
        if below(pieces, level):  # under a loss found, or the floor: no change to the loss
            continue
        meter.check((), 0, pending, i, t, meter.critical[key])
        if bound is not None:
            screen = _screened(pieces, label)
            out += screen
            if any(reaches(c, bound) for c in screen):
                continue
        found, undecided = _one_value_critical(pieces, label, func, bound)
        out += found
        if undecided and bound is not None:
            brackets.append(Bracketed(label, bound, "its critical points were not isolated"))


def _multi(dist: Any, other: Any, key: Any, label: str, func: str, bound: sympy.Expr
           ) -> list[Candidate]:
    """The exact log ratio at the best output found by the search of
    :mod:`exactdp.programs.release_search` (a certified lower bound, attained there)."""
    runs_p, runs_q = dist.runs[key], other.runs[key]
    unit = units(runs_p[0]).unit
    lam = _lam(unit, func)
    scale = max(1 / (r * lam) for r in units(runs_p[0]).rates)
    pts = grid(runs_p, runs_q, scale)
    begin = starts(runs_p, runs_q)
    k = len(runs_p[0].released)
    # one density: conditioning and a centre integral, about 0.1 ms per noise and
    # comparison (measured on SVT3 and prefix sums at 10 queries), plus the integrator's
    each = sum(1e-4 * (len(r.draws) + len(r.constraints)) + run_cost(r)
               for r in (*runs_p, *runs_q))
    check_seconds(func, f"a search over the {k} released values of {label} "
                  f"({search_cost(k, len(pts), len(begin))} density pairs)",
                  each * search_cost(k, len(pts), len(begin)),
                  "use fewer answers, or a smaller cut-off c or k where the program has one")

    def log_ratio(o: tuple[Fraction, ...]) -> flint.arb | None:
        f, g = _density(runs_p, o, func)[1], _density(runs_q, o, func)[1]
        if not f or not g:
            return None
        return value_arb(f, lam).log() - value_arb(g, lam).log()

    found = best_point(log_ratio, pts, begin, float(sympy.N(bound, 20)))
    if found is None:
        return []
    o = found[0]
    f, g = _density(runs_p, o, func)[1], _density(runs_q, o, func)[1]
    text = ", ".join(str(x) for x in o)
    return [Candidate(_log_ratio(value_expr(f, unit), value_expr(g, unit)), None, 0, True,
                      f"{label} with the values ({text})")]


def _tools(bound: sympy.Expr | None, budget: list[float] | None = None,
           line: Callable[[float], None] | None = None, top: Any = None) -> Tools:
    return Tools(Candidate, _cell_candidates, _dratio, _density, _lam, _terms,
                 lambda c: bound is not None and reaches(c, bound), bound is not None,
                 [CHAIN_PLANE_SECONDS] if budget is None else budget, line,
                 top or (lambda: None))


def loss_supremum(dist: Any, other: Any) -> LossSupremum:
    """The exact ``sup_o |ln f_q(o) / f_q'(o)|`` of two :class:`~exactdp.programs.release.
    ProgramRelease` distributions of one program (``q`` and its neighbour ``q'``).

    Raises
    ------
    ValueError
        A symbolic epsilon, a pattern outside the exact class of released values, an
        undecided critical point, or a maximum that arb cannot separate from a rival.
    """
    func = f"{dist.mechanism.name}.privacy_loss"
    if dist.mechanism.epsilon.free_symbols:
        raise ValueError(f"{func}: the supremum over released values needs a numeric epsilon")
    product = product_supremum(dist, other, directional_supremum)
    if product is not None:  # two independent parts: the sum of their suprema
        return product
    cands, brackets = _candidates(dist, other, func)
    if not cands and not brackets:
        return LossSupremum(sympy.Integer(0), True, 0, "every output (equal densities)")
    if not any(c.infinite for c in cands) and under(
            lambda: [abs_ball(c) for c in cands], [b.upper for b in brackets]):
        raise BelowFloor  # every pattern below the floor: no closed form is needed
    result, top = select(cands) if cands else (None, None)
    spent = [0]  # undecided polygons below the loss found clear their bracket
    open_ = [b for b in brackets if top is None or not (reaches(top, b.upper) or (
        b.faces and below_level(b.faces, abs_ball(top), spent)))]
    if not open_:
        assert result is not None
        return result
    with flint_prec(prec()):
        low = abs_ball(top) if top is not None else flint.arb(0)
        high = max((to_arb(b.upper, prec()) for b in open_), key=lambda x: x.upper())
        # each end from its own ball: a union's radius has 30 bits, which put the ends of
        # [2/5, 9/20] 5e-11 outside them
        lo, hi = hull_ends([low, high])
        exact = lo if top is None or result is None or result.interval or not (
            result.loss.is_Rational) else result.loss  # ends are rational (1/4, not a log)
    worst = max(open_, key=lambda b: float(b.upper))
    at = top.witness if top is not None else "no output"
    text = (f"a certified bracket {bracket_text(exact, hi)} (width "  # rounded outward
            f"{float(hi - lo):.2g}): at least {at}; at most {worst.upper} by a "
            f"translation of the noises on {worst.label} ({worst.why})")
    direction = result.direction if result is not None else 1  # lower end: exact where it is
    return LossSupremum((lo + hi) / 2, False, direction, text, interval=(exact, hi))


def directional_supremum(dist: Any, other: Any, sign: int, floor: sympy.Expr | None = None
                         ) -> tuple[LossSupremum, Candidate | None] | None:
    """``sup_o ln(f_q(o) / f_q'(o))`` (``sign`` +1), ``sup_o ln(f_q'(o) / f_q(o))`` (-1)
    or :func:`loss_supremum` (0) of two distributions (the candidates of that sign, pruned
    by the best of them and by ``floor``: exact where at least ``floor``; BelowFloor where
    no candidate is left), selected (:func:`~exactdp.programs.release_select.select`);
    None where a candidate is infinite, a pattern bracketed or refused, or none has that
    sign: the parts of :func:`~exactdp.programs.release_factor.product_supremum`."""
    func = f"{dist.mechanism.name}.privacy_loss"
    if sign and any(real_count(p) > 1 for p in dist.outputs):  # one value a pattern (cells)
        return None
    tokens = _SIGN.set(sign), FLOOR.set(floor)
    try:
        cands, brackets = _candidates(dist, other, func)
    except ValueError:
        return None
    finally:
        _SIGN.reset(tokens[0])
        FLOOR.reset(tokens[1])
    mine = [c for c in cands if kept(c, sign)]
    if floor is not None and not mine and not brackets:
        raise BelowFloor  # every pattern bounded, or its values, below the floor
    if brackets or not mine or any(c.infinite for c in cands):
        return None
    return select(mine)
