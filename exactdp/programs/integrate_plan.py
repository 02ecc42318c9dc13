"""Check a :class:`~exactdp.programs.runs.Run` against the exact class and cut it into stars.

The exact class (issue 33, "Exact semantics"): the graph whose vertices are the draws and
whose edges are the comparisons between two draws has a *star* for every connected
component: one centre, every other draw (a *leaf*) compared with the centre only, possibly
several times, and possibly with a constant (a comparison of one draw alone). Given the
centre's value ``z`` the leaves are independent and each leaf's comparisons confine it to
an interval whose ends are affine in ``z``: :class:`Bound`. A component of Laplace and
exponential draws may also be any *tree* (a forest of pairwise comparisons, as the chain
``v_w1 >= v_w2 >= ... >= the rest`` of ``topk``): a :class:`Tree`, integrated leaf first
(:mod:`exactdp.programs.integrate_tree`). A comparison of three or more draws, a cycle of
comparisons, or a tree that is not a star of discrete or Gumbel draws, is refused here
with a one-line ``ValueError`` naming the comparison's line, before any integral.

Relations (:data:`~exactdp.programs.runs.RELATIONS`): with continuous noise (Laplace,
exponential, Gumbel) ``expr == 0`` holds with probability 0 and ``expr != 0`` with
probability 1, and ``>`` and ``>=`` give the same probability. With discrete Laplace
noise the values are integers: a bound ``z > 5/2`` is ``z >= 3``, ``z >= 5/2`` is also
``z >= 3``, ``z > 2`` is ``z >= 3`` and ``z >= 2`` is ``z >= 2`` (so strict and non-strict
differ exactly when the bound is an integer); ``==`` is a lower and an upper bound; ``!=``
is expanded by inclusion-exclusion, ``P(A and e != 0) = P(A) - P(A and e == 0)``
(:attr:`Plan.alternatives`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import sympy

from .runs import LAWS, RELATIONS, Constraint, Draw, Run

#: Laws integrated by the piecewise-exponential engine.
CONTINUOUS = ("laplace", "exponential")
#: Most ``!=`` comparisons of discrete noise in one run (each doubles the work).
MAX_DISCRETE_NE = 16


@dataclass(frozen=True)
class Bound:
    """One end of a draw's interval: ``draw > slope * z + offset`` (``lower``) or ``draw <
    slope * z + offset`` (not ``lower``), ``>=`` / ``<=`` when not ``strict``; ``z`` the
    centre's value (``slope == 0``: a constant bound).

    Attributes
    ----------
    slope, offset : Fraction
    lower, strict : bool
    line : str
        The comparison's ``file:line``.
    """

    slope: Fraction
    offset: Fraction
    lower: bool
    strict: bool
    line: str

    def at(self, z: Fraction | int) -> Fraction:
        """The bound's value at centre value ``z``."""
        return self.slope * z + self.offset


@dataclass(frozen=True)
class Star:
    """One connected component: a centre and its leaves.

    Attributes
    ----------
    kind : str
        ``"continuous"`` (Laplace and exponential draws), ``"discrete"`` or ``"gumbel"``.
    centre : int
        The centre's draw index.
    centre_bounds : tuple of Bound
        The centre's own bounds (slope 0).
    leaves : tuple of (int, tuple of Bound)
        Each leaf's draw index and bounds (affine in the centre's value).
    """

    kind: str
    centre: int
    centre_bounds: tuple[Bound, ...]
    leaves: tuple[tuple[int, tuple[Bound, ...]], ...]


@dataclass(frozen=True)
class Tree:
    """A component whose comparisons form a tree that is not a star (a chain, as ``topk``
    makes): integrated leaf first (:mod:`exactdp.programs.integrate_tree`).

    Attributes
    ----------
    kind : str
        ``"tree"`` (Laplace and exponential draws only).
    nodes : tuple of (int, int or None, tuple of Bound)
        Each draw, its parent (None: the root) and the bounds that the comparisons with
        the parent and with constants put on it (affine in the parent's value), children
        before their parent, the root last.
    """

    kind: str
    nodes: tuple[tuple[int, int | None, tuple[Bound, ...]], ...]

    def children(self, v: int) -> list[int]:
        """The draws whose parent is ``v``."""
        return [c for c, p, _ in self.nodes if p == v]


