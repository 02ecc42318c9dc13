"""User numbers -> exact sympy numbers: the one place where floats are judged.

Exact inputs are ``int``, :class:`fractions.Fraction`, :class:`decimal.Decimal`, numpy
integers, strings such as ``"3/2"``, ``"0.1"`` (meaning 1/10) or ``"log(2)"``, and sympy
numbers or expressions. A Python or numpy float is converted by its *exact binary value*
(``0.1`` becomes ``3602879701896397/36028797018963968``), and the caller is warned once per
call with :class:`ExactConversionWarning`. Everything else raises :class:`ValueError`
naming the function (when the caller passes ``func``), the argument (and, for vectors, the
position) and the value, in the package's one message style
(:func:`exactdp._validate.argument_error`): ``ExponentialMechanism: epsilon must be > 0,
got -1``, ``scores[3] must be a finite real number, got nan``.
"""

from __future__ import annotations

import ast
import numbers as _numbers
import re
import warnings
from collections.abc import Iterable
from decimal import Decimal
from fractions import Fraction

import numpy as np
import sympy
from sympy.parsing.sympy_parser import parse_expr, rationalize, standard_transformations

from ._validate import argument_error
from .exact.signs import UndecidedSignError, sign


class ExactConversionWarning(UserWarning):
    """A float was converted to the rational number equal to its binary value.

    Examples
    --------
    >>> import warnings
    >>> from exactdp import ExactConversionWarning, exact_number
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     x = exact_number(0.1)
    ...
    >>> x
    3602879701896397/36028797018963968
    >>> caught[0].category is ExactConversionWarning
    True
    """


class FloatTracker:
    """Collects the float conversions of one call, to warn once at its end."""

    def __init__(self) -> None:
        self.count = 0
        self.first: str | None = None

    def note(self, value: float, where: str) -> None:
        self.count += 1
        if self.first is None:
            self.first = f"{where}={value!r}"

    def warn(self, func: str, stacklevel: int = 3) -> None:
        if self.count:
            warnings.warn(
                f"{func}: {self.count} float input(s) (first: {self.first}) converted by their "
                "exact binary value; pass int, Fraction or a decimal string such as '0.1' "
                "for the decimal number",
                ExactConversionWarning,
                stacklevel=stacklevel,
            )


#: Names a numeric string may use; anything else (attributes, subscripts, other names,
#: keywords) is refused before sympy sees the text, so no string can run code.
_FUNCTIONS = {
    "log": sympy.log, "ln": sympy.log, "exp": sympy.exp, "sqrt": sympy.sqrt,
    "sin": sympy.sin, "cos": sympy.cos, "tan": sympy.tan, "atan": sympy.atan,
    "sinh": sympy.sinh, "cosh": sympy.cosh, "tanh": sympy.tanh, "Abs": sympy.Abs,
    "abs": sympy.Abs, "Rational": sympy.Rational,
}
_CONSTANTS = {
    "pi": sympy.pi, "E": sympy.E, "I": sympy.I, "oo": sympy.oo, "inf": sympy.oo,
    "nan": sympy.nan, "zoo": sympy.zoo,
}
_SAFE_GLOBALS = {
    "__builtins__": {}, "Integer": sympy.Integer, "Float": sympy.Float,
    "Rational": sympy.Rational, "Symbol": sympy.Symbol, **_FUNCTIONS, **_CONSTANTS,
}
MAX_TEXT_LENGTH = 2000
MAX_EXPONENT = 100_000
_NODES = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.Call,
          ast.Load, ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.UAdd, ast.USub)


def _not_a_number(func: str | None, where: str, why: str, text: str) -> ValueError:
    """``{func}: {where} must be a number ({why}), got {text!r}``."""
    return argument_error(func, where, f"a number ({why})" if why else "a number", text)


