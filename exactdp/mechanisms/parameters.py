"""Declared mechanism parameters: one declaration per parameter, everything else derived.

A mechanism is a frozen dataclass whose parameters are fields made by :func:`parameter`
(or one of the shared declarations :func:`epsilon_parameter`, :func:`sensitivity_parameter`,
:func:`monotonic_parameter`, :func:`optimize_parameter`). From that one declaration come
the constructor (the dataclass ``__init__``: positional in declaration order, keyword-only
where declared), the validation with the one message style (:meth:`Parameter.validate`,
run by ``Mechanism.__post_init__``), ``repr``, ``replace`` and ``with_epsilon``, and the
registry entry (:class:`exactdp.mechanisms.registry.MechanismSpec` lists them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, Field, dataclass, field, fields
from functools import cache
from typing import Any

import sympy

from .._validate import argument_error, check_bool, check_choice
from ..numbers import exact_epsilon_or_limit, exact_sensitivity

#: Values of the ``optimize`` constructor argument of every mechanism.
OPTIMIZE = ("max", "min")

#: ``check(func, name, value) -> normalised value`` (raises ValueError in the one style).
Check = Callable[[str, str, Any], Any]


@dataclass(frozen=True)
class Parameter:
    """One declared parameter of a mechanism.

    Attributes
    ----------
    name : str
        The constructor argument and attribute (filled in from the dataclass field).
    check : callable
        ``check(func, name, value)``: the validated, normalised value, or ValueError worded
        ``{func}: {name} must be {what}, got {value!r}``.
    domain : str
        What the value must be, in words (``"> 0"``, ``"a bool"``).
    exact : bool
        Whether the value is held as an exact sympy number (floats converted exactly).
    symbolic : bool
        Whether a positive sympy Symbol is accepted (exact analysis for every value).
    default : object
        The default (None for a required parameter).
    keyword_only : bool
    required : bool
        True when the parameter has no default.
    """

    check: Check
    domain: str
    exact: bool = True
    symbolic: bool = False
    name: str = ""
    default: Any = None
    keyword_only: bool = False
    required: bool = True

    def validate(self, func: str, value: object) -> Any:
        """``value`` checked and normalised (the message names ``func`` and this parameter)."""
        return self.check(func, self.name, value)


def parameter(check: Check, domain: str, *, default: Any = MISSING, exact: bool = True,
              symbolic: bool = False, kw_only: bool = False) -> Any:
    """A dataclass field that declares a mechanism parameter (see :class:`Parameter`)."""
    meta = {"parameter": Parameter(check, domain, exact, symbolic)}
    return field(default=default, kw_only=kw_only, metadata=meta)


def declared(f: Field) -> Parameter | None:
    """The :class:`Parameter` a dataclass field declares (name and default filled), or None."""
    p = f.metadata.get("parameter")
    if p is None:
        return None
    required = f.default is MISSING
    return Parameter(p.check, p.domain, p.exact, p.symbolic, f.name,
                     None if required else f.default, bool(f.kw_only), required)


@cache
def declared_parameters(cls: type) -> tuple[Parameter, ...]:
    """The :class:`Parameter` of every declared field of a dataclass, in constructor order
    (positional ones first, then keyword-only ones, as the dataclass ``__init__``)."""
    out = [p for f in fields(cls) if (p := declared(f)) is not None]
    return tuple([p for p in out if not p.keyword_only] + [p for p in out if p.keyword_only])


# ------------------------------------------------------------------ the shared declarations
def _epsilon(func: str, name: str, value: object) -> sympy.Expr:
    return exact_epsilon_or_limit(value, func)


def _sensitivity(func: str, name: str, value: object) -> sympy.Expr:
    out = exact_sensitivity(value, func)
    if out.free_symbols:
        raise argument_error(func, name, "a number, not a symbolic expression", out)
    return out


def _monotonic(func: str, name: str, value: object) -> bool:
    return False if value is None else check_bool(func, name, value)


def _optimize(func: str, name: str, value: object) -> str:
    return check_choice(func, name, value, OPTIMIZE)


def epsilon_parameter(**kwargs: Any) -> Any:
    """``epsilon``: an exact number >= 0 or a positive Symbol; 0 and oo are the exact limits
    (uniform over the outputs, uniform over the maximizers)."""
    return parameter(_epsilon, ">= 0 (0 and oo are the exact limits)", symbolic=True, **kwargs)


def sensitivity_parameter() -> Any:
    """``sensitivity``: an exact number > 0 (default 1)."""
    return parameter(_sensitivity, "a number > 0", default=1)


def monotonic_parameter() -> Any:
    """``monotonic``: a bool (default False; None means False). True sets ``c = 1``."""
    return parameter(_monotonic, "a bool", default=False, exact=False)


def optimize_parameter() -> Any:
    """``optimize``: ``"max"`` or ``"min"`` (keyword only, default ``"max"``)."""
    return parameter(_optimize, '"max" or "min"', default="max", exact=False, kw_only=True)
