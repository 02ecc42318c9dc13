"""The exact probability of one star of a run: the engines of :mod:`exactdp.programs.integrate`.

A star (:class:`~exactdp.programs.integrate_plan.Star`) is a centre draw and leaves whose
bounds are affine in the centre's value; each engine returns a fraction ``num / den`` of
values ``{(e, W): q}`` (``sum q lam**e exp(lam W)``, :mod:`exactdp.exact.piecewise_exp`):

- :func:`continuous_star`: Laplace and exponential draws, the piecewise-exponential integral
  over the centre (the sparse vector's stars through its cached
  :func:`~exactdp.mechanisms.sparse_vector_integral.segment_integral`);
- :func:`discrete_star`: discrete Laplace draws, geometric sums over the centre;
- :func:`gumbel_stars`: Gumbel argmax stars, the softmax ``1 / (1 + sum_j exp(-k_j / b))``
  (with inclusion-exclusion for leaves bounded below).

The formulas and their sources are in :mod:`exactdp.programs.integrate`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import groupby
from typing import Any

import sympy

from ..exact.laurent import (
    LPiece,
    add,
    monomial,
    mul,
    piece_plus,
    piece_power,
    piece_times,
    reduced,
)
from ..exact.laurent import sum_piece as lsum_piece
from ..exact.piecewise_exp import (
    ONE,
    Piece,
    Value,
    integrate_piece,
    plus,
    reduce_fraction,
    sum_piece,
    times,
)
from ..exact.signs import UndecidedSignError
from ..exact.signs import sign as exact_sign
from ..mechanisms.sparse_vector_integral import segment_integral
from .integrate_plan import Bound, Star
from .runs import Run

#: A fraction ``num / den`` of two values.
Frac = tuple[Value, Value]


@dataclass(frozen=True)
class Units:
    """The rates ``1/b`` of a run's draws: Fractions ``t`` (rate ``t * unit``) when they
    are commensurable, else sympy numbers (unit 1)."""

    unit: sympy.Expr
    rates: tuple[Any, ...]
    exact: bool

    def sign(self, r: Any) -> int:
        if self.exact:
            return (r > 0) - (r < 0)
        try:
            return exact_sign(r)
        except UndecidedSignError:
            pass
        for rho in self.rates:  # r / rho has the sign of r (rho > 0), maybe decidable
            try:
                return exact_sign(sympy.cancel(r / rho))
            except UndecidedSignError:
                continue
        raise ValueError(f"run_probability: the sign of the rate {r} is undecided (scales "
                         "that are not rational multiples of one unit)")

    def zero(self) -> Any:
        return Fraction(0) if self.exact else sympy.Integer(0)

    def num(self, f: Fraction) -> Any:
        return f if self.exact else sympy.Rational(f.numerator, f.denominator)


def units(run: Run) -> Units:
    """The run's rates (:class:`Units`), cached by its tuple of scales."""
    return units_of(tuple(sympy.sympify(d.scale) for d in run.draws))


@lru_cache(maxsize=1024)
def units_of(scales: tuple[sympy.Expr, ...]) -> Units:
    """The rates ``1 / b``: Fractions of the unit ``lam`` (the non-rational factor of the
    first rate, ``epsilon`` for ``2/epsilon``; 1 for numbers) when every ratio to it is a
    positive rational, else sympy numbers with unit 1."""
    if not scales:
        return Units(sympy.Integer(1), (), True)
    rate = {b: 1 / b for b in scales}  # each distinct scale once (a run repeats a few)
    coeff, unit = rate[scales[0]].as_coeff_Mul()
    if coeff < 0:
        unit = -unit
    t = {b: sympy.cancel(r / unit) for b, r in rate.items()}
    if all(x.is_Rational and x > 0 for x in t.values()):
        f = {b: Fraction(int(x.p), int(x.q)) for b, x in t.items()}
        return Units(unit, tuple(f[b] for b in scales), True)
    return Units(sympy.Integer(1), tuple(rate[b] for b in scales), False)



# ---------------------------------------------------------------------- continuous stars
def interval(bounds: tuple[Bound, ...]) -> tuple[Fraction | None, Fraction | None]:
    """The interval that constant ``bounds`` leave: the largest lower and the smallest
    upper offset (None: unbounded on that side)."""
    los = [b.offset for b in bounds if b.lower]
    his = [b.offset for b in bounds if not b.lower]
    return (max(los) if los else None), (min(his) if his else None)


def star_cuts(star: Star) -> set[Fraction]:
    """Where a leaf's end crosses 0 or two of its ends cross."""
    return leaf_cuts(star.leaves)


