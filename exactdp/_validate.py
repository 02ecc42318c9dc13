"""Argument checks: every refusal of a bad argument, in one message style.

Every message reads

    ``{func}: {name} must be {what}, got {value!r}``

for instance ``"TopK: k must be a positive integer, got 0"``: the function (or class) the
user called, the argument (with its position for an entry of a vector, ``scores[3]``), what
the argument must be, and the value received (its ``repr``, shortened when long). When the
value says nothing more (an empty vector, a missing argument) the ``, got ...`` part is left
out; when no function is known (a bare number conversion) the ``{func}: `` prefix is.

The error is a :class:`ValueError` (a wrong value or a wrong type of argument alike: the
package has always refused both with ``ValueError``, and callers catch that one class).
The helpers either raise (``check_*``: they return the validated, normalised value) or
return the exception for the caller to raise (:func:`argument_error`, so ``raise ... from
exc`` keeps the cause). Conversions of user numbers to exact numbers (epsilon, sensitivity,
scores) live in :mod:`exactdp.numbers` and :mod:`exactdp.scores` and word their messages
through :func:`argument_error` too.

This module is layer 0 (``docs/architecture.md``): it imports nothing from the package.
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable, Iterable, Sequence
from numbers import Integral, Rational, Real
from typing import Any, TypeGuard

import numpy as np

#: Largest precision (decimal digits) the mpmath / arb views accept; more would run for hours.
MAX_DPS = 10_000


class _Nothing:
    """Marks "no value to show" (``None`` is a value a user may pass)."""

    def __repr__(self) -> str:  # pragma: no cover - never shown
        return "<nothing>"


NOTHING: Any = _Nothing()

_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = 200
_REPR.maxlist = _REPR.maxtuple = _REPR.maxset = _REPR.maxdict = 12


def short_number(value: object, digits: int = 2) -> str:
    """An exact rational's text for a message: itself when at most 20 characters, else
    ``digits`` significant digits with the decimal exponent (``10**300 - 1`` as
    ``1.0e+300``, a 301-digit difference no message prints whole).

    >>> from fractions import Fraction
    >>> short_number(10**300), short_number(-3), short_number(Fraction(1, 10**300))
    ('1.0e+300', '-3', '1.0e-300')
    """
    if not _long_rational(value):
        return str(value)
    assert isinstance(value, Rational)
    import mpmath  # lazy: messages only (the CLI's argument errors stay fast)

    with mpmath.workprec(64):
        x = mpmath.mpf(int(value.numerator)) / int(value.denominator)
        return mpmath.nstr(x, digits, min_fixed=1, max_fixed=0)


def describe(value: object) -> str:
    """The ``repr`` shown after ``got``: complete when short, shortened with ``...`` when
    long (a million-entry array is not printed whole; a huge number as ``1.0e+300``); a
    numpy scalar as its Python value (``nan``, not ``np.float64(nan)``)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, np.ndarray) and value.size > 12:
        return f"array of shape {value.shape} and dtype {value.dtype}"
    if _long_rational(value):
        return short_number(value)
    return _REPR.repr(value)


def _long_rational(value: object) -> bool:
    """A rational (not a bool) of more than about 20 digits (told by bit lengths: ``str``
    of a 5000-digit integer raises)."""
    if not isinstance(value, Rational) or isinstance(value, bool):
        return False
    return int(value.numerator).bit_length() + int(value.denominator).bit_length() > 64


def message(func: str | None, name: str, what: str, value: object = NOTHING) -> str:
    """The one message style: ``{func}: {name} must be {what}, got {value!r}``.

    >>> message("TopK", "k", "a positive integer", 0)
    'TopK: k must be a positive integer, got 0'
    >>> message(None, "scores", "non-empty")
    'scores must be non-empty'
    """
    text = f"{name} must be {what}"
    if value is not NOTHING:
        text += f", got {describe(value)}"
    return text if not func else f"{func}: {text}"


def argument_error(
    func: str | None, name: str, what: str, value: object = NOTHING
) -> ValueError:
    """The :class:`ValueError` refusing argument ``name`` of ``func``; the caller raises it
    (``raise argument_error(...) from exc`` keeps the cause)."""
    return ValueError(message(func, name, what, value))


def _is_int(value: object) -> TypeGuard[Integral]:
    return isinstance(value, Integral) and not isinstance(value, (bool, np.bool_))


def integer_range(low: int | None = None, high: int | None = None) -> str:
    """How :func:`check_int` words its bounds: ``a positive integer``, ``an integer in 1..9``."""
    if high is None:
        if low is None:
            return "an integer"
        if low == 1:
            return "a positive integer"
        if low == 0:
            return "a non-negative integer"
        return f"an integer >= {low}"
    if low is None:
        return f"an integer <= {high}"
    return f"an integer in {low}..{high}"


