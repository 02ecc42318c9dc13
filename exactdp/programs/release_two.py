"""Two released values: the exact supremum of the log density ratio over the plane's cells.

For a pattern releasing two values ``(u, v)`` of Laplace noises (GapSVT and AdaptiveSVT
with ``c = 2``, their incorrect twin), the two inputs' densities are exponential
polynomials on the faces of an arrangement of lines (:mod:`exactdp.programs.
release_plane`). The loss of the pattern is the largest supremum of ``|L|``, ``L = ln f/g``,
over the faces (single outputs do not count: the supremum is essential, so each face's is
over its closure, by the face's own formula). On one face:

- one density 0, the other not: ``oo``, attained (an event of positive probability under
  one input only); both 0: no output;
- ``L`` constant on the face (both derivatives of ``f/g`` vanish identically, decided
  exactly): that constant, attained;
- else every edge (segment, ray or line) is a one-value problem along it: its ends'
  values and limits and its interior critical points (:mod:`exactdp.programs.release_sup`),
  exact or certified; and the interior is settled by a *monotone direction*: a ``d`` with
  ``N_d = f_d g - f g_d >= 0`` on the closed face, proved by boxes
  (:func:`~exactdp.programs.release_sign2d.nonnegative`). Then ``L`` does not decrease
  along ``d``: from every point of the face the ray along ``d`` either leaves the face
  through an edge (a value at least ``L`` there, counted with the edges) or stays in it
  (``d`` in the recession cone), where ``L`` tends to ``l(s) = ln C_f(s) / C_g(s)``, the
  ratio of the two densities' leading parts along ``d``
  (:func:`~exactdp.programs.release_face.leading_along`; ``+-oo`` when their growth
  differs), ``s`` the coordinate across ``d``. So the face's supremum of ``L`` is the
  largest of its edges' and of ``sup_s l(s)`` (a one-value problem on the face's shadow
  across ``d``, each value a limit, never attained); ``-L`` does not decrease along
  ``-d``, alike.

An edge's values are the face's formula continued onto its closure: limits from inside
the face. One inside an edge (a critical point, a constant ratio) is attained only where
the densities on the line itself (:func:`line_density`: the program run with the values on
the line, a tie taking the program's own branch) are that formula; on the support boundary
of a strict comparison (a gap released when ``> 0``) they are 0, and across a branch's
``>=`` the line holds the other side's formula, so the value is approached, not attained.

A face is first held against the loss found before the pattern (``tools.top``): where
``|L| <= ln E`` is proved on its closure for a rational ``E < exp`` of that loss
(:func:`~exactdp.programs.release_sign2d.within`, at most :data:`~exactdp.programs.
release_two_cost.BELOW_WORK` enclosures a pattern), it cannot change the loss: skipped,
no candidate (the candidates then settle the loss, not the pattern's own supremum).

A bounded face needs no direction: its supremum is on its edges or at an interior zero
of the gradient of ``L``, isolated by Krawczyk's test
(:mod:`exactdp.programs.release_crit2d`), each such critical value enclosed (attained).
An unbounded face tries the directions of :data:`DIRECTIONS` and its rays, the steepest
at sample points first, a strip slice by slice across it (:data:`STRIP_SLICES`); without
one it is cut by a box ``|u|, |v| <= R`` (:func:`split_face`): critical points inside, a
direction on each far piece, the box's sides as one-value problems. A face still
undecided leaves the pattern *unsettled*: its candidates are then lower bounds, and the
caller keeps its certified bracket. The route is priced before it starts
(:func:`~exactdp.programs.release_two_cost.plane_seconds`, in the loss's estimate: its
start line) and takes only the runs that price allows
(:func:`~exactdp.programs.release_two_cost.plane_run`); while it runs, the cells refuse
past :data:`PLANE_SECONDS` or the plane's line limit and the proofs stop at
:data:`~exactdp.programs.release_two_cost.PLANE_WORK` enclosures, the pattern then
keeping the search's bracket: never a long silence. Only Laplace noise (continuous
densities on the support's faces: a face's supremum over its closure is over the face).

References
----------
W. Feller, *An Introduction to Probability Theory and Its Applications II*, 1971, section
I.2 (densities of linear maps of independent noises). Z. Ding, Y. Wang, Y. Xiao, G.
Wang, D. Zhang and D. Kifer, "Free gap estimates from the exponential mechanism, sparse
vector, noisy max and related algorithms", VLDB Journal 32, 2023 (GapSVT, AdaptiveSVT).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from ..cost import check_seconds
from ..exact.arb import flint_prec
from .release_cells import cells
from .release_crit2d import critical_points
from .release_density import clear_caches
from .release_face import (
    Edge,
    Half,
    Point,
    Region,
    Terms2,
    ball_at,
    cross2,
    edges,
    extremes,
    in_cone,
    leading_along,
    line_frame,
    line_range,
    region,
    restrict,
    to_terms2,
)
from .release_plane import MAX_LINES, Face, Line, normal, plane_cells
from .release_polygon import solid
from .release_select import abs_ball
from .release_sign2d import below_exp, nonnegative, within
from .release_sup import Terms, add, exact_at, prec, zeros
from .release_two_cost import BELOW_WORK, PLANE_WORK, face_seconds, plane_shape
from .runs import Run

#: Directions tried for a face's monotone direction (each with both signs), after its rays.
DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (0, 1), (1, 1), (1, -1))
#: Most term enclosures of one face (AdaptiveSVT c = 2 at 2 answers: at most 290,000;
#: GapSVT c = 2 at 6 answers: more than 400,000): past it the face is undecided, the
#: pattern keeps its bracket and the faces after it give their edges only.
FACE_WORK = 600_000
#: Boxes of one monotone-direction proof (GapSVT c = 2 at 6 answers needs 3000).
PROOF_BOXES = 3000
#: Slices of a strip's monotone-direction proof (AdaptiveSVT c = 2 at 2 answers: one
#: strip face 10.2 s whole, 2.9 s in 16 slices; GapSVT c = 2 at 6 answers: 12.1 s whole,
#: 12.8 s in 4, 16.8 s in 16).
STRIP_SLICES = 4
#: Largest estimated seconds of the plane's cells (each face a density computation).
PLANE_SECONDS = 60.0
def _text(p: tuple[Fraction, Fraction]) -> str:
    return f"({p[0]}, {p[1]})"


def two_candidates(runs_p: Sequence[Run], runs_q: Sequence[Run], label: str, func: str,
                   tools: Any, max_lines: int = MAX_LINES, unsettled: list | None = None,
                   work: int = PLANE_WORK) -> tuple[list[Any], bool, str] | None:
    """The candidates of the pattern's supremum over its two released values, whether
    they settle it (module docstring) and, when not, which face is undecided and why
    (:func:`undecided_text`; else ""), or None when the pattern is not of this shape.
    ``max_lines``: the arrangement's most lines; ``unsettled``: where given, each face not
    settled is appended to it as ``(point, f, g, halves, lam)`` (its closed polygon
    ``halves``, its densities ``f``, ``g``); ``work``: the monotone proofs' term
    enclosures (at most
    :data:`~exactdp.programs.release_two_cost.PLANE_WORK`).

    Raises
    ------
    TooCostly
        The arrangement's faces past :data:`PLANE_SECONDS` (estimated) or its lines past
        :data:`~exactdp.programs.release_plane.MAX_LINES`.
    """
    if not plane_shape(runs_p, runs_q):
        return None
    try:
        return _two(runs_p, runs_q, label, func, tools, max_lines, unsettled, work)
    finally:
        clear_caches()  # entries of polynomial released values: not for rational ones


def _two(runs_p: Sequence[Run], runs_q: Sequence[Run], label: str, func: str, tools: Any,
         max_lines: int, unsettled: list | None, work: int) -> tuple[list[Any], bool, str]:
    """:func:`two_candidates` of a pattern of this shape."""
    holder: dict[str, Any] = {}
    each = face_seconds([*runs_p, *runs_q])

    def compute(u: Any, v: Any) -> tuple[dict, dict]:
        holder["unit"], f = tools.density(list(runs_p), (u, v), func)
        return f, tools.density(list(runs_q), (u, v), func)[1]

    def guard(lines: int) -> None:
        faces = 1 + lines + lines * (lines - 1) // 2
        check_seconds(func, f"the {faces} faces of the two released values of {label}",
                      faces * each, "use fewer answers, or a smaller cut-off c or k where "
                      "the program has one", PLANE_SECONDS)

    _, faces = plane_cells(compute, func, guard=guard, max_lines=max_lines)
    lam = tools.lam(holder["unit"], func)
    memo: dict[Line, list[LinePiece]] = {}

    def on_line(line: Line) -> list[LinePiece]:
        if line not in memo:
            memo[line] = line_density(line, runs_p, runs_q, lam, func, tools)
        return memo[line]

    out: list[Any] = []
    settled, why = True, ""
    # the enclosures made (the proofs stop past PLANE_WORK: a smaller ``work`` starts
    # nearer it), and the current face's limit on them
    spent = [PLANE_WORK - min(work, PLANE_WORK), 0]
    t, spared = tools.top(), [0]  # the loss found before; the proofs' enclosures below it
    with flint_prec(prec()):
        e = None if t is None else below_exp(abs_ball(t))  # 1 <= E < exp(|t|), or None
    for face in faces:
        f, g = to_terms2(face.result, lam)
        if not f and not g:
            continue
        where = f"{label} with the values near {_text(face.point)}"
        if not f or not g:
            return [tools.candidate(None, None, 1 if f else -1, True,
                                    f"{where} (probability 0 under one input only)")], True, ""
        if e is not None and within(f, g, face_halves(face), lam, e, PROOF_BOXES, spared,
                                    BELOW_WORK):
            continue  # |L| below the loss found on the closed face: it cannot change it
        # once a face is undecided the pattern keeps its bracket: the rest, edges only
        spent[1] = min(PLANE_WORK, spent[0] + FACE_WORK) if settled else -1
        found, ok = _face(face, f, g, lam, label, func, tools, spent, on_line)
        out += found
        if settled and not ok:
            why = undecided_text(face, len(faces), spent)
        settled = settled and ok
        if not ok and unsettled is not None:
            unsettled.append((face.point, f, g, face_halves(face), lam))
    return out, settled, why


def undecided_text(face: Face, count: int, spent: list[int]) -> str:
    """Where a pattern's bracket comes from: the undecided face and why.

    The face is named by a point inside it, its vertices and its rays (the directions it
    is unbounded in); the cause is its work cap (:data:`FACE_WORK`, or the pattern's
    :data:`~exactdp.programs.release_two_cost.PLANE_WORK`) spent, else no monotone
    direction proved on it or a far piece, or a critical point or a leading part's zero
    not isolated.

    Parameters
    ----------
    face : Face
        The undecided face of the arrangement.
    count : int
        The arrangement's number of faces.
    spent : list of int
        ``[made, cap]``: the enclosures made so far and the face's cap on them (the cap
        reached when ``made >= cap``).

    Returns
    -------
    str
        One line: ``the face near (u, v) (one of count; vertices ...; unbounded along
        ...) undecided: cause``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from exactdp.programs.release_plane import Face
    >>> face = Face((((F(0), F(1), F(0)), 1), ((F(0), F(0), F(1)), 1)), (F(1), F(1)), None)
    >>> undecided_text(face, 4, [600, 600])[:68]
    'the face near (1, 1) (one of 4; vertices (0, 0); unbounded along (0,'
    """
    hs = [(s * a, s * b, s * c) for (a, b, c), s in face.signs]
    reg = region(hs)
    shape = "" if reg is None else "; vertices " + ", ".join(
        _text(v) for v in sorted(reg.vertices))
    if reg is not None and reg.rays:
        shape += "; unbounded along " + ", ".join(_text(r) for r in sorted(reg.rays))
    cause = (f"its work cap reached ({spent[0]} enclosures of the pattern so far, at most "
             f"{FACE_WORK} a face)" if spent[0] >= spent[1] else
             "no monotone direction proved on it or on a far piece, or a critical point "
             "or a leading part's zero not isolated")
    return f"the face near {_text(face.point)} (one of {count}{shape}) undecided: {cause}"


def face_halves(face: Face) -> list[Half]:
    """The half-planes ``a + b u + c v >= 0`` of a face's edges (its closed polygon).

    Parameters
    ----------
    face : Face
        A face of the arrangement, its lines with the side it lies on (``signs``).

    Returns
    -------
    list of Half
        ``(a, b, c)`` for each line that holds an edge of the face (lines touching it at
        a vertex only, or missing it, are left out), oriented so the face is ``>= 0``.
    """
    sides = edges(face.signs)
    return [(s * a, s * b, s * c) for (a, b, c), s in face.signs
            if any(e.line == (a, b, c) for e in sides)]


def _face(face: Face, f: Terms2, g: Terms2, lam: Fraction, label: str, func: str,
          tools: Any, spent: list[int], on_line: Any) -> tuple[list[Any], bool]:
    """One face's candidates (module docstring), and whether they settle it."""
    sides = edges(face.signs)
    hs = face_halves(face)
    if not cross2(f, g, (Fraction(1), Fraction(0)), lam) and not cross2(
            f, g, (Fraction(0), Fraction(1)), lam):  # a constant ratio on the face
        one, zero = restrict(f, face.point, (Fraction(0), Fraction(0))), restrict(
            g, face.point, (Fraction(0), Fraction(0)))
        pair = (exact_at(one, Fraction(0), lam), exact_at(zero, Fraction(0), lam))
        return [tools.candidate(pair, None, 0, True, f"{label} with the values "
                                f"{_text(face.point)} (a constant ratio on a face)")], True
    out: list[Any] = []
    for e in sides:
        out += _edge(e, f, g, lam, label, func, tools, on_line)
    if spent[1] < 0:
        return out, False
    reg = region(hs)
    bounded = reg is not None and not reg.rays
    d = None if bounded else _monotone(f, g, hs, lam, face.point, spent, STRIP_SLICES)
    if d is None:  # a bounded face: its critical points (cheaper than a direction's proof)
        more = split_face(f, g, hs, face.point, lam, spent, _Split(label, func, tools))
        return (out, False) if more is None else (out + more, True)
    for way in (d, (-d[0], -d[1])):
        if not in_cone(hs, way):
            continue  # the ray leaves the face through an edge
        found = _limits(f, g, hs, way, lam, label, func, tools, way == d)
        if found is None:
            return out, False
        out += found
    return out, True


