"""Enclosures of an exponential polynomial over an interval by its Taylor form: the
critical-point search of the release loss (:func:`~exactdp.programs.release_sup.zeros`)
needs them where the terms are orders of magnitude larger than their sum (Moore, Kearfott
and Cloud 2009, sections 6.4 and 9), and the balls of rationals and intervals they start
from.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import flint

from ..exact.arb import flint_prec  # noqa: F401  (the examples' precision context)

#: An exponential polynomial ``sum_k p_k(v) exp(lam (k v + w))``: ``(k, w)`` -> the
#: coefficients of ``p_k``, lowest degree first (also :data:`exactdp.programs.release_sup.Terms`).
Terms = dict[tuple[Fraction, Fraction], tuple[Fraction, ...]]


def fraction_ball(x: Fraction) -> flint.arb:
    """The arb ball of the rational ``x`` (exact when the precision holds it)."""
    return flint.arb(flint.fmpq(x.numerator, x.denominator))



def interval(a: Fraction, b: Fraction) -> flint.arb:
    """The arb ball holding ``[a, b]``."""
    lo, hi = fraction_ball(a), fraction_ball(b)
    return flint.arb((lo + hi) / 2, ((hi - lo) / 2).abs_upper())


#: Order of the Taylor form of :func:`taylor_ball`.
TAYLOR_ORDER = 6

def cached_by_id(cache: dict, f: Terms, lam: Fraction, build: Callable[[], list]) -> list:
    """``build()``, kept in ``cache`` under the ``id`` of the terms ``f``, ``lam`` and the
    working precision (the entry holds ``f`` itself, so a recycled ``id`` never hits); at
    most 512 entries. The critical-point search evaluates the same few exponential sums
    thousands of times.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> cache, f = {}, {(F(1), F(0)): (F(1),)}
    >>> cached_by_id(cache, f, F(1), lambda: [1]) is cached_by_id(cache, f, F(1), list)
    True
    """
    key = (id(f), lam, flint.ctx.prec)
    hit = cache.get(key)
    if hit is not None and hit[0] is f:
        return hit[1]
    out = build()
    if len(cache) > 512:
        cache.clear()
    cache[key] = (f, out)
    return out


#: Per rate ``k`` of an exponential polynomial, ``(lam k, 0, [p, p', p'', ...])``: its terms
#: ``p_w(v) exp(lam (k v + w))`` merged into one polynomial with arb coefficients (high
#: degree first), by ``id`` of the terms, ``lam`` and the precision.
_TAYLOR: dict[tuple[int, Fraction, int], tuple[Terms, list]] = {}


def _taylor_terms(f: Terms, lam: Fraction) -> list:
    return cached_by_id(_TAYLOR, f, lam, lambda: _merged_terms(f, lam))


def _merged_terms(f: Terms, lam: Fraction) -> list:
    merged: dict[Fraction, list[flint.arb]] = {}  # terms of one rate k: one polynomial
    for (k, w), p in f.items():
        scale = fraction_ball(lam * w).exp()
        acc = merged.setdefault(k, [])
        acc += [flint.arb(0)] * (len(p) - len(acc))
        for i, a in enumerate(p):
            acc[i] += fraction_ball(a) * scale
    out = []
    for k, c in merged.items():
        polys = []
        while c:
            polys.append(list(reversed(c)))
            c = [i * a for i, a in enumerate(c)][1:]
        out.append((fraction_ball(lam * k), flint.arb(0), polys))
    return out


def _horner(coeffs: list, v: flint.arb) -> flint.arb:
    out = flint.arb(0)
    for a in coeffs:
        out = out * v + a
    return out


def taylor_ball(f: Terms, lam: Fraction, x: Fraction, y: Fraction,
                order: int = TAYLOR_ORDER) -> flint.arb:
    """An enclosure of ``f`` over ``[x, y]`` by the Taylor form of ``order`` about the
    midpoint ``m`` (radius ``r``) with the Lagrange remainder: ``f(m) + [-1, 1] (sum_{1 <=
    j < n} |f^(j)(m)| r**j / j! + |f^(n)([x, y])| r**n / n!)``.

    A density's terms can be orders of magnitude larger than their sum (SVT3 at 10
    queries: ``D = f' g - f g'`` about ``1e-13``, its terms about ``1e-5``), so the direct
    and mean value forms shrink only like ``(y - x)`` and ``(y - x)**2`` and the bisection
    of :func:`zeros` ran past 20,000 steps on a cell of width 1. Here every derivative but
    the last is a ball at the point ``m`` (the cancellation costs working precision only)
    and the one enclosure over the interval is scaled by ``r**n / n!`` (Moore, Kearfott and
    Cloud 2009, sections 6.4 and 9: Taylor forms and models). A term ``p(v) exp(a v + b)``
    has ``j``-th derivative ``exp(a v + b) sum_i C(j, i) p^(i)(v) a**(j - i)`` (Leibniz's
    rule): one exponential per term and point serves every order.

    Parameters
    ----------
    f : Terms
        An exponential polynomial.
    lam : Fraction
        The rate unit of its exponents.
    x, y : Fraction
        The interval, ``x <= y``.
    order : int
        The order ``n >= 1``.

    Returns
    -------
    flint.arb
        A ball holding ``f(v)`` for every ``v`` in ``[x, y]`` (at the current precision).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> f = {(F(1), F(0)): (F(1),), (F(0), F(0)): (F(-1),)}  # exp(v) - 1
    >>> with flint_prec(64):
    ...     b = taylor_ball(f, F(1), F(1, 8), F(3, 8))
    >>> [bool(b.contains((flint.arb(t) / 8).exp() - 1)) for t in (1, 2, 3)], bool(b > 0)
    ([True, True, True], True)
    """
    m, h = (x + y) / 2, (y - x) / 2
    mid, box, r = fraction_ball(m), interval(x, y), fraction_ball(h)
    at = [flint.arb(0)] * (order + 1)  # f^(j)(m) for j < order, f^(order)([x, y])
    for a, b, polys in _taylor_terms(f, lam):
        powers = [flint.arb(1)]
        for _ in range(order):
            powers.append(powers[-1] * a)
        for v, js in ((mid, range(order)), (box, (order,))):
            e = (a * v + b).exp()
            ps = [_horner(c, v) for c in polys]
            for j in js:
                at[j] += e * sum((math.comb(j, i) * ps[i] * powers[j - i]
                                  for i in range(min(j + 1, len(ps)))), flint.arb(0))
    spread, power, fact = flint.arb(0), flint.arb(1), 1
    for j in range(1, order + 1):
        power, fact = power * r, fact * j
        spread += abs(at[j]) * power / fact
    return at[0] + flint.arb(0, spread.upper())