def _check_syntax(tree: ast.AST, where: str, text: str, func: str | None = None) -> None:
    for node in ast.walk(tree):
        if not isinstance(node, _NODES):
            raise _not_a_number(
                func, where, f"{type(node).__name__} is not allowed; use digits, + - * / **, "
                "parentheses and log, exp, sqrt, pi, E", text)
        if isinstance(node, ast.Name) and node.id not in _FUNCTIONS and node.id not in _CONSTANTS:
            raise _not_a_number(func, where, f"unknown name {node.id!r}", text)
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS:
                raise _not_a_number(func, where, "only log, exp, sqrt, ... may be called", text)
            if node.keywords:
                raise _not_a_number(func, where, "keyword arguments are not allowed", text)
        if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float, complex)):
            raise _not_a_number(func, where, "", text)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            for side in (node.left, node.right):
                if any(isinstance(m, ast.BinOp) and isinstance(m.op, ast.Pow)
                       for m in ast.walk(side)):
                    raise _not_a_number(func, where, "nested powers are not allowed", text)
            exp_node = node.right
            if isinstance(exp_node, ast.UnaryOp):
                exp_node = exp_node.operand
            if (isinstance(exp_node, ast.Constant) and isinstance(exp_node.value, (int, float))
                    and abs(exp_node.value) > MAX_EXPONENT):
                raise _not_a_number(
                    func, where,
                    f"exponent {exp_node.value} is too large: at most {MAX_EXPONENT}", text)


def parse_number(text: str, where: str = "value", *, func: str | None = None) -> sympy.Expr:
    """Parse a numeric string exactly and safely.

    Decimals are exact (``"0.1"`` is 1/10, ``"1e-3"`` is 1/1000); ``+ - * / **``,
    parentheses, ``log, ln, exp, sqrt``, trigonometric functions, ``pi`` and ``E`` are
    allowed. The text is checked on its syntax tree before sympy evaluates it in a namespace
    without builtins, so a string cannot run code; nested powers and exponents above
    ``MAX_EXPONENT`` are refused (``10**10**10`` would never finish).

    Raises
    ------
    ValueError
        Empty, too long, not a number, or a refused construct (the message names it):
        ``{func}: {where} must be a number (unknown name 'x'), got 'x'``.
    """
    stripped = text.strip()
    if not stripped:
        raise _not_a_number(func, where, "the string is empty", text)
    if len(stripped) > MAX_TEXT_LENGTH:
        raise argument_error(
            func, where, f"a numeric string no longer than {MAX_TEXT_LENGTH} characters",
            f"{stripped[:40]}... ({len(stripped)} characters)")
    for match in re.finditer(r"[eE]([+-]?\d+)", stripped):
        if abs(int(match.group(1))) > MAX_EXPONENT:
            raise _not_a_number(
                func, where,
                f"decimal exponent {match.group(1)} is too large: at most {MAX_EXPONENT}", text)
    try:
        tree = ast.parse(stripped, mode="eval")
    except SyntaxError as exc:
        raise _not_a_number(func, where, "", text) from exc
    _check_syntax(tree, where, text, func)
    try:
        expr = parse_expr(stripped, local_dict={}, global_dict=dict(_SAFE_GLOBALS),
                          transformations=standard_transformations + (rationalize,))
    except (sympy.SympifyError, SyntaxError, TypeError, ValueError, ZeroDivisionError) as exc:
        raise _not_a_number(func, where, "", text) from exc
    if not isinstance(expr, sympy.Expr):
        raise _not_a_number(func, where, "", text)
    return expr


def safe_sympify(value: object) -> sympy.Basic:
    """``sympy.sympify`` that never parses text as Python: strings go through
    :func:`parse_number`, other objects through ``sympify(..., strict=True)``."""
    if isinstance(value, str):
        return parse_number(value)
    return sympy.sympify(value, strict=True)