@dataclass(frozen=True)
class Plan:
    """How to integrate one run: a signed sum of products of stars.

    Attributes
    ----------
    draws : tuple of Draw
    alternatives : tuple of (int, tuple of Star or Tree)
        ``(sign, stars)``: the run's probability (before its weight) is ``sum sign *
        prod P(star)`` (a :class:`Tree` for a component that is a tree but not a star);
        one alternative unless the run has ``!=`` comparisons of discrete
        noise. Empty: the run has probability 0 (a comparison that never holds).
    """

    draws: tuple[Draw, ...]
    alternatives: tuple[tuple[int, tuple[Star | Tree, ...]], ...]


def _fraction(x: object, what: str, line: str) -> Fraction:
    if isinstance(x, sympy.Rational):  # the contract's numbers: no sympify
        return Fraction(int(x.p), int(x.q))
    r = sympy.sympify(x)
    if not r.is_Rational:
        raise ValueError(f"{line}: {what} {r} is not an exact rational number")
    return Fraction(int(r.p), int(r.q))


def _kind(law: str) -> str:
    return "continuous" if law in CONTINUOUS else "discrete" if law == "discrete_laplace" else law


def _holds(value: Fraction, relation: str) -> bool:
    return {">": value > 0, ">=": value >= 0, "==": value == 0, "!=": value != 0}[relation]


@lru_cache(maxsize=1024)
def _positive(b: sympy.Expr) -> bool:
    return b.is_positive is True and b.is_finite is not False


def check_draws(run: Run) -> None:
    """Refuse a malformed draw: wrong index, unknown law, scale not provably positive."""
    for i, d in enumerate(run.draws):
        if d.index != i:
            raise ValueError(f"{d.line}: draw {i} has index {d.index} (out of order)")
        if d.law not in LAWS:
            raise ValueError(f"{d.line}: unknown noise law {d.law!r}; one of {', '.join(LAWS)}")
        if not _positive(sympy.sympify(d.scale)):
            raise ValueError(f"{d.line}: the scale {d.scale} of a {d.law} noise is not provably "
                             "positive and finite")


def _coefficients(c: Constraint, n: int) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for i, a in c.expr.coefficients:
        if not 0 <= i < n:
            raise ValueError(f"{c.line}: a comparison uses draw {i}, but the run has {n} draws")
        f = _fraction(a, "the coefficient", c.line)
        if f:
            out[i] = out.get(i, Fraction(0)) + f
    return {i: a for i, a in out.items() if a}


def _bounds(coef: dict[int, Fraction], constant: Fraction, relation: str, draw: int,
            centre: int | None, line: str) -> list[Bound]:
    """The bounds that ``sum coef * z + constant  relation  0`` puts on ``draw``."""
    a = coef[draw]
    slope = -coef[centre] / a if centre is not None else Fraction(0)
    offset = -constant / a
    if relation == "==":
        return [Bound(slope, offset, True, False, line), Bound(slope, offset, False, False, line)]
    return [Bound(slope, offset, a > 0, relation == ">", line)]


