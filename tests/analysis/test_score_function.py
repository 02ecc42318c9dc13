"""exactdp.sensitivity: exact sensitivity by enumeration, local and global, two neighbour
relations. Values checked against docs/formulas.md section 8 (pricing: Delta 1 and 5) and the closed
form max(alpha, 1 - alpha) of the quantile utility under add/remove (Smith 2011)."""

from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import exactdp
from exactdp import ScoreFunction, sensitivity
from exactdp.examples.pricing import PRICING, all_answers


@pytest.mark.parametrize("key, expected", [("buyers", 1), ("revenue", 5)])
def test_pricing_local_replace(key, expected):
    func = PRICING.score(key)
    res = sensitivity(func, all_answers(), "replace", database=PRICING.database)
    assert isinstance(res, exactdp.analysis.SensitivityResult)
    assert res.sensitivity == expected and isinstance(res.sensitivity, sympy.Integer)
    w = res.witness
    assert w.database == PRICING.database
    # the witness pair really attains the value
    r = func.range.index(w.output)
    assert abs(func.scores(w.database)[r] - func.scores(w.neighbour)[r]) == expected
    assert sum(a != b for a, b in zip(w.database, w.neighbour, strict=True)) == 1
    assert res.scope == "local" and res.pairs_checked == 4 * 31
    # replacing an answer can raise one price's count and lower another's
    assert res.monotonic is False and res.non_monotonic_pair is not None


@pytest.mark.parametrize("key, expected", [("buyers", 1), ("revenue", 5)])
def test_pricing_global(key, expected):
    func = PRICING.score(key)
    res = sensitivity(func, all_answers(), "replace", max_size=2)
    assert res.sensitivity == expected and res.scope == "global"
    # adding or removing a person only ever raises or lowers counts: monotonic
    res = sensitivity(func, all_answers(), "add_remove", max_size=2)
    assert res.sensitivity == expected and res.monotonic is True


def test_method_and_top_level_name():
    func = PRICING.score("revenue")
    assert func.sensitivity(PRICING.database, all_answers()).sensitivity == 5
    # the top-level name is the function: the same revenue sensitivity, 5 (the largest price)
    assert exactdp.sensitivity(func, all_answers(), database=PRICING.database).sensitivity == 5
    assert exactdp.examples.pricing.PRICING.score("buyers").name == "buyers"


def quantile_utility(alpha):
    """Smith (2011): q(D, c) = -|#{x in D : x < c} - alpha * |D||."""

    def q(db, c):
        return -abs(sum(1 for x in db if x < c) - alpha * len(db))

    return ScoreFunction(q, (1, 2, 3, 4, 5), f"quantile {alpha}")


@pytest.mark.parametrize("alpha", [Fraction(1, 2), Fraction(1, 3), Fraction(3, 4)])
def test_quantile_add_remove(alpha):
    res = sensitivity(quantile_utility(alpha), range(1, 6), "add_remove", max_size=3)
    assert res.sensitivity == sympy.Rational(max(alpha, 1 - alpha))
    w = res.witness
    assert abs(len(w.database) - len(w.neighbour)) == 1
    r = (1, 2, 3, 4, 5).index(w.output)
    assert abs(w.scores[r] - w.neighbour_scores[r]) == res.sensitivity
    # under replace-one the count below c moves by 1 while |D| stays: Delta = 1
    assert sensitivity(quantile_utility(alpha), range(1, 6), max_size=3).sensitivity == 1


def test_quantile_ordered_agrees_with_multisets():
    f = quantile_utility(Fraction(1, 3))
    a = sensitivity(f, range(1, 4), "add_remove", max_size=3)
    b = sensitivity(f, range(1, 4), "add_remove", max_size=3, ordered=True)
    assert a.sensitivity == b.sensitivity and a.monotonic == b.monotonic
    assert b.pairs_checked > a.pairs_checked


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=3),
       st.sampled_from(["replace", "add_remove"]))
def test_local_never_exceeds_global(db, rel):
    """A local value is one of the pairs of the global enumeration (brute force)."""
    f = ScoreFunction(lambda d, r: sum(x == r for x in d) * r, (0, 1, 2, 3), "weighted")
    loc = sensitivity(f, range(4), rel, database=tuple(sorted(db)))
    glob = sensitivity(f, range(4), rel, max_size=len(db) + 1)
    assert loc.sensitivity <= glob.sensitivity == 3


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({}, "exactly one of"),
        ({"database": (1,), "max_size": 2}, "exactly one of"),
        ({"database": (9,)}, "database[0] must be a record of the universe, got 9"),
        ({"max_size": -1}, "sensitivity: max_size must be a non-negative integer"),
        ({"max_size": 1, "neighbours": "swap"}, "neighbours must be"),
        ({"max_size": 40, "max_pairs": 1000}, "would visit up to"),
    ],
)
def test_errors(kwargs, message):
    f = ScoreFunction(lambda d, r: len(d), (0,), "size")
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        sensitivity(f, (1, 2, 3), **kwargs)


def test_bad_score_function_and_universe():
    with pytest.raises(ValueError, match="ScoreFunction"):
        sensitivity(lambda d, r: 0, (1,), max_size=1)
    f = ScoreFunction(lambda d, r: len(d), (0,))
    with pytest.raises(ValueError, match="sensitivity: universe must be non-empty"):
        sensitivity(f, (), max_size=1)
    bad = ScoreFunction(lambda d, r: float("nan"), (0,))
    with pytest.raises(ValueError, match="finite"):
        sensitivity(bad, (1, 2), max_size=1)


def test_nan_score_names_sensitivity_and_the_query_value():
    q = ScoreFunction(lambda D, r: float("nan") if r == 1 else len(D), range=[0, 1], name="q")
    with pytest.raises(ValueError, match=r"^sensitivity: q\(D, 1\) must be a finite real "
                                         r"number, got nan$"):
        sensitivity(q, [0, 1], max_size=2)
    with pytest.raises(ValueError, match=r"^ScoreFunction\.scores: q\(D, 1\) must be"):
        q.scores((0,))
