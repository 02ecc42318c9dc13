"""Released gaps along a chain of noisy values (noisy top-k with gap): the supremum of the
log density ratio over ``k - 1 >= 1`` released gaps.

A run of this shape (:func:`gap_chain`) draws noises ``z_i`` of one law and scale ``b``,
holds the chain ``y_1 >= y_2 >= ... >= y_k`` of the values ``y_j = z_(c_j) + a_j`` above
every other value ``z_i + a_i`` (the losers), and releases the gaps ``g_j = y_j -
y_(j+1)``. With ``G_j = g_j + ... + g_(k-1)`` (``G_k = 0``) and ``t = y_k`` the density of
the gaps is (Ding et al. 2023, the proof of noisy top-k with gap; Dwork and Roth 2014, 3.3)

.. math:: f(G) = \\int dt \\prod_{j \\le k} p(t + G_j - a_j) \\prod_{i\\ \\mathrm{loser}}
          F(t - a_i).

It depends on the data only through ``d_j = a_j - a_k`` and ``e_i = a_i - a_k``.

**Exponential noise** (``p(x) = exp(-x/b) / b`` on ``x >= 0``): the product of the chain's
densities is ``b**-k exp(-(sum_j G_j - sum_j d_j + k t) / b)`` where ``t >= s(G) =
max(0, max_j (d_j - G_j))``, so ``f(G) = exp(-sum_j G_j / b) K(s(G))`` with

.. math:: K(s) = b^{1-k} e^{\\sum_j d_j / b} \\sum_{S} \\frac{(-1)^{|S|}
          e^{\\sum_{i \\in S} e_i / b}}{k + |S|} e^{-(k + |S|) \\max(s, E) / b}

(``S`` over the subsets of the losers, ``E`` their largest ``e_i``: the losers' CDFs
``1 - exp(-(t - e_i)/b)`` multiplied out). The ratio of two inputs is ``K(s(G)) /
K'(s'(G))``: ``K`` and ``K'`` are non-increasing, so for a fixed ``s`` the ratio is
largest where ``s'`` is, and the componentwise least ``G`` with ``s(G) = s``,
``G*_j(s) = max(0, max_(l >= j) (d_l - s))``, maximises every ``d'_j - G_j`` at once.
The supremum of ``ln f/f'`` is therefore the supremum over the *path* ``s -> G*(s)``,
``s`` in ``[0, max(0, max_j d_j)]`` (``s(G)`` takes no other value), of one exponential
sum over another: a one-variable problem cut at the path's kinks, solved exactly by
:func:`exactdp.programs.release_sup.zeros` (the other sign: the path of the other input).
The value is attained iff some ``G`` with every gap positive gives the same two values of
``K`` (:func:`_attained`, decided exactly); otherwise it is approached as gaps tend to 0.

**Laplace noise**, ``k >= 3``: the log ratio is computed exactly along rays of gaps
(:data:`RAYS`), its limit as the gaps grow included; each value is a lower bound, attained
at a finite ray point, approached in the limit. Where one reaches the translation bound
``B`` of :mod:`exactdp.programs.release_bound` the supremum is exact, equal to ``B``, and
approached as the gaps grow along the ray (the caller decides). Else, for two gaps, the
plane's polygons of :mod:`exactdp.programs.release_chain_plane` (exact where each polygon
is settled or shown below the loss found); otherwise the bracket stands.
It is not attained when ``B > 0``: the bound integrates ``p(z_i) <= exp(|d_i|/b) p(z_i +
d_i)`` over the output's fibre with a shift ``d != 0``, an equality only for ``z_i`` on one
side of ``0`` and ``-d_i``, while on the fibre every chain noise ranges over the whole line
(with ``t``) and every loser's down to ``-oo``, where the Laplace integrand is positive:
the inequality is strict on a set of positive measure, at every output.

References
----------
Z. Ding, Y. Wang, Y. Xiao, G. Wang, D. Zhang and D. Kifer, "Free gap estimates from the
exponential mechanism, sparse vector, noisy max and related algorithms", VLDB Journal 32,
2023 (noisy top-k with gap, Laplace and exponential noise). C. Dwork and A. Roth, *The
Algorithmic Foundations of Differential Privacy*, 2014, section 3.3.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import lru_cache
from typing import Any

from ..cost import TooCostly
from .release_cells import OnBoundary, VPoly, cell_at, cells
from .release_chain_plane import CHAIN_PLANE_SECONDS, Undecided, plane_chain, undecided_text
from .release_density import affine, clear_caches
from .release_min import min_candidates
from .release_sup import MAX_STEPS, Terms, add, refine, zeros
from .release_two import two_candidates
from .runs import Run

#: Ray directions of the gaps for Laplace noise (each entry times ``v``, ``v -> +oo``): the
#: diagonal, and each gap twice the others or half of them.
RAYS = ("ones", "double", "half")


@dataclass(frozen=True)
class Tools:
    """What the route borrows from :mod:`exactdp.programs.release_loss` (passed in, so
    this module does not import it): its candidate class, a cell's candidates, the log
    ratio's derivative, a pattern's density at released values, the rate unit, and a
    density as :data:`~exactdp.programs.release_sup.Terms`."""

    candidate: Callable[..., Any]
    cell: Callable[..., list[Any]]
    dratio: Callable[..., Terms]
    density: Callable[..., tuple[Any, dict]]
    lam: Callable[..., Fraction]
    terms: Callable[..., Terms]
    enough: Callable[[Any], bool]  # a candidate reaches the pattern's translation bound
    bounded: bool  # the pattern has a translation bound
    #: Estimated seconds left for the plane route on two gaps (one list for one loss).
    budget: list[float] = field(default_factory=lambda: [CHAIN_PLANE_SECONDS])
    #: The plane route's start line, given its price a pattern (None: its budget's line).
    line: Callable[[float], None] | None = None
    #: The best candidate of the patterns before (None: none yet): a polygon whose ``|ln
    #: f/g|`` is proved below it cannot change the loss.
    top: Callable[[], Any] = lambda: None


@dataclass(frozen=True)
class ChainResult:
    """The route's answer on one pattern: its candidates, and whether their largest is the
    pattern's supremum (``exact``: exponential noise, or two Laplace gaps settled by the
    plane's polygons) or a lower bound (Laplace rays; ``undecided``: the polygons the plane
    route left open, when it ran)."""

    found: tuple[Any, ...]
    exact: bool
    undecided: tuple[Undecided, ...] = ()


@dataclass(frozen=True)
class Open:
    """Why a pattern stays a bracket, and its undecided polygons of two gaps (when the
    plane route ran: the bracket clears once they are shown below the loss found,
    :func:`~exactdp.programs.release_chain_plane.below_level`)."""

    why: str
    faces: tuple[Undecided, ...] = ()


@dataclass(frozen=True)
class GapChain:
    """A run releasing the gaps of a chain of noisy values (module docstring).

    Attributes
    ----------
    law : str
        ``"exponential"`` or ``"laplace"``.
    scale : Fraction
        ``b``, the noises' common scale.
    chain : tuple of Fraction
        ``d_j = a_j - a_k`` for ``j = 1 .. k-1`` (chain order, largest first).
    losers : tuple of Fraction
        ``e_i = a_i - a_k`` of the other values.
    """

    law: str
    scale: Fraction
    chain: tuple[Fraction, ...]
    losers: tuple[Fraction, ...]


def gap_chain(run: Run) -> GapChain | None:
    """The :class:`GapChain` of ``run``, or None when the run is not of that shape: every
    released value ``z_(c_j) - z_(c_(j+1)) + const`` along one chain of distinct noises,
    every comparison a released gap ``>= 0`` (or ``> 0``; each gap has one) or the last
    chain value against one other noise, each other noise compared once, one law and
    scale, no coin.

    Examples
    --------
    >>> from exactdp.programs import library_release as L
    >>> d = L.noisy_top_k_gap_exponential(epsilon=1, k=3).distribution([0, 1, 2, 3])
    >>> c = gap_chain(d.runs[d.keys[0]][0])  # the pattern (0, 1, 2): d_j = a_j - a_2
    >>> c.law, c.scale, [str(x) for x in c.chain], [str(x) for x in c.losers]
    ('exponential', Fraction(6, 1), ['-2', '-1'], ['1'])
    """
    if run.weight != 1 or not run.released or not run.draws:
        return None
    laws = {(d.law, d.scale) for d in run.draws}
    if len(laws) != 1 or run.draws[0].law not in ("exponential", "laplace") or not (
            run.draws[0].scale.is_Rational):
        return None
    order: list[int] = []
    gaps: list[Fraction] = []
    for lin in run.released:
        coef, const = affine(lin)
        ups = [i for i, c in coef.items() if c == 1]
        downs = [i for i, c in coef.items() if c == -1]
        if len(coef) != 2 or len(ups) != 1 or len(downs) != 1 or (order and order[-1] != ups[0]):
            return None
        order += ups if not order else []
        order.append(downs[0])
        gaps.append(const)
    if len(set(order)) != len(order):
        return None
    released = {tuple(sorted(affine(lin)[0].items())) + (affine(lin)[1],) for lin in run.released}
    last, losers, ordered = order[-1], {}, set()
    for c in run.constraints:
        coef, const = affine(c.expr)
        if c.relation not in (">=", ">"):
            return None
        if tuple(sorted(coef.items())) + (const,) in released:
            ordered.add(tuple(sorted(coef.items())) + (const,))
            continue
        other = [i for i in coef if i != last]
        if len(coef) != 2 or coef.get(last) != 1 or len(other) != 1 or coef[other[0]] != -1 \
                or other[0] in order or other[0] in losers:
            return None
        losers[other[0]] = -const  # a_k - a_i = const
    if len(order) + len(losers) != len(run.draws) or ordered != released:
        return None  # every gap held >= 0 by a comparison: the density lives on the cone
    chain = tuple(sum(gaps[j:], Fraction(0)) for j in range(len(gaps)))
    scale = run.draws[0].scale
    return GapChain(run.draws[0].law, Fraction(int(scale.p), int(scale.q)), chain,
                    tuple(losers[i] for i in sorted(losers)))


def _least(d: Sequence[Any], s: Any) -> list[Any]:
    """``G*(s)``: the componentwise least gaps' partial sums with ``s(G) <= s``."""
    out, top = [], Fraction(0)
    for dl in reversed(d):
        top = max(top, dl - s)
        out.append(top)
    return out[::-1]


