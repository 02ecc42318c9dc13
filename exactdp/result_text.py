"""Text of exact numbers for reprs and summaries: never a rounded value that reads as exact.

:func:`decimal_text` prints a number within ``10**-dps`` of +-1 as its distance to 1
(``1 - 1.68e-63``, not ``1.0``); :func:`field_text` prints a summary's field, a long exact
expression as its decimals and certified ball unless the full text is asked for;
:func:`longer_than` tells a long expression without printing it. :mod:`exactdp.result`
builds every result's repr and summary on them (layer 2, beside :mod:`exactdp.printing`).
"""

from __future__ import annotations

from fractions import Fraction

import flint
import mpmath
import sympy

from .exact.arb import enclose
from .printing import exact_text, format_number

#: Digits of the decimals in reprs and notebook cells (:data:`exactdp.result.SHOW_DPS`).
SHOW_DPS = 6
#: Longest exact text a ``summary()`` shows in full (longer: decimals and the ball).
SUMMARY_EXACT_LIMIT = 400


def longer_than(value: object, limit: int) -> bool:
    """True when ``value``'s text surely has more than ``limit`` characters: a sympy
    expression of more than ``limit`` nodes (each prints at least one character), decided
    without printing it (printing a 7,600-operation expression takes seconds)."""
    if not isinstance(value, sympy.Basic):
        return False
    for count, _ in enumerate(sympy.preorder_traversal(value)):
        if count >= limit:
            return True
    return False


def _exact_number(value: object) -> sympy.Expr | None:
    """``value`` as an exact sympy number without symbols or Floats, or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, Fraction):
        return sympy.Rational(value.numerator, value.denominator)
    if isinstance(value, int):
        return sympy.Integer(value)
    if (isinstance(value, sympy.Expr) and not value.free_symbols and value.is_number
            and not value.atoms(sympy.Float)):
        return value
    return None


def _ball_decimals(b: flint.arb, dps: int) -> str:
    """The midpoint of a ball (at least ``dps`` digits right) in ``dps`` digits."""
    man, exp = b.mid().man_exp()
    with mpmath.workprec(max(53, abs(int(man)).bit_length())):
        return format_number(mpmath.mpf((int(man), int(exp))), dps)


def decimal_text(value: object, dps: int = SHOW_DPS) -> str:
    """Decimals of an exact number, never a rounded ``1`` for a number that is not 1.

    A number within ``10**-dps`` of +-1 but not +-1 prints as ``1 - 1.67878e-63`` (or
    ``1 + ...``, ``-1 + ...``): the distance to 1 enclosed in a rigorous 20-digit ball, then
    rounded, so a delta of ``1 - 1.68e-63`` reads as itself, not as ``1.0``; a non-zero
    number whose float evaluation cancels to ``0`` (a loss ``log(1 + 5e-31)``) prints from
    its ball too (``5.0e-31``). Other numbers
    print as :func:`exactdp.printing.format_number` does.
    """
    dec = format_number(value, dps)
    exact = _exact_number(value)
    if exact is None or exact in (sympy.oo, -sympy.oo):
        return dec
    if dec.lstrip("-") in ("0", "0.0") and exact != 0:  # cancellation: enclose the value
        try:
            ball = enclose(exact, 20)
        except ValueError:
            return dec
        if ball > 0 or ball < 0:  # rigorous: a small non-zero number prints as itself
            return ("-" if ball < 0 else "") + _ball_decimals(abs(ball), dps)
        return dec
    if dec.lstrip("-") not in ("1", "1.0") and not dec.lstrip("-").startswith(
            ("0.99999", "1.00000")):
        return dec
    for one in (sympy.Integer(1), sympy.Integer(-1)):
        gap = one - exact
        if gap == 0:
            return format_number(exact, dps)
        try:
            ball = enclose(gap, 20)
        except ValueError:
            continue
        if abs(ball) < flint.arb(10) ** -dps and (ball > 0 or ball < 0):  # rigorous
            sign = "-" if ball > 0 else "+"
            return f"{format_number(one, dps)} {sign} {_ball_decimals(abs(ball), dps)}"
    return dec


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def field_text(value: object, full: bool = False) -> str:
    """A field's text in a summary: short exact text in full; a long exact expression as
    its decimals and certified ball unless ``full``; other values by their ``repr``."""
    if isinstance(value, str):
        return value
    if not isinstance(value, sympy.Basic):
        return repr(value)
    text = exact_text(value, "text") if full or not longer_than(
        value, SUMMARY_EXACT_LIMIT) else None
    if full or (text is not None and len(text) <= SUMMARY_EXACT_LIMIT):
        return text if text is not None else "<expression beyond Python's int-to-str limit>"
    size = (f"more than {SUMMARY_EXACT_LIMIT} characters" if text is None
            else f"{len(text):,} characters")
    exact = _exact_number(value)
    if exact is None:  # symbolic: its text cut
        return _cut(text or "<expression>", SUMMARY_EXACT_LIMIT) + f" ({size})"
    try:
        ball = enclose(exact, SHOW_DPS + 4)
    except ValueError:
        return _cut(text or "<expression>", SUMMARY_EXACT_LIMIT) + f" ({size})"
    return (f"{decimal_text(exact)}, certified ball {ball.str(SHOW_DPS + 2)} (exact "
            f"expression: {size}; summary(full=True) or .value shows it)")
