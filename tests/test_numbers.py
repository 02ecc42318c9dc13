"""exactdp.numbers: exact conversion of user input, and the errors for bad input."""

import warnings
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
import sympy

from exactdp import ExactConversionWarning, PermuteAndFlip
from exactdp.numbers import exact_epsilon, exact_number, exact_sensitivity, exact_vector


@pytest.mark.parametrize(
    "value, expected",
    [
        (3, sympy.Integer(3)),
        (np.int64(-7), sympy.Integer(-7)),
        (Fraction(3, 2), sympy.Rational(3, 2)),
        (Decimal("0.1"), sympy.Rational(1, 10)),
        ("3/2", sympy.Rational(3, 2)),
        ("0.1", sympy.Rational(1, 10)),
        ("-2.5e-3", sympy.Rational(-1, 400)),
        ("log(2)", sympy.log(2)),
        (sympy.sqrt(2), sympy.sqrt(2)),
    ],
)
def test_exact_inputs(value, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert exact_number(value) == expected


def test_float_is_converted_by_its_binary_value_with_one_warning():
    with pytest.warns(ExactConversionWarning) as rec:
        out = exact_vector([0.1, 0.2, 1])
    assert len(rec) == 1
    assert out[0] == sympy.Rational(3602879701896397, 36028797018963968)
    assert out[0] != sympy.Rational(1, 10)
    assert out[2] == 1


def test_numpy_float_warns():
    with pytest.warns(ExactConversionWarning):
        assert exact_number(np.float64(0.5)) == sympy.Rational(1, 2)


@pytest.mark.parametrize(
    "bad, fragment",
    [
        (float("nan"), "finite"),
        (float("inf"), "finite"),
        (-float("inf"), "finite"),
        (True, "boolean"),
        (1 + 2j, "complex"),
        ("abc", "unknown name"),
        ("", "empty"),
        ("1/0", "finite"),
        ("oo", "finite"),
        ("I", "real"),
        (Decimal("NaN"), "finite"),
        (None, "unsupported"),
        ([1], "unsupported"),
    ],
)
def test_bad_numbers_raise_value_error_naming_argument(bad, fragment):
    with pytest.raises(ValueError, match=fragment) as info:
        exact_number(bad, "scores", 3)
    assert "scores[3]" in str(info.value)


def test_symbols_are_refused_in_scores_but_allowed_for_epsilon():
    eps = sympy.Symbol("epsilon", positive=True)
    with pytest.raises(ValueError, match="number"):
        exact_number(eps, "scores", 0)
    assert exact_epsilon(eps) == eps
    with pytest.raises(ValueError, match="positive"):
        exact_epsilon(sympy.Symbol("e"))


@pytest.mark.parametrize("bad", [0, -1, "-1/2", "0.0", float("nan"), float("inf"), "x", True])
def test_epsilon_and_sensitivity_must_be_positive(bad):
    with pytest.raises(ValueError, match="epsilon"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exact_epsilon(bad)
    with pytest.raises(ValueError, match="sensitivity"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exact_sensitivity(bad)


def test_mechanisms_validate_parameters():
    with pytest.raises(ValueError, match="epsilon"):
        PermuteAndFlip(-1)  # 0 and oo are the exact limits now (tests/test_options.py)
    with pytest.raises(ValueError, match="sensitivity"):
        PermuteAndFlip(1, sensitivity=-2)
    with pytest.raises(ValueError, match="monotonic"):
        PermuteAndFlip(1, monotonic="yes")
    assert PermuteAndFlip("0.5").epsilon == sympy.Rational(1, 2)


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("__import__('os').system('echo PWNED')", "may be called"),
        ("().__class__.__bases__", "Attribute"),
        ("10**10**10", "nested powers"),
        ("10**1000000", "too large"),
        ("x", "unknown name"),
        ("[1]", "List"),
        ("lambda: 1", "Lambda"),
        ("1" * 3000, "longer than"),
        ("exp(x=1)", "keyword"),
    ],
)
def test_strings_cannot_run_code_or_hang(text, fragment, capfd):
    with pytest.raises(ValueError, match=fragment):
        exact_number(text, "scores", 0)
    assert "PWNED" not in capfd.readouterr().out


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1e400", sympy.Integer(10) ** 400),
        ("2**-3", sympy.Rational(1, 8)),
        ("exp(1000)", sympy.exp(1000)),
        ("sqrt(2)/2", sympy.sqrt(2) / 2),
        ("ln(3/2)", sympy.log(sympy.Rational(3, 2))),
        (" 7 ", sympy.Integer(7)),
    ],
)
def test_safe_parser_keeps_exact_forms(text, expected):
    assert exact_number(text) == expected


