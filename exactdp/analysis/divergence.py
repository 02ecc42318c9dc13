"""Beyond pure DP: exact Renyi and KL divergences, a zCDP check, and bounded range.

- Renyi divergence of order alpha (Renyi 1961; Mironov, CSF 2017, Def. 3):
  ``D_alpha(P || Q) = ln(sum_r P_r^alpha Q_r^(1 - alpha)) / (alpha - 1)``; ``alpha -> 1`` is
  the KL divergence ``sum_r P_r ln(P_r/Q_r)``, ``alpha = oo`` the max divergence.
- rho-zCDP (Bun & Steinke, TCC 2016, Def. 1.1): ``D_alpha(M(q) || M(q')) <= rho * alpha``
  for every ``alpha > 1`` and neighbours.
- Bounded range (Durfee & Rogers, NeurIPS 2019, Def. 3): the range of the privacy-loss
  random variable, ``max_r ln(P_r/P'_r) - min_r ln(P_r/P'_r)``. An eta-BR mechanism is
  ``eta^2/8``-zCDP (Cesar & Rogers, ALT 2021, Lemma 3.2).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import sympy

from ..numbers import exact_number
from ..scores import ScoreVector
from .privacy import (
    Witness,
    _check_pair,
    _distribution,
    _make_engine,
    _numeric_mechanism,
    _plain,
    _sv,
    exact_sign,
    neighbours,
)

__all__ = [
    "renyi_divergence",
    "kl_divergence",
    "kl",
    "max_divergence",
    "zcdp_check",
    "ZCDPCheck",
    "bounded_range",
    "BoundedRange",
    "DEFAULT_ALPHAS",
]

#: Orders checked by :func:`zcdp_check` by default (1 is the KL limit).
DEFAULT_ALPHAS = tuple(
    sympy.Rational(a) for a in ("1", "5/4", "3/2", "2", "3", "4", "6", "8", "16", "32", "64")
)


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
        if exact_sign(v) == -1:
            raise ValueError(f"{name}[{i}] = {v} is negative")
        out.append(v)
    return tuple(out)


def _pair(P, Q, func: str):
    p, q = _probs(P, "P"), _probs(Q, "Q")
    if len(p) != len(q):
        raise ValueError(f"{func}: P has {len(p)} entries and Q has {len(q)}")
    return p, q


def kl_divergence(P: object, Q: object) -> sympy.Expr:
    """Exact Kullback-Leibler divergence ``sum_r P_r ln(P_r / Q_r)`` in nats.

    Parameters
    ----------
    P, Q : sequences of exact probabilities, shape (n,), or distributions
        (objects with ``.probabilities``).

    Returns
    -------
    sympy.Expr
        ``oo`` if some ``Q_r = 0 < P_r``.

    References
    ----------
    T. M. Cover and J. A. Thomas, Elements of Information Theory (2006), eq. (2.26).
    """
    p, q = _pair(P, Q, "kl_divergence")
    terms = []
    for a, b in zip(p, q, strict=True):
        if exact_sign(a) == 0:
            continue
        if exact_sign(b) == 0:
            return sympy.oo
        terms.append(a * sympy.log(a / b))
    return sympy.Add(*terms)


kl = kl_divergence


def max_divergence(P: object, Q: object) -> sympy.Expr:
    """``D_oo(P || Q) = max_{r: P_r > 0} ln(P_r / Q_r)`` (exact comparisons)."""
    p, q = _pair(P, Q, "max_divergence")
    best = None
    for a, b in zip(p, q, strict=True):
        if exact_sign(a) == 0:
            continue
        if exact_sign(b) == 0:
            return sympy.oo
        r = a / b
        if best is None or exact_sign(r - best) == 1:
            best = r
    return sympy.log(best) if best is not None else sympy.Integer(0)


def renyi_divergence(P: object, Q: object, alpha: object) -> sympy.Expr:
    """Exact Renyi divergence ``D_alpha(P || Q)`` in nats.

    Parameters
    ----------
    P, Q : sequences of exact probabilities, shape (n,), or distributions
    alpha : rational number > 0, or ``sympy.oo``
        The order. ``alpha = 1`` gives the KL divergence (the limit), ``oo`` the max
        divergence.

    Returns
    -------
    sympy.Expr
        ``ln(sum_r P_r^alpha Q_r^(1-alpha)) / (alpha - 1)``; ``oo`` when ``alpha > 1`` and
        some ``Q_r = 0 < P_r``.

    Raises
    ------
    ValueError
        For ``alpha <= 0``, irrational or float alpha, or invalid probabilities.

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
    terms = []
    for x, y in zip(p, q, strict=True):
        zx, zy = exact_sign(x) == 0, exact_sign(y) == 0
        if zx:
            continue
        if zy:
            if a > 1:
                return sympy.oo
            continue
        terms.append(x**a * y ** (1 - a))
    return sympy.log(sympy.Add(*terms)) / (a - 1)


# =============================================================================== zCDP
@dataclass(frozen=True)
class ZCDPCheck:
    """Result of :func:`zcdp_check`.

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
        ``D_alpha - rho*alpha`` there (positive iff the claim fails there).
    alphas : tuple
    pairs_checked : int
    """

    holds: bool
    rho: sympy.Expr
    witness: Witness | None
    alpha: sympy.Expr | None
    divergence: sympy.Expr | None
    excess: float
    alphas: tuple
    pairs_checked: int

    def __bool__(self) -> bool:
        return self.holds


