"""``check_dp``: is a mechanism epsilon-DP on given scores (or all their neighbours)?

A selection mechanism M is epsilon-DP iff ``Pr[M(q) = r] <= e^eps Pr[M(q') = r]`` for every
pair of neighbouring score vectors and every output r (docs/formulas.md section 1);
a violation comes with a :class:`Witness`.
"""

from __future__ import annotations

from dataclasses import dataclass

import flint
import sympy

from .._validate import argument_error
from ..cost import (
    CHECK_DP_EXPONENT_DIGITS,
    analysis_seconds,
    as_caller,
    check_analysis,
    check_seconds,
)
from ..exact.arb import arb_to_interval, to_arb
from ..exact.signs import UndecidedSignError, compare
from ..numbers import exact_number
from ..progress import SHOW_SECONDS, Steps, progress_bar, quiet
from ..result import Result
from ..result_text import bracket_text
from ..scores import ScoreVector
from .common import (
    as_mechanism,
    distribution_of,
    exact_sign,
    mechanism_epsilon,
    mechanism_name,
    score_vector,
    stamp,
)
from .engines.ball import BallEngine, BallUndecided, arb_prec, ball_output, ball_pair_loss, iv_max
from .engines.select import ENGINE_PASSES, make_engine, pf_tree_gaps, pf_trees_seconds
from .loss import (
    PrivacyLoss,
    check_loss_exponent,
    density_privacy_loss,
    max_candidates,
    pair_candidates,
    value_of,
)
from .neighbourhood import neighbour_list, top_gap
from .witness import NO_OUTPUT, Witness


# =============================================================================== check_dp
@dataclass(frozen=True)
class DPCheck(Result):
    """Result of :func:`check_dp`.

    Attributes
    ----------
    holds : bool
        True iff every searched pair satisfies the epsilon-DP ratio bound.
    loss : sympy.Expr
        The largest exact privacy loss over the searched neighbours.
    epsilon : sympy.Expr
        The privacy level checked.
    witness : Witness
        The pair and output attaining ``loss`` (a violation when ``holds`` is False).
    neighbours_checked : int
    search : str
        Which neighbours were searched and why.
    engine : str
        ``"density"`` for a mechanism releasing real values (the largest exact supremum of
        the log density ratio; ``witness.output`` the witness in words), else
        ``"x-form"``, ``"generic"`` (exact) or ``"ball"`` (certified numeric: ``loss`` is
        a sympy Float with ``dps`` digits, the midpoint of ``interval``; ``holds`` is
        True only if the certified upper bound of the loss is <= epsilon and False only if
        the certified lower bound is > epsilon).
    interval : tuple of sympy.Float or None
        Ball engine only: certified ``(lo, hi)`` around the largest loss.
    dps : int or None
        Ball engine only: the working precision (decimal digits) that decided ``holds``.
    certified : bool
        True: exact (x-form and generic engines) or a rigorous enclosure whose every ball
        radius is proved (ball engine); docs/analyzer.md, "What certified means here".
    caveat : str or None
        Why not certified (for example RNM-Gaussian beyond 24 items).

    Notes
    -----
    The result protocol (:class:`exactdp.result.Result`): ``value`` is ``loss``.
    """

    headline = "loss"
    repr_fields = ("epsilon", "witness")

    holds: bool
    loss: sympy.Expr
    epsilon: sympy.Expr
    witness: Witness | None
    neighbours_checked: int
    search: str
    engine: str = "x-form"
    interval: tuple | None = None
    dps: int | None = None
    certified: bool = True
    caveat: str | None = None

    def __bool__(self) -> bool:
        return self.holds