def test_float_warning_counts_only_floats():
    with pytest.warns(ExactConversionWarning, match="1 float input"):
        probs = PermuteAndFlip(1).distribution([0.1, 0, -1]).probabilities
    assert len(probs) == 3


@pytest.mark.parametrize("text", ["1e999999999", "1e-999999999", "2.5E+200000"])
def test_huge_decimal_exponents_are_refused_quickly(text):
    with pytest.raises(ValueError, match="decimal exponent"):
        exact_number(text, "epsilon")


def test_sequence_items_refuses_non_sequences_and_empty_ones():
    from exactdp.numbers import sequence_items

    assert sequence_items(range(3), "q", "a sequence of numbers") == [0, 1, 2]
    assert sequence_items((), "q", "a sequence of numbers") == []
    with pytest.raises(ValueError, match=r"^q must be a sequence of numbers, got 5$"):
        sequence_items(5, "q", "a sequence of numbers")
    with pytest.raises(ValueError, match=r"^f: q must be non-empty$"):
        sequence_items([], "q", "a sequence of numbers", "non-empty", func="f")


@pytest.mark.parametrize("value", [1, 7, 10**400, sympy.Integer(3), sympy.Rational(2, 7),
                                   sympy.S.Half, Fraction(3, 4), "5/3", np.int64(2)])
def test_fast_positive_path_equals_the_general_route(value):
    # plain ints and sympy Rationals skip sympy's sign machinery (issue 21, fixed cost);
    # the result is the exact number exact_number gives, of the same type
    from exactdp.numbers import exact_epsilon_or_limit

    want = exact_number(value, "epsilon")
    for got in (exact_epsilon(value), exact_sensitivity(value), exact_epsilon_or_limit(value)):
        assert got == want and type(got) is type(want)


@pytest.mark.parametrize("value", [0, sympy.Integer(0), -1, sympy.Rational(-1, 2), True])
def test_fast_positive_path_leaves_zero_and_negatives_to_the_checks(value):
    from exactdp.numbers import exact_epsilon_or_limit

    with pytest.raises(ValueError, match="epsilon must be"):
        exact_epsilon(value)
    if value is True:
        return
    if value == 0:
        assert exact_epsilon_or_limit(value) == 0
    else:
        with pytest.raises(ValueError, match=r"epsilon must be >= 0"):
            exact_epsilon_or_limit(value)


@pytest.mark.parametrize("value", [float("nan"), np.float64("nan"), float("-inf"), "nan",
                                   " -oo", sympy.nan, -sympy.oo, Decimal("NaN"),
                                   Decimal("sNaN"), Decimal("-Infinity")])
def test_nan_and_minus_infinity_name_the_accepted_range(value):
    """Where ``inf`` is accepted as the limit ``oo`` (and 0 as the other limit), NaN and
    ``-inf`` are refused with the range that is accepted, not "finite"; the accepted
    ends themselves still pass."""
    from exactdp.numbers import exact_epsilon_or_limit

    with pytest.raises(ValueError, match=r"^f: epsilon must be a real number >= 0 or oo, "
                                         r"got "):
        exact_epsilon_or_limit(value, "f")
    assert exact_epsilon_or_limit(float("inf"), "f") == sympy.oo
    assert exact_epsilon_or_limit(0.0, "f") == 0