def zcdp_check(
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
        A mechanism with a numeric epsilon and exact probabilities.
    scores : sequence, shape (n,)
    rho : number or expression in the mechanism's epsilon (e.g. ``epsilon**2/8``)
        The claim; an expression is evaluated at the mechanism's epsilon.
    neighbour : sequence, shape (n,), optional
        ``None`` searches the neighbours of :func:`~exactdp.analysis.privacy.neighbours`.
    alphas : sequence of rational numbers >= 1
        The orders checked (1 means the KL limit, where the claim is ``KL <= rho``).

    Returns
    -------
    ZCDPCheck
        A failure is a proof that the claim is false; ``holds`` covers the checked orders.

    References
    ----------
    M. Bun and T. Steinke, "Concentrated differential privacy", TCC 2016, Def. 1.1.
    """
    mech, eps = _numeric_mechanism(mechanism, None, "zcdp_check")
    r = exact_number(rho, "rho", allow_symbols=True)
    if r.free_symbols:
        original = getattr(mechanism, "epsilon", None)
        syms = sympy.sympify(original).free_symbols if original is not None else set()
        r = r.subs({s: eps for s in (r.free_symbols & syms) or r.free_symbols})
    if exact_sign(r) != 1:
        raise ValueError(f"zcdp_check: rho must be > 0, got {rho!r}")
    orders = tuple(exact_number(a, "alphas", i) for i, a in enumerate(alphas))
    if any(not a.is_Rational or a < 1 for a in orders):
        raise ValueError(f"zcdp_check: alphas must be rational numbers >= 1, got {alphas!r}")
    q = _sv(scores, "scores")
    nbrs = _neighbour_list(mech, q, neighbour, search, allow_non_neighbour, "zcdp_check")
    _make_engine(mech, [q] + nbrs, "zcdp_check")  # validates the distributions
    dist = [_distribution(mech, v) for v in [q] + nbrs]
    P = _probs(dist[0], "P")
    best = None
    failed = False
    for j, d in enumerate(dist[1:]):
        Q = _probs(d, "Q")
        for a in orders:
            D = renyi_divergence(P, Q, a)
            bound = r * a
            ex = sympy.oo if D is sympy.oo else D - bound
            val = math.inf if ex is sympy.oo else float(sympy.N(ex, 30))
            if val > -1e-12 and not failed and (ex is sympy.oo or exact_sign(ex) == 1):
                failed = True
                best = (val, j, a, D, ex)
            if not failed and (best is None or val > best[0]):
                best = (val, j, a, D, ex)
    val, j, a, D, ex = best
    holds = not failed
    w = Witness(_plain(q), _plain(nbrs[j]), None)
    return ZCDPCheck(bool(holds), r, w, a, D, val, orders, len(nbrs))


def _neighbour_list(mech, q: ScoreVector, neighbour, search, allow, func) -> list[ScoreVector]:
    if neighbour is not None:
        q2 = _sv(neighbour, "neighbour")
        _check_pair(mech, q, q2, func, allow)
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
    """

    value: sympy.Expr
    witness: Witness | None
    low_output: int | None
    pairs_checked: int

    def to_float(self) -> float:
        return math.inf if self.value is sympy.oo else float(sympy.N(self.value, 30))

    def __float__(self) -> float:
        return self.to_float()

    def holds(self, eta: object) -> bool:
        """True iff the bounded-range parameter is at most ``eta`` (exact)."""
        e = exact_number(eta, "eta")
        return self.value is not sympy.oo and exact_sign(self.value - e) != 1


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
        when the comparisons do not depend on it).
    scores : sequence, shape (n,)
    neighbour : sequence, shape (n,), optional
        ``None`` searches the neighbours of :func:`~exactdp.analysis.privacy.neighbours`.

    Returns
    -------
    BoundedRange

    References
    ----------
    D. Durfee and R. Rogers, "Practical differentially private top-k selection with
    pay-what-you-get composition", NeurIPS 2019, Def. 3 and the PF example: with monotone
    scores (0, 0) vs (0, 1), PF's range is ``eps + ln(2 - e^{-eps})``.
    """
    q = _sv(scores, "scores")
    nbrs = _neighbour_list(mechanism, q, neighbour, search, allow_non_neighbour,
                           "bounded_range")
    engine = _make_engine(mechanism, [q] + nbrs, "bounded_range")
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
            if hi is None or engine.cmp(R, hi[1]) == 1:
                hi = (r, R)
            if lo is None or engine.cmp(R, lo[1]) == -1:
                lo = (r, R)
        if infinite:
            best = ("inf", j, hi[0], None, None)
            break
        if hi is None:
            continue
        span = engine.div(hi[1], lo[1])
        if best is None or engine.cmp(span, best[3]) == 1:
            best = ("ratio", j, hi[0], span, lo[0])
    if best is None:
        return BoundedRange(sympy.Integer(0), None, None, len(nbrs))
    kind, j, r_hi, span, r_lo = best
    value = sympy.oo if kind == "inf" else sympy.log(engine.to_sympy(span))
    w = Witness(_plain(q), _plain(nbrs[j - 1]), r_hi)
    return BoundedRange(value, w, r_lo, len(nbrs))
