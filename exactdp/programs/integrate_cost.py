"""The integrator's work on one star, estimated without integrating: its terms and products.

:func:`~exactdp.programs.integrate.run_cost` prices a star by the terms its integrand
reaches. Between two breakpoints each leaf contributes a factor with one to four terms
``q exp(lam rho (s z + o))``, keyed by ``(s, o)`` per rate ``rho``
(:mod:`exactdp.programs.integrate_stars`), and the integrand is their product: its keys
are the sums of one key of each factor. The number of factors' choices is the product of
their sizes (``2**(n - 1)`` for an argmax over ``n`` distinct answers), but sums merge:
on the lattice ``g_s Z x g_o Z`` (``g`` the greatest common divisor of the leaves'
slopes, and of their offsets, per rate) the sums of factors whose keys spread over
``S_s`` and ``S_o`` lie in a box of ``(S_s / g_s + 1) (S_o / g_o + 1)`` points, so with
integer (or commensurable rational) offsets the count is polynomial. Factors with the
same two keys (equal answers) merge further: ``c`` of them take ``c + 1`` sums. So a
piece has at most

.. math:: T = \\min\\Big(\\prod_{\\text{groups}} (c + 1)\\prod_{\\text{others}} |A_i|,\\;
          \\prod_{\\text{rates}} (S_s / g_s + 1)(S_o / g_o + 1)\\Big)

terms, and building it by multiplying the factors one at a time costs ``sum_i |prefix_i|
|A_i|`` products of terms, estimated as ``sum_i |A_i|`` times the box averaged along the
prefix (its spans grow about linearly: ``int_0^1 prod_c (S_c t / g_c + 1) dt``), or
``2 T + sum_i |A_i|`` when the product binds (each factor doubles it). For an argmax over
``n`` consecutive integer answers the count at a piece with ``p`` two-term leaves is
``sum_m (m (p - m) + 1)``, about ``p**3 / 6``, and the box ``(p + 1)(p (p + 1) / 2 + 1)``
over-counts it about 3 times (tested against the terms actually built).

The pieces are swept left to right; each leaf's factor changes only at its own
breakpoints, so a star of ``k`` leaves costs ``O(k log k)`` to estimate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..exact.piecewise_exp import Piece, plus
from .integrate_plan import Bound, Star
from .integrate_stars import Units, active_ends, integer_bound, interval, leaf_cuts

_HALF = Fraction(1, 2)


@dataclass(frozen=True)
class StarWork:
    """The estimated work of integrating one star.

    Attributes
    ----------
    pieces : int
        The intervals between breakpoints the centre is integrated over.
    terms : float
        The integrand's terms summed over the pieces (an upper bound on each piece).
    products : float
        The products of terms made while multiplying the leaves' factors.
    """

    pieces: int
    terms: float
    products: float


@dataclass(frozen=True)
class _Factor:
    """One leaf's factor on one piece: its rate, its keys' count, the segments from its
    first key to the others in lattice steps (``(direction rank, x, y, length)``, the rank
    filled in once every direction is known), and the group it merges with (two keys:
    the segment; else None)."""

    rate: Any
    size: int
    segments: tuple[tuple[int, int, int, int], ...]
    group: tuple | None


def _keys_continuous(law: str, bounds: Sequence[Bound], t: Fraction) -> Piece | None:
    """The leaf's factor near ``t`` at rate 1 (None: its interval is empty there), as
    :func:`~exactdp.programs.integrate_stars.continuous_star` builds it."""
    lo, hi = active_ends(bounds, t)
    if lo is not None and hi is not None and hi.at(t) <= lo.at(t):
        return None
    f: Piece = {(0, 0): 1} if hi is None else _cdf_keys(law, hi, t)
    if lo is not None:
        f = plus(f, _cdf_keys(law, lo, t), -1)
    return f or None


def _one_bound(law: str, b: Bound, lo: Fraction | None, hi: Fraction | None
               ) -> tuple[list[Fraction], list[Piece | None]]:
    """The factors of a Laplace or exponential leaf with one bound of non-zero slope, left
    to right, and the cut between them (where its end crosses 0) when it is inside the
    centre's interval: :func:`_keys_continuous` without evaluating it."""
    below: Piece | None
    if b.lower:  # 1 - F(end)
        below = {(0, 0): 1, (b.slope, b.offset): 1} if law == "laplace" else {(0, 0): 1}
        above: Piece | None = {(-b.slope, -b.offset): 1}
    else:  # F(end)
        below = {(b.slope, b.offset): 1} if law == "laplace" else None
        above = {(0, 0): 1, (-b.slope, -b.offset): 1}
    c = -b.offset / b.slope
    left, right = (below, above) if b.slope > 0 else (above, below)
    if (lo is None or c > lo) and (hi is None or c < hi):
        return [c], [left, right]
    return [], [right if lo is not None and c <= lo else left]