def sequence_items(
    value: object, name: str, expected: str, empty: str | None = None, *, func: str | None = None
) -> list:
    """The items of a user sequence, refusing a non-iterable and an empty one.

    Parameters
    ----------
    value : object
        The user's argument.
    name : str
        Its name in messages (``"scores"``, ``"P"``).
    expected : str
        What it should be (``"a sequence of numbers"``).
    empty : str, optional
        What an empty sequence fails to be (``"non-empty (the range is empty)"``); None: an
        empty one is returned.
    func : str, optional
        The function the user called, named at the start of the messages.

    Returns
    -------
    list

    Raises
    ------
    ValueError
        ``"{func}: {name} must be {expected}, got {value!r}"`` when ``list(value)`` fails;
        ``"{func}: {name} must be {empty}"`` when it is empty (and ``empty`` is given).
    """
    try:
        items = list(value)  # type: ignore[call-overload]  # any object: list() is the test
    except TypeError as exc:
        raise argument_error(func, name, expected, value) from exc
    if not items and empty is not None:
        raise argument_error(func, name, empty)
    return items


def _where(name: str, position: int | None) -> str:
    return name if position is None else f"{name}[{position}]"


def exact_number(
    value: object,
    name: str = "value",
    position: int | None = None,
    *,
    allow_symbols: bool = False,
    tracker: FloatTracker | None = None,
    func: str | None = None,
) -> sympy.Expr:
    """Convert one user number to an exact, finite, real sympy number.

    Parameters
    ----------
    value : int, Fraction, Decimal, numpy integer, str, sympy expression, or float
        The number. Strings are parsed by :func:`sympy.sympify` with decimals read
        exactly (``"0.1"`` is 1/10). A float is converted by its exact binary value;
        the conversion is recorded in ``tracker`` (or warned about at once if no
        tracker is given).
    name : str
        Argument name used in error messages.
    position : int, optional
        Index of the value in a vector, used in error messages.
    allow_symbols : bool
        Accept expressions with free symbols (a symbolic epsilon, say).
    tracker : FloatTracker, optional
        Collects float conversions so that the caller warns once per call.
    func : str, optional
        The function the user called, named at the start of error messages.

    Returns
    -------
    sympy.Expr
        An exact real number (or a real symbolic expression if ``allow_symbols``).

    Raises
    ------
    ValueError
        For booleans, NaN, infinities, complex or non-real values, unparsable strings,
        symbols (unless allowed) and unsupported types. The message names the argument
        and the position.

    Examples
    --------
    >>> from exactdp import exact_number
    >>> exact_number("0.1")
    1/10
    >>> exact_number("log(2)")
    log(2)
    """
    where = _where(name, position)
    if isinstance(value, (bool, np.bool_)):
        raise argument_error(func, where, "a number (booleans are not scores or parameters)",
                             value)
    if isinstance(value, (int, np.integer)):
        return sympy.Integer(int(value))
    if isinstance(value, Fraction):
        return sympy.Rational(value.numerator, value.denominator)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise argument_error(func, where, "finite", value)
        return sympy.Rational(*value.as_integer_ratio())
    if isinstance(value, (float, np.floating)):
        f = float(value)
        if f != f or f in (float("inf"), float("-inf")):
            raise argument_error(func, where, "a finite real number", f)
        if tracker is not None:
            tracker.note(f, where)
        else:
            t = FloatTracker()
            t.note(f, where)
            t.warn(func or "exact_number")
        return sympy.Rational(*f.as_integer_ratio())
    if isinstance(value, (complex, np.complexfloating)):
        raise argument_error(func, where, "real (complex values are not allowed)", value)
    if isinstance(value, str):
        return _check_expr(parse_number(value, where, func=func), where, value, allow_symbols,
                           func)
    if isinstance(value, sympy.Rational):  # Integer, Rational: exact, finite and real
        return value
    if isinstance(value, sympy.Basic):
        if not isinstance(value, sympy.Expr):
            raise argument_error(func, where, "a number", value)
        floats = value.atoms(sympy.Float)
        if floats:
            for f in floats:
                (tracker.note(float(f), where) if tracker is not None else None)
            if tracker is None:
                t = FloatTracker()
                t.note(float(next(iter(floats))), where)
                t.warn(func or "exact_number")
            value = value.xreplace({f: sympy.Rational(f) for f in floats})
        return _check_expr(value, where, value, allow_symbols, func)
    if isinstance(value, _numbers.Rational):
        return sympy.Rational(int(value.numerator), int(value.denominator))
    raise argument_error(
        func, where, f"a number (unsupported type {type(value).__name__}; use int, Fraction, "
        "a decimal string or a sympy number)", value)


