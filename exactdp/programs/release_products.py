"""``f' g - f g'`` of two exponential polynomials in integers over one common denominator.

The derivative of the log density ratio of a one-value pattern, times ``f g``
(:func:`cross`), is the input of its critical-point search and of
:mod:`exactdp.programs.release_below`'s monotone pieces and tails. It is the same as
``add(mul(derivative(f), g), mul(f, derivative(g)), -1)`` of
:mod:`exactdp.programs.release_sup`, term for term and in the same order (a key whose sum
vanishes leaves, and comes back last). The exponents ``(k, w)`` are scaled to integers by
the lcm of their denominators and the coefficients of ``f'``, ``g``, ``f``, ``g'`` to
integers over one common denominator ``D``, so every product and sum is an exact integer
operation (no gcd per step, as Python's ``Fraction`` makes; the products of two densities
of 36 terms each took 40 ms in fractions, 8 in flint's ``fmpq_poly`` objects); each
coefficient of the result is ``N / D`` exactly, reduced once at the end.
"""

from __future__ import annotations

import math
from fractions import Fraction

from .release_sup import Terms

#: Terms scaled to integers: ``(K, W, integer coefficients, low degree first)``.
_Z = list[tuple[int, int, list[int]]]


def _derivative(f: Terms, lam: Fraction) -> Terms:
    """``f'``: ``(p' + lam k p) exp(lam (k v + w))``, a term whose derivative is 0 left out
    (the order of ``f``'s terms kept)."""
    out: Terms = {}
    for (k, w), p in f.items():
        q = [lam * k * a for a in p]
        for i in range(1, len(p)):
            q[i - 1] += i * p[i]
        while q and q[-1] == 0:
            q.pop()
        if q:
            out[(k, w)] = tuple(q)
    return out


def _den(*fs: Terms) -> int:
    return math.lcm(1, *(a.denominator for f in fs for p in f.values() for a in p))


def _scaled(f: Terms, lk: int, lw: int, den: int) -> _Z:
    """``f`` with exponents times ``lk``, ``lw`` and coefficients times ``den`` (integers)."""
    return [(k.numerator * (lk // k.denominator), w.numerator * (lw // w.denominator),
             [a.numerator * (den // a.denominator) for a in p]) for (k, w), p in f.items()]


def _mul_into(acc: dict[tuple[int, int], list[int]], f: _Z, g: _Z) -> None:
    """``acc += f g`` in the order of :func:`~exactdp.programs.release_sup.mul` (a key
    whose sum vanishes leaves ``acc``)."""
    for k1, w1, p1 in f:
        for k2, w2, p2 in g:
            key = (k1 + k2, w1 + w2)
            old = acc.get(key)
            q = [0] * (len(p1) + len(p2) - 1) if old is None else old + [0] * max(
                0, len(p1) + len(p2) - 1 - len(old))
            for i, a in enumerate(p1):
                for j, b in enumerate(p2):
                    q[i + j] += a * b
            if any(q):
                acc[key] = q
            else:
                acc.pop(key, None)


def cross(f: Terms, g: Terms, lam: Fraction) -> Terms:
    """``f' g - f g'`` (the derivative of ``ln f - ln g`` times ``f g``): ``add(mul(
    derivative(f), g), mul(f, derivative(g)), -1)`` term for term and in the same order,
    computed in integers over one common denominator (module docstring)."""
    df, dg = _derivative(f, lam), _derivative(g, lam)
    lk = math.lcm(1, *(k.denominator for h in (f, g) for k, _ in h))
    lw = math.lcm(1, *(w.denominator for h in (f, g) for _, w in h))
    d1, d2 = _den(df, f), _den(g, dg)  # f' and f share d1, g and g' share d2
    out: dict[tuple[int, int], list[int]] = {}
    _mul_into(out, _scaled(df, lk, lw, d1), _scaled(g, lk, lw, d2))
    minus: dict[tuple[int, int], list[int]] = {}
    _mul_into(minus, _scaled(f, lk, lw, d1), _scaled(dg, lk, lw, d2))
    for key, p in minus.items():
        old = out.get(key)
        if old is None:
            q = [-a for a in p]
        else:
            q = old + [0] * max(0, len(p) - len(old))
            for i, a in enumerate(p):
                q[i] -= a
        if any(q):
            out[key] = q
        else:
            out.pop(key, None)
    den = d1 * d2
    keys: dict[int, Fraction] = {}
    result: Terms = {}
    for (k, w), q in out.items():
        while q[-1] == 0:
            q.pop()
        kk = keys.get(k) or keys.setdefault(k, Fraction(k, lk))
        result[(kk, Fraction(w, lw))] = tuple(Fraction(a, den) for a in q)
    return result
