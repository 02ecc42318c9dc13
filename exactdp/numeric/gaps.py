"""Validation of scaled gaps shared by the numeric engines (Laplace, Gaussian).

A scaled gap is ``d_r = (q* - q_r)/b >= 0`` in units of the noise scale ``b`` (the best item
has ``d = 0``); see :mod:`exactdp.numeric.laplace` for the convention. Every error is a
ValueError naming the function, the argument and the value, in the package's one style
(:mod:`exactdp._validate`): ``laplace_mp: d[1] must be a non-negative gap (or +inf), got -1``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from numbers import Integral, Real
from typing import cast

import mpmath
import numpy as np
import sympy

from .._validate import argument_error, check_nonempty
from ..cost import TooCostly

# --------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------


def fail_value(func: str, arg: str, msg: str) -> ValueError:
    """``{func}: {arg} {msg}`` with ``msg`` starting "must ..." (the one style, for
    messages that are not ``must be {what}, got {value!r}``)."""
    return ValueError(f"{func}: {arg} {msg}")


def as_list(values: object, func: str, arg: str) -> list:
    """``values`` as a non-empty list.

    Raises
    ------
    ValueError
        If it is a string, None, not iterable or empty.
    """
    if isinstance(values, (str, bytes)) or values is None:
        raise argument_error(func, arg, "a sequence of numbers", values)
    try:
        out = (
            list(np.asarray(values, dtype=object).ravel())
            if isinstance(values, np.ndarray)
            else list(cast(Iterable, values))
        )
    except TypeError:
        raise argument_error(func, arg, "a sequence of numbers", values) from None
    return list(check_nonempty(func, arg, out))


def check_int_gaps(G: Sequence[int], func: str) -> list[int]:
    """The integer gaps ``G`` shifted so that the smallest is 0.

    Raises
    ------
    ValueError
        If ``G`` is empty or an entry is not a non-negative integer.
    """
    vals = as_list(G, func, "G")
    out = []
    for i, g in enumerate(vals):
        if isinstance(g, bool) or not isinstance(g, (Integral, sympy.Integer)) or g < 0:
            raise argument_error(func, f"G[{i}]", "a non-negative integer", g)
        out.append(int(g))
    m = min(out)
    return [g - m for g in out]  # shift-invariance: the best item gets gap 0


def check_lam(lam: object, func: str) -> sympy.Expr:
    """``lam`` as an exact positive sympy expression.

    Raises
    ------
    ValueError
        If it is a float, not sympifiable, contains a Float, or is not provably positive.
    """
    if isinstance(lam, float):
        raise argument_error(func, "lam", "an exact sympy number or Symbol, not a float", lam)
    try:
        value: sympy.Expr = sympy.sympify(lam, strict=True)
    except (sympy.SympifyError, TypeError):
        raise argument_error(func, "lam", "a positive sympy expression", lam) from None
    if value.has(sympy.Float):
        raise argument_error(func, "lam", "exact (no Float inside)", value)
    if value.is_positive is not True or value.is_finite is False:
        raise argument_error(func, "lam", "positive (declare Symbols with positive=True)", value)
    return value


def _check_real_gap(v: object, i: int, func: str) -> None:
    """Reject NaN, negative and non-real gaps (inf allowed) - shared by mp/float paths."""
    if isinstance(v, bool):
        raise argument_error(func, f"d[{i}]", "a real number", v)


def mp_gaps(d: Sequence, func: str) -> list:
    """Gaps as mpf at the current mpmath precision; ``mpmath.inf`` kept; bad input raises."""
    vals = as_list(d, func, "d")
    out = []
    for i, v in enumerate(vals):
        _check_real_gap(v, i, func)
        try:
            if isinstance(v, sympy.Basic):
                if v.free_symbols:
                    raise TypeError
                if v == sympy.oo:
                    x = mpmath.inf
                else:
                    x = mpmath.mpf(sympy.N(v, mpmath.mp.dps + 15))
            elif isinstance(v, Fraction):
                x = mpmath.mpf(v.numerator) / v.denominator
            elif isinstance(v, (Real, mpmath.mpf, np.floating, np.integer)):
                x = mpmath.mpf(v)
            else:
                raise TypeError
        except (TypeError, ValueError):
            raise argument_error(func, f"d[{i}]", "a real number", v) from None
        if mpmath.isnan(x) or x < 0:
            raise argument_error(func, f"d[{i}]", "a non-negative gap (or +inf)", v)
        out.append(x)
    if all(mpmath.isinf(x) for x in out):
        raise argument_error(func, "d", "a vector with at least one finite gap", d)
    return out


def float_gaps(d: object, func: str) -> np.ndarray:
    """The gaps ``d`` as a 1-D float64 array.

    Raises
    ------
    ValueError
        If ``d`` is not a non-empty 1-D array of gaps >= 0 (or +inf) with one finite.
    """
    if isinstance(d, (str, bytes)) or d is None:
        raise argument_error(func, "d", "an array of real numbers", d)
    if isinstance(d, np.ndarray) and d.dtype == np.bool_:
        raise argument_error(func, "d", "an array of real numbers, not of booleans", d)
    if not isinstance(d, np.ndarray) or d.dtype == object:
        for i, v in enumerate(np.ravel(np.asarray(d, dtype=object))):
            if isinstance(v, (bool, np.bool_)):
                raise argument_error(func, f"d[{i}]", "a real number", v)
    try:
        arr = np.asarray(d, dtype=np.float64)
    except (TypeError, ValueError):
        raise argument_error(func, "d", "an array of real numbers", d) from None
    if arr.ndim != 1 or arr.size == 0:
        raise argument_error(func, "d.shape", "(n,) with n >= 1 (a non-empty 1-D array)",
                             arr.shape)
    bad = np.isnan(arr) | (arr < 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise argument_error(func, f"d[{i}]", "a non-negative gap (or +inf)", arr[i])
    if np.isinf(arr).all():
        raise argument_error(func, "d", "a vector with at least one finite gap", d)
    return arr
LN2 = math.log(2.0)


#: Above this size of ``rate * gap``, an exact coin ``exp(-rate * gap)`` containing a logarithm is
#: refused: sympy would turn ``exp(-10**300 * log(2)/2)`` into ``2**(-5*10**299)`` and
#: never finish. (``exp(-5*10**299)`` itself is harmless.)
_HUGE_EXPONENT = 10**6

#: Largest exponent of x handled by dense flint polynomials; beyond it each distinct gap
#: gets its own generator (sparse), so gaps such as 10**300 stay exact.
DENSE_DEGREE_LIMIT = 200_000


def coin(gap, rate) -> sympy.Expr:
    """The exact coin ``exp(-rate * gap)`` (1 for a zero gap), safe for astronomical gaps."""
    if gap == 0:
        return sympy.Integer(1)
    arg = -rate * gap
    huge = False
    if arg.has(sympy.log) and arg.is_number:  # the size of the exponent, not of the gap
        huge = abs(sympy.N(arg, 15)) > _HUGE_EXPONENT
    if huge:
        raise TooCostly(
            f"exact probabilities: the coin exp({arg}) would expand to a power with an "
            "astronomical exponent (epsilon contains a logarithm and a score gap is huge); "
            "use .rational_form(), .evalf(dps) or .to_numpy() instead"
        )
    return sympy.exp(arg)