def _tree(kind: str, comp: set[int], edges: dict[frozenset[int], str],
          cons: list[tuple[dict, Fraction, str, str]], draws: tuple[Draw, ...]) -> Tree:
    """The component ``comp`` (connected, not a star) as a :class:`Tree` rooted at its
    draw of highest degree; refused in one line when its comparisons close a cycle or its
    noise is not Laplace or exponential."""
    parent = {v: v for v in comp}

    def root(v: int) -> int:
        while parent[v] != v:
            v = parent[v]
        return v

    for e, line in edges.items():  # the first comparison that closes a cycle
        a, b = sorted(e)
        if root(a) == root(b):
            raise ValueError(
                f"{line}: this comparison closes a cycle of comparisons between the noises "
                f"drawn at {', '.join(sorted({draws[v].line for v in comp}))}: the exact "
                "class is a forest of pairwise comparisons (a tree per component)")
        parent[root(a)] = root(b)
    if kind != "continuous":
        line = next(iter(edges.values()))
        raise ValueError(f"{line}: the comparisons of these {kind} noises form a tree that is "
                         "not a star; trees are integrated for Laplace and exponential "
                         "noise only")
    adj: dict[int, list[int]] = {v: [] for v in comp}
    for e in edges:
        a, b = sorted(e)
        adj[a].append(b)
        adj[b].append(a)
    top = max(sorted(comp), key=lambda v: len(adj[v]))
    order = [top]
    up: dict[int, int | None] = {top: None}
    for v in order:  # breadth first: parents before children
        for c in sorted(adj[v]):
            if c not in up:
                up[c] = v
                order.append(c)
    bounds: dict[int, list[Bound]] = {v: [] for v in comp}
    for coef, k, rel, line in cons:
        if len(coef) == 1:
            (v,) = coef
            bounds[v] += _bounds(coef, k, rel, v, None, line)
            continue
        a, b = coef
        child = a if up[a] == b else b
        bounds[child] += _bounds(coef, k, rel, child, up[child], line)
    return Tree("tree", tuple((v, up[v], tuple(bounds[v])) for v in reversed(order)))


def _star(kind: str, centre: int, comp: set[int], cons: list[tuple[dict, Fraction, str, str]],
          draws: tuple[Draw, ...]) -> Star:
    centre_bounds: list[Bound] = []
    leaf_bounds: dict[int, list[Bound]] = {v: [] for v in sorted(comp - {centre})}
    for coef, k, rel, line in cons:
        others = [v for v in coef if v != centre]
        if not others:
            centre_bounds += _bounds(coef, k, rel, centre, None, line)
            continue
        (leaf,) = others
        bs = _bounds(coef, k, rel, leaf, centre if centre in coef else None, line)
        if kind == "discrete" and any(b.slope.denominator != 1 for b in bs):
            raise ValueError(f"{line}: a comparison of discrete noises with a non-integer "
                             f"ratio of coefficients ({coef[leaf]} and {coef[centre]}): the "
                             "integer grid is not preserved, outside the exact class")
        if kind == "gumbel":
            if centre not in coef or coef[centre] != -coef[leaf]:
                raise ValueError(f"{line}: a Gumbel noise may only be compared as in argmax "
                                 "(g_winner - g_other + constant > 0); this comparison is "
                                 "outside the exact class")
        leaf_bounds[leaf] += bs
    if kind == "gumbel" and centre_bounds:
        raise ValueError(f"{centre_bounds[0].line}: a Gumbel noise compared with a constant "
                         "is outside the exact class (Gumbel noise is for argmax only)")
    return Star(kind, centre, tuple(centre_bounds),
                tuple((v, tuple(bs)) for v, bs in leaf_bounds.items()))


def _component_star(comp: set[int], cons: list[tuple[dict, Fraction, str, str]],
                    draws: tuple[Draw, ...]) -> Star | Tree:
    kinds = {_kind(draws[v].law) for v in comp}
    if len(kinds) > 1:
        line = cons[0][3]
        raise ValueError(f"{line}: this comparison mixes noise laws "
                         f"({', '.join(sorted({draws[v].law for v in comp}))}) that the exact "
                         "class does not integrate together (discrete with continuous, or "
                         "Gumbel with another law)")
    (kind,) = kinds
    if kind == "gumbel" and len({sympy.sympify(draws[v].scale) for v in comp}) > 1:
        raise ValueError(f"{cons[0][3]}: Gumbel noises of different scales compared: outside "
                         "the exact class (argmax needs one scale)")
    edges: dict[frozenset[int], str] = {}
    for coef, _, _, line in cons:
        if len(coef) == 2:
            edges.setdefault(frozenset(coef), line)
    if len(comp) <= 2:
        candidates = sorted(comp)
        if kind == "gumbel" and len(comp) == 2:  # the argmax winner: positive coefficient
            coef = next(c for c, _, _, _ in cons if len(c) == 2)
            candidates.sort(key=lambda v: coef[v] < 0)
        first: ValueError | None = None
        for v in candidates:
            try:
                return _star(kind, v, comp, cons, draws)
            except ValueError as err:
                first = first or err
        assert first is not None
        raise first
    deg = dict.fromkeys(comp, 0)
    for e in edges:
        for v in e:
            deg[v] += 1
    centres = [v for v in comp if deg[v] == len(comp) - 1]
    if len(centres) != 1 or any(deg[v] != 1 for v in comp if v != centres[0]):
        return _tree(kind, comp, edges, cons, draws)
    return _star(kind, centres[0], comp, cons, draws)


