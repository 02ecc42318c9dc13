"""``f' g - f g'`` of two exponential polynomials in flint's exact rationals.

The derivative of the log density ratio of a one-value pattern, times ``f g``
(:func:`cross`), is the input of its critical-point search and of
:mod:`exactdp.programs.release_below`'s monotone pieces and tails. It is the same as
``add(mul(derivative(f), g), mul(f, derivative(g)), -1)`` of
:mod:`exactdp.programs.release_sup`, term for term and in the same order (a key whose sum
vanishes leaves, and comes back last), computed with python-flint's ``fmpq`` and
``fmpq_poly`` instead of Python fractions.

References
----------
F. Johansson, "Arb", IEEE Trans. Computers 66(8), 2017, and the FLINT library
(``fmpq_poly``: exact rational polynomials).
"""

from __future__ import annotations

from fractions import Fraction

import flint

from .release_sup import Terms


def _fq(x: Fraction) -> flint.fmpq:
    return flint.fmpq(x.numerator, x.denominator)


def _fr(x: flint.fmpq) -> Fraction:
    return Fraction(int(x.p), int(x.q))


_Q = list[tuple[flint.fmpq, flint.fmpq, flint.fmpq_poly]]


def _to_q(f: Terms) -> _Q:
    """Terms in flint: ``(k, w, p)`` with ``p`` an ``fmpq_poly``, in the terms' order."""
    return [(_fq(k), _fq(w), flint.fmpq_poly([_fq(a) for a in p])) for (k, w), p in f.items()]


def _q_derivative(f: _Q, lam: flint.fmpq) -> _Q:
    out = []
    for k, w, p in f:
        q = p.derivative() + lam * k * p
        if q:
            out.append((k, w, q))
    return out


def _q_mul(f: _Q, g: _Q) -> dict[tuple[flint.fmpq, flint.fmpq], flint.fmpq_poly]:
    acc: dict[tuple[flint.fmpq, flint.fmpq], flint.fmpq_poly] = {}
    for k1, w1, p1 in f:
        for k2, w2, p2 in g:
            key = (k1 + k2, w1 + w2)
            old = acc.get(key)
            q = p1 * p2 if old is None else old + p1 * p2
            if q:
                acc[key] = q
            else:
                acc.pop(key, None)
    return acc


def cross(f: Terms, g: Terms, lam: Fraction) -> Terms:
    """``f' g - f g'`` (the derivative of ``ln f - ln g`` times ``f g``): ``add(mul(
    derivative(f), g), mul(f, derivative(g)), -1)`` term for term and in the same order,
    computed in flint's exact rationals."""
    fq, gq, la = _to_q(f), _to_q(g), _fq(lam)
    out = _q_mul(_q_derivative(fq, la), gq)
    for key, p in _q_mul(fq, _q_derivative(gq, la)).items():
        old = out.get(key)
        q = -p if old is None else old - p
        if q:
            out[key] = q
        else:
            out.pop(key, None)
    return {(_fr(k), _fr(w)): tuple(_fr(a) for a in q.coeffs()) for (k, w), q in out.items()}
