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

is enclosed term by term: ``l_k - l_0`` is affine, so its extremes over ``R`` are at
vertices (or infinite along a ray, decided exactly: then the box is split); a monomial
``u**i`` on an unbounded side of one sign is bounded by ``(i / (e eta))**i exp(eta |u|)``
for ``eta > 0`` (``x**i exp(-eta x)`` is largest at ``x = i/eta``), ``eta`` half the
slowest decay of the term along the rays, so the bound is again an exponential of an
affine function with a finite supremum. On a bounded box where that enclosure is not
decisive the mean-value form ``H(c) + H_u(B) (u - c_u) + H_v(B) (v - c_v)`` (``c`` the box's
centre, the derivatives enclosed term by term over the box ``B``) is tried: its width is
second order in the box's size, so large terms with a small sum (a density's terms near
an edge of its face) need far fewer boxes. A box whose enclosure is ``>= 0`` is proved;
one ``< 0`` (on a part with interior points) disproves; else it is split, up to a
budget.

Rigorous and fast: the geometry (the part's vertices and rays, which side of a line a
point is on, the signs of slopes along rays) is exact integer arithmetic (homogeneous
coordinates ``(X, Y, W)``, no Fraction in the loop); the values at the vertices are arb
balls (Johansson 2017) of those exact rationals, and the extremes of an affine function
the largest and least of its balls at the vertices, so every enclosure holds.

References
----------
R. E. Moore, R. B. Kearfott and M. J. Cloud, *Introduction to Interval Analysis*, SIAM
2009, chapter 6 (range enclosures, the mean-value form, subdivision). F. Johansson, "Arb:
efficient arbitrary-precision midpoint-radius interval arithmetic", IEEE Trans. Computers
66(8), 2017.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from fractions import Fraction

import flint

from ..exact.arb import flint_prec
from .release_face import Half, Point, Terms2, along, region, sub2
from .release_polygon import IHalf, IPoint, corners, int_half, solid
from .release_sup import prec
from .release_taylor import fraction_ball

#: Most boxes of one proof.
MAX_BOXES = 3000

Box = tuple[Fraction | None, Fraction | None, Fraction | None, Fraction | None]


def _box_halves(b: Box) -> list[IHalf]:
    out = []
    for k, x in enumerate(b):
        if x is None:
            continue
        s = 1 if k % 2 == 0 else -1  # a lower side: x - lo >= 0; an upper: hi - x >= 0
        n, d = -s * x.numerator, s * x.denominator
        out.append((n, d, 0) if k < 2 else (n, 0, d))
    return out


@dataclass(frozen=True)
class Part:
    """A box's part of the polygon (pointed, nonempty): its vertices, extreme rays, the
    vertices' coordinates as balls, the exact range of each coordinate (None: infinite)
    and its ball where bounded."""

    vertices: tuple[IPoint, ...]
    rays: tuple[tuple[int, int], ...]
    xs: tuple[flint.arb, ...]
    ys: tuple[flint.arb, ...]
    rng: tuple[tuple[Fraction | None, Fraction | None], ...]
    spans: tuple[flint.arb | None, ...]


def part(hs: list[IHalf]) -> Part | None:
    """The part of the polygon ``hs`` (:func:`~exactdp.programs.release_polygon.corners`,
    exact integers) with its coordinates' balls and ranges, or None when it is empty or
    has no vertex."""
    found = corners(hs)
    if found is None:
        return None
    vs, rays = found
    rng, spans = [], []
    for axis in (0, 1):
        vals = [Fraction(p[axis], p[2]) for p in vs]
        lo = None if any(r[axis] < 0 for r in rays) else min(vals)
        hi = None if any(r[axis] > 0 for r in rays) else max(vals)
        rng.append((lo, hi))
        spans.append(_span(lo, hi) if lo is not None and hi is not None else None)
    return Part(vs, rays,
                tuple(flint.arb(flint.fmpq(p[0], p[2])) for p in vs),
                tuple(flint.arb(flint.fmpq(p[1], p[2])) for p in vs),
                tuple(rng), tuple(spans))


def _span(lo: Fraction, hi: Fraction) -> flint.arb:
    a, b = fraction_ball(lo), fraction_ball(hi)
    return flint.arb((a + b) / 2, ((b - a) / 2).abs_upper())


