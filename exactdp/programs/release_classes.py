"""The patterns of a pair of release distributions that have the same pair of densities.

Two patterns of a program whose runs on the first input are the same runs up to a
renumbering of their noises (as multisets, run by run), and likewise on the second input,
have the same density of their released values on each input, as functions of the
released values, at every point: a run's event and released values, renumbered, are the
same event of relabelled independent noises (:func:`~exactdp.programs.run_canon.
canonical`), and a pattern's density is the sum of its runs'. So they have the same log
density ratio, the same supremum and the same attainment, and a loss supremum reads one
pattern of each class (:func:`representatives`): noisy top-2 on ``(1, ..., 1)`` against
``(0, 0, 2, ..., 2)`` has 90 patterns ``(i, j, REAL)`` and 6 classes (``i`` and ``j``
each among the two lowered answers or the eight raised ones, and ``i < j`` or not where
both are among the same ones).

A comparison ``c > 0`` is read as ``c >= 0`` where ``c`` has a continuous noise that no
released value contains: on each set of noises with given released values that noise is
free and the two events differ on a null set, so no density changes at any point (a
comparison of released values alone keeps its strictness: it decides the density at the
cell's end). The program's tie-breaking between equal noisy values (``>`` for the earlier
index, ``>=`` for the later) is then no obstacle to the renumbering.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from .run_canon import CONTINUOUS, canonical
from .runs import Constraint, Run

#: Each run's key (:func:`run_key`) by the run's identity (the runs of a trace are cached).
_BY_ID: dict[int, tuple[Run, Hashable | None]] = {}


def run_key(run: Run) -> Hashable | None:
    """The key of ``run`` up to a renumbering of its noises, a ``>`` read as ``>=`` where
    the comparison has a continuous noise outside every released value (module
    docstring); None where a number of the run is not rational. Memoised on the run's
    identity.

    Examples
    --------
    Noisy top-2 on three equal answers: six patterns ``(i, j, REAL)``, two keys (the tie
    of the released pair, ``v_i >= v_j`` for ``i < j`` and ``>`` else, decides the density
    at the gap 0):

    >>> from exactdp.programs import library_release as R
    >>> d = R.noisy_top_k_gap(epsilon=1).distribution([1, 1, 1])
    >>> len({run_key(r) for rs in d.runs.values() for r in rs}), len(d.keys)
    (2, 6)
    """
    hit = _BY_ID.get(id(run))
    if hit is not None and hit[0] is run:
        return hit[1]
    if len(_BY_ID) > 65_536:
        _BY_ID.clear()
    shown = {i for r in run.released for i, _ in r.coefficients}

    def loose(c: Constraint) -> bool:
        return c.relation == ">" and any(i not in shown and run.draws[i].law in CONTINUOUS
                                         for i, _ in c.expr.coefficients)

    cons = tuple(Constraint(c.expr, ">=", c.line) if loose(c) else c for c in run.constraints)
    found = canonical(Run(run.draws, cons, run.weight, run.output, run.released), strict=True)
    _BY_ID[id(run)] = (run, None if found is None else found[1])
    return _BY_ID[id(run)][1]


def _side(runs: list[Run]) -> Hashable | None:
    keys = [run_key(r) for r in runs]
    return None if any(k is None for k in keys) else frozenset(Counter(keys).items())


def _cheap(runs: list[Run]) -> Hashable:
    """What no renumbering of noises changes (the sizes, the weights, the constants of the
    comparisons and of the released values), without a canonical form: patterns that
    differ here are in different classes."""
    return frozenset(Counter(
        (len(r.draws), len(r.constraints), r.weight, tuple(v.constant for v in r.released),
         frozenset(Counter(c.expr.constant for c in r.constraints).items()))
        for r in runs).items())


def pattern_classes(dist: Any, other: Any) -> list[list[Hashable]] | None:
    """The patterns of two release distributions of one program grouped by their pair of
    densities (module docstring), each class in the patterns' order, the classes in the
    order of their first pattern; None where the two have different patterns or a run
    has no key.

    Examples
    --------
    >>> from exactdp.programs import library_release as R
    >>> m = R.noisy_top_k_gap(epsilon=1)
    >>> [len(c) for c in pattern_classes(m.distribution([1, 1, 1]), m.distribution([0, 2, 2]))]
    [2, 2, 1, 1]
    """
    if set(dist.keys) != set(other.keys):
        return None
    cheap = {k: (_cheap(dist.runs[k]), _cheap(other.runs[k])) for k in dist.keys}
    shared = Counter(cheap.values())
    classes: dict[Hashable, list[Hashable]] = {}
    for k in dist.keys:
        if shared[cheap[k]] == 1:  # alone: no canonical form needed
            classes[(k,)] = [k]
            continue
        mine, theirs = _side(dist.runs[k]), _side(other.runs[k])
        if mine is None or theirs is None:
            return None
        classes.setdefault((cheap[k], mine, theirs), []).append(k)
    return list(classes.values())


@dataclass(frozen=True, eq=False)
class Representatives:
    """A release distribution seen through some of its patterns (``keys``, in its order):
    what a loss supremum reads (``keys``, ``outputs``, ``runs``, ``pmf``,
    ``probabilities``, ``loss_seconds``, ``mechanism``, ``scores``), the rest of
    ``full`` untouched."""

    full: Any
    keys: tuple[Hashable, ...]

    @property
    def mechanism(self) -> Any:
        """The full distribution's mechanism."""
        return self.full.mechanism

    @property
    def scores(self) -> Any:
        """The full distribution's answers."""
        return self.full.scores

    @cached_property
    def outputs(self) -> tuple[Any, ...]:
        """The patterns of ``keys``."""
        return tuple(self.full.outputs[self.full.keys.index(k)] for k in self.keys)

    @cached_property
    def runs(self) -> dict[Hashable, list[Run]]:
        """The runs of the patterns of ``keys``."""
        return {k: self.full.runs[k] for k in self.keys}

    @cached_property
    def probabilities(self) -> tuple[Any, ...]:
        """The exact probabilities of the patterns of ``keys``."""
        return tuple(self.full.pmf(o) for o in self.outputs)

    def pmf(self, pattern: object) -> Any:
        """The exact probability of one pattern."""
        return self.full.pmf(pattern)

    def loss_seconds(self, func: str) -> float:
        """The full distribution's estimate (an upper bound of this one's)."""
        return float(self.full.loss_seconds(func))


def representatives(dist: Any, other: Any) -> tuple[Any, Any]:
    """``(dist, other)`` restricted to the first pattern of each class of
    :func:`pattern_classes` (the same loss supremum, witness and attainment: the patterns
    left out have the same pair of densities as one kept before them), or the two
    unchanged where no two patterns share a class or the classes are not known.

    Examples
    --------
    >>> from exactdp.programs import library_release as R
    >>> m = R.noisy_top_k_gap(epsilon=1)
    >>> a, b = representatives(m.distribution([1, 1, 1]), m.distribution([0, 2, 2]))
    >>> a.outputs
    ((0, 1, REAL), (1, 0, REAL), (1, 2, REAL), (2, 1, REAL))
    """
    classes = pattern_classes(dist, other)
    if classes is None or len(classes) == len(dist.keys):
        return dist, other
    first = {c[0] for c in classes}
    keys = tuple(k for k in dist.keys if k in first)
    return Representatives(dist, keys), Representatives(other, keys)