def _edge(e: Edge, f: Terms2, g: Terms2, lam: Fraction, label: str, func: str,
          tools: Any, on_line: Any) -> list[Any]:
    """An edge's candidates: the one-value problem along it (``t`` its parameter), the face's
    formula continued onto the edge. A value inside the edge (a critical point, a constant
    ratio) is attained only where the densities *on the line itself* (``on_line(line)``:
    :func:`line_density`) are that formula, else approached from the face only: on the
    support's boundary of a strict comparison (``gap > 0``) the densities on the line are
    0, and across a jump (``>=`` of a branch) the line holds the other side's formula."""
    one, two = restrict(f, e.p, e.e), restrict(g, e.p, e.e)
    where = f"{label} on the values {_text(e.p)} + t {_text(e.e)}"
    found = [_t_words(c, "t") for c in tools.cell(one, two, lam, e.lo, e.hi, where, func,
                                                  "all")]
    if not any(c.attained for c in found):
        return found
    parts = [(_tighter(lo, e.lo, -1), _tighter(hi, e.hi, 1), same)
             for lo, hi, fl, gl in on_line(e.line)
             if _overlap(lo, hi, e.lo, e.hi)
             for same in [not add(fl, one, -1) and not add(gl, two, -1)]]
    if all(same for *_, same in parts):
        return found
    if not any(same for *_, same in parts):
        return [_approached(c) for c in found]
    out = []
    for lo, hi, same in parts:  # the edge cut where the line's own densities change
        part = [_t_words(c, "t") for c in tools.cell(one, two, lam, lo, hi, where, func,
                                                     "all")]
        out += part if same else [_approached(c) for c in part]
    return out


