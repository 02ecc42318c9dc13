"""A certified sign of an exponential polynomial in two variables on a polygon, unbounded
ones included: ``H >= 0`` on the closure, proved by boxes, or not proved.

``H = sum_k P_k(u, v) exp(lam l_k(u, v))`` (:data:`~exactdp.programs.release_face.Terms2`,
``l_k`` affine). The polygon is cut by boxes (split at 0 first, then bisected; an infinite
side ``[U, oo)`` is cut at ``U + max(|U|, 4/lam)``, so far boxes grow geometrically; the
two axes are cut in turn, breadth first). On one box's part ``R`` of the polygon (a
pointed polygon: its vertices and extreme rays, :func:`~exactdp.programs.release_face.
region`) the sign of ``H`` is that of ``H exp(-lam
l_0)`` for a *pivot* term ``k = 0`` (the term largest far out on ``R``), and

.. math:: H e^{-\\lambda l_0} = \\sum_k P_k(u, v) e^{\\lambda (l_k - l_0)}

is enclosed term by term: ``l_k - l_0`` is affine, so its extremes over ``R`` are exact
(at vertices, or infinite along a ray: then the box is split); a monomial ``u**i`` on an
unbounded side of one sign is bounded by ``(i / (e eta))**i exp(eta |u|)`` for ``eta > 0``
(``x**i exp(-eta x)`` is largest at ``x = i/eta``), ``eta`` half the slowest decay of the
term along the rays, so the bound is again an exponential of an affine function with a
finite supremum. A box whose enclosure is ``>= 0`` is proved; one ``< 0`` (on a part with
interior points) disproves; else it is split, up to a budget. Rigorous: arb balls
(Johansson 2017) of exact rationals; the extremes are exact.

References
----------
R. E. Moore, R. B. Kearfott and M. J. Cloud, *Introduction to Interval Analysis*, SIAM
2009, chapter 6 (range enclosures, subdivision). F. Johansson, "Arb: efficient
arbitrary-precision midpoint-radius interval arithmetic", IEEE Trans. Computers 66(8),
2017.
"""

from __future__ import annotations

import math
from collections import deque
from fractions import Fraction

import flint

from ..exact.arb import flint_prec
from .release_face import Half, Point, Region, Terms2, extremes, region
from .release_sup import prec
from .release_taylor import fraction_ball

#: Most boxes of one proof.
MAX_BOXES = 3000

Box = tuple[Fraction | None, Fraction | None, Fraction | None, Fraction | None]


def _box_halves(b: Box) -> list[Half]:
    one, zero = Fraction(1), Fraction(0)
    out = []
    if b[0] is not None:
        out.append((-b[0], one, zero))
    if b[1] is not None:
        out.append((b[1], -one, zero))
    if b[2] is not None:
        out.append((-b[2], zero, one))
    if b[3] is not None:
        out.append((b[3], zero, -one))
    return out


def _exp_range(lam: Fraction, lo: Fraction | None, hi: Fraction) -> flint.arb:
    """``exp(lam x)`` for ``x`` in ``[lo, hi]`` (``lo`` None: ``-oo``)."""
    top = (fraction_ball(lam) * fraction_ball(hi)).exp()
    if lo is None:
        return flint.arb(top / 2, (top / 2).abs_upper())
    bottom = (fraction_ball(lam) * fraction_ball(lo)).exp()
    return flint.arb((top + bottom) / 2, ((top - bottom) / 2).abs_upper())


def _span(lo: Fraction, hi: Fraction) -> flint.arb:
    a, b = fraction_ball(lo), fraction_ball(hi)
    return flint.arb((a + b) / 2, ((b - a) / 2).abs_upper())


