"""Released outputs against their patterns: which pattern an output belongs to, the pattern
key of a sampled output, and the released values a user gives as exact rationals.

A pattern (:func:`exactdp.programs.trace.decode`) is an output with :data:`REAL` where a
real value is released: ``(True, REAL)`` is "above the threshold, with the noisy answer".
"""

from __future__ import annotations

from collections.abc import Hashable
from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from .._validate import argument_error
from ..numbers import exact_number
from .runs import REAL, RELEASED_KEY
from .values import ProgramError


def is_real(v: object) -> bool:
    """Whether ``v`` can be a released value (a number, not a boolean)."""
    if isinstance(v, (bool, np.bool_)):
        return False
    return isinstance(v, (int, float, Fraction, sympy.Expr, np.integer, np.floating))


def match(pattern: object, output: object, values: list[Any]) -> bool:
    """Whether ``output`` is an output of ``pattern`` (a decoded pattern); its released
    values are appended to ``values`` in order."""
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
    """The pattern key of a sampled output (floats are released values, appended to
    ``values``)."""
    if isinstance(value, (bool, np.bool_)):
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
    """Whether two decoded patterns are the same (``True`` is not ``1``)."""
    if isinstance(p, tuple):
        return isinstance(q, (tuple, list)) and len(p) == len(q) and all(
            same_pattern(a, b) for a, b in zip(p, q, strict=True))
    if p is REAL or isinstance(p, bool) or p is None:
        return q is p
    return not isinstance(q, bool) and isinstance(q, int) and q == p


def real_count(pattern: object) -> int:
    """The number of released values (``REAL`` placeholders) in a decoded pattern, nested
    tuples and lists included."""
    if pattern is REAL:
        return 1
    if isinstance(pattern, (tuple, list)):
        return sum(real_count(p) for p in pattern)
    return 0


def released_rational(func: str, v: object) -> Fraction:
    """A released value given by the user as an exact rational (a float by its binary
    value); one-line ``ValueError`` naming ``func`` for an irrational one."""
    if isinstance(v, float):
        return Fraction(v)
    r = exact_number(v, "output", func=func)
    if not r.is_Rational:
        raise argument_error(func, "output", "rational released values", v)
    return Fraction(int(r.p), int(r.q))
