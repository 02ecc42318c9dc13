"""The pricing example (Example 1.3 of the notes, made concrete in docs/formulas.md section 8).

Four people state the prices in ``R = {1, 2, 3, 4, 5}`` they would pay. Score 1 counts the
buyers at each price (sensitivity 1), score 2 is the revenue ``r * q1`` (sensitivity 5).
The neighbour ``D'`` replaces person 4's answer by ``{1}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from .._validate import check_choice
from ..analysis.score_function import ScoreFunction

PRICES = (1, 2, 3, 4, 5)


def buyers(database, r) -> int:
    """``q1(D, r)``: the number of people willing to pay price r."""
    return sum(1 for person in database if r in person)


def revenue(database, r) -> int:
    """``q2(D, r) = r * q1(D, r)``: the total revenue at price r."""
    return r * buyers(database, r)


def all_answers() -> tuple[frozenset, ...]:
    """Every subset of the price range: the domain of one person's answer."""
    return tuple(
        frozenset(c) for k in range(len(PRICES) + 1) for c in combinations(PRICES, k)
    )


@dataclass(frozen=True)
class PricingExample:
    """The database, its neighbour and the two score functions."""

    database: tuple[frozenset, ...]
    neighbour: tuple[frozenset, ...]
    scores: dict

    def score(self, name: str) -> ScoreFunction:
        """The score function ``"buyers"`` or ``"revenue"``.

        Raises
        ------
        ValueError
            For another name.
        """
        check_choice("pricing example", "score", name, sorted(self.scores))
        return self.scores[name]


PRICING = PricingExample(
    database=(
        frozenset({1, 2, 3}),
        frozenset({2, 3, 4, 5}),
        frozenset({1, 2}),
        frozenset({1, 2, 3, 4, 5}),
    ),
    neighbour=(
        frozenset({1, 2, 3}),
        frozenset({2, 3, 4, 5}),
        frozenset({1, 2}),
        frozenset({1}),
    ),
    scores={
        "buyers": ScoreFunction(buyers, PRICES, "buyers"),
        "revenue": ScoreFunction(revenue, PRICES, "revenue"),
    },
)