def _monomial(reg: Region, lam: Fraction, delta: tuple[Fraction, Fraction, Fraction],
              i: int, j: int, rng: list[tuple[Fraction | None, Fraction | None]]
              ) -> flint.arb | None:
    """An enclosure of ``u**i v**j exp(lam delta(u, v))`` over the region (None: none
    found on it)."""
    lin, const = (delta[0], delta[1]), delta[2]
    powers, extra = flint.arb(1), [Fraction(0), Fraction(0)]
    sign, unbounded = 1, []
    for x, k in ((0, i), (1, j)):
        lo, hi = rng[x]
        if k == 0:
            continue
        if lo is not None and hi is not None:
            powers *= _span(lo, hi) ** k
            continue
        s = 1 if lo is not None and lo >= 0 else -1 if hi is not None and hi <= 0 else 0
        if s == 0:
            return None
        sign *= s**k
        unbounded.append((x, k, s))
    if unbounded:
        decay = [-(lin[0] * d[0] + lin[1] * d[1]) / (abs(d[0]) + abs(d[1])) for d in reg.rays]
        if not decay or min(decay) <= 0:
            return None
        eta = min(decay) / 2  # in units of lam
        for x, k, s in unbounded:
            extra[x] = s * eta
            c = fraction_ball(Fraction(k)) / (math.e * fraction_ball(eta * lam))
            powers *= c**k
    _, top = extremes(reg, (lin[0] + extra[0], lin[1] + extra[1]), const)
    if top is None:
        return None
    if unbounded:
        m = (fraction_ball(lam) * fraction_ball(top)).exp() * powers
        return flint.arb(sign * m / 2, (m / 2).abs_upper())
    low, high = extremes(reg, lin, const)
    if high is None:
        return None
    return powers * _exp_range(lam, low, high)


def _enclose(h: Terms2, reg: Region, lam: Fraction) -> flint.arb | None:
    """An enclosure of ``h exp(-lam l_0)`` over the region, for the pivot term largest far
    out (None: a term unbounded on it: split the box)."""
    def far(key: tuple[Fraction, Fraction, Fraction]) -> tuple[Fraction, Fraction]:
        slopes = [key[0] * d[0] + key[1] * d[1] for d in reg.rays] or [Fraction(0)]
        at = max(key[0] * p[0] + key[1] * p[1] + key[2] for p in reg.vertices)
        return max(slopes), at

    pivot = max(h, key=far)
    rng = [extremes(reg, (Fraction(1), Fraction(0)), Fraction(0)),
           extremes(reg, (Fraction(0), Fraction(1)), Fraction(0))]
    total = flint.arb(0)
    for key, poly in h.items():
        delta = (key[0] - pivot[0], key[1] - pivot[1], key[2] - pivot[2])
        for (i, j), c in poly.items():
            m = _monomial(reg, lam, delta, i, j, rng)
            if m is None:
                return None
            total += fraction_ball(c) * m
    return total


def _split(b: Box, lam: Fraction, axis: int) -> tuple[Box, Box]:
    """Two halves of a box along ``axis`` (0: ``u``): an infinite side cut geometrically,
    a finite one bisected."""
    lo, hi = b[2 * axis], b[2 * axis + 1]
    step = 4 / lam
    if hi is None:
        assert lo is not None  # boxes keep a finite corner
        cut = lo + max(abs(lo), step)
    elif lo is None:
        cut = hi - max(abs(hi), step)
    else:
        cut = (lo + hi) / 2
    return _with(b, axis, lo, cut), _with(b, axis, cut, hi)


def _with(b: Box, x: int, lo: Fraction | None, hi: Fraction | None) -> Box:
    return (lo, hi, b[2], b[3]) if x == 0 else (b[0], b[1], lo, hi)


def _pmul2(p: dict, q: dict) -> dict:
    out: dict = {}
    for (i, j), c in p.items():
        for (k, m), c2 in q.items():
            out[(i + k, j + m)] = out.get((i + k, j + m), Fraction(0)) + c * c2
    return {k: c for k, c in out.items() if c}


def transform(h: Terms2, p0: Point, r1: Point, r2: Point) -> Terms2:
    """``h(p0 + x r1 + y r2)`` as :data:`Terms2` in ``(x, y)``."""
    lin = [{(0, 0): p0[k], (1, 0): r1[k], (0, 1): r2[k]} for k in (0, 1)]
    lin = [{m: c for m, c in q.items() if c} for q in lin]
    out: Terms2 = {}
    for (a, b, w), poly in h.items():
        key = (a * r1[0] + b * r1[1], a * r2[0] + b * r2[1], w + a * p0[0] + b * p0[1])
        acc: dict = {}
        for (i, j), c in poly.items():
            term: dict = {(0, 0): c}
            for _ in range(i):
                term = _pmul2(term, lin[0])
            for _ in range(j):
                term = _pmul2(term, lin[1])
            for m, x in term.items():
                acc[m] = acc.get(m, Fraction(0)) + x
        acc = {m: c for m, c in acc.items() if c}
        if acc:
            prev = out.get(key, {})
            merged = {m: prev.get(m, Fraction(0)) + acc.get(m, Fraction(0))
                      for m in set(prev) | set(acc)}
            merged = {m: c for m, c in merged.items() if c}
            if merged:
                out[key] = merged
            else:
                out.pop(key, None)
    return out