def _s(d: Sequence[Any], G: Sequence[Any]) -> Any:
    return max([Fraction(0), *(dj - gj for dj, gj in zip(d, G, strict=True))])


def _k_terms(c: GapChain, alpha: Fraction, beta: Fraction, below: bool) -> Terms:
    """``K(alpha + beta v)`` as :data:`Terms` (``lam = 1/b``); ``below``: the piece where
    ``alpha + beta v <= E`` (``K`` constant there). The ``2**n`` subsets ``S`` of the
    losers are summed by their size and sum of ``e_i`` (:func:`_subset_sums`): equal
    pairs give equal terms."""
    k, b = len(c.chain) + 1, c.scale
    out: Terms = {}
    top = max(c.losers) if c.losers else None
    base = sum(c.chain, Fraction(0))
    for r, total, count in _subset_sums(c.losers):
        coef = (-1) ** r * count * b ** (1 - k) / (k + r)
        w = base + total
        if below and top is not None:
            key = (Fraction(0), w - (k + r) * top)
        else:
            key = (-(k + r) * beta, w - (k + r) * alpha)
        out = add(out, {key: (coef,)})
    return out


@lru_cache(maxsize=1024)
def _subset_sums(losers: tuple[Fraction, ...]) -> tuple[tuple[int, Fraction, int], ...]:
    """``(|S|, sum of e_i over S, how many subsets S)`` over the subsets ``S`` of
    ``losers``, by size then sum: a count per pair (dynamic programming over the losers,
    at most ``(n + 1) * (distinct sums)`` states instead of ``2**n`` subsets)."""
    counts: dict[tuple[int, Fraction], int] = {(0, Fraction(0)): 1}
    for e in losers:
        nxt = dict(counts)
        for (r, total), n in counts.items():
            key = (r + 1, total + e)
            nxt[key] = nxt.get(key, 0) + n
        counts = nxt
    return tuple((r, total, n) for (r, total), n in sorted(counts.items()))