def _exp_between(lam: flint.arb, lo: flint.arb | None, hi: flint.arb) -> flint.arb:
    """``exp(lam x)`` for ``x`` in the hull of the balls ``lo`` and ``hi`` (``lo`` None:
    ``-oo``), ``lam > 0``."""
    top = (lam * hi).exp().upper()
    if lo is None:
        return flint.arb(top / 2, (top / 2).abs_upper())
    bottom = (lam * lo).exp().lower()
    return flint.arb((top + bottom) / 2, ((top - bottom) / 2).abs_upper())


@dataclass(frozen=True)
class Compiled:
    """An exponential polynomial for the box loop, its terms of one exponent slope ``(a,
    b)`` merged: ``sum_k exp(lam (a_k u + b_k v)) Q_k(u, v)`` with ``Q_k``'s coefficients
    the balls ``sum_w c exp(lam w)`` (the constants of the exponents folded in: fewer terms
    to enclose, and their cancellations kept). Per term its slopes as integers over one
    denominator ``den`` (exact ray slopes) and as balls."""

    den: int
    keys: tuple[tuple[int, int], ...]
    balls: tuple[tuple[flint.arb, flint.arb, flint.arb], ...]
    monomials: tuple[tuple[tuple[int, int, flint.arb], ...], ...]
    size: int


def compile_terms(h: Terms2, lam: Fraction) -> Compiled:
    """``h`` as :class:`Compiled` (at the working precision)."""
    den = math.lcm(*(Fraction(x).denominator for key in h for x in key[:2]))
    lb = fraction_ball(lam)
    merged: dict[tuple[int, int], dict[tuple[int, int], flint.arb]] = {}
    for (a, b, w), poly in h.items():
        k = (int(a * den), int(b * den))
        scale = (lb * fraction_ball(w)).exp()
        acc = merged.setdefault(k, {})
        for m, c in poly.items():
            acc[m] = acc.get(m, flint.arb(0)) + fraction_ball(c) * scale
    keys = tuple(merged)
    balls = tuple((fraction_ball(Fraction(a, den)), fraction_ball(Fraction(b, den)),
                   flint.arb(0)) for a, b in keys)
    monos = tuple(tuple((i, j, c) for (i, j), c in merged[k].items()) for k in keys)
    return Compiled(den, keys, balls, monos, sum(len(p) for p in monos))


def _enclose(h: Compiled, reg: Part, lam: Fraction) -> flint.arb | None:
    """An enclosure of ``h exp(-lam l_0)`` over the part, for the pivot term ``l_0``
    largest far out (None: a term unbounded on it: split the box)."""
    values = [[w + a * x + b * y for x, y in zip(reg.xs, reg.ys, strict=True)]
              for a, b, w in h.balls]

    def far(k: int) -> tuple[int, float]:
        slopes = [h.keys[k][0] * d[0] + h.keys[k][1] * d[1] for d in reg.rays] or [0]
        return max(slopes), max(float(v.mid()) for v in values[k])

    pivot = max(range(len(h.keys)), key=far)
    lam_b = fraction_ball(lam)
    total = flint.arb(0)
    for k, monos in enumerate(h.monomials):
        lin = (h.keys[k][0] - h.keys[pivot][0], h.keys[k][1] - h.keys[pivot][1])
        delta = [v - v0 for v, v0 in zip(values[k], values[pivot], strict=True)]
        for i, j, c in monos:
            m = _monomial(reg, lam, lam_b, h, k, pivot, lin, delta, i, j)
            if m is None:
                return None
            total += c * m
    return total


