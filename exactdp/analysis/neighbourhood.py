"""Neighbouring score vectors: ``||q - q'||_inf <= Delta`` (all moves in one direction when the
score function is monotonic), or one score moving by at most ``Delta`` (declared adjacency
``"one"``), and the validation of a given pair. Everything here reads the mechanism's
declarations (``sensitivity``, ``monotonic``, ``regular``, ``adjacency``, ``score_domain``,
``check_cost``), never its class.

References
----------
C. Dwork and A. Roth, The Algorithmic Foundations of Differential Privacy (2014), Def. 2.4.
R. McKenna and D. Sheldon, "Permute-and-Flip", NeurIPS 2020, section 2.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator

import numpy as np
import sympy

from .._validate import argument_error, check_choice, check_same_length, short_number
from ..cost import check_analysis, check_neighbour_cells, refuse
from ..exact import UndecidedSignError
from ..mechanisms.base import Mechanism
from ..printing import format_number
from ..scores import ScoreVector, check_score_domain
from .common import (
    as_mechanism,
    distribution_of,
    exact_probabilities_of,
    exact_sign,
    mechanism_monotonic,
    mechanism_name,
    mechanism_sensitivity,
    score_vector,
)
from .witness import Witness

#: Largest range size for which ``search="auto"`` enumerates all 3**n - 1 vertices.
EXHAUSTIVE_MAX_N = 6

#: The values of ``search`` the neighbour search accepts.
SEARCHES = ("auto", "exhaustive", "reduced", "heuristic")

#: Random vertices of the heuristic search, drawn by ``numpy.random.default_rng(seed)``.
HEURISTIC_RANDOM = 64
HEURISTIC_SEED = 0


# =============================================================================== neighbours
def top_gap(sv: ScoreVector) -> int:
    """The largest gap ``q* - q_r`` of ``sv``, rounded up to an int (a size for the cost
    model: :func:`exactdp.cost.analysis_seconds`)."""
    gaps = sv.gaps_float
    top = float(gaps.max()) if len(gaps) else 0.0
    return 2**64 if not math.isfinite(top) or top > 2.0**64 else math.ceil(top)


def check_pair(
    mech: object,
    q: ScoreVector,
    q2: ScoreVector,
    func: str,
    allow_non_neighbour: bool,
) -> None:
    """Check that ``q2`` is a neighbour of ``q`` for ``mech`` (unless ``allow_non_neighbour``).

    Raises
    ------
    ValueError
        If the lengths differ, a score is outside the declared ``score_domain``, a
        difference exceeds the sensitivity, a mechanism of declared adjacency ``"one"``
        sees two scores move, or a monotone mechanism's neighbour moves scores both up and
        down.
    """
    check_same_length(func, ("scores", "neighbour"), (q.raw, q2.raw))
    mechanism = as_mechanism(mech, func)
    for sv, name in ((q, "scores"), (q2, "neighbour")):
        check_score_domain(mechanism.score_domain, sv, func, name, mechanism.name)
    if mechanism.output_kind != "release":  # a release prices its own densities (PF's
        check_analysis(func, 2, q.n, top_gap(q))  # table refused a 700-answer histogram)
    if allow_non_neighbour:
        return
    delta = mechanism_sensitivity(mech)
    diffs = [b - a for a, b in zip(q.exact, q2.exact, strict=True)]
    moved = [] if mechanism.adjacency == "all" else [
        i for i, d in enumerate(diffs) if exact_sign(d) != 0]
    if len(moved) > 1:
        i, j = moved[:2]
        raise ValueError(
            f"{func}: {mechanism_name(mech)} declares adjacency 'one' (one score moves between "
            f"neighbours), but this neighbour moves scores[{i}] and scores[{j}]; pass "
            "allow_non_neighbour=True to compare anyway")
    for i, d in enumerate(diffs):
        if exact_sign(abs(d) - delta) == 1:
            raise argument_error(
                func, f"neighbour[{i}]", f"within the sensitivity {delta} of scores[{i}] "
                f"(neighbour[{i}] - scores[{i}] = {short_number(d)} exceeds the sensitivity; pass "
                "allow_non_neighbour=True to compare arbitrary vectors)", q2.exact[i])
    if mechanism_monotonic(mech):
        up = any(exact_sign(d) == 1 for d in diffs)
        down = any(exact_sign(d) == -1 for d in diffs)
        if up and down:
            raise ValueError(
                f"{func}: {mechanism_name(mech)} is declared for monotone score functions, whose "
                "neighbours move all scores in the same direction, but this neighbour moves "
                "some up and some down; pass allow_non_neighbour=True to compare anyway"
            )


#: Largest estimated run time (seconds) of an exhaustive neighbour search.
EXHAUSTIVE_SECONDS_LIMIT = 120.0


def _check_exhaustive_cost(n: int, monotone: bool, func: str = "neighbours",
                           regular: bool = True) -> None:
    """Refuse an exhaustive search estimated above two minutes: ``count`` neighbours at
    about ``4 ms * (n/6)^2`` each (x-form engine; 728 neighbours at n = 6 take ~2-3 s)."""
    count = 2 * (2**n - 1) if monotone else 3**n - 1
    secs = count * 4e-3 * (n / 6) ** 2
    if secs > EXHAUSTIVE_SECONDS_LIMIT:
        raise refuse(
            func, f"search='exhaustive' for n = {n}",
            f"{count} neighbours (about {secs:.3g} s)", f"{EXHAUSTIVE_SECONDS_LIMIT:.0f} s",
            f"use search='reduced' ({2 * n + 2} neighbours; exact for regular mechanisms)"
            if regular else
            f"use search='heuristic' ({heuristic_count(n, monotone)} neighbours: a "
            "search, not a proof) or pass the one neighbour to check (neighbour=...)",
        )


def heuristic_moves(n: int, monotone: bool = False) -> list[tuple[int, ...]]:
    """The moves ``s`` (neighbour ``q + Delta*s``) of the heuristic search, in order,
    without repeats: every query alone up and down (``+-e_r``: StatDP's "one above / one
    below"), one up and the rest down and the reverse (``+-(2e_r - 1)``), all up and all
    down, the first ``k`` up and the rest down and the reverse (``k = 1..n-1``: the
    "half half" and X-shape patterns at every split), the first / last ``k`` alone up or
    down (one-sided shifts), then :data:`HEURISTIC_RANDOM` random vertices of
    ``{-1, 0, 1}^n`` (seed :data:`HEURISTIC_SEED`). ``monotone``: only the moves in one
    direction."""
    seen: dict[tuple[int, ...], None] = {}

    def add(s: tuple[int, ...]) -> None:
        if any(s) and not (monotone and min(s) < 0 < max(s)):
            seen.setdefault(s, None)

    def both(s: tuple[int, ...]) -> None:
        add(s)
        add(tuple(-v for v in s))

    for r in range(n):
        e = tuple(1 if i == r else 0 for i in range(n))
        both(e)
        both(tuple(2 * v - 1 for v in e))
    both((1,) * n)
    for k in range(1, n):
        both((1,) * k + (-1,) * (n - k))
        both((1,) * k + (0,) * (n - k))
        both((0,) * (n - k) + (1,) * k)
    rng = np.random.default_rng(HEURISTIC_SEED)
    for row in rng.integers(-1, 2, size=(HEURISTIC_RANDOM, n)).tolist():
        add(tuple(int(v) for v in row))
    return list(seen)


def heuristic_count(n: int, monotone: bool = False) -> int:
    """The number of moves of :func:`heuristic_moves`, without building them (quadratic
    in ``n``) beyond 64 queries: there an upper bound, ``10 n + HEURISTIC_RANDOM`` (its
    patterns before the duplicates are dropped)."""
    if n <= 64:
        return len(heuristic_moves(n, monotone))
    return 10 * n + HEURISTIC_RANDOM


#: What a vertex search of a mechanism not declared regular leaves out.
VERTICES_ONLY = ("vertices only: neighbours inside the box are not tried (their loss can be "
                 "larger when the answers are used non-linearly)")


def _moves(
    n: int, monotone: bool, search: str, func: str = "neighbours", regular: bool = True,
    adjacency: str = "all",
) -> tuple[list[tuple[int, ...]], str]:
    """The moves ``s`` (neighbour ``q + Delta*s``) of ``search`` and its description, for a
    mechanism declared ``regular`` (or not) with declared ``adjacency``."""
    check_choice(func, "search", search, SEARCHES)
    if adjacency == "one":  # 2n moves: every search is the exhaustive one
        check_neighbour_cells(func, 2 * n, n)
        moves = []
        for r in range(n):
            e = tuple(1 if i == r else 0 for i in range(n))
            moves += [e, tuple(-v for v in e)]
        return moves, "exhaustive, one score moves (adjacency 'one'): +-e_r"
    if search == "reduced" and not regular:
        raise ValueError(
            f"{func}: search='reduced' holds for regular mechanisms only (symmetric, "
            "shift-invariant, monotone: docs/formulas.md section 3), and this mechanism does "
            "not declare regular=True; use search='exhaustive' (n <= 8) or 'heuristic'")
    if search == "heuristic" or (search == "auto" and not regular and n > EXHAUSTIVE_MAX_N):
        check_neighbour_cells(func, heuristic_count(n, monotone), n)
        return heuristic_moves(n, monotone), (
            f"heuristic, not exhaustive ({n} > {EXHAUSTIVE_MAX_N} queries): +-e_r, "
            "+-(2e_r - 1), all up / all down, the first k up and the rest down and the "
            "reverse, one-sided prefix and suffix shifts, "
            f"{HEURISTIC_RANDOM} random vertices (seed {HEURISTIC_SEED})")
    exhaustive = search == "exhaustive" or (search == "auto" and n <= EXHAUSTIVE_MAX_N)
    if exhaustive:
        _check_exhaustive_cost(n, monotone, func, regular)
        steps = (0, 1) if monotone else (-1, 0, 1)
        moves = [s for s in itertools.product(steps, repeat=n) if any(s)]
        if monotone:
            moves += [tuple(-v for v in s) for s in moves]
            return moves, "exhaustive monotone vertices {0,1}^n and {0,-1}^n"
        return moves, "exhaustive vertices {-1,0,1}^n"
    check_neighbour_cells(func, (4 * n if monotone else 2 * n) + 2, n)
    moves = []
    for r in range(n):
        e = tuple(1 if i == r else 0 for i in range(n))
        if monotone:
            rest = tuple(1 - v for v in e)
            for s in (e, rest):
                moves += [s, tuple(-v for v in s)]
        else:
            up = tuple(2 * v - 1 for v in e)
            moves += [up, tuple(-v for v in up)]
    ones = tuple([1] * n)
    moves += [ones, tuple(-v for v in ones)]
    if monotone:
        return moves, "reduced (regular mechanism, monotone moves: +-e_r, +-(1 - e_r))"
    return moves, "reduced (regular mechanism: raise r and lower the rest, and the reverse)"


def neighbours(
    mechanism: object, scores: object, search: str = "auto", *, func: str = "neighbours",
    check_cost: bool = True,
) -> tuple[list[ScoreVector], str]:
    """The neighbouring score vectors that the analyzer searches, and why.

    Parameters
    ----------
    mechanism : Mechanism
        Supplies its declarations: ``sensitivity``, ``monotonic``, ``regular``,
        ``adjacency``, ``score_domain``, ``domain`` (neighbours outside it are left out)
        and the cost check ``check_cost``.
    scores : sequence of numbers, shape (n,)
    search : {"auto", "exhaustive", "reduced", "heuristic"}
        ``"exhaustive"``: the vertices ``q + Delta*s`` of the neighbour box,
        ``s in {-1, 0, 1}^n`` without 0 (monotone: ``s in {0,1}^n or {0,-1}^n``).
        ``"reduced"``: for regular mechanisms (symmetric, shift-invariant, monotone in the
        sense of docs/formulas.md section 3) ``Pr[M(q') = r]`` is largest when ``q'`` raises r and
        lowers the others and smallest in the reverse move, so ``q + Delta*(2e_r - 1)`` and
        ``q - Delta*(2e_r - 1)`` for every r suffice; for monotone score functions the
        extreme monotone moves are ``+-Delta e_r`` and ``+-Delta (1 - e_r)``. The all-up and
        all-down shifts are added too. ``"heuristic"``: the moves of
        :func:`heuristic_moves` (the DP-testing tools' input patterns at every position,
        one-sided shifts, seeded random vertices): a search, not a proof. ``"auto"``:
        exhaustive for ``n <= 6``; beyond, reduced for the mechanisms that declare
        ``regular`` and heuristic for every other (``"reduced"`` refuses them). A user's
        declaration (``mechanism_from_function(..., regular=True)``) is checked on
        ``scores`` when the reduced search relies on it. Declared adjacency ``"one"``:
        every search is the ``2n`` moves ``+-Delta e_r`` (one score moves), exhaustive.
    check_cost : bool
        True (default): the mechanism's ``check_cost`` prices the exact distributions of
        ``scores`` and every neighbour, and refuses past the limit. False: the caller
        prices its own work on them (``check_accountant`` screens every pair in float64
        and computes a few exactly: ``Mechanism.pld_seconds``).

    Returns
    -------
    (list of ScoreVector, str)
        The neighbours and a description of the search.

    Raises
    ------
    ValueError
        Invalid scores (outside the declared ``score_domain`` too), an unknown ``search``,
        an exhaustive search estimated above :data:`EXHAUSTIVE_SECONDS_LIMIT` seconds, or a
        user's ``regular=True`` that fails on ``scores`` (with the witness); the message
        names ``func`` (the public function the user called: ``neighbours`` unless an
        analysis passes its own name).

    References
    ----------
    McKenna & Sheldon (2020), section 2 and Lemma 1 (worst case of regular mechanisms).

    Examples
    --------
    >>> import exactdp
    >>> vectors, why = exactdp.neighbours(exactdp.PermuteAndFlip(1), [0, -1])
    >>> len(vectors)
    8
    """
    sv = score_vector(scores, "scores", func)
    mech = as_mechanism(mechanism, func)
    check_score_domain(mech.score_domain, sv, func, owner=mech.name)
    delta = mechanism_sensitivity(mech)
    moves, how = _moves(sv.n, mechanism_monotonic(mech), search, func,
                        regular=bool(mech.regular), adjacency=mech.adjacency)
    reduced = mech.regular and mech.adjacency == "all" and (
        search == "reduced" or (search == "auto" and sv.n > EXHAUSTIVE_MAX_N))
    if sv.kind == "int" and delta.is_Integer:
        d = int(delta)
        out = [
            ScoreVector.from_input([a + d * s for a, s in zip(sv.raw, m, strict=True)],
                                   "neighbour")
            for m in moves
        ]
    else:
        out = [
            ScoreVector.from_input(
                [a + delta * s for a, s in zip(sv.exact, m, strict=True)], "neighbour"
            )
            for m in moves
        ]
    if mech.domain is not None:  # a declared domain: the neighbours inside it
        lo, hi = mech.domain
        out = [v for v in out if all(lo <= x <= hi for x in v.exact)]
        how += f" (inside the declared domain [{lo}, {hi}])"
    if not mech.regular and not how.startswith("heuristic"):
        how += f"; {VERTICES_ONLY}"
    # the exact distributions of the scores and every neighbour, refused before any is
    # computed (a program's probes estimate them for all the vectors at once)
    if check_cost:
        mech.check_cost(func, [sv, *out])
    if reduced and mech.regular_claimed:  # the search relies on the user's declaration
        check_regular_claim(mech, sv, delta, func)
    return out, how


# =============================================================================== regularity
def regularity_partners(
    v: tuple, step: sympy.Expr
) -> Iterator[tuple[str, tuple, list[tuple[int, int, str]]]]:
    """The vectors a regularity property compares ``v`` with, one score step ``step``
    apart: ``(property, w, [(r, s, relation), ...])`` meaning ``P_r(v) = P_s(w)``
    (relation ``"eq"``) or ``P_r(v) >= P_s(w)`` (``"ge"``). Every adjacent transposition
    (symmetric), the shifts by ``+-step`` (shift-invariant), and every elementary monotone
    move: ``q_r`` lowered or another score raised by ``step`` (monotone); docs/formulas.md
    section 3, McKenna & Sheldon (2020), Def. 3."""
    m = len(v)
    for k in range(m - 1):
        w = v[:k] + (v[k + 1], v[k]) + v[k + 2:]
        swap = {k: k + 1, k + 1: k}
        yield "symmetric", w, [(r, swap.get(r, r), "eq") for r in range(m)]
    for a in (step, -step):
        yield "shift-invariant", tuple(x + a for x in v), [(r, r, "eq") for r in range(m)]
    for s in range(m):
        down = tuple(x - step if t == s else x for t, x in enumerate(v))
        yield "monotone", down, [(s, s, "ge")]
        up = tuple(x + step if t == s else x for t, x in enumerate(v))
        yield "monotone", up, [(r, r, "ge") for r in range(m) if r != s]


def check_regular_claim(mech: Mechanism, sv: ScoreVector, delta: sympy.Expr, func: str) -> None:
    """Check a user's ``regular=True`` (:attr:`Mechanism.regular_claimed`) on the scores
    ``sv`` the reduced search relies on it for, exactly: the comparisons of
    :func:`regularity_partners` with step ``delta`` (the sensitivity).

    Raises
    ------
    ValueError
        One line with the property and the witness (the two vectors, the outputs and their
        exact probabilities) when a comparison fails.
    UndecidedSignError
        When a comparison cannot be decided exactly (a symbolic epsilon).
    """
    v = tuple(sv.exact)
    probs = exact_probabilities_of(distribution_of(mech, sv), func, mech)
    for prop, w, pairs in regularity_partners(v, delta):
        other = exact_probabilities_of(
            distribution_of(mech, ScoreVector.from_input(list(w), "scores")), func, mech)
        for r, s, relation in pairs:
            sign = exact_sign(probs[r] - other[s])
            if sign is None:
                raise UndecidedSignError(
                    f"{func}: cannot decide whether {mechanism_name(mech)} is {prop} (its "
                    "declared regular=True) for every epsilon; check at a numeric epsilon")
            failed = sign != 0 if relation == "eq" else sign < 0
            if failed:
                witness = Witness(v, w, r, s, probs[r], other[s])
                raise ValueError(
                    f"{func}: {mechanism_name(mech)} declares regular=True but is not {prop} "
                    f"on these scores: P = {format_number(probs[r], 6)} at {witness} "
                    f"against P = {format_number(other[s], 6)}; declare regular=False (the "
                    f"search is then exhaustive up to {EXHAUSTIVE_MAX_N} scores, heuristic "
                    "beyond)")


def neighbour_list(
    mech: object,
    q: ScoreVector,
    neighbour: object | None,
    search: str,
    allow_non_neighbour: bool,
    func: str,
) -> tuple[list[ScoreVector], str]:
    """The neighbours an analysis runs on, and why: the given ``neighbour`` (validated by
    :func:`check_pair` for ``func``), or else those of :func:`neighbours` with ``search``."""
    if neighbour is not None:
        q2 = score_vector(neighbour, "neighbour", func)
        check_pair(mech, q, q2, func, allow_non_neighbour)
        return [q2], "given neighbour"
    return neighbours(mech, q, search, func=func)