def numeric_mechanism(mech: object, epsilon: object, func: str):
    """``(mech, claim)``: the mechanism made numeric (``with_epsilon`` if symbolic) and the
    exact epsilon to check.

    Raises
    ------
    ValueError
        If the claimed epsilon is not > 0 or is symbolic, or no numeric epsilon can be found.
    """
    mech = as_mechanism(mech, func)
    eps = mechanism_epsilon(mech)
    claim = None if epsilon is None else exact_number(epsilon, "epsilon", allow_symbols=True,
                                                      func=func)
    if claim is not None and not (claim.free_symbols or exact_sign(claim) == 1):
        raise argument_error(func, "epsilon", "> 0", epsilon)
    if eps is not None and eps.free_symbols:
        if claim is None or claim.free_symbols:
            raise ValueError(
                f"{func}: the mechanism's epsilon is symbolic ({eps}); give a numeric "
                "epsilon=..., or use certify_dp for a proof valid for every epsilon > 0"
            )
        mech = mech.with_epsilon(claim)
        eps = claim
    if claim is None:
        if eps is None:
            raise ValueError(
                f"{func}: {mechanism_name(mech)} has epsilon=None (it is not calibrated by "
                "epsilon, e.g. Gaussian noise set by sigma); pass the claimed privacy "
                "level epsilon=..."
            )
        claim = eps
    if claim.free_symbols:
        raise argument_error(func, "epsilon", "a number here, not symbolic", claim)
    return mech, claim


