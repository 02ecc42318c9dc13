"""A release program made of two independent parts: its loss is the sum of theirs.

A program whose returned tuple splits into two groups of components, each computed from its
own noises (SVT34Parallel: Lyu-Su-Li's Algorithms 3 and 4 side by side), has the law of a
product: the output ``(x, y)`` has density ``f_A(x) f_B(y)``, so its log density ratio on
two inputs is ``L_A(x) + L_B(y)``, the parts' own ratios, over independent coordinates. Its
loss is then ``sup |L_A(x) + L_B(y)| = max(sup L_A + sup L_B, sup (-L_A) + sup (-L_B))``,
each directional supremum a part's own (a one-pattern-at-a-time problem on far fewer runs
than the product's), the witness the pair of the parts' witnesses, attained iff both are
(the supremum of a sum of functions of separate variables is the sum of their suprema;
Rudin, Principles of Mathematical Analysis, 3rd ed., ch. 1, exercise 7's argument for sums
of sets).

The split is read from the runs (:func:`factor`), never from the program's name:

- the noises are grouped by the program line that drew them, two lines joined when a
  comparison or a released value of some run reads noises of both: exactly two groups;
- the output is a tuple whose components fall to one group each: a component releasing a
  value goes to the group of its noises, those releasing none to the group that releases
  nothing (there must be one such group when some component releases nothing);
- every run is the pair of its two halves (noises, comparisons and released values of one
  group, renumbered in draw order; the components of that group), no comparison reading
  both groups, no coin (``bernoulli``) taken, and the runs are exactly the product of the
  two sets of halves, each pair once.

Then each set of halves partitions its group's noise space and the output's law is the
product of the halves' laws, exactly. Anything else is no split (None): the caller takes
the full route.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

import flint
import sympy

from ..distribution import LossSupremum
from ..exact import arb_to_interval, enclose, flint_prec, to_arb
from ..exact.signs import compare
from .integrate import run_probability
from .release_bound import FLOOR, BelowFloor, check_bounds, pattern_bound, runs_bound
from .release_cost import loss_seconds
from .release_patterns import real_count
from .release_select import Candidate, select, signed_ball
from .release_sup import prec
from .release_tidy import quick
from .runs import RELEASED_KEY, Constraint, Draw, Estimate, Linear, Run
from .trace import decode


@dataclass(frozen=True, eq=False)
class Part:
    """One independent part of a release distribution: its runs by pattern key, read by
    :func:`exactdp.programs.release_loss.loss_supremum` as a distribution (``keys``,
    ``outputs``, ``runs``, ``probabilities``, ``pmf``, ``loss_seconds``, ``mechanism``)."""

    mechanism: Any
    runs: dict[Hashable, list[Run]]
    components: tuple[int, ...]

    @cached_property
    def keys(self) -> tuple[Hashable, ...]:
        """The patterns' canonical keys, sorted."""
        return tuple(sorted(self.runs))  # type: ignore[type-var]

    @cached_property
    def outputs(self) -> tuple[Any, ...]:
        """The patterns, in :attr:`keys` order."""
        return tuple(decode(k) for k in self.keys)

    @cached_property
    def probabilities(self) -> tuple[sympy.Expr, ...]:
        """Exact probabilities of the patterns (sums of their runs')."""
        return tuple(sympy.Add(*(run_probability(r) for r in self.runs[k])) for k in self.keys)

    def pmf(self, pattern: object) -> sympy.Expr:
        """The exact probability of one pattern."""
        return self.probabilities[self.outputs.index(pattern)]

    def loss_seconds(self, func: str) -> float:
        """Estimated seconds of one loss against a neighbour (the runs' own estimates)."""
        return sum(loss_seconds(r) for runs in self.runs.values() for r in runs)

    def probability(self, key: Hashable) -> sympy.Expr:
        """The exact probability of the pattern ``key`` (the sum of its runs'), computed
        once."""
        done = self._done
        if key not in done:
            done[key] = sympy.Add(*(run_probability(r) for r in self.runs[key]))
        return done[key]

    @cached_property
    def _done(self) -> dict[Hashable, sympy.Expr]:
        return {}


def _lines(e: Linear, draws: tuple[Draw, ...]) -> set[str]:
    return {draws[i].line for i, _ in e.coefficients}


