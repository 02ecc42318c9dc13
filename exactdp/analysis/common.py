"""What every analysis reads from a mechanism, and the exact sign of a sympy number.

Accessors for a mechanism's sensitivity, monotonic flag, epsilon, name and distribution; the
score-vector coercion; :func:`exact_sign` (:func:`exactdp.exact.signs.sign`). Shared by
the engines, the neighbour search and every check of :mod:`exactdp.analysis`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import sympy

from .._validate import argument_error
from ..exact.signs import sign, sign_or_none

# X: the generator x = exp(-epsilon/N) of every x-form (the mechanisms' symbol); each object
# that holds a polynomial in it stores its N beside it
from ..mechanisms.base import Mechanism, X  # noqa: F401  (X: imported from here by engines)
from ..numbers import exact_number, safe_sympify
from ..scores import ScoreVector, as_scores

EPSILON = sympy.Symbol("epsilon", positive=True)


# =============================================================================== helpers
def exact_float(value: sympy.Expr) -> float:
    """An exact value in float64 (30 significant digits rounded once); ``oo`` -> ``inf``."""
    return math.inf if value is sympy.oo else float(sympy.N(value, 30))



def as_mechanism(mech: object, func: str | None = None) -> Mechanism:
    """``mech`` if it is a :class:`~exactdp.mechanisms.base.Mechanism` (the one protocol the
    analysis reads; a user's function is wrapped by ``mechanism_from_function``).

    Raises
    ------
    ValueError
        If it is not.
    """
    if not isinstance(mech, Mechanism):
        raise argument_error(func, "mechanism", "an exactdp Mechanism (wrap a function of the "
                             "scores with exactdp.mechanism_from_function)", mech)
    return mech


def mechanism_sensitivity(mech: object) -> sympy.Expr:
    """The mechanism's exact ``sensitivity``.

    Raises
    ------
    ValueError
        If the sensitivity is not an exact number.
    """
    return exact_number(as_mechanism(mech).sensitivity, "sensitivity")


def mechanism_monotonic(mech: object) -> bool:
    """The mechanism's ``monotonic`` flag."""
    return bool(as_mechanism(mech).monotonic)


def mechanism_epsilon(mech: object) -> sympy.Expr | None:
    """The mechanism's ``epsilon`` as a sympy expression, or ``None`` if it has none."""
    eps = as_mechanism(mech).epsilon
    return None if eps is None else safe_sympify(eps)


def mechanism_name(mech: object) -> str:
    """The mechanism's ``name``."""
    return as_mechanism(mech).name


def score_vector(scores: object, name: str, func: str) -> ScoreVector:
    """``scores`` validated as a :class:`ScoreVector` (argument ``name`` of ``func``, the
    public function the user called: its errors read ``'{func}: {name} must be ...'``)."""
    return as_scores(scores, name, func)


def distribution_of(mech: object, sv: ScoreVector):
    """The mechanism's output distribution on the scores ``sv``.

    Raises
    ------
    ValueError
        If ``mech`` is not a :class:`~exactdp.mechanisms.base.Mechanism`.
    """
    return as_mechanism(mech).distribution(sv)


def exact_probabilities_of(dist, func: str, mech: object) -> tuple[sympy.Expr, ...]:
    """The distribution's probabilities as exact sympy expressions.

    Raises
    ------
    ValueError
        If they are not available exactly or any contains a float.
    """
    try:
        probs = tuple(safe_sympify(p) for p in dist.probabilities)
    except (ValueError, NotImplementedError) as exc:
        raise ValueError(
            f"{func}: {mechanism_name(mech)} has no exact probabilities here ({exc})"
        ) from exc
    for i, p in enumerate(probs):
        if p.atoms(sympy.Float):
            raise ValueError(
                f"{func}: probability {i} of {mechanism_name(mech)} contains a float ({p}); "
                "exact probabilities are required"
            )
    return probs


def ratios_with_limits(
    numerators: Sequence, denominators: Sequence, is_zero: Callable[[Any], bool],
    ratio: Callable[[Any, Any], Any],
) -> tuple:
    """``a_r / b_r`` for every output r, with the limits of the privacy loss's ratio:
    ``nan`` for 0/0, ``oo`` for a/0 (a > 0), ``0`` for 0/b; ``ratio(a, b)`` otherwise."""
    out = []
    for a, b in zip(numerators, denominators, strict=True):
        za, zb = is_zero(a), is_zero(b)
        if za and zb:
            out.append(sympy.nan)
        elif zb:
            out.append(sympy.oo)
        elif za:
            out.append(sympy.Integer(0))
        else:
            out.append(ratio(a, b))
    return tuple(out)


def exact_sign(expr: sympy.Expr) -> int | None:
    """Sign of an exact real expression: -1, 0, +1, or None if it depends on free symbols.

    :func:`exactdp.exact.signs.sign` (exact algebra or rigorous balls, never a float
    threshold); None only when the sign depends on a symbol.

    Raises
    ------
    UndecidedSignError
        If a number's sign cannot be proved (an ``ArithmeticError``).
    """
    expr = safe_sympify(expr)
    if expr.free_symbols:
        return sign_or_none(expr)
    return sign(expr)


def stamp(result, engine):
    """``result`` with the engine's ``certified`` and ``caveat`` (ball engine: proved radii?)."""
    if engine.certified:
        return result
    return replace(result, certified=False, caveat=engine.caveat)