def _approached(c: Any) -> Any:
    """An edge value approached from the face only (the line's own densities differ)."""
    if not c.attained:
        return c
    return replace(c, attained=False, witness=c.witness + " (approached from the face: "
                   "the densities on the line itself differ)")


def _tighter(x: Fraction | None, y: Fraction | None, side: int) -> Fraction | None:
    """The tighter of two interval ends (``side`` -1: lower ends, the larger; +1: upper
    ends, the smaller; None infinite)."""
    if x is None or y is None:
        return y if x is None else x
    return max(x, y) if side < 0 else min(x, y)


def _overlap(lo: Fraction | None, hi: Fraction | None, a: Fraction | None,
             b: Fraction | None) -> bool:
    """Whether the open intervals ``(lo, hi)`` and ``(a, b)`` meet (None: infinite)."""
    left, right = _tighter(lo, a, -1), _tighter(hi, b, 1)
    return left is None or right is None or left < right


#: A cell of the densities on a line: ``(lo, hi, f, g)`` in its parameter ``t``.
LinePiece = tuple[Fraction | None, Fraction | None, Terms, Terms]


def line_density(line: Line, runs_p: Sequence[Run], runs_q: Sequence[Run], lam: Fraction,
                 func: str, tools: Any) -> list[LinePiece]:
    """Both inputs' densities on the points ``p + t e`` of ``line`` themselves
    (:func:`~exactdp.programs.release_face.line_frame`), cell by cell in ``t``
    (:func:`~exactdp.programs.release_cells.cells`): the program's own comparisons decided
    on the line (a tie takes the program's branch), not the limits of a neighbouring
    face's formula."""
    p, e = line_frame(line)

    def compute(t: Any) -> tuple[dict, dict]:
        pt = tuple(p[k] if e[k] == 0 else p[k] + e[k] * t for k in (0, 1))
        return (tools.density(list(runs_p), pt, func)[1],
                tools.density(list(runs_q), pt, func)[1])

    return [(c.lo, c.hi, tools.terms(c.result[0], lam), tools.terms(c.result[1], lam))
            for c in cells(compute, func)]