def check_dp(
    mechanism: object,
    scores: object,
    neighbour: object | None = None,
    epsilon: object | None = None,
    *,
    search: str = "auto",
    allow_non_neighbour: bool = False,
    progress: bool | None = None,
) -> DPCheck:
    """Check the epsilon-DP ratio bound exactly on ``scores`` and its neighbours.

    Parameters
    ----------
    mechanism : Mechanism
        A mechanism (see :func:`privacy_loss`).
    scores : sequence of numbers, shape (n,)
    neighbour : sequence of numbers, shape (n,), optional
        One neighbour to check; ``None`` searches the neighbours of :func:`neighbours`
        (exhaustive vertices for ``n <= 6``, the reduced set of regular mechanisms beyond;
        for ``monotonic=True`` mechanisms only all-up / all-down moves, the only neighbours a
        monotone score function can produce).
    epsilon : number, optional
        The privacy level to check; default the mechanism's own epsilon. A mechanism with a
        symbolic epsilon is instantiated at this value. Required when the mechanism's
        epsilon is None (Gaussian noise: the claimed privacy level).
    search : {"auto", "exhaustive", "reduced", "heuristic"}
        As :func:`neighbours`; for :class:`~exactdp.SparseVector` ``"auto"`` is the
        exhaustive vertex search for ``m <= 6`` queries and the heuristic one beyond.
    allow_non_neighbour : bool
    progress : bool, optional
        A bar on standard error over each vector's probabilities, then the neighbours
        (:func:`exactdp.progress.progress_bar`): None (default) when the loop is estimated
        or found to take over 2 s and standard error is a terminal; False never; True at
        once.

    Returns
    -------
    DPCheck
        ``holds`` iff the largest loss over the searched pairs is ``<= epsilon`` (decided
        exactly: a tie ``loss == epsilon`` holds; at ``epsilon = oo`` every mechanism holds,
        an infinite loss included, since the ratio bound ``e^oo`` is vacuous). With the ball
        engine (no exact probabilities, e.g. RNM-Gaussian) ``holds`` is True only if the
        certified upper bound of the largest loss is ``<= epsilon``, False only if its lower
        bound is ``> epsilon``; ``loss`` is a sympy Float at the working precision ``dps``.

    Raises
    ------
    ValueError
        As :func:`privacy_loss`; a symbolic epsilon without a numeric ``epsilon=``; no
        ``epsilon=`` for a mechanism with ``epsilon=None`` (RNM-Gaussian, calibrated by
        sigma); :class:`BallUndecided` when the ball engine cannot separate the loss from
        epsilon at dps = 120.
    TooCostly
        Before any work, an analysis estimated past :data:`exactdp.cost.SECONDS_LIMIT`
        (120 s; the same limit for a mechanism releasing real values, whose density suprema
        are priced per neighbour), naming the estimate and a cheaper route.

    Notes
    -----
    A vertex search is a search: a violation found is a proof that the mechanism is not
    epsilon-DP, but ``holds`` covers the searched pairs only (:func:`certify_dp` proves
    the bound for every epsilon on given pairs).

    References
    ----------
    Dwork & Roth (2014), Def. 2.4; McKenna & Sheldon (2020), section 2.

    Examples
    --------
    >>> import exactdp
    >>> r = exactdp.check_dp(exactdp.PermuteAndFlip(1), [0, -1, -2])
    >>> r.holds
    True
    >>> print(r.loss)
    1
    """
    mech, claim = numeric_mechanism(mechanism, epsilon, "check_dp")
    q = score_vector(scores, "scores", "check_dp")
    release = mech.output_kind == "release"  # a supremum of densities per neighbour
    if release and neighbour is None:  # before building them
        _check_density_seconds(mech, q, 2 * q.n, "at least ")
    if not release and neighbour is None:  # q and a neighbour at least, before the search
        check_analysis("check_dp", 2, q.n, top_gap(q), at_least=True)  # (3-4 s at n = 2000)
    nbrs, how = neighbour_list(mech, q, neighbour, search, allow_non_neighbour, "check_dp")
    if release:
        return _density_check_dp(mech, q, nbrs, claim, how, progress)
    # the loss's closed form at epsilon = 10**5000 would be built by sympy for minutes
    check_loss_exponent(mech, [q, *nbrs], "check_dp", CHECK_DP_EXPONENT_DIGITS)
    # the bar opens before the engine computes every vector's probabilities (most of the
    # time): at once when the cost model estimates more than 2 s, else after 2 s; it moves
    # vector by vector in each of the engine's passes (trace, capabilities, forms, checks),
    # then neighbour by neighbour
    est = max(_generic_seconds(mech, [q, *nbrs]),
              mech.analysis_seconds([q, *nbrs]))  # its own estimate (RNM-Laplace, top-k)
    building = ENGINE_PASSES * (len(nbrs) + 1)
    bar = progress_bar(building + len(nbrs), "check_dp", progress=progress, unit="step",
                       seconds=est if est > SHOW_SECONDS else None, deferred=True)
    try:
        built = Steps(bar, building)
        engine = make_engine(mech, [q] + nbrs, "check_dp", step=built)
        built.finish()
        if isinstance(engine, BallEngine):
            return stamp(_ball_check_dp(mech, engine, q, nbrs, claim, how, bar), engine)
    except BaseException:
        bar.close()
        raise
    try:
        best, best_j = _largest(mech, engine, q, nbrs, bar)
    finally:
        bar.close()
    if best is None:
        value = sympy.Integer(0)
        holds = True
        witness = None
    else:
        value = value_of(engine, best)
        # every mechanism is oo-DP: the ratio bound e^oo is vacuous, an infinite loss too
        holds = claim is sympy.oo or (
            best[0] != "inf" and _at_most_claim(engine.cmp_exp(best[2], claim), claim))
        witness = _witness(engine.outputs, q, nbrs[best_j - 1], best[1])
    return DPCheck(bool(holds), value, claim, witness, len(nbrs), how, engine.kind)


@as_caller("check_dp")  # a sign past the cost model (SignTooCostly): check_dp's refusal
def _largest(mech, engine, q: ScoreVector, nbrs: list[ScoreVector], bar) -> tuple:
    """The largest loss's candidate over the pairs (q, neighbour) and the neighbour's
    index (from 1; ``(None, 0)`` when no pair has one), a bar step per neighbour."""
    best = None
    best_j = 0  # the neighbour of best (set with it)
    for j in range(1, len(nbrs) + 1):
        bar.update(1)
        outputs = mech.loss_outputs(q, nbrs[j - 1])  # EM: two, chosen by integers
        for c in max_candidates(engine, pair_candidates(engine, 0, j, outputs)):
            if best is None:
                best, best_j = c, j
                continue
            if best[0] == "inf":
                break
            if c[0] == "inf" or engine.cmp(c[2], best[2]) == 1:
                best, best_j = c, j
    return best, best_j


