"""Text of exact numbers for reprs and summaries: never a rounded value that reads as exact.

:func:`decimal_text` prints a number within ``10**-dps`` of +-1 as its distance to 1
(``1 - 1.68e-63``, not ``1.0``); :func:`field_text` prints a summary's field, a long exact
expression as its decimals and certified ball unless the full text is asked for;
:func:`longer_than` tells a long expression without printing it. :mod:`exactdp.result`
builds every result's repr and summary on them (layer 2, beside :mod:`exactdp.printing`).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import flint
import mpmath
import sympy

from .exact.enclosure import enclose
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
    """The midpoint's magnitude of a ball (at least ``dps`` digits right) in ``dps`` digits,
    read from its exact mantissa and exponent (``abs(b)`` would round it to the context's
    53 bits)."""
    m, exp = b.mid().man_exp()
    man = abs(int(m))
    with mpmath.workprec(max(53, man.bit_length())):
        return format_number(mpmath.mpf((man, int(exp))), dps)


def decimal_text(value: object, dps: int = SHOW_DPS) -> str:
    """Decimals of an exact number, never a rounded ``1`` for a number that is not 1.

    A number within ``10**-dps`` of +-1 but not +-1 prints as ``1 - 1.67878e-63`` (or
    ``1 + ...``, ``-1 + ...``): the distance to 1 enclosed in a rigorous 20-digit ball, then
    rounded, so a delta of ``1 - 1.68e-63`` reads as itself, not as ``1.0``; a non-zero
    number whose float evaluation cancels to ``0`` (a loss ``log(1 + 5e-31)``) prints from
    its ball too (``5.0e-31``); a number agreeing beyond ``2 dps`` digits with a short
    decimal it is not prints as that decimal plus its offset (``0.5 + 1.25e-301``, a
    near-tie at 1/2). Other numbers print as :func:`exactdp.printing.format_number` does.
    """
    dec = format_number(value, dps)
    exact = _exact_number(value)
    if exact is None or exact in (sympy.oo, -sympy.oo):
        return dec
    if dec.lstrip("-") in ("0", "0.0") and exact != 0:  # cancellation: enclose the value
        try:
            ball = enclose(exact, max(20, dps + 3))
        except ValueError:
            return dec
        if ball > 0 or ball < 0:  # rigorous: a small non-zero number prints as itself
            return ("-" if ball < 0 else "") + _ball_decimals(ball, dps)
        return dec
    if dec.lstrip("-") not in ("1", "1.0") and not dec.lstrip("-").startswith(
            ("0.99999", "1.00000")):
        return _near_short(exact, dec, dps)
    for one in (sympy.Integer(1), sympy.Integer(-1)):
        gap = one - exact
        if gap == 0:
            return format_number(exact, dps)
        near = _gap_ball(gap, dps + 3)
        if near is None:
            continue
        if abs(near) < flint.arb(10) ** -dps and (near > 0 or near < 0):  # rigorous
            sign = "-" if near > 0 else "+"
            return f"{format_number(one, dps)} {sign} {_ball_decimals(near, dps)}"
    return dec


def _significant(dec: str) -> int:
    """The significant digits of a decimal text (``0.5``: 1, ``2.5e-301``: 2)."""
    digits = dec.lstrip("-").split("e")[0].replace(".", "").lstrip("0")
    return len(digits) if digits.isdigit() else 0


#: Most bits of the ball that tells a short decimal's offset (:func:`_near_short`).
_SHORT_BITS = 4096


def _binary64(exact: sympy.Expr) -> bool:
    """Whether ``exact`` is a binary64 float's exact value (an input such as
    ``epsilon=1e-9``): it prints as its short decimal, as Python prints the float."""
    if not exact.is_Rational or exact.q & (exact.q - 1):  # not a power-of-two denominator
        return False
    try:
        return Fraction(float(exact)) == Fraction(int(exact.p), int(exact.q))
    except OverflowError:
        return False


def _near_short(exact: sympy.Expr, dec: str, dps: int) -> str:
    """``dec``, or ``dec`` plus the rigorous offset (``0.5 + 1.25e-301``) when ``dec`` is a
    short decimal (fewer than ``dps`` significant digits, so it reads as exact) that
    ``exact`` is not but agrees with beyond ``2 dps`` digits: a near-tie at ``1/2`` reads
    as itself, not as ``0.5``; an ordinary rounding (``0.5000003`` as ``0.5``) and a
    binary64 float's value (``1e-9`` given as a float) stay."""
    if not 0 < _significant(dec) < dps or longer_than(exact, _TOGETHER_OPS):
        return dec  # a long expression (a score of 1e300): its ball takes seconds
    try:
        shown = sympy.Rational(dec)
    except (TypeError, ValueError):
        return dec
    if shown == 0 or (exact - shown) == 0 or _binary64(exact):
        return dec
    try:  # a few thousand bits: a near-tie at 1e-300 needs about 1,000; no 1e300 scores
        ball = enclose(exact - shown, 20, max_prec=_SHORT_BITS)
    except ValueError:
        return dec
    if not (ball > 0 or ball < 0) or not (
            abs(ball) < flint.arb(10) ** (-2 * dps) * abs(flint.arb(str(shown.p)) / shown.q)):
        return dec
    return offset_text(exact, dec, dps) or dec


