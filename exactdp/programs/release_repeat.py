"""Pairs of inputs a search has already proved below a floor, up to a renumbering of noises.

Two pairs of inputs of one program whose patterns can be matched one to one, each pair of
a pattern's runs the same up to one renumbering of the noises of both
(:func:`~exactdp.programs.run_canon.pair_key`), have the same densities pattern by pattern
(the released values are the same linear forms of the renumbered noises; a ``>`` of
continuous noises read as ``>=`` changes a density at single points only, and the loss's
value is read on open sets and their limits, such points deciding only whether it is
attained, :mod:`~exactdp.programs.release_loss`), so the same value of the privacy
loss: the suite's neighbours of ``(1, ..., 1)`` are many permutations of a few
vectors. :meth:`~exactdp.programs.release.ProgramRelease.loss_at_least` records the class
of a pair it proved below a floor (:func:`record_below`) and answers a pair of that class
at once for any floor at least as high (:func:`known_below`): a proof, not a guess.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable
from typing import Any

import sympy

from ..exact.signs import compare
from .release_factor import factor, split_pair
from .run_canon import pair_key

#: The least floor each class of pairs (:func:`pair_class`) was proved below (at most 4096
#: classes, then cleared).
_BELOW: dict[Hashable, sympy.Expr] = {}


def pair_class(dist: Any, other: Any) -> Hashable | None:
    """The class of the pair of release distributions ``(dist, other)`` of one program:
    its mechanism and the multiset of its patterns' :func:`~exactdp.programs.run_canon.
    pair_key` (None where the patterns differ, or a pattern's runs do not pair up); of a
    program of two independent parts (:func:`~exactdp.programs.release_factor.split_pair`),
    the split and the pair of its parts' classes: two pairs whose parts have equal classes
    have the parts' densities equal pattern by pattern, so their products too."""
    parts = split_pair(dist, other)
    if parts is not None:
        found = tuple(_patterns(p, q) for p, q in parts)
        split = factor(dist)
        if None in found or split is None:
            return None
        return dist.mechanism, split[1], found
    whole = _patterns(dist, other)
    return None if whole is None else (dist.mechanism, whole)


def _patterns(dist: Any, other: Any) -> Hashable | None:
    """The multiset of the patterns' pair keys of ``(dist, other)``, or None."""
    if set(dist.keys) != set(other.keys):
        return None
    keys = []
    for k in dist.keys:
        runs, others = dist.runs[k], other.runs[k]
        if len(runs) != len(others):
            return None
        pairs = tuple(pair_key(r, r2) for r, r2 in zip(runs, others, strict=True))
        if any(p is None for p in pairs):
            return None
        keys.append(pairs)
    return frozenset(Counter(keys).items())


def known_below(cls: Hashable | None, floor: sympy.Expr) -> bool:
    """Whether a pair of class ``cls`` was proved below a floor at most ``floor``."""
    low = None if cls is None else _BELOW.get(cls)
    return low is not None and compare(floor, low) >= 0


def record_below(cls: Hashable | None, floor: sympy.Expr) -> None:
    """Record that a pair of class ``cls`` has a loss strictly below ``floor``."""
    if cls is None:
        return
    low = _BELOW.get(cls)
    if low is None or compare(floor, low) < 0:
        if len(_BELOW) > 4096:
            _BELOW.clear()
        _BELOW[cls] = floor
