"""Exponential polynomials in two released values on one polygonal face: their exact
algebra (directional derivatives, restrictions to a line, the leading part along a
direction) and the face's geometry (edges, recession cone, the extreme values of an affine
function over a pointed polygon).

A density on a face (:mod:`exactdp.programs.release_plane`) is ``sum_k P_k(u, v) exp(lam
(a_k u + b_k v + w_k))`` with rational ``lam, a_k, b_k, w_k`` and polynomials ``P_k`` with
rational coefficients (:data:`Terms2`). Restricted to a line ``p + t e`` it is a
one-variable exponential polynomial (:data:`~exactdp.programs.release_sup.Terms`), the
input of the one-value route; along a direction ``d`` of the face's recession cone its
leading part as ``t -> oo`` is ``C(s) t**m exp(lam kappa t)``, ``C`` an exponential
polynomial in the transverse coordinate ``s`` (the limit of the log ratio along ``d`` is
``ln C_f(s) / C_g(s)`` when ``(kappa, m)`` agree). Exact: Fractions throughout; two
exponential polynomials are equal exactly when their merged terms are (the ``exp`` of
distinct rationals are linearly independent over the rationals: Lindemann-Weierstrass).

References
----------
A. Baker, *Transcendental Number Theory*, 1975, Theorem 1.4 (Lindemann-Weierstrass).
A. Schrijver, *Theory of Linear and Integer Programming*, 1986, section 8.9 (a linear
function over a pointed polyhedron: its supremum at a vertex, or infinite along an extreme
ray).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint

from .release_plane import Line, UVPoly
from .release_polygon import corners, int_half
from .release_sup import Terms
from .release_taylor import fraction_ball

#: A polynomial in ``(u, v)``: ``(i, j)`` -> the coefficient of ``u**i v**j``.
Poly2 = dict[tuple[int, int], Fraction]
#: ``(a, b, w)`` -> ``P``: ``sum P(u, v) exp(lam (a u + b v + w))``.
Terms2 = dict[tuple[Fraction, Fraction, Fraction], Poly2]
Point = tuple[Fraction, Fraction]

_Z = Fraction(0)


def _put(out: Terms2, key: tuple[Fraction, Fraction, Fraction], p: Poly2) -> None:
    cur = dict(out.get(key, {}))
    for m, c in p.items():
        cur[m] = cur.get(m, _Z) + c
    cur = {m: c for m, c in cur.items() if c}
    if cur:
        out[key] = cur
    else:
        out.pop(key, None)


def terms2(value: dict, lam: Fraction) -> Terms2:
    """A density value ``{(e, W): q}`` (``W``, ``q`` :class:`~exactdp.programs.release_plane.
    UVPoly` or Fractions) as :data:`Terms2`, ``lam**e`` folded into the coefficients.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from exactdp.programs.release_plane import U, V
    >>> terms2({(2, -U / 8 - V / 8 - F(1, 4)): U / 4}, F(1, 2))
    {(Fraction(-1, 8), Fraction(-1, 8), Fraction(-1, 4)): {(1, 0): Fraction(1, 16)}}
    """
    out: Terms2 = {}
    for (e, w), q in value.items():
        w, q = UVPoly.lift(w), UVPoly.lift(q)
        key = (w.c.get((1, 0), _Z), w.c.get((0, 1), _Z), w.c.get((0, 0), _Z))
        _put(out, key, {m: c * lam**e for m, c in q.c.items()})
    return out


def mul2(f: Terms2, g: Terms2) -> Terms2:
    """``f g``."""
    out: Terms2 = {}
    for (a, b, w), p in f.items():
        for (a2, b2, w2), p2 in g.items():
            prod: Poly2 = {}
            for (i, j), c in p.items():
                for (k, m), c2 in p2.items():
                    prod[(i + k, j + m)] = prod.get((i + k, j + m), _Z) + c * c2
            _put(out, (a + a2, b + b2, w + w2), prod)
    return out


def sub2(f: Terms2, g: Terms2) -> Terms2:
    """``f - g``."""
    out = dict(f)
    for k, p in g.items():
        _put(out, k, {m: -c for m, c in p.items()})
    return out


def along(f: Terms2, d: Point, lam: Fraction) -> Terms2:
    """The derivative of ``f`` along ``d``: ``(d . grad P + lam (a d_u + b d_v) P) exp(..)``."""
    out: Terms2 = {}
    for (a, b, w), p in f.items():
        k = lam * (a * d[0] + b * d[1])
        q: Poly2 = {}
        for (i, j), c in p.items():
            q[(i, j)] = q.get((i, j), _Z) + k * c
            if i:
                q[(i - 1, j)] = q.get((i - 1, j), _Z) + i * c * d[0]
            if j:
                q[(i, j - 1)] = q.get((i, j - 1), _Z) + j * c * d[1]
        _put(out, (a, b, w), q)
    return out


def cross2(f: Terms2, g: Terms2, d: Point, lam: Fraction) -> Terms2:
    """``f_d g - f g_d``: the derivative of ``ln f/g`` along ``d``, times ``f g``."""
    return sub2(mul2(along(f, d, lam), g), mul2(f, along(g, d, lam)))


def ball_at(f: Terms2, p: Point, lam: Fraction) -> flint.arb:
    """``f(p)`` as an arb ball at the working precision: each exponent exact, then its
    exponential and the monomials in balls (no polynomial in Fractions is built).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> f = {(F(1), F(-1), F(0)): {(1, 0): F(2)}}  # 2 u exp(u - v)
    >>> ball_at(f, (F(1), F(1)), F(1)).contains(2)
    True
    """
    x, y, lb = fraction_ball(p[0]), fraction_ball(p[1]), fraction_ball(lam)
    total = flint.arb(0)
    for (a, b, w), poly in f.items():
        part = flint.arb(0)
        for (i, j), c in poly.items():
            part += fraction_ball(c) * x**i * y**j
        total += part * (lb * fraction_ball(a * p[0] + b * p[1] + w)).exp()
    return total


def _affine_powers(p0: Fraction, e: Fraction, n: int) -> list[tuple[Fraction, ...]]:
    """The coefficients (in ``t``, low first) of ``(p0 + e t)**k`` for ``k <= n``."""
    out: list[tuple[Fraction, ...]] = [(Fraction(1),)]
    for _ in range(n):
        prev = out[-1]
        nxt = [_Z] * (len(prev) + 1)
        for i, c in enumerate(prev):
            nxt[i] += c * p0
            nxt[i + 1] += c * e
        out.append(tuple(nxt))
    return out


def _pmul(a: tuple[Fraction, ...], b: tuple[Fraction, ...]) -> list[Fraction]:
    out = [_Z] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def restrict(f: Terms2, p: Point, e: Point) -> Terms:
    """``f(p + t e)`` as a one-variable exponential polynomial in ``t``
    (:data:`~exactdp.programs.release_sup.Terms`).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> f = {(F(1), F(-1), F(0)): {(1, 0): F(1)}}  # u exp(u - v)
    >>> restrict(f, (F(1), F(0)), (F(1), F(1)))  # (1 + t) exp(1)
    {(Fraction(0, 1), Fraction(1, 1)): (Fraction(1, 1), Fraction(1, 1))}
    """
    out: dict[tuple[Fraction, Fraction], list[Fraction]] = {}
    for (a, b, w), poly in f.items():
        key = (a * e[0] + b * e[1], a * p[0] + b * p[1] + w)
        n = max(max(i, j) for i, j in poly)
        pu, pv = _affine_powers(p[0], e[0], n), _affine_powers(p[1], e[1], n)
        acc = out.setdefault(key, [])
        for (i, j), c in poly.items():
            for k, x in enumerate(_pmul(pu[i], pv[j])):
                while len(acc) <= k:
                    acc.append(_Z)
                acc[k] += c * x
    res: Terms = {}
    for key, acc in out.items():
        while acc and acc[-1] == 0:
            acc.pop()
        if acc:
            res[key] = tuple(acc)
    return res


def leading_along(f: Terms2, d: Point, e: Point) -> tuple[Fraction, int, Terms] | None:
    """``(kappa, m, C)``: ``f(s e + t d) ~ C(s) t**m exp(lam kappa t)`` as ``t -> oo`` for
    every ``s`` where ``C(s) != 0`` (None: f is 0). ``C`` an exponential polynomial in ``s``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> f = {(F(-1), F(-1), F(0)): {(0, 0): F(2)}, (F(-1), F(0), F(0)): {(0, 1): F(1)}}
    >>> leading_along(f, (F(0), F(1)), (F(1), F(0)))  # 2 e^(-u-v) + v e^(-u) along v
    (Fraction(0, 1), 1, {(Fraction(-1, 1), Fraction(0, 1)): (Fraction(1, 1),)})
    """
    by: dict[tuple[Fraction, int], dict[tuple[Fraction, Fraction], list[Fraction]]] = {}
    for (a, b, w), poly in f.items():
        kappa, ks = a * d[0] + b * d[1], a * e[0] + b * e[1]
        n = max(i + j for i, j in poly)
        # u = s e_u + t d_u, v = s e_v + t d_v: u**i v**j as a polynomial in (s, t)
        for (i, j), c in poly.items():
            for (ds, dt), x in _st_monomial(i, j, d, e, n).items():
                acc = by.setdefault((kappa, dt), {}).setdefault((ks, w), [])
                while len(acc) <= ds:
                    acc.append(_Z)
                acc[ds] += c * x
    for key in sorted(by, reverse=True):
        terms: Terms = {}
        for k, acc in by[key].items():
            while acc and acc[-1] == 0:
                acc.pop()
            if acc:
                terms[k] = tuple(acc)
        if terms:
            return key[0], key[1], terms
    return None


def _st_monomial(i: int, j: int, d: Point, e: Point, n: int) -> dict[tuple[int, int], Fraction]:
    """``u**i v**j`` with ``u = s e_u + t d_u``, ``v = s e_v + t d_v``: ``{(deg s, deg t):
    c}``."""
    def power(x: Fraction, y: Fraction, k: int) -> dict[tuple[int, int], Fraction]:
        out = {(0, 0): Fraction(1)}
        for _ in range(k):
            nxt: dict[tuple[int, int], Fraction] = {}
            for (a, b), c in out.items():
                if x:
                    nxt[(a + 1, b)] = nxt.get((a + 1, b), _Z) + c * x
                if y:
                    nxt[(a, b + 1)] = nxt.get((a, b + 1), _Z) + c * y
            out = nxt
        return out

    pu, pv = power(e[0], d[0], i), power(e[1], d[1], j)
    out: dict[tuple[int, int], Fraction] = {}
    for (a, b), c in pu.items():
        for (a2, b2), c2 in pv.items():
            out[(a + a2, b + b2)] = out.get((a + a2, b + b2), _Z) + c * c2
    return {k: c for k, c in out.items() if c}


# ------------------------------------------------------------------------------- geometry
#: A closed half-plane ``a + b u + c v >= 0``.
Half = tuple[Fraction, Fraction, Fraction]


def halves(signs: tuple[tuple[Line, int], ...]) -> list[Half]:
    """The closed half-planes of a face given by its signs against the lines."""
    return [(s * a, s * b, s * c) for (a, b, c), s in signs]


def _value(h: Half, p: Point) -> Fraction:
    return h[0] + h[1] * p[0] + h[2] * p[1]


@dataclass(frozen=True)
class Edge:
    """The part ``p + t e``, ``t`` in ``[lo, hi]`` (None: infinite), of a line on a face's
    closure (of positive length)."""

    line: Line
    p: Point
    e: Point
    lo: Fraction | None
    hi: Fraction | None


def line_range(hs: list[Half], p: Point, e: Point) -> tuple[bool, Fraction | None, Fraction | None]:
    """The range of ``t`` with ``p + t e`` in every half-plane: ``(nonempty, lo, hi)``."""
    lo: Fraction | None = None
    hi: Fraction | None = None
    for h in hs:
        k, slope = _value(h, p), h[1] * e[0] + h[2] * e[1]
        if slope == 0:
            if k < 0:
                return False, None, None
            continue
        t = -k / slope
        if slope > 0:
            lo = t if lo is None else max(lo, t)
        else:
            hi = t if hi is None else min(hi, t)
    return (lo is None or hi is None or lo <= hi), lo, hi


def line_frame(line: Line) -> tuple[Point, Point]:
    """A point of the line and its direction."""
    a, b, c = line
    if b:
        return (-a / b, _Z), (-c / b, Fraction(1))
    return (_Z, -a / c), (Fraction(1), _Z)


def edges(signs: tuple[tuple[Line, int], ...]) -> list[Edge]:
    """The edges of the face's closure: each line's segment (or ray, or whole line) on it
    of positive length."""
    hs = halves(signs)
    out = []
    for i, (line, _) in enumerate(signs):
        p, e = line_frame(line)
        ok, lo, hi = line_range(hs[:i] + hs[i + 1:], p, e)
        if ok and (lo is None or hi is None or lo < hi):
            out.append(Edge(line, p, e, lo, hi))
    return out


def in_cone(hs: list[Half], d: Point) -> bool:
    """Whether ``d`` is a direction of the region's recession cone."""
    return all(h[1] * d[0] + h[2] * d[1] >= 0 for h in hs)


