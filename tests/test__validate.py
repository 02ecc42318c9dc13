"""exactdp._validate: the argument checks and their one message style."""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest
import sympy

from exactdp._validate import (
    MAX_DPS,
    argument_error,
    check_bool,
    check_callable,
    check_choice,
    check_dps,
    check_instance,
    check_int,
    check_nonempty,
    check_real,
    check_same_length,
    check_size,
    describe,
    integer_range,
    message,
    short_number,
)

#: The one style: "{func}: {name} must be {what}, got {value!r}".
STYLE = re.compile(r"^(?P<func>[^:]+): (?P<name>\S+) must be (?P<what>.+), got (?P<value>.+)$")


def parts(exc: pytest.ExceptionInfo) -> dict[str, str]:
    m = STYLE.match(str(exc.value))
    assert m, f"not in the one style: {exc.value}"
    return m.groupdict()


def test_message_and_argument_error():
    text = message("TopK", "k", "a positive integer", 0)
    assert text == "TopK: k must be a positive integer, got 0"
    assert message(None, "scores", "non-empty") == "scores must be non-empty"
    assert message("f", "s", "a word", "x") == "f: s must be a word, got 'x'"
    assert message("f", "v", "absent", None) == "f: v must be absent, got None"
    err = argument_error("f", "alpha", "in (0, 1)", 2)
    assert type(err) is ValueError and str(err) == "f: alpha must be in (0, 1), got 2"


def test_describe_shortens_long_values():
    assert describe(3) == "3" and describe("ab") == "'ab'"
    assert describe(np.zeros(100)) == "array of shape (100,) and dtype float64"
    assert len(describe(list(range(10_000)))) < 100
    assert len(describe("x" * 10_000)) <= 210


@pytest.mark.parametrize(
    "low, high, text",
    [(None, None, "an integer"), (1, None, "a positive integer"),
     (0, None, "a non-negative integer"), (2, None, "an integer >= 2"),
     (None, 5, "an integer <= 5"), (1, 9, "an integer in 1..9")],
)
def test_integer_range(low, high, text):
    assert integer_range(low, high) == text


@pytest.mark.parametrize("good, out", [(3, 3), (np.int64(4), 4), (sympy.Integer(5), 5)])
def test_check_int_accepts_integers(good, out):
    got = check_int("f", "k", good, 1, 10)
    assert got == out and type(got) is int


@pytest.mark.parametrize("bad", [True, np.bool_(False), 2.0, "3", Fraction(3), None, 0, 11])
def test_check_int_refuses(bad):
    with pytest.raises(ValueError) as info:
        check_int("TopK", "k", bad, 1, 10)
    shown = bad.item() if isinstance(bad, np.generic) else bad  # np.False_ reads False
    assert parts(info) == {"func": "TopK", "name": "k", "what": "an integer in 1..10",
                           "value": repr(shown)}


def test_check_dps_bounds():
    assert check_dps("evalf", 1) == 1 and check_dps("evalf", MAX_DPS) == MAX_DPS
    assert check_dps("evalf", 50, limit=50) == 50
    for bad in (0, MAX_DPS + 1, 30.0, True):
        with pytest.raises(ValueError, match=r"^evalf: dps must be an integer in 1\.\.10000, got"):
            check_dps("evalf", bad)
    with pytest.raises(ValueError, match=r"^g: dps must be an integer in 1\.\.50, got 51$"):
        check_dps("g", 51, limit=50)


def test_check_bool():
    assert check_bool("f", "flag", np.bool_(True)) is True
    assert check_bool("f", "flag", False) is False
    for bad in (1, 0, "yes", None):
        with pytest.raises(ValueError) as info:
            check_bool("PermuteAndFlip", "monotonic", bad)
        assert parts(info)["what"] == "True or False" and parts(info)["value"] == repr(bad)


def test_check_choice():
    assert check_choice("f", "method", "exact", ("exact", "float")) == "exact"
    with pytest.raises(ValueError, match=r"^f: optimize must be 'max' or 'min', got 'mid'$"):
        check_choice("f", "optimize", "mid", ("max", "min"))
    with pytest.raises(ValueError, match=r"^f: fmt must be one of 'a', 'b', 'c', got \['a'\]$"):
        check_choice("f", "fmt", ["a"], ("a", "b", "c"))  # unhashable: refused, not TypeError
    with pytest.raises(ValueError, match="must be 'x', got"):
        check_choice("f", "m", np.array([1, 2]), ("x",))  # no ambiguous truth value


