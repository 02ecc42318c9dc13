"""Score functions on databases and their sensitivity, computed exactly by enumeration.

A database is a tuple of records from a finite ``universe``. Two databases are neighbours
when one record is replaced (``neighbours="replace"``, the relation of the notes, section 1)
or when one record is added or removed (``neighbours="add_remove"``, unbounded DP). The
sensitivity of a score function ``q`` with range ``R`` is

.. math:: \\Delta = \\max_{r \\in R} \\max_{D \\sim D'} |q(D, r) - q(D', r)|,

taken *locally* over the neighbours of one database, or *globally* over every database of at
most ``max_size`` records (Dwork & Roth 2014, Def. 3.1 and 3.11; McSherry & Talwar 2007,
section 2). The score function is *monotonic* on the enumerated pairs when, for every pair,
all scores move weakly in one direction (then ``c = 1`` replaces ``c = 2``, docs/formulas.md
section 1).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations_with_replacement, product
from typing import Any

import sympy

from .._validate import (
    argument_error,
    check_callable,
    check_choice,
    check_instance,
    check_int,
    check_nonempty,
)
from ..exact import compare, sign
from ..numbers import exact_number
from ..result import Result
from .witness import Witness

#: Largest number of neighbouring pairs :func:`sensitivity` enumerates before refusing.
MAX_PAIRS = 1_000_000

NEIGHBOURS = ("replace", "add_remove")


@dataclass(frozen=True)
class ScoreFunction:
    """A quality score ``q(D, r)`` over a finite range.

    Parameters
    ----------
    func : callable
        ``func(database, r) -> number`` (exact numbers: int, Fraction, sympy; a float is
        converted by its exact binary value with a warning).
    range : sequence
        The outputs ``r``, in the order used for score vectors.
    name : str
        A label for tables and error messages.

    Examples
    --------
    >>> from exactdp import ScoreFunction
    >>> count = ScoreFunction(lambda db, r: sum(x == r for x in db), range=("a", "b"))
    >>> count.scores(["a", "a", "b"])
    (2, 1)
    """

    func: Callable[[Sequence, Any], object]  # (database, an element of the user's range)
    range: tuple
    name: str = "q"

    def __post_init__(self) -> None:
        check_callable("ScoreFunction", "func", self.func)
        rng = tuple(check_nonempty("ScoreFunction", "range", tuple(self.range)))
        object.__setattr__(self, "range", rng)

    def scores(
        self, database: Sequence, *, func: str = "ScoreFunction.scores"
    ) -> tuple[sympy.Expr, ...]:
        """The score vector ``(q(D, r))_r`` as exact numbers, shape (n,).

        Raises
        ------
        ValueError
            A value of ``func`` that is not an exact finite number (NaN, inf, a
            non-numeric string); the message names ``func`` (the public function called)
            and the value ``q(D, r)``.
        """
        return tuple(
            exact_number(self.func(database, r), f"{self.name}(D, {r!r})", func=func)
            for r in self.range
        )

    def sensitivity(self, database: Sequence, domain: Sequence[Hashable]) -> SensitivityResult:
        """Local replace-one sensitivity at ``database``: ``sensitivity(self, domain,
        database=database)`` (kept for the report and the command line)."""
        return sensitivity(self, domain, "replace", database=database)


@dataclass(frozen=True)
class SensitivityResult(Result):
    """Result of :func:`sensitivity`.

    Attributes
    ----------
    sensitivity : sympy.Expr
        The exact largest ``|q(D, r) - q(D', r)|`` over the enumerated pairs (0 when no pair
        moves any score).
    monotonic : bool
        True iff on every enumerated pair all scores move weakly in the same direction.
    witness : Witness or None
        A pair and output attaining ``sensitivity`` (None when there is no pair at all):
        ``database`` and ``neighbour`` are the two databases, ``scores`` and
        ``neighbour_scores`` their exact score vectors, ``output`` the range element and
        ``value`` the sensitivity.
    neighbours : str
        ``"replace"`` or ``"add_remove"``.
    scope : str
        ``"local"`` (the neighbours of one database) or ``"global"`` (every database of at
        most ``max_size`` records).
    pairs_checked : int
        Number of neighbouring pairs enumerated.
    non_monotonic_pair : tuple or None
        A pair ``(D, D')`` on which scores moved in both directions (when not monotonic).

    Notes
    -----
    The result protocol (:class:`exactdp.result.Result`): ``value`` is ``sensitivity``
    (exact, certified: every pair is enumerated).
    """

    headline = "sensitivity"
    repr_fields = ("monotonic", "witness", "scope", "pairs_checked")

    sensitivity: sympy.Expr
    monotonic: bool
    witness: Witness | None
    neighbours: str
    scope: str
    pairs_checked: int
    non_monotonic_pair: tuple | None = None


# ------------------------------------------------------------------------ validation
def _check_inputs(
    score_function, universe, neighbours, database, max_size
) -> tuple[tuple, tuple | None, int | None]:
    func = "sensitivity"
    check_instance(func, "score_function", score_function, ScoreFunction,
                   "an exactdp ScoreFunction(func, range)")
    if isinstance(universe, (str, bytes)) or not isinstance(universe, Sequence | set | frozenset):
        raise argument_error(func, "universe", "a finite sequence of records", universe)
    universe = tuple(dict.fromkeys(universe))  # distinct records, first-seen order
    check_nonempty(func, "universe", universe)
    check_choice(func, "neighbours", neighbours, NEIGHBOURS)
    if (database is None) == (max_size is None):
        raise ValueError(
            "sensitivity: give exactly one of database= (local sensitivity) and max_size= "
            "(global sensitivity over every database of at most max_size records)"
        )
    if database is not None:
        if isinstance(database, (str, bytes)):
            raise argument_error(func, "database", "a tuple of records", database)
        database = tuple(database)
        members = set(universe)
        for i, rec in enumerate(database):
            if rec not in members:
                raise argument_error(func, f"database[{i}]", "a record of the universe", rec)
        if neighbours == "replace" and not database:
            raise argument_error(func, "database", "non-empty for neighbours='replace' (an "
                                 "empty database has no replace-one neighbours)", database)
    if max_size is not None:
        max_size = check_int(func, "max_size", max_size, 0)
        if neighbours == "replace" and max_size < 1:
            raise argument_error(func, "max_size", ">= 1 for neighbours='replace'", max_size)
    return universe, database, max_size


def _count_pairs(u: int, neighbours: str, database, max_size, ordered: bool) -> int:
    """The number of neighbouring pairs the enumeration visits."""
    if database is not None:
        m = len(database)
        return m * (u - 1) if neighbours == "replace" else m + u
    total = 0
    for m in range(max_size + 1):
        count = u**m if ordered else math.comb(u + m - 1, m)
        if neighbours == "replace":
            total += count * m * (u - 1) // (1 if ordered else 2) if m else 0
        elif m < max_size:
            total += count * (u * (m + 1) if ordered else u)
    return total


# ------------------------------------------------------------------------ enumeration
def _local_pairs(database: tuple, universe: tuple, neighbours: str) -> Iterator[tuple]:
    for i, rec in enumerate(database):
        if neighbours == "add_remove":
            yield database, database[:i] + database[i + 1:]
            continue
        for value in universe:
            if value != rec:
                yield database, database[:i] + (value,) + database[i + 1:]
    if neighbours == "add_remove":
        for value in universe:
            yield database, database + (value,)


def _global_pairs(universe: tuple, neighbours: str, max_size: int, ordered: bool):
    """Each neighbouring pair of databases of size <= max_size, once (unordered pairs)."""
    pos = {rec: j for j, rec in enumerate(universe)}
    for m in range(max_size + 1):
        dbs = product(universe, repeat=m) if ordered else combinations_with_replacement(
            universe, m)
        for db in dbs:
            if neighbours == "add_remove":
                if m == max_size:
                    continue
                for value in universe:
                    if ordered:
                        for i in range(m + 1):
                            yield db, db[:i] + (value,) + db[i:]
                    else:  # insert keeping the canonical (universe) order
                        k = sum(1 for r in db if pos[r] <= pos[value])
                        yield db, db[:k] + (value,) + db[k:]
                continue
            for i, rec in enumerate(db):
                if not ordered and i and db[i - 1] == rec:
                    continue  # the same multiset move
                for value in universe:
                    if pos[value] <= pos[rec]:
                        continue  # each unordered pair once
                    moved = db[:i] + (value,) + db[i + 1:]
                    yield db, moved if ordered else tuple(sorted(moved, key=pos.__getitem__))


def sensitivity(
    score_function: ScoreFunction,
    universe: Sequence[Hashable],
    neighbours: str = "replace",
    database: Sequence[Hashable] | None = None,
    max_size: int | None = None,
    *,
    ordered: bool = False,
    max_pairs: int = MAX_PAIRS,
) -> SensitivityResult:
    """Exact sensitivity of a score function by enumerating neighbouring databases.

    Parameters
    ----------
    score_function : ScoreFunction
        ``q(D, r)``; its ``range`` gives the outputs ``r``.
    universe : sequence of hashable
        Every possible record (one individual's entry).
    neighbours : {"replace", "add_remove"}
        Replace one record by another record of the universe, or add or remove one record.
    database : sequence of records, optional
        Local sensitivity: only the neighbours of this database.
    max_size : int, optional
        Global sensitivity: every database of at most ``max_size`` records and each of its
        neighbours of at most ``max_size`` records. Exactly one of ``database`` and
        ``max_size`` is required.
    ordered : bool, default False
        Global mode only. False enumerates databases as multisets (one sorted tuple per
        multiset), which is exact when ``q`` depends on the multiset of records only, as
        score functions of the field do; True enumerates every ordered tuple.
    max_pairs : int, default :data:`MAX_PAIRS`
        Refuse enumerations of more neighbouring pairs than this.

    Returns
    -------
    SensitivityResult
        ``sensitivity`` (exact), ``monotonic`` and ``witness`` (``database``,
        ``neighbour``, ``output``).

    Raises
    ------
    ValueError
        Not a ScoreFunction; empty or non-sequence universe; unknown ``neighbours``; both or
        neither of ``database`` and ``max_size``; a database record outside the universe; a
        score that is not an exact finite number; more than ``max_pairs`` pairs (the message
        gives the count).
    exactdp.exact.UndecidedSignError
        If the sign of a score difference cannot be decided exactly.

    References
    ----------
    C. Dwork and A. Roth, *The Algorithmic Foundations of Differential Privacy* (2014),
    Def. 3.1 (l1 sensitivity) and section 3.4 (the exponential mechanism's Delta u).

    Examples
    --------
    >>> import exactdp
    >>> from exactdp import ScoreFunction
    >>> count = ScoreFunction(lambda db, r: sum(x == r for x in db), range=(0, 1))
    >>> res = exactdp.sensitivity(count, (0, 1), "replace", max_size=2)
    >>> res.sensitivity, res.monotonic
    (1, False)
    """
    universe, database, max_size = _check_inputs(score_function, universe, neighbours,
                                                 database, max_size)
    count = _count_pairs(len(universe), neighbours, database, max_size, ordered)
    if count > max_pairs:
        raise ValueError(
            f"sensitivity: the enumeration would visit up to {count} neighbouring pairs, more than "
            f"max_pairs = {max_pairs}; lower max_size or the universe, or raise max_pairs"
        )
    if database is not None:
        pairs = _local_pairs(database, universe, neighbours)
    else:
        assert max_size is not None  # _check_inputs: exactly one of database and max_size
        pairs = _global_pairs(universe, neighbours, max_size, ordered)
    cache: dict[tuple, tuple] = {}

    def scores(db: tuple) -> tuple:
        if db not in cache:
            cache[db] = score_function.scores(db, func="sensitivity")
        return cache[db]

    best, witness, monotonic, bad, checked = sympy.Integer(0), None, True, None, 0
    for a, b in pairs:
        checked += 1
        qa, qb = scores(a), scores(b)
        diffs = [y - x for x, y in zip(qa, qb, strict=True)]
        signs = [sign(d) for d in diffs]  # exact (exactdp.exact.sign), or it raises
        if monotonic and 1 in signs and -1 in signs:
            monotonic, bad = False, (a, b)
        for r, d, sd in zip(score_function.range, diffs, signs, strict=True):
            size = d if sd >= 0 else -d
            if witness is None or compare(size, best) > 0:
                best = size
                witness = Witness(qa, b, r, value=size, database=a, neighbour_scores=qb)
        if database is None and len(cache) > 4 * max_pairs:
            cache.clear()
    return SensitivityResult(best, monotonic, witness, neighbours,
                             "local" if database is not None else "global", checked, bad)