def _groups(runs: list[Run]) -> dict[str, str]:
    """The program lines drawing noises, each mapped to its group's representative line
    (union-find over the comparisons and released values of every run)."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    joined: set[frozenset[str]] = set()
    for run in runs:
        for d in run.draws:
            parent.setdefault(d.line, d.line)
        for e in (*(c.expr for c in run.constraints), *run.released):
            lines = frozenset(_lines(e, run.draws))
            if len(lines) > 1 and lines not in joined:  # (one line: nothing to join)
                joined.add(lines)
                first, *rest = sorted(lines)
                for x in rest:
                    parent[root(x)] = root(first)
    return {x: root(x) for x in parent}


def _tag(key: Hashable) -> int:
    return int(key[0])  # type: ignore[index]


@lru_cache(maxsize=4096)
def _reals(key: Hashable) -> int:
    """The number of released values in a canonical output key."""
    if key == RELEASED_KEY:
        return 1
    inner: tuple = key[1] if _tag(key) == 3 else ()  # type: ignore[index]
    return sum((_reals(k) for k in inner), 0)


def _sides(runs: list[Run], group: dict[str, str]) -> tuple[str, ...] | None:
    """The group of each output component, or None when the components do not split."""
    roots = sorted(set(group.values()))
    if len(roots) != 2 or any(r.weight != 1 or _tag(r.output) != 3 for r in runs):
        return None
    width = {len(r.output[1]) for r in runs}  # type: ignore[index]
    if len(width) != 1:
        return None
    side: list[set[str]] = [set() for _ in range(width.pop())]
    for run in runs:
        at = 0
        for i, k in enumerate(run.output[1]):  # type: ignore[index]
            n = _reals(k)
            for e in run.released[at:at + n]:
                side[i] |= {group[x] for x in _lines(e, run.draws)}
            at += n
    if any(len(s) > 1 for s in side):
        return None
    silent = [r for r in roots if not any(r in s for s in side)]
    if len(silent) != 1 and not all(side):
        return None
    out = tuple(s.pop() if s else silent[0] for s in side)
    return out if len(set(out)) == 2 else None


def _renumbered(e: Linear, index: dict[int, int]) -> Linear:
    return Linear(e.constant, tuple((index[i], c) for i, c in e.coefficients))


Half = tuple[tuple[Draw, ...], tuple[Constraint, ...], tuple[Linear, ...], Hashable]
#: Each run's noises split by group and renumbered (:func:`_split_draws`), by the ``id`` of
#: its tuple of draws (kept with it: the structural cache's runs share their tree's draws
#: on every vector), and each renumbered noise made once (at most 65,536, then cleared).
_DRAWS: dict[int, tuple[tuple[Draw, ...], tuple[int, ...], dict[int, int],
                        tuple[tuple[Draw, ...], tuple[Draw, ...]]]] = {}
_RENUMBERED: dict[tuple, Draw] = {}


def _split_draws(draws: tuple[Draw, ...], group: dict[str, str], order: tuple[str, str]
                 ) -> tuple[tuple[int, ...], dict[int, int], tuple[tuple[Draw, ...], ...]]:
    """Each noise's group (its position in ``order``), its index in its group, and the two
    groups' noises renumbered (one object per renumbered noise: equal halves are then
    found by the objects' ids)."""
    where = tuple(order.index(group[d.line]) for d in draws)
    hit = _DRAWS.get(id(draws))
    if hit is not None and hit[0] is draws and hit[1] == where:
        return hit[1:]
    if len(_DRAWS) > 65_536 or len(_RENUMBERED) > 65_536:
        _DRAWS.clear()
        _RENUMBERED.clear()
    halves: list[list[Draw]] = [[], []]
    index: dict[int, int] = {}
    for d, w in zip(draws, where, strict=True):
        index[d.index] = j = len(halves[w])
        key = (j, d.law, d.scale, d.line)
        if key not in _RENUMBERED:
            _RENUMBERED[key] = Draw(*key)
        halves[w].append(_RENUMBERED[key])
    _DRAWS[id(draws)] = (draws, where, index, (tuple(halves[0]), tuple(halves[1])))
    return _DRAWS[id(draws)][1:]