def _attained(c: GapChain, o: GapChain, s: Any, s2: Any) -> bool:
    """Whether gaps all positive give ``K(s(G)) = K(s)`` and ``K'(s'(G)) = K'(s2)``:
    ``s(G)`` in ``[L, U]`` (``U = max(s, E)``, ``L = s`` above ``E``, else none) and likewise
    for ``s'``; the least chain above the lower bounds satisfies every such condition that
    any chain does (each is a lower bound on all ``G_j``, or an upper bound on one)."""
    def window(x: Any, losers: tuple[Fraction, ...]) -> tuple[Any, Any]:
        top = max(losers) if losers else None
        if top is not None and x <= top:
            return None, top
        return x, x

    (la, ua), (lb, ub) = window(s, c.losers), window(s2, o.losers)
    low = [max(dj - ua, ej - ub) for dj, ej in zip(c.chain, o.chain, strict=True)]
    mu, closed, prev = [], [], Fraction(0)
    for lj in reversed(low):  # G_(k-1) > 0, G_j > G_(j+1)
        shut = lj > prev
        prev = lj if shut else prev
        mu.append(prev)
        closed.append(shut)
    mu, closed = mu[::-1], closed[::-1]

    def reach(d: tuple[Fraction, ...], lo: Any) -> bool:
        if lo is None or lo <= 0:
            return True
        return any(m < dj - lo or (shut and m <= dj - lo)
                   for m, shut, dj in zip(mu, closed, d, strict=True))

    return reach(c.chain, la) and reach(o.chain, lb)


