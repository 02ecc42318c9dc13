"""Validation of scaled gaps shared by the numeric engines (Laplace, Gaussian).

A scaled gap is ``d_r = (q* - q_r)/b >= 0`` in units of the noise scale ``b`` (the best item
has ``d = 0``); see :mod:`exactdp.numeric.laplace` for the convention. Every error is a
ValueError naming the function, the argument and the value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from numbers import Integral, Real

import mpmath
import numpy as np
import sympy

# --------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------


def fail_value(func: str, arg: str, msg: str) -> ValueError:
    return ValueError(f"{func}: argument {arg!r} {msg}")


def as_list(values: object, func: str, arg: str) -> list:
    if isinstance(values, (str, bytes)) or values is None:
        raise fail_value(func, arg, f"must be a sequence of numbers, got {values!r}")
    try:
        out = (
            list(np.asarray(values, dtype=object).ravel())
            if isinstance(values, np.ndarray)
            else list(values)
        )
    except TypeError:
        raise fail_value(func, arg, f"must be a sequence of numbers, got {values!r}") from None
    if not out:
        raise fail_value(func, arg, "must contain at least one gap, got an empty sequence")
    return out


def check_int_gaps(G: Sequence[int], func: str) -> list[int]:
    vals = as_list(G, func, "G")
    out = []
    for i, g in enumerate(vals):
        if isinstance(g, bool) or not isinstance(g, (Integral, sympy.Integer)):
            raise fail_value(func, "G", f"must hold non-negative integers; G[{i}] = {g!r}")
        g = int(g)
        if g < 0:
            raise fail_value(func, "G", f"must hold non-negative integers; G[{i}] = {g}")
        out.append(g)
    m = min(out)
    return [g - m for g in out]  # shift-invariance: the best item gets gap 0


def check_lam(lam: object, func: str) -> sympy.Expr:
    if isinstance(lam, float):
        raise fail_value(func, "lam", f"must be an exact sympy number or Symbol, got float {lam!r}")
    try:
        lam = sympy.sympify(lam, strict=True)
    except (sympy.SympifyError, TypeError):
        raise fail_value(func, "lam", f"must be a positive sympy expression, got {lam!r}") from None
    if lam.has(sympy.Float):
        raise fail_value(func, "lam", f"must be exact (no Float inside), got {lam!r}")
    if lam.is_positive is not True or lam.is_finite is False:
        raise fail_value(
            func,
            "lam",
            f"must be positive (declare Symbols with positive=True), got {lam!r}",
        )
    return lam


def _check_real_gap(v: object, i: int, func: str) -> None:
    """Reject NaN, negative and non-real gaps (inf allowed) - shared by mp/float paths."""
    if isinstance(v, bool):
        raise fail_value(func, "d", f"must hold real numbers; d[{i}] = {v!r}")


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
            raise fail_value(func, "d", f"must hold real numbers; d[{i}] = {v!r}") from None
        if mpmath.isnan(x) or x < 0:
            raise fail_value(func, "d", f"must hold non-negative gaps (or +inf); d[{i}] = {v!r}")
        out.append(x)
    if all(mpmath.isinf(x) for x in out):
        raise fail_value(func, "d", "must contain at least one finite gap")
    return out


def float_gaps(d: object, func: str) -> np.ndarray:
    if isinstance(d, (str, bytes)) or d is None:
        raise fail_value(func, "d", f"must be an array of real numbers, got {d!r}")
    if isinstance(d, np.ndarray) and d.dtype == np.bool_:
        raise fail_value(func, "d", "must hold real numbers, got a boolean array")
    if not isinstance(d, np.ndarray) or d.dtype == object:
        for i, v in enumerate(np.ravel(np.asarray(d, dtype=object))):
            if isinstance(v, (bool, np.bool_)):
                raise fail_value(func, "d", f"must hold real numbers; d[{i}] = {v!r}")
    try:
        arr = np.asarray(d, dtype=np.float64)
    except (TypeError, ValueError):
        raise fail_value(func, "d", f"must be an array of real numbers, got {d!r}") from None
    if arr.ndim != 1 or arr.size == 0:
        raise fail_value(func, "d", f"must be a non-empty 1-D array, got shape {arr.shape}")
    bad = np.isnan(arr) | (arr < 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise fail_value(func, "d", f"must hold non-negative gaps (or +inf); d[{i}] = {arr[i]!r}")
    if np.isinf(arr).all():
        raise fail_value(func, "d", "must contain at least one finite gap")
    return arr
LN2 = math.log(2.0)