def leaf_cuts(leaves: Iterable[tuple[int, Sequence[Bound]]]) -> set[Fraction]:
    """:func:`star_cuts` of a star given by its leaves (and their bounds)."""
    cuts = {Fraction(0)}
    for _, bounds in leaves:
        for i, b in enumerate(bounds):
            if b.slope:
                cuts.add(-b.offset / b.slope)
            for b2 in bounds[:i]:
                if b2.slope != b.slope:
                    cuts.add((b2.offset - b.offset) / (b.slope - b2.slope))
    return cuts


def _test_points(ends: list[Any]) -> list[Fraction]:
    out = []
    for lo, hi in zip(ends[:-1], ends[1:], strict=True):
        out.append(hi - 1 if lo is None else lo + 1 if hi is None else (lo + hi) / 2)
    return out


def active_ends(bounds: Sequence[Bound], t: Fraction) -> tuple[Bound | None, Bound | None]:
    """The leaf's active ends near ``t``: its largest lower bound and its smallest upper
    bound there (None: unbounded on that side); the caller tests an empty interval.

    Parameters
    ----------
    bounds : sequence of Bound
        The leaf's bounds, lower and upper, each linear in the centre's value ``z``.
    t : Fraction
        The centre's value at which the bounds are compared.

    Returns
    -------
    lo : Bound or None
        The lower bound largest at ``t``, None when there is no lower bound.
    hi : Bound or None
        The upper bound smallest at ``t``, None when there is no upper bound.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from exactdp.programs.integrate_plan import Bound
    >>> bs = [Bound(F(k), F(o), low, False, "f.py:1") for k, o, low in ((1, 0, True),
    ...       (0, 2, True), (0, 5, False))]
    >>> [(b.slope, b.offset) for b in active_ends(bs, F(3))]
    [(Fraction(1, 1), Fraction(0, 1)), (Fraction(0, 1), Fraction(5, 1))]
    """
    lows = [b for b in bounds if b.lower]
    ups = [b for b in bounds if not b.lower]
    lo = max(lows, key=lambda b: b.at(t)) if lows else None
    hi = min(ups, key=lambda b: b.at(t)) if ups else None
    return lo, hi


def _cdf(law: str, rho: Any, b: Bound, t: Fraction, u: Units) -> Piece:
    """The CDF of a leaf of rate ``rho`` at the end ``b`` (a function of z near ``t``)."""
    z = u.zero()
    s, o = u.num(b.slope), u.num(b.offset)
    if b.at(t) < 0:
        return {(rho * s, rho * o): u.num(Fraction(1, 2))} if law == "laplace" else {}
    # plus(): at a constant end 0 (slope and offset 0) both terms have the key (0, 0)
    tail = u.num(Fraction(-1, 2) if law == "laplace" else Fraction(-1))
    return plus({(z, z): u.num(Fraction(1))}, {(-rho * s, -rho * o): tail})


def svt_groups(star: Star, laws: list[str], u: Units
                ) -> tuple[Fraction, tuple[tuple[Fraction, int, int], ...]] | None:
    """The sparse vector's groups ``(s, Trues, Falses)`` of a star that has that shape."""
    if not u.exact or star.centre_bounds or laws[star.centre] != "laplace":
        return None
    rates = {u.rates[v] for v, _ in star.leaves}
    if len(rates) != 1 or any(laws[v] != "laplace" for v, _ in star.leaves):
        return None
    counts: dict[Fraction, list[int]] = {}
    for _, bounds in star.leaves:
        if len(bounds) != 1 or bounds[0].slope != 1:
            return None
        b = bounds[0]  # above: leaf >= z - s (True); below: leaf < z - s (False)
        counts.setdefault(-b.offset, [0, 0])[0 if b.lower else 1] += 1
    (t2,) = rates
    return t2, tuple((s, t, f) for s, (t, f) in sorted(counts.items()))