def plan(run: Run) -> Plan:
    """Check ``run`` against the exact class and decompose it (no integral is done).

    Raises
    ------
    ValueError
        One line naming the comparison's (or draw's) ``file:line`` and why: a malformed
        draw or comparison, a comparison of three or more noises, a component that is not
        a star, laws that are not integrated together, a Gumbel noise outside argmax, a
        discrete comparison with a non-integer coefficient ratio.
    """
    check_draws(run)
    draws = run.draws
    n = len(draws)
    zero = False
    kept: list[tuple[dict, Fraction, str, str]] = []
    for c in run.constraints:
        if c.relation not in RELATIONS:
            raise ValueError(f"{c.line}: unknown relation {c.relation!r}; one of "
                             f"{', '.join(RELATIONS)}")
        coef = _coefficients(c, n)
        k = _fraction(c.expr.constant, "the constant", c.line)
        if not coef:
            zero = zero or not _holds(k, c.relation)
            continue
        if len(coef) >= 3:
            where = ", ".join(draws[i].line for i in sorted(coef))
            raise ValueError(f"{c.line}: this comparison involves {len(coef)} noises (drawn "
                             f"at {where}); the exact class compares at most two at a time")
        if any(_kind(draws[i].law) != "discrete" for i in coef) and c.relation in ("==", "!="):
            zero = zero or c.relation == "=="  # continuous: P(==) = 0, P(!=) = 1
            continue
        kept.append((coef, k, c.relation, c.line))
    ne = [con for con in kept if con[2] == "!="]
    if len(ne) > MAX_DISCRETE_NE:
        raise ValueError(f"{ne[0][3]}: {len(ne)} '!=' comparisons of discrete noise in one "
                         f"run (limit {MAX_DISCRETE_NE}: each doubles the work)")
    eq = {id(c): (c[0], c[1], "==", c[3]) for c in ne}
    # the full graph (every '!=' as '=='): its components are stars, so are its subgraphs'
    full = _stars([eq.get(id(c), c) for c in kept], draws)
    if zero:
        return Plan(draws, ())
    if not ne:
        return Plan(draws, ((1, full),))
    base = [c for c in kept if c[2] != "!="]
    alternatives = []
    for chosen in itertools.product((False, True), repeat=len(ne)):
        picked = [eq[id(c)] for c, pick in zip(ne, chosen, strict=True) if pick]
        alternatives.append(((-1) ** len(picked), _stars(base + picked, draws)))
    return Plan(draws, tuple(alternatives))


def _stars(cons: list[tuple[dict, Fraction, str, str]], draws: tuple[Draw, ...]
           ) -> tuple[Star | Tree, ...]:
    """The stars of the components of the graph of ``cons`` (draws without comparisons
    are left out: their factor is 1)."""
    parent = list(range(len(draws)))

    def root(v: int) -> int:
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    for coef, _, _, _ in cons:
        vs = list(coef)
        if len(vs) == 2:
            parent[root(vs[0])] = root(vs[1])
    groups: dict[int, list[tuple[dict, Fraction, str, str]]] = {}
    for con in cons:
        groups.setdefault(root(next(iter(con[0]))), []).append(con)
    members: dict[int, set[int]] = {}
    for v in range(len(draws)):
        members.setdefault(root(v), set()).add(v)
    return tuple(_component_star(members[r], cs, draws) for r, cs in groups.items())