def _cdf_keys(law: str, b: Bound, t: Fraction) -> Piece:
    if b.at(t) < 0:
        return {(b.slope, b.offset): _HALF} if law == "laplace" else {}
    return plus({(0, 0): 1}, {(-b.slope, -b.offset): -_HALF if law == "laplace" else -1})


def _keys_discrete(bounds: Sequence[Bound], t: Fraction) -> Piece | None:
    """The leaf's factor near ``t`` (integer bounds), as
    :func:`~exactdp.programs.integrate_stars.discrete_star` builds it."""
    lo, hi = active_ends(bounds, t)
    if lo is not None and hi is not None and hi.at(t) < lo.at(t):
        return None
    f: Piece = {(0, 0): 1, (0, -1): 1} if hi is None else _g_keys(hi.slope, hi.offset, t)
    if lo is not None:
        f = plus(f, _g_keys(lo.slope, lo.offset - 1, t), -1)
    return f or None


def _g_keys(s: Fraction, o: Fraction, t: Fraction) -> Piece:
    if s * t + o < 0:
        return {(s, o): 1}
    return {(0, 0): 1, (0, -1): 1, (-s, -(o + 1)): -1}


def _gcd(values: list[Fraction]) -> Fraction:
    """The greatest common divisor of non-zero Fractions (1 when there are none)."""
    g = Fraction(0)
    for x in values:
        if x:
            x = abs(x)
            g = x if not g else Fraction(math.gcd(g.numerator * x.denominator,
                                                  x.numerator * g.denominator),
                                         g.denominator * x.denominator)
    return g or Fraction(1)


def _angle(d: tuple) -> float:
    """The angle of the lattice direction ``d`` (scaled first: integers of 300 digits)."""
    m = max(abs(d[0]), abs(d[1])) or 1
    return math.atan2(float(Fraction(d[1]) / m), float(Fraction(d[0]) / m))


def _average(polys: list[tuple[float, float]]) -> float:
    """``int_0^1 prod (a t**2 + b t + 1) dt``: the zonotopes' points averaged along a
    prefix whose segments come in a uniform order (area ``a t**2``, boundary ``b t``)."""
    poly = [1.0]
    for a, b in polys:
        out = [0.0] * (len(poly) + 2)
        for i, c in enumerate(poly):
            out[i] += c
            out[i + 1] += b * c
            out[i + 2] += a * c
        poly = out
    return sum(c / (i + 1) for i, c in enumerate(poly))


def _capped(v: int) -> float:
    """A non-negative count as a float, ``inf`` past ``2**1000`` (no OverflowError)."""
    return float(max(v, 0)) if v < 2 ** 1000 else math.inf


