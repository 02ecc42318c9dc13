"""Bounded range: the range of the privacy-loss random variable on a pair of neighbours.

Bounded range (Durfee & Rogers, NeurIPS 2019, Def. 3): ``max_r ln(P_r/P'_r) - min_r
ln(P_r/P'_r)``. An eta-BR mechanism is ``eta^2/8``-zCDP (Cesar & Rogers, ALT 2021,
Lemma 3.2). Exact, or by the certified ball engine for mechanisms without exact
probabilities (never a value that is not proved).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import flint
import sympy

from ..exact import UndecidedSignError, compare, sign_or_none
from ..numbers import exact_number
from ..result import Result
from ..scores import ScoreVector
from .check import Witness
from .common import mechanism_name, score_vector, stamp
from .engines.ball import BallEngine, BallUndecided, Iv, arb_prec, iv_max
from .engines.generic import GenericEngine
from .engines.select import make_engine
from .engines.xform import XEngine
from .neighbourhood import neighbour_list


@dataclass(frozen=True)
class BoundedRange(Result):
    """Result of :func:`bounded_range`.

    Attributes
    ----------
    eta : sympy.Expr
        ``max_r ln(P_r/P'_r) - min_r ln(P_r/P'_r)`` (the largest over the searched pairs;
        ``oo`` when the supports differ). ``value`` (the result protocol) is ``eta`` when
        exact, None with the ball engine.
    witness : Witness
        The pair attaining it; ``output`` is the output of the largest log-ratio (its
        index; for a mechanism releasing a sequence, the output itself, as
        :func:`~exactdp.check_dp`'s witness: the vectors may reach different outputs).
    low_output : int or object or None
        The output of the smallest log-ratio (named as ``witness.output``).
    pairs_checked : int
    engine : str
        ``"exact"``, or ``"ball"`` for mechanisms without exact probabilities: then
        ``eta`` is a sympy Float with ``dps`` digits (the working precision), the
        midpoint of the certified ``interval``.
    interval : tuple of sympy.Float or None
        Ball engine only: ``(lo, hi)`` enclosing the bounded-range parameter.
    dps : int or None
        Ball engine only: the working precision (decimal digits).
    """

    headline = "eta"
    repr_fields = ("witness", "pairs_checked")

    eta: sympy.Expr
    witness: Witness | None
    low_output: object
    pairs_checked: int
    engine: str = "exact"
    interval: tuple | None = None
    dps: int | None = None
    certified: bool = True
    caveat: str | None = None

    @property
    def value(self) -> sympy.Expr | None:
        """The parameter ``eta`` exactly; None with the ball engine (``ball`` encloses it)."""
        return None if self.engine == "ball" else self.eta

    def holds_at(self, eta: object) -> bool:
        """True iff the bounded-range parameter is at most ``eta``.

        Exact; with the ball engine decided by ``interval``.

        Raises
        ------
        ValueError
            Ball engine only: ``eta`` lies inside ``interval`` (undecided at ``dps``).
        """
        e = exact_number(eta, "eta")
        if self.eta is sympy.oo:
            return False
        if self.engine == "ball" and self.interval is not None:
            lo, hi = self.interval
            if compare(sympy.Rational(hi), e) != 1:
                return True
            if compare(sympy.Rational(lo), e) == 1:
                return False
            raise BallUndecided(
                f"BoundedRange.holds_at: undecided at dps={self.dps}: eta = {e} lies in the "
                f"certified interval [{lo}, {hi}]"
            )
        return compare(self.eta, e) != 1


def _cmp(engine: XEngine | GenericEngine, a: Any, b: Any, what: str, mech: object) -> int:
    """``engine.cmp(a, b)`` decided, or UndecidedSignError (e.g. it depends on a symbol).

    The generic engine's ratios are sympy expressions: compared by :func:`exactdp.exact.sign`.
    """
    if engine.kind == "generic":
        c = sign_or_none(a - b)
    else:
        c = engine.cmp(a, b)
    if c is None:
        raise UndecidedSignError(
            f"bounded_range: cannot compare {what} of {mechanism_name(mech)} exactly "
            "(they depend on a symbolic epsilon); give a numeric epsilon, or use certify_dp for "
            "every epsilon"
        )
    return c


def bounded_range(
    mechanism: object,
    scores: object,
    neighbour: object | None = None,
    *,
    search: str = "auto",
    allow_non_neighbour: bool = False,
) -> BoundedRange:
    """Exact bounded-range parameter of a mechanism on a pair (or its worst neighbour).

    Parameters
    ----------
    mechanism : Mechanism
        A mechanism with exact probabilities (numeric or symbolic epsilon; symbolic only
        when the comparisons do not depend on it), or without them but with certified
        ``evalf_balls`` (RNM-Gaussian: the ball engine).
    scores : sequence, shape (n,)
    neighbour : sequence, shape (n,), optional
        ``None`` searches the neighbours of :func:`~exactdp.analysis.neighbourhood.neighbours`.

    Returns
    -------
    BoundedRange
        Exact; with the ball engine ``value`` is a sympy Float at the working precision
        ``dps`` and ``interval`` a certified enclosure.

    Raises
    ------
    ValueError
        As :func:`~exactdp.analysis.loss.privacy_loss`;
        :class:`~exactdp.analysis.engines.ball.BallUndecided` when a probability ball still
        contains 0 at the highest precision.
    UndecidedSignError
        When two log-ratios cannot be compared exactly (for example they depend on a
        symbolic epsilon): never a value that is not proved.

    References
    ----------
    D. Durfee and R. Rogers, "Practical differentially private top-k selection with
    pay-what-you-get composition", NeurIPS 2019, Def. 3 and the PF example: with monotone
    scores (0, 0) vs (0, 1), PF's range is ``eps + ln(2 - e^{-eps})``.

    Examples
    --------
    >>> import exactdp
    >>> em = exactdp.ExponentialMechanism(1)
    >>> r = exactdp.bounded_range(em, [0, 0], [1, -1])
    >>> print(r.value)
    1
    """
    q = score_vector(scores, "scores", "bounded_range")
    nbrs, _ = neighbour_list(mechanism, q, neighbour, search, allow_non_neighbour,
                             "bounded_range")
    engine = make_engine(mechanism, [q] + nbrs, "bounded_range")
    if isinstance(engine, BallEngine):
        return stamp(_ball_bounded_range(engine, q, nbrs), engine)
    best: tuple[str, int, int, Any, int | None] | None = None
    for j in range(1, len(nbrs) + 1):
        hi: tuple[int, Any] | None = None
        lo: tuple[int, Any] | None = None
        r_inf = None  # an output of probability 0 on one side only
        for r, (a, b) in enumerate(zip(engine.probs[0], engine.probs[j], strict=True)):
            za, zb = engine.is_zero(a), engine.is_zero(b)
            if za and zb:
                continue
            if za or zb:
                r_inf = r
                break
            R = engine.ratio(a, b)
            if hi is None or _cmp(engine, R, hi[1], "ratios", mechanism) == 1:
                hi = (r, R)
            if lo is None or _cmp(engine, R, lo[1], "ratios", mechanism) == -1:
                lo = (r, R)
        if r_inf is not None:
            best = ("inf", j, r_inf, None, None)
            break
        if hi is None or lo is None:
            continue
        span = engine.div(hi[1], lo[1])
        if best is None or _cmp(engine, span, best[3], "ranges", mechanism) == 1:
            best = ("ratio", j, hi[0], span, lo[0])
    if best is None:
        return BoundedRange(sympy.Integer(0), None, None, len(nbrs))
    kind, j, r_hi, span, r_lo = best
    value = sympy.oo if kind == "inf" else sympy.log(engine.to_sympy(span))
    w = Witness(q.values, nbrs[j - 1].values, _named(engine.outputs, r_hi))
    return BoundedRange(value, w, _named(engine.outputs, r_lo), len(nbrs))


def _named(outputs: tuple | None, r: int | None) -> object:
    """Output ``r`` as a result names it: the output itself for a mechanism releasing a
    sequence (``outputs``, the engine's: the union of the vectors' when they differ), else
    its index."""
    return r if outputs is None or r is None else outputs[r]


def _ball_range_pair(engine: BallEngine, j: int, dps: int):
    """``(interval, r_hi, r_lo)`` of the range on pair (0, j), or None if undecided."""
    logs = engine.log_ratios(0, j, dps)
    if logs is None:
        return None
    live = [(r, L) for r, L in enumerate(logs) if L is not None]
    if any(isinstance(L, sympy.Basic) for _, L in live):
        r = next(r for r, L in live if isinstance(L, sympy.Basic))
        return Iv(None, None, True), r, None
    zero = flint.arb(0)
    if len(live) < 2:
        return Iv(zero, zero), (live[0][0] if live else None), None
    best: tuple[flint.arb, int, int] | None = None
    hi = zero
    for r, Lr in live:
        for s, Ls in live:
            if r == s:
                continue
            d = Lr - Ls
            lo_d = d.lower()
            if best is None or lo_d > best[0]:
                best = (lo_d, r, s)
            if d.upper() > hi:
                hi = d.upper()
    assert best is not None  # two live outputs or more
    lo = best[0] if best[0] > 0 else zero
    return Iv(lo, hi), best[1], best[2]


def _ball_bounded_range(engine: BallEngine, q: ScoreVector, nbrs: list) -> BoundedRange:
    """bounded_range with the ball engine: retry until the enclosure is narrow."""
    found = None
    for dps in engine.levels:
        with arb_prec(dps):
            pairs = [_ball_range_pair(engine, j, dps) for j in range(1, len(nbrs) + 1)]
            if any(p is None for p in pairs):
                continue
            total = iv_max([p[0] for p in pairs])
            k = 0
            for i, p in enumerate(pairs):
                if p[0].better_lo(pairs[k][0]):
                    k = i
            found = (dps, total, k, pairs[k])
            if total.narrow(dps):
                break
    if found is None:
        raise BallUndecided(
            f"bounded_range: undecided at dps={engine.levels[-1]}: a probability of "
            f"{engine.name} cannot be told from 0"
        )
    dps, total, k, (_, r_hi, r_lo) = found
    with arb_prec(dps):
        value = total.value(dps)
        w = Witness(q.values, nbrs[k].values, _named(engine.outputs, r_hi))
        return BoundedRange(value, w, _named(engine.outputs, r_lo), len(nbrs), "ball",
                            total.sympy(), dps)