def _halves(run: Run, group: dict[str, str], sides: tuple[str, ...],
            order: tuple[str, str], made: dict[Hashable, Any]) -> tuple[Half, Half] | None:
    """The halves of ``run`` on the groups ``order``: each its noises renumbered, its
    comparisons, released values and output key; None when a comparison reads both
    groups or none. ``made``: the renumbered comparisons so far (the caller's runs,
    alive while it runs, share them)."""
    where, index, draws = _split_draws(run.draws, group, order)
    cons: list[list[Constraint]] = [[], []]
    for c in run.constraints:
        on = {where[i] for i, _ in c.expr.coefficients}
        if len(on) != 1:
            return None
        moved = (id(c), tuple(index[i] for i, _ in c.expr.coefficients))  # c is alive
        if moved not in made:  # (the runs share their comparisons: each renumbered once)
            made[moved] = Constraint(_renumbered(c.expr, index), c.relation, c.line)
        cons[on.pop()].append(made[moved])
    comps: list[list[Hashable]] = [[], []]
    released: list[list[Linear]] = [[], []]
    at = 0
    for k, s in zip(run.output[1], sides, strict=True):  # type: ignore[index]
        n, w = _reals(k), order.index(s)
        comps[w].append(k)
        released[w] += [_renumbered(e, index) for e in run.released[at:at + n]]
        at += n
    a, b = ((draws[w], tuple(cons[w]), tuple(released[w]),
             comps[w][0] if len(comps[w]) == 1 else (3, tuple(comps[w]))) for w in (0, 1))
    return a, b


#: :func:`factor` by mechanism and answers (at most 256): a suite row reads one vector often.
_FACTORS: dict[tuple, tuple[tuple[Part, Part], tuple[str, ...]] | None] = {}


def factor(dist: Any) -> tuple[tuple[Part, Part], tuple[str, ...]] | None:
    """The two independent parts of a release distribution (the module docstring's
    conditions, each checked exactly) and the group of each output component, or None.

    Parameters
    ----------
    dist : ProgramRelease
        The distribution (its runs by pattern key, its mechanism).

    Returns
    -------
    tuple or None
        ``((part A, part B), sides)``: part A holds the first output component.

    Examples
    --------
    >>> from exactdp.programs.library_release import svt34_parallel
    >>> (a, b), _ = factor(svt34_parallel(epsilon=1, c=1).distribution([0, 1]))
    >>> a.outputs[-1], b.outputs[0]
    ((REAL, None), (True, None))
    """
    memo = (dist.mechanism, tuple(dist.scores.exact))
    if memo not in _FACTORS:
        if len(_FACTORS) > 256:
            _FACTORS.clear()
        _FACTORS[memo] = _factor(dist)
    return _FACTORS[memo]


def _factor(dist: Any) -> tuple[tuple[Part, Part], tuple[str, ...]] | None:
    runs = [r for rs in dist.runs.values() for r in rs]
    group = _groups(runs)
    sides = _sides(runs, group)
    if sides is None:
        return None
    order = (sides[0], next(s for s in sides if s != sides[0]))
    halves: list[dict[tuple, tuple[int, Run]]] = [{}, {}]
    seen: list[dict[tuple, tuple]] = [{}, {}]  # the same by the objects' ids (kept alive)
    pairs = set()
    made: dict[Hashable, Any] = {}
    for run in runs:
        both = _halves(run, group, sides, order, made)
        if both is None:
            return None
        ids = []
        for h, fast, (draws, cons, released, key) in zip(halves, seen, both, strict=True):
            ident = (tuple(map(id, draws)), tuple(map(id, cons)), released)  # held in fast
            if ident not in fast:  # equal objects, equal events; else compared by value
                event = (draws, cons, released)
                if event not in h:
                    h[event] = (len(h), Run(draws, cons, sympy.Integer(1), key, released))
                fast[ident] = (*h[event], draws, cons)  # (no id reused while held)
            n, old = fast[ident][:2]
            if old.output != key:  # one event, two outputs: not a function of its half
                return None
            ids.append(n)
        pairs.add(tuple(ids))
    if len(pairs) != len(runs) or len(pairs) != len(halves[0]) * len(halves[1]):
        return None
    parts = []
    for w, h in zip(order, halves, strict=True):
        by_key: dict[Hashable, list[Run]] = {}
        for _, run in h.values():
            by_key.setdefault(run.output, []).append(run)
        parts.append(Part(dist.mechanism, by_key,
                          tuple(i for i, s in enumerate(sides) if s == w)))
    return (parts[0], parts[1]), sides