def _gap_ball(gap: sympy.Expr, digits: int = 20) -> flint.arb | None:
    """A rigorous ball of ``gap`` (a distance to +-1) with ``digits`` correct digits (at
    least 20), or None if not enclosed.

    A gap below the working precision's reach (``1 - 1/(exp(-500000) + 1)``, about
    ``10**-217148``, cancels in every ball up to 65536 bits) is enclosed again over one
    fraction (``sympy.together``: ``exp(-500000)/(exp(-500000) + 1)``), which has no
    cancellation, when the expression is small enough for that to be cheap.
    """
    digits = max(20, digits)
    try:
        ball = enclose(gap, digits)
    except ValueError:
        return None
    if (ball > 0 or ball < 0) or sympy.count_ops(gap) > _TOGETHER_OPS:
        return ball
    try:
        return enclose(sympy.together(gap), digits)
    except ValueError:
        return ball


#: At most this many operations in a gap to 1 that cancels: put over one fraction.
_TOGETHER_OPS = 60


def offset_text(value: sympy.Expr, shown: str, dps: int = SHOW_DPS) -> str | None:
    """``0.5 + 2.5e-301``: an exact ``value`` as the decimal ``shown`` (its rounding to a
    few digits) plus the rigorous offset from it, for values whose roundings tie.

    The offset ``value - shown`` is enclosed in an arb ball of ``dps + 3`` (at least 20)
    correct digits (over one fraction when it cancels, as for a gap to 1) and printed to
    ``dps`` digits: every digit comes from the ball, none from a float. ``shown`` may
    also be an exact fraction (``1/3``: the common value of a near-tie, :func:`untie`).
    Returns ``shown`` when the offset is exactly 0, None when the ball cannot separate it
    from 0.

    Examples
    --------
    >>> offset_text(sympy.Rational(1, 2) + sympy.Rational(1, 10**40), "0.5")
    '0.5 + 1.0e-40'
    >>> offset_text(sympy.Rational(1, 3) - sympy.Rational(1, 10**40), "1/3")
    '1/3 - 1.0e-40'
    """
    gap = value - sympy.Rational(shown)
    if gap == 0:
        return shown
    ball = _gap_ball(gap, dps + 3)
    if ball is None or not (ball > 0 or ball < 0):
        return None
    return f"{shown} {'+' if ball > 0 else '-'} {_ball_decimals(ball, dps)}"


def _simplest_between(lo: Fraction, hi: Fraction) -> Fraction:
    """The rational of least denominator in ``[lo, hi]`` (``0 < lo <= hi``), by continued
    fractions (the Stern-Brocot descent; Khinchin, *Continued Fractions*, 1964, sec. 6)."""
    a = lo.numerator // lo.denominator
    if Fraction(a) == lo or a + 1 <= hi:
        return Fraction(a) if Fraction(a) == lo else Fraction(a + 1)
    # lo and hi share the integer part a: recurse on the reciprocals of the fractional parts
    return a + 1 / _simplest_between(1 / (hi - a), 1 / (lo - a))


