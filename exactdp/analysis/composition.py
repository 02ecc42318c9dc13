"""Certified lower bounds on the composed privacy curve, and accountants checked against them.

:func:`composition_lower_bound` searches the analyzer's neighbours of ``scores`` (both
directions of each pair) for the pair whose k-fold composition has the largest
``delta(epsilon)``: a float screen ranks the pairs, then the chosen pair's composed PLD is
computed exactly (or, beyond the support limit, as a certified grid lower bound). The result is
a certified lower bound on the mechanism's k-fold privacy curve at ``epsilon``: the true
composed curve is at least the curve of any one pair (Dong, Roth & Su 2022, section 2).

:func:`check_accountant` compares that lower bound with the deltas accountants claim
(:mod:`exactdp.analysis.accountants`, ``dp_accounting``, OpenDP). A claim is refuted
(``outcome="refuted"``, ``holds=False``) only when the certified lower bound exceeds the
claimed delta; it is ``"confirmed"`` when the claim is at least the certified upper bound of
the witness pair's composed delta (a bound for that pair, not a proof for the mechanism), and
``"undecided"`` in between.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from .._validate import argument_error, check_choice, check_int, check_nonempty
from ..cost import as_caller, check_seconds, composition_screen_seconds, refuse
from ..distribution import output_kind_of
from ..printing import latex_array, latex_decimal, latex_math, math_text
from ..progress import SHOW_SECONDS, progress_bar
from ..result import Result
from ..scores import as_scores
from .accountants import CLAIMS, ClaimedDelta, claimed_delta
from .check import Witness
from .common import as_mechanism, mechanism_epsilon
from .neighbourhood import SEARCHES, neighbours
from .outputs import output_union
from .peer_accountants import (
    dp_accounting_delta,
    dp_accounting_pair_delta,
    dp_accounting_rdp_delta,
    opendp_delta,
)
from .pld.core import MAX_COPIES, MAX_SUPPORT, PrivacyLossDistribution
from .pld.pair import privacy_loss_distribution
from .pld.results import HockeyStick, check_epsilon
from .witness import NO_OUTPUT

#: Claims :func:`check_accountant` evaluates by default.
DEFAULT_CLAIMS = ("basic", "kov", "drv", "zcdp", "zcdp_bun_steinke", "bounded_range",
                  "dp_accounting", "dp_accounting_pld", "dp_accounting_rdp", "opendp")


def available_claims() -> tuple[str, ...]:
    """The default claims: the formulas, plus the libraries that are installed."""
    have = {"dp_accounting": importlib.util.find_spec("dp_accounting") is not None,
            "opendp": importlib.util.find_spec("opendp") is not None}
    return tuple(c for c in DEFAULT_CLAIMS
                 if have.get(c.replace("_pld", "").replace("_rdp", ""), True))


#: Every claim :func:`check_accountant` knows.
KNOWN_CLAIMS = (*CLAIMS, "dp_accounting_pld", "dp_accounting_rdp", "opendp")


@dataclass(frozen=True)
class CompositionBound(Result):
    """A certified lower bound on the k-fold composed ``delta(epsilon)`` of a mechanism.

    The result protocol's headline is the composed delta of the witness pair
    (:attr:`value`: exact for ``algorithm="exact"``; a grid bound has only its enclosure).

    Attributes
    ----------
    k : int
    epsilon : sympy.Expr
    delta : HockeyStick
        ``algorithm="exact"``: the exact delta of the witness pair's k-fold composition;
        ``"grid"``: a certified lower bound of it.
    witness : Witness
        ``(scores, neighbour, None)``: the PLD is from ``M(scores)`` to ``M(neighbour)``.
    neighbours_checked : int
        Ordered pairs screened.
    search : str
    certified : bool
    caveat : str
    """

    k: int
    epsilon: sympy.Expr
    delta: HockeyStick
    witness: Witness
    neighbours_checked: int
    search: str
    certified: bool = True
    caveat: str = ("a lower bound on the mechanism's composed curve from one chosen pair; "
                   "it never proves an upper bound")

    headline = "value"
    headline_label = "delta"
    repr_fields = ("k", "epsilon", "witness", "search")

    @property
    def value(self) -> sympy.Expr | None:
        """The witness pair's composed delta, exact (None for a grid bound)."""
        return self.delta.value

    def headline_text(self) -> str:
        """The composed delta as :class:`HockeyStick` shows it (``0.404016 (rounded)``
        when its exact form is too long to print; a grid's certified lattice bounds)."""
        return self.delta.headline_text()

    def enclosure(self):
        """The certified ball of the composed delta (:class:`HockeyStick`'s)."""
        return self.delta.ball

    @property
    def lower(self) -> Fraction:
        """Certified lower bound of the composed delta (exact Fraction)."""
        return self.delta.lower

    @property
    def upper(self) -> Fraction:
        """Certified upper bound of the witness pair's composed delta (exact Fraction); an
        upper bound for this pair only, not for the mechanism."""
        return self.delta.upper


