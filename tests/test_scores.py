"""exactdp.scores: validation, laziness and exact gaps."""

import warnings

import numpy as np
import pytest
import sympy

from exactdp import ExactConversionWarning, PermuteAndFlip, as_scores


@pytest.mark.parametrize(
    "bad, fragment",
    [
        ([], "empty"),
        (np.array([]), "empty"),
        ([1, float("nan"), 2], r"scores\[1\]"),
        (np.array([0.0, 1.0, np.inf]), r"scores\[2\]"),
        ([1, "abc"], r"scores\[1\]"),
        ([True, False], "boolean"),
        ("1,2,3", "str"),
        (np.zeros((2, 2)), "1-D"),
        ([1, 2j], "complex"),
        (5, "sequence"),
    ],
)
def test_bad_scores(bad, fragment):
    with pytest.raises(ValueError, match=fragment):
        as_scores(bad)


def test_float_scores_stay_float_and_lazy():
    q = np.linspace(0.0, 1.0, 1000)
    sv = as_scores(q)
    assert sv.kind == "float"
    assert "exact" not in sv.__dict__
    assert sv.gaps_float[0] == 1.0
    with pytest.warns(ExactConversionWarning):
        ex = sv.exact
    assert ex[-1] == 1


def test_exact_gaps_and_ties():
    sv = as_scores(["1/2", 0, "1/2", "-3/4"])
    assert sv.argmax_set == (0, 2)
    assert sv.gaps_exact == (0, sympy.Rational(1, 2), 0, sympy.Rational(5, 4))
    assert sv.integer_gaps() == (4, (0, 2, 0, 5))


def test_irrational_scores_have_no_integer_gaps():
    sv = as_scores(["sqrt(2)", 1])
    assert not sv.is_rational
    assert sv.gaps_exact == (0, sympy.sqrt(2) - 1)
    with pytest.raises(ValueError, match="rational"):
        sv.integer_gaps()


def test_big_integers_are_exact():
    big = 10**30
    sv = as_scores([big, big - 1])
    assert sv.integer_gaps() == (1, (0, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x, forms = PermuteAndFlip(1).distribution([big, big - 1]).rational_form()
    assert forms == (1 - x / 2, x / 2)