@dataclass(frozen=True)
class Region:
    """A nonempty pointed polygon: its vertices and its extreme rays."""

    vertices: tuple[Point, ...]
    rays: tuple[Point, ...]


def region(hs: list[Half]) -> Region | None:
    """The vertices and extreme rays (coprime integer directions) of the intersection of
    ``hs`` (:func:`~exactdp.programs.release_polygon.corners`; pointed: a vertex exists when
    nonempty), or None when it is empty or has no vertex (the caller adds the half-planes
    of a box corner)."""
    found = corners([int_half(h) for h in hs])
    if found is None:
        return None
    return Region(tuple(sorted((Fraction(x, w), Fraction(y, w)) for x, y, w in found[0])),
                  tuple((Fraction(a), Fraction(b)) for a, b in found[1]))


def extremes(r: Region, lin: Point, const: Fraction) -> tuple[Fraction | None, Fraction | None]:
    """``(inf, sup)`` of ``const + lin . p`` over the region (None: infinite)."""
    vals = [const + lin[0] * p[0] + lin[1] * p[1] for p in r.vertices]
    slopes = [lin[0] * d[0] + lin[1] * d[1] for d in r.rays]
    lo = None if any(s < 0 for s in slopes) else min(vals)
    hi = None if any(s > 0 for s in slopes) else max(vals)
    return lo, hi


def to_terms2(pair: Any, lam: Fraction) -> tuple[Terms2, Terms2]:
    """A face's result (the two densities' values) as :data:`Terms2`."""
    return terms2(pair[0], lam), terms2(pair[1], lam)
