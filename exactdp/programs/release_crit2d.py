"""The interior critical points of a face's log density ratio: boxes that exclude them and
Krawczyk's test that isolates each one, its value enclosed.

On a bounded polygon the supremum of ``L = ln f/g`` (``f, g`` positive exponential
polynomials in two variables, :data:`~exactdp.programs.release_face.Terms2`) over its
closure is on an edge or at an interior zero of the gradient of ``L``, that is of

.. math:: F = (N_u, N_v), \\quad N_d = f_d g - f g_d

(``f g > 0``). The polygon's bounding box is bisected; on a box's part of the polygon:

- a component of ``F`` (or ``N_{(1, 1)}``, ``N_{(1, -1)}``) whose enclosure excludes 0: no
  critical point there. The enclosures are mean-value forms ``F(c) + grad F(X) (X - c)``
  (Moore, Kearfott and Cloud, section 6.1), the gradients exact exponential polynomials
  (:func:`~exactdp.programs.release_face.along`) enclosed in arb balls;
- Krawczyk's operator ``K(X) = c - Y F(c) + (I - Y J(X)) (X - c)`` (``Y`` the inverse of
  the Jacobian at the middle) inside the box's interior: exactly one zero of ``F`` in the
  box (Krawczyk 1969; Moore, Kearfott and Cloud, section 8.2), and in ``K(X)``: iterated
  until its radius is below :data:`RADIUS`, then ``L`` on the last box is the critical
  value's enclosure. A zero strictly inside the polygon is a candidate (attained); one
  strictly outside is not the face's; one whose box meets an edge line is undecided.
- else the box is bisected, up to a budget of term enclosures shared with the caller's.

A zero set that is a curve (``L`` constant along a direction) defeats Krawczyk's test: the
caller decides that exactly first (:func:`~exactdp.programs.release_face.cross2` zero).

References
----------
R. Krawczyk, "Newton-Algorithmen zur Bestimmung von Nullstellen mit Fehlerschranken",
Computing 4, 1969. R. E. Moore, R. B. Kearfott and M. J. Cloud, *Introduction to Interval
Analysis*, SIAM 2009, sections 6.1 and 8.2. F. Johansson, "Arb: efficient
arbitrary-precision midpoint-radius interval arithmetic", IEEE Trans. Computers 66(8),
2017.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from fractions import Fraction

import flint

from ..exact.arb import flint_prec
from .release_face import Half, Point, Terms2, along, cross2, region
from .release_sign2d import Compiled, compile_terms, enclose
from .release_sup import prec
from .release_taylor import fraction_ball, interval

#: Most boxes of one face's search.
MAX_CRIT_BOXES = 4000
#: Radius of a critical point's box after Krawczyk's contraction.
RADIUS = Fraction(1, 10**24)
#: Most contractions of one isolated zero.
CONTRACTIONS = 60

_ONE, _ZERO = Fraction(1), Fraction(0)
_DIRS = ((_ONE, _ZERO), (_ZERO, _ONE), (_ONE, _ONE), (_ONE, -_ONE))


@dataclass(frozen=True)
class Critical:
    """An isolated zero of the gradient of ``L`` inside the polygon: a box holding it
    (``u`` and ``v`` balls) and ``L`` there."""

    u: flint.arb
    v: flint.arb
    value: flint.arb


@dataclass(frozen=True)
class _Grad:
    """An exponential polynomial compiled with its two partial derivatives."""

    h: Compiled
    hu: Compiled
    hv: Compiled

    @staticmethod
    def of(h: Terms2, lam: Fraction) -> _Grad:
        return _Grad(compile_terms(h, lam), compile_terms(along(h, _DIRS[0], lam), lam),
                     compile_terms(along(h, _DIRS[1], lam), lam))

    def mean_value(self, x: flint.arb, y: flint.arb, lam: flint.arb) -> flint.arb:
        """The mean-value form on the box: ``h(c) + h_u(X) (x - c_u) + h_v(X) (y - c_v)``."""
        cx, cy = flint.arb(x.mid()), flint.arb(y.mid())
        dx, dy = x - cx, y - cy
        return (enclose(self.h, cx, cy, lam) + enclose(self.hu, x, y, lam) * dx
                + enclose(self.hv, x, y, lam) * dy)

    def size(self) -> int:
        return self.h.size + self.hu.size + self.hv.size


def _box(lo: Point, hi: Point) -> tuple[flint.arb, flint.arb]:
    return interval(lo[0], hi[0]), interval(lo[1], hi[1])


def _krawczyk(fs: tuple[_Grad, _Grad], x: flint.arb, y: flint.arb, lam: flint.arb
              ) -> tuple[flint.arb, flint.arb] | None:
    """``K(X)`` when it lies inside the box's interior (one zero of ``F`` in it), else
    None."""
    cx, cy = flint.arb(x.mid()), flint.arb(y.mid())
    j = [[enclose(g.hu, x, y, lam), enclose(g.hv, x, y, lam)] for g in fs]
    m = [[flint.arb(e.mid()) for e in row] for row in j]
    det = m[0][0] * m[1][1] - m[0][1] * m[1][0]
    if det == 0:
        return None
    inv = [[flint.arb((m[1][1] / det).mid()), flint.arb((-m[0][1] / det).mid())],
           [flint.arb((-m[1][0] / det).mid()), flint.arb((m[0][0] / det).mid())]]
    fc = [enclose(g.h, cx, cy, lam) for g in fs]
    dx, dy = x - cx, y - cy
    out = []
    for r in (0, 1):
        step = inv[r][0] * fc[0] + inv[r][1] * fc[1]
        a = (1 if r == 0 else 0) - inv[r][0] * j[0][0] - inv[r][1] * j[1][0]
        b = (1 if r == 1 else 0) - inv[r][0] * j[0][1] - inv[r][1] * j[1][1]
        out.append((cx if r == 0 else cy) - step + a * dx + b * dy)
    kx, ky = out
    if not (kx.lower() > x.lower() and kx.upper() < x.upper() and ky.lower() > y.lower()
            and ky.upper() < y.upper()):
        return None
    return kx, ky


def _contract(fs: tuple[_Grad, _Grad], x: flint.arb, y: flint.arb, lam: flint.arb
              ) -> tuple[flint.arb, flint.arb] | None:
    """Krawczyk's test, then its iteration until the box's radius is below
    :data:`RADIUS` (None: the test fails on this box)."""
    got = _krawczyk(fs, x, y, lam)
    if got is None:
        return None
    x, y = got
    tiny = fraction_ball(RADIUS)
    for _ in range(CONTRACTIONS):
        if x.rad() < tiny and y.rad() < tiny:
            break
        nxt = _krawczyk(fs, x, y, lam)
        if nxt is None:  # the precision's floor: the box still holds the zero
            break
        x, y = nxt
    return x, y


def _where(hs: list[Half], x: flint.arb, y: flint.arb) -> int:
    """1: the box strictly inside every half-plane; -1: strictly outside one; 0:
    undecided (it meets an edge's line)."""
    out = 1
    for a, b, c in hs:
        s = fraction_ball(a) + fraction_ball(b) * x + fraction_ball(c) * y
        if s < 0:
            return -1
        if not s > 0:
            out = 0
    return out


def critical_points(f: Terms2, g: Terms2, hs: list[Half], lam: Fraction,
                    spent: list[int], limit: int, max_boxes: int = MAX_CRIT_BOXES
                    ) -> list[Critical] | None:
    """Every zero of the gradient of ``ln f/g`` strictly inside the bounded polygon
    ``hs``, isolated, with ``L`` there; None when undecided (an unbounded polygon, a zero
    on an edge's line, a box neither excluded nor isolated within ``max_boxes``, or
    ``spent[0]``, the term enclosures made, past ``limit``).

    Parameters
    ----------
    f : Terms2
        The numerator density, a positive exponential polynomial in ``(u, v)``.
    g : Terms2
        The denominator density, likewise.
    hs : list of Half
        The polygon's half-planes ``(a, b, c)``: ``a + b u + c v >= 0``.
    lam : Fraction
        The noise rate ``lam`` of the exponents.
    spent : list of int
        One counter, ``spent[0]`` the term enclosures made so far; updated in place.
    limit : int
        The most term enclosures ``spent[0]`` may reach (shared with the caller's).
    max_boxes : int, optional
        The most boxes of this search (default :data:`MAX_CRIT_BOXES`).

    Returns
    -------
    list of Critical or None
        Each critical point strictly inside the polygon, its box and ``L`` there (empty
        for an empty polygon), or None when undecided.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> one = {(F(0), F(0), F(0)): {(0, 0): F(1)}}
    >>> bump = {(F(1), F(0), F(0)): {(0, 0): F(1)}, (F(-1), F(0), F(0)): {(0, 0): F(1)},
    ...         (F(0), F(1), F(0)): {(0, 0): F(1)}, (F(0), F(-1), F(0)): {(0, 0): F(1)}}
    >>> square = [(F(1), F(1), F(0)), (F(1), F(-1), F(0)), (F(1), F(0), F(1)),
    ...           (F(1), F(0), F(-1))]  # |u| <= 1, |v| <= 1
    >>> [c] = critical_points(one, bump, square, F(1), [0], 10**6)  # ln 1/(2ch u + 2ch v)
    >>> c.value.overlaps(-flint.arb(4).log()), c.u.contains(0), c.v.contains(0)
    (True, True, True)
    """
    reg = region(hs)
    if reg is None or reg.rays:
        return [] if reg is None else None  # empty: none; unbounded: not this search's
    xs, ys = [p[0] for p in reg.vertices], [p[1] for p in reg.vertices]
    found: list[Critical] = []
    with flint_prec(prec() + 64):
        lam_b = fraction_ball(lam)
        n = (_Grad.of(cross2(f, g, _DIRS[0], lam), lam),
             _Grad.of(cross2(f, g, _DIRS[1], lam), lam))
        extra = [_Grad.of(cross2(f, g, d, lam), lam) for d in _DIRS[2:]]
        fc, gc = compile_terms(f, lam), compile_terms(g, lam)
        size = sum(x.size() for x in (*n, *extra))
        todo = deque([((min(xs), min(ys)), (max(xs), max(ys)))])
        boxes = 0
        while todo:
            lo, hi = todo.popleft()
            boxes += 1
            spent[0] += size
            if boxes > max_boxes or spent[0] > limit:
                return None
            sub = region(hs + [(-lo[0], _ONE, _ZERO), (hi[0], -_ONE, _ZERO),
                               (-lo[1], _ZERO, _ONE), (hi[1], _ZERO, -_ONE)])
            if sub is None:
                continue  # the box misses the polygon
            lo = (min(p[0] for p in sub.vertices), min(p[1] for p in sub.vertices))
            hi = (max(p[0] for p in sub.vertices), max(p[1] for p in sub.vertices))
            x, y = _box(lo, hi)
            if any(not g.mean_value(x, y, lam_b).contains(0) for g in (*n, *extra)):
                continue  # the gradient does not vanish on the box
            got = _contract(n, x, y, lam_b) if lo != hi else None
            if got is not None:
                side = _where(hs, *got)
                if side == 0:
                    return None
                if side > 0:
                    u, v = got
                    found.append(Critical(u, v, (enclose(fc, u, v, lam_b).log()
                                                 - enclose(gc, u, v, lam_b).log())))
                continue
            if lo == hi:
                return None  # a point box the gradient may vanish at
            todo += _halves(lo, hi)
    return found


def _halves(lo: Point, hi: Point) -> list[tuple[Point, Point]]:
    """The box cut across its longer side."""
    if hi[0] - lo[0] >= hi[1] - lo[1]:
        m = (lo[0] + hi[0]) / 2
        return [(lo, (m, hi[1])), ((m, lo[1]), hi)]
    m = (lo[1] + hi[1]) / 2
    return [(lo, (hi[0], m)), ((lo[0], m), hi)]
