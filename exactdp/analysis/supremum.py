"""``sup_privacy_loss``: the supremum of the privacy loss over all neighbouring pairs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import sympy

from ..numbers import exact_number, safe_sympify
from ..scores import ScoreVector
from .common import exact_sign, is_core_mechanism, mechanism_epsilon, score_vector
from .neighbourhood import check_pair

__all__ = [
    "SupremumResult",
    "sup_privacy_loss",
    "symbolic_probabilities",
]


# =============================================================================== suprema
@dataclass(frozen=True)
class SupremumResult:
    """Supremum of the privacy loss over a one-parameter family of pairs.

    Attributes
    ----------
    value : sympy.Expr
        The supremum (exact when ``exact`` is True).
    limit : sympy.Expr
        ``lim |loss|`` at the far end of the parameter range.
    output : int
        The output whose loss gives ``value``.
    attained : bool
        False when the value is only approached (every scanned loss is below it).
    parameter : sympy.Symbol
    log_ratios : tuple of sympy.Expr
        ``ln(P_r(q(g)) / P_r(q'(g)))`` per output, as functions of the parameter.
    scan_max : float
        Largest loss found on the numeric scan of the interior.
    exact : bool
        True when no interior scan point exceeds the exact end-point limits.
    """

    value: sympy.Expr
    limit: sympy.Expr
    output: int
    attained: bool
    parameter: sympy.Symbol
    log_ratios: tuple
    scan_max: float
    exact: bool

    def to_float(self) -> float:
        return math.inf if self.value is sympy.oo else float(sympy.N(self.value, 30))

    def __float__(self) -> float:
        return self.to_float()


def symbolic_probabilities(mechanism: object, scores: Sequence) -> tuple[sympy.Expr, ...]:
    """Exact probabilities of ``mechanism`` on scores that may contain symbols.

    exactdp mechanisms get the scores as an exact :class:`~exactdp.scores.ScoreVector`
    without validation (the order of the scores must be decidable from the symbols'
    assumptions); other objects get a tuple of sympy expressions.
    """
    exprs = tuple(safe_sympify(s) for s in scores)
    inner = getattr(mechanism, "inner", None)
    if inner is not None and is_core_mechanism(inner):
        mechanism = inner
    if is_core_mechanism(mechanism):
        sv = ScoreVector(exprs, "exact", "scores")
        return tuple(mechanism._route("exact", sv))  # optimize and epsilon limits
    return tuple(safe_sympify(p) for p in mechanism.distribution(exprs).probabilities)


def sup_privacy_loss(
    mechanism: object,
    family: Callable[[sympy.Symbol], tuple[Sequence, Sequence]],
    *,
    parameter: sympy.Symbol | None = None,
    start: object = 0,
    scan: int = 24,
    scan_epsilon: object = 1,
    allow_non_neighbour: bool = False,
) -> SupremumResult:
    """Supremum of the exact privacy loss over a one-parameter family of pairs.

    Parameters
    ----------
    mechanism : object
        A mechanism (exactdp or user); its epsilon may be symbolic.
    family : callable
        ``family(g) -> (scores, neighbour)``: two sequences of sympy expressions in the
        positive Symbol ``g``, a pair of neighbours for every ``g > start`` (for example
        ``lambda g: ((0, -g - 2), (-1, -g - 1))``). The order of the scores must be
        decidable from ``g > 0``; shift ``g`` to ensure it.
    parameter : sympy.Symbol, optional
        The Symbol passed to ``family`` (default ``Symbol("g", positive=True)``).
    start : number
        Lower end of the parameter range ``(start, oo)``.
    scan : int
        Number of interior points (geometric grid) scanned numerically at 30 digits to
        confirm that the supremum is the end-point limit.
    scan_epsilon : number
        Epsilon used by the scan when the mechanism's epsilon is symbolic.

    Returns
    -------
    SupremumResult
        ``value = max_r max(|lim_{g->start+} ln ratio_r|, |lim_{g->oo} ln ratio_r|)``
        (exact sympy limits) when the scan finds nothing larger; otherwise the scanned
        maximum with ``exact=False``.

    Raises
    ------
    ValueError
        If ``family`` does not return two vectors of the same length, or (unless
        ``allow_non_neighbour``) a scanned member is not a pair of neighbours.

    References
    ----------
    Dwork & Roth (2014), Claim 3.9 (report-noisy-max with Laplace noise); the worst loss
    of RNM-Laplace at scale Delta/eps on non-monotone scores tends to 2*eps.
    """
    g = parameter if parameter is not None else sympy.Symbol("g", positive=True)
    pair = family(g)
    try:
        q_expr, q2_expr = pair
        q_expr = tuple(safe_sympify(v) for v in q_expr)
        q2_expr = tuple(safe_sympify(v) for v in q2_expr)
    except (TypeError, ValueError) as exc:
        raise ValueError("sup_privacy_loss: family(g) must return (scores, neighbour)") from exc
    if len(q_expr) != len(q2_expr):
        raise ValueError(
            f"sup_privacy_loss: family gives {len(q_expr)} scores and {len(q2_expr)} "
            "neighbour scores; neighbours cover the same range"
        )
    start = exact_number(start, "start")
    eps = mechanism_epsilon(mechanism)
    scan_eps = exact_number(scan_epsilon, "scan_epsilon")
    grid = [start + sympy.Rational(1, 8) * sympy.Integer(2) ** k for k in range(scan)]
    for gv in grid[:: max(1, scan // 6)]:
        qa = score_vector([v.subs(g, gv) for v in q_expr], "scores")
        qb = score_vector([v.subs(g, gv) for v in q2_expr], "neighbour")
        check_pair(mechanism, qa, qb, "sup_privacy_loss", allow_non_neighbour)
    P = symbolic_probabilities(mechanism, q_expr)
    P2 = symbolic_probabilities(mechanism, q2_expr)
    logs = tuple(sympy.log(sympy.powsimp(sympy.simplify(a / b))) for a, b in zip(P, P2,
                                                                                   strict=True))
    ends = []
    for r, f in enumerate(logs):
        hi = sympy.limit(f, g, sympy.oo)
        lo = sympy.limit(f, g, start, dir="+")
        ends.append((r, sympy.Abs(hi), sympy.Abs(lo)))
    limit_far = sympy.Max(*[hi for _, hi, _ in ends])
    best_r, best_val = 0, None
    for r, hi, lo in ends:
        v = sympy.Max(hi, lo)
        if best_val is None or exact_greater(v, best_val, eps, scan_eps):
            best_r, best_val = r, v
    subs_eps = {eps: scan_eps} if eps is not None and eps.free_symbols else {}
    target = best_val.subs(subs_eps)
    scan_max = 0.0
    exceeded, attained = False, False
    for gv in grid:
        for f in logs:
            v = sympy.Abs(f.subs(subs_eps).subs(g, gv))
            s = exact_sign(v - target)
            exceeded = exceeded or s == 1
            attained = attained or s == 0
            scan_max = max(scan_max, float(sympy.N(v, 30)))
    exact = not exceeded
    value = best_val if exact else sympy.Float(scan_max, 15)
    attained = attained or not exact
    return SupremumResult(value, limit_far, best_r, bool(attained), g, logs, scan_max, exact)


def exact_greater(a: sympy.Expr, b: sympy.Expr, eps, scan_eps) -> bool:
    s = exact_sign(a - b)
    if s is None and eps is not None and eps.free_symbols:
        s = exact_sign((a - b).subs(eps, scan_eps))
    return s == 1