def _generic_seconds(mech, vectors: list[ScoreVector]) -> float:
    """The analyzer's estimate of ``check_dp`` on ``vectors``: permute-and-flip's product
    trees when it builds them (:func:`~exactdp.analysis.engines.select.pf_trees_seconds`,
    the worst case of the neighbour route; tied or one-gap scores take well under a second,
    where :func:`exactdp.cost.analysis_seconds` said 13 s for 60 scores), else
    :func:`exactdp.cost.analysis_seconds`."""
    trees = pf_tree_gaps(mech, vectors)
    if trees:
        return pf_trees_seconds(trees)
    q = vectors[0]
    return analysis_seconds(len(vectors), q.n, top_gap(q))


def _loss_output(loss: PrivacyLoss) -> object:
    """A loss's output for its witness: :data:`~exactdp.analysis.witness.NO_OUTPUT` when
    the loss is the largest of several outputs' (``loss.output`` None)."""
    return NO_OUTPUT if loss.output is None else loss.output


def _witness(outputs: tuple | None, q: ScoreVector, neighbour: ScoreVector,
             index: int | None) -> Witness:
    """The witness of the pair at the output of index ``index``: a mechanism releasing a
    sequence (the sparse vector's answers, a program's tuple; ``outputs``, the engine's,
    the union of the vectors' when they differ) names the output itself (``(True, None)``),
    a selection its index (the output itself too)."""
    if index is not None and outputs is not None:
        return Witness(q.values, neighbour.values, outputs[index])
    return Witness(q.values, neighbour.values, NO_OUTPUT if index is None else index)


def _check_density_seconds(mech, q: ScoreVector, count: int, qualifier: str = "") -> float:
    """Refuse ``count`` exact density suprema against ``q`` estimated past the cost model's
    one limit (:data:`exactdp.cost.SECONDS_LIMIT`, as every other exact analysis); else
    return their estimated seconds: ``count`` times the release distribution's own estimate
    of one pair (``loss_seconds``, :class:`~exactdp.mechanisms.release_views.
    ReleasedValues`)."""
    with as_caller("check_dp"):  # a distribution refused at construction: check_dp's refusal
        seconds = count * distribution_of(mech, q).loss_seconds("check_dp")
    check_seconds("check_dp", f"the exact density suprema of {qualifier}{count} neighbours",
                  seconds, "pass the one neighbour to check (neighbour=...)")
    return seconds


def _ends(loss) -> tuple[sympy.Expr, sympy.Expr]:
    """``(lo, hi)`` of a density loss: its exact value twice, or a certified bracket's ends
    (sympy Floats taken at their exact binary values; an exact end as it is)."""
    if loss.interval is None:
        return loss.loss, loss.loss
    lo, hi = (sympy.Rational(v) if isinstance(v, sympy.Float) else v for v in loss.interval)
    return lo, hi