def _monomial(reg: Part, lam: Fraction, lam_b: flint.arb, h: Compiled, k: int, pivot: int,
              lin: tuple[int, int], delta: list[flint.arb], i: int, j: int
              ) -> flint.arb | None:
    """An enclosure of ``u**i v**j exp(lam (l_k - l_pivot))`` over the part (None: none
    found on it); ``lin`` the exponent difference's slopes times ``h.den``, ``delta`` its
    values at the vertices."""
    powers, sign, unbounded = flint.arb(1), 1, []
    for x, e in ((0, i), (1, j)):
        if e == 0:
            continue
        span = reg.spans[x]
        if span is not None:
            powers *= span**e
            continue
        lo, hi = reg.rng[x]
        s = 1 if lo is not None and lo >= 0 else -1 if hi is not None and hi <= 0 else 0
        if s == 0:
            return None
        sign *= s**e
        unbounded.append((x, e, s))
    if not unbounded:
        slopes = [lin[0] * d[0] + lin[1] * d[1] for d in reg.rays]
        if any(s > 0 for s in slopes):
            return None
        low = None if any(s < 0 for s in slopes) else _least(delta)
        return powers * _exp_between(lam_b, low, _most(delta))
    # ``x**e exp(-eta x) <= (e / (e eta))**e`` (largest at ``x = e / eta``): the polynomial
    # factor traded for a share ``eta`` of the slowest decay along the rays
    decay = [Fraction(-(lin[0] * d[0] + lin[1] * d[1]), h.den * (abs(d[0]) + abs(d[1])))
             for d in reg.rays]
    if not decay or min(decay) <= 0:
        return None
    eta = min(decay) / 2  # in units of lam
    extra = [Fraction(0), Fraction(0)]
    for x, e, s in unbounded:
        extra[x] = s * eta
        powers *= (fraction_ball(Fraction(e)) / (math.e * fraction_ball(eta * lam))) ** e
    if any(Fraction(lin[0] * d[0] + lin[1] * d[1], h.den) + extra[0] * d[0] + extra[1] * d[1]
           > 0 for d in reg.rays):
        return None
    e0, e1 = fraction_ball(extra[0]), fraction_ball(extra[1])
    top = _most([v + e0 * x + e1 * y for v, x, y in zip(delta, reg.xs, reg.ys, strict=True)])
    m = (lam_b * top).exp().upper() * powers
    return flint.arb(sign * m / 2, (m / 2).abs_upper())


def _most(balls: list[flint.arb]) -> flint.arb:
    out = balls[0]
    for b in balls[1:]:
        out = out.max(b)
    return out


def _least(balls: list[flint.arb]) -> flint.arb:
    out = balls[0]
    for b in balls[1:]:
        out = out.min(b)
    return out


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
    ihs = [int_half((a + b * p0[0] + c * p0[1], b * r1[0] + c * r1[1],
                     b * r2[0] + c * r2[1])) for a, b, c in hs]
    z = Fraction(0)
    todo: deque[tuple[Box, int]] = deque([((None, z, None, z), 0), ((None, z, z, None), 0),
                                          ((z, None, None, z), 0), ((z, None, z, None), 0)])
    boxes = 0
    with flint_prec(prec()):
        terms = compile_terms(h, lam)
        size = terms.size
        grads: tuple[Compiled, Compiled] | None = None
        while todo:
            b, axis = todo.popleft()  # the axes cut in turn, breadth first
            boxes += 1
            if spent is not None:
                spent[0] += size
                if limit is not None and spent[0] > limit:
                    return None
            if boxes > max_boxes:
                return None
            reg = part(ihs + _box_halves(b))
            if reg is None:
                continue
            enc = _enclose(terms, reg, lam)
            if enc is not None and enc >= 0:
                continue
            if all(x is not None for x in reg.spans) and (enc is None or not enc < 0):
                if grads is None:  # the mean-value form's gradient, compiled once
                    grads = (compile_terms(along(h, (Fraction(1), z), lam), lam),
                             compile_terms(along(h, (z, Fraction(1)), lam), lam))
                if spent is not None:
                    spent[0] += size + grads[0].size + grads[1].size
                enc = _mean_value(terms, grads, reg, lam)
                if enc >= 0:
                    continue
            if enc is not None and enc < 0 and solid(reg.vertices, reg.rays):
                return False
            todo += [(half, 1 - axis) for half in _split(b, lam, axis)]
    return True