def check_int(
    func: str | None, name: str, value: object, low: int | None = None, high: int | None = None
) -> int:
    """An integer argument (Python, numpy or sympy integer; never a bool or a float) in
    ``low..high`` (either bound may be left out); returns it as an ``int``.

    Raises
    ------
    ValueError
        ``{func}: {name} must be a positive integer, got 0`` (or ``a non-negative integer``,
        ``an integer >= low``, ``an integer in low..high``).
    """
    if not _is_int(value):
        raise argument_error(func, name, integer_range(low, high), value)
    out = int(value)
    if (low is not None and out < low) or (high is not None and out > high):
        raise argument_error(func, name, integer_range(low, high), value)
    return out


def check_dps(func: str | None, dps: object, limit: int = MAX_DPS) -> int:
    """A precision in decimal digits: an integer in ``1..limit`` (default :data:`MAX_DPS`)."""
    return check_int(func, "dps", dps, 1, limit)


def check_bool(func: str | None, name: str, value: object) -> bool:
    """A flag: ``True`` or ``False`` (numpy booleans too); returns a Python ``bool``."""
    if not isinstance(value, (bool, np.bool_)):
        raise argument_error(func, name, "True or False", value)
    return bool(value)


def choices_text(choices: Iterable[object]) -> str:
    """``'a' or 'b'`` for two choices, ``one of 'a', 'b', 'c'`` for more."""
    items = [repr(c) for c in choices]
    if len(items) == 1:
        return items[0]
    if len(items) == 2:
        return f"{items[0]} or {items[1]}"
    return "one of " + ", ".join(items)


def check_choice(func: str | None, name: str, value: object, choices: Iterable[object]) -> Any:
    """One of a fixed set of values (``value in choices``); returns the value."""
    options = tuple(choices)
    try:
        ok = bool(value in options)
    except (TypeError, ValueError):  # an array compared elementwise, say
        ok = False
    if not ok:
        raise argument_error(func, name, choices_text(options), value)
    return value


def check_callable(func: str | None, name: str, value: object) -> Callable:
    """A callable argument (a function, a bound method, a class)."""
    if not callable(value):
        raise argument_error(func, name, "callable", value)
    return value


def check_instance(
    func: str | None, name: str, value: object, cls: type | tuple[type, ...], what: str
) -> Any:
    """An instance of ``cls``, described to the user as ``what`` (``an exactdp Mechanism``)."""
    if not isinstance(value, cls):
        raise argument_error(func, name, what, value)
    return value


def check_nonempty(func: str | None, name: str, items: Sequence) -> Sequence:
    """A sequence with at least one element."""
    if len(items) == 0:
        raise argument_error(func, name, "non-empty")
    return items


def check_same_length(func: str | None, names: Sequence[str], seqs: Sequence[Any]) -> int:
    """Sequences of one common length (scores and neighbour, labels and outputs); returns it.

    The message reads ``{func}: len(b) must be n (= len(a)), got m``.
    """
    first = len(seqs[0])
    for name, seq in zip(names[1:], seqs[1:], strict=True):
        if len(seq) != first:
            raise argument_error(func, f"len({name})", f"{first} (= len({names[0]}))", len(seq))
    return first


def check_real(
    func: str | None,
    name: str,
    value: object,
    low: float | None = None,
    high: float | None = None,
    *,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """A finite real float parameter (a significance level, a threshold) in an interval;
    returns it as a ``float``. This is for float tuning parameters only: exact inputs
    (epsilon, sensitivity, scores) go through :mod:`exactdp.numbers`.

    ``check_real("goodness_of_fit", "alpha", a, 0, 1, low_open=True, high_open=True)``
    refuses with ``goodness_of_fit: alpha must be a real number in (0, 1), got 1.5``.
    """
    what = "a real number"
    if low is not None and high is not None:
        what += f" in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    elif low is not None:
        what = f"a real number {'>' if low_open else '>='} {low:g}"
    elif high is not None:
        what = f"a real number {'<' if high_open else '<='} {high:g}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise argument_error(func, name, what, value)
    x = float(value)
    if x != x or x in (float("inf"), float("-inf")):
        raise argument_error(func, name, what, value)
    if low is not None and (x < low or (low_open and x == low)):
        raise argument_error(func, name, what, value)
    if high is not None and (x > high or (high_open and x == high)):
        raise argument_error(func, name, what, value)
    return x


def check_size(func: str | None, size: object) -> tuple[int, ...]:
    """``sample``'s ``size``: a non-negative integer or a tuple of them (``None`` is handled
    by the caller: one draw); returns the shape as a tuple."""
    if _is_int(size) and int(size) >= 0:
        return (int(size),)
    if isinstance(size, tuple) and all(_is_int(v) and int(v) >= 0 for v in size):
        return tuple(int(v) for v in size)
    raise argument_error(
        func, "size", "None, a non-negative integer or a tuple of them", size
    )

