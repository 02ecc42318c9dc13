"""Exponential pieces over the integers as Laurent polynomials with integer coefficients.

The discrete counterpart of :mod:`exactdp.exact.piecewise_exp` when every rate and
offset is an integer multiple of one unit ``lam / L``: a *value* ``sum_k c_k y^k`` (``y =
exp(lam / L)``, integers ``k`` and ``c_k``) is a :data:`Laurent` ``(low, P)`` meaning
``y^low P(y)`` with ``P`` a flint ``fmpz_poly``; a *piece* ``{R: V}`` is the function
``sum_R y^(R z) V`` of an integer ``z``. Products and sums are flint polynomial products
and sums (one multiplication per pair of rates, where the dictionary form multiplies
term by term); the geometric sum over ``lo <= z <= hi`` and the fraction in lowest terms
follow :func:`~exactdp.exact.piecewise_exp.sum_piece` and
:func:`~exactdp.exact.piecewise_exp.reduce_fraction`, with the same normal form (the
denominator's lowest term 1), so the two routes give identical values.

No differential-privacy concept lives here.

References
----------
The finite geometric sum ``sum_{z=lo}^{hi} y^(R z) = (y^(R lo) - y^(R (hi+1))) / (1 -
y^R)`` (Abramowitz and Stegun, 3.1); the gcd of ``P(t^k)`` and ``Q(t^k)`` is ``gcd(P,
Q)(t^k)``, so lowest terms do not depend on the unit chosen.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import flint

#: ``(low, P)``: ``y**low * P(y)``, ``P`` an integer polynomial (zero: ``P == 0``).
Laurent = tuple[int, flint.fmpz_poly]
#: ``{R: V}``: ``sum_R y**(R z) V`` for an integer ``z``.
LPiece = dict[int, Laurent]

_ONE = flint.fmpz_poly([1])


def monomial(k: int, c: int = 1) -> Laurent:
    """``c y^k``.

    Parameters
    ----------
    k : int
        The power of ``y``.
    c : int, default 1
        The integer coefficient.

    Returns
    -------
    Laurent

    Examples
    --------
    >>> from exactdp.exact.laurent import monomial
    >>> monomial(-2, 3)
    (-2, 3)
    """
    return k, flint.fmpz_poly([c])


def add(a: Laurent, b: Laurent, factor: int = 1) -> Laurent:
    """``a + factor * b``.

    Parameters
    ----------
    a, b : Laurent
        Not modified (flint polynomials are values).
    factor : int, default 1

    Returns
    -------
    Laurent
        Its ``low`` the smaller of the two; no trailing zeros are stripped.

    Examples
    --------
    >>> from exactdp.exact.laurent import add, monomial
    >>> add(monomial(0), monomial(2), -1)
    (0, (-1)*x^2 + 1)
    """
    (la, p), (lb, q) = a, b
    if factor != 1:
        q = q * factor
    if la == lb:
        return la, p + q
    if la < lb:
        return la, p + q.left_shift(lb - la)
    return lb, p.left_shift(la - lb) + q


def mul(a: Laurent, b: Laurent) -> Laurent:
    """``a * b``.

    Parameters
    ----------
    a, b : Laurent

    Returns
    -------
    Laurent

    Examples
    --------
    >>> from exactdp.exact.laurent import add, monomial, mul
    >>> mul(add(monomial(-1), monomial(0)), monomial(3, 2))
    (2, 2*x + 2)
    """
    return a[0] + b[0], a[1] * b[1]


def piece_times(a: LPiece, b: LPiece) -> LPiece:
    """The product of two pieces: rates add, values multiply (zero values dropped).

    Parameters
    ----------
    a, b : LPiece
        Not modified.

    Returns
    -------
    LPiece
        A new mapping: one polynomial product per pair of rates.

    Examples
    --------
    >>> from exactdp.exact.laurent import monomial, piece_times
    >>> piece_times({1: monomial(0)}, {-1: monomial(2), 0: monomial(1)})
    {0: (2, 1), 1: (1, 1)}
    """
    out: LPiece = {}
    for r1, v1 in a.items():
        for r2, v2 in b.items():
            _accumulate(out, r1 + r2, mul(v1, v2))
    return out


def piece_power(a: LPiece, k: int) -> LPiece:
    """``a ** k`` for an integer ``k >= 1`` (a single rate: one polynomial power; else
    by squaring).

    Parameters
    ----------
    a : LPiece
        Not modified.
    k : int
        ``k >= 1``.

    Returns
    -------
    LPiece

    Examples
    --------
    >>> from exactdp.exact.laurent import add, monomial, piece_power
    >>> piece_power({1: add(monomial(0), monomial(1))}, 3)
    {3: (0, x^3 + 3*x^2 + 3*x + 1)}
    """
    if len(a) == 1:
        ((r, (low, p)),) = a.items()
        return {r * k: (low * k, p**k)}
    out: LPiece | None = None
    base = a
    while True:
        if k & 1:
            out = base if out is None else piece_times(out, base)
        k >>= 1
        if not k:
            return out if out is not None else {0: monomial(0)}
        base = piece_times(base, base)


def piece_plus(a: LPiece, b: LPiece, factor: int = 1) -> LPiece:
    """``a + factor * b`` for two pieces (zero values dropped).

    Parameters
    ----------
    a, b : LPiece
        Not modified.
    factor : int, default 1

    Returns
    -------
    LPiece
        A new mapping.

    Examples
    --------
    >>> from exactdp.exact.laurent import monomial, piece_plus
    >>> piece_plus({0: monomial(0)}, {0: monomial(0)}, -1)
    {}
    """
    out = dict(a)
    for r, v in b.items():
        _accumulate(out, r, (v[0], v[1] * factor) if factor != 1 else v)
    return out


def sum_piece(out: LPiece, piece: LPiece, lo: int | None, hi: int | None) -> None:
    """Add ``sum_{z = lo}^{hi} piece(z)`` to ``out`` (None: an infinite end), which maps
    a rate ``R`` to ``V_R`` and means ``sum_R V_R / (1 - y^R)`` (``R = 0``: no
    denominator).

    Parameters
    ----------
    out : LPiece
        Updated in place.
    piece : LPiece
    lo, hi : int or None
        The integer ends, ``lo <= hi``; None is infinite.

    Raises
    ------
    ArithmeticError
        A term does not decay at an infinite end (the series diverges).

    Examples
    --------
    ``sum_{z >= 0} y^(-z) = 1 / (1 - y^(-1))``:

    >>> from exactdp.exact.laurent import monomial, sum_piece
    >>> out = {}
    >>> sum_piece(out, {-1: monomial(0)}, 0, None); out
    {-1: (0, 1)}
    """
    for r, v in piece.items():
        if r == 0:
            if lo is None or hi is None:
                raise ArithmeticError("sum_piece: a constant term on an infinite range")
            _accumulate(out, 0, (v[0], v[1] * (hi - lo + 1)))
            continue
        if (lo is None and r < 0) or (hi is None and r > 0):
            raise ArithmeticError("sum_piece: a term does not decay at an infinite end")
        if lo is not None:
            _accumulate(out, r, (v[0] + r * lo, v[1]))
        if hi is not None:
            _accumulate(out, r, (v[0] + r * (hi + 1), -v[1]))


def reduced(num: Laurent, den: Laurent, L: int
            ) -> tuple[dict[tuple[int, Fraction], Fraction], dict[tuple[int, Fraction], Fraction]]:
    """``num / den`` in lowest terms as two values of :mod:`~exactdp.exact.piecewise_exp`
    (``{(0, W): q}`` with ``W = k / L``), the denominator's lowest term 1: the normal form
    of :func:`~exactdp.exact.piecewise_exp.reduce_fraction`.

    Parameters
    ----------
    num, den : Laurent
        ``den`` non-zero.
    L : int
        The unit's denominator: ``y = exp(lam / L)``.

    Returns
    -------
    (dict, dict)
        The numerator and denominator ``{(0, W): Fraction}``.

    Examples
    --------
    ``(1 - y^2) / (1 - y) = 1 + y``:

    >>> from exactdp.exact.laurent import add, monomial, reduced
    >>> reduced(add(monomial(0), monomial(2), -1), add(monomial(0), monomial(1), -1), 1)
    ({(0, Fraction(0, 1)): Fraction(1, 1), (0, Fraction(1, 1)): Fraction(1, 1)},
     {(0, Fraction(0, 1)): Fraction(1, 1)})
    """
    (a, p), (b, q) = num, den
    if p == 0:  # as reduce_fraction: a zero numerator over the denominator unchanged
        return {}, {(0, Fraction(b + i, L)): Fraction(int(c))
                    for i, c in enumerate(q.coeffs()) if c}
    g = p.gcd(q)
    p, q = p // g, q // g
    qc = [int(c) for c in q.coeffs()]
    shift = next(i for i, c in enumerate(qc) if c)
    c0 = qc[shift]

    def value(low: int, coeffs: list[int]) -> dict[tuple[int, Fraction], Fraction]:
        return {(0, _exponent(low + i - shift, L)): Fraction(c) if c0 == 1 else Fraction(c, c0)
                for i, c in enumerate(coeffs) if c}
    return value(a - b, [int(c) for c in p.coeffs()]), value(0, qc)


@lru_cache(maxsize=65536)
def _exponent(k: int, L: int) -> Fraction:
    return Fraction(k, L)


def _accumulate(out: LPiece, r: int, v: Laurent) -> None:
    old = out.get(r)
    s = v if old is None else add(old, v)
    if s[1] == 0:
        out.pop(r, None)
    else:
        out[r] = s