class _Zonotope:
    """The Minkowski sum of lattice segments (one rate), under insertion and removal: its
    area ``sum_{i<j} |det(v_i, v_j)|`` (the segments sorted by direction, so each
    determinant is non-negative: prefix sums of x and y in Fenwick trees) and its half
    perimeter ``sum |v_i|`` in lattice steps; its lattice points number ``area + half
    perimeter + 1`` (Pick's theorem; G. Pick, 1899). Kept in Python integers: a float
    score converted exactly puts segments of hundreds of digits on the lattice."""

    def __init__(self, size: int) -> None:
        self.xs = [0] * (size + 1)
        self.ys = [0] * (size + 1)
        self.tx = self.ty = self.area = self.length = 0

    def _prefix(self, r: int) -> tuple[int, int]:
        x = y = 0
        while r > 0:
            x += self.xs[r]
            y += self.ys[r]
            r -= r & -r
        return x, y

    def _det(self, r: int, x: int, y: int) -> int:
        bx, by = self._prefix(r)  # directions before r
        ax, ay = self._prefix(r + 1)
        ax, ay = self.tx - ax, self.ty - ay  # directions after r
        return (bx * y - by * x) + (x * ay - y * ax)

    def add(self, r: int, x: int, y: int, length: int, sign: int) -> None:
        if sign > 0:
            self.area += self._det(r, x, y)
        i = r + 1
        while i < len(self.xs):
            self.xs[i] += sign * x
            self.ys[i] += sign * y
            i += i & -i
        self.tx += sign * x
        self.ty += sign * y
        self.length += sign * length
        if sign < 0:
            self.area -= self._det(r, x, y)


class _Sweep:
    """The factors of the current piece, summed: sizes, zonotopes per rate, groups."""

    def __init__(self, ranks: int) -> None:
        self.ranks = ranks
        self.empty = 0
        self.size = 0
        self.log_groups = 0.0
        self.groups: dict[tuple, int] = {}
        self.zonotopes: dict[Any, _Zonotope] = {}

    def add(self, f: _Factor | None, sign: int) -> None:
        if f is None:
            self.empty += sign
            return
        self.size += sign * f.size
        z = self.zonotopes.get(f.rate)
        if z is None:
            z = self.zonotopes[f.rate] = _Zonotope(self.ranks)
        for r, x, y, n in f.segments:
            z.add(r, x, y, n, sign)
        if f.group is None:
            self.log_groups += sign * math.log(f.size)
            return
        c = self.groups.get(f.group, 0)
        self.log_groups += math.log(c + sign + 1) - math.log(c + 1)
        self.groups[f.group] = c + sign

    def piece(self) -> tuple[float, float]:
        """The current piece's terms and products (where a leaf's factor is 0 the
        product stops there: no terms, and about half the products)."""
        shapes = [(_capped(z.area), _capped(z.length)) for z in self.zonotopes.values()]
        points = math.prod(a + b + 1 for a, b in shapes)
        if points > 1e300:  # inf: below, ``product`` (at most exp(700)) decides
            points = math.inf
        product = math.exp(min(self.log_groups, 700.0))
        terms = max(1.0, min(product, points))
        if product <= points:
            work = 2 * terms + self.size
        else:
            work = min(self.size * _average(shapes), 2 * product + self.size)
        return (0.0, work / 2) if self.empty else (terms, work)