def _interior(c: GapChain, o: GapChain, s: Fraction, s2: Fraction) -> list[Fraction] | None:
    """Partial sums ``G`` with every gap positive giving the two values of :func:`_attained`
    (the least chain above the lower bounds, each coordinate raised by a small step where it
    must exceed the next), or None when none of the steps tried gives them."""
    def inside(x: Fraction, lo: Fraction | None, hi: Fraction) -> bool:
        return x <= hi and (lo is None or x >= lo)

    def window(x: Fraction, losers: tuple[Fraction, ...]) -> tuple[Fraction | None, Fraction]:
        top = max(losers) if losers else None
        return (None, top) if top is not None and x <= top else (x, x)

    (la, ua), (lb, ub) = window(s, c.losers), window(s2, o.losers)
    low = [max(dj - ua, ej - ub) for dj, ej in zip(c.chain, o.chain, strict=True)]
    for m in range(1, 60):
        G, prev = [], Fraction(0)
        for lj in reversed(low):
            prev = max(lj, prev + Fraction(1, 2**m))
            G.append(prev)
        G = G[::-1]
        if inside(_s(c.chain, G), la, ua) and inside(_s(o.chain, G), lb, ub):
            return G
    return None


def _attained_on(c: GapChain, o: GapChain, x: Fraction, y: Fraction, side: Callable) -> bool:
    """:func:`_attained` over the whole interval ``[x, y]`` of the path parameter: decided
    at a test point with the comparisons' roots recorded (:mod:`~exactdp.programs.
    release_cells`); a root inside ``[x, y]`` leaves it undecided (ValueError)."""
    for k in range(1, 20):
        v0 = x + (y - x) * Fraction(k, 2 * k + 1) if y > x else x
        try:
            with cell_at(v0) as ctx:
                v = VPoly((Fraction(0), Fraction(1))) if y > x else x
                ok = _attained(*side(v))
            break
        except OnBoundary:
            continue
    else:  # pragma: no cover - 19 test points each on a root
        raise ValueError("a critical point's attainment was not decided")
    if any(x <= r <= y for r in ctx.roots) and y > x:
        raise ValueError("a critical point's attainment was not decided")
    return ok


def _gaps_text(G: Sequence[Fraction]) -> str:
    return ", ".join(str(a - b) for a, b in zip(G, [*G[1:], Fraction(0)], strict=True))


def _pieces(c: GapChain, o: GapChain) -> list[tuple[Fraction, Fraction]]:
    """The path parameter's range ``[0, M]`` cut where ``G*``, ``s'(G*)`` or the forms of
    ``K``, ``K'`` change (every root of a comparison of the affine pieces)."""
    top = max([Fraction(0), *c.chain])
    cuts = {Fraction(0), top, *c.chain}
    cuts |= {max(c.losers)} if c.losers else set()
    cons = [Fraction(0), *o.chain] + ([max(o.losers)] if o.losers else [])
    for dl in c.chain:
        for e in cons:
            for e2 in [Fraction(0), *o.chain]:
                cuts.add(dl - e2 + e)
                cuts.add(dl - e2)
    pts = sorted(x for x in cuts if 0 <= x <= top)
    return list(zip(pts, pts[1:], strict=False)) if len(pts) > 1 else [(pts[0], pts[0])]


