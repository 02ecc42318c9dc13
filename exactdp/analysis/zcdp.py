"""A rho-zCDP check at finitely many orders alpha, exact or by certified balls.

rho-zCDP (Bun & Steinke, TCC 2016, Def. 1.1): ``D_alpha(M(q) || M(q')) <= rho * alpha`` for
every ``alpha > 1`` and neighbours; the divergences are :mod:`exactdp.analysis.renyi`'s.
Mechanisms without exact probabilities (RNM with Gaussian noise) are analysed with the
certified ball engine of :mod:`exactdp.analysis.engines.ball`: every yes/no answer is decided
by the interval (more precision is tried; never a guess).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import flint
import sympy

from .._validate import argument_error
from ..exact import compare, sign, sign_or_none, to_arb
from ..numbers import exact_number
from ..result import Result
from ..scores import ScoreVector
from .check import Witness, numeric_mechanism
from .common import (
    as_mechanism,
    distribution_of,
    exact_float,
    mechanism_epsilon,
    mechanism_name,
    score_vector,
    stamp,
)
from .engines.ball import ArbKey, BallEngine, BallUndecided, arb_float, arb_prec
from .engines.select import make_engine
from .neighbourhood import neighbour_list
from .outputs import output_union
from .renyi import exact_probabilities, renyi_divergence
from .witness import NO_OUTPUT

#: Orders checked by :func:`check_zcdp` by default (1 is the KL limit).
DEFAULT_ALPHAS = tuple(
    sympy.Rational(a) for a in ("1", "5/4", "3/2", "2", "3", "4", "6", "8", "16", "32", "64")
)


@dataclass(frozen=True)
class ZCDPCheck(Result):
    """Result of :func:`check_zcdp`.

    Attributes
    ----------
    holds : bool
        True iff ``D_alpha <= rho*alpha`` at every checked order and pair.
    rho : sympy.Expr
    witness : Witness or None
        The pair with the largest excess ``D_alpha - rho*alpha`` (``output`` unused).
    alpha : sympy.Expr or None
        The order of that excess.
    divergence : sympy.Expr or None
        ``D_alpha`` there (exact).
    excess : float
        ``D_alpha - rho*alpha`` there, rounded for display (positive iff the claim fails
        there; the decision itself is exact).
    alphas : tuple
    pairs_checked : int
    engine : str
        ``"exact"``, or ``"ball"`` for mechanisms without exact probabilities: then
        ``divergence`` is a sympy Float with ``dps`` digits (the working precision),
        ``interval`` its certified enclosure, and ``holds`` is True only if every certified
        upper bound of ``D_alpha - rho*alpha`` is <= 0, False only if some certified lower
        bound is > 0.
    interval : tuple of sympy.Float or None
        Ball engine only: ``(lo, hi)`` enclosing ``divergence``.
    dps : int or None
        Ball engine only: the working precision (decimal digits) that decided ``holds``.

    Notes
    -----
    The result protocol (:class:`exactdp.result.Result`): ``value`` is ``divergence``, the
    Renyi divergence at the largest excess.
    """

    headline = "divergence"
    repr_fields = ("rho", "alpha", "witness")

    holds: bool
    rho: sympy.Expr
    witness: Witness | None
    alpha: sympy.Expr | None
    divergence: sympy.Expr | None
    excess: float
    alphas: tuple
    pairs_checked: int
    engine: str = "exact"
    interval: tuple | None = None
    dps: int | None = None
    certified: bool = True
    caveat: str | None = None

    def __bool__(self) -> bool:
        return self.holds


def check_zcdp(
    mechanism: object,
    scores: object,
    rho: object,
    neighbour: object | None = None,
    *,
    alphas: Sequence[object] = DEFAULT_ALPHAS,
    search: str = "auto",
    allow_non_neighbour: bool = False,
) -> ZCDPCheck:
    """Check a rho-zCDP claim exactly at finitely many orders alpha.

    Parameters
    ----------
    mechanism : Mechanism
        A mechanism with a numeric epsilon and exact probabilities, or without exact
        probabilities but with certified ``evalf_balls`` (RNM-Gaussian; its epsilon may be
        None, then ``rho`` must be a number).
    scores : sequence, shape (n,)
    rho : number or expression in the mechanism's epsilon (e.g. ``epsilon**2/8``)
        The claim; an expression is evaluated at the mechanism's epsilon.
    neighbour : sequence, shape (n,), optional
        ``None`` searches the neighbours of :func:`~exactdp.analysis.neighbourhood.neighbours`.
    alphas : sequence of rational numbers >= 1
        The orders checked (1 means the KL limit, where the claim is ``KL <= rho``).

    Returns
    -------
    ZCDPCheck
        A failure is a proof that the claim is false; ``holds`` covers the checked orders.

    Raises
    ------
    ValueError
        Bad rho or alphas; a rho with symbols for a mechanism without epsilon;
        :class:`~exactdp.analysis.engines.ball.BallUndecided` when the ball engine cannot
        decide a comparison at the highest precision.

    References
    ----------
    M. Bun and T. Steinke, "Concentrated differential privacy", TCC 2016, Def. 1.1.

    Examples
    --------
    >>> import exactdp
    >>> r = exactdp.check_zcdp(exactdp.ExponentialMechanism(1), [0, -1], "1/8")
    >>> r.holds
    True
    """
    mechanism = as_mechanism(mechanism, "check_zcdp")
    if mechanism_epsilon(mechanism) is None:
        mech, eps = mechanism, None  # not calibrated by epsilon (Gaussian noise)
    else:
        mech, eps = numeric_mechanism(mechanism, None, "check_zcdp")
    r = exact_number(rho, "rho", allow_symbols=True, func="check_zcdp")
    if r.free_symbols and eps is None:
        raise ValueError(
            f"check_zcdp: rho = {r} contains symbols but {mechanism_name(mechanism)} has "
            "epsilon=None; give rho as a number"
        )
    if r.free_symbols:
        original = mechanism_epsilon(mechanism)
        syms = original.free_symbols if original is not None else set()
        r = r.subs({s: eps for s in (r.free_symbols & syms) or r.free_symbols})
    if sign_or_none(r) != 1:
        raise argument_error("check_zcdp", "rho", "> 0", rho)
    orders = tuple(exact_number(a, "alphas", i, func="check_zcdp") for i, a in enumerate(alphas))
    if not orders or any(not a.is_Rational or a < 1 for a in orders):
        raise argument_error("check_zcdp", "alphas", "rational numbers >= 1 (at least one)",
                             alphas)
    q = score_vector(scores, "scores", "check_zcdp")
    nbrs, _ = neighbour_list(mech, q, neighbour, search, allow_non_neighbour, "check_zcdp")
    engine = make_engine(mech, [q] + nbrs, "check_zcdp")  # validates the distributions
    if isinstance(engine, BallEngine):
        return stamp(_ball_zcdp(engine, q, nbrs, r, orders), engine)
    dist = [distribution_of(mech, v) for v in [q] + nbrs]
    # a sequence mechanism's vectors may reach different outputs: by output value
    union = output_union([d.outputs for d in dist]) if mech.output_kind == "sequence" else None

    def probabilities(i: int, name: str) -> tuple:
        probs = exact_probabilities(dist[i], name)
        return probs if union is None else tuple(union.align(i, probs, sympy.Integer(0)))

    P = probabilities(0, "P")
    best = None  # (excess, j, alpha, D): the first failure, else the largest excess
    for j in range(len(nbrs)):
        Q = probabilities(j + 1, "Q")
        for a in orders:
            D = renyi_divergence(P, Q, a).value
            ex = sympy.oo if D is sympy.oo else D - r * a
            failed = sign(ex) == 1
            if failed or best is None or compare(ex, best[0]) == 1:
                best = (ex, j, a, D, failed)
            if failed:
                break
        if best is not None and best[4]:
            break
    assert best is not None  # at least one neighbour and one order
    ex, j, a, D, failed = best
    val = exact_float(ex)
    w = Witness(q.values, nbrs[j].values, NO_OUTPUT)
    return ZCDPCheck(not failed, r, w, a, D, val, orders, len(nbrs))


def _ball_divergence(P: Sequence, Q: Sequence, a: sympy.Expr) -> flint.arb | None:
    """Ball enclosure of ``D_a(P || Q)`` (``a`` rational >= 1); None if undecided.

    Call inside ``_arb_prec``. Returns ``arb.pos_inf()`` for a certified support mismatch.
    """
    terms = []
    for x, y in zip(P, Q, strict=True):
        zx = x.is_exact() and x.is_zero()
        zy = y.is_exact() and y.is_zero()
        if zx:
            continue
        if not x > 0:
            return None
        if zy:
            return flint.arb.pos_inf()
        if not y > 0:
            return None
        if a == 1:
            terms.append(x * (x.log() - y.log()))
        else:
            e = flint.arb(flint.fmpq(int(a.p), int(a.q)))
            terms.append(x**e * y ** (1 - e))
    total = sum(terms, flint.arb(0))
    if a == 1:
        return total
    if not total > 0:
        return None
    return total.log() / flint.arb(flint.fmpq(int(a.p) - int(a.q), int(a.q)))


def _ball_zcdp(engine: BallEngine, q: ScoreVector, nbrs: list, rho: sympy.Expr,
               orders: tuple) -> ZCDPCheck:
    """check_zcdp with the ball engine (retries at rising precision; never guesses)."""
    for dps in engine.levels:
        with arb_prec(dps):
            balls = engine.balls(dps)
            rho_b = to_arb(rho, flint.ctx.prec)
            rows = []  # (j, alpha, D, excess)
            undecided = False
            for j in range(1, len(nbrs) + 1):
                for a in orders:
                    D = _ball_divergence(balls[0], balls[j], a)
                    if D is None:
                        undecided = True
                        break
                    rows.append((j, a, D, D - rho_b * flint.arb(flint.fmpq(int(a.p), int(a.q)))))
                if undecided:
                    break
            if undecided:
                continue
            failed = [row for row in rows if row[3] > 0]
            if not failed and not all(row[3] <= 0 for row in rows):
                continue
            if failed:
                j, a, D, ex = failed[0]
            else:
                j, a, D, ex = max(rows, key=lambda row: ArbKey(row[3].mid()))
            if D.is_finite():
                div = arb_float(D, dps)
                iv = (arb_float(D.lower()), arb_float(D.upper()))
                val = float(ex.mid())
            else:
                div, iv, val = sympy.oo, (sympy.oo, sympy.oo), math.inf
            w = Witness(q.values, nbrs[j - 1].values, NO_OUTPUT)
            return ZCDPCheck(not failed, rho, w, a, div, val, orders, len(nbrs), "ball", iv,
                             dps, True, None)
    raise BallUndecided(
        f"check_zcdp: undecided at dps={engine.levels[-1]}: some D_alpha - rho*alpha of "
        f"{engine.name} cannot be told from 0 (or a probability from 0)"
    )
