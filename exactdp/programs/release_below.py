"""Proving a one-value pattern's log density ratio below a level, by branch and bound in arb.

A pattern releasing one value ``v`` has, on each cell of :mod:`exactdp.programs.release_cells`,
densities ``f, g`` that are exponential polynomials (:data:`~exactdp.programs.release_sup.
Terms`). Its contribution to the privacy loss is ``sup |L|`` with ``L = ln f - ln g`` over
the cells. :mod:`exactdp.programs.release_loss` finds that supremum from the interior zeros
of ``D = f' g - f g'`` (root isolation), which is exact but needs every zero isolated. Where
a loss at least ``level`` is already known (a candidate of another pattern, or the floor of
:meth:`~exactdp.programs.release.ProgramRelease.loss_at_least`), a pattern whose ``sup |L|``
is strictly below ``level`` cannot change the loss, and proving that is cheaper
(:func:`below`):

- on a finite piece ``[x, y]`` inside a cell, the mean value form ``L(m) + L'([x, y]) ([x,
  y] - m)`` with ``L' = f'/f - g'/g`` (Moore, Kearfott and Cloud 2009, section 6.4), or its
  second-order Taylor form (narrower where the terms cancel) encloses ``L``; a piece whose
  enclosure is below ``level`` in absolute value is done, another is bisected; a piece end
  where ``|L|`` is not below ``level`` ends the proof (the pattern may reach it);
- a finite cell end is included where both densities are positive there (their closed forms
  are continuous up to it, so the supremum over the open cell is at most the maximum over
  the closed one); a cell end where a density vanishes is not handled (no proof);
- an infinite side: past ``M`` (:func:`~exactdp.programs.release_sup.tail_start` of ``D``,
  where the leading term of ``D`` provably dominates) ``D`` has no zero, so ``L`` is monotone
  on ``[M, oo)`` and ``|L| <= max(|L(M)|, |lim L|)``; the limit is the ratio of the leading
  terms (exact), infinite when they differ (no proof).

Every comparison is an arb enclosure decided strictly; an undecided one is "not proved", and
the caller then computes the pattern exactly as before. Nothing is ever skipped on a float.

References
----------
R. E. Moore, R. B. Kearfott and M. J. Cloud, *Introduction to Interval Analysis*, SIAM
2009, sections 6.4 (the mean value form) and 8 (branch and bound: a box whose enclosure
cannot reach the level is discarded). F. Johansson, "Arb", IEEE Trans. Computers 66(8),
2017.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

import flint
import sympy

from ..exact import flint_prec, to_arb
from .release_bound import FLOOR
from .release_sup import (
    Terms,
    derivative,
    interval,
    leading_ball,
    negate_v,
    prec,
    tail_start,
    zero_at,
)
from .release_taylor import cached_by_id

#: Bisections allowed per cell before the proof is given up (the caller then computes the
#: pattern's critical points as before). Measured on AdaptiveSVT and SVT34Parallel at 3
#: queries: a pattern 1% below the level takes 20-60.
MAX_PIECES = 400


def _arb(x: Fraction) -> flint.arb:
    return flint.arb(flint.fmpq(x.numerator, x.denominator))


#: ``sum_k Q_k(v) exp(c_k v)``: pairs ``(c_k, coefficients of Q_k, low degree first)``.
Grouped = list[tuple[flint.arb, list[flint.arb]]]


@lru_cache(maxsize=65_536)
def _exp(lp: int, lq: int, wp: int, wq: int, bits: int) -> flint.arb:
    """``exp(lam w)``, ``lam = lp / lq`` and ``w = wp / wq``, at the working precision
    ``bits`` (the cells of a pattern, and its two inputs, share most offsets ``w``; keyed
    on integers: a Fraction's hash is a modular inverse, microseconds a look-up)."""
    return (flint.arb(flint.fmpq(lp, lq)) * flint.arb(flint.fmpq(wp, wq))).exp()


def _grouped(f: Terms, lam: Fraction) -> Grouped:
    """``f`` as ``sum_k Q_k(v) exp(lam k v)``: one polynomial per slope ``k``, its
    coefficients ``sum_w p_w exp(lam w)`` enclosed once. Summing the terms of one slope
    before the box enters keeps their cancellation out of the enclosure's width (the
    interval dependency problem, Moore et al. 2009, section 5)."""
    la, lp, lq, bits = _arb(lam), lam.numerator, lam.denominator, flint.ctx.prec
    groups: dict[tuple[int, int], tuple[Fraction, list[flint.arb]]] = {}
    for (k, w), p in f.items():
        row = groups.setdefault((k.numerator, k.denominator), (k, []))[1]
        row += [flint.arb(0)] * (len(p) - len(row))
        scale = _exp(lp, lq, w.numerator, w.denominator, bits)
        for i, a in enumerate(p):
            row[i] += _arb(a) * scale
    return [(la * _arb(k), row) for k, row in groups.values()]


def _diff(f: Grouped) -> Grouped:
    """The derivative: ``(Q_k' + c_k Q_k) exp(c_k v)``, coefficient by coefficient in arb
    (each an enclosure of the exact one)."""
    return [(c, [(i + 1) * q[i + 1] + c * q[i] if i + 1 < len(q) else c * q[i]
                 for i in range(len(q))]) for c, q in f]


def _value(f: Grouped, v: flint.arb) -> flint.arb:
    """An enclosure of a :func:`_grouped` sum over the ball ``v``."""
    total = flint.arb(0)
    for c, coeffs in f:
        poly = flint.arb(0)
        for a in reversed(coeffs):
            poly = poly * v + a
        total += poly * (c * v).exp()
    return total


class _Fn:
    """One density on a cell with its derivative, grouped by slope (:func:`_grouped`)."""

    def __init__(self, f: Terms, lam: Fraction) -> None:
        rates = {(k.numerator, k.denominator): k for k, _ in f}  # as _grouped's groups
        self._set(_grouped(f, lam), lam, list(rates.values()))
        self.exact = True  # every group nonzero (exact terms)

    def _set(self, f: Grouped, lam: Fraction, rates: list[Fraction]) -> None:
        self.f = f
        self.df = _diff(self.f)
        self.lam = lam
        self.rates = rates  # the groups' order
        self._scaled: dict[int, tuple[Fraction, Grouped, Grouped]] = {}
        self._d2: Grouped | None = None

    def d2(self) -> Grouped:
        """The second derivative, grouped (:func:`_diff` of :attr:`df`), formed once."""
        if self._d2 is None:
            self._d2 = _diff(self.df)
        return self._d2

    @classmethod
    def cross(cls, f: _Fn, g: _Fn) -> _Fn:
        """``D = f' g - f g'`` grouped by slope from the grouped ``f`` and ``g`` (products
        of their polynomials' enclosures: a few dozen slopes, where ``D``'s exact terms
        number thousands); its groups' coefficients enclose :func:`_grouped` of the exact
        ``D``'s (the same sums, ``exp(lam (w1 + w2))`` of equal slope summed)."""
        rows: dict[Fraction, list[flint.arb]] = {}
        for sign, one, two in ((1, f.df, g.f), (-1, f.f, g.df)):
            for k1, (_, p) in zip(f.rates, one, strict=True):
                for k2, (_, q) in zip(g.rates, two, strict=True):
                    row = rows.setdefault(k1 + k2, [])
                    row += [flint.arb(0)] * (len(p) + len(q) - 1 - len(row))
                    for i, a in enumerate(p):
                        for j, b in enumerate(q):
                            row[i + j] += a * b if sign > 0 else -(a * b)
        out = cls.__new__(cls)
        la = _arb(f.lam)
        out._set([(la * _arb(k), row) for k, row in rows.items()], f.lam, list(rows))
        out.exact = False
        return out

    def nonzero(self) -> bool:
        """Whether a coefficient is proved nonzero (then the function is not identically
        0: the ``v**i exp(c v)`` of distinct ``(c, i)`` are linearly independent)."""
        return any(a > 0 or a < 0 for _, row in self.f for a in row)

    def scaled(self, side: int) -> tuple[Fraction, Grouped, Grouped]:
        """``(k*, h, h')`` with ``f(v) = exp(lam k* v) h(v)``, ``k*`` the largest rate
        (``side`` +1) or the smallest (-1): ``h``'s slopes ``lam (k - k*)`` are exact
        rationals, at most 0 (at least 0), so on a far piece of the right (left) side its
        terms other than ``k*``'s are small and its enclosure stays narrow however wide
        the piece, where ``exp(lam k v)`` over the piece spans many orders of magnitude."""
        if side not in self._scaled:  # of :meth:`cross`: a group proved nonzero
            live = [k for k, (_, row) in zip(self.rates, self.f, strict=True)
                    if self.exact or any(a > 0 or a < 0 for a in row)] or self.rates
            k0 = max(live) if side > 0 else min(live)
            h = [(_arb(self.lam * (k - k0)), row)
                 for k, (_, row) in zip(self.rates, self.f, strict=True)]
            self._scaled[side] = (k0, h, _diff(h))
        return self._scaled[side]

    def at(self, v: flint.arb) -> flint.arb:
        return _value(self.f, v)

    def over(self, box: flint.arb, m: flint.arb) -> tuple[flint.arb, flint.arb, flint.arb]:
        """The density at the centre ``m`` of ``box``, and enclosures of the density and
        its derivative over ``box``: the mean value form ``f(m) + f'(box) (box - m)``
        (Moore et al. 2009, section 6.4) and the direct one."""
        at, slope = _value(self.f, m), _value(self.df, box)
        return at, at + slope * (box - m), slope


#: :class:`_Fn` by the ``id`` of the terms (:func:`~exactdp.programs.release_taylor.
#: cached_by_id`): :func:`ends_level` and then :func:`below` read one pattern's cells.
_FNS: dict[tuple, tuple] = {}


def _fn(f: Terms, lam: Fraction) -> _Fn:
    return cached_by_id(_FNS, f, lam, lambda: [_Fn(f, lam)])[0]


def ends_level(pieces: Sequence[tuple[Any, ...]]) -> flint.arb | None:
    """A certified lower bound on a one-value pattern's ``sup |L|``: the largest ``|L|``
    at a finite cell end where both densities are proved positive (the limit of ``L``
    from inside the cell, continuous there, so a value its supremum reaches), as a ball;
    None where there is none. ``pieces`` as for :func:`below`.

    Parameters
    ----------
    pieces : sequence of tuples
        The pattern's cells ``(f, g, lam, lo, hi, d)``, as for :func:`below` (``lo``,
        ``hi``: the cell's ends, None where infinite).

    Returns
    -------
    flint.arb or None
        An enclosure of the largest ``|L|`` at a finite cell end with both densities
        positive, or None when no such end exists.

    Examples
    --------
    On ``(0, 1)``, ``L = ln((e^v + 2) / (e^v + 1))`` is largest at ``v = 0``,
    ``ln(3/2) = 0.405...``:

    >>> from fractions import Fraction as F
    >>> from exactdp.programs.release_below import ends_level
    >>> f = {(F(1), F(0)): (F(1),), (F(0), F(0)): (F(2),)}
    >>> g = {(F(1), F(0)): (F(1),), (F(0), F(0)): (F(1),)}
    >>> round(float(ends_level([(f, g, F(1), F(0), F(1), {})]).mid()), 6)
    0.405465
    """
    best = None
    with flint_prec(prec()):
        for f, g, lam, lo, hi, _ in pieces:
            if not (f and g):
                continue
            fn, gn = _fn(f, lam), _fn(g, lam)
            for end in (lo, hi):
                at = None if end is None else _point(fn, gn, end)
                if at is not None and (best is None or at.lower() > best.lower()):
                    best = at
    return best


def constant_ratio(f: Terms, g: Terms, lam: Fraction, exact: Callable[[], Terms]) -> bool:
    """Whether ``f / g`` is constant on the cell (``D = f' g - f g'`` identically 0): False
    where a coefficient of ``D`` enclosed from ``f`` and ``g`` is proved nonzero, else
    whether ``exact()``, the exact ``D``, is empty.

    Parameters
    ----------
    f, g : Terms
        The two inputs' densities on the cell (exponential polynomials).
    lam : Fraction
        The rate unit of the terms.
    exact : callable returning Terms
        Computes the exact ``D``; called only where the enclosures prove no coefficient
        nonzero.

    Returns
    -------
    bool
        True when ``f / g`` is proved constant on the cell, else False.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from exactdp.programs.release_below import constant_ratio
    >>> g = {(F(1), F(0)): (F(1),), (F(0), F(0)): (F(1),)}
    >>> constant_ratio({(F(1), F(0)): (F(2),), (F(0), F(0)): (F(2),)}, g, F(1), dict)
    True
    >>> constant_ratio({(F(1), F(0)): (F(1),)}, g, F(1), dict)
    False
    """
    with flint_prec(prec()):
        return not _Fn.cross(_fn(f, lam), _fn(g, lam)).nonzero() and not exact()


def _signed(f: _Fn, g: _Fn, x: Fraction) -> flint.arb | None:
    """``L(x)`` as a ball (None: a density not proved positive at ``x``)."""
    q = _arb(x)
    fx, gx = f.at(q), g.at(q)
    if not (fx > 0 and gx > 0):
        return None
    return fx.log() - gx.log()


def _point(f: _Fn, g: _Fn, x: Fraction) -> flint.arb | None:
    """``|L(x)|`` as a ball (None: a density not proved positive at ``x``)."""
    v = _signed(f, g, x)
    return None if v is None else abs(v)


def _piece(f: _Fn, g: _Fn, x: Fraction, y: Fraction) -> flint.arb | None:
    """An enclosure of ``|L|`` over ``[x, y]``: the narrower of the mean value form ``L(m)
    + L'([x, y]) ([x, y] - m)``, ``L' = f'/f - g'/g``, and :func:`_taylor_piece` (None: a
    density's enclosure over the piece contains 0 in both)."""
    box, m = interval(x, y), _arb((x + y) / 2)
    (fm, fb, dfb), (gm, gb, dgb) = f.over(box, m), g.over(box, m)
    if not (fm > 0 and gm > 0):
        return None
    second = _taylor_piece(f, g, box, m, ((fm, fb, dfb), (gm, gb, dgb)))
    if not (fb > 0 and gb > 0):
        return second
    first = abs(fm.log() - gm.log() + (dfb / fb - dgb / gb) * (box - m))
    return first if second is None or first.upper() < second.upper() else second


def _taylor_piece(f: _Fn, g: _Fn, box: flint.arb, m: flint.arb, firsts: tuple
                  ) -> flint.arb | None:
    """``|L|`` over ``box`` by the second-order Taylor form ``L(m) + L'(m) t + L''(box)
    t**2 / 2``, ``t = box - m`` (Lagrange's remainder; Moore et al. 2009, section 6.4 one
    order up), ``L'' = f''/f - (f'/f)**2 - g''/g + (g'/g)**2``, each density and its
    derivatives enclosed over ``box`` by their own Taylor forms: where the terms of ``f``
    cancel (hundreds of terms, a sum thousands of times smaller), ``f'``'s enclosure over
    ``box`` is that many times too wide, which the first-order form multiplies by the width
    of ``box`` and this form by its square. None: a density not proved positive.
    ``firsts``: per density, :meth:`_Fn.over`'s value at ``m`` and enclosures."""
    t = box - m
    parts = []
    for h, (hm, hb, dhb) in zip((f, g), firsts, strict=True):
        d2b = _value(h.d2(), box)
        dhm = _value(h.df, m)
        alt = dhm + d2b * t
        dhb = alt if alt.rad() < dhb.rad() else dhb
        hb = _narrow(hb, hm + dhm * t + d2b * t * t / 2)
        if not hb > 0:
            return None
        parts.append((hm, dhm, hb, dhb, d2b))
    (fm, dfm, fb, dfb, d2f), (gm, dgm, gb, dgb, d2g) = parts
    slope = dfm / fm - dgm / gm
    rf, rg = dfb / fb, dgb / gb  # squared as products: arb's ** gives nan about 0
    curve = d2f / fb - rf * rf - d2g / gb + rg * rg
    return abs(fm.log() - gm.log() + slope * t + curve * t * t / 2)


def _scaled_piece(f: _Fn, g: _Fn, x: Fraction, y: Fraction, side: int
                  ) -> flint.arb | None:
    """:func:`_piece` with each density written ``exp(lam k* v) h(v)`` (:meth:`_Fn.scaled`):
    ``L = lam (k*_f - k*_g) v + ln h_f - ln h_g`` and ``L' = lam (k*_f - k*_g) + h_f'/h_f -
    h_g'/h_g``, the same functions, enclosed by the same mean value form; narrow on far
    pieces of the side ``side`` (None: an ``h``'s enclosure over the piece contains 0)."""
    box = interval(x, y)
    m = _arb((x + y) / 2)
    kf, hf, dhf = f.scaled(side)
    kg, hg, dhg = g.scaled(side)
    fm, gm = _value(hf, m), _value(hg, m)
    dfb, dgb = _value(dhf, box), _value(dhg, box)
    fb, gb = _narrow(_value(hf, box), fm + dfb * (box - m)), _narrow(
        _value(hg, box), gm + dgb * (box - m))
    if not (fb > 0 and gb > 0 and fm > 0 and gm > 0):
        return None
    rate = _arb(f.lam * (kf - kg))
    centred = abs(rate * m + fm.log() - gm.log() + (rate + dfb / fb - dgb / gb) * (box - m))
    direct = abs(rate * box + fb.log() - gb.log())  # narrow far out when the rates agree
    return centred if centred.upper() < direct.upper() else direct


def _narrow(a: flint.arb, b: flint.arb) -> flint.arb:
    """The better of two enclosures of one quantity for a positivity test: one proved
    positive, else the narrower."""
    if a > 0 or b > 0:
        return a if a > 0 else b
    return a if a.rad() < b.rad() else b


def _limit(f: Terms, g: Terms, lam: Fraction) -> flint.arb | None:
    """``|lim L|`` as ``v -> +oo`` (None: infinite, the leading terms differ in order)."""
    lf, lg = leading_ball(f, lam), leading_ball(g, lam)
    if lf is None or lg is None or (lf[0], lf[1]) != (lg[0], lg[1]):
        return None
    return abs(lf[2].log() - lg[2].log())


def _tail(f: Terms, g: Terms, d: Terms, lam: Fraction) -> Fraction | None:
    """``M`` with no zero of ``f``, ``g`` or ``D`` on ``[M, oo)`` (each one's leading term
    dominates there, :func:`~exactdp.programs.release_sup.zeros`' tail argument), so ``L`` is
    finite and monotone there; None where no such ``M`` is found."""
    try:
        return max(tail_start(h, lam) for h in (f, g, d))
    except ValueError:
        return None


def _far(f: _Fn, g: _Fn, start: Fraction, cap: flint.arb) -> Fraction | None:
    """``M >= start`` with ``|L| < cap`` proved on all of ``[M, oo)`` at once (None: not
    found, up to ``2**20`` times ``start``): where both densities lead with one slope ``k*``
    and a constant ``c`` (``f = exp(lam k* v) (c + r(v))``), past ``M >= max(1, e /
    delta)`` each other slope's term ``|Q_k(v)| exp(-delta v) <= S_k v**e exp(-delta v)``
    (``delta = lam (k* - k)``, ``e`` its degree, ``S_k`` its coefficients' absolute sum)
    decreases, so ``|r(v)| <= E(M) = sum_k S_k M**e exp(-delta M)`` and ``L = ln(c_f +
    r_f) - ln(c_g + r_g)`` lies in the ball from ``c +- E(M)`` (no zero of ``D`` needed:
    :func:`_tail`'s route takes the exact ``D``)."""
    parts = []
    for h in (f, g):
        k0 = max(h.rates)
        top = h.f[h.rates.index(k0)][1]
        if len(top) != 1 or not top[0] > 0:
            return None
        rest = [(h.lam * (k0 - k), len(row) - 1, sum((abs(a) for a in row), flint.arb(0)))
                for k, (_, row) in zip(h.rates, h.f, strict=True) if k != k0]
        parts.append((k0, top[0], rest))
    if parts[0][0] != parts[1][0]:
        return None  # the ratio tends to 0 or oo
    m = max([start, *(Fraction(e) / delta for _, _, rest in parts for delta, e, _ in rest)])
    unit = flint.arb(0, 1)
    for _ in range(20):
        q = _arb(m)
        hs = [c + unit * sum((size * q**e * (-_arb(delta) * q).exp() for delta, e, size in rest),
                             flint.arb(0)) for _, c, rest in parts]
        if hs[0] > 0 and hs[1] > 0 and abs(hs[0].log() - hs[1].log()) < cap:
            return m
        m *= 2
    return None


def _order(exact: Callable[[], Terms], lam: Fraction, at: Fraction, dn: _Fn) -> _Fn | None:
    """``D^(m)`` grouped, ``m`` the order of the zero of ``D`` at the cell end ``at``
    (``m = 0`` where ``D(at)``'s enclosure excludes 0: ``dn``; else exact,
    :func:`~exactdp.programs.release_sup.zeros`' test on ``exact()``); None past 8
    derivatives."""
    if 0 not in dn.at(_arb(at)):
        return dn
    d = exact()
    for m in range(8):
        if not d or not zero_at(d, at, lam):
            return None if not d else dn if m == 0 else _Fn(d, lam)
        d = derivative(d, lam)
    return None


def _monotone(dm: _Fn | None, x: Fraction, y: Fraction) -> bool:
    """Whether ``L`` is proved monotone on ``[x, y]``, a piece at a cell end where ``D = f'
    g - f g'`` vanishes to order ``m`` (``dm`` its ``m``-th derivative): where ``D^(m)``
    is nonzero on the piece, so is ``D`` off the end (Taylor: ``D(v) = D^(m)(t) (v -
    end)**m / m!`` for some ``t`` in the piece), and ``L' = D / (f g)`` keeps one sign."""
    if dm is None:
        return False
    return 0 not in dm.over(interval(x, y), _arb((x + y) / 2))[1]


def _no_zero(dn: _Fn, x: Fraction, y: Fraction, side: int) -> bool:
    """Whether ``D = f' g - f g'`` is proved nonzero on ``[x, y]`` (its mean value form,
    and on a far piece of the side ``side`` its scaled one, :meth:`_Fn.scaled`: ``D``'s
    sign is ``h_D``'s). Then ``L`` is monotone there, so ``|L|`` is at most its values at
    the piece's ends: ``L' = D / (f g)``, both densities are proved positive at the ends
    (a cell's finite end by :func:`_own`, a split point or a tail's start by
    :func:`_point`), and none vanishes inside (at an interior zero of a nonnegative
    ``f``, ``f' = 0`` too, so ``D = 0`` there)."""
    box, m = interval(x, y), _arb((x + y) / 2)
    if 0 not in dn.over(box, m)[1]:
        return True
    if not side or y - x <= 1:
        return False
    _, h, dh = dn.scaled(side)
    return 0 not in _value(h, box) or 0 not in _value(h, m) + _value(dh, box) * (box - m)


def _cell_below(f: Terms, g: Terms, d: Callable[[], Terms], lam: Fraction,
                lo: Fraction | None, hi: Fraction | None, fn: _Fn, gn: _Fn, dn: _Fn,
                cap: flint.arb) -> bool:
    """Whether ``|L| < cap`` on the cell ``(lo, hi)`` is proved, except near its finite
    ends, where ``L`` may instead be proved monotone up to the end (its limit there is a
    candidate of the pattern already: module docstring). ``d()``: the exact ``D``, asked
    for an infinite end and a zero of ``dn``'s enclosure at a finite one only."""
    orders: dict[Fraction, _Fn | None] = {}  # D^(m) at a cell end, when first needed

    def monotone(end: Fraction, x: Fraction, y: Fraction) -> bool:
        if end not in orders:
            orders[end] = _order(d, lam, end, dn)
        return _monotone(orders[end], x, y)

    a, b = lo, hi
    if b is None:
        m = _far(fn, gn, Fraction(1) if a is None else max(a, Fraction(1)), cap)
        m = _tail(f, g, d(), lam) if m is None else m
        if m is None:
            return False
        b = m if a is None or m > a else a + 1
    if a is None:
        m = _tail(negate_v(f), negate_v(g), negate_v(d()), lam)
        if m is None:
            return False
        a = -m if -m < b else b - 1
    for end, own in ((a, lo), (b, hi)):  # a tail's start: below the cap
        at = _point(fn, gn, end)
        if own is None and (at is None or not at < cap):
            return False
    todo = [(a, b)]
    steps = 0
    while todo:
        x, y = todo.pop()
        enc = _piece(fn, gn, x, y)
        if enc is not None and enc < cap:
            continue
        side = 1 if x >= 0 else -1 if y <= 0 else 0  # a far piece: the scaled form
        enc = _scaled_piece(fn, gn, x, y, side) if side and y - x > 1 else None
        if enc is not None and enc < cap:
            continue
        if (x == lo and monotone(x, x, y)) or (y == hi and monotone(y, x, y)) or _no_zero(
                dn, x, y, side):
            continue  # |L| at most its values at the piece's ends: the cell end's limit (a
            # candidate), and a split point or a tail's start (below the cap)
        steps += 1
        if steps > MAX_PIECES:
            return False
        mid = x + (y - x) * Fraction(89, 179)  # off the dyadic points, as release_sup.zeros
        at = _point(fn, gn, mid)
        if at is None or not at < cap:
            return False
        todo += [(x, mid), (mid, y)]
    return True


def _own(f: Terms, g: Terms, constant: bool, lam: Fraction, lo: Fraction | None,
         hi: Fraction | None, fn: _Fn, gn: _Fn) -> list[flint.arb] | None:
    """``|L|`` at the cell's own candidates: its ``constant`` ratio, or its limits at both
    ends (a finite end: both densities positive there, so ``L`` is continuous up to it;
    an infinite end: the ratio of the leading terms); None where one is not finite."""
    if constant:
        x = (lo + hi) / 2 if lo is not None and hi is not None else (
            lo + 1 if lo is not None else hi - 1 if hi is not None else Fraction(0))
        at = _point(fn, gn, x)
        return None if at is None else [at]
    out = []
    for end, side in ((lo, -1), (hi, 1)):
        if end is None:
            lim = _limit(f, g, lam) if side > 0 else _limit(negate_v(f), negate_v(g), lam)
        else:
            lim = _point(fn, gn, end)
        if lim is None:
            return None
        out.append(lim)
    return out


def under(balls: Callable[[], list[flint.arb]], uppers: Sequence[sympy.Expr]) -> bool:
    """Whether :data:`~exactdp.programs.release_bound.FLOOR` is set and every candidate's
    ``|ln f/f'|`` (``balls()``, enclosed at the working precision) and every bracket's
    upper end (``uppers``) is strictly below it: the loss is then below the floor (the
    patterns not computed are below it already, by their translation bounds or
    :func:`below`)."""
    floor = FLOOR.get()
    if floor is None:
        return False
    with flint_prec(prec()):
        level = to_arb(floor, prec())
        return all(b < level for b in balls()) and all(
            to_arb(u, prec()) < level for u in uppers)


def below(pieces: Sequence[tuple[Any, ...]], level: flint.arb | None,
          whole: bool = False) -> bool:
    """Whether no output of a one-value pattern is proved to exceed both ``level`` and the
    pattern's own candidates at its cells' ends (False: not proved, which says nothing
    about the supremum). Where True, the pattern's critical points cannot change a loss
    that is at least ``level``: its supremum is ``level`` or less, or one of its end
    candidates, which the loss has already. With ``whole``, its end candidates must be
    below the level too: then no output of the pattern reaches it, and the pattern cannot
    change the loss at all (its exact candidates are not needed).

    Parameters
    ----------
    pieces : sequence of tuples
        The pattern's cells ``(f, g, lam, lo, hi, d)`` (:mod:`exactdp.programs.
        release_loss`: the densities on both inputs, the rate unit, the cell's ends, None
        for infinite, and ``d = f' g - f g'``, or a function returning it: called only
        where the enclosures of ``D`` formed from ``f`` and ``g`` leave a question open).
    level : flint.arb or None
        A loss found (a ball: its lower end is used), or None; the level is the larger of
        it and :data:`~exactdp.programs.release_bound.FLOOR` (the loss a search over pairs
        has found, :meth:`~exactdp.programs.release.ProgramRelease.loss_at_least`), and
        without either nothing is proved.
    whole : bool, default False

    Returns
    -------
    bool
    """
    floor = FLOOR.get()
    with flint_prec(prec()):
        ends = [] if level is None else [flint.arb(level.lower())]
        ends += [] if floor is None else [flint.arb(to_arb(floor, prec()).lower())]
        if not ends:
            return False
        cap = max(ends)
        cells = []
        for f, g, lam, lo, hi, d in pieces:
            if not f and not g:
                continue
            if not f or not g:  # positive probability under one input only: infinite
                return False
            exact = d if callable(d) else (lambda d=d: d)
            fn, gn = _fn(f, lam), _fn(g, lam)
            dn = _Fn.cross(fn, gn)
            constant = not dn.nonzero() and not exact()
            own = _own(f, g, constant, lam, lo, hi, fn, gn)
            if own is None or (whole and not all(x < cap for x in own)):
                return False
            cap = cap if whole else max([cap, *(flint.arb(x.lower()) for x in own)])
            cells += [] if constant else [(f, g, exact, lam, lo, hi, fn, gn, dn)]
        return all(_cell_below(*cell, cap=cap) for cell in cells)