def _t_words(c: Any, name: str) -> Any:
    """A witness of the one-value route read on a line (its value is ``name``); an
    infinite one is approached, not attained (a line has no probability)."""
    w = c.witness.replace("with the value", f"with {name}").replace("as the value",
                                                                    f"as {name}")
    return replace(c, witness=w, at=None, attained=c.attained and not c.infinite)


def _monotone(f: Terms2, g: Terms2, hs: list[Half], lam: Fraction, point: Point,
              spent: list[int], slices: int = 1) -> tuple[Fraction, Fraction] | None:
    """A direction along which ``L`` does not decrease on the closed face (proved), or
    None (also once ``spent[0]``, the enclosures made, passes ``spent[1]``). A strip
    (its rays along one line) is proved slice by slice across it when ``slices`` > 1
    (the boxes of one proof then need not resolve its width while they follow its
    length)."""
    reg = region(hs)
    cuts = _slices(reg, slices)
    rays = list(reg.rays) if reg is not None else []
    points = _samples(reg, point)
    tried: list[Point] = []
    tries: list[tuple[float, int, Point, int, Terms2]] = []
    with flint_prec(prec()):
        fg = [ball_at(f, p, lam) * ball_at(g, p, lam) for p in points]
    for d in [*((Fraction(a), Fraction(b)) for a, b in DIRECTIONS), *rays]:
        if d in tried or (-d[0], -d[1]) in tried:
            continue
        tried.append(d)
        n = cross2(f, g, d, lam)
        with flint_prec(prec()):
            slopes = [ball_at(n, p, lam) / w for p, w in zip(points, fg, strict=True)]
        for sign in (1, -1):
            if any(sign * b < 0 for b in slopes):
                continue  # a screen: N_d takes the other sign inside the face
            # the least slope of L along d at the samples (a heuristic order: the steepest
            # direction first, its proof the likeliest and the cheapest)
            least = min(float((sign * b).mid()) for b in slopes) / float(abs(d[0]) + abs(d[1]))
            tries.append((-least, len(tries), d, sign, n))
    for *_, d, sign, n in sorted(tries, key=lambda t: t[:2]):
        if spent[0] > spent[1]:
            break
        h = n if sign > 0 else {k: {m: -c for m, c in p.items()} for k, p in n.items()}
        if all(nonnegative(h, hs + c, lam, PROOF_BOXES, spent, spent[1]) for c in cuts):
            return d if sign > 0 else (-d[0], -d[1])
    return None


