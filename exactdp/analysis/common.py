"""What every analysis reads from a mechanism, and the exact sign of a sympy number.

Accessors for a mechanism's sensitivity, monotonic flag, epsilon, name and distribution; the
score-vector coercion; :func:`exact_sign` (rigorous balls, then an exact zero test). Shared by
the engines, the neighbour search and every check of :mod:`exactdp.analysis`.
"""

from __future__ import annotations

import sympy

from ..exact.poly import to_arb
from ..mechanisms.base import Mechanism
from ..numbers import exact_number, safe_sympify
from ..scores import ScoreVector, as_scores

__all__ = [
    "exact_sign",
]

Y = sympy.Symbol("y", positive=True)
EPSILON = sympy.Symbol("epsilon", positive=True)


# =============================================================================== helpers
def mechanism_sensitivity(mech: object) -> sympy.Expr:
    return exact_number(getattr(mech, "sensitivity", 1), "sensitivity")


def mechanism_monotone(mech: object) -> bool:
    return bool(getattr(mech, "monotone", False))


def mechanism_epsilon(mech: object) -> sympy.Expr | None:
    eps = getattr(mech, "epsilon", None)
    return None if eps is None else safe_sympify(eps)


def mechanism_name(mech: object) -> str:
    return getattr(mech, "name", None) or type(mech).__name__


def is_core_mechanism(mech: object) -> bool:
    return isinstance(mech, Mechanism)


def score_vector(scores: object, name: str) -> ScoreVector:
    return as_scores(scores, name)


def plain(sv: ScoreVector) -> tuple:
    """Scores as a plain tuple (ints kept as Python ints)."""
    if sv.kind == "int":
        return tuple(sv.raw)  # type: ignore[arg-type]
    return tuple(sv.exact)


def distribution_of(mech: object, sv: ScoreVector):
    if not hasattr(mech, "distribution"):
        raise ValueError(
            f"{type(mech).__name__} is not a mechanism: it needs a distribution(scores) method"
        )
    return mech.distribution(sv if is_core_mechanism(mech) else plain(sv))


def exact_probabilities_of(dist, func: str, mech: object) -> tuple[sympy.Expr, ...]:
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


def _is_zero_expr(expr: sympy.Expr) -> bool:
    """Exact zero test for a closed-form number (expansion, then simplify)."""
    if expr == 0:
        return True
    e = sympy.expand(expr)
    if e == 0:
        return True
    e = sympy.expand(sympy.powsimp(e))
    if e == 0:
        return True
    return sympy.simplify(e) == 0


def exact_sign(expr: sympy.Expr) -> int | None:
    """Sign of an exact real expression: -1, 0, +1, or None if it depends on free symbols.

    Numbers are decided by ball arithmetic at rising precision, with an exact zero test
    when a ball keeps containing zero.

    Raises
    ------
    ArithmeticError
        If a non-zero number cannot be told from zero at 2**14 bits.
    """
    expr = safe_sympify(expr)
    if expr == 0:
        return 0
    if expr.free_symbols:
        if expr.is_zero:
            return 0
        if expr.is_positive:
            return 1
        if expr.is_negative:
            return -1
        return 0 if _is_zero_expr(expr) else None
    if expr.is_Rational:
        return int(bool(expr > 0)) - int(bool(expr < 0))
    if expr is sympy.oo:
        return 1
    if expr is -sympy.oo:
        return -1
    prec = 96
    tested = False
    while prec <= 1 << 14:
        try:
            val = to_arb(expr, prec)
        except ValueError:
            val = None
        if val is not None:
            if val > 0:
                return 1
            if val < 0:
                return -1
        if not tested and prec >= 192:
            tested = True
            if _is_zero_expr(expr):
                return 0
            if val is None:
                v = sympy.N(expr, 60)
                if v != 0 and abs(v) > sympy.Float(10) ** -50:
                    return 1 if v > 0 else -1
                raise ArithmeticError(f"exact_sign: cannot decide the sign of {expr}")
        prec *= 2
    raise ArithmeticError(f"exact_sign: cannot decide the sign of {expr}")