def continuous_star(star: Star, laws: list[str], u: Units, fast: bool = True) -> Value:
    """``int density_centre(z) prod_leaves P(leaf in its interval | z) dz`` over the
    centre's own interval."""
    rho_c = u.rates[star.centre]
    svt = svt_groups(star, laws, u) if fast else None
    if svt is not None:  # a copy: the cached value is shared
        return dict(segment_integral(rho_c, svt[0], svt[1]))
    lo, hi = interval(star.centre_bounds)
    if laws[star.centre] == "exponential":
        lo = Fraction(0) if lo is None else max(lo, Fraction(0))
    if lo is not None and hi is not None and lo >= hi:
        return {}
    inner = sorted(c for c in star_cuts(star) if (lo is None or c > lo) and (hi is None or c < hi))
    ends: list[Fraction | None] = [lo, *inner, hi]
    out: Value = {}
    z = u.zero()
    for (a, b), t in zip(zip(ends[:-1], ends[1:], strict=True), _test_points(ends), strict=True):
        coef = rho_c / 2 if laws[star.centre] == "laplace" else rho_c
        piece: Piece = {(-rho_c if t > 0 else rho_c, z): coef}
        for leaf, bounds in star.leaves:
            low, up = active_ends(bounds, t)
            if low is not None and up is not None and up.at(t) <= low.at(t):
                piece = {}
                break
            law, rho = laws[leaf], u.rates[leaf]
            f = _cdf(law, rho, up, t, u) if up is not None else {(z, z): u.num(Fraction(1))}
            if low is not None:
                f = plus(f, _cdf(law, rho, low, t, u), -1)
            piece = times(piece, f)
            if not piece:
                break
        if piece:
            integrate_piece(out, piece, None if a is None else u.num(a),
                            None if b is None else u.num(b), 1, u.sign)
    return out


# ---------------------------------------------------------------------- discrete stars
def integer_bound(b: Bound) -> Bound:
    """The same bound on an integer draw, non-strict with an integer offset (the slope is
    an integer, so ``slope * z + offset`` rounds with its offset)."""
    o = b.offset
    if b.lower:
        k = math.floor(o) + 1 if b.strict else math.ceil(o)
    else:
        k = math.ceil(o) - 1 if b.strict else math.floor(o)
    return Bound(b.slope, Fraction(k), b.lower, False, b.line)


def _cut_nonneg(s: Fraction, o: Fraction) -> int | None:
    """The integer where ``s z + o >= 0`` starts or stops holding (None: it never changes)."""
    if s > 0:
        return math.ceil(-o / s)
    if s < 0:
        return math.floor(-o / s) + 1
    return None


def _discrete_segments(star: Star) -> tuple[list, list[int | None], list[int | None]] | None:
    """The leaves with integer bounds and the integer ranges ``start..stop`` of the
    centre on which every leaf's active bounds and signs are fixed (None: the centre's
    range is empty)."""
    cb = tuple(integer_bound(b) for b in star.centre_bounds)
    lo_f, hi_f = interval(cb)
    lo = None if lo_f is None else int(lo_f)
    hi = None if hi_f is None else int(hi_f)
    if lo is not None and hi is not None and lo > hi:
        return None
    leaves = [(v, tuple(integer_bound(b) for b in bs)) for v, bs in star.leaves]
    cuts = {0}
    for _, bounds in leaves:
        for i, b in enumerate(bounds):
            c0 = _cut_nonneg(b.slope, b.offset - 1 if b.lower else b.offset)  # G(L-1), G(U)
            if c0 is not None:
                cuts.add(c0)
            for b2 in bounds[:i]:  # where b - b2 changes sign, and where U - L does
                for d in (Fraction(0), Fraction(-1)):
                    c = _cut_nonneg(b.slope - b2.slope, b.offset - b2.offset + d)
                    if c is not None:
                        cuts.add(c)
    inner = sorted(c for c in cuts if (lo is None or c > lo) and (hi is None or c <= hi))
    starts: list[int | None] = [lo, *inner]  # each piece: the integers start..stop
    stops: list[int | None] = [*(c - 1 for c in inner), hi]
    return leaves, starts, stops


def _test_integer(start: int | None, stop: int | None) -> Fraction:
    return Fraction(start if start is not None else stop if stop is not None else 0)