def exponential_candidates(c: GapChain, o: GapChain, label: str, func: str, flip: bool,
                           tools: Any) -> list[Any]:
    """The candidates for ``sup ln f/f'`` along the path of the first input (``flip``: of
    the second, for ``sup ln f'/f``; ``c`` is then the second input's chain), exact."""
    lam = 1 / c.scale
    out: list[Any] = []
    for x, y in _pieces(c, o):
        mid = (x + y) / 2
        s2 = [_s(o.chain, _least(c.chain, p)) for p in (x, mid, y)]
        beta = (s2[2] - s2[0]) / (y - x) if y > x else Fraction(0)
        alpha = s2[0] - beta * x
        if s2[1] != alpha + beta * mid:  # pragma: no cover - a kink missed by _pieces
            raise ValueError(f"{func}: the gaps' path has a kink inside a piece")
        f = _k_terms(c, Fraction(0), Fraction(1), bool(c.losers) and mid <= max(c.losers))
        g = _k_terms(o, alpha, beta, bool(o.losers) and alpha + beta * mid <= max(o.losers))
        f, g = (g, f) if flip else (f, g)

        def side(v: Any, alpha: Fraction = alpha, beta: Fraction = beta
                 ) -> tuple[GapChain, GapChain, Any, Any]:
            return (o, c, alpha + beta * v, v) if flip else (c, o, v, alpha + beta * v)

        for end in ((x, y) if y > x else (x,)):
            G = _least(c.chain, end)
            ok = _attained_on(c, o, end, end, side)
            G = (_interior(*side(end)) or G) if ok else G  # an output attaining it
            text = f"{label} {'with' if ok else 'as'} the gaps {'' if ok else '-> '}" \
                   f"({_gaps_text(G)})"
            pair = tools.cell(f, g, lam, end, end, label, func, "none")
            out += [replace(p, attained=ok, witness=text, at=None) for p in pair[:1]]
        if y == x or not f or not g:
            continue
        d = tools.dratio(f, g, lam)
        if not d:  # a constant ratio: its value is the ends'
            continue
        for a, b in zeros(d, lam, x, y, func, MAX_STEPS):
            val = refine(f, g, d, lam, a, b)[0] if a != b else None
            ok = _attained_on(c, o, a, b, side)
            G = _least(c.chain, a)
            text = f"{label} {'with' if ok else 'as'} the gaps near ({_gaps_text(G)}) (a " \
                   "critical point of the log density ratio)"
            if val is None:
                out += [replace(p, attained=ok, witness=text, at=None)
                        for p in tools.cell(f, g, lam, a, a, label, func, "none")[:1]]
            else:
                out.append(tools.candidate(None, val, 0, ok, text))
    return out


def ray_values(k: int) -> list[tuple[Fraction, ...]]:
    """The directions of :data:`RAYS` for ``k - 1`` gaps (distinct, in order)."""
    n = k - 1
    out = [tuple([Fraction(1)] * n)]
    for j in range(n):
        for hi in (Fraction(2), Fraction(1, 2)):
            out.append(tuple(hi if i == j else Fraction(1) for i in range(n)))
    return list(dict.fromkeys(out))


def _ray(runs_p: Sequence[Run], runs_q: Sequence[Run], direction: tuple[Fraction, ...],
         label: str, func: str, tools: Tools) -> list[Any]:
    """The candidates of the log ratio along the gaps ``v * direction``, ``v > 0``: the
    cells' ends and constant cells (no critical point) and the limit as ``v -> +oo``."""
    holder: dict[str, Any] = {}

    def compute(v: VPoly) -> tuple[dict, dict]:
        vals = tuple(v * x for x in direction)
        holder["unit"], f = tools.density(list(runs_p), vals, func)
        return f, tools.density(list(runs_q), vals, func)[1]

    text = "(" + ", ".join(f"{x} v" for x in direction) + ")"
    out = []
    try:
        for cell in cells(compute, func):
            lam = tools.lam(holder["unit"], func)
            f, g = (tools.terms(r, lam) for r in cell.result)
            for c in tools.cell(f, g, lam, cell.lo, cell.hi, label, func, "none"):
                finite = c.at is not None and c.at > 0  # inside the cone: attained
                where = c.witness[len(label):].replace("the value", "v")
                out.append(replace(c, attained=c.attained or finite,
                                   witness=f"{label} with the gaps {text}{where}"))
    finally:  # entries of polynomial values (a constant VPoly hashes as its Fraction)
        clear_caches()  # would be read back for the search's rational gaps
    return out


