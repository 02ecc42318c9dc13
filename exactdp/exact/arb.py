"""Rigorous ball arithmetic for exact numbers: precision context, ``to_arb``, conversions.

This module has no differential-privacy concepts in it. It owns the three things every
certified computation of exactdp needs from python-flint's ``arb`` type:

- :func:`flint_prec`: the one way to set flint's working precision for a block (python-flint's
  own ``ctx.workprec`` where the installed version has it), so that no caller saves and
  restores ``flint.ctx.prec`` by hand;
- :func:`to_arb`: a closed-form real sympy number evaluated node by node in ball arithmetic.
  Every arb operation returns a ball that contains the exact result of the operation on
  any points of its argument balls (Johansson 2017), so the radius of the final ball is
  *proved* by the arithmetic, never assumed;
- one signed converter between mpmath ``mpf``, flint ``arb`` and sympy ``Float``
  (:func:`mpf_to_arb`, :func:`arb_mid_to_mpf`, :func:`arb_mid_to_float`,
  :func:`float_to_arb`, :func:`ball`): each conversion is exact (mantissa times a power of
  two, sign kept), so no enclosure shrinks on the way.

Bits appear only here; public APIs elsewhere speak of ``dps`` (decimal digits), converted by
:func:`dps_to_prec`.

References
----------
F. Johansson, "Arb: efficient arbitrary-precision midpoint-radius interval arithmetic",
IEEE Transactions on Computers 66(8), 2017.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction

import flint
import mpmath
import sympy

from .._validate import argument_error, check_int


# ------------------------------------------------------------------------------ precision
def dps_to_prec(dps: int) -> int:
    """Working bits for ``dps`` decimal digits plus 64 guard bits (``ceil(dps*log2(10))+64``).

    Parameters
    ----------
    dps : int
        Decimal digits.

    Returns
    -------
    int
        Bits (``log2(10)`` bits per digit).

    Examples
    --------
    >>> from exactdp.exact.arb import dps_to_prec
    >>> dps_to_prec(15), dps_to_prec(30)
    (114, 164)
    """
    return int(math.ceil(int(dps) * math.log2(10))) + 64


@contextmanager
def flint_prec(bits: int) -> Iterator[None]:
    """Set flint's working precision to ``bits`` inside a ``with`` block, restoring it after.

    Uses python-flint's ``ctx.workprec`` when available (python-flint >= 0.4); otherwise
    saves and restores ``flint.ctx.prec`` itself (also on exceptions).

    Parameters
    ----------
    bits : int
        Working precision in bits (>= 2).

    Raises
    ------
    ValueError
        If ``bits`` is not an integer >= 2.
    """
    bits = check_int("flint_prec", "bits", bits, 2)
    workprec = getattr(flint.ctx, "workprec", None)
    if workprec is not None:
        with workprec(bits):
            yield
        return
    old = flint.ctx.prec  # pragma: no cover - old python-flint only
    flint.ctx.prec = bits  # pragma: no cover
    try:  # pragma: no cover
        yield
    finally:  # pragma: no cover
        flint.ctx.prec = old


@contextmanager
def flint_dps(dps: int) -> Iterator[None]:
    """:func:`flint_prec` at :func:`dps_to_prec` ``(dps)`` bits.

    Parameters
    ----------
    dps : int >= 0
        Decimal digits.

    Raises
    ------
    ValueError
        As :func:`flint_prec` (fewer than 2 bits).

    Examples
    --------
    >>> import flint
    >>> from exactdp.exact.arb import flint_dps
    >>> with flint_dps(30):
    ...     flint.ctx.prec
    164
    """
    with flint_prec(dps_to_prec(dps)):
        yield


# ------------------------------------------------------------------------------ conversions
def mpf_to_arb(x: mpmath.mpf) -> flint.arb:
    """The exact value of an mpmath ``mpf`` (sign kept) as an arb of radius 0.

    ``inf`` and ``-inf`` map to arb's infinities. Exact whatever the current flint precision
    (the mantissa and exponent are copied, not rounded).

    Parameters
    ----------
    x : mpmath.mpf

    Returns
    -------
    flint.arb
        ``x`` exactly (radius 0).

    Raises
    ------
    ValueError
        ``x`` not an mpf, or NaN (no enclosure).

    Examples
    --------
    >>> import mpmath
    >>> from exactdp.exact.arb import mpf_to_arb
    >>> b = mpf_to_arb(mpmath.mpf(-0.75))
    >>> b, b.is_exact()
    (-0.750000000000000, True)
    """
    if not isinstance(x, mpmath.mpf):
        raise argument_error("mpf_to_arb", "x", "an mpmath mpf", x)
    if mpmath.isnan(x):
        raise argument_error("mpf_to_arb", "x", "a number, not NaN (NaN has no enclosure)", x)
    if mpmath.isinf(x):
        return flint.arb("inf") if x > 0 else -flint.arb("inf")
    sign, man, exp, _ = x._mpf_
    return _dyadic(-int(man) if sign else int(man), int(exp))


def _dyadic(man: int, exp: int) -> flint.arb:
    """``man * 2**exp`` as an exact arb (the product is formed with enough bits)."""
    with flint_prec(max(abs(man).bit_length(), 2) + 8):
        return flint.arb(man) * flint.arb(2) ** exp


def float_to_arb(x: sympy.Float) -> flint.arb:
    """The exact binary value of a sympy ``Float`` (sign kept) as an arb of radius 0.

    Parameters
    ----------
    x : sympy.Float
        (Any sympy number equal to 0 gives the arb 0.)

    Returns
    -------
    flint.arb
        The binary number ``x`` stores, exactly (radius 0).

    Raises
    ------
    ValueError
        ``x`` not a sympy Float.
    """
    if x == 0 and isinstance(x, sympy.Number):
        return flint.arb(0)
    if not isinstance(x, sympy.Float):
        raise argument_error("float_to_arb", "x", "a sympy Float", x)
    return mpf_to_arb(mpmath.mp.make_mpf(x._mpf_))  # make_mpf: no rounding


def arb_mid_to_mpf(b: flint.arb) -> mpmath.mpf:
    """The midpoint of ``b`` as an exact mpmath ``mpf`` (sign kept; no rounding).

    Parameters
    ----------
    b : flint.arb

    Returns
    -------
    mpmath.mpf
        The midpoint (its precision is the mantissa's, whatever mpmath's working one).

    Raises
    ------
    ValueError
        The midpoint is not finite (flint's ``man_exp``).
    """
    mantissa, exp = b.mid().man_exp()
    return mpmath.mp.make_mpf(mpmath.libmp.from_man_exp(int(mantissa), int(exp)))


def arb_mid_to_float(b: flint.arb, dps: int | None = None) -> sympy.Float:
    """The midpoint of ``b`` as a sympy ``Float``.

    ``dps=None`` keeps every bit of the midpoint (for interval end points, where rounding
    could shrink an enclosure); otherwise it is rounded to ``dps`` digits.

    Parameters
    ----------
    b : flint.arb
    dps : int, optional
        Digits of the result; None: every bit (at least 53).

    Returns
    -------
    sympy.Float

    Raises
    ------
    ValueError
        The midpoint is not finite (flint's ``man_exp``).

    Examples
    --------
    >>> import flint
    >>> from exactdp.exact.arb import arb_mid_to_float
    >>> arb_mid_to_float(flint.arb(1) / 3, 10)
    0.3333333333
    """
    mantissa, exp = b.mid().man_exp()
    man = int(mantissa)
    bits = max(53, abs(man).bit_length())
    with mpmath.workprec(bits):
        v = mpmath.mpf((man, int(exp)))
    if dps is None:
        return sympy.Float(v, precision=bits)
    return sympy.Float(v, dps)


def arb_to_interval(b: flint.arb) -> tuple[sympy.Float, sympy.Float]:
    """End points ``(lower, upper)`` of ``b`` as sympy Floats (rounded outward, if at all).

    Parameters
    ----------
    b : flint.arb

    Returns
    -------
    (sympy.Float, sympy.Float)
        ``lower <= every point of b <= upper``.

    Raises
    ------
    ValueError
        An end point is not finite (flint's ``man_exp``).
    """
    with flint_prec(max(flint.ctx.prec, _exact_bits(b) + 64)):
        lo, hi = b.lower(), b.upper()
    return arb_mid_to_float(lo), arb_mid_to_float(hi)


def ball(mid: object, rad: object) -> flint.arb:
    """A ball containing ``[mid - |rad|, mid + |rad|]``; ``mid``, ``rad``: mpf, int or arb.

    Both numbers are taken exactly (mpf by mantissa and exponent, sign kept), and the radius
    of the result is rounded up, so the ball is rigorous whenever ``|rad|`` bounds the
    error of ``mid``.

    Parameters
    ----------
    mid : mpmath.mpf, int or flint.arb
        The centre (an arb's radius is added to ``|rad|``).
    rad : mpmath.mpf, int or flint.arb
        The radius (its sign is ignored).

    Returns
    -------
    flint.arb

    Raises
    ------
    ValueError
        ``mid`` or ``rad`` of another type (a Python float would hide its rounding).

    Examples
    --------
    >>> import mpmath
    >>> from exactdp.exact.arb import ball
    >>> b = ball(mpmath.mpf(1), -1)
    >>> b.lower() <= 0, b.upper() >= 2
    (True, True)
    """
    m = mid if isinstance(mid, flint.arb) else _exact_arb(mid, "mid")
    r = rad if isinstance(rad, flint.arb) else _exact_arb(rad, "rad")
    r = abs(r).upper()
    bits = max(64, _exact_bits(m.mid()), flint.ctx.prec)
    with flint_prec(bits):
        return flint.arb(m.mid(), (m.rad() + r).upper())


def _exact_arb(v: object, name: str) -> flint.arb:
    if isinstance(v, mpmath.mpf):
        return mpf_to_arb(v)
    if isinstance(v, int) and not isinstance(v, bool):
        return flint.arb(v)
    raise argument_error("ball", name, "an mpf, int or arb", v)


def _exact_bits(x: flint.arb) -> int:
    man, _ = x.mid().man_exp()
    return abs(int(man)).bit_length() + 2


# ------------------------------------------------------------------------------ to_arb
def to_arb(expr: object, prec: int = 128, env: dict | None = None) -> flint.arb:
    """Rigorous ball enclosure of a closed-form real number given as a sympy expression.

    The expression tree is evaluated bottom-up in arb arithmetic at ``prec`` bits; every
    node's ball contains the exact value, so the result does. Supported: integers,
    rationals, ``E``, ``pi``, ``EulerGamma``, sums, products, powers (integer exponents;
    ``sqrt`` and other rational exponents of non-negative bases; real exponents of positive
    bases), ``exp``, ``log``, ``erf``, ``erfc``, ``Abs``, ``sin``, ``cos``, ``Min``,
    ``Max``, and real algebraic numbers given as ``CRootOf`` (enclosed by sympy's exact
    rational isolating interval, refined to ``2**-prec``).

    Parameters
    ----------
    expr : sympy.Expr, int or fractions.Fraction
        A real number without free symbols.
    prec : int
        Working precision in bits (the radius is typically ``2**-prec`` relative; it can be
        larger after cancellation, and it is always proved).
    env : dict of sympy.Symbol to flint.arb, optional
        Balls for free symbols. Every arb operation is an inclusion function, so the result
        then encloses the *range* of ``expr`` over the boxes (interval evaluation; wide
        boxes give wide, still rigorous, enclosures).

    Returns
    -------
    flint.arb
        A finite ball containing ``expr``.

    Raises
    ------
    ValueError
        For free symbols, floats (exact paths refuse them), non-real values (for example
        ``(-8)**(1/3)`` in sympy's principal branch, ``log`` of a negative number) or
        unsupported functions; the message names the sub-expression.
    """
    e = as_exact(expr, "to_arb")
    with flint_prec(int(prec)):
        out = _arb(e, int(prec), env or {})
    if not out.is_finite():
        raise ValueError(f"to_arb: {e} is not a finite real number (ball {out})")
    return out


def as_exact(value: object, func: str) -> sympy.Expr:
    """``value`` (sympy number or expression, int, Fraction) as a sympy expression.

    Parameters
    ----------
    value : int, fractions.Fraction or sympy.Basic
    func : str
        The caller's name, for the error message.

    Returns
    -------
    sympy.Expr
        ``value`` itself for a sympy object; an Integer / Rational otherwise.

    Raises
    ------
    ValueError
        For floats (Python, numpy or sympy: exact paths refuse them), bools, strings and
        other types; the message names ``func``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from exactdp.exact.arb import as_exact
    >>> as_exact(Fraction(1, 3), "f")
    1/3
    >>> as_exact(0.5, "f")
    Traceback (most recent call last):
    ...
    ValueError: f: value must be an exact number (int, Fraction or sympy ...), not float, got 0.5
    """
    if isinstance(value, bool):
        raise argument_error(func, "value", "a number, not a bool", value)
    if isinstance(value, int):
        return sympy.Integer(value)
    if isinstance(value, Fraction):
        return sympy.Rational(value.numerator, value.denominator)
    if isinstance(value, sympy.Basic):
        if value.atoms(sympy.Float):
            raise argument_error(func, "value", "exact (no float inside)", value)
        return value
    raise argument_error(func, "value", "an exact number (int, Fraction or sympy expression), "
                         f"not {type(value).__name__}", value)


def _fail(e: sympy.Expr, why: str) -> ValueError:
    return ValueError(f"to_arb: {why}: {e}")


def _arb(e: sympy.Expr, prec: int, env: dict) -> flint.arb:  # noqa: C901 - one dispatch table
    if e.is_Integer:
        return flint.arb(int(e))
    if e.is_Rational:
        return flint.arb(flint.fmpq(int(e.p), int(e.q)))
    if e.is_Float:
        raise _fail(e, "refusing a float in an exact computation")
    if e is sympy.E:
        return flint.arb.const_e()
    if e is sympy.pi:
        return flint.arb.pi()
    if e is sympy.EulerGamma:
        return flint.arb.const_euler()
    if e.is_Symbol:
        if e in env:
            return env[e]
        raise _fail(e, f"free symbols {[str(e)]}")
    if e.free_symbols and not e.free_symbols <= env.keys():
        raise _fail(e, f"free symbols {sorted(map(str, e.free_symbols - env.keys()))}")
    if e.is_Add:
        out = flint.arb(0)
        for a in e.args:
            out += _arb(a, prec, env)
        return out
    if e.is_Mul:
        out = flint.arb(1)
        for a in e.args:
            out *= _arb(a, prec, env)
        return out
    if e.is_Pow:
        return _pow(e, prec, env)
    if isinstance(e, sympy.exp):
        return _exp(e.args[0], prec, env)
    unary = {
        sympy.log: "log",
        sympy.erf: "erf",
        sympy.erfc: "erfc",
        sympy.sin: "sin",
        sympy.cos: "cos",
    }
    for cls, name in unary.items():
        if isinstance(e, cls):
            if len(e.args) != 1:
                raise _fail(e, "unsupported number of arguments")
            x = _arb(e.args[0], prec, env)
            if cls is sympy.log and not x > 0:
                raise _fail(e, "log of a number not proved positive")
            return getattr(x, name)()
    if isinstance(e, sympy.Abs):
        return abs(_arb(e.args[0], prec, env))
    if isinstance(e, (sympy.Min, sympy.Max)):
        vals = [_arb(a, prec, env) for a in e.args]
        out = vals[0]
        for v in vals[1:]:
            out = out.min(v) if isinstance(e, sympy.Min) else out.max(v)
        return out
    if isinstance(e, sympy.CRootOf):
        return _crootof(e, prec)
    raise _fail(e, f"unsupported expression ({type(e).__name__})")


#: Extra bits :func:`_exp` may add for a large argument (``|x|`` up to ``2**4096``).
_EXP_EXTRA_BITS = 4096
_EXP_MEMO: dict[tuple, flint.arb] = {}  # exp balls by (closed argument, prec, flint's prec)


def _exp(arg: sympy.Expr, prec: int, env: dict) -> flint.arb:
    """``exp(arg)`` with ``arg`` enclosed to ``2**-prec`` *absolute* accuracy.

    The relative radius of ``exp(x)`` is about the absolute radius of ``x``, so an argument
    of magnitude ``2**m``, ``m > 8`` (a score of 1e300 gives ``m`` near 1000) is evaluated again at
    ``prec + m`` bits; arb's exponents are unbounded, so ``exp(-1e300)`` is a finite ball
    (Johansson 2017, section 2). Arguments above ``2**4096`` keep the plain evaluation.
    A closed argument's ball is kept: signs at rising precision meet it again (1e300 scores).
    """
    key = (arg, prec, flint.ctx.prec) if not arg.free_symbols else None
    if key is not None and key in _EXP_MEMO:
        return _EXP_MEMO[key]
    if len(_EXP_MEMO) > 4096:
        _EXP_MEMO.clear()
    out = _exp_ball(arg, prec, env)
    if key is not None:
        _EXP_MEMO[key] = out
    return out


def _exp_ball(arg: sympy.Expr, prec: int, env: dict) -> flint.arb:
    """:func:`_exp` without its memo."""
    x = _arb(arg, prec, env)
    if x.is_finite() and not x.is_zero():
        man, ex = abs(x).upper().mid().man_exp()
        mag = abs(int(man)).bit_length() + int(ex)
        if 8 < mag <= _EXP_EXTRA_BITS:
            bits = prec + mag + 8
            with flint_prec(bits):
                return _arb(arg, bits, env).exp()
    return x.exp()


#: Largest root index taken by arb's ``root`` (a C unsigned long; ``x**(1/10**300)`` is
#: ``exp(log(x) / 10**300)`` instead).
_ROOT_MAX = 2**32


def _pow(e: sympy.Pow, prec: int, env: dict) -> flint.arb:
    base, expo = e.args
    if base is sympy.E:
        return _exp(expo, prec, env)
    if expo.is_Integer:
        k = int(expo)
        b = _arb(base, prec, env)
        if k < 0 and b.contains(0):
            raise _fail(e, "negative power of a number not proved non-zero")
        return b**k if k >= 0 else 1 / b ** (-k)
    b = _arb(base, prec, env)
    if expo.is_Rational:
        p, q = int(expo.p), int(expo.q)
        if not b >= 0:
            raise _fail(e, "fractional power of a number not proved non-negative")
        if q > _ROOT_MAX and b > 0:  # arb's root takes a C long: exp(log(b) p/q) instead
            return (flint.arb(flint.fmpq(p, q)) * b.log()).exp()
        b = b.nonnegative_part()
        root = b.sqrt() if q == 2 else b.root(q)
        if p < 0 and root.contains(0):
            raise _fail(e, "negative power of a number not proved non-zero")
        return root**p if p >= 0 else 1 / root ** (-p)
    x = _arb(expo, prec, env)
    if b > 0:
        return (x * b.log()).exp()
    if b >= 0 and x > 0:  # t -> t**x is increasing on [0, oo): enclose by the end points
        lo, hi = b.lower(), b.upper()
        top = (x * hi.log()).exp()
        bottom = flint.arb(0) if lo <= 0 else (x * lo.log()).exp()
        return bottom.union(top).nonnegative_part()
    raise _fail(e, "real power of a number not proved positive")


def _crootof(e: sympy.CRootOf, prec: int) -> flint.arb:
    """A real ``CRootOf`` from sympy's exact isolating interval refined below ``2**-prec``."""
    if not e.is_real:
        raise _fail(e, "not a real algebraic number")
    width = sympy.Rational(1, 2 ** (prec + 8))
    mid = e.eval_rational(dx=width, dy=width)
    m = flint.arb(flint.fmpq(int(mid.p), int(mid.q)))
    return m + flint.arb(0, flint.arb(flint.fmpq(1, 2 ** (prec + 8))).upper())
