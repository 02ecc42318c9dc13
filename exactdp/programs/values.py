"""Noisy values of a program: the draws, linear expressions over them, and comparisons.

A program (:func:`exactdp.programs.program`) is run by an *executor*: the symbolic one
(:mod:`exactdp.programs.trace`) enumerating the runs, or the sampler running the algorithm
with random draws. The draw functions (:mod:`exactdp.programs.draws`) and the built-ins
(:mod:`exactdp.programs.builtins`) ask the active executor; outside a program they raise.

Symbolically a draw is a :class:`Noisy` value: the affine function
``constant + sum c_i z_i`` of the draws ``z_i`` (exact rationals; Python's ``Fraction``
inside, sympy ``Rational`` in the :class:`~exactdp.programs.runs.Linear` handed to the
integrator). Adding, subtracting, negating and multiplying or dividing by a rational keeps
it linear; anything else (a product of noises, ``abs``, ``float``, indexing with it,
hashing it) is refused with a one-line error naming the program's line. Comparing two
values gives a :class:`Comparison`, which forks the run where Python asks for its truth
value (``if``, ``while``, ``not``, ``and``/``or``, ``int``, ``+``, ``sum``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

import sympy

from .._validate import message
from .runs import Linear

#: Laws whose draws are integers (their equal branch has positive probability).
DISCRETE = frozenset({"discrete_laplace"})

#: Files of this package whose frames are not the user's program (for ``file:line``).
_INTERNAL = frozenset(
    os.path.join(os.path.dirname(__file__), name)
    for name in ("values.py", "draws.py", "builtins.py", "trace.py", "language.py",
                 "mechanism.py", "sampler.py")
)


class ProgramError(ValueError):
    """A program, or one of its runs, outside the language (a one-line message naming the
    program's line ``file:line``)."""


@lru_cache(maxsize=64)
def _basename(path: str) -> str:
    return os.path.basename(path)


def user_line() -> str:
    """``"file:line"`` of the innermost frame of the user's program (outside this package's
    machinery)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename in _INTERNAL:
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:
        return "<unknown>:0"
    return f"{_basename(frame.f_code.co_filename)}:{frame.f_lineno}"


class Executor:
    """What a draw or a built-in asks of the run in progress (symbolic or sampled)."""

    def draw(self, law: str, scale: Any) -> Any:
        raise NotImplementedError

    def bernoulli(self, p: Any) -> bool:
        raise NotImplementedError

    def branch(self, comparison: Comparison) -> bool:
        raise NotImplementedError

    def select(self, values: Sequence[Any], minimize: bool, k: int | None = None,
               value: bool = False) -> Any:
        """The winner's index (``topk``: the k indices); ``value``: the program releases
        the winner's value (:func:`~exactdp.programs.builtins.max_value`)."""
        raise NotImplementedError


ACTIVE: list[Executor] = []


def active(what: str) -> Executor:
    """The executor of the program being run; ProgramError outside a program."""
    if not ACTIVE:
        raise ProgramError(f"{what}: called outside a program (decorate the function with "
                           "@exactdp.programs.program and call the mechanism it builds)")
    return ACTIVE[-1]


# ---------------------------------------------------------------------------- constants
def as_fraction(value: object, what: str = "a constant") -> int | Fraction | None:
    """``value`` as an exact int or Fraction (ints kept: faster), or None when it is not a
    number this module knows (the caller then returns NotImplemented). Floats and irrational
    expressions raise."""
    if isinstance(value, int):  # bool is an int: True counts 1
        return int(value)
    if isinstance(value, Fraction):
        return value
    if isinstance(value, sympy.Basic):
        if value.is_Integer:
            return int(value)
        if value.is_Rational:
            return Fraction(int(value.p), int(value.q))
        raise ProgramError(f"{user_line()}: {what} {value} is not a rational number (only "
                           "epsilon may be symbolic or irrational, and only in noise scales)")
    if isinstance(value, float):
        raise ProgramError(f"{user_line()}: the float {value!r} in an exact program; write it as a "
                           f"fraction (Fraction({value!r}) or sympy.Rational)")
    if type(value).__module__ == "numpy" and hasattr(value, "dtype"):
        if value.dtype.kind in "iu":
            return Fraction(int(value))  # type: ignore[call-overload]
        raise ProgramError(f"{user_line()}: the numpy {value.dtype} value {value!r} in an exact "
                           "program; use exact numbers")
    return None


def _operand(value: object) -> Noisy | None:
    if isinstance(value, Noisy):
        return value
    if isinstance(value, Comparison):
        return Noisy(int(value), {}, None)
    f = as_fraction(value)
    return None if f is None else Noisy(f, {}, None)


# ---------------------------------------------------------------------------- Noisy
class Noisy:
    """``constant + sum(c * z_i)``: a linear expression over a run's draws (exact).

    Attributes
    ----------
    const : Fraction
    coef : dict of int -> Fraction
        Draw index -> coefficient (no zero coefficient).
    laws : dict of int -> str
        Draw index -> its law (to decide ``==`` and refuse misuse of Gumbel noise).
    """

    __slots__ = ("coef", "const", "laws")

    def __init__(self, const: int | Fraction, coef: dict[int, int | Fraction],
                 laws: dict[int, str] | None) -> None:
        self.const = const
        self.coef = coef
        self.laws = laws or {}

    @staticmethod
    def draw(index: int, law: str) -> Noisy:
        return Noisy(0, {index: 1}, {index: law})

    @property
    def is_constant(self) -> bool:
        return not self.coef

    @property
    def continuous(self) -> bool:
        """Whether a continuous noise has a non-zero coefficient."""
        return any(self.laws[i] not in DISCRETE for i in self.coef)

    def linear(self) -> Linear:
        """The :class:`~exactdp.programs.runs.Linear` of the contract (sympy rationals)."""
        return Linear(_rational(self.const),
                      tuple((i, _rational(c)) for i, c in sorted(self.coef.items())))

    # -- linear arithmetic
    def _combine(self, other: Noisy, sign: int) -> Noisy:
        if not other.coef:
            c = other.const
            return Noisy(self.const + c if sign > 0 else self.const - c, self.coef, self.laws)
        coef = dict(self.coef)
        for i, c in other.coef.items():
            v = coef.get(i)
            v = (c if sign > 0 else -c) if v is None else (v + c if sign > 0 else v - c)
            if v:
                coef[i] = v
            else:
                coef.pop(i, None)
        const = self.const + other.const if sign > 0 else self.const - other.const
        laws = {**self.laws, **other.laws} if self.laws else other.laws
        return Noisy(const, coef, laws)

    def _scale(self, k: int | Fraction) -> Noisy:
        if k == 0:
            return Noisy(0, {}, None)
        return Noisy(self.const * k, {i: c * k for i, c in self.coef.items()}, self.laws)

    def __add__(self, other: object) -> Noisy:
        o = _operand(other)
        return NotImplemented if o is None else self._combine(o, 1)

    __radd__ = __add__

    def __sub__(self, other: object) -> Noisy:
        o = _operand(other)
        return NotImplemented if o is None else self._combine(o, -1)

    def __rsub__(self, other: object) -> Noisy:
        o = _operand(other)
        return NotImplemented if o is None else o._combine(self, -1)

    def __neg__(self) -> Noisy:
        return self._scale(-1)

    def __pos__(self) -> Noisy:
        return self

    def __mul__(self, other: object) -> Noisy:
        if isinstance(other, Noisy):
            if other.is_constant:
                return self._scale(other.const)
            if self.is_constant:
                return other._scale(self.const)
            raise ProgramError(f"{user_line()}: a product of noisy values is not linear (the exact "
                               "class: sums of noises times rational constants)")
        k = as_fraction(other, "the factor")
        return NotImplemented if k is None else self._scale(k)

    __rmul__ = __mul__

    def __truediv__(self, other: object) -> Noisy:
        if isinstance(other, Noisy):
            if not other.is_constant:
                raise ProgramError(f"{user_line()}: dividing by a noisy value is not linear")
            other = other.const
        k = as_fraction(other, "the divisor")
        if k is None:
            return NotImplemented
        if k == 0:
            raise ProgramError(f"{user_line()}: division of a noisy value by zero")
        return self._scale(Fraction(1) / k)

    def _refuse(self, why: str) -> ProgramError:
        return ProgramError(f"{user_line()}: {why}")

    def __rtruediv__(self, other: object) -> Noisy:
        raise self._refuse("dividing by a noisy value is not linear")

    def __pow__(self, other: object) -> Noisy:
        raise self._refuse("a power of a noisy value is not linear")

    __rpow__ = __pow__

    def __abs__(self) -> Noisy:
        raise self._refuse("abs() of a noisy value is not linear (compare it with 0 "
                           "instead: if v >= 0 ... else ...)")

    def _sympy_(self) -> sympy.Expr:
        # sympy's arithmetic then returns NotImplemented and Python asks this class
        raise sympy.SympifyError(self)

    def __float__(self) -> float:
        raise self._refuse("float() of a noisy value: a noisy value is not a Python number "
                           "(compare it, or return a comparison)")

    def __int__(self) -> int:
        raise self._refuse("int() of a noisy value: a noisy value is not a Python number")

    def __index__(self) -> int:
        raise self._refuse("a noisy value used as an index or a count (not a Python integer)")

    def __round__(self, ndigits: object = None) -> int:
        raise self._refuse("round() of a noisy value is not linear")

    def __trunc__(self) -> int:
        raise self._refuse("truncating a noisy value is not linear")

    __floor__ = __ceil__ = __trunc__

    def __bool__(self) -> bool:
        raise self._refuse("the truth value of a noisy value is undefined; compare it "
                           "(v > 0, v != 0)")

    def __hash__(self) -> int:
        raise self._refuse("a noisy value is unhashable (not a dict key or set member)")

    def __mod__(self, other: object) -> Noisy:
        raise self._refuse("% of a noisy value is not linear")

    __rmod__ = __floordiv__ = __rfloordiv__ = __mod__

    # -- comparisons
    def _compare(self, other: object, relation: str) -> Any:
        o = _operand(other)
        if o is None:
            return NotImplemented
        line = user_line()
        diff = self._combine(o, -1)
        if relation in ("<", "<="):  # a < b  <=>  b - a > 0
            diff = -diff
            relation = ">" if relation == "<" else ">="
        return Comparison.of(diff, relation, line)

    def __ge__(self, other: object) -> Any:
        return self._compare(other, ">=")

    def __gt__(self, other: object) -> Any:
        return self._compare(other, ">")

    def __le__(self, other: object) -> Any:
        return self._compare(other, "<=")

    def __lt__(self, other: object) -> Any:
        return self._compare(other, "<")

    def __eq__(self, other: object) -> Any:
        return self._compare(other, "==")

    def __ne__(self, other: object) -> Any:
        return self._compare(other, "!=")

    def __repr__(self) -> str:
        terms = [str(self.const)] if self.const or not self.coef else []
        terms += [f"{c}*z{i}" for i, c in sorted(self.coef.items())]
        return f"Noisy({' + '.join(terms)})"


def _rational(f: int | Fraction) -> sympy.Rational:
    if isinstance(f, int):
        return sympy.Integer(f)
    return sympy.Rational(f.numerator, f.denominator)


def _constant_truth(value: int | Fraction, relation: str) -> bool:
    return {">=": value >= 0, ">": value > 0, "==": value == 0, "!=": value != 0}[relation]


# ---------------------------------------------------------------------------- Comparison
class Comparison:
    """``expr relation 0`` for a noisy ``expr``: forks the run where its truth is asked.

    Its truth value is decided once per run (a comparison kept in a variable and tested
    twice takes the same branch both times). ``int(c)``, ``c + 1`` and ``sum`` of
    comparisons count it 0 or 1.
    """

    __slots__ = ("_value", "executor", "expr", "line", "relation")

    def __init__(self, expr: Noisy, relation: str, line: str, executor: Executor) -> None:
        self.expr = expr
        self.relation = relation
        self.line = line
        self.executor = executor
        self._value: bool | None = None

    @staticmethod
    def of(diff: Noisy, relation: str, line: str) -> Any:
        """The comparison ``diff relation 0``, or a plain bool when it is decided: no noise
        left, or ``==`` / ``!=`` with continuous noise (the equal branch has probability 0
        and is dropped)."""
        if diff.is_constant:
            return _constant_truth(diff.const, relation)
        if any(diff.laws[i] == "gumbel" for i in diff.coef):
            raise ProgramError(f"{line}: Gumbel noise may only be drawn inside argmax or argmin "
                               "(argmax([a + gumbel(s) for a in q]))")
        if relation in ("==", "!=") and diff.continuous:
            return relation == "!="
        return Comparison(diff, relation, line, active("a comparison of noisy values"))

    def negation(self) -> tuple[Noisy, str]:
        """``(expr, relation)`` of the complement: not(e >= 0) is -e > 0, and so on."""
        flip = {">=": (">", True), ">": (">=", True), "==": ("!=", False), "!=": ("==", False)}
        rel, neg = flip[self.relation]
        return (-self.expr if neg else self.expr), rel

    def __bool__(self) -> bool:
        if self._value is None:
            self._value = self.executor.branch(self)
        return self._value

    def __int__(self) -> int:
        return 1 if self else 0

    __index__ = __int__

    def __add__(self, other: object) -> Any:
        return int(self) + other  # type: ignore[operator]

    def __radd__(self, other: object) -> Any:
        return other + int(self)  # type: ignore[operator]

    def __sub__(self, other: object) -> Any:
        return int(self) - other  # type: ignore[operator]

    def __rsub__(self, other: object) -> Any:
        return other - int(self)  # type: ignore[operator]

    def __mul__(self, other: object) -> Any:
        return int(self) * other  # type: ignore[operator]

    __rmul__ = __mul__

    # ``c == True``, ``c1 == c2``, ``x in [c1, c2]``, ``list.count`` and tuple equality fork
    # like ``bool(c)`` and compare the truth values (without these, Python compared
    # identities: a wrong law, silently)
    def __eq__(self, other: object) -> bool:
        return bool(self) == (bool(other) if isinstance(other, Comparison) else other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __lt__(self, other: object) -> bool:
        return int(self) < (int(other) if isinstance(other, Comparison) else other)  # type: ignore[operator]

    def __le__(self, other: object) -> bool:
        return int(self) <= (int(other) if isinstance(other, Comparison) else other)  # type: ignore[operator]

    def __gt__(self, other: object) -> bool:
        return int(self) > (int(other) if isinstance(other, Comparison) else other)  # type: ignore[operator]

    def __ge__(self, other: object) -> bool:
        return int(self) >= (int(other) if isinstance(other, Comparison) else other)  # type: ignore[operator]

    def __hash__(self) -> int:
        raise ProgramError(f"{user_line()}: a comparison of noisy values is unhashable; use "
                           "bool(c) as the key")

    def __repr__(self) -> str:
        return f"Comparison({self.expr!r} {self.relation} 0 at {self.line})"


# ---------------------------------------------------------------------------- draw arguments
def exact_scale(scale: object, law: str, line: str) -> sympy.Expr:
    """The scale of a draw: an exact expression provably > 0 and finite."""
    if isinstance(scale, (Noisy, Comparison)):
        raise ProgramError(f"{line}: the scale of {law}() depends on a noise")
    if isinstance(scale, float):
        raise ProgramError(f"{line}: {law}() scale is the float {scale!r}; use exact numbers")
    s = sympy.Rational(scale.numerator, scale.denominator) if isinstance(scale, Fraction) \
        else sympy.sympify(scale)
    if s.has(sympy.Float):
        raise ProgramError(f"{line}: {law}() scale {s} holds a float; use exact numbers "
                           "(sympy.Rational, Fraction)")
    why = _scale_verdict(s)
    if why is None:
        return s
    raise ProgramError(message(line, f"{law}() scale", why, s))


@lru_cache(maxsize=1024)
def _scale_verdict(s: sympy.Expr) -> str | None:
    """None when ``s`` is provably > 0 and finite, else what it must be (cached: every run
    of a program draws the same few scales, and sympy's assumptions are slow)."""
    if s.is_positive is True and s.is_finite is True:
        return None
    return "> 0 and finite" if s.is_positive is False or s.is_finite is False \
        else "provably > 0 and finite"


def exact_probability(p: object, line: str) -> sympy.Expr:
    """The ``p`` of a Bernoulli draw: provably in [0, 1] (``p <= 1`` by ``1 - p >= 0`` or,
    for a positive ``p`` such as ``exp(-epsilon)``, by ``log p <= 0``)."""
    if isinstance(p, (Noisy, Comparison)):
        raise ProgramError(f"{line}: bernoulli() probability depends on a noise")
    if isinstance(p, float):
        raise ProgramError(f"{line}: bernoulli() probability is the float {p!r}; use exact "
                           "numbers")
    s = sympy.Rational(p.numerator, p.denominator) if isinstance(p, Fraction) \
        else sympy.sympify(p)
    lo = s.is_nonnegative
    if lo is None:
        lo = sympy.together(s).is_nonnegative
    hi = (1 - s).is_nonnegative
    if hi is None:
        hi = sympy.together(1 - s).is_nonnegative
    if hi is None and lo is True and s.is_positive:  # exp(-epsilon)/2: log s <= 0
        hi = sympy.expand_log(sympy.log(s), force=True).is_nonpositive or None
    if None in (lo, hi):  # 1 - exp(-epsilon), tanh(epsilon/2): t = exp(-epsilon) in (0, 1)
        lo = lo if lo is not None else _unit_sign(s)
        hi = hi if hi is not None else _unit_sign(1 - s)
    if lo is True and hi is True:
        return s
    why = "is not" if False in (lo, hi) else "cannot be shown to be"
    raise ProgramError(f"{line}: bernoulli() probability {s} {why} in [0, 1]")


def _unit_sign(s: sympy.Expr) -> bool | None:
    """Whether ``s >= 0`` for every positive ``epsilon``, when ``s`` has one positive free
    symbol ``x`` and is rational in ``t = exp(-x)`` (which ranges over ``(0, 1)``): exactly,
    by the real roots of numerator and denominator in ``(0, 1)`` (none: the sign at
    ``t = 1/2`` holds throughout); None when undecided."""
    if len(s.free_symbols) != 1:
        return None
    (x,) = s.free_symbols
    if not x.is_positive:
        return None
    t = sympy.Dummy("t", positive=True)
    f = sympy.together(s.subs(sympy.exp(x), 1 / t).subs(x, -sympy.log(t)))
    if f.has(x) or not f.is_rational_function(t):
        return None
    num, den = (sympy.Poly(e, t) for e in sympy.fraction(f))
    for poly in (num, den):
        if any(0 < r < 1 for r in sympy.real_roots(poly)):
            return None
    value = f.subs(t, sympy.Rational(1, 2))
    return bool(value >= 0) if value.is_number else None
