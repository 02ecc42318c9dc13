"""exactdp/numeric/gaps.py: the numeric routes' gap inputs, checked once."""

from __future__ import annotations

import re
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy

from exactdp.numeric.gaps import (
    as_list,
    check_int_gaps,
    check_lam,
    coin,
    float_gaps,
    mp_gaps,
)


def test_integer_gaps_shift_to_a_zero_best():
    assert check_int_gaps([3, 5, 3, 9], "f") == [0, 2, 0, 6]  # shift-invariance
    for bad, where in [([1, -1], "G[1]"), ([1, True], "G[1]"), ([1.5], "G[0]")]:
        with pytest.raises(ValueError, match=rf"^f: {re.escape(where)} must be a "
                                             "non-negative integer"):
            check_int_gaps(bad, "f")


def test_mp_gaps_are_exact_to_the_working_precision():
    with mpmath.workdps(40):
        out = mp_gaps([0, Fraction(1, 3), sympy.sqrt(2), sympy.oo], "f")
        assert out[1] == mpmath.mpf(1) / 3 and out[3] == mpmath.inf
        assert abs(out[2] - mpmath.sqrt(2)) < mpmath.mpf(10) ** -39
    for bad in ([-1], [float("nan")], [sympy.oo], [sympy.Symbol("a")], ["x"]):
        with pytest.raises(ValueError, match=r"^f: d"):
            mp_gaps(bad, "f")


def test_float_gaps_are_a_checked_float64_vector():
    arr = float_gaps([0, 1.5, np.inf], "f")
    assert arr.dtype == np.float64 and arr.tolist() == [0.0, 1.5, np.inf]
    for bad, fragment in [([0, -1.0], "d[1] must be a non-negative gap"),
                          ([[0, 1]], "d.shape must be (n,)"), ([np.inf], "at least one finite"),
                          (np.array([True]), "not of booleans"), ("01", "array of real")]:
        with pytest.raises(ValueError) as info:
            float_gaps(bad, "f")
        assert fragment in str(info.value), str(info.value)


def test_lam_is_exact_and_positive():
    assert check_lam(sympy.Rational(1, 2), "f") == sympy.Rational(1, 2)
    assert check_lam(sympy.Symbol("l", positive=True), "f").is_positive
    for bad in (0.5, sympy.Integer(0), sympy.Symbol("l"), sympy.Float(2) * sympy.pi, "x y"):
        with pytest.raises(ValueError, match=r"^f: lam must be"):
            check_lam(bad, "f")


def test_coins_are_exact_exponentials():
    assert coin(0, sympy.Rational(1, 2)) == 1
    assert coin(4, sympy.Rational(1, 2)) == sympy.exp(-2)
    assert coin(10**300, sympy.Rational(1, 2)) == sympy.exp(-5 * 10**299)  # not evaluated


def test_as_list_refuses_text_and_emptiness():
    assert as_list(np.array([[1, 2]]), "f", "d") == [1, 2]
    for bad in ("12", None, [], 5):
        with pytest.raises(ValueError, match=r"^f: d must be"):
            as_list(bad, "f", "d")