def frame(hs: list[Half]) -> tuple[Point, Point, Point]:
    """Coordinates adapted to the polygon: a vertex and its two extreme rays (one ray and
    the direction across it; none: the axes), so that boxes cut it along its far parts."""
    reg = region(hs)
    one, zero = Fraction(1), Fraction(0)
    if reg is None or not reg.rays:
        return (zero, zero), (one, zero), (zero, one)
    rays = list(reg.rays)
    r1 = next(r for r in rays if all(r[0] * q[1] - r[1] * q[0] >= 0 for q in rays))
    r2 = next(r for r in rays if all(q[0] * r[1] - q[1] * r[0] >= 0 for q in rays))
    if r1[0] * r2[1] - r1[1] * r2[0] == 0:
        r2 = (-r1[1], r1[0])
    return reg.vertices[0], r1, r2


def nonnegative(h: Terms2, hs: list[Half], lam: Fraction, max_boxes: int = MAX_BOXES,
                spent: list[int] | None = None, limit: int | None = None) -> bool | None:
    """Whether ``h >= 0`` on the closed polygon ``hs``: True (proved), False (disproved:
    ``h < 0`` on a part with interior points), None (undecided within ``max_boxes``, or
    once ``spent[0]``, the term enclosures made, a budget shared by several calls, passes
    ``limit``).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> h = {(F(-1), F(0), F(0)): {(0, 0): F(2)}, (F(-2), F(0), F(0)): {(0, 0): F(-1)}}
    >>> quadrant = [(F(0), F(1), F(0)), (F(0), F(0), F(1))]  # u >= 0, v >= 0
    >>> nonnegative(h, quadrant, F(1))  # 2 e^-u - e^-2u >= 0 for u >= 0
    True
    >>> nonnegative({k: {m: -c for m, c in p.items()} for k, p in h.items()}, quadrant, F(1))
    False
    """
    if not h:
        return True
    p0, r1, r2 = frame(hs)  # the same sign in the polygon's own coordinates
    h = transform(h, p0, r1, r2)
    hs = [(a + b * p0[0] + c * p0[1], b * r1[0] + c * r1[1], b * r2[0] + c * r2[1])
          for a, b, c in hs]
    size = sum(len(p) for p in h.values())
    z = Fraction(0)
    todo: deque[tuple[Box, int]] = deque([((None, z, None, z), 0), ((None, z, z, None), 0),
                                          ((z, None, None, z), 0), ((z, None, z, None), 0)])
    boxes = 0
    with flint_prec(prec()):
        while todo:
            b, axis = todo.popleft()  # the axes cut in turn, breadth first
            boxes += 1
            if spent is not None:
                spent[0] += size
                if limit is not None and spent[0] > limit:
                    return None
            if boxes > max_boxes:
                return None
            reg = region(hs + _box_halves(b))
            if reg is None:
                continue
            enc = _enclose(h, reg, lam)
            if enc is not None and enc >= 0:
                continue
            if enc is not None and enc < 0 and _solid(reg):
                return False
            todo += [(half, 1 - axis) for half in _split(b, lam, axis)]
    return True


def _solid(reg: Region) -> bool:
    """Whether the region has interior points (three vertices not on one line, or a vertex
    and two independent rays, or two vertices and a ray off their line)."""
    pts = list(reg.vertices)
    dirs = [(q[0] - pts[0][0], q[1] - pts[0][1]) for q in pts[1:]] + list(reg.rays)
    return any(a[0] * b[1] - a[1] * b[0] != 0 for i, a in enumerate(dirs) for b in dirs[:i])