def _common_value(text: str, values: list, dps: int) -> str | None:
    """The exact common value of near-tied ``values`` that all print as ``text``: the
    simplest fraction in ``text``'s rounding interval (``1/3`` for ``0.333333``), as a
    string, when every value is within ``10**(-dps - 3)`` of it (relative; checked on arb
    balls: offsets from it then show digits the decimal head's offsets would not separate);
    None otherwise (an ordinary rounding, or a value not enclosed)."""
    try:
        shown = Fraction(sympy.Rational(text.split(" ")[0]).p,
                         sympy.Rational(text.split(" ")[0]).q)
    except (TypeError, ValueError):
        return None
    if shown <= 0 or _significant(text) == 0:
        return None
    e = len(str(shown.numerator)) - len(str(shown.denominator))  # 10**e <= shown < 10**(e+1)
    while Fraction(10) ** e > shown:
        e -= 1
    while Fraction(10) ** (e + 1) <= shown:
        e += 1
    half_ulp = Fraction(10) ** (e + 1 - _significant(text)) / 2
    r = _simplest_between(shown - half_ulp, shown + half_ulp)
    if r.denominator > 10 ** max(1, dps // 3):
        return None
    for v in values:
        try:
            ball = enclose(v - sympy.Rational(r.numerator, r.denominator), 20,
                           max_prec=_SHORT_BITS)
        except ValueError:
            return None
        if not abs(ball) < flint.arb(10) ** (-dps - 3) * (flint.arb(r.numerator)
                                                            / r.denominator):
            return None
    return str(r) if r.denominator > 1 else str(r.numerator)


def untie(texts: list[str], values: list, dps: int = SHOW_DPS) -> list[str]:
    """``texts`` (decimals of exact ``values``) with each group of equal texts whose exact
    values differ shown as the common decimals plus each value's rigorous offset
    (:func:`offset_text`: ``0.5 + 1.25e-301`` and ``0.5 - 1.25e-301``, not ``0.5`` twice).
    A true tie (equal exact values) and a value whose offset is not separated from 0 keep
    their text. The tables (:mod:`exactdp.io.latex`) and ``exactdp analyse`` print near-ties
    through it.

    Examples
    --------
    >>> half, tiny = sympy.Rational(1, 2), sympy.Rational(1, 10**40)
    >>> untie(["0.5", "0.5", "0.5"], [half + tiny, half - tiny, half])
    ['0.5 + 1.0e-40', '0.5 - 1.0e-40', '0.5']
    """
    out = list(texts)
    for t in {t for t in texts if texts.count(t) > 1}:
        rows = [i for i, x in enumerate(texts) if x == t]
        if len({values[i] for i in rows}) == 1:  # equal exact forms: a true tie
            continue
        exacts = [_exact_number(values[i]) for i in rows]
        head = t
        if all(e is not None for e in exacts):
            common = _common_value(t, exacts, dps)
            if common is not None and sympy.Rational(common) != sympy.Rational(t):
                head = common  # 1/3: a decimal head would not terminate
        for i, exact in zip(rows, exacts, strict=True):
            text = None if exact is None else offset_text(exact, head, dps)
            if text is not None:
                out[i] = text
    return out


def _directed(x: Fraction, digits: int, up: bool) -> str:
    """``x`` rounded towards +oo (``up``) or -oo to ``digits`` significant digits, in
    decimals (trailing zeros kept: they are digits of the bound)."""
    if x == 0:
        return "0"
    a = abs(x)
    e = len(str(a.numerator)) - len(str(a.denominator))  # 10**e <= a < 10**(e + 1)
    while Fraction(10) ** e > a:
        e -= 1
    while Fraction(10) ** (e + 1) <= a:
        e += 1
    p = e - digits + 1  # the power of ten of the last digit
    m = a / Fraction(10) ** p
    away = up == (x > 0)  # rounding the magnitude away from 0
    n = -(-m.numerator // m.denominator) if away else m.numerator // m.denominator
    sign = "-" if x < 0 and n else ""
    text = str(n)
    if -5 <= e < 6:
        if p >= 0:
            return sign + str(n * 10**p)
        text = text.rjust(1 - p, "0")
        return f"{sign}{text[:p]}.{text[p:]}"
    return f"{sign}{text[0]}.{text[1:]}e{p + len(text) - 1:+d}".replace(".e", "e")


def _binary(v: object) -> Fraction:
    """An exact rational end point as a Fraction (a sympy Float by its binary value)."""
    if isinstance(v, sympy.Float):
        man, exp = mpmath.mpf(v._to_mpmath(v._prec)).man_exp
        return Fraction(int(man) * 2 ** int(exp)) if exp >= 0 else Fraction(int(man),
                                                                           2 ** -int(exp))
    if isinstance(v, sympy.Rational):
        return Fraction(int(v.p), int(v.q))
    return Fraction(v)  # type: ignore[call-overload]


def bracket_text(lo: object, hi: object, digits: int = SHOW_DPS) -> str:
    """``[lo, hi]`` with each end rounded outward to ``digits`` significant digits: the
    printed bracket contains the certified one (``[0.972808, 1.00001]`` for the ends
    ``0.9728084...`` and ``1.00000000004``; rounding to nearest printed ``0.973`` for a
    lower end below it). End points: exact rationals (Fraction, int, sympy Rational or
    Float, whose binary value is exact), or infinite.

    Examples
    --------
    >>> from fractions import Fraction
    >>> bracket_text(Fraction(9728084, 10**7), Fraction(10**11 + 4, 10**11))
    '[0.972808, 1.00001]'
    >>> bracket_text(Fraction(-1, 3), Fraction(2, 3), 3)
    '[-0.334, 0.667]'
    """
    ends = []
    for v, up in ((lo, False), (hi, True)):
        if v in (sympy.oo, -sympy.oo):
            ends.append(str(v))
            continue
        ends.append(_directed(_binary(v), digits, up))
    return f"[{ends[0]}, {ends[1]}]"


#: How a release loss's text starts when the supremum is only bracketed
#: (:func:`exactdp.programs.release_loss.loss_supremum`).
BRACKET_HEAD = "a certified bracket ["


def bracket_witness(text: str) -> str:
    """The witness in a release loss's text: the output attaining the lower end of the
    bracket the text starts with (``a certified bracket [lo, hi] (width w): at least
    <witness>; at most <bound> by ...``), as a repr shows it beside the bracket in the
    value's place; any other text as it is.

    Examples
    --------
    >>> bracket_witness("a certified bracket [0.97, 1] (width 0.03): at least the pattern "
    ...                 "(REAL,) with the value 2; at most 1 by a translation")
    'the pattern (REAL,) with the value 2'
    >>> bracket_witness("the pattern (REAL,)")
    'the pattern (REAL,)'
    """
    if text.startswith(BRACKET_HEAD) and "): at least " in text:
        return text.split("): at least ", 1)[1].split("; at most ", 1)[0]
    return text


def supremum_parts(sup: Any) -> list[str]:
    """The repr's parts after the value of a :class:`exactdp.distribution.LossSupremum`:
    ``attained``, then the witness in quotes without a bracket's text (the value's place
    shows the bracket, :func:`bracket_witness`), cut with ``...`` so that the repr stays
    within :data:`exactdp.result.REPR_LIMIT` (200) characters.

    Examples
    --------
    >>> from types import SimpleNamespace as S
    >>> sup = S(attained=False, witness="a certified bracket [0.9, 1] (width 0.1): at least "
    ...         "the value 2; at most 1 by a translation", headline_text=lambda: "0.95",
    ...         _status=lambda: "certified")
    >>> supremum_parts(sup)
    ['attained=False', "witness='the value 2'"]
    """
    # 200 minus the class name, the field names, the separators and the status
    room = max(20, 200 - 60 - len(sup.headline_text()) - len(sup._status()))
    return [f"attained={sup.attained}", f"witness={_cut(bracket_witness(sup.witness), room - 2)!r}"]


#: The label of an exact value shown by its decimals in a repr that calls it exact.
ROUNDED = " (rounded)"


def stated_text(text: str, value: object) -> str:
    """``text`` (:func:`exactdp.result.number_text` of the exact ``value``) for a repr that
    names the value exact (``algorithm='exact'``, ``method='exact'``): as it is when it
    shows the value itself (its short exact form beside the decimals, or decimals that are
    the value), else labelled :data:`ROUNDED`. A repr never shows a rounded value beside
    the word exact.

    Examples
    --------
    >>> stated_text("0.25 (exact: 1/4)", sympy.Rational(1, 4))
    '0.25 (exact: 1/4)'
    >>> stated_text("0.5", sympy.Rational(1, 2)), stated_text("0.333333", sympy.Rational(1, 3))
    ('0.5', '0.333333 (rounded)')
    """
    exact = _exact_number(value)
    if exact is None or exact in (sympy.oo, -sympy.oo) or " (exact: " in text:
        return text
    try:
        if sympy.Rational(text) == exact:
            return text
    except (TypeError, ValueError):  # an offset form, 1 - 1.67878e-63
        pass
    return text + ROUNDED


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


def cut_text(text: str, limit: int) -> str:
    """``text`` in at most about ``limit`` characters: an ``(exact: ...)`` part dropped
    first, then cut with ``...`` and every parenthesis or bracket it opened closed."""
    if len(text) <= limit:
        return text
    while " (exact: " in text:  # drop each exact form, up to its closing parenthesis
        start = text.index(" (exact: ")
        depth, end = 0, len(text)
        for j in range(start + 1, len(text)):
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            if depth == 0:
                end = j + 1
                break
        text = text[:start] + text[end:]
        if len(text) <= limit:
            return text
    return close_brackets(text[: limit - 3] + "...")


def close_brackets(head: str) -> str:
    """``head`` with every parenthesis, bracket or brace it leaves open closed, innermost
    first.

    Parameters
    ----------
    head : str
        A text cut short (``...``).

    Returns
    -------
    str

    Examples
    --------
    >>> close_brackets("(a, [b...")
    '(a, [b...])'
    """
    closers = []
    for ch in head:
        if ch in "([{":
            closers.append({"(": ")", "[": "]", "{": "}"}[ch])
        elif closers and ch == closers[-1]:
            closers.pop()
    return head + "".join(reversed(closers))
