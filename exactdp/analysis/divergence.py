"""Beyond pure DP: exact Renyi and KL divergences, a zCDP check, and bounded range.

- Renyi divergence of order alpha (Renyi 1961; Mironov, CSF 2017, Def. 3):
  ``D_alpha(P || Q) = ln(sum_r P_r^alpha Q_r^(1 - alpha)) / (alpha - 1)``; ``alpha -> 1`` is
  the KL divergence ``sum_r P_r ln(P_r/Q_r)``, ``alpha = oo`` the max divergence.
- rho-zCDP (Bun & Steinke, TCC 2016, Def. 1.1): ``D_alpha(M(q) || M(q')) <= rho * alpha``
  for every ``alpha > 1`` and neighbours.
- Bounded range (Durfee & Rogers, NeurIPS 2019, Def. 3): the range of the privacy-loss
  random variable, ``max_r ln(P_r/P'_r) - min_r ln(P_r/P'_r)``. An eta-BR mechanism is
  ``eta^2/8``-zCDP (Cesar & Rogers, ALT 2021, Lemma 3.2).

Mechanisms without exact probabilities (RNM with Gaussian noise) are analysed with the
certified ball engine of :mod:`exactdp.analysis.engines.ball`: the results are then sympy Floats
at the working precision with a certified ``interval``, and every yes/no answer is decided
by the interval (more precision is tried; never a guess).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import flint
import sympy

from ..cost import RENYI_BITS_LIMIT, fmt_size, refuse, renyi_bits
from ..deprecation import deprecated_alias
from ..exact import UndecidedSignError, compare, is_zero, sign, sign_or_none, to_arb
from ..numbers import exact_number, safe_sympify
from ..scores import ScoreVector
from .check import Witness, numeric_mechanism
from .common import (
    distribution_of,
    mechanism_epsilon,
    mechanism_name,
    plain,
    score_vector,
    stamp,
)
from .engines.ball import ArbKey, BallEngine, BallUndecided, Iv, arb_float, arb_prec, iv_max
from .engines.select import make_engine
from .neighbourhood import check_pair, neighbours

__all__ = [
    "renyi_divergence",
    "kl_divergence",
    "kl",
    "max_divergence",
    "check_zcdp",
    "zcdp_check",
    "ZCDPCheck",
    "bounded_range",
    "BoundedRange",
    "Divergence",
    "DEFAULT_ALPHAS",
]

#: Orders checked by :func:`check_zcdp` by default (1 is the KL limit).
DEFAULT_ALPHAS = tuple(
    sympy.Rational(a) for a in ("1", "5/4", "3/2", "2", "3", "4", "6", "8", "16", "32", "64")
)


@dataclass(frozen=True)
class Divergence:
    """An exact divergence between two output distributions (nats).

    Attributes
    ----------
    value : sympy.Expr
        The exact value (``oo`` for a support mismatch); may contain the mechanism's
        symbolic epsilon.
    alpha : sympy.Expr
        The order: 1 for KL, ``oo`` for the max divergence.
    certified : bool
        True: the value is exact, and every zero test and comparison that chose it was
        decided by :func:`exactdp.exact.sign`.
    caveat : str or None
        Why not certified (None when certified).
    """

    value: sympy.Expr
    alpha: sympy.Expr
    certified: bool = True
    caveat: str | None = None

    def to_float(self) -> float:
        """The value in float64 (``inf`` for ``oo``)."""
        return math.inf if self.value is sympy.oo else float(sympy.N(self.value, 30))

    def __float__(self) -> float:
        return self.to_float()

    def _repr_latex_(self) -> str:
        return f"$D_{{{sympy.latex(self.alpha)}}} = {sympy.latex(self.value)}$"


def _probs(P: object, name: str) -> tuple[sympy.Expr, ...]:
    if hasattr(P, "probabilities"):
        P = P.probabilities
    try:
        items = list(P)  # type: ignore[call-overload]
    except TypeError as exc:
        raise ValueError(f"{name}: expected probabilities or a distribution, got {P!r}") from exc
    if not items:
        raise ValueError(f"{name}: empty probability vector")
    out = []
    for i, p in enumerate(items):
        if isinstance(p, float):
            raise ValueError(f"{name}[{i}]: float {p!r}; exact probabilities are required")
        v = exact_number(p, name, i, allow_symbols=True)
        if sign_or_none(v) == -1:
            raise ValueError(f"{name}[{i}] = {v} is negative")
        out.append(v)
    return tuple(out)


def _pair(P, Q, func: str):
    p, q = _probs(P, "P"), _probs(Q, "Q")
    if len(p) != len(q):
        raise ValueError(f"{func}: P has {len(p)} entries and Q has {len(q)}")
    return p, q


def kl_divergence(P: object, Q: object) -> Divergence:
    """Exact Kullback-Leibler divergence ``sum_r P_r ln(P_r / Q_r)`` in nats.

    Parameters
    ----------
    P, Q : sequences of exact probabilities, shape (n,), or distributions
        (objects with ``.probabilities``).

    Returns
    -------
    Divergence
        ``value`` is ``oo`` if some ``Q_r = 0 < P_r``; ``alpha`` is 1.

    Raises
    ------
    UndecidedSignError
        If it cannot be decided whether some probability is 0.

    References
    ----------
    T. M. Cover and J. A. Thomas, Elements of Information Theory (2006), eq. (2.26).
    """
    p, q = _pair(P, Q, "kl_divergence")
    one = sympy.Integer(1)
    terms = []
    for a, b in zip(p, q, strict=True):
        if is_zero(a):
            continue
        if is_zero(b):
            return Divergence(sympy.oo, one)
        terms.append(a * sympy.log(a / b))
    return Divergence(sympy.Add(*terms), one)


kl = kl_divergence


def max_divergence(P: object, Q: object) -> Divergence:
    """``D_oo(P || Q) = max_{r: P_r > 0} ln(P_r / Q_r)`` (exact comparisons).

    Returns
    -------
    Divergence
        ``alpha`` is ``oo``.

    Raises
    ------
    UndecidedSignError
        If two ratios (or a probability and 0) cannot be compared exactly, for example
        when they depend on a symbolic epsilon.
    """
    p, q = _pair(P, Q, "max_divergence")
    best = None
    for a, b in zip(p, q, strict=True):
        if is_zero(a):
            continue
        if is_zero(b):
            return Divergence(sympy.oo, sympy.oo)
        r = a / b
        if best is None or compare(r, best) == 1:
            best = r
    return Divergence(sympy.log(best) if best is not None else sympy.Integer(0), sympy.oo)


def _check_renyi_cost(a: sympy.Rational, probs: tuple) -> None:
    """Refuse an order whose exact powers would be astronomically large (cost model:
    :func:`exactdp.cost.renyi_bits`)."""
    height = abs(int(a.p)) // int(a.q) + 1  # sympy raises contents to the integer part
    if height <= 1000:
        return
    bits = 0
    for v in probs:
        c = v.as_content_primitive()[0] if v.free_symbols or not v.is_Rational else v
        bits += int(c.p).bit_length() + int(c.q).bit_length() if c.is_Rational else 64
    est = renyi_bits(height, bits)
    if est > RENYI_BITS_LIMIT:
        raise refuse(
            "renyi_divergence",
            f"alpha = {a if height < 10**12 else '~' + fmt_size(height).lstrip('~')}",
            f"exact powers of about {fmt_size(est)} bits", f"{RENYI_BITS_LIMIT:.0e} bits",
            "use alpha=sympy.oo (the max divergence: the limit as alpha -> oo and an upper "
            "bound for every alpha) or a smaller alpha",
        )


def renyi_divergence(P: object, Q: object, alpha: object) -> Divergence:
    """Exact Renyi divergence ``D_alpha(P || Q)`` in nats.

    Parameters
    ----------
    P, Q : sequences of exact probabilities, shape (n,), or distributions
    alpha : rational number > 0, or ``sympy.oo``
        The order. ``alpha = 1`` gives the KL divergence (the limit), ``oo`` the max
        divergence.

    Returns
    -------
    Divergence
        ``value = ln(sum_r P_r^alpha Q_r^(1-alpha)) / (alpha - 1)``; ``oo`` when
        ``alpha > 1`` and some ``Q_r = 0 < P_r``.

    Raises
    ------
    ValueError
        For ``alpha <= 0``, irrational or float alpha, or invalid probabilities; for an
        alpha whose exact powers would exceed :data:`exactdp.cost.RENYI_BITS_LIMIT` bits
        (the message gives the estimate and suggests ``alpha=sympy.oo``).
    UndecidedSignError
        If it cannot be decided whether some probability is 0.

    References
    ----------
    A. Renyi, "On measures of entropy and information" (1961); I. Mironov, "Renyi
    differential privacy", CSF 2017, Def. 3.
    """
    if alpha is sympy.oo:
        return max_divergence(P, Q)
    if isinstance(alpha, float):
        raise ValueError(f"renyi_divergence: alpha must be exact (e.g. '3/2'), got {alpha!r}")
    a = exact_number(alpha, "alpha")
    if not a.is_Rational or a <= 0:
        raise ValueError(f"renyi_divergence: alpha must be a rational number > 0, got {alpha!r}")
    if a == 1:
        return kl_divergence(P, Q)
    p, q = _pair(P, Q, "renyi_divergence")
    _check_renyi_cost(a, p + q)
    terms = []
    for x, y in zip(p, q, strict=True):
        if is_zero(x):
            continue
        if is_zero(y):
            if a > 1:
                return Divergence(sympy.oo, a)
            continue
        terms.append(x**a * y ** (1 - a))
    return Divergence(sympy.log(sympy.Add(*terms)) / (a - 1), a)


# =============================================================================== zCDP
@dataclass(frozen=True)
class ZCDPCheck:
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
    """

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
    mechanism : object
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
    """
    if mechanism_epsilon(mechanism) is None and hasattr(mechanism, "epsilon"):
        mech, eps = mechanism, None  # not calibrated by epsilon (Gaussian noise)
    else:
        mech, eps = numeric_mechanism(mechanism, None, "check_zcdp")
    r = exact_number(rho, "rho", allow_symbols=True)
    if r.free_symbols and eps is None:
        raise ValueError(
            f"check_zcdp: rho = {r} contains symbols but {mechanism_name(mechanism)} has "
            "epsilon=None; give rho as a number"
        )
    if r.free_symbols:
        original = getattr(mechanism, "epsilon", None)
        syms = safe_sympify(original).free_symbols if original is not None else set()
        r = r.subs({s: eps for s in (r.free_symbols & syms) or r.free_symbols})
    if sign_or_none(r) != 1:
        raise ValueError(f"check_zcdp: rho must be > 0, got {rho!r}")
    orders = tuple(exact_number(a, "alphas", i) for i, a in enumerate(alphas))
    if any(not a.is_Rational or a < 1 for a in orders):
        raise ValueError(f"check_zcdp: alphas must be rational numbers >= 1, got {alphas!r}")
    q = score_vector(scores, "scores")
    nbrs = _neighbour_list(mech, q, neighbour, search, allow_non_neighbour, "check_zcdp")
    engine = make_engine(mech, [q] + nbrs, "check_zcdp")  # validates the distributions
    if isinstance(engine, BallEngine):
        return stamp(_ball_zcdp(engine, q, nbrs, r, orders), engine)
    dist = [distribution_of(mech, v) for v in [q] + nbrs]
    P = _probs(dist[0], "P")
    best = None  # (excess, j, alpha, D): the first failure, else the largest excess
    for j, d in enumerate(dist[1:]):
        Q = _probs(d, "Q")
        for a in orders:
            D = renyi_divergence(P, Q, a).value
            ex = sympy.oo if D is sympy.oo else D - r * a
            failed = sign(ex) == 1
            if failed or best is None or compare(ex, best[0]) == 1:
                best = (ex, j, a, D, failed)
            if failed:
                break
        if best[4]:
            break
    ex, j, a, D, failed = best
    val = math.inf if ex is sympy.oo else float(sympy.N(ex, 30))
    w = Witness(plain(q), plain(nbrs[j]), None)
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
            w = Witness(plain(q), plain(nbrs[j - 1]), None)
            return ZCDPCheck(not failed, rho, w, a, div, val, orders, len(nbrs), "ball", iv,
                             dps, True, None)
    raise BallUndecided(
        f"check_zcdp: undecided at dps={engine.levels[-1]}: some D_alpha - rho*alpha of "
        f"{engine.name} cannot be told from 0 (or a probability from 0)"
    )


def _neighbour_list(mech, q: ScoreVector, neighbour, search, allow, func) -> list[ScoreVector]:
    if neighbour is not None:
        q2 = score_vector(neighbour, "neighbour")
        check_pair(mech, q, q2, func, allow)
        return [q2]
    return neighbours(mech, q, search)[0]


# =============================================================================== bounded range
@dataclass(frozen=True)
class BoundedRange:
    """Result of :func:`bounded_range`.

    Attributes
    ----------
    value : sympy.Expr
        ``max_r ln(P_r/P'_r) - min_r ln(P_r/P'_r)`` (the largest over the searched pairs;
        ``oo`` when the supports differ).
    witness : Witness
        The pair attaining it; ``output`` is the output of the largest log-ratio.
    low_output : int or None
        The output of the smallest log-ratio.
    pairs_checked : int
    engine : str
        ``"exact"``, or ``"ball"`` for mechanisms without exact probabilities: then
        ``value`` is a sympy Float with ``dps`` digits (the working precision), the
        midpoint of the certified ``interval``.
    interval : tuple of sympy.Float or None
        Ball engine only: ``(lo, hi)`` enclosing the bounded-range parameter.
    dps : int or None
        Ball engine only: the working precision (decimal digits).
    """

    value: sympy.Expr
    witness: Witness | None
    low_output: int | None
    pairs_checked: int
    engine: str = "exact"
    interval: tuple | None = None
    dps: int | None = None
    certified: bool = True
    caveat: str | None = None

    def to_float(self) -> float:
        return math.inf if self.value is sympy.oo else float(sympy.N(self.value, 30))

    def __float__(self) -> float:
        return self.to_float()

    def holds(self, eta: object) -> bool:
        """True iff the bounded-range parameter is at most ``eta``.

        Exact; with the ball engine decided by ``interval``.

        Raises
        ------
        ValueError
            Ball engine only: ``eta`` lies inside ``interval`` (undecided at ``dps``).
        """
        e = exact_number(eta, "eta")
        if self.value is sympy.oo:
            return False
        if self.engine == "ball" and self.interval is not None:
            lo, hi = self.interval
            if compare(sympy.Rational(hi), e) != 1:
                return True
            if compare(sympy.Rational(lo), e) == 1:
                return False
            raise BallUndecided(
                f"BoundedRange.holds: undecided at dps={self.dps}: eta = {e} lies in the "
                f"certified interval [{lo}, {hi}]"
            )
        return compare(self.value, e) != 1


def _cmp(engine: object, a: object, b: object, what: str, mech: object) -> int:
    """``engine.cmp(a, b)`` decided, or UndecidedSignError (e.g. it depends on a symbol).

    The generic engine's ratios are sympy expressions: compared by :func:`exactdp.exact.sign`.
    """
    if getattr(engine, "kind", None) == "generic":
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
    mechanism : object
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
    """
    q = score_vector(scores, "scores")
    nbrs = _neighbour_list(mechanism, q, neighbour, search, allow_non_neighbour,
                           "bounded_range")
    engine = make_engine(mechanism, [q] + nbrs, "bounded_range")
    if isinstance(engine, BallEngine):
        return stamp(_ball_bounded_range(engine, q, nbrs), engine)
    best = None
    for j in range(1, len(nbrs) + 1):
        hi = lo = None
        infinite = False
        for r, (a, b) in enumerate(zip(engine.probs[0], engine.probs[j], strict=True)):
            za, zb = engine.is_zero(a), engine.is_zero(b)
            if za and zb:
                continue
            if za or zb:
                infinite = True
                hi = (r, None)
                break
            R = engine.ratio(a, b)
            if hi is None or _cmp(engine, R, hi[1], "ratios", mechanism) == 1:
                hi = (r, R)
            if lo is None or _cmp(engine, R, lo[1], "ratios", mechanism) == -1:
                lo = (r, R)
        if infinite:
            best = ("inf", j, hi[0], None, None)
            break
        if hi is None:
            continue
        span = engine.div(hi[1], lo[1])
        if best is None or _cmp(engine, span, best[3], "ranges", mechanism) == 1:
            best = ("ratio", j, hi[0], span, lo[0])
    if best is None:
        return BoundedRange(sympy.Integer(0), None, None, len(nbrs))
    kind, j, r_hi, span, r_lo = best
    value = sympy.oo if kind == "inf" else sympy.log(engine.to_sympy(span))
    w = Witness(plain(q), plain(nbrs[j - 1]), r_hi)
    return BoundedRange(value, w, r_lo, len(nbrs))


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
    best = None
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
        w = Witness(plain(q), plain(nbrs[k]), r_hi)
        return BoundedRange(value, w, r_lo, len(nbrs), "ball", total.sympy(), dps)


zcdp_check = deprecated_alias(check_zcdp, "zcdp_check")
