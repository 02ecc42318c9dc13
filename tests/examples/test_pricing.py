"""exactdp/examples/pricing.py: the pricing example of the notes (Example 1.3)."""

from __future__ import annotations

import pytest

from exactdp.examples.pricing import PRICES, PRICING, all_answers, buyers, revenue


def test_the_scores_of_the_database_by_counting():
    # people willing to pay r: {1,2,3}, {2,3,4,5}, {1,2}, {1,...,5} -> r = 1: 3, r = 2: 4, ...
    assert [buyers(PRICING.database, r) for r in PRICES] == [3, 4, 3, 2, 2]
    assert [revenue(PRICING.database, r) for r in PRICES] == [3, 8, 9, 8, 10]
    assert PRICING.score("buyers").scores(PRICING.database) == (3, 4, 3, 2, 2)
    # the neighbour replaces the last person by {1}: r = 1 keeps 3 buyers, r = 5 loses one
    assert [buyers(PRICING.neighbour, r) for r in PRICES] == [3, 3, 2, 1, 1]


def test_every_answer_is_a_subset_of_the_prices():
    answers = all_answers()
    assert len(answers) == 2 ** len(PRICES) == len(set(answers))
    assert frozenset() in answers and frozenset(PRICES) in answers


def test_the_sensitivities_of_example_1_3():
    # Delta_1 = 1 (one person changes each count by at most 1), Delta_2 = 5 (the top price)
    db = PRICING.database
    assert PRICING.score("buyers").sensitivity(db, all_answers()).sensitivity == 1
    assert PRICING.score("revenue").sensitivity(db, all_answers()).sensitivity == 5
    with pytest.raises(ValueError, match="pricing example: score must be 'buyers' or "
                                         "'revenue', got 'profit'"):
        PRICING.score("profit")
