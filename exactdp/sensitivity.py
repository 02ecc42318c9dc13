"""Score functions on databases and their sensitivity, computed by enumeration.

A database is a tuple of individuals' entries; neighbours differ in one individual's entry
(the replace-one relation of the notes, section 1). The sensitivity is
``Delta = max_r max_{D ~ D'} |q(D, r) - q(D', r)|`` over the neighbours reachable by
replacing one entry with any value of a finite entry domain.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

import sympy

from .numbers import exact_number

__all__ = ["ScoreFunction", "SensitivityResult"]


@dataclass(frozen=True)
class SensitivityResult:
    """The largest score change over the enumerated neighbours, with a witness."""

    sensitivity: sympy.Expr
    monotone: bool
    person: int
    replacement: Hashable
    output: Hashable


@dataclass(frozen=True)
class ScoreFunction:
    """A quality score ``q(D, r)`` over a finite range.

    Parameters
    ----------
    func : callable
        ``func(database, r) -> number`` (exact numbers: int, Fraction, sympy).
    range : sequence
        The outputs ``r``, in the order used for score vectors.
    name : str
        A label for tables.
    """

    func: Callable[[Sequence, Hashable], object]
    range: tuple
    name: str = "q"

    def scores(self, database: Sequence) -> tuple[sympy.Expr, ...]:
        """The score vector ``(q(D, r))_r`` as exact numbers, shape (n,)."""
        return tuple(
            exact_number(self.func(database, r), f"{self.name}(D, {r!r})") for r in self.range
        )

    def sensitivity(self, database: Sequence, domain: Sequence[Hashable]) -> SensitivityResult:
        """Largest ``|q(D, r) - q(D', r)|`` over D' = D with one entry replaced from ``domain``.

        Also reports whether every such move is monotone (all scores move weakly in one
        direction), the condition for the factor 1 instead of 2 (MATH.md section 1).

        Raises
        ------
        ValueError
            If the database or domain is empty.
        """
        if not database or not domain:
            raise ValueError("sensitivity: database and domain must be non-empty")
        base = self.scores(database)
        best = sympy.Integer(-1)
        witness = (0, None, None)
        monotone = True
        for i in range(len(database)):
            for value in domain:
                other = list(database)
                other[i] = value
                moved = self.scores(other)
                diffs = [b - a for a, b in zip(base, moved, strict=False)]
                if any(d > 0 for d in diffs) and any(d < 0 for d in diffs):
                    monotone = False
                for r, d in zip(self.range, diffs, strict=False):
                    if abs(d) > best:
                        best, witness = abs(d), (i, value, r)
        return SensitivityResult(best, monotone, *witness)
