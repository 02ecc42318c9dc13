"""Exact one-dimensional integrals and sums of piecewise exponential functions.

A *piece* is a function of one real variable ``z`` on an interval,
``{(r, w): q}`` meaning ``sum q * exp(lam * (r * z + w))``; a *value* is a number
``{(e, W): q}`` meaning ``sum q * lam**e * exp(lam * W)``. ``lam > 0`` is a unit that the
caller fixes (``epsilon / sensitivity`` for the sparse vector technique); the rates ``r``,
offsets ``w`` and coefficients ``q`` are Fractions, so no float enters. The same functions
accept sympy numbers for ``r``, ``w``, ``q`` (with ``lam = 1``: the rates then carry their
own units) given a ``sign`` function that decides their signs exactly.

- :func:`integrate_piece` is ``int_lo^hi`` of a piece times ``lam**e``:
  ``r != 0``: ``q lam**(e-1) / r * [exp(lam (r hi + w)) - exp(lam (r lo + w))]`` (an
  infinite end contributes 0: the integrand must decay there, else ArithmeticError);
  ``r == 0``: ``q lam**e (hi - lo) exp(lam w)``.
- :func:`sum_piece` is the sum over the integers ``lo <= z <= hi``: a geometric series,
  ``q exp(lam w) [exp(lam r lo) - exp(lam r (hi + 1))] / (1 - exp(lam r))``, or
  ``q (hi - lo + 1) exp(lam w)`` for ``r == 0``.

No differential-privacy concept lives here; the sparse vector integrals
(:mod:`exactdp.mechanisms.sparse_vector_integral`) and the program integrator
(:mod:`exactdp.programs.integrate`) use these.

References
----------
The antiderivative of ``exp(a z)`` and the finite geometric sum ``sum_{z=lo}^{hi} y^z =
(y^lo - y^(hi+1)) / (1 - y)``: any calculus text (e.g. Abramowitz and Stegun, 4.2.1 and
3.1.x).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fractions import Fraction
from math import lcm
from typing import Any

import flint
import sympy
from sympy.core.add import _addsort

#: A function of z on one interval: ``{(r, w): q}`` = ``sum q exp(lam (r z + w))``.
Piece = dict[tuple[Any, Any], Any]
#: An exact value: ``{(e, W): q}`` = ``sum q lam**e exp(lam W)``.
Value = dict[tuple[int, Any], Any]

#: The constant function 1 / the number 1.
ONE_PIECE: Piece = {(Fraction(0), Fraction(0)): Fraction(1)}
ONE: Value = {(0, Fraction(0)): Fraction(1)}


def fraction_sign(r: Fraction) -> int:
    """The sign of a Fraction (the default ``sign`` of this module).

    Parameters
    ----------
    r : Fraction

    Returns
    -------
    int
        -1, 0 or 1.
    """
    return (r > 0) - (r < 0)


def add_term(out: dict, key: tuple, q: Any) -> None:
    """Add ``q`` at ``key`` of a piece or a value, dropping a zero sum (a new key takes
    ``q`` itself: ``0 + q`` made a new number equal to it).

    Parameters
    ----------
    out : Piece or Value
        Updated in place.
    key : tuple
        ``(r, w)`` of a piece or ``(e, W)`` of a value.
    q : Fraction or sympy number
        The coefficient to add (a zero ``q`` at a new key adds nothing).

    Examples
    --------
    >>> from fractions import Fraction
    >>> from exactdp.exact.piecewise_exp import add_term
    >>> v = {(0, Fraction(0)): Fraction(1)}
    >>> add_term(v, (0, Fraction(0)), Fraction(-1)); v
    {}
    """
    old = out.get(key)
    if old is None:
        if q:
            out[key] = q
        return
    v = old + q
    if v:
        out[key] = v
    else:
        del out[key]


def times(a: dict, b: dict) -> dict:
    """The product of two values (or of two pieces): exponents and keys add (a new
    mapping; a factor 1 is skipped).

    Parameters
    ----------
    a, b : Value or Piece
        Not modified.

    Returns
    -------
    dict
        ``a * b``, zero coefficients dropped.

    Examples
    --------
    ``2 exp(lam)`` times ``3 lam exp(-lam)`` is ``6 lam``:

    >>> from fractions import Fraction
    >>> from exactdp.exact.piecewise_exp import times
    >>> times({(0, Fraction(1)): Fraction(2)}, {(1, Fraction(-1)): Fraction(3)})
    {(1, Fraction(0, 1)): Fraction(6, 1)}
    """
    if a == ONE:
        return dict(b)
    if b == ONE:
        return dict(a)
    out: dict = {}
    for (e1, w1), q1 in a.items():
        for (e2, w2), q2 in b.items():
            add_term(out, (e1 + e2, w1 + w2), q1 * q2)
    return out


def plus(a: dict, b: dict, factor: Any = 1) -> dict:
    """``a + factor * b`` for two values (or two pieces).

    Parameters
    ----------
    a, b : Value or Piece
        Not modified.
    factor : Fraction, int or sympy number, default 1

    Returns
    -------
    dict
        A new mapping, zero coefficients dropped.
    """
    out = dict(a)
    for k, q in b.items():
        add_term(out, k, factor * q)
    return out


def integrate_piece(out: Value, piece: Piece, lo: Any, hi: Any, e: int = 1,
                    sign: Callable[[Any], int] = fraction_sign) -> None:
    """Add ``int_lo^hi lam**e * piece(z) dz`` to ``out`` (``lo`` None: from ``-oo``;
    ``hi`` None: to ``+oo``): per term, the antiderivative of ``exp(lam (r z + w))``
    (module docstring).

    Parameters
    ----------
    out : Value
        Updated in place.
    piece : Piece
    lo, hi : Fraction, sympy number or None
        The ends, ``lo <= hi``; None is infinite.
    e : int, default 1
        The power of ``lam`` multiplying the integral (``lam dz`` integrates a density in
        units of ``1 / lam``).
    sign : callable, default :func:`fraction_sign`
        The exact sign of a rate ``r`` (for sympy rates: a decided sign, or raise).

    Raises
    ------
    ArithmeticError
        A term does not decay at an infinite end (the integral diverges).

    Examples
    --------
    ``int_0^oo lam exp(-lam z) dz = 1``:

    >>> from fractions import Fraction
    >>> from exactdp.exact.piecewise_exp import integrate_piece
    >>> out = {}
    >>> integrate_piece(out, {(Fraction(-1), Fraction(0)): Fraction(1)}, Fraction(0), None)
    >>> out
    {(0, Fraction(0, 1)): Fraction(1, 1)}
    """
    for (r, w), q in piece.items():
        s = sign(r)
        if s == 0:
            if lo is None or hi is None:
                raise ArithmeticError("integrate_piece: a constant term on an infinite interval")
            add_term(out, (e, w), q * (hi - lo))
            continue
        if (lo is None and s < 0) or (hi is None and s > 0):
            raise ArithmeticError("integrate_piece: a term does not decay at an infinite end")
        if hi is not None:
            add_term(out, (e - 1, r * hi + w), q / r)
        if lo is not None:
            add_term(out, (e - 1, r * lo + w), -q / r)


def sum_piece(out: dict[Any, Value], piece: Piece, lo: int | None, hi: int | None,
              sign: Callable[[Any], int] = fraction_sign) -> None:
    """Add ``sum_{z = lo}^{hi} piece(z)`` (integers; None: an infinite end) to ``out``: per
    term, the finite geometric sum (module docstring).

    ``out`` maps a rate ``R`` to a value ``V_R``; the sum it holds is ``sum_R V_R / (1 -
    exp(lam R))``, the key ``0`` meaning no denominator.

    Parameters
    ----------
    out : dict of rate to Value
        Updated in place.
    piece : Piece
    lo, hi : int or None
        The ends, ``lo <= hi``; None is infinite.
    sign : callable, default :func:`fraction_sign`
        The exact sign of a rate ``r``.

    Raises
    ------
    ArithmeticError
        A term does not decay at an infinite end (the series diverges).

    Examples
    --------
    ``sum_{z >= 0} exp(-lam z) = 1 / (1 - exp(-lam))``:

    >>> from fractions import Fraction
    >>> from exactdp.exact.piecewise_exp import sum_piece
    >>> out = {}
    >>> sum_piece(out, {(Fraction(-1), Fraction(0)): Fraction(1)}, 0, None)
    >>> out
    {Fraction(-1, 1): {(0, Fraction(0, 1)): Fraction(1, 1)}}
    """
    for (r, w), q in piece.items():
        s = sign(r)
        if s == 0:
            if lo is None or hi is None:
                raise ArithmeticError("sum_piece: a constant term on an infinite range")
            add_term(out.setdefault(0, {}), (0, w), q * (hi - lo + 1))
            continue
        if (lo is None and s < 0) or (hi is None and s > 0):
            raise ArithmeticError("sum_piece: a term does not decay at an infinite end")
        bucket = out.setdefault(r, {})
        if lo is not None:
            add_term(bucket, (0, r * lo + w), q)
        if hi is not None:
            add_term(bucket, (0, r * (hi + 1) + w), -q)


def reduce_fraction(num: Value, den: Value) -> tuple[Value, Value]:
    """``num / den`` in lowest terms, for values with no ``lam`` power (every ``e == 0``)
    and Fraction exponents: both are Laurent polynomials in ``y = exp(lam / L)`` (``L`` the
    common denominator of the ``W``), divided by their gcd (flint); the denominator's
    lowest coefficient is made 1. Anything else is returned unchanged.

    Parameters
    ----------
    num, den : Value
        ``den`` non-zero.

    Returns
    -------
    (Value, Value)
        The reduced numerator and denominator (new mappings, or the inputs unchanged).

    Examples
    --------
    ``(1 - y^2) / (1 - y) = 1 + y``, ``y = exp(lam)``:

    >>> from fractions import Fraction as F
    >>> from exactdp.exact.piecewise_exp import reduce_fraction
    >>> reduce_fraction({(0, F(0)): F(1), (0, F(2)): F(-1)}, {(0, F(0)): F(1), (0, F(1)): F(-1)})
    ({(0, Fraction(0, 1)): Fraction(1, 1), (0, Fraction(1, 1)): Fraction(1, 1)},
     {(0, Fraction(0, 1)): Fraction(1, 1)})
    """
    items = [*num.items(), *den.items()]
    if not num or any(e != 0 or not isinstance(w, Fraction) or not isinstance(q, Fraction)
                      for (e, w), q in items):
        return num, den
    L = lcm(*(w.denominator for (_, w), _ in items))

    def poly(v: Value) -> tuple[int, flint.fmpq_poly]:
        powers = {int(w * L): q for (_, w), q in v.items()}
        low = min(powers)
        coeffs = [flint.fmpq(0)] * (max(powers) - low + 1)
        for k, q in powers.items():
            coeffs[k - low] = flint.fmpq(q.numerator, q.denominator)
        return low, flint.fmpq_poly(coeffs)

    (a, P), (b, Q) = poly(num), poly(den)
    g = P.gcd(Q)
    P, Q = P // g, Q // g
    c0 = next(c for c in Q.coeffs() if c != 0)
    shift = next(i for i, c in enumerate(Q.coeffs()) if c != 0)

    def value(low: int, f: flint.fmpq_poly) -> Value:
        out: Value = {}
        for i, c in enumerate(f.coeffs()):
            if c != 0:
                q = Fraction(int(c.p), int(c.q)) / Fraction(int(c0.p), int(c0.q))
                out[(0, Fraction(low + i - shift, L))] = q
        return out
    return value(a - b, P), value(0, Q)


def value_expr(v: Value, lam: sympy.Expr) -> sympy.Expr:
    """The value ``sum q lam**e exp(lam W)`` as a sympy expression (at a rational ``lam``
    built in bulk by :func:`_rational_value_expr`, the same canonical expression).

    Parameters
    ----------
    v : Value
    lam : sympy.Expr
        The unit (a Rational, a Symbol or any expression).

    Returns
    -------
    sympy.Expr

    Examples
    --------
    >>> import sympy
    >>> from fractions import Fraction as F
    >>> from exactdp.exact.piecewise_exp import value_expr
    >>> v = {(0, F(-1)): F(1, 2), (1, F(0)): F(3)}
    >>> value_expr(v, sympy.Integer(2)), value_expr(v, sympy.Symbol("lam"))
    (exp(-2)/2 + 6, 3*lam + exp(-lam)/2)
    """
    if isinstance(lam, sympy.Rational):
        fast = _rational_value_expr(v, Fraction(int(lam.p), int(lam.q)))
        if fast is not None:
            return fast

    def num(a: Any) -> sympy.Expr:
        return sympy.Rational(a.numerator, a.denominator) if isinstance(a, Fraction) else a
    items = sorted(v.items(), key=lambda kv: (kv[0][0], str(kv[0][1])))
    return sympy.Add(*[num(q) * lam**e * sympy.exp(lam * num(w)) for (e, w), q in items])


def sums_to_one(values: Iterable[Value]) -> bool:
    """Whether the values sum to 1 term by term: the coefficients of every ``(e, W)``
    other than ``(0, 0)`` cancel and those of ``(0, 0)`` sum to 1, so the total is 1 for
    every ``lam`` (a sufficient test: False does not say the total is not 1).

    Parameters
    ----------
    values : iterable of Value

    Returns
    -------
    bool
    """
    total: dict[tuple[int, Fraction], Fraction | int] = {}
    for v in values:
        for k, q in v.items():
            total[k] = total.get(k, 0) + q
    return {k: q for k, q in total.items() if q} == {(0, 0): 1}


def _rational_value_expr(v: Value, lam: Fraction) -> sympy.Expr | None:
    """:func:`value_expr` at a rational ``lam``: the terms ``c exp(x)`` (``c = sum_e q
    lam**e`` over the terms of one ``W``, ``x = lam W``) and the constant are summed in
    Fractions and assembled as the canonical ``Add`` / ``Mul`` directly (what
    ``sympy.Add(*terms)`` would build: the terms in sympy's sort order, the number first;
    ``exp(1)`` is ``E``, as sympy evaluates it), without sympy's flattening of one term at
    a time. None when a key or coefficient is not a rational number."""
    coef: dict[Fraction | int, Fraction | int] = {}
    powers: dict[int, Fraction] = {}
    for (e, w), q in v.items():
        if not (type(w) in _RATIONAL and type(q) in _RATIONAL):
            return None
        if e:
            p = powers.get(e)
            if p is None:
                p = powers[e] = lam**e
            q = q * p
        coef[w] = coef.get(w, 0) + q
    const = coef.pop(0, 0)
    terms: list[sympy.Expr] = []
    for w, c in coef.items():
        if c:
            x = w if lam == 1 else w * lam
            ex = sympy.E if x == 1 else sympy.exp(_rational(x), evaluate=False)
            terms.append(ex if c == 1 else sympy.Mul._from_args((_rational(c), ex)))
    _addsort(terms)
    if const:
        terms.insert(0, _rational(const))
    if not terms:
        return sympy.Integer(0)
    return terms[0] if len(terms) == 1 else sympy.Add._from_args(terms)


_RATIONAL = (int, Fraction)


def _rational(x: Fraction | int) -> sympy.Rational:
    """A Fraction (or int) as a sympy Rational."""
    if type(x) is int:
        return sympy.Integer(x)
    return sympy.Rational(x.numerator, x.denominator)