def _float_curve(p: np.ndarray, q: np.ndarray, k: int, epsilons: list[float]) -> np.ndarray:
    """Float estimate of the k-fold delta(eps) of one pair (screening only, not certified)."""
    from scipy.signal import fftconvolve
    finite = (p > 0) & (q > 0)
    p_inf = float(p[(p > 0) & (q == 0)].sum())
    loss, mass = np.log(p[finite]) - np.log(q[finite]), p[finite]
    fin = (1 - p_inf) ** k
    if loss.size == 0:
        return np.full(len(epsilons), 1 - fin)
    h = max(float(loss.max() - loss.min()), 1e-9) / 2048
    idx = np.floor((loss - loss.min()) / h).astype(np.int64)
    vec = np.bincount(idx, weights=mass)
    out: np.ndarray | None = None
    base, j = vec, k
    while j:
        if j & 1:
            out = base if out is None else np.clip(fftconvolve(out, base), 0, None)
        j >>= 1
        if j:
            base = np.clip(fftconvolve(base, base), 0, None)
    assert out is not None  # k >= 1 compositions
    shift = k * float(loss.min())
    grid = shift + h * np.arange(out.size)
    res = []
    for e in epsilons:
        gain = np.clip(1 - np.exp(np.minimum(e - grid, 700.0)), 0, None)
        res.append(float(np.dot(out, gain)) + (1 - fin))
    return np.array(res)


def _candidates(mechanism, sv, search: str, func: str):
    # check_cost=False: the pairs are priced here (_price), not as exact analyses of all
    nbrs, how = neighbours(mechanism, sv, search, func=func, check_cost=False)
    pairs = []
    for nb in nbrs:
        pairs.append((sv, nb))
        pairs.append((nb, sv))
    return nbrs, pairs, how


def _price(mechanism, sv, nbrs, pairs, k: int, composed: int, func: str) -> float:
    """Refuse, naming ``func``, a search estimated past :data:`~exactdp.cost.SECONDS_LIMIT`,
    and return its estimate: the float64 screen of every pair
    (:func:`~exactdp.cost.composition_screen_seconds`, and the mechanism's float64 views:
    ``pld_seconds``) plus the exact PLDs of the ``composed`` costliest pairs (both vectors
    of each: ``pld_seconds``). A mechanism without its own estimate refuses by
    ``check_cost`` on every vector (exact analyses), as before any exact work."""
    screen = composition_screen_seconds(len(pairs), k)
    own = mechanism.pld_seconds([], len(nbrs) + 1)
    if own is None:
        mechanism.check_cost(func, [sv, *nbrs])
        exact = 0.0
    else:
        screen += own
        per_pair = sorted((mechanism.pld_seconds([sv, nb], 0) for nb in nbrs), reverse=True)
        exact = sum([c for c in per_pair for _ in (0, 1)][:composed])
    cheaper = ("fewer copies k, or fewer pairs (search='reduced' for a regular mechanism)"
               if screen >= exact else
               "fewer distinct scores, or candidates=1 (the pairs composed exactly per "
               "epsilon), or compare the float64 views (mechanism.distribution(q)."
               "to_numpy()) of the pair that matters")
    check_seconds(func, f"the composed lower bound of k = {k} copies over {len(pairs)} "
                  f"ordered pairs of n = {sv.n} scores (a float64 screen of each, "
                  f"{min(composed, len(pairs))} composed exactly)", screen + exact, cheaper)
    return screen + exact