def _slices(reg: Region | None, k: int) -> list[list[Half]]:
    """A strip's ``k`` slices along its rays (each as two more half-planes); else the
    polygon whole."""
    if k < 2 or reg is None or not reg.rays:
        return [[]]
    r = reg.rays[0]
    if any(r[0] * q[1] - r[1] * q[0] for q in reg.rays):
        return [[]]  # a wedge: no bounded width across it
    e = (-r[1], r[0])
    lo, hi = extremes(reg, e, Fraction(0))
    if lo is None or hi is None or lo >= hi:
        return [[]]
    ts = [lo + (hi - lo) * i / k for i in range(k + 1)]
    return [[(-a, e[0], e[1]), (b, -e[0], -e[1])] for a, b in zip(ts, ts[1:], strict=False)]


def _samples(reg: Region | None, point: Point) -> list[Point]:
    """Points inside the face: its own, halfway to each vertex, and far along each ray."""
    if reg is None:
        return [point]
    out = [point] + [((point[0] + v[0]) / 2, (point[1] + v[1]) / 2) for v in reg.vertices]
    return out + [(point[0] + 64 * r[0], point[1] + 64 * r[1]) for r in reg.rays]


def _sign_at(h: Terms2, p: Point, lam: Fraction) -> int:
    """The sign of ``h`` at ``p`` (0: undecided at the working precision)."""
    with flint_prec(prec()):
        b = ball_at(h, p, lam)
    return 1 if b > 0 else -1 if b < 0 else 0