def split_pair(dist: Any, other: Any) -> list[tuple[Part, Part]] | None:
    """The parts of a pair of release distributions of one program, part by part (each
    ``(part on dist, part on other)``), where both split the same way (:func:`factor`),
    else None.

    Parameters
    ----------
    dist, other : ProgramRelease
        The two inputs' release distributions, of the same program.

    Returns
    -------
    list of tuple of (Part, Part) or None
        Two pairs ``(part on dist, part on other)``, the part holding the first output
        component first, or None where either does not split or the splits differ.

    Examples
    --------
    >>> from exactdp.programs.library_release import svt34_parallel
    >>> m = svt34_parallel(epsilon=1, c=1)
    >>> [p.components for p, _ in split_pair(m.distribution([0, 1]), m.distribution([1, 1]))]
    [(0,), (1,)]
    """
    fa, fb = factor(dist), factor(other)
    if fa is None or fb is None or fa[1] != fb[1]:
        return None
    return list(zip(fa[0], fb[0], strict=True))


#: A part's supremum in one direction: ``(part on q, part on q', sign)`` to the selected
#: result and its candidate, or None (infinite, bracketed, or refused: no split).
Directional = Callable[[Any, Any, int, sympy.Expr | None],
                      tuple[LossSupremum, Candidate | None] | None]


def _where(part: Part) -> str:
    many = len(part.components) > 1
    return f"component{'s' * many} {', '.join(map(str, part.components))}"


def _split_witness(part: Part, witness: str) -> tuple[Any, str] | None:
    """``(the part's pattern, the rest of the words)`` of a witness ``"the pattern P ..."``
    (the longest pattern of the part that begins it), or None."""
    found = [p for p in part.outputs if witness.startswith(f"the pattern {p!r}")]
    if not found:
        return None
    p = max(found, key=lambda x: len(repr(x)))
    return p, witness[len(f"the pattern {p!r}"):]


def _witness(parts: tuple[Part, Part], words: tuple[str, str]) -> str:
    """The output of the pair of the parts' witnesses: ``"the pattern (x, y) ..."`` with
    the rest of each part's words, as the full route words it; else each part named."""
    split = [_split_witness(p, w) for p, w in zip(parts, words, strict=True)]
    if split[0] is None or split[1] is None:
        return (f"{words[0]} in the output's {_where(parts[0])}, with {words[1]} in its "
                f"{_where(parts[1])}")
    whole: dict[int, Any] = {}
    for part, (pattern, _) in zip(parts, split, strict=True):  # type: ignore[misc]
        many = len(part.components) > 1
        whole.update({c: pattern[i] if many else pattern for i, c in enumerate(part.components)})
    return f"the pattern {tuple(whole[i] for i in sorted(whole))!r}{split[0][1]}{split[1][1]}"


def _joined(a: tuple[LossSupremum, Candidate | None], b: tuple[LossSupremum,
            Candidate | None], sign: int, parts: tuple[Part, Part]) -> Candidate | None:
    """The candidate of the pair of the parts' witnesses in one direction: the product of
    their density pairs (exact), else the sum of their signed enclosures."""
    (ra, ca), (rb, cb) = a, b
    if ca is None or cb is None:
        return None
    witness = _witness(parts, (ra.witness, rb.witness))
    attained = ra.attained and rb.attained
    if ra.interval is None and rb.interval is None and ca.exact and cb.exact:
        pair = (sympy.expand(ca.exact[0] * cb.exact[0]), sympy.expand(ca.exact[1] * cb.exact[1]))
        return Candidate(pair, None, 0, attained, witness)
    with flint_prec(prec()):
        balls = [flint.arb(0)] * 2
        for i, (r, c) in enumerate(((ra, ca), (rb, cb))):
            if r.interval is not None:  # a certified hull: |L| in [lo, hi], sign ``sign``
                lo, hi = (to_arb(sympy.Rational(x), prec()) for x in r.interval)
                balls[i] = sign * ((lo + hi) / 2).union(lo).union(hi)
            else:
                balls[i] = signed_ball(c)
        return Candidate(None, balls[0] + balls[1], 0, attained, witness)