def chain_candidates(runs_p: Sequence[Run], runs_q: Sequence[Run], label: str, func: str,
                     tools: Tools) -> ChainResult | None:
    """The route of this module on one pattern (``runs_p``, ``runs_q``: its runs on the
    two inputs), or None when its runs are not one :class:`GapChain` each: exponential
    noise, the exact supremum (both paths); Laplace noise with two or more gaps, the rays
    of :func:`ray_values` until a candidate reaches the pattern's translation bound, then
    for two gaps the plane's polygons (:mod:`~exactdp.programs.release_chain_plane`)."""
    if len(runs_p) != 1 or len(runs_q) != 1:
        return None
    c, o = gap_chain(runs_p[0]), gap_chain(runs_q[0])
    if c is None or o is None or (c.law, c.scale) != (o.law, o.scale) or len(c.chain) != len(
            o.chain) or len(c.losers) != len(o.losers):
        return None
    if c.law == "exponential":
        found = exponential_candidates(c, o, label, func, False, tools)
        found += exponential_candidates(o, c, label, func, True, tools)
        return ChainResult(tuple(found), True)
    if len(c.chain) < 2:
        return None
    out: list[Any] = []
    for direction in ray_values(len(c.chain) + 1):
        out += _ray(runs_p, runs_q, direction, label, func, tools)
        if any(map(tools.enough, out)):
            return ChainResult(tuple(out), False)
    plane = plane_chain(runs_p, runs_q, label, func, tools, tools.budget)
    if plane is None:  # three or more gaps, or past the plane's limits or budget
        return ChainResult(tuple(out), False)
    return ChainResult(tuple(out) + tuple(plane[0]), not plane[1], tuple(plane[1]))


def exponential_chain(runs_p: Sequence[Run], runs_q: Sequence[Run]) -> bool:
    """Whether a pattern's runs are one :class:`GapChain` of exponential noise on each input
    (its supremum is then :func:`exponential_candidates`', exact, one gap or several)."""
    if len(runs_p) != 1 or len(runs_q) != 1:
        return False
    c, o = gap_chain(runs_p[0]), gap_chain(runs_q[0])
    return c is not None and o is not None and c.law == o.law == "exponential"


def several_values(runs_p: Sequence[Run], runs_q: Sequence[Run], label: str, func: str,
                   tools: Tools, search: Callable[[], list[Any]]) -> tuple[list[Any], Open | None]:
    """The candidates of a pattern releasing several values, and None when their largest
    is its supremum, else why not (:class:`Open`): this module's route
    (:func:`chain_candidates`), exact, or settled when a
    candidate reaches the translation bound; values coupled only through their least
    (:func:`~exactdp.programs.release_min.min_candidates`), exact; else the caller's
    ``search`` (lower bounds: the pattern stays a certified bracket unless one reaches the
    bound).

    Raises
    ------
    ValueError
        Neither a chain route settling it nor a translation bound: not in this version.
    """
    chain = chain_candidates(runs_p, runs_q, label, func, tools)
    why = ""
    if chain is None:
        try:
            lined = min_candidates(runs_p, runs_q, label, func, tools)
        except ValueError:  # a critical point not isolated: the search and its bracket
            lined = None
        chain = None if lined is None else ChainResult(tuple(lined), True)
    if chain is None:  # two released values of Laplace noises: the plane's faces
        try:
            two = two_candidates(runs_p, runs_q, label, func, tools)
        except TooCostly:  # past the plane's limits: the search and its bracket, as before
            two = None
        chain = None if two is None else ChainResult(tuple(two[0]), two[1])
        why = "" if two is None else two[2]
    found = list(chain.found) if chain is not None else []
    if chain is not None and (chain.exact or any(map(tools.enough, found))):
        return found, None
    if not tools.bounded:
        raise ValueError(f"{func}: {label} releases {len(runs_p[0].released)} values whose "
                         "densities do not factorise and no translation of the noises "
                         "bounds their ratio; not in this version")
    if chain is not None and chain.undecided:  # the plane's edges: no search inside
        return found, Open(undecided_text(chain.undecided), chain.undecided)
    found += search()
    if any(map(tools.enough, found)):
        return found, None
    return found, Open("a search over its released values" + (f"; {why}" if why else ""))

