"""One centre interval's integral of a released value's density, in integers.

:func:`~exactdp.programs.release_density.centre_integral` integrates, on each interval of
the centre noise ``z``, a one-term piece ``q0 exp(lam (r0 z + w0))`` (the centre's density
times the density factors) times the leaves' product ``sum_i q_i exp(lam (r_i z + w_i))``
(hundreds of terms). By term, with ``r = r0 + r_i != 0``,

``int_lo^hi q0 q_i exp(lam (r z + w0 + w_i)) lam**e dz = lam**(e - 1) q0 q_i / r [exp(lam (r
hi + w0 + w_i)) - exp(lam (r lo + w0 + w_i))]``

(:func:`~exactdp.exact.piecewise_exp.integrate_piece`). Under the cells' walk
(:mod:`exactdp.programs.release_cells`) ``w0``, ``lo`` and ``hi`` are polynomials of degree
at most 1 in the released value ``v`` (:class:`~exactdp.programs.release_cells.VPoly`), so
each exponent is ``(r h0 + c0 + w_i) + (r h1 + c1) v``. :func:`integrate_times` forms these
over one common denominator ``D`` of every rate, offset and end (``D**2`` for the
exponents): integer products and one reduction per number, where Python's ``Fraction``
makes a gcd per operation; the terms are added to the value in the same order with the
same exact numbers as ``integrate_piece(out, times(piece, prod), lo, hi, e)``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, NamedTuple

from ..exact.piecewise_exp import ONE, Piece, Value, add_term, integrate_piece, times
from .release_cells import VPoly


class Scaled(NamedTuple):
    """A piece over common denominators: ``sum Q / dq exp(lam (R / dr z + W / dw))`` for
    ``(R, W, Q)`` in ``terms`` (in the piece's order; its keys distinct)."""

    dr: int
    dw: int
    dq: int
    terms: list[tuple[int, int, int]]


def scaled_piece(x: Scaled | Piece) -> Piece:
    """The piece of ``x`` in Fractions (a piece: itself).

    Parameters
    ----------
    x : Scaled or Piece
        A piece over common denominators, or a piece.

    Returns
    -------
    Piece
        The mapping ``(r, w) -> q`` in Fractions, in ``x``'s terms' order (``x`` itself
        for a piece).

    Examples
    --------
    >>> from exactdp.programs.release_integral import Scaled, scaled_piece
    >>> scaled_piece(Scaled(2, 4, 3, [(-2, 2, 6)]))
    {(Fraction(-1, 1), Fraction(1, 2)): Fraction(2, 1)}
    """
    if not isinstance(x, Scaled):
        return x
    return {(Fraction(r, x.dr), Fraction(w, x.dw)): Fraction(q, x.dq) for r, w, q in x.terms}


#: A product in integers by ``id``: ``(product, D, Dq, [(R, W, Q)])``, ``r = R / D``, ``w = W
#: / D``, ``q = Q / Dq`` (at most 4096, then cleared).
_SCALED: dict[int, tuple[Piece | Scaled, int, int, list[tuple[int, int, int]]]] = {}


def _scaled(prod: Piece | Scaled) -> tuple[int, int, list[tuple[int, int, int]]] | None:
    """``prod`` over common denominators (None: a key or coefficient not a Fraction)."""
    hit = _SCALED.get(id(prod))
    if hit is not None and hit[0] is prod:
        return hit[1:]
    if isinstance(prod, Scaled):
        d = math.lcm(prod.dr, prod.dw)
        kr, kw = d // prod.dr, d // prod.dw
        out = [(r * kr, w * kw, q) for r, w, q in prod.terms]
        if len(_SCALED) > 4096:
            _SCALED.clear()
        _SCALED[id(prod)] = (prod, d, prod.dq, out)
        return d, prod.dq, out
    items = list(prod.items())
    if not all(type(r) is Fraction and type(w) is Fraction and type(q) is Fraction
               for (r, w), q in items):
        return None
    d = math.lcm(1, *(x.denominator for (r, w), _ in items for x in (r, w)))
    dq = math.lcm(1, *(q.denominator for _, q in items))
    out = [(r.numerator * (d // r.denominator), w.numerator * (d // w.denominator),
            q.numerator * (dq // q.denominator)) for (r, w), q in items]
    if len(_SCALED) > 4096:
        _SCALED.clear()
    _SCALED[id(prod)] = (prod, d, dq, out)
    return d, dq, out


def _coeffs(x: Any) -> tuple[Fraction, Fraction] | None:
    """``(x0, x1)`` of ``x0 + x1 v`` (None: degree above 1, or not a number)."""
    if isinstance(x, VPoly):
        c = (*x.c, Fraction(0), Fraction(0))
        return None if len(x.c) > 2 else (c[0], c[1])
    return (x, Fraction(0)) if type(x) is Fraction else None


def integrate_times(out: Value, piece: Piece, prod: Piece | Scaled, lo: Any, hi: Any,
                    e: int) -> None:
    """``integrate_piece(out, times(piece, prod), lo, hi, e)``: the same terms added to
    ``out`` in the same order, equal numbers and keys of the same types; in integers for
    a one-term ``piece`` (module docstring; its terms ``(r0 + r_i, w0 + w_i): q0 q_i`` have
    distinct keys, in the order of ``prod``'s), else by the two calls.

    Parameters
    ----------
    out : Value
        Updated in place.
    piece : Piece
        One term (any other: the two calls).
    prod : Piece or Scaled
        With Fraction keys and coefficients, or over common denominators.
    lo, hi : Fraction, VPoly or None
        The interval's ends (None: infinite).
    e : int
        The power of ``lam`` (as :func:`~exactdp.exact.piecewise_exp.integrate_piece`).

    Raises
    ------
    ArithmeticError
        A term does not decay at an infinite end, or a constant one on an infinite
        interval.

    Examples
    --------
    ``int_0^oo exp(-z) (1 - exp(-z) / 2) dz = 1 - 1/4``:

    >>> from fractions import Fraction as F
    >>> from exactdp.programs.release_integral import integrate_times
    >>> out = {}
    >>> integrate_times(out, {(F(-1), F(0)): F(1)},
    ...                 {(F(0), F(0)): F(1), (F(-1), F(0)): F(-1, 2)}, F(0), None, 1)
    >>> sum(out.values())
    Fraction(3, 4)
    """
    if isinstance(prod, Scaled) and not prod.terms:
        return
    scaled = _scaled(prod) if len(piece) == 1 and prod else None
    (((r0, w0), q0),) = piece.items() if scaled is not None else (((None, None), None),)
    parts = [_coeffs(x) for x in (r0, w0, lo or Fraction(0), hi or Fraction(0))]
    if scaled is None or type(q0) is not Fraction or any(p is None for p in parts) or \
            parts[0][1]:  # type: ignore[index]
        integrate_piece(out, times(piece, scaled_piece(prod)), lo, hi, e)
        return
    (r0_, _), (c0, c1), (l0, l1), (h0, h1) = parts  # type: ignore[misc]
    dp, dq, terms = scaled
    d = math.lcm(dp, *(x.denominator for x in (r0_, c0, c1, l0, l1, h0, h1)))
    s = d // dp
    R0, C0, C1, L0, L1, H0, H1 = (x.numerator * (d // x.denominator)
                                  for x in (r0_, c0, c1, l0, l1, h0, h1))
    n0, d0 = q0.numerator * d, q0.denominator * dq
    poly = isinstance(w0, VPoly)
    ends = [(end, x0, x1, sign, poly or isinstance(end, VPoly))
            for end, x0, x1, sign in ((hi, H0, H1, 1), (lo, L0, L1, -1)) if end is not None]
    dd = d * d
    if not out:
        _fill(out, terms, [(x0, x1, sign, is_poly) for _, x0, x1, sign, is_poly in ends],
              (s, d, R0, C0, C1, n0, d0, dp, dq), (q0, w0, lo, hi, e))
        return
    for R1, W1, Q1 in terms:
        R = R0 + R1 * s
        if not R:  # a constant term: as integrate_piece
            q1, w1 = Fraction(Q1, dq), Fraction(W1, dp)
            w = w0 + w1  # type: ignore[operator]
            if lo is None or hi is None:
                raise ArithmeticError("integrate_piece: a constant term on an infinite interval")
            add_term(out, (e, w), q0 * q1 * (hi - lo))
            continue
        if (lo is None and R < 0) or (hi is None and R > 0):
            raise ArithmeticError("integrate_piece: a term does not decay at an infinite end")
        cw = (C0 + W1 * s) * d
        num, den = n0 * Q1, d0 * R
        for _end, x0, x1, sign, is_poly in ends:
            k0 = Fraction(R * x0 + cw, dd)
            if is_poly:
                key: Any = VPoly((k0, Fraction(R * x1 + C1 * d, dd)))
            else:
                key = k0
            add_term(out, (e - 1, key), Fraction(sign * num, den))


def _fill(out: Value, terms: list[tuple[int, int, int]], ends: list[tuple],
          ints: tuple[int, ...], fracs: tuple) -> None:
    """The loop of :func:`integrate_times` into an empty ``out``: each exponent kept as
    its integers ``(K0, K1)`` over ``d**2`` and each coefficient as an integer over one
    common denominator ``d0 L`` (``L`` the lcm of the rates ``R``) while the sums form,
    in the order ``add_term`` gives (a key whose sum vanishes leaves, and comes back
    last, with the type of its new first key); one Fraction per number at the end."""
    s, d, R0, C0, C1, n0, d0, dp, dq = ints
    q0, w0, lo, hi, e = fracs
    dd = d * d
    rates = [R0 + R1 * s for R1, _, _ in terms]
    big = math.lcm(1, *(abs(R) for R in rates if R))
    acc: dict[tuple, list] = {}
    for (_, W1, Q1), R in zip(terms, rates, strict=True):
        if not R:  # a constant term: as integrate_piece, in Fractions
            if lo is None or hi is None:
                raise ArithmeticError("integrate_piece: a constant term on an infinite interval")
            _add(acc, ("c", w0 + Fraction(W1, dp)), None, q0 * Fraction(Q1, dq) * (hi - lo))
            continue
        if (lo is None and R < 0) or (hi is None and R > 0):
            raise ArithmeticError("integrate_piece: a term does not decay at an infinite end")
        cw = (C0 + W1 * s) * d
        num = n0 * Q1 * (big // R)
        for x0, x1, sign, is_poly in ends:
            _add(acc, (R * x0 + cw, R * x1 + C1 * d if is_poly else 0), is_poly, sign * num)
    den = d0 * big
    for key, (is_poly, q) in acc.items():
        if key[0] == "c":
            out[(e, key[1])] = q
            continue
        k0 = Fraction(key[0], dd)
        out[(e - 1, VPoly.linear(k0, Fraction(key[1], dd)) if is_poly else k0)] = \
            Fraction(q, den)


def _add(acc: dict[tuple, list], key: tuple, is_poly: Any, q: Any) -> None:
    """``add_term`` on ``acc``'s entries ``[type of the first key, sum]``."""
    old = acc.get(key)
    if old is None:
        if q:
            acc[key] = [is_poly, q]
        return
    v = old[1] + q
    if v:
        old[1] = v
    else:
        del acc[key]


def _integers(a: Piece) -> tuple[int, int, int, list[tuple[int, int, int]]] | None:
    """``a`` over common denominators ``(Dr, Dw, Dq, [(R, W, Q)])`` (None: not all
    Fractions)."""
    items = list(a.items())
    if not all(type(r) is Fraction and type(w) is Fraction and type(q) is Fraction
               for (r, w), q in items):
        return None
    dr = math.lcm(1, *(r.denominator for (r, _), _ in items))
    dw = math.lcm(1, *(w.denominator for (_, w), _ in items))
    dq = math.lcm(1, *(q.denominator for _, q in items))
    return dr, dw, dq, [(r.numerator * (dr // r.denominator), w.numerator * (dw // w.denominator),
                         q.numerator * (dq // q.denominator)) for (r, w), q in items]


def times_integers(a: Piece, b: Piece) -> Piece:
    """:func:`~exactdp.exact.piecewise_exp.times` of two pieces: the same mapping (keys,
    their order, numbers), the products summed in integers over common denominators (a
    key whose sum vanishes leaves, and comes back last, as ``add_term`` does); pieces
    with other numbers, or a factor 1, by ``times`` itself.

    Parameters
    ----------
    a : Piece
        The first factor, a mapping ``(r, w) -> q``.
    b : Piece
        The second factor, likewise.

    Returns
    -------
    Piece
        The product ``a b``, equal to ``times(a, b)`` in keys, their order and numbers.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from exactdp.programs.release_integral import times_integers
    >>> g = {(F(0), F(0)): F(1), (F(-1), F(1, 2)): F(-1, 2)}
    >>> times_integers(g, g) == {(F(0), F(0)): F(1), (F(-1), F(1, 2)): F(-1),
    ...                          (F(-2), F(1)): F(1, 4)}
    True
    """
    x = None if a == ONE or b == ONE else _integers(a)
    y = None if x is None else _integers(b)
    if x is None or y is None:
        return times(a, b)
    return scaled_piece(_times(Scaled(*x), Scaled(*y)))


def scaled_times(a: Scaled | Piece, b: Piece) -> Scaled | None:
    """:func:`times_integers` kept over common denominators (a ``Scaled``; None: a piece
    with other numbers). The same mapping in the same order as ``times(a, b)``: a factor 1
    gives the other one's terms in their order, as a product by it does.

    Parameters
    ----------
    a : Scaled or Piece
        The first factor, over common denominators or a piece.
    b : Piece
        The second factor, a piece.

    Returns
    -------
    Scaled or None
        The product over common denominators, or None where a piece's numbers are not
        all Fractions.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from exactdp.programs.release_integral import scaled_piece, scaled_times
    >>> g = {(F(0), F(0)): F(1), (F(-1), F(1, 2)): F(-1, 2)}
    >>> scaled_piece(scaled_times(g, g)) == {(F(0), F(0)): F(1), (F(-1), F(1, 2)): F(-1),
    ...                                      (F(-2), F(1)): F(1, 4)}
    True
    """
    x = a if isinstance(a, Scaled) else _integers(a)
    y = None if x is None else _integers(b)
    return None if x is None or y is None else _times(Scaled(*x), Scaled(*y))


def _times(x: Scaled, y: Scaled) -> Scaled:
    """The product of two pieces over common denominators (module docstring)."""
    dr, dw = math.lcm(x[0], y[0]), math.lcm(x[1], y[1])
    (ra, wa), (rb, wb) = (dr // x[0], dw // x[1]), (dr // y[0], dw // y[1])
    acc: dict[tuple[int, int], int] = {}
    right = [(r * rb, w * wb, q) for r, w, q in y[3]]
    for r1, w1, q1 in x[3]:
        r1, w1 = r1 * ra, w1 * wa
        for r2, w2, q2 in right:
            key, v = (r1 + r2, w1 + w2), q1 * q2
            old = acc.get(key)
            if old is None:
                acc[key] = v
            elif old + v:
                acc[key] = old + v
            else:
                del acc[key]
    return Scaled(dr, dw, x[2] * y[2], [(r, w, q) for (r, w), q in acc.items()])
