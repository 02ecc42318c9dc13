"""``f' g - f g'`` of two exponential polynomials as products of integer polynomials in flint.

The derivative of the log density ratio of a one-value pattern, times ``f g``
(:func:`cross`), is the input of its critical-point search and of
:mod:`exactdp.programs.release_below`'s monotone pieces and tails. It is the same as
``add(mul(derivative(f), g), mul(f, derivative(g)), -1)`` of
:mod:`exactdp.programs.release_sup`, term for term (its terms sorted by exponent). The
exponents ``(k, w)`` are scaled to integers ``(K, W)`` by the lcm of their denominators and
the coefficients of ``f'``, ``g``, ``f``, ``g'`` to integers over one common denominator
``D``; then the terms of one slope ``K`` and one power of ``v`` form an integer polynomial
in ``y = exp(lam / lw)`` (the exponent ``W`` its degree, shifted by the least), and the
product of two exponential polynomials is a sum of products of such polynomials, each one
flint ``fmpz_poly`` multiplication (``sum_w a_w y^w`` times ``sum_w b_w y^w``: the terms
of equal ``K1 + K2`` and ``W1 + W2`` summed as the products of the term-by-term route
would be). Where the exponents ``W`` of one slope spread over more than
:data:`SPREAD` times the terms (a sparse polynomial), the products go term by term in
Python integers instead (no gcd per step, as Python's ``Fraction`` makes). Each
coefficient of the result is ``N / D`` exactly, reduced once at the end.

Measured on AdaptiveSVT at 10 queries (the densities of the X shape's pattern: 100 to 250
terms each), the flint route takes a tenth of the term-by-term one.
"""

from __future__ import annotations

import math
from fractions import Fraction

import flint

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


#: Most exponents ``W`` of one slope spread per term for the flint route (else term by term).
SPREAD = 64


def _grouped(f: _Z) -> dict[tuple[int, int], tuple[int, flint.fmpz_poly]] | None:
    """``f`` as ``{(K, i): (b, sum_W c y^(W - b))}``, ``i`` the power of ``v``, ``b`` the
    least ``W`` of the group (None: too sparse, :data:`SPREAD`)."""
    rows: dict[tuple[int, int], dict[int, int]] = {}
    for k, w, p in f:
        for i, a in enumerate(p):
            if a:
                rows.setdefault((k, i), {})[w] = a
    out = {}
    for key, row in rows.items():
        low, top = min(row), max(row)
        if top - low > SPREAD * len(row) + 256:
            return None
        coeffs = [0] * (top - low + 1)
        for j, a in row.items():
            coeffs[j - low] = a
        out[key] = (low, flint.fmpz_poly(coeffs))
    return out


def _poly_cross(pairs: list[tuple[_Z, _Z, int]]) -> dict[tuple[int, int], list[int]] | None:
    """``sum sign x y`` over ``pairs`` by :func:`_grouped` polynomials, as ``{(K, W):
    integer coefficients}`` sorted by exponent (None: too sparse for flint)."""
    parts: dict[tuple[int, int], list[tuple[int, flint.fmpz_poly]]] = {}
    for x, y, sign in pairs:
        gx, gy = _grouped(x), _grouped(y)
        if gx is None or gy is None:
            return None
        for (k1, i1), (b1, p1) in gx.items():
            for (k2, i2), (b2, p2) in gy.items():
                prod = p1 * p2
                parts.setdefault((k1 + k2, i1 + i2), []).append(
                    (b1 + b2, prod if sign > 0 else -prod))
    out: dict[tuple[int, int], list[int]] = {}
    for (k, i), terms in sorted(parts.items()):
        base = min(b for b, _ in terms)
        if max(b for b, _ in terms) - base > SPREAD * sum(p.length() for _, p in terms) + 256:
            return None  # products far apart (answers of 1e300): too sparse to align
        total = flint.fmpz_poly(0)
        for b, poly in terms:  # aligned: times y^(b - base)
            total += poly if b == base else poly * flint.fmpz_poly([0] * (b - base) + [1])
        for j, a in enumerate(total.coeffs()):
            if a:
                q = out.setdefault((k, j + base), [])
                q += [0] * (i + 1 - len(q))
                q[i] = int(a)
    return dict(sorted(out.items()))


def cross(f: Terms, g: Terms, lam: Fraction) -> Terms:
    """``f' g - f g'`` (the derivative of ``ln f - ln g`` times ``f g``): ``add(mul(
    derivative(f), g), mul(f, derivative(g)), -1)`` term for term, its terms sorted by
    exponent, computed as products of integer polynomials (module docstring)."""
    df, dg = _derivative(f, lam), _derivative(g, lam)
    lk = math.lcm(1, *(k.denominator for h in (f, g) for k, _ in h))
    lw = math.lcm(1, *(w.denominator for h in (f, g) for _, w in h))
    d1, d2 = _den(df, f), _den(g, dg)  # f' and f share d1, g and g' share d2
    zs = [_scaled(h, lk, lw, d) for h, d in ((df, d1), (g, d2), (f, d1), (dg, d2))]
    out = _poly_cross([(zs[0], zs[1], 1), (zs[2], zs[3], -1)])
    if out is None:
        out = _term_cross(zs)
    den = d1 * d2
    keys: dict[int, Fraction] = {}
    result: Terms = {}
    for (k, w), q in out.items():
        while q and q[-1] == 0:
            q.pop()
        if not q:
            continue
        kk = keys.get(k) or keys.setdefault(k, Fraction(k, lk))
        result[(kk, Fraction(w, lw))] = tuple(Fraction(a, den) for a in q)
    return result


def _term_cross(zs: list[_Z]) -> dict[tuple[int, int], list[int]]:
    """``zs[0] zs[1] - zs[2] zs[3]`` term by term in Python integers, sorted by exponent."""
    out: dict[tuple[int, int], list[int]] = {}
    _mul_into(out, zs[0], zs[1])
    minus: dict[tuple[int, int], list[int]] = {}
    _mul_into(minus, zs[2], zs[3])
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
    return dict(sorted(out.items()))