def test_check_callable_instance_nonempty():
    assert check_callable("f", "check", len) is len
    with pytest.raises(ValueError, match=r"^sweep: check must be callable, got 3$"):
        check_callable("sweep", "check", 3)
    assert check_instance("f", "x", 2, int, "an int") == 2
    with pytest.raises(ValueError, match=r"^f: x must be an exactdp Mechanism, got 'm'$"):
        check_instance("f", "x", "m", int, "an exactdp Mechanism")
    assert check_nonempty("f", "epsilons", [1]) == [1]
    with pytest.raises(ValueError, match=r"^f: epsilons must be non-empty$"):
        check_nonempty("f", "epsilons", ())


def test_check_same_length():
    assert check_same_length("f", ("scores", "neighbour"), ([1, 2], (3, 4))) == 2
    with pytest.raises(ValueError) as info:
        check_same_length("f", ("scores", "labels", "neighbour"), ([1, 2], "ab", [1, 2, 3]))
    assert parts(info) == {"func": "f", "name": "len(neighbour)", "what": "2 (= len(scores))",
                           "value": "3"}


def test_check_real():
    assert check_real("g", "alpha", 0.05, 0, 1, low_open=True, high_open=True) == 0.05
    assert check_real("g", "alpha", Fraction(1, 4), 0, 1) == 0.25
    assert check_real("g", "t", 0, 0) == 0.0
    for bad in (0, 1, 1.5, float("nan"), True, "0.5", None):
        with pytest.raises(ValueError) as info:
            check_real("g", "alpha", bad, 0, 1, low_open=True, high_open=True)
        assert parts(info)["what"] == "a real number in (0, 1)"
    with pytest.raises(ValueError, match=r"must be a real number > 0, got 0"):
        check_real("g", "min_expected", 0, 0, low_open=True)
    with pytest.raises(ValueError, match=r"must be a real number <= 2, got inf"):
        check_real("g", "x", float("inf"), high=2)


def test_check_size():
    assert check_size("sample", 0) == (0,)
    assert check_size("sample", np.int32(3)) == (3,)
    assert check_size("sample", (2, 3)) == (2, 3)
    assert check_size("sample", ()) == ()
    for bad in (-1, 2.0, (2, -1), [2, 3], True, (True,)):
        with pytest.raises(ValueError) as info:
            check_size("sample", bad)
        assert parts(info)["name"] == "size"


def test_numbers_speak_the_same_style():
    """exactdp.numbers words its refusals through the same helper."""
    from exactdp.numbers import exact_epsilon, exact_number

    with pytest.raises(ValueError) as info:
        exact_epsilon(-1, "ExponentialMechanism")
    assert parts(info) == {"func": "ExponentialMechanism", "name": "epsilon", "what": "> 0",
                           "value": "-1"}
    with pytest.raises(ValueError, match=r"^scores\[3\] must be a finite real number, got nan$"):
        exact_number(float("nan"), "scores", 3)
    with pytest.raises(ValueError, match=r"^f: q\[0\] must be a number \(unknown name 'abc'\)"):
        exact_number("abc", "q", 0, func="f")


def test_short_number_abbreviates_huge_and_tiny_rationals():
    # a refusal once printed a 301-digit difference; values checked against float's own text
    assert short_number(10**300) == "1.0e+300" == f"{1e300:.1e}"
    assert short_number(-(10**300) + 1) == "-1.0e+300"
    assert short_number(Fraction(1, 10**300)) == "1.0e-300" == f"{1e-300:.1e}"
    assert short_number(sympy.Rational(-(10**300), 3)) == f"{-1e300 / 3:.1e}"
    assert short_number(sympy.Integer(10) ** 5000) == "1.0e+5000"  # str() would raise here
    assert short_number(12345) == "12345" and short_number(Fraction(1, 3)) == "1/3"
    assert short_number(True) == "True" and short_number("x") == "x"
    assert describe(10**300) == "1.0e+300" and describe(7) == "7"


def test_describe_prints_numpy_scalars_as_python_values():
    """``np.float64(nan)`` reads ``nan`` in a message, as for the shipped mechanisms."""
    from exactdp.programs import bernoulli, program

    assert describe(np.float64("nan")) == "nan" and describe(np.int64(3)) == "3"

    @program()
    def ncoin(q, epsilon):
        return bernoulli(q[0])

    with pytest.raises(ValueError, match=r"scores\[0\] must be a finite real number, got nan$"):
        ncoin(epsilon=1).distribution([float("nan")])