def _screen(mechanism, pairs, k: int, eps_f: list[float], bar) -> np.ndarray:
    cache: dict = {}

    def view(s):  # each vector's distribution and float64 view once
        key = tuple(s.exact)
        if key not in cache:
            d = mechanism.distribution(s)
            cache[key] = (d, np.asarray(d.to_numpy(), dtype=float))
        return cache[key]

    out = []
    for a, b in pairs:
        bar.update(1)
        out.append(_float_curve(*_aligned(*view(a), *view(b)), k, eps_f))
    return np.array(out)


def _float_pair(dp, dq) -> tuple[np.ndarray, np.ndarray]:
    """The float64 views of two distributions of one mechanism, output by output: a
    sequence mechanism's aligned by output value over the union of their outputs (0.0
    where one does not reach an output; :mod:`exactdp.analysis.outputs`)."""
    return _aligned(dp, np.asarray(dp.to_numpy(), dtype=float),
                    dq, np.asarray(dq.to_numpy(), dtype=float))


def _aligned(dp, p: np.ndarray, dq, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_float_pair` of the float64 views ``p``, ``q`` of ``dp``, ``dq``."""
    if output_kind_of(dp) != "sequence":
        return p, q
    union = output_union([dp.outputs, dq.outputs])
    if union is None:
        return p, q
    return (np.array(union.align(0, p.tolist(), 0.0)),
            np.array(union.align(1, q.tolist(), 0.0)))


def composition_lower_bound(mechanism, scores, k: int, epsilon: object, search: str = "auto",
                            dps: int = 30, max_support: int = MAX_SUPPORT,
                            candidates: int = 2, *,
                            progress: bool | None = None) -> CompositionBound:
    """Certified lower bound on the k-fold composed ``delta(epsilon)`` over the neighbours.

    Parameters
    ----------
    mechanism : Mechanism
    scores : sequence of numbers, shape (n,)
    k : int
        Number of compositions (>= 1).
    epsilon : number
        Exact, >= 0.
    search : {"auto", "exhaustive", "reduced"}
        Neighbour set (:func:`exactdp.analysis.neighbours`).
    dps : int
    max_support : int
        Exact composition up to this many output-count vectors; beyond, a grid lower bound.
    candidates : int
        How many of the best-screened pairs are computed exactly.
    progress : bool, optional
        A bar on standard error over the composed pairs (:func:`exactdp.progress.progress_bar`):
        None (default) once they take over 2 s, on a terminal; False never; True at once.

    Returns
    -------
    CompositionBound

    Raises
    ------
    ValueError
        Bad ``k``, ``epsilon`` or ``scores``.

    Examples
    --------
    >>> import exactdp
    >>> b = exactdp.composition_lower_bound(exactdp.PermuteAndFlip(1), [0, 0], 5, 2)
    >>> 0 < float(b.delta) < 1
    True
    """
    check_choice("composition_lower_bound", "search", search, SEARCHES)
    _selection(mechanism, "composition_lower_bound")
    k = check_int("composition_lower_bound", "k", k, 1)  # in its own name, not the
    epsilon = check_epsilon(epsilon, "composition_lower_bound")  # accountant check's
    with as_caller("composition_lower_bound"):
        res = check_accountant(mechanism, scores, k, [epsilon], claims=(), search=search,
                               dps=dps, max_support=max_support, candidates=candidates,
                               progress=progress)
    return res.bounds[0]


def _selection(mechanism: object, func: str) -> Any:
    """``mechanism`` as a Mechanism, refused in one line, before any neighbour is traced,
    when it releases real values (no privacy loss distribution of finite support)."""
    mech = as_mechanism(mechanism, func)
    if mech.output_kind == "release":
        raise ValueError(f"{func}: {mech.name} releases real values (output kind 'release'): "
                         "its composed delta needs a privacy loss distribution of finite "
                         "support; use privacy_loss (the exact supremum of the log density "
                         "ratio; k compositions lose at most k times it)")
    return mech


def _bounds(mechanism, sv, k, epsilons, search, dps, max_support, candidates, progress=None):
    func = "check_accountant"
    nbrs, pairs, how = _candidates(mechanism, sv, search, func)
    count = min(candidates, len(pairs))
    seconds = _price(mechanism, sv, nbrs, pairs, k, count * len(epsilons), func)
    eps_f = [float(sympy.N(e, 20)) for e in epsilons]
    # one bar: the screen pair by pair, then the pairs composed exactly
    bar = progress_bar(len(pairs) + len(epsilons) * count, "composition", progress=progress,
                       unit="pair", seconds=seconds if seconds > SHOW_SECONDS else None)
    try:
        scores = _screen(mechanism, pairs, k, eps_f, bar)
        composed: dict = {}
        out = []
        for j, eps in enumerate(epsilons):
            best = None
            for i in np.argsort(-scores[:, j], kind="stable")[:candidates]:
                bar.update(1)
                a, b = pairs[int(i)]
                key = (tuple(a.exact), tuple(b.exact))
                if key not in composed:
                    pld = privacy_loss_distribution(mechanism, a, b)
                    composed[key] = pld.self_compose(k, max_support=max_support)
                pld = composed[key]
                h = pld.delta(eps, dps=dps) if isinstance(pld, PrivacyLossDistribution) else (
                    pld.delta(eps))
                if best is None or h.lower > best[0].lower:
                    best = (h, Witness(tuple(a.exact), tuple(b.exact), NO_OUTPUT))
            out.append(CompositionBound(k, eps, best[0], best[1], len(pairs), how))
    finally:
        bar.close()
    return out


@dataclass(frozen=True)
class AccountantRow:
    """One claim at one epsilon.

    Attributes
    ----------
    epsilon : sympy.Expr
    claim : str
    claimed_delta : Fraction
        Upper bound of the delta the claim gives (exact).
    lower_bound : Fraction
        Certified lower bound of the mechanism's composed delta (from ``witness``).
    upper_bound : Fraction
        Certified upper bound of the witness pair's composed delta.
    outcome : {"refuted", "confirmed", "undecided"}
        ``"refuted"``: ``claimed_delta < lower_bound`` (the claim is wrong for the mechanism);
        ``"confirmed"``: ``claimed_delta >= upper_bound`` (the claim bounds this pair);
        ``"undecided"``: the claim lies between the bounds (refine the tolerance).
    holds : bool
        False iff the outcome is ``"refuted"``.
    looseness : float
        ``claimed_delta / upper_bound`` (``inf`` when the upper bound is 0 and the claim not;
        1 when both are 0).
    witness : Witness
    certified : bool
        Whether the claimed delta is a rigorous upper bound of the claim's formula (float
        accountants: False).
    caveat : str
    """

    epsilon: sympy.Expr
    claim: str
    claimed_delta: Fraction
    lower_bound: Fraction
    upper_bound: Fraction
    outcome: str
    holds: bool
    looseness: float
    witness: Witness
    certified: bool
    caveat: str


@dataclass(frozen=True)
class AccountantCheck(Result):
    """Result of :func:`check_accountant`: rows per (epsilon, claim) and the bounds used.

    The result protocol (:class:`exactdp.result.Result`): a verdict (``holds``: no claim is
    refuted) with no headline number; ``summary()`` is the short repr and :meth:`table`.
    """

    headline = None

    mechanism: str
    scores: tuple
    k: int
    rows: tuple
    bounds: tuple
    versions: dict = field(default_factory=dict)
    certified: bool = True
    caveat: str = ("every lower bound is certified (exact or rigorously rounded down); rows "
                   "with certified=False compare with a library's float claim; holds=True is "
                   "no proof of the claim")
    #: True iff no claim is refuted at any epsilon (set from ``rows``).
    holds: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "holds", all(r.holds for r in self.rows))

    def refuted(self) -> list[AccountantRow]:
        """The rows whose claim the lower bound exceeds."""
        return [r for r in self.rows if not r.holds]

    def table(self) -> str:
        """A plain-text table (epsilon, claim, claimed delta, lower and upper bound, outcome)."""
        lines = [f"{self.mechanism} on {list(self.scores)}, k = {self.k}",
                 f"{'epsilon':>10} {'claim':>18} {'claimed delta':>14} {'lower bound':>14} "
                 f"{'upper bound':>14} outcome"]
        for r in self.rows:
            lines.append(f"{float(r.epsilon):>10.4g} {r.claim:>18} {float(r.claimed_delta):>14.6g}"
                         f" {float(r.lower_bound):>14.6g} {float(r.upper_bound):>14.6g} "
                         f"{r.outcome}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def repr_parts(self) -> list[str]:
        claims = sorted({r.claim for r in self.rows})
        return [f"mechanism={self.mechanism}", f"k={self.k}", f"rows={len(self.rows)}",
                f"refuted={len(self.refuted())}", f"claims={','.join(claims)[:60]}"]

    def summary(self) -> str:
        """The short repr, then the table of every row."""
        return repr(self) + "\n" + self.table()

    def _repr_latex_(self) -> str:
        heads = ["\\varepsilon", "\\text{claim}", "\\delta_{claim}", "\\delta_{lower}",
                 "\\delta_{upper}", "\\text{outcome}"]
        rows = [[sympy.latex(r.epsilon), math_text(r.claim),
                 latex_decimal(r.claimed_delta, 4), latex_decimal(r.lower_bound, 4),
                 latex_decimal(r.upper_bound, 4),
                 "\\textbf{refuted}" if not r.holds else "\\text{" + r.outcome + "}"]
                for r in self.rows]
        return latex_math(latex_array(heads, rows, "llrrrl"))


def _row(bound: CompositionBound, name: str, claim: ClaimedDelta) -> AccountantRow:
    lo, hi, claimed = bound.lower, bound.upper, claim.upper
    outcome = "refuted" if claimed < lo else "confirmed" if claimed >= hi else "undecided"
    if hi > 0:  # an upper end near 0 (a ball's end capped at 2**-10000): past float, oo
        ratio = claimed / hi
        loose = float(ratio) if ratio < sys.float_info.max else float("inf")
    else:
        loose = 1.0 if claimed == 0 else float("inf")
    return AccountantRow(bound.epsilon, name, claimed, lo, hi, outcome, outcome != "refuted",
                         loose, bound.witness, claim.certified, claim.caveat)


def _claim(name, mechanism, k, eps, bound) -> ClaimedDelta:
    eps0 = mechanism.epsilon
    if name == "dp_accounting":
        return dp_accounting_delta(eps0, k, eps)
    if name == "opendp":
        return opendp_delta(mechanism, k, eps)
    if name == "dp_accounting_rdp":
        return dp_accounting_rdp_delta(mechanism, k, eps)
    if name == "dp_accounting_pld":
        w = bound.witness
        p, q = _float_pair(mechanism.distribution(list(w.scores)),
                          mechanism.distribution(list(w.neighbour)))
        return dp_accounting_pair_delta(p, q, k, eps)
    return claimed_delta(name, eps0, k, eps)


def check_accountant(mechanism, scores, k: int, epsilons, claims=None,
                     search: str = "auto", dps: int = 30, max_support: int = MAX_SUPPORT,
                     candidates: int = 2, *, progress: bool | None = None) -> AccountantCheck:
    """Compare accountants' claimed deltas with a certified lower bound, for k compositions.

    Parameters
    ----------
    mechanism : Mechanism
        An epsilon-DP selection mechanism with numeric epsilon; the claims use its epsilon
        as the per-round parameter (``rho = epsilon**2/8`` for zCDP, ``epsilon``-bounded range).
    scores : sequence of numbers, shape (n,)
        The lower bound searches the neighbours of ``scores``.
    k : int
        Number of rounds (>= 1).
    epsilons : sequence of numbers
        Where the curves are compared (exact input, >= 0).
    claims : sequence of str, optional
        Default: every claim whose library is installed (:func:`available_claims`). Any of
        ``basic``, ``kov``, ``drv``, ``zcdp``, ``zcdp_bun_steinke``, ``bounded_range``,
        ``dp_accounting`` (its pure-DP accountant), ``dp_accounting_pld`` (its float PLD of the
        witness pair; both need the ``accounting`` extra) and ``opendp`` (needs the ``peers``
        extra; EM and PF only).
    search, dps, max_support, candidates, progress
        As in :func:`composition_lower_bound`.

    Returns
    -------
    AccountantCheck
        ``rows`` (epsilon-major), ``bounds`` (one :class:`CompositionBound` per epsilon),
        ``versions`` of the third-party accountants audited.

    Raises
    ------
    ValueError
        Bad ``k``, ``epsilons``, ``claims`` or ``scores``.
    ImportError
        If ``dp_accounting`` / ``opendp`` claims are asked for without the library.

    Examples
    --------
    >>> import exactdp
    >>> pf = exactdp.PermuteAndFlip(2)
    >>> check = exactdp.check_accountant(pf, [0, 0], 10, [8], claims=("zcdp",))
    >>> [(row.claim, row.holds) for row in check.rows]
    [('zcdp', False)]
    """
    k = check_int("check_accountant", "k", k, 1)
    if k > MAX_COPIES:
        raise refuse("check_accountant", f"the composed lower bound of k = {k} copies",
                     f"{k} self-compositions (self_compose)", f"{MAX_COPIES:.0e} copies",
                     "check fewer copies")
    if claims is None:
        claims = available_claims()
    if isinstance(claims, str):
        claims = (claims,)
    unknown = [c for c in claims if c not in KNOWN_CLAIMS]
    if unknown:
        raise argument_error("check_accountant", "claims", f"a subset of {list(KNOWN_CLAIMS)} "
                             f"(unknown claims {unknown})", claims)
    eps_list = [check_epsilon(e, "check_accountant") for e in epsilons]
    check_nonempty("check_accountant", "epsilons", eps_list)
    mech = _selection(mechanism, "check_accountant")
    eps = mechanism_epsilon(mech)
    if eps is None or eps.free_symbols:
        raise argument_error("check_accountant", "mechanism", "a mechanism with a numeric "
                             "epsilon", mechanism)
    sv = as_scores(scores, "scores", func="check_accountant")
    bounds = _bounds(mechanism, sv, k, eps_list, search, dps, max_support, candidates,
                     progress)
    rows, versions = [], {}
    for b in bounds:
        for name in claims:
            c = _claim(name, mechanism, k, b.epsilon, b)
            if not c.certified:
                versions[name.split("_pld")[0]] = c.caveat.split("version ")[-1].split(")")[0]
            rows.append(_row(b, name, c))
    label = f"{type(mechanism).__name__}(epsilon={mechanism.epsilon})"
    return AccountantCheck(label, tuple(sv.exact), k, tuple(rows), tuple(bounds), versions)