def _density_check_dp(mech, q: ScoreVector, nbrs: list[ScoreVector], claim: sympy.Expr,
                      how: str, progress: bool | None = None) -> DPCheck:
    """check_dp for a mechanism releasing real values: the largest exact density supremum
    over the neighbours, compared with epsilon exactly; certified brackets by their ends (the
    largest lower end picks the witness, the largest upper end bounds every neighbour)."""
    seconds = _check_density_seconds(mech, q, len(nbrs))
    best, high = None, None
    # huge or tiny answers (1e300: seconds a pair, wider balls) have no estimate here: the
    # bar shows once the loop has run 2 s
    odd = any(v != 0 and not 2**-64 < abs(v) < 2**64 for v in q.values)
    bar = progress_bar(len(nbrs), "check_dp", progress=progress, unit="neighbour",
                       seconds=None if odd else seconds)
    for nb in nbrs:
        bar.update(1)
        with quiet():  # check_dp's own bar or line covers them (a line a pair: 32 lines)
            loss = density_privacy_loss(mech, q, nb)
        lo, hi = _ends(loss)
        if best is None or compare(lo, best[2]) > 0:
            best = (loss, nb, lo)
        if high is None or compare(hi, high[1]) > 0:
            high = (loss, hi)
        if loss.loss is sympy.oo:
            break
    bar.close()
    assert best is not None and high is not None
    loss, nb, lo = best
    interval = loss.interval if high[0] is loss else (
        loss.interval[0] if loss.interval else arb_to_interval(to_arb(lo, 128))[0],
        high[0].interval[1] if high[0].interval else arb_to_interval(to_arb(high[1], 128))[1])
    if claim is sympy.oo:
        holds = True
    elif loss.loss is sympy.oo:
        holds = False
    elif compare(high[1], claim) <= 0:
        holds = True
    elif compare(lo, claim) > 0:
        holds = False
    else:  # undecided: only a certified bracket's ends can straddle epsilon
        assert interval is not None
        raise UndecidedSignError(f"check_dp: the certified bracket {bracket_text(*interval)} "
                                 f"of the largest privacy loss contains epsilon = {claim}")
    witness = Witness(q.values, nb.values, _loss_output(loss))
    # a rival's bracket reaching above the best lower end: the largest loss is known only
    # within the joint bracket, so the value is its midpoint (a ball, never shown as exact)
    value = loss.loss if high[0] is loss or interval is None else sum(interval) / 2
    return DPCheck(bool(holds), value, claim, witness, len(nbrs), how, "density", interval)


def _at_most_claim(sign: int | None, claim: sympy.Expr) -> bool:
    """``loss <= claim`` from the sign of ``e^loss - e^claim``; raises when undecided."""
    if sign is None:
        raise UndecidedSignError(
            f"check_dp: cannot compare the privacy loss with epsilon = {claim} exactly")
    return sign <= 0


def _ball_check_dp(
    mech, engine: BallEngine, q: ScoreVector, nbrs: list[ScoreVector], claim: sympy.Expr,
    how: str, bar,
) -> DPCheck:
    """check_dp with the ball engine: the largest loss enclosed, then compared with eps
    (``bar`` counts the neighbours of the first precision, closed on return)."""
    with bar:
        return _ball_levels(mech, engine, q, nbrs, claim, how, bar)


def _ball_levels(mech, engine: BallEngine, q: ScoreVector, nbrs: list[ScoreVector],
                 claim: sympy.Expr, how: str, bar) -> DPCheck:
    for level, dps in enumerate(engine.levels):
        with arb_prec(dps):
            pairs = []
            for j in range(1, len(nbrs) + 1):
                pairs.append(ball_pair_loss(engine, 0, j, dps))
                if level == 0:
                    bar.update(1)
            if any(p is None for p in pairs):
                continue
            total = iv_max([p[0] for p in pairs])
            e = to_arb(claim, flint.ctx.prec)
            if total.infinite or total.ends[0] > e:
                holds = False
            elif total.ends[1] <= e:
                holds = True
            else:
                continue
            best_j = 0
            for k, p in enumerate(pairs):
                if p[0].better_lo(pairs[best_j][0]):
                    best_j = k
            _, per, _ = pairs[best_j]
            out = ball_output(per, pairs[best_j][0])[0] if per else None
            witness = _witness(engine.outputs, q, nbrs[best_j], out)
            return DPCheck(holds, total.value(dps), claim, witness, len(nbrs), how, "ball",
                           total.sympy(), dps)
    raise BallUndecided(
        f"check_dp: undecided at dps={engine.levels[-1]}: the certified enclosure of the "
        f"largest privacy loss of {engine.name} still contains epsilon = {claim} (or a "
        "probability cannot be told from 0)"
    )
