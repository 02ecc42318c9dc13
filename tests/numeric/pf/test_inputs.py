"""exactdp.numeric.pf.inputs: exact gaps -> arb balls, grouped by exact value."""

from __future__ import annotations

from fractions import Fraction

import flint
import mpmath
import pytest

from exactdp.exact.arb import flint_prec
from exactdp.numeric.pf.inputs import (
    arb_to_mpf,
    check_dps,
    exact_groups,
    exp_neg,
    is_plain_decimal,
    sequence_length,
)


def test_equal_exact_values_share_a_group_and_a_float_keeps_its_binary_value():
    with flint_prec(80):
        groups, index, n = exact_groups([0, "1/10", Fraction(1, 10), "0.1", 0.1, "inf"], "f")
    assert n == 6
    # "1/10", Fraction(1, 10) and "0.1" are the same exact number; the float 0.1 is not
    assert index[1] == index[2] == index[3] != index[4]
    assert len(groups) == 4 and [m for _, m in groups] == [1, 3, 1, 1]
    assert groups[index[5]][0] is None  # +inf: coin 0
    binary = groups[index[4]][0]  # 0.1 is a dyadic number: its ball is exact
    assert binary.is_exact() and binary == flint.arb(0.1)
    tenth = groups[index[1]][0]  # 1/10 is not: a ball around it, not containing the float
    with flint_prec(300):
        assert not tenth.is_exact() and tenth.contains(flint.arb(flint.fmpq(1, 10)))
        assert not tenth.contains(binary)


@pytest.mark.parametrize(
    ("gaps", "what"),
    [([1, 2], "exact 0"), ([0, -1], "non-negative"), ([0, "x"], r"d\[1\] must be a number"),
     ([0, float("nan")], "non-negative"), ([0, True], "non-negative"), ([], "non-empty")],
)
def test_bad_gaps_are_refused_with_the_function_named(gaps, what):
    with pytest.raises(ValueError, match=f"myfunc.*{what}"):
        exact_groups(gaps, "myfunc")


def test_exp_neg_keeps_relative_accuracy_for_large_arguments():
    with flint_prec(100):
        ball = exp_neg(flint.arb(1000))
        assert ball.rel_accuracy_bits() >= 90
        with mpmath.workdps(60):
            ref = mpmath.exp(-1000)  # independent route: mpmath
            assert abs(arb_to_mpf(ball) / ref - 1) < mpmath.mpf(2) ** -88


def test_small_validators():
    assert check_dps(30, "f") == 30
    for bad in (0, -1, 2.5, True, "30"):
        with pytest.raises(ValueError, match="f: dps must be a positive integer"):
            check_dps(bad, "f")
    assert sequence_length([0, 1, 2], "f") == 3
    for bad in ("012", b"01", 5):
        with pytest.raises(ValueError, match="f: d must be a sequence"):
            sequence_length(bad, "f")
    assert is_plain_decimal("0.25") and is_plain_decimal("1/3")
    assert not is_plain_decimal("pi") and not is_plain_decimal("1/0")


def test_a_fraction_with_a_large_integer_part_gets_its_bits_back():
    """2^200/3 is not dyadic: rounded with 199 extra bits (its integer part), so that the
    ball's absolute radius stays below 2^-64 at 64 bits and exp(-q) keeps 64 relative
    bits; it contains the fraction."""
    q = Fraction(2**200, 3)
    with flint_prec(64):
        groups, index, _ = exact_groups([0, q], "f")
    ball = groups[index[1]][0]
    with flint_prec(400):
        assert ball.contains(flint.arb(flint.fmpq(q.numerator, q.denominator)))
        assert ball.rad() <= flint.arb(2) ** -64