def star_work(star: Star, laws: Sequence[str], u: Units) -> StarWork:
    """The estimated :class:`StarWork` of a Laplace, exponential or discrete Laplace star
    (module docstring): each leaf's factor on each interval between its own breakpoints,
    then the star's pieces swept left to right.

    Parameters
    ----------
    star : Star
        The star (:mod:`exactdp.programs.integrate_stars`): a centre noise and its leaves'
        bounds.
    laws : sequence of str
        Each noise's law (``"laplace"``, ``"exponential"``, ``"discrete_laplace"``...).
    u : Units
        The noises' rates in common units.

    Returns
    -------
    StarWork
        The estimated number of terms the exact integral of the star produces and the
        work to produce them (0 for an empty star). Estimate / measured CPU was 1.0-2.9
        on noisy max (n = 10-40), SVT1 (c = 1-3) and the discrete AboveThreshold when the
        unit cost was set (CHANGELOG, the programs' integration estimate).
    """
    discrete = star.kind == "discrete"
    leaves = [(v, tuple(integer_bound(b) for b in bs) if discrete else bs)
              for v, bs in star.leaves]
    lo, hi = interval(tuple(integer_bound(b) for b in star.centre_bounds)
                      if discrete else star.centre_bounds)
    if not discrete and laws[star.centre] == "exponential":
        lo = Fraction(0) if lo is None else max(lo, Fraction(0))
    if lo is not None and hi is not None and (lo > hi if discrete else lo >= hi):
        return StarWork(0, 0.0, 0.0)
    lattice: dict[Any, tuple[Fraction, Fraction]] = {}
    for rate in {u.rates[v] for v, _ in leaves}:
        mine = [b for v, bs in leaves if u.rates[v] == rate for b in bs]
        lattice[rate] = (_gcd([b.slope for b in mine]),
                         Fraction(1) if discrete else _gcd([b.offset for b in mine]))
    events: dict[Fraction, list[tuple[int, int]]] = {}
    if (lo is None or lo < 0) and (hi is None or hi > 0):  # the centre's density turns at 0
        events[Fraction(0)] = []
    regimes: list[list[tuple[Any, tuple[int, list] | None]]] = []  # per leaf, left to right
    for i, (v, bounds) in enumerate(leaves):
        if not discrete and len(bounds) == 1 and bounds[0].slope:
            cuts, keyed = _one_bound(laws[v], bounds[0], lo, hi)
        else:
            cuts = sorted(c for c in leaf_cuts([(v, bounds)])
                          if (lo is None or c > lo) and (hi is None or c < hi))
            keyed = [_keys_discrete(bounds, t) if discrete
                     else _keys_continuous(laws[v], bounds, t)
                     for t in _test_points([lo, *cuts, hi])]
        for j, c in enumerate(cuts, 1):
            events.setdefault(c, []).append((i, j))
        regimes.append([(u.rates[v], None if k is None else _segments(k, lattice[u.rates[v]]))
                        for k in keyed])
    directions = sorted({d for r in regimes for _, m in r if m for d, *_ in m[1]},
                        key=_angle)
    rank = {d: k for k, d in enumerate(directions)}

    def factor(i: int, j: int) -> _Factor | None:
        rate, m = regimes[i][j]
        if m is None:
            return None
        size, segs = m
        out = tuple((rank[d], x, y, n) for d, x, y, n in segs)
        group = (rate, segs[0][1], segs[0][2]) if size == 2 else None
        return _Factor(rate, size, out, group)

    sweep = _Sweep(len(directions))
    current = [factor(i, 0) for i in range(len(leaves))]
    for f in current:
        sweep.add(f, 1)
    terms, products = sweep.piece()
    inner = sorted(events)
    for c in inner:
        for i, j in events[c]:
            sweep.add(current[i], -1)
            current[i] = factor(i, j)
            sweep.add(current[i], 1)
        n, p = sweep.piece()
        terms += n
        products += p
    return StarWork(len(inner) + 1, terms, products)


def _segments(keys: Piece, lattice: tuple[Fraction, Fraction]) -> tuple[int, list]:
    """A factor's size and its segments from its smallest key to the others, each as
    ``(primitive direction, x, y, lattice length)`` on the rate's lattice (directions
    with ``x > 0``, or ``x == 0`` and ``y > 0``: a segment and its reverse are translates)."""
    gs, go = lattice
    first, *rest = sorted(keys)
    segs = []
    for s, o in rest:
        x, y = int((s - first[0]) / gs), int((o - first[1]) / go)
        if x < 0 or (x == 0 and y < 0):
            x, y = -x, -y
        n = math.gcd(x, y)
        if n:
            segs.append(((x // n, y // n), x, y, n))
    return len(keys), segs


def _test_points(ends: list[Fraction | None]) -> list[Fraction]:
    """A point inside each piece between consecutive ``ends`` (None: infinite)."""
    out = []
    for a, b in zip(ends[:-1], ends[1:], strict=True):
        if a is None:
            out.append(Fraction(0) if b is None else b - 1)
        else:
            out.append(a + 1 if b is None else (a + b) / 2)
    return out