def discrete_star(star: Star, u: Units) -> Frac:
    """``sum_z P(centre = z) prod_leaves P(leaf in its integer interval | z)``: in lowest
    terms (:func:`discrete_star_laurent`) when the rates are commensurable, else an
    unreduced fraction of sympy-valued pieces."""
    seg = _discrete_segments(star)
    if seg is None:
        return {}, ONE
    leaves, starts, stops = seg
    if u.exact:
        L = math.lcm(*(r.denominator for r in u.rates))
        R = [int(r * L) for r in u.rates]
        keyed = sorted(((R[v], tuple(Bound(b.slope, b.offset, b.lower, False, "") for b in bs))
                        for v, bs in leaves),
                       key=lambda rb: (rb[0], [(b.slope, b.offset, b.lower) for b in rb[1]]))
        n, d = discrete_star_laurent(L, R[star.centre], tuple(starts), tuple(stops),
                                         tuple(keyed))
        return dict(n), dict(d)  # copies: the cached fraction is shared
    z = u.zero()
    one = u.num(Fraction(1))
    rho_c = u.rates[star.centre]
    out: dict[Any, Value] = {}
    for start, stop in zip(starts, stops, strict=True):
        t = _test_integer(start, stop)
        piece: Piece = {(-rho_c if t >= 0 else rho_c, z): one}
        for leaf, bounds in leaves:
            low, up = active_ends(bounds, t)
            if low is not None and up is not None and up.at(t) < low.at(t):
                piece = {}
                break
            rho = u.rates[leaf]
            f: Piece = {(z, z): one, (z, -rho): one}  # (1 + p) G(+oo)
            if up is not None:
                f = _g(rho, up.slope, up.offset, t, u)
            if low is not None:
                f = plus(f, _g(rho, low.slope, low.offset - 1, t, u), -1)
            piece = times(piece, f)
            if not piece:
                break
        if piece:
            sum_piece(out, piece, start, stop, u.sign)
    rs = [r for r in out if r != 0]
    facs = {r: {(0, z): one, (0, r): -one} for r in rs}
    den: Value = dict(ONE)
    for r in rs:
        den = times(den, facs[r])
    num: Value = times(out[0], den) if 0 in out else {}
    for r in rs:
        other: Value = dict(ONE)
        for r2 in rs:
            if r2 != r:
                other = times(other, facs[r2])
        num = plus(num, times(out[r], other))
    # (1 - p_c)/(1 + p_c) for the centre's mass, 1/(1 + p) for each leaf's G
    num = times(num, {(0, z): one, (0, -rho_c): -one})
    for v in (star.centre, *(leaf for leaf, _ in leaves)):
        den = times(den, {(0, z): one, (0, -u.rates[v]): one})
    return num, den


@lru_cache(maxsize=8192)
def discrete_star_laurent(L: int, rc: int, starts: tuple[int | None, ...],
                          stops: tuple[int | None, ...],
                          leaves: tuple[tuple[int, tuple[Bound, ...]], ...]) -> Frac:
    """:func:`discrete_star` for rates ``t lam`` with Fractions ``t``: the same sums in
    integer Laurent polynomials of ``y = exp(lam / L)`` (:mod:`exactdp.exact.laurent`),
    returned in lowest terms; cached by the star's shape (the centre's rate ``rc / L``,
    its integer ranges ``starts..stops``, each leaf's rate and integer bounds in a
    canonical order: stars of neighbouring inputs repeat).

    Parameters
    ----------
    L : int
        The rates' common denominator: ``y = exp(lam / L)``.
    rc : int
        The centre's rate times ``L``.
    starts, stops : tuple of int or None
        The centre's integer pieces ``starts[i]..stops[i]`` (None: infinite).
    leaves : tuple of (int, tuple of Bound)
        Each leaf's rate times ``L`` and its integer, non-strict bounds (lines blank).

    Returns
    -------
    (Value, Value)
        The probability as numerator and denominator in lowest terms (shared: copy them).
    """
    out: LPiece = {}
    groups = [(leaf, len(list(same))) for leaf, same in groupby(leaves)]
    for start, stop in zip(starts, stops, strict=True):
        t = _test_integer(start, stop)
        piece: LPiece = {-rc if t >= 0 else rc: monomial(0)}
        for (r, bounds), k in groups:  # k equal leaves: one factor to the power k
            low, up = active_ends(bounds, t)
            if low is not None and up is not None and up.at(t) < low.at(t):
                piece = {}
                break
            f: LPiece = {0: add(monomial(0), monomial(-r))}  # (1 + p) G(+oo)
            if up is not None:
                f = _g_laurent(r, int(up.slope), int(up.offset), t)
            if low is not None:
                f = piece_plus(f, _g_laurent(r, int(low.slope), int(low.offset) - 1, t), -1)
            piece = piece_times(piece, f if k == 1 else piece_power(f, k))
            if not piece:
                break
        if piece:
            lsum_piece(out, piece, start, stop)
    rs = [r for r in out if r != 0]
    facs = [add(monomial(0), monomial(r), -1) for r in rs]  # sum_R V_R / (1 - y^R)
    before = [monomial(0)]  # products of the factors before / after each one
    for fac in facs:
        before.append(mul(before[-1], fac))
    after = monomial(0)
    den = before[-1]
    num = mul(out[0], den) if 0 in out else monomial(0, 0)
    for i in range(len(rs) - 1, -1, -1):
        num = add(num, mul(out[rs[i]], mul(before[i], after)))
        after = mul(after, facs[i])
    # (1 - p_c)/(1 + p_c) for the centre's mass, 1/(1 + p) for each leaf's G
    num = mul(num, add(monomial(0), monomial(-rc), -1))
    for r in (rc, *(r for r, _ in leaves)):
        den = mul(den, add(monomial(0), monomial(-r)))
    return reduced(num, den, L)


