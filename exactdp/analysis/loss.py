"""The exact privacy loss of a mechanism on one pair of neighbouring score vectors.

``max_r |log Pr[M(q) = r] - log Pr[M(q') = r]|`` (Dwork and Roth 2014, Def. 2.4; docs/formulas.md
section 1), decided exactly by the engines of :mod:`exactdp.analysis.engines`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import mpmath
import sympy

from ..cost import MAX_EXACT_EXPONENT_DIGITS, check_exact_exponent
from ..mechanisms.base import Mechanism
from ..result import Result, brief
from ..result_text import bracket_witness
from ..scores import ScoreVector
from .common import as_mechanism, ratios_with_limits, score_vector, stamp
from .engines.ball import (
    BallEngine,
    arb_prec,
    ball_output,
    ball_pair_loss,
    ball_ratios,
    raise_undecided,
)
from .engines.select import make_engine
from .neighbourhood import check_pair


# =============================================================================== privacy loss
@dataclass(frozen=True)
class PrivacyLoss(Result):
    """The privacy loss ``max_r |ln(P_r / P'_r)|`` of one pair of score vectors.

    Exact unless ``engine == "ball"`` (mechanisms without exact probabilities, such as
    RNM with Gaussian noise), where it is a certified enclosure.

    Attributes
    ----------
    loss : sympy.Expr
        The loss (``oo`` when one probability is 0 and the other is not; a ``Max`` of the
        candidates when epsilon is symbolic and the largest one depends on epsilon). With
        the ball engine: a ``sympy.Float`` with ``dps`` significant digits (the working
        precision), the midpoint of ``interval``. ``value`` (the result protocol) is the
        loss when exact, None with the ball engine (``ball`` encloses it then).
    output : int or None
        The output attaining it (None when it depends on a symbolic epsilon). With the ball
        engine: the output with the largest certified lower bound (exact ties cannot be
        resolved numerically; see ``candidates``).
    ratios : tuple of sympy.Expr, shape (n,)
        ``P_r(q) / P_r(q')`` per output (``oo``, 0, or ``nan`` when both are 0); sympy
        Floats at ``dps`` digits with the ball engine. A sequence mechanism reaching
        different outputs on the two vectors: per output of their union, ``q``'s outputs
        first, then those reached on ``q'`` only (:mod:`exactdp.analysis.outputs`), so
        ``output`` may index past ``q``'s outputs: ``label`` names it.
    scores, neighbour : tuple
        The pair.
    direction : int
        +1 if ``P_output(q) > P_output(q')``, -1 if smaller, 0 if the loss is 0 (or, with
        the ball engine, if the sign is undecided).
    candidates : tuple of int
        Outputs whose loss may be the largest (one entry unless epsilon is symbolic; with
        the ball engine every output whose interval reaches the largest lower bound).
    engine : str
        ``"x-form"``, ``"generic"`` (exact), ``"ball"`` (certified numeric) or
        ``"density"`` (a mechanism releasing real values, capability ``"density"``: the
        exact ``sup_o |ln f_q(o)/f_q'(o)|`` of its ``"density"`` view; ``output``
        is then the witness in words, ``ratios`` is empty).
    interval : tuple of sympy.Float or None
        Ball engine: ``(lo, hi)`` with ``lo <= loss <= hi`` certified (end points
        exact binary numbers, ``(oo, oo)`` for an infinite loss); density engine: set when
        the supremum is at an interior critical point (no closed form; ``loss`` its
        midpoint, ``value`` None); None for exact results.
    dps : int or None
        Ball engine only: the working precision (decimal digits) of the result.
    certified : bool
        True: exact (x-form and generic engines) or a rigorous enclosure whose every ball
        radius is proved (ball engine); docs/analyzer.md, "What certified means here".
    caveat : str or None
        Why not certified (for example RNM-Gaussian beyond 24 items).
    attained : bool or None
        Density engine: whether some output attains the supremum (False: outputs only
        approach it, see ``approaching``); None for the other engines (always attained).
    approaching : tuple of (str, sympy.Expr)
        Density engine, supremum not attained: outputs and their exact losses, increasing
        towards ``loss``.
    label : object or None
        A mechanism releasing a sequence (output kind ``"sequence"``: the sparse vector's
        answers, a program's tuple): the output ``output`` indexes, as the repr names it
        (``(True, False, None)``; an output reached on one vector only when the loss is
        infinite there, or ``None`` a program returned); None otherwise.
    labelled : bool
        Whether ``label`` names the output (a program's output ``None`` is a label too).

    Notes
    -----
    The result protocol (:class:`exactdp.result.Result`): ``value`` is the exact loss; ``ball``,
    ``lower``, ``upper``, ``evalf(dps)``, ``float()``, ``summary()``.
    """

    headline = "loss"
    repr_fields = ("output", "engine")

    loss: sympy.Expr
    output: int | str | None
    ratios: tuple
    scores: tuple
    neighbour: tuple
    direction: int
    candidates: tuple = ()
    engine: str = "x-form"
    interval: tuple | None = None
    dps: int | None = None
    certified: bool = True
    caveat: str | None = None
    attained: bool | None = None
    approaching: tuple = ()
    label: object = None
    labelled: bool = False

    def repr_parts(self) -> list[str]:
        """The output named by itself (``label``) when the mechanism releases a sequence;
        the witness in words for a release (a bracket's text without the bracket, which
        the value's place shows)."""
        parts = super().repr_parts()
        if self.labelled:
            parts[0] = f"output={brief(self.label)}"
        elif self.engine == "density" and isinstance(self.output, str):
            parts[0] = f"output={brief(bracket_witness(self.output), 80)}"
        return parts

    @property
    def value(self) -> sympy.Expr | None:
        """The loss as an exact sympy expression (symbolic in epsilon when epsilon is);
        None with the ball engine, or an enclosed density supremum, whose enclosure is
        ``ball``."""
        if self.engine == "ball" or (self.engine == "density" and self.interval is not None):
            return None
        return self.loss


def pair_candidates(engine, i: int, j: int, outputs=None):
    """Per output: ('inf', r, dir) or ('ratio', r, R >= 1, dir) or ('both', r, R, None).

    An output whose two probabilities are the very objects of an earlier output's (equal
    gaps share one pair) has that output's candidate, equal to it: it is left out (it
    could only tie, and a tie keeps the earlier output). ``outputs``: only these (increasing;
    the mechanism's :meth:`~exactdp.mechanisms.declarations.Declarations.loss_outputs`)."""
    out = []
    seen: set[tuple[int, int]] = set()
    P, Q = engine.probs[i], engine.probs[j]
    for r in range(len(P)) if outputs is None else outputs:
        a, b = P[r], Q[r]
        key = (id(a), id(b))
        if key in seen:
            continue
        seen.add(key)
        za, zb = engine.is_zero(a), engine.is_zero(b)
        if za and zb:
            continue
        if za or zb:
            out.append(("inf", r, None, -1 if za else 1))
            continue
        R = engine.ratio(a, b)
        s = engine.cmp_one(R)
        if s is None:
            out.append(("ratio", r, R, 1))
            out.append(("ratio", r, engine.inv(R), -1))
        elif s >= 0:
            out.append(("ratio", r, R, s))
        else:
            out.append(("ratio", r, engine.inv(R), -1))
    return out


def max_candidates(engine, cands):
    """Undominated candidates (one when all comparisons are decided)."""
    best: list = []
    for c in cands:
        if c[0] == "inf":
            if not best or best[0][0] != "inf":
                best = [c]
            continue
        if best and best[0][0] == "inf":
            continue
        keep = []
        dominated = False
        for b in best:
            s = engine.cmp(c[2], b[2])
            if s is None:
                keep.append(b)
            elif s <= 0:
                dominated = True
                keep.append(b)
            # s > 0: c beats b, drop b
        if not dominated:
            keep.append(c)
        best = keep
    return best


def value_of(engine, cand) -> sympy.Expr:
    """The privacy-loss value of candidate ``cand``: ``oo`` for ``'inf'``, else ``log`` of its
    ratio.
    """
    if cand[0] == "inf":
        return sympy.oo
    return positive_log(engine.to_sympy(cand[2]))


def positive_log(R: sympy.Expr) -> sympy.Expr:
    """``sympy.log(R)`` of a ratio ``R > 0`` of probabilities, the same expression, without
    log's evaluation where it cannot apply.

    ``log.eval`` (sympy 1.14) simplifies only numbers, ``exp(a)`` / ``E**a`` (to ``a``), and
    arguments with ``I`` or a negative sign; for any other argument its assumption queries
    (``is_negative``, ``is_zero``, ``is_algebraic`` of a sum of exponentials: a tenth of the
    report's analysis) end in ``log(R)`` unevaluated, built here directly.
    """
    if R.is_Number or R is sympy.E or R.is_Pow or isinstance(R, sympy.exp) or R.has(sympy.I):
        return sympy.log(R)
    return sympy.log(R, evaluate=False)


def _ratios(engine, i: int, j: int) -> tuple:
    # outputs whose probabilities are shared objects on both sides (equal gaps, or answer
    # sequences with equal counts) share one ratio: each distinct one is made once
    made: dict[tuple[int, int], sympy.Expr] = {}

    def ratio(a, b) -> sympy.Expr:
        key = (id(a), id(b))
        if key not in made:
            made[key] = engine.to_sympy(engine.ratio(a, b))
        return made[key]

    return ratios_with_limits(engine.probs[i], engine.probs[j], engine.is_zero, ratio)


def _loss_from_engine(engine, i: int, j: int, q: ScoreVector, q2: ScoreVector) -> PrivacyLoss:
    cands = pair_candidates(engine, i, j)
    best = max_candidates(engine, cands)
    ratios = _ratios(engine, i, j)
    if not best:
        return PrivacyLoss(sympy.Integer(0), None, ratios, q.values, q2.values, 0, (),
                           engine.kind)
    if len(best) == 1:
        c = best[0]
        value = value_of(engine, c)
        direction = c[3] if value != 0 else 0
        return PrivacyLoss(value, c[1], ratios, q.values, q2.values, direction, (c[1],),
                           engine.kind)
    value = sympy.Max(*[value_of(engine, c) for c in best])
    return PrivacyLoss(value, None, ratios, q.values, q2.values, 0,
                       tuple(sorted({c[1] for c in best})), engine.kind)


def privacy_loss(
    mechanism: object,
    scores: object,
    neighbour: object,
    *,
    allow_non_neighbour: bool = False,
) -> PrivacyLoss:
    """Exact privacy loss ``max_r |ln(Pr[M(q) = r] / Pr[M(q') = r])|`` of one pair.

    Parameters
    ----------
    mechanism : Mechanism
        Any object with ``distribution(scores)`` whose result has exact ``probabilities``
        (exactdp mechanisms, :func:`~exactdp.mechanisms.custom.mechanism_from_function`),
        or, when it has none, certified ``evalf_balls(dps)`` (RNM with Gaussian noise: the
        ball engine, see the module docstring). ``sensitivity`` (default 1) and
        ``monotone`` (default False) are read if present.
    scores, neighbour : sequence of numbers, shape (n,)
        The score vectors ``q`` and ``q'``.
    allow_non_neighbour : bool
        Compare vectors that are not neighbours (research use).

    Returns
    -------
    PrivacyLoss
        Exact; with the ball engine ``value`` is a sympy Float at the working precision
        ``dps`` (30, raised to 60 and 120 until ``interval`` is narrower than
        ``10^(-2 dps/3)`` relatively) and ``interval`` encloses the loss.

    Raises
    ------
    ValueError
        Different lengths; ``||q - q'||_inf`` above the sensitivity; a neighbour that moves
        scores in both directions for a mechanism declared ``monotone=True`` (such a pair
        cannot come from a monotone score function); probabilities that are not exact (and
        no balls), do not sum to 1 or are negative; :class:`BallUndecided` when a
        probability ball still contains 0 at the highest precision.

    References
    ----------
    Dwork & Roth (2014), Def. 2.4 and section 3.5 (privacy loss).

    Examples
    --------
    >>> import exactdp
    >>> em = exactdp.ExponentialMechanism(1)
    >>> loss = exactdp.privacy_loss(em, [0, 0], [1, -1])
    >>> print(loss.value)
    log(E*(exp(-1) + 1)/2)
    >>> float(loss.value)
    0.6201145069582775
    """
    q = score_vector(scores, "scores", "privacy_loss")
    q2 = score_vector(neighbour, "neighbour", "privacy_loss")
    mechanism = as_mechanism(mechanism, "privacy_loss")
    check_pair(mechanism, q, q2, "privacy_loss", allow_non_neighbour)
    if mechanism.output_kind == "release":
        return density_privacy_loss(mechanism, q, q2)
    check_loss_exponent(mechanism, (q, q2), "privacy_loss")
    engine = make_engine(mechanism, [q, q2], "privacy_loss")
    if isinstance(engine, BallEngine):
        return stamp(_ball_privacy_loss(engine, q, q2), engine)
    return _labelled(engine.outputs, _loss_from_engine(engine, 0, 1, q, q2))


def _labelled(outputs: tuple | None, loss: PrivacyLoss) -> PrivacyLoss:
    """``loss`` with ``label``, the output itself, for a mechanism releasing a sequence
    (``outputs``: the engine's, the union of both vectors' when they differ)."""
    if outputs is None or not isinstance(loss.output, int):
        return loss
    return replace(loss, label=outputs[loss.output], labelled=True)


def density_privacy_loss(mech: Mechanism, q: ScoreVector, q2: ScoreVector) -> PrivacyLoss:
    """The loss of one pair for a mechanism that releases real values (output kind
    ``"release"``): the mechanism's ``"density"`` view, a
    :class:`~exactdp.distribution.LossSupremum`, as a :class:`PrivacyLoss`."""
    sup = mech.evaluate("density", q, q2)
    return PrivacyLoss(sup.loss, sup.witness, (), q.values, q2.values, sup.direction, (),
                       "density", sup.interval, attained=sup.attained,
                       approaching=sup.approaching)


def check_loss_exponent(mechanism: object, vectors, func: str,
                        limit: int = MAX_EXACT_EXPONENT_DIGITS) -> None:
    """Refuse the loss's closed form when its coins ``exp(-rate * gap)`` have exponents
    beyond :data:`exactdp.cost.MAX_EXACT_EXPONENT_DIGITS` digits (sympy would evaluate
    them with as many bits); read from the float gaps and the rate, no sympy."""
    mechanism = as_mechanism(mechanism)
    if mechanism.epsilon_limit is not None:
        return
    eps = mechanism.epsilon
    if eps is None or eps.free_symbols:
        return
    top = max(float(v.gaps_float.max()) for v in vectors)
    if top == 0:
        return
    with mpmath.workdps(15):
        big = mpmath.mpf(top) if math.isfinite(top) else max(max(v.gaps_mp(15)) for v in vectors)
        d = big * mpmath.mpf(sympy.N(mechanism.rate, 15))
        digits = max(0, int(mpmath.mag(d) * 0.30103)) if d else 0
    check_exact_exponent(func, digits,
                         "compare the float64 views (mechanism.distribution(q).to_numpy()) "
                         "or evalf_balls of the pair, or use a smaller epsilon", limit)


def _ball_privacy_loss(engine: BallEngine, q: ScoreVector, q2: ScoreVector) -> PrivacyLoss:
    """Loss of one pair with the ball engine: retry until the enclosure is narrow."""
    found = None
    for dps in engine.levels:
        with arb_prec(dps):
            res = ball_pair_loss(engine, 0, 1, dps)
            if res is None:
                continue
            found = (dps, res)
            if res[0].narrow(dps):
                break
    if found is None:
        raise raise_undecided("privacy_loss", engine, "the loss is")
    dps, (total, per, logs) = found
    with arb_prec(dps):
        ratios = ball_ratios(engine, 0, 1, dps)
        if not per:
            return PrivacyLoss(sympy.Integer(0), None, ratios, q.values, q2.values, 0, (),
                               "ball", total.sympy(), dps)
        out, cands = ball_output(per, total)
        L = logs[out]
        if isinstance(L, sympy.Basic):
            direction = 1 if L is sympy.oo else -1
        else:
            direction = 1 if L > 0 else -1 if L < 0 else 0
        return PrivacyLoss(total.value(dps), out, ratios, q.values, q2.values, direction,
                           cands, "ball", total.sympy(), dps)
