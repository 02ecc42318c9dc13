"""Exact scaled gaps for the ball routes of the PF / EM engine.

Each gap (int, Fraction, float by its exact binary value, mpmath mpf, flint arb, or a string
such as ``"1/3"``, ``"0.1"``, ``"inf"``) becomes an arb ball; exactly equal gaps are grouped
so that every route works once per distinct gap.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import flint
import mpmath
import numpy as np

from ..._validate import argument_error, check_int, check_nonempty
from ...exact.arb import flint_prec
from .scheme import fail_nonneg


def _to_arb(v: object, func: str, i: int) -> tuple[object, flint.arb | None]:
    """``(key, value)`` for one gap: key groups exactly equal gaps; value None means +inf."""
    if isinstance(v, bool):
        raise fail_nonneg(func, f"[{i}]", v)
    if isinstance(v, str):
        s = v.strip()
        if s.lower() in ("inf", "+inf", "oo", "infinity"):
            return ("inf",), None
        if is_plain_decimal(s):
            q = Fraction(s)
            return ("q", q), _arb_from_fraction(q)
        try:
            val = flint.arb(s)
        except (ValueError, TypeError) as exc:
            raise argument_error(func, f"d[{i}]", f"a number ({exc})", v) from None
        return ("s", s), val
    if isinstance(v, flint.arb):
        if v.is_exact() and v.is_finite():
            m, e = v.mid().man_exp()
            return ("q", Fraction(int(m)) * Fraction(2) ** int(e)), v
        if v.is_finite():
            return ("arb", v.str(radius=True, more=True)), v
        if v.mid().is_finite() is False and v.rad() == 0 and v > 0:
            return ("inf",), None
        raise fail_nonneg(func, f"[{i}]", v)
    if isinstance(v, mpmath.mpf):
        if mpmath.isinf(v) and v > 0:
            return ("inf",), None
        if mpmath.isnan(v) or mpmath.isinf(v):
            raise fail_nonneg(func, f"[{i}]", v)
        sign, man, exp, _ = v._mpf_
        q = Fraction(int(man) * (-1 if sign else 1)) * Fraction(2) ** int(exp)
        return ("q", q), flint.arb((int(man) * (-1 if sign else 1), int(exp)))
    if isinstance(v, (int, np.integer)):
        return ("q", Fraction(int(v))), flint.arb(int(v))
    if isinstance(v, Fraction):
        return ("q", v), _arb_from_fraction(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if math.isinf(f) and f > 0:
            return ("inf",), None
        if not math.isfinite(f):
            raise fail_nonneg(func, f"[{i}]", v)
        q = Fraction(f)
        return ("q", q), _arb_from_fraction(q)
    raise argument_error(func, f"d[{i}]", f"a number (unsupported type {type(v).__name__})", v)


def _arb_from_fraction(q: Fraction) -> flint.arb:
    """``q`` as a ball: exact when dyadic, else rounded with as many extra bits as the
    integer part has (so that ``exp(-q)`` keeps its relative accuracy)."""
    den = q.denominator
    if den & (den - 1) == 0:
        return flint.arb((q.numerator, -(den.bit_length() - 1)))
    extra = max(0, abs(q.numerator // den).bit_length())
    with flint_prec(flint.ctx.prec + extra):
        val = flint.arb(flint.fmpq(q.numerator, den))
    return val


def exp_neg(v: flint.arb) -> flint.arb:
    """``exp(-v)`` with extra working bits for large ``v`` (relative accuracy kept)."""
    m, e = v.mid().man_exp()
    extra = max(0, int(m).bit_length() + int(e)) if m else 0
    if extra <= 8:
        return (-v).exp()
    with flint_prec(flint.ctx.prec + extra + 10):
        return (-v).exp()


def is_plain_decimal(s: str) -> bool:
    """Whether ``s`` parses as a :class:`fractions.Fraction`."""
    try:
        Fraction(s)
    except (ValueError, ZeroDivisionError):
        return False
    return True


def exact_groups(d: Sequence, func: str) -> tuple[list, list[int], int]:
    """Group the gaps: ``(groups, index_to_group, n)``, group = [value or None, count]."""
    try:
        items = list(d)
    except TypeError:
        raise argument_error(func, "d", "a sequence of numbers", d) from None
    check_nonempty(func, "d", items)
    groups: list = []
    where: dict = {}
    index: list[int] = []
    has_zero = False
    for i, v in enumerate(items):
        key, val = _to_arb(v, func, i)
        if val is not None:
            if val < 0:
                raise fail_nonneg(func, f"[{i}]", v)
            if not val >= 0:  # straddles 0: the contract says d >= 0
                val = val.nonnegative_part()
            if key == ("q", Fraction(0)):
                has_zero = True
        g = where.get(key)
        if g is None:
            g = where[key] = len(groups)
            groups.append([val, 0])
        groups[g][1] += 1
        index.append(g)
    if not has_zero:
        raise argument_error(func, "d", "a sequence containing an exact 0 (the maximizers have "
                             "gap 0)", d)
    return groups, index, len(items)


def sequence_length(d: object, func: str) -> int:
    """``len(d)``.

    Raises
    ------
    ValueError
        If ``d`` is a string or has no length.
    """
    if isinstance(d, (str, bytes)):
        raise argument_error(func, "d", "a sequence of numbers", d)
    try:
        return len(d)  # type: ignore[arg-type]  # any object: len() is the test
    except TypeError:
        raise argument_error(func, "d", "a sequence of numbers", d) from None


def arb_to_mpf(a: flint.arb) -> mpmath.mpf:
    """Midpoint of ``a`` rounded to the current mpmath precision."""
    m, e = a.mid().man_exp()
    return mpmath.mpf((int(m), int(e)))


def check_dps(dps: object, func: str) -> int:
    """``dps`` as a positive ``int``.

    Raises
    ------
    ValueError
        If it is not a positive integer.
    """
    return check_int(func, "dps", dps, 1)

