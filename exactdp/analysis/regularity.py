"""Exact checks of the three regularity properties (docs/formulas.md section 3).

- symmetric: ``Pr[M(sigma q) = sigma(r)] = Pr[M(q) = r]`` for every permutation sigma;
- shift-invariant: ``Pr[M(q + a*1) = r] = Pr[M(q) = r]`` for every constant a;
- monotone: if ``q_r >= q'_r`` and ``q_s <= q'_s`` for all ``s != r``, then
  ``Pr[M(q) = r] >= Pr[M(q') = r]``.

Each function checks given vectors, or (``vectors=None``) every vector of the integer
lattice ``values**n``, with exact comparisons, and returns a counterexample when the
property fails. On a lattice closed under permutations, adjacent transpositions generate
all permutations, and elementary moves (one score by one step) chain to every monotone
move inside the box, so those suffice.

References
----------
McKenna & Sheldon (2020), Def. 3 (regular mechanisms); the notes' section 2.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from .._validate import argument_error, check_nonempty
from ..cost import check_analysis, check_neighbour_cells
from ..exact import UndecidedSignError
from ..numbers import exact_number, safe_sympify
from ..result import Result
from ..scores import ScoreVector
from .common import score_vector
from .engines.select import Engine, make_engine
from .witness import Witness


@dataclass(frozen=True)
class RegularityCheck(Result):
    """Result of a regularity check.

    Attributes
    ----------
    property : str
    holds : bool
    witness : Witness or None
        Two score vectors and outputs whose exact probabilities break the property
        (``scores``, ``output``, ``probability`` against ``neighbour``, ``neighbour_output``,
        ``neighbour_probability``); None when it holds.
    comparisons : int
        Number of exact comparisons made.
    vectors : int
        Number of distinct score vectors evaluated.
    certified : bool
        True: every comparison was decided exactly (x-form or generic engine) or by
        rigorous balls (ball engine with proved radii).
    caveat : str or None
        Why not certified.

    Notes
    -----
    The result protocol (:class:`exactdp.result.Result`): a verdict, no headline number.
    """

    headline = None
    repr_fields = ("property", "witness", "comparisons")

    property: str
    holds: bool
    witness: Witness | None
    comparisons: int
    vectors: int
    certified: bool = True
    caveat: str | None = None

    def __bool__(self) -> bool:
        return self.holds


def _lattice(vectors, n: int, values: Iterable, func: str) -> list[tuple]:
    if vectors is not None:
        return [score_vector(v, "vectors", func).values for v in vectors]
    vals = list(values)
    if n < 1:
        raise argument_error(func, "n", ">= 1", n)
    check_nonempty(func, "values", vals)
    return list(itertools.product(vals, repeat=n))


class _Pool:
    """Score vectors -> engine indices, evaluated in one engine."""

    def __init__(self) -> None:
        self.index: dict[tuple, int] = {}
        self.vectors: list[ScoreVector] = []

    def add(self, v: Sequence) -> int:
        key = tuple(x if isinstance(x, int) else safe_sympify(x) for x in v)
        if key not in self.index:
            self.index[key] = len(self.vectors)
            self.vectors.append(score_vector(list(v), "scores", "regularity"))
        return self.index[key]


def _run(mechanism, prop: str, pairs, pool: _Pool, want: str) -> RegularityCheck:
    """``pairs``: (i, r, j, s) meaning compare P_r(vec i) with P_s(vec j)."""
    engine = make_engine(mechanism, pool.vectors, f"is_{prop}")
    count = 0
    for i, r, j, s in pairs:
        count += 1
        a, b = engine.probs[i][r], engine.probs[j][s]
        sign = engine.cmp_prob(a, b)
        if sign is None:  # undecided (e.g. a sign that depends on a symbolic epsilon)
            raise UndecidedSignError(
                f"is_{prop}: cannot decide the sign of P_{r}{pool.vectors[i].values} - "
                f"P_{s}{pool.vectors[j].values} exactly for every epsilon; check at a "
                "numeric epsilon instead"
            )
        ok = sign == 0 if want == "eq" else sign >= 0
        if not ok:
            ce = Witness(
                pool.vectors[i].values, pool.vectors[j].values, r, s,
                engine.prob_sympy(a), engine.prob_sympy(b),
            )
            return RegularityCheck(prop, False, ce, count, len(pool.vectors), *_status(engine))
    return RegularityCheck(prop, True, None, count, len(pool.vectors), *_status(engine))


def _compare(mechanism, prop: str, vecs: list[tuple], partners: Callable, want: str):
    """Compare ``P_r(v)`` with ``P_s(w)`` for every ``v`` in ``vecs`` and every
    ``(w, [(r, s), ...])`` that ``partners(v)`` yields (all vectors in one engine)."""
    if vecs:  # each vector and its partners (at most n + 1 of them, n scores long)
        n = len(vecs[0])
        check_neighbour_cells(f"is_{prop}", len(vecs) * (n + 1), n)
        check_analysis(f"is_{prop}", len(vecs) * (n + 1), n, 1)
    pool = _Pool()
    pairs = []
    for v in vecs:
        i = pool.add(v)
        for w, outputs in partners(v):
            j = pool.add(w)
            pairs += [(i, r, j, s) for r, s in outputs]
    return _run(mechanism, prop, pairs, pool, want)


def _status(engine: Engine) -> tuple[bool, str | None]:
    """``(certified, caveat)`` of an analyzer engine."""
    return engine.certified, engine.caveat


def is_symmetric(
    mechanism: object,
    vectors: Iterable[Sequence] | None = None,
    *,
    n: int = 3,
    values: Iterable = range(3),
) -> RegularityCheck:
    """Exact check that ``Pr[M(sigma q) = sigma(r)] = Pr[M(q) = r]``.

    Parameters
    ----------
    mechanism : Mechanism
        Any mechanism with exact probabilities (epsilon numeric or symbolic).
    vectors : iterable of score vectors, optional
        Check these (every permutation for ``n <= 6``, adjacent transpositions beyond);
        ``None``: every vector of ``values**n`` with adjacent transpositions.
    n : int
        Lattice dimension when ``vectors`` is None.
    values : iterable of numbers
        Lattice values.

    Returns
    -------
    RegularityCheck

    Raises
    ------
    UndecidedSignError
        When a comparison cannot be decided exactly (never reported as a counterexample).

    Examples
    --------
    >>> import exactdp
    >>> exactdp.is_symmetric(exactdp.PermuteAndFlip(1)).holds
    True
    """

    def permuted(v: tuple) -> Iterator[tuple[tuple, list[tuple[int, int]]]]:
        m = len(v)
        perms: Iterable[tuple[int, ...]]
        if vectors is not None and m <= 6:
            perms = itertools.permutations(range(m))
        else:
            perms = (
                tuple(k + 1 if t == k else k if t == k + 1 else t for t in range(m))
                for k in range(m - 1)
            )
        for perm in perms:
            # (sigma q)[perm-position]: w[t] = v[perm[t]], so output r of v is output
            # perm^{-1}(r) of w.
            inv = {perm[t]: t for t in range(m)}
            yield tuple(v[perm[t]] for t in range(m)), [(r, inv[r]) for r in range(m)]

    return _compare(mechanism, "symmetric", _lattice(vectors, n, values, "is_symmetric"), permuted,
                    "eq")


def is_shift_invariant(
    mechanism: object,
    vectors: Iterable[Sequence] | None = None,
    *,
    shifts: Sequence = (1, -1, "1/2"),
    n: int = 3,
    values: Iterable = range(3),
) -> RegularityCheck:
    """Exact check that ``Pr[M(q + a*1) = r] = Pr[M(q) = r]`` for the given shifts a.

    Parameters
    ----------
    mechanism : Mechanism
    vectors : iterable of score vectors, optional (default: the lattice ``values**n``)
    shifts : sequence of numbers
        The constants a.
    n, values
        The lattice when ``vectors`` is None.

    Returns
    -------
    RegularityCheck

    Raises
    ------
    UndecidedSignError
        When a comparison cannot be decided exactly (never reported as a counterexample).

    Examples
    --------
    >>> import exactdp
    >>> exactdp.is_shift_invariant(exactdp.ExponentialMechanism(1)).holds
    True
    """
    consts = [exact_number(a, "shifts", k) for k, a in enumerate(shifts)]
    consts = [int(a) if a.is_Integer else a for a in consts]

    def shifted(v: tuple) -> Iterator[tuple[tuple, list[tuple[int, int]]]]:
        for a in consts:
            yield tuple(x + a for x in v), [(r, r) for r in range(len(v))]

    return _compare(mechanism, "shift_invariant",
                    _lattice(vectors, n, values, "is_shift_invariant"), shifted, "eq")


def is_monotonic(
    mechanism: object,
    vectors: Iterable[Sequence] | None = None,
    *,
    step: object = 1,
    n: int = 3,
    values: Iterable = range(3),
) -> RegularityCheck:
    """Exact check of monotonicity: lowering ``q_r`` or raising another score never raises
    ``Pr[M(q) = r]``.

    Parameters
    ----------
    mechanism : Mechanism
    vectors : iterable of score vectors, optional
        Check the elementary moves of size ``step`` from each vector; ``None``: every
        elementary move inside the lattice ``values**n`` (equally spaced values, spacing
        ``step``), which chains to every monotone move inside the box.
    step : number
    n, values
        The lattice when ``vectors`` is None.

    Returns
    -------
    RegularityCheck
        A witness ``Witness(scores, neighbour, r, r, P_r(scores), P_r(neighbour))`` has
        ``scores`` dominating ``neighbour`` in the monotone order at r and
        ``P_r(scores) < P_r(neighbour)``.

    Examples
    --------
    >>> import exactdp
    >>> exactdp.is_monotonic(exactdp.PermuteAndFlip(1)).holds
    True
    """
    d = exact_number(step, "step")
    d = int(d) if d.is_Integer else d
    vecs = _lattice(vectors, n, values, "is_monotonic")
    inside = None if vectors is not None else set(vecs)

    def moved(v: tuple) -> Iterator[tuple[tuple, list[tuple[int, int]]]]:
        m = len(v)
        for r in range(m):
            for s in range(m):
                delta = -d if s == r else d
                w = tuple(x + delta if t == s else x for t, x in enumerate(v))
                if inside is None or w in inside:
                    yield w, [(r, r)]  # P_r(v) >= P_r(w)

    return _compare(mechanism, "monotonic", vecs, moved, "ge")
