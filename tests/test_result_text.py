"""exactdp/result_text.py: decimals that never read as a rounded exact value; summary fields."""

from __future__ import annotations

import mpmath
import sympy

from exactdp.result import number_text
from exactdp.result_text import decimal_text, field_text, longer_than


def test_decimals_near_one_show_the_distance_to_one():
    """A number within 1e-6 of +-1 prints as ``1 - d`` (d exact, then rounded), never a
    rounded 1; the others as format_number does. Values checked by their closed forms."""
    # 1 - e^-200 = 1 - 1.3838965267367376e-87 (e^-200 by mpmath at 30 digits)
    assert mpmath.nstr(mpmath.exp(-200), 5) == "1.3839e-87"
    assert decimal_text(1 - sympy.exp(-200)) == "1 - 1.3839e-87"
    assert decimal_text(1 + sympy.exp(-30)) == "1 + 9.35762e-14"
    assert decimal_text(-1 + sympy.exp(-50)) == "-1 + 1.92875e-22"
    assert decimal_text(sympy.Rational(9999999, 10000000)) == "1 - 1.0e-7"
    assert decimal_text(sympy.Rational(999999, 1000000)) == "0.999999"  # 6 digits suffice
    assert decimal_text(1) == "1" and decimal_text(sympy.Rational(1, 3)) == "0.333333"
    assert number_text(1 - sympy.exp(-200)) == "1 - 1.3839e-87 (exact: 1 - exp(-200))"


def test_summary_fields_long_expressions_as_decimals_unless_full():
    long = sum(sympy.exp(-k) / (k + 1) for k in range(200))  # more than 400 nodes
    text = field_text(long)
    assert text.startswith(number_text(long)[:6]) and "certified ball" in text
    assert "summary(full=True)" in text and len(text) < 300
    assert field_text(long, full=True) == sympy.sstr(long)
    assert field_text(sympy.sqrt(2)) == "sqrt(2)" and field_text("note") == "note"


def test_longer_than_counts_nodes_without_printing():
    assert not longer_than(sympy.sqrt(2), 10) and longer_than(sum(sympy.symbols("a:30")), 20)
    assert not longer_than("a long string that is no expression", 3)


def test_a_small_nonzero_number_is_not_shown_as_0():
    # log(1 + 5e-31) = 5e-31 - 1.25e-61 + ...: a float evaluation cancels to 0
    value = sympy.log(sympy.Rational(10**31 + 5, 10**31))
    assert decimal_text(value) == "5.0e-31"
    assert decimal_text(-value) == "-5.0e-31"
    assert decimal_text(sympy.Integer(0)) == "0"