def _limits(f: Terms2, g: Terms2, hs: list[Half], d: tuple[Fraction, Fraction], lam: Fraction,
            label: str, func: str, tools: Any, up: bool) -> list[Any] | None:
    """The candidates of ``sup_s l(s)`` along ``d`` (``up``: ``L`` grows along ``d``; else
    ``-L`` does, and only the candidates' other sign matters; both are returned), or None
    when a leading part has a zero across the face (not settled here)."""
    e = (-d[1], d[0])
    lf, lg = leading_along(f, d, e), leading_along(g, d, e)
    where = f"{label} as the values -> oo along {_text(d)}"
    assert lf is not None and lg is not None
    if (lf[0], lf[1]) != (lg[0], lg[1]):
        bigger = 1 if (lf[0], lf[1]) > (lg[0], lg[1]) else -1
        return [tools.candidate(None, None, bigger, False, where)]
    reg = region(hs)
    if reg is None:
        return None
    ee = e[0] * e[0] + e[1] * e[1]
    lo, hi = extremes(reg, (e[0] / ee, e[1] / ee), Fraction(0))
    if lo is not None and hi is not None and lo >= hi:
        return []  # the face's shadow is a point: no interior direction
    try:
        if zeros(lf[2], lam, lo, hi, "plane") or zeros(lg[2], lam, lo, hi, "plane"):
            return None
    except ValueError:
        return None
    found = tools.cell(lf[2], lg[2], lam, lo, hi, f"{where}, across it", func, "all")
    return [replace(_t_words(c, "s"), attained=False) for c in found]


@dataclass(frozen=True)
class _Split:
    """What :func:`split_face` reports with: the pattern's label, the caller's name, the
    tools."""

    label: str
    func: str
    tools: Any


