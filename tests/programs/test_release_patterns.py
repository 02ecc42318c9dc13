"""Released outputs against their patterns (exactdp.programs.release_patterns)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy

from exactdp.numbers import ExactConversionWarning
from exactdp.programs import library_release as L
from exactdp.programs.release_patterns import (
    discrete_hint,
    is_real,
    match,
    real_count,
    released_rational,
    same_pattern,
    sampled_key,
)
from exactdp.programs.runs import REAL, RELEASED_KEY
from exactdp.programs.values import ProgramError


def test_is_real_takes_numbers_and_not_booleans():
    assert all(is_real(v) for v in (1, 0.5, Fraction(1, 3), sympy.Rational(2, 7),
                                    np.int64(3), np.float64(0.25)))
    assert not any(is_real(v) for v in (True, np.bool_(False), None, "1", (1,)))


def test_match_collects_the_released_values_in_order():
    values: list = []
    assert match((True, REAL, None, REAL), (True, 2.5, None, Fraction(1, 3)), values)
    assert values == [2.5, Fraction(1, 3)]
    # True is not 1, and a boolean is not a released value
    assert not match(True, 1, [])
    assert not match(REAL, True, [])
    assert not match(1, True, [])
    assert match(1, 1, []) and match(False, np.bool_(False), [])
    assert not match((True, REAL), (True,), [])


def test_sampled_key_is_the_type_tagged_key_and_floats_are_released():
    values: list[float] = []
    key = sampled_key((True, None, 3, 0.75), "prog", values)
    assert key == (3, ((0, 0), (1,), (2, 3), RELEASED_KEY))
    assert values == [0.75]
    with pytest.raises(ProgramError, match="is not made of booleans"):
        sampled_key("text", "prog:3", [])


def test_same_pattern_and_real_count():
    assert same_pattern((True, REAL), (True, REAL))
    assert not same_pattern((True,), (1,))
    assert not same_pattern(1, True)
    assert real_count((True, REAL, (REAL, None), [REAL])) == 3
    assert real_count(None) == 0 and real_count(REAL) == 1


def test_released_rational_is_exact_and_refuses_irrationals():
    # a float is taken by its exact binary value, warned about as at every exact entry point
    with pytest.warns(ExactConversionWarning, match="f: 1 float input"):
        assert released_rational("f", 0.1) == Fraction(3602879701896397, 36028797018963968)
    assert released_rational("f", "1/3") == Fraction(1, 3)
    with pytest.raises(ValueError, match="f: output must be rational released values"):
        released_rational("f", sympy.sqrt(2))


def test_discrete_hint_reads_the_patterns_without_released_values():
    # gap_svt on (1, 1) vs (2, 0): one pattern, (False, False), releases nothing; its exact
    # probabilities' log ratio is the hint (0.034387), below the loss 0.464855
    m = L.gap_svt(epsilon=1, threshold=1)
    a, b = m.distribution([1, 1]), m.distribution([2, 0])
    hint = discrete_hint(a, b, lambda d, k: d.probabilities[d.keys.index(k)])
    p = a.pmf((False, False)) / b.pmf((False, False))
    assert hint == pytest.approx(abs(float(sympy.N(sympy.log(p), 30))), rel=1e-12)
    assert round(hint, 6) == 0.034387


def test_released_values_given_as_text_are_parsed_exactly():
    """``match`` reads a released value given as text exactly (``'1/2'``, ``'0.1'``), as
    every exact entry point does; text that is no rational number matches nothing. A
    release's ``density('1/2')`` equals the closed form of ``q + Lap(1) + Lap(2)`` at 1/2,
    ``(2 e^{-|x|/2} - e^{-|x|})/6`` (the convolution of two Laplace densities)."""
    from exactdp.programs import laplace, program

    vals: list = []
    assert match((True, REAL), (True, "1/2"), vals) and vals == [Fraction(1, 2)]
    vals = []
    assert match(REAL, "0.1", vals) and vals == [Fraction(1, 10)]
    assert not match(REAL, "abc", []) and not match(REAL, "sqrt(2)", [])
    assert match(3, "3", []) and not match(True, "1", [])

    @program(output="release")
    def sum2(q, epsilon):
        return q[0] + laplace(1 / epsilon) + laplace(2 / epsilon)

    d = sum2(epsilon=1).distribution([0])
    x = sympy.Rational(1, 2)
    want = (2 * sympy.exp(-x / 2) - sympy.exp(-x)) / 6
    assert sympy.simplify(d.density("1/2") - want) == 0


def test_sampled_key_reads_sympy_booleans_as_booleans():
    values: list = []
    assert sampled_key((sympy.true, sympy.false), "prog", values) == sampled_key(
        (True, False), "prog", values)
    assert values == []