def product_supremum(dist: Any, other: Any, directional: Directional) -> LossSupremum | None:
    """The loss of a pair of a program of two independent parts (:func:`factor` on both
    inputs, the same split): the larger over the two directions of the sum of the parts'
    suprema in that direction, or None (no split, or a part infinite, bracketed or
    refused: the caller takes the full route).

    ``directional(part, part', sign, floor)`` is a part's supremum in one direction
    (``sign`` +1 or -1) or of ``|ln f/f'|`` (0), exact where at least ``floor``. Each
    part's loss (0) comes first: where both lean the same way (or one is 0) the sum of the
    two is the loss; else the weaker direction of each part is computed, and the loss is
    the larger of the two sums. Under :data:`~exactdp.programs.release_bound.FLOOR` (a
    search over pairs wants only losses at least it), the part estimated dearer
    (:meth:`Part.loss_seconds`) comes second, with the floor less the first part's loss
    (rounded down to a rational) as its own: below it, the pair's loss ``<= |L_A| +
    |L_B|`` is below the floor, and :class:`~exactdp.programs.release_bound.BelowFloor` is
    raised."""
    fa, fb = factor(dist), factor(other)
    if fa is None or fb is None or fa[1] != fb[1]:
        return None
    parts = list(zip(fa[0], fb[0], strict=True))
    with quick():  # the parts' closed forms are not read, only their density pairs
        losses = _losses(parts, FLOOR.get(), directional)
        if losses is None:
            return None
        a, b = losses
        lean = [a[0].direction, b[0].direction]
        if lean[0] * lean[1] >= 0:  # one direction holds both parts' worst outputs
            found = [_joined(a, b, lean[0] or lean[1] or 1, fa[0])]
        else:
            weak = [directional(*parts[1], lean[0], None),
                    directional(*parts[0], lean[1], None)]
            if weak[0] is None or weak[1] is None:
                return None
            found = [_joined(a, weak[0], lean[0], fa[0]), _joined(weak[1], b, lean[1], fa[0])]
    cands = [c for c in found if c is not None]
    return select(cands)[0] if len(cands) == len(found) else None


Found = tuple[LossSupremum, Candidate | None]


def _losses(parts: list[tuple[Part, Part]], floor: sympy.Expr | None,
            directional: Directional) -> tuple[Found, Found] | None:
    """Each part's loss, the part estimated cheaper first; the other under the floor
    less the first's loss (:func:`product_supremum`)."""
    order = sorted(range(2), key=lambda i: parts[i][0].loss_seconds("") if floor is not None
                   else i)
    (p1, q1), (p2, q2) = parts[order[0]], parts[order[1]]
    first = directional(p1, q1, 0, None)
    if first is None:
        return None
    rest = None
    if floor is not None:
        with flint_prec(prec()):
            top = first[0].interval[1] if first[0].interval else first[0].loss
            low = arb_to_interval(to_arb(floor, prec()) - to_arb(sympy.sympify(top), prec()))[0]
        rest = sympy.Rational(math.floor(low * 2**40), 2**40) if low > 0 else None  # short
    second = directional(p2, q2, 0, rest)
    if second is None:
        return None
    if rest is not None:
        r = second[0]
        if compare(sympy.Rational(r.interval[1]) if r.interval else r.loss, rest) < 0:
            raise BelowFloor  # |L_A| + |L_B| < floor everywhere
        if r.interval is not None and compare(sympy.Rational(r.interval[0]), rest) < 0:
            second = directional(p2, q2, 0, None)  # pruned near the floor: again
            if second is None:
                return None
    out = [first, second] if order[0] == 0 else [second, first]
    return out[0], out[1]


def product_bound(func: str, dist: Any, other: Any) -> sympy.Expr | None:
    """A rigorous upper bound on the loss of a pair of a program of two independent parts
    (:func:`factor`): in each direction the sum over the parts of their largest
    translation bound in that direction (:func:`~exactdp.programs.release_bound.
    runs_bound`), the larger of the two sums (the module docstring's sum rule); ``oo``
    where a part's pattern is reached under one input only; None where there is no split
    or a part's pattern has no rational translation bound (the full route decides)."""
    fa, fb = factor(dist), factor(other)
    if fa is None or fb is None or fa[1] != fb[1]:
        return None
    sums = [sympy.Integer(0), sympy.Integer(0)]
    for p, q in zip(fa[0], fb[0], strict=True):
        if set(p.keys) != set(q.keys):
            return sympy.oo
        check_bounds(func, p.runs, q.runs, p.keys)
        for i, (x, y) in enumerate(((p, q), (q, p))):
            bounds = [runs_bound(x.runs[k], y.runs[k]) for k in p.keys]
            if not all(b is not None and b.is_Rational for b in bounds):
                return None
            sums[i] += max(bounds)  # type: ignore[type-var]
    return max(sums)