def split_face(f: Terms2, g: Terms2, hs: list[Half], point: Point, lam: Fraction,
               spent: list[int], how: _Split) -> list[Any] | None:
    """A face's interior candidates where no direction is monotone on the whole face.

    ``L`` constant along a direction (decided exactly): the edges hold every value, and a
    line across a strip. Else the face is cut by the box ``|u|, |v| <= R`` (``R`` past its
    vertices): inside it the isolated critical points
    (:func:`~exactdp.programs.release_crit2d.critical_points`), on the far pieces outside
    it a monotone direction each (its limits, as :func:`_face`), on the box's sides inside
    the face a one-value problem each (their ends lie on the face's edges, counted there).

    Parameters
    ----------
    f, g : Terms2
        The two inputs' densities on the face (exponential polynomials in ``(u, v)``).
    hs : list of Half
        The face's closed polygon (:func:`face_halves`).
    point : Point
        A point inside the face.
    lam : Fraction
        The noise rate of the terms.
    spent : list of int
        ``[made, cap]``: the enclosures made so far (updated) and the cap on them.
    how : _Split
        The pattern's label, the caller's name and the loss's tools (its candidates).

    Returns
    -------
    list of Candidate or None
        The interior's candidates (critical values attained, limits approached); None
        when undecided (the face then keeps the pattern's bracket).
    """
    for d in ((Fraction(a), Fraction(b)) for a, b in DIRECTIONS):
        if not cross2(f, g, d, lam):  # L constant along d: its values are the edges'
            if not (in_cone(hs, d) and in_cone(hs, (-d[0], -d[1]))):
                return []
            return _on_line(f, g, hs, point, (-d[1], d[0]), lam, how)
    reg = region(hs)
    if reg is None:
        return None
    big = max(abs(x) for p in reg.vertices for x in p) + 16 / lam
    z, one = Fraction(0), Fraction(1)
    box = [(big, -one, z), (big, one, z), (big, z, -one), (big, z, one)]
    out: list[Any] = []
    if reg.rays:
        far = [[(-big, one, z)], [(-big, -one, z)], [(-big, z, one), *box[:2]],
               [(-big, z, -one), *box[:2]]]
        for piece in far:
            part = hs + piece
            r = region(part)
            if r is None or not solid([(*v, 1) for v in r.vertices], r.rays):
                continue
            mono = _monotone(f, g, part, lam, _inside(r), spent, STRIP_SLICES)
            if mono is None:
                return None
            for way in (mono, (-mono[0], -mono[1])):
                if in_cone(part, way):
                    found = _limits(f, g, part, way, lam, how.label, how.func, how.tools,
                                    way == mono)
                    if found is None:
                        return None
                    out += found
        for k, h in enumerate(box):  # the sides u = +-R whole, v = +-R for |u| <= R
            p, e = line_frame(normal(*h))
            out += _on_line(f, g, hs + (box[:2] if k > 1 else []), p, e, lam, how)
    crit = critical_points(f, g, hs + box if reg.rays else hs, lam, spent, spent[1])
    if crit is None:
        return None
    for c in crit:
        at = f"({_ball_text(c.u)}, {_ball_text(c.v)})"
        out.append(how.tools.candidate(None, c.value, 0, True, f"{how.label} with the "
                                       f"values at {at} (a critical point of the log "
                                       "density ratio on a face)"))
    return out


def _inside(r: Region) -> Point:
    """A point of a polygon's closure (inside it when it has interior points)."""
    n = len(r.vertices)
    return (sum((p[0] for p in r.vertices), Fraction(0)) / n + sum(d[0] for d in r.rays),
            sum((p[1] for p in r.vertices), Fraction(0)) / n + sum(d[1] for d in r.rays))


def _on_line(f: Terms2, g: Terms2, hs: list[Half], p: Point, e: Point, lam: Fraction,
             how: _Split) -> list[Any]:
    """The one-value problem of ``L`` on the points ``p + t e`` of the face's closure
    ``hs`` (its inside values attained; its ends, on the face's edges, approached)."""
    ok, lo, hi = line_range(hs, p, e)
    if not ok or (lo is not None and hi is not None and lo >= hi):
        return []
    one, two = restrict(f, p, e), restrict(g, p, e)
    where = f"{how.label} on the values {_text(p)} + t {_text(e)}"
    return [_t_words(c, "t") for c in how.tools.cell(one, two, lam, lo, hi, where, how.func,
                                                    "all")]


def _ball_text(x: Any) -> str:
    """A critical point's coordinate, to 12 digits."""
    return f"{float(x.mid()):.12g}"
