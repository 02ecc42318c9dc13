"""``sup_privacy_loss``: the supremum of the privacy loss over a one-parameter family of pairs.

Proved, or honestly not: exact end-point limits, then branch and bound in ball arithmetic
over the compactified parameter (:func:`exactdp.exact.bound.abs_bound`); when no proof is
found the result has ``value=None``, a proved ``lower_bound`` and ``certified=False``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import sympy

from .._validate import argument_error
from ..cost import check_seconds, sup_privacy_loss_seconds
from ..exact.bound import abs_bound
from ..exact.signs import compare, sign_or_none
from ..numbers import exact_number, safe_sympify
from ..result import Result, rational_bound
from ..scores import ScoreVector
from .common import as_mechanism, mechanism_epsilon, score_vector
from .neighbourhood import check_pair


# =============================================================================== suprema
@dataclass(frozen=True)
class SupremumResult(Result):
    """Supremum of the privacy loss over a one-parameter family of pairs.

    Attributes
    ----------
    value : sympy.Expr or None
        The proved supremum of ``max_r |ln(P_r(q(g)) / P_r(q'(g)))|`` over ``g > start``,
        or None when it is not proved (then see ``lower_bound`` and ``caveat``).
    lower_bound : sympy.Expr
        A proved lower bound of the supremum (an end-point limit, or the exact loss at an
        interior point); equal to ``value`` when certified.
    limit : sympy.Expr
        ``lim |loss|`` at the far end ``g -> oo`` (largest over the outputs).
    output : int
        The output whose loss gives ``lower_bound``.
    attained : bool
        True when some ``g > start`` attains ``value`` (a constant loss); False when the
        supremum is only approached at an end.
    parameter : sympy.Symbol
    log_ratios : tuple of sympy.Expr
        ``ln(P_r(q(g)) / P_r(q'(g)))`` per output, as functions of the parameter.
    certified : bool
        True iff ``value`` is proved (see :func:`sup_privacy_loss`, Notes).
    caveat : str or None
        Why not certified.
    boxes : int
        Boxes of the branch and bound.

    Notes
    -----
    The result protocol (:class:`exactdp.result.Result`): ``value`` is the supremum (None
    when not proved; ``float()`` then raises), ``lower`` a rational below ``lower_bound``.
    """

    headline_label = "supremum"
    repr_fields = ("lower_bound", "limit", "output")

    value: sympy.Expr | None
    lower_bound: sympy.Expr
    limit: sympy.Expr
    output: int
    attained: bool
    parameter: sympy.Symbol
    log_ratios: tuple
    certified: bool
    caveat: str | None = None
    boxes: int = 0

    @property
    def lower(self):
        """An exact rational <= the supremum (from ``lower_bound``, proved in every case)."""
        return rational_bound(self.lower_bound, "lower")


def symbolic_probabilities(mechanism: object, scores: Sequence) -> tuple[sympy.Expr, ...]:
    """Exact probabilities of ``mechanism`` on scores that may contain symbols.

    The mechanism gets the scores as an exact :class:`~exactdp.scores.ScoreVector` without
    validation (the order of the scores must be decidable from the symbols' assumptions).
    """
    exprs = tuple(safe_sympify(s) for s in scores)
    sv = ScoreVector(exprs, "exact", "scores")
    dist = as_mechanism(mechanism, "sup_privacy_loss").distribution(sv)
    return tuple(safe_sympify(p) for p in dist.probabilities)


def _distinct(values: tuple) -> int:
    """How many distinct entries (all of them when some is unhashable)."""
    try:
        return len(set(values))
    except TypeError:
        return len(values)


def _family_pair(family, g) -> tuple[tuple, tuple]:
    if not callable(family):
        raise argument_error("sup_privacy_loss", "family",
                             "a callable g -> (scores, neighbour)", family)
    pair = family(g)
    try:
        q_raw, q2_raw = (tuple(v) for v in pair)
        n = len(q_raw)
    except (TypeError, ValueError) as exc:
        raise ValueError("sup_privacy_loss: family(g) must return (scores, neighbour)") from exc
    # before any sympy: the symbolic probabilities, their ratios and limits grow with n
    check_seconds("sup_privacy_loss", f"the symbolic supremum over n = {n} outputs",
                  sup_privacy_loss_seconds(n, _distinct(q_raw)),
                  "call privacy_loss(mechanism, scores, neighbour) at chosen parameter values "
                  "(exact, one pair each), or keep in the family only the outputs that move")
    try:
        q_expr = tuple(safe_sympify(v) for v in q_raw)
        q2_expr = tuple(safe_sympify(v) for v in q2_raw)
    except (TypeError, ValueError) as exc:
        raise ValueError("sup_privacy_loss: family(g) must return (scores, neighbour)") from exc
    if len(q_expr) != len(q2_expr):
        raise ValueError(
            f"sup_privacy_loss: family gives {len(q_expr)} scores and {len(q2_expr)} "
            "neighbour scores; neighbours cover the same range"
        )
    return q_expr, q2_expr


def _largest(values: list, func: str) -> tuple[int, sympy.Expr]:
    """Index and value of the largest exact number (ties: first), or sympy.Max if unordered."""
    best = 0
    for i, v in enumerate(values[1:], 1):
        c = sign_or_none(v - values[best])
        if c is None:
            return best, sympy.Max(*values)
        if c == 1:
            best = i
    return best, values[best]


def _split_exp(e: sympy.Expr) -> sympy.Expr:
    """``exp(a + b) -> exp(a) exp(b)`` only (no log or product expansion)."""
    return sympy.expand(e, power_exp=True, log=False, mul=False, multinomial=False,
                        power_base=False, basic=False)


def _to_unit_interval(logs, g, start, u):
    """Rewrite each log-ratio as a function of ``u = exp(-kappa (g - start))`` in (0, 1].

    Returns ``(forms, kappa)`` or None when g occurs outside ``exp(linear in g)``, or the
    slopes are not rational multiples of each other (decided by exact algebra).
    """
    powers = lambda e: e.is_Pow and e.exp.has(g) and not e.base.has(g)  # noqa: E731
    exprs = [L.replace(powers, lambda e: sympy.exp(e.exp * sympy.log(e.base))) for L in logs]
    slopes = []
    for L in exprs:
        for a in L.atoms(sympy.exp):
            arg = sympy.expand(a.args[0])
            if not arg.has(g):
                continue
            s = sympy.diff(arg, g)
            if s.has(g):
                return None
            slopes.append(s)
    if not slopes:
        return None
    s0 = slopes[0]
    den = 1
    for s in slopes:
        ratio = sympy.cancel(s / s0)
        if not ratio.is_Rational:
            return None
        den = math.lcm(den, int(ratio.q))
    kappa = sympy.Abs(s0) / den
    back = start - sympy.log(u) / kappa
    forms = []
    for L in exprs:
        f = _split_exp(L.subs(g, back))
        f = f.replace(
            lambda e: isinstance(e, sympy.log) and e.args[0].has(u),
            lambda e: sympy.log(sympy.cancel(sympy.together(_split_exp(e.args[0])))),
        )
        if f.has(g) or f.has(sympy.log(u)):
            return None
        forms.append(f)
    return forms, kappa


def sup_privacy_loss(
    mechanism: object,
    family: Callable[[sympy.Symbol], tuple[Sequence, Sequence]],
    *,
    parameter: sympy.Symbol | None = None,
    start: object = 0,
    allow_non_neighbour: bool = False,
    max_boxes: int = 3000,
) -> SupremumResult:
    """Supremum of the exact privacy loss over a one-parameter family of pairs, proved.

    Parameters
    ----------
    mechanism : Mechanism
        A mechanism (exactdp or user); its epsilon may be symbolic (then the result is a
        proved lower bound only).
    family : callable
        ``family(g) -> (scores, neighbour)``: two sequences of sympy expressions in the
        positive Symbol ``g``, a pair of neighbours for every ``g > start`` (for example
        ``lambda g: ((0, -g - 2), (-1, -g - 1))``). The order of the scores must be
        decidable from ``g > 0``; shift ``g`` to ensure it.
    parameter : sympy.Symbol, optional
        The Symbol passed to ``family`` (default ``Symbol("g", positive=True)``).
    start : number
        Lower end of the parameter range ``(start, oo)``.
    max_boxes : int
        Budget of the branch and bound (per output).

    Returns
    -------
    SupremumResult
        ``value`` is the supremum when proved (``certified=True``); otherwise None, with a
        proved ``lower_bound`` and a ``caveat``. Never a scanned maximum.

    Raises
    ------
    ValueError
        If ``family`` is not callable or does not return two vectors of the same length, or (unless
        ``allow_non_neighbour``) a sampled member is not a pair of neighbours.

    Notes
    -----
    1. The log-ratios ``L_r(g)`` are exact sympy expressions; their limits at
       ``g -> start+`` and ``g -> oo`` are exact (``sympy.limit``). The largest ``|limit|``
       is ``T``, a lower bound of the supremum.
    2. When every ``g`` sits in ``exp(linear in g)`` with slopes in rational ratio (EM, PF,
       RNM with exponential or Gumbel noise on shifted scores) and epsilon is a number, the
       substitution ``u = exp(-kappa (g - start))`` maps ``(start, oo)`` onto ``(0, 1]`` and
       each ``L_r`` onto a function of ``u`` continuous on ``[0, 1]``. Branch and bound in
       ball arithmetic (:func:`exactdp.exact.bound.abs_bound`) proves ``|L_r(u)| <= T`` on
       all of ``[0, 1]``: each box by an interval enclosure strictly inside ``(-T, T)``,
       or by an enclosure of ``L_r'`` that excludes 0 (monotone box) with both end values
       ``<= T`` exactly. Then ``value = T``.
    3. Otherwise (``g`` outside exponentials, as in RNM-Laplace's ``g e^{-g}`` terms; a
       symbolic epsilon; a box that cannot be separated) ``value`` is None and
       ``certified`` False; a box where ``|L_r| > T`` is proved gives the exact loss at
       one of its points as ``lower_bound``.

    References
    ----------
    Dwork & Roth (2014), Claim 3.9 (report-noisy-max with Laplace noise; the worst loss at
    scale Delta/eps on non-monotone scores tends to 2*eps); Moore, Kearfott & Cloud,
    *Introduction to Interval Analysis* (2009), ch. 6 (branch and bound).

    Examples
    --------
    >>> import exactdp
    >>> pair = lambda g: ([0, -g], [1, -g - 1])
    >>> r = exactdp.sup_privacy_loss(exactdp.PermuteAndFlip(1), pair)
    >>> print(r.value)
    1
    """
    g = parameter if parameter is not None else sympy.Symbol("g", positive=True)
    q_expr, q2_expr = _family_pair(family, g)
    start = exact_number(start, "start")
    eps = mechanism_epsilon(mechanism)
    for k in range(0, 24, 4):
        gv = start + sympy.Rational(1, 8) * sympy.Integer(2) ** k
        qa = score_vector([v.subs(g, gv) for v in q_expr], "scores", "sup_privacy_loss")
        qb = score_vector([v.subs(g, gv) for v in q2_expr], "neighbour", "sup_privacy_loss")
        check_pair(mechanism, qa, qb, "sup_privacy_loss", allow_non_neighbour)
    P = symbolic_probabilities(mechanism, q_expr)
    P2 = symbolic_probabilities(mechanism, q2_expr)
    logs = tuple(
        sympy.log(sympy.powsimp(sympy.simplify(a / b))) for a, b in zip(P, P2, strict=True)
    )
    far = [sympy.Abs(sympy.limit(f, g, sympy.oo)) for f in logs]
    near = [sympy.Abs(sympy.limit(f, g, start, dir="+")) for f in logs]
    r_far, limit_far = _largest(far, "sup_privacy_loss")
    ends = [v for pair in zip(far, near, strict=True) for v in pair]
    k, T = _largest(ends, "sup_privacy_loss")
    best_r = r_far if isinstance(T, sympy.Max) else k // 2

    def result(value, lower, certified, caveat, attained=False, boxes=0, r=best_r):
        return SupremumResult(value, lower, limit_far, r, attained, g, logs, certified,
                              caveat, boxes)

    if eps is not None and eps.free_symbols:
        return result(None, T, False, "symbolic epsilon: only the end-point limits are "
                      "exact; give a numeric epsilon to enclose the interior")
    if isinstance(T, sympy.Max):
        return result(None, T, False, "the end-point limits could not be ordered exactly")
    u = sympy.Symbol("u", positive=True)
    mapped = _to_unit_interval(logs, g, start, u)
    if mapped is None:
        return result(None, T, False, "the parameter occurs outside exp(linear in g): the "
                      "interior is not enclosed (only the end-point limits are exact)")
    forms, _ = mapped
    boxes = 0
    attained = False
    for r, f in enumerate(forms):
        if not f.has(u):
            attained = attained or compare(sympy.Abs(f), T) == 0
            continue
        proof = abs_bound(f, u, 0, 1, T, end_values={sympy.Integer(0): far[r],
                                                      sympy.Integer(1): near[r]},
                          max_boxes=max_boxes)
        boxes += proof.boxes
        if proof.holds is False:
            lower = sympy.Abs(f.subs(u, proof.witness))
            return result(None, lower, False, "the supremum lies inside the range: the loss "
                          f"at u = exp(-kappa (g - start)) = {proof.witness} exceeds every "
                          "end-point limit; its exact value is not computed",
                          boxes=boxes, r=r)
        if proof.holds is None:
            return result(None, T, False, f"interior of output {r} not enclosed: "
                          f"{proof.reason}", boxes=boxes)
    return result(T, T, True, None, attained=attained, boxes=boxes)