def product_estimate(parts: list[tuple[Part, Part]]) -> Estimate:
    """The estimate of :func:`product_supremum` on a pair of a program of two independent
    parts (:func:`split_pair`): each part's loss in both directions at most (its loss,
    then its weaker direction where the parts lean opposite ways), twice the parts' own
    estimates (:meth:`Part.loss_seconds`, on the first input) over their runs.

    Parameters
    ----------
    parts : list of tuple of (Part, Part)
        The pairs ``(part on one input, on the other)`` of :func:`split_pair`.

    Returns
    -------
    Estimate
        The first input's parts' run count and twice their estimated seconds.

    Examples
    --------
    >>> from exactdp.programs.library_release import svt34_parallel
    >>> m = svt34_parallel(epsilon=1, c=1)
    >>> product_estimate(split_pair(m.distribution([0, 1]), m.distribution([1, 1]))).runs
    6
    """
    runs = sum(len(rs) for p, _ in parts for rs in p.runs.values())
    return Estimate(runs, 2 * sum(p.loss_seconds("") for p, _ in parts))


def product_hint(parts: list[tuple[Part, Part]]) -> float | None:
    """:func:`~exactdp.programs.release_patterns.discrete_hint` of a pair of a program of
    two independent parts (:func:`split_pair`), from the parts: a pattern releasing no
    value is a pair of the parts' patterns releasing none, its probability the product of
    theirs, so its ``ln P/P'`` is the sum of theirs, and the largest ``|ln P/P'|`` is the
    larger over the two directions of the sums of the parts' largest (the module
    docstring's sum rule). A float to order a search over pairs (never a verdict); None as
    ``discrete_hint``: no such pattern on both inputs, or one reached under one only.

    Parameters
    ----------
    parts : list of tuple of (Part, Part)
        The pairs ``(part on one input, on the other)`` of :func:`split_pair`.

    Returns
    -------
    float or None
        The approximate largest ``|ln P/P'|`` over the patterns releasing no value, or None.

    Examples
    --------
    >>> import sympy
    >>> from exactdp.programs.library_release import svt34_parallel
    >>> m = svt34_parallel(epsilon=sympy.Rational(1, 10), c=1)
    >>> round(product_hint(split_pair(m.distribution([1, 1]), m.distribution([2, 2]))), 6)
    0.030293
    """
    ends = []
    for p, q in parts:
        logs = []
        for key, pattern in zip(p.keys, p.outputs, strict=True):
            if real_count(pattern) or key not in q.runs:
                continue
            a, b = p.probability(key), q.probability(key)
            if a == 0 or b == 0:
                return None
            with flint_prec(64):
                logs.append(float((enclose(a, 15).log() - enclose(b, 15).log()).mid()))
        if not logs:
            return None
        ends.append((max(logs), min(logs)))
    return max(ends[0][0] + ends[1][0], -(ends[0][1] + ends[1][1]))


def release_upper_bound(func: str, dist: Any, other: Any) -> sympy.Expr | None:
    """The translation bound of a pair of release distributions (what
    :meth:`~exactdp.programs.release.ProgramRelease.loss_upper_bound` returns): ``oo``
    where their patterns differ, the parts' sum where the program has two independent
    parts (:func:`product_bound`), else the largest over the patterns of
    :func:`~exactdp.programs.release_bound.pattern_bound` (None where one has none).

    Parameters
    ----------
    func : str
        The calling function, named in a refusal.
    dist, other : ProgramRelease
        The two inputs' release distributions of one program.

    Returns
    -------
    sympy.Expr or None
        A rigorous upper bound on the privacy loss (a Rational, or ``oo``), or None.

    Raises
    ------
    TooCostly
        The translation bounds' estimate past the cost model's limit
        (:func:`~exactdp.programs.release_bound.check_bounds`).
    """
    if set(dist.keys) != set(other.keys):
        return sympy.oo
    split = product_bound(func, dist, other)
    if split is not None:  # two independent parts: the sum of their bounds
        return split
    check_bounds(func, dist.runs, other.runs, dist.keys)
    out: sympy.Expr = sympy.Integer(0)
    for k in dist.keys:
        b = pattern_bound(dist.runs[k], other.runs[k])
        if b is None:
            return None
        bigger = b > out if b.is_Rational and out.is_Rational else compare(b, out) > 0
        out = b if bigger else out
    return out