def _g_laurent(r: int, s: int, o: int, t: Fraction) -> LPiece:
    """:func:`_g` in Laurent form (rate ``r`` in units ``lam / L``)."""
    if s * t + o < 0:
        return {r * s: monomial(r * o)}
    return piece_plus({0: add(monomial(0), monomial(-r))}, {-r * s: monomial(-r * (o + 1))},
                      -1)


def _g(rho: Any, s: Fraction, o: Fraction, t: Fraction, u: Units) -> Piece:
    """``(1 + p) G(s z + o)``: ``G`` the discrete Laplace CDF (``p = exp(-rho)``):
    ``p^(-n)`` for ``n < 0``, ``1 + p - p^(n + 1)`` for ``n >= 0``."""
    z, one = u.zero(), u.num(Fraction(1))
    ss, oo = u.num(s), u.num(o)
    if s * t + o < 0:
        return {(rho * ss, rho * oo): one}
    return {(z, z): one, (z, -rho): one, (-rho * ss, -rho * (oo + 1)): -one}


# ---------------------------------------------------------------------- gumbel stars
def gumbel_stars(star: Star, u: Units) -> list[tuple[int, Frac]]:
    """Signed fractions ``1 / (1 + sum_j exp(-k_j rho))`` summing to the star's probability
    (the centre is the argmax; a leaf ``z + kL < leaf < z + kU`` contributes ``F(z + kU) -
    F(z + kL)``, expanded)."""
    rho = u.rates[star.centre]
    z, one = u.zero(), u.num(Fraction(1))
    choices: list[list[tuple[int, Any]]] = []
    for _, bounds in star.leaves:
        kU = min((b.offset for b in bounds if not b.lower), default=None)
        kL = max((b.offset for b in bounds if b.lower), default=None)
        if kU is not None and kL is not None and kU <= kL:
            return []
        opts = [] if kU is None else [(1, -rho * u.num(kU))]
        if kL is not None:
            opts.append((-1, -rho * u.num(kL)))
        if kU is None:
            opts.append((1, None))  # F(+oo) = 1
        choices.append(opts)
    out: list[tuple[int, Frac]] = []

    def walk(i: int, sgn: int, den: Value) -> None:
        if i == len(choices):
            out.append((sgn, ({(0, z): one}, den)))
            return
        for s, w in choices[i]:
            walk(i + 1, sgn * s, den if w is None else plus(den, {(0, w): one}))
    walk(0, 1, {(0, z): one})
    return out


# ---------------------------------------------------------------------- assembly
def frac_sum(parts: list[tuple[int, Frac]]) -> Frac:
    """``sum sign * num / den`` over one common denominator (the product of the distinct
    denominators)."""
    if len(parts) == 1 and parts[0][0] == 1:
        return parts[0][1]
    by_den: dict[tuple, tuple[Value, Value]] = {}
    for sgn, (num, den) in parts:
        key = tuple(sorted(den.items(), key=str))
        n0, _ = by_den.get(key, ({}, den))
        by_den[key] = (plus(n0, num, sgn), den)
    dens = [d for _, d in by_den.values()]
    total_den: Value = dict(ONE)
    for d in dens:
        if d != ONE:
            total_den = times(total_den, d)
    total: Value = {}
    for i, (num, _) in enumerate(by_den.values()):
        other = dict(ONE)
        for j, d in enumerate(dens):
            if j != i and d != ONE:
                other = times(other, d)
        total = plus(total, times(num, other))
    return total, total_den


def star_frac(star: Star, laws: list[str], u: Units, fast: bool) -> Frac:
    """The probability of ``star`` as a fraction in lowest terms (``fast``: the sparse
    vector's stars through :func:`segment_integral`)."""
    if star.kind == "continuous":
        return continuous_star(star, laws, u, fast), ONE
    if star.kind == "discrete":  # in lowest terms already where the rates are Fractions
        return discrete_star(star, u) if u.exact else reduce_fraction(*discrete_star(star, u))
    return reduce_fraction(*frac_sum(gumbel_stars(star, u)))