def _check_expr(expr: sympy.Expr, where: str, original: object, allow_symbols: bool,
                func: str | None = None):
    if expr.has(sympy.nan, sympy.zoo) or expr.has(sympy.oo) or expr.has(-sympy.oo):
        raise argument_error(func, where, "finite", original)
    if expr.free_symbols:
        if not allow_symbols:
            raise argument_error(func, where, "a number, not a symbolic expression", original)
        if expr.is_extended_real is False:
            raise argument_error(func, where, "real", original)
        return expr
    if expr.is_real is False or expr.is_extended_real is False:
        raise argument_error(func, where, "real", original)
    if expr.is_real is None:
        # Decide numerically with a rigorous-enough check of the imaginary part.
        im = sympy.im(expr)
        if im != 0:
            try:
                real = sign(im) == 0
            except UndecidedSignError:
                raise argument_error(func, where, "decidably real", original) from None
            if not real:
                raise argument_error(func, where, "real", original)
    if expr.is_finite is False:
        raise argument_error(func, where, "finite", original)
    return expr


def exact_vector(
    values: Iterable[object], name: str = "scores", *, func: str | None = None
) -> tuple[sympy.Expr, ...]:
    """Convert a non-empty vector of user numbers; warn once if floats were converted.

    Raises
    ------
    ValueError
        If the vector is empty or any entry is invalid (the message names the position).
    """
    if isinstance(values, (str, bytes)):
        raise argument_error(func, name, "a sequence of numbers, not a string", values)
    tracker = FloatTracker()
    out = tuple(exact_number(v, name, i, tracker=tracker, func=func)
                for i, v in enumerate(values))
    if not out:
        raise argument_error(func, name, "non-empty (the range is empty)")
    tracker.warn(func or name)
    return out


def _positive(value: object, name: str, func: str | None) -> sympy.Expr:
    if type(value) is int and value > 0:  # the common case, decided without sympy
        return sympy.Integer(value)
    if isinstance(value, sympy.Rational) and value.p > 0:  # exact; q > 0 always
        return value
    tracker = FloatTracker()
    expr = exact_number(value, name, allow_symbols=True, tracker=tracker, func=func)
    tracker.warn(func or name, stacklevel=4)
    if expr.free_symbols:
        positive = expr.is_positive
        if positive is False:
            raise argument_error(func, name, "> 0", value)
        if positive is None:
            raise argument_error(
                func, name, "known to be > 0 (declare its symbols positive, e.g. "
                "sympy.Symbol('epsilon', positive=True))", value)
        return expr
    try:  # a number: decided exactly (exactdp.exact.sign), never by a float
        s = sign(expr) if expr.is_finite is not False else 1
    except UndecidedSignError as exc:
        raise argument_error(func, name, f"> 0, which cannot be decided ({exc})",
                             value) from None
    if s != 1:
        raise argument_error(func, name, "> 0", value)
    return expr


def exact_epsilon(epsilon: object, func: str | None = None) -> sympy.Expr:
    """Validate the privacy parameter: a positive exact number or a positive Symbol.

    ``func`` (the function the user called) starts the error message.

    Raises
    ------
    ValueError
        If epsilon is not > 0, not finite, or a symbol not known to be positive.
    """
    return _positive(epsilon, "epsilon", func)