def enclose(h: Compiled, x: flint.arb, y: flint.arb, lam: flint.arb) -> flint.arb:
    """``h`` on the box ``x`` times ``y`` (balls), term by term (merged slopes).

    Parameters
    ----------
    h : Compiled
        The exponential polynomial in ``(u, v)``, compiled (merged slopes, ball coefficients).
    x : flint.arb
        The box's ``u`` range, a ball.
    y : flint.arb
        The box's ``v`` range, a ball.
    lam : flint.arb
        The noise rate ``lam``, a ball.

    Returns
    -------
    flint.arb
        A ball enclosing ``h(u, v)`` for every ``u`` in ``x`` and ``v`` in ``y``.
    """
    total = flint.arb(0)
    for (a, b, _), monos in zip(h.balls, h.monomials, strict=True):
        part = flint.arb(0)
        for i, j, c in monos:
            part += c * x**i * y**j
        total += part * (lam * (a * x + b * y)).exp()
    return total


def _mean_value(h: Compiled, grads: tuple[Compiled, Compiled], reg: Part, lam: Fraction
                ) -> flint.arb:
    """The mean-value form of ``h`` over a bounded part's box: ``h(c) + h_x(box) (x - c_x)
    + h_y(box) (y - c_y)``, ``c`` the box's centre (Moore, Kearfott and Cloud, chapter
    6): its width is second order in the box's size where the naive enclosure's is first
    order, so terms that cancel (large terms, a small sum) are resolved with fewer boxes."""
    lb = fraction_ball(lam)
    sx, sy = reg.spans
    assert sx is not None and sy is not None
    cx, cy = flint.arb(sx.mid()), flint.arb(sy.mid())
    return (enclose(h, cx, cy, lb) + enclose(grads[0], sx, sy, lb) * (sx - cx)
            + enclose(grads[1], sx, sy, lb) * (sy - cy))


def below_exp(level: flint.arb) -> Fraction | None:
    """A rational ``E`` with ``1 <= E < exp(level)``, within a relative ``2**-20`` of it.

    Parameters
    ----------
    level : flint.arb
        A ball whose lower end is the level (a loss found).

    Returns
    -------
    Fraction or None
        ``E``; None when the level's lower end is not above 0.

    Examples
    --------
    >>> import flint
    >>> e = below_exp(flint.arb(1) / 4)
    >>> 1 < e < 1.2840254166877414, below_exp(flint.arb(0))
    (True, None)
    """
    with flint_prec(prec()):
        low = level.lower().exp().lower()
        if not low > 1:
            return None
        man, exp = low.mid().man_exp()
    value = Fraction(int(man)) * Fraction(2) ** int(exp)
    return max(Fraction(1), value * Fraction(2**20 - 1, 2**20))


def within(f: Terms2, g: Terms2, hs: list[Half], lam: Fraction, e: Fraction,
           max_boxes: int = MAX_BOXES, spent: list[int] | None = None,
           limit: int | None = None) -> bool:
    """Whether ``|ln f/g| <= ln e`` is proved on the closed polygon ``hs``: ``e g - f >= 0``
    and ``e f - g >= 0`` (:func:`nonnegative`, each).

    Parameters
    ----------
    f, g : Terms2
        Two positive exponential polynomials on the polygon (two inputs' densities).
    hs : list of Half
        The closed polygon, ``a + b u + c v >= 0`` each.
    lam : Fraction
        The rate unit of the terms.
    e : Fraction
        The ratio's bound, at least 1.
    max_boxes, spent, limit
        As :func:`nonnegative` (``spent`` shared by both proofs).

    Returns
    -------
    bool
        True when both proofs hold; False when either is refuted or undecided.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> f = {(F(-1), F(0), F(0)): {(0, 0): F(1)}}  # e^-u
    >>> g = {(F(-1), F(0), F(0)): {(0, 0): F(1)}, (F(-2), F(0), F(0)): {(0, 0): F(1, 2)}}
    >>> quadrant = [(F(0), F(1), F(0)), (F(0), F(0), F(1))]  # g / f in (1, 3/2]
    >>> within(f, g, quadrant, F(1), F(2)), within(f, g, quadrant, F(1), F(5, 4))
    (True, False)
    """
    def scaled(h: Terms2) -> Terms2:
        return {k: {m: c * e for m, c in p.items()} for k, p in h.items()}

    return all(nonnegative(h, hs, lam, max_boxes, spent, limit)
               for h in (sub2(scaled(g), f), sub2(scaled(f), g)))
