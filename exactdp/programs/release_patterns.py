"""Released outputs against their patterns: which pattern an output belongs to, the pattern
key of a sampled output, and the released values a user gives as exact rationals.

A pattern (:func:`exactdp.programs.trace.decode`) is an output with :data:`REAL` where a
real value is released: ``(True, REAL)`` is "above the threshold, with the noisy answer".
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from .._validate import argument_error
from ..exact import enclose, flint_prec
from ..numbers import exact_number
from .runs import REAL, RELEASED_KEY
from .values import ProgramError


def is_real(v: object) -> bool:
    """Whether ``v`` can be a released value: a number (Python, numpy, Fraction or sympy),
    not a boolean.

    Parameters
    ----------
    v : object

    Returns
    -------
    bool

    Examples
    --------
    >>> is_real(0.5), is_real(3), is_real(True)
    (True, True, False)
    """
    if isinstance(v, (bool, np.bool_)):
        return False
    return isinstance(v, (int, float, Fraction, sympy.Expr, np.integer, np.floating))


def _text_number(text: str) -> Fraction | None:
    """A released value given as text, parsed exactly (:func:`exactdp.numbers.exact_number`:
    ``'0.1'`` is 1/10); None if it is not a rational number."""
    try:
        r = exact_number(text, "output")
    except ValueError:
        return None
    return Fraction(int(r.p), int(r.q)) if r.is_Rational else None


def match(pattern: object, output: object, values: list[Any]) -> bool:
    """Whether ``output`` is an output of ``pattern`` (a decoded pattern), collecting its
    released values.

    Parameters
    ----------
    pattern : object
        A decoded pattern: booleans, None, integers, ``REAL`` and tuples of them.
    output : object
        An output as a user gives it (tuples or lists, numbers at the ``REAL`` places).
    values : list
        The released values of ``output`` are appended here, in order (also on a partial
        match that then fails).

    Returns
    -------
    bool
        True iff ``output`` has the shape of ``pattern``, the same booleans, None and
        integers (``True`` is not ``1``), and a number at each ``REAL``.

    Examples
    --------
    >>> vals = []
    >>> match((True, REAL), (True, 2.5), vals), vals
    (True, [2.5])
    >>> match(True, 1, [])
    False
    >>> vals = []
    >>> match(REAL, "1/2", vals), vals
    (True, [Fraction(1, 2)])
    """
    if isinstance(output, str):  # a number as text ('1/2', '0.1'), as every entry point
        output = _text_number(output)
        if output is None:
            return False
    if pattern is REAL:
        if is_real(output):
            values.append(output)
            return True
        return False
    if isinstance(pattern, tuple):
        return (isinstance(output, (tuple, list)) and len(output) == len(pattern)
                and all(match(p, o, values) for p, o in zip(pattern, output, strict=True)))
    if isinstance(pattern, bool) or pattern is None:
        return output is pattern or (isinstance(output, np.bool_) and bool(output) is pattern)
    return not isinstance(output, bool) and is_real(output) and output == pattern


def sampled_key(value: object, line: str, values: list[float]) -> Hashable:
    """The type-tagged pattern key of an output the program's sampler returned.

    Parameters
    ----------
    value : object
        A sampled output: booleans, None, integers, floats (released values) and tuples.
    line : str
        The program's name or ``file:line``, for the error.
    values : list of float
        The released values (the floats) are appended here, in order.

    Returns
    -------
    Hashable
        ``(0, 0)`` / ``(0, 1)`` for True / False, ``(1,)`` for None, ``(2, k)`` for the
        integer k, ``RELEASED_KEY`` for a float, ``(3, keys)`` for a tuple: the order of
        :func:`exactdp.programs.trace.canonical`.

    Raises
    ------
    ProgramError
        An output made of anything else, in one line naming ``line``.

    Examples
    --------
    >>> vals = []
    >>> sampled_key((True, None, 3), "prog", vals), vals
    ((3, ((0, 0), (1,), (2, 3))), [])
    """
    if isinstance(value, (bool, np.bool_, sympy.logic.boolalg.BooleanAtom)):
        return (0, 0 if value else 1)
    if value is None:
        return (1,)
    if isinstance(value, (int, np.integer)):
        return (2, int(value))
    if isinstance(value, (float, np.floating)):
        values.append(float(value))
        return RELEASED_KEY
    if isinstance(value, tuple):
        return (3, tuple(sampled_key(v, line, values) for v in value))
    raise ProgramError(f"{line}: the output {value!r} is not made of booleans, None, "
                       "integers, released values and tuples")


def same_pattern(p: object, q: object) -> bool:
    """Whether two decoded patterns are the same.

    Parameters
    ----------
    p : object
        A decoded pattern.
    q : object
        A pattern as a user gives it (lists allowed for tuples).

    Returns
    -------
    bool
        The same shape, the same booleans and None (by identity) and the same integers
        (``True`` is not ``1``).

    Examples
    --------
    >>> same_pattern((True, REAL), [True, REAL]), same_pattern(1, True)
    (True, False)
    """
    if isinstance(p, tuple):
        return isinstance(q, (tuple, list)) and len(p) == len(q) and all(
            same_pattern(a, b) for a, b in zip(p, q, strict=True))
    if p is REAL or isinstance(p, bool) or p is None:
        return q is p
    return not isinstance(q, bool) and isinstance(q, int) and q == p


def real_count(pattern: object) -> int:
    """The number of released values (``REAL`` placeholders) in a pattern.

    Parameters
    ----------
    pattern : object
        A decoded pattern; nested tuples and lists are counted through.

    Returns
    -------
    int

    Examples
    --------
    >>> real_count((True, REAL, (REAL, None))), real_count(None)
    (2, 0)
    """
    if pattern is REAL:
        return 1
    if isinstance(pattern, (tuple, list)):
        return sum(real_count(p) for p in pattern)
    return 0


def released_rational(func: str, v: object) -> Fraction:
    """A released value given by the user, as an exact rational.

    Parameters
    ----------
    func : str
        The calling function, named in the error.
    v : object
        A number, through :func:`exactdp.numbers.exact_number` (ints, Fractions, strings,
        sympy numbers; a float is taken by its exact binary value with an
        :class:`~exactdp.numbers.ExactConversionWarning`, as at every exact entry point).

    Returns
    -------
    fractions.Fraction

    Raises
    ------
    ValueError
        In one line naming ``func``: not a number, or irrational (``sqrt(2)``).

    Examples
    --------
    >>> released_rational("density", "1/3"), released_rational("density", 2)
    (Fraction(1, 3), Fraction(2, 1))
    """
    r = exact_number(v, "output", func=func)
    if not r.is_Rational:
        raise argument_error(func, "output", "rational released values", v)
    return Fraction(int(r.p), int(r.q))


def discrete_hint(dist: Any, other: Any, probability: Callable[[Any, Hashable], sympy.Expr]
                  ) -> float | None:
    """The largest ``|ln P/P'|`` over the patterns of two release distributions that release
    no value, from their exact probabilities (``probability(dist, key)``), as a float: a
    lower bound on the loss, for ordering a search over pairs only (None: no such pattern
    on both inputs, or one reached under one input only)."""
    out = None
    for key, pattern in zip(dist.keys, dist.outputs, strict=True):
        if real_count(pattern) or key not in other.runs:
            continue
        p, q = probability(dist, key), probability(other, key)
        if p == 0 or q == 0:
            return None
        with flint_prec(64):
            v = abs(float((enclose(p, 15).log() - enclose(q, 15).log()).mid()))
        out = v if out is None or v > out else out
    return out