def exact_sensitivity(sensitivity: object, func: str | None = None) -> sympy.Expr:
    """Validate the sensitivity Delta of the score function: a positive exact number.

    ``func`` (the function the user called) starts the error message.

    Raises
    ------
    ValueError
        If sensitivity is not > 0 or not finite.
    """
    return _positive(sensitivity, "sensitivity", func)


_INFINITY_TEXT = ("oo", "+oo", "inf", "+inf", "infinity", "+infinity")


def exact_epsilon_or_limit(epsilon: object, func: str | None = None) -> sympy.Expr:
    """Validate epsilon, also accepting the two exact limits 0 and infinity.

    ``0`` (in any exact form, or the float 0.0) gives ``sympy.Integer(0)``; ``sympy.oo``,
    ``float("inf")`` and the strings ``"oo"``, ``"inf"``, ``"infinity"`` give ``sympy.oo``;
    everything else goes through :func:`exact_epsilon`.

    Raises
    ------
    ValueError
        Negative epsilon, ``-oo``, NaN, or anything :func:`exact_epsilon` refuses.
    """
    if (type(epsilon) is int and epsilon > 0) or (isinstance(epsilon, sympy.Rational)
                                                 and epsilon.p > 0):
        return _positive(epsilon, "epsilon", func)  # fast; 0 and negatives: below
    if isinstance(epsilon, (float, np.floating)) and not isinstance(epsilon, bool):
        if float(epsilon) == float("inf"):
            return sympy.oo
        if float(epsilon) == 0.0:
            return sympy.Integer(0)
    if isinstance(epsilon, str) and epsilon.strip().lower() in _INFINITY_TEXT:
        return sympy.oo
    if isinstance(epsilon, sympy.Basic) and epsilon == sympy.oo:
        return sympy.oo
    if _not_a_limit(epsilon):
        raise argument_error(func, "epsilon", "a real number >= 0 or oo", epsilon)
    if not isinstance(epsilon, (bool, np.bool_)):
        try:
            value = exact_number(epsilon, "epsilon", allow_symbols=True, tracker=FloatTracker())
        except ValueError:
            value = None
        if value is not None and value.is_zero is True:
            return sympy.Integer(0)
        if value is not None and value.is_negative is True:
            raise argument_error(func, "epsilon", ">= 0 (0 and oo are the exact limits)",
                                 epsilon)
    return exact_epsilon(epsilon, func)


_NOT_A_LIMIT_TEXT = ("nan", "-oo", "-inf", "-infinity")


def _not_a_limit(epsilon: object) -> bool:
    """NaN or minus infinity, as a float, Decimal, string or sympy value: no epsilon
    (the message names the accepted range, 0 and oo included)."""
    if isinstance(epsilon, Decimal):
        return epsilon.is_nan() or epsilon == Decimal("-Infinity")
    if isinstance(epsilon, (float, np.floating)):
        return epsilon != epsilon or epsilon == float("-inf")
    if isinstance(epsilon, str):
        return epsilon.strip().lower() in _NOT_A_LIMIT_TEXT
    return isinstance(epsilon, sympy.Basic) and (epsilon is sympy.nan or epsilon == -sympy.oo)


def require_numeric_epsilon(owner: str, epsilon: object,
                            how: str = ".subs(epsilon=...) on the distribution") -> None:
    """Refuse a numeric view (mpmath, float64, balls, samples) of ``owner`` while its
    ``epsilon`` is symbolic: a one-line ValueError saying ``how`` to give it a value.

    Examples
    --------
    >>> require_numeric_epsilon("PF", sympy.Integer(1))
    >>> require_numeric_epsilon("PF", sympy.Symbol("epsilon"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: PF: epsilon is symbolic (epsilon); numeric views need a number: use ...
    """
    if isinstance(epsilon, sympy.Basic) and epsilon.free_symbols:
        raise ValueError(f"{owner}: epsilon is symbolic ({epsilon}); numeric views need a "
                         f"number: use {how}")
