"""exactdp/audit/inputs.py: goodness_of_fit's argument checks, one message style."""

from __future__ import annotations

import numpy as np
import pytest

from exactdp import PermuteAndFlip
from exactdp.audit.inputs import (
    check_alpha,
    check_min_expected,
    check_n_samples,
    check_test,
    probability_vector,
)


def test_n_samples_past_the_draw_limit_refuses_naming_the_estimate():
    from exactdp.cost import MAX_SAMPLE_DRAWS, TooCostly

    assert check_n_samples(MAX_SAMPLE_DRAWS) == MAX_SAMPLE_DRAWS
    with pytest.raises(TooCostly) as err:
        check_n_samples(10**13)
    assert err.value.func == "goodness_of_fit"
    assert err.value.estimate is not None and "8e+13 bytes" in err.value.estimate
    assert "smaller n_samples" in str(err.value)


def test_good_arguments_come_back_typed():
    assert check_n_samples(5) == 5 and check_alpha(0.05) == 0.05
    assert check_test("gtest") == "gtest" and check_min_expected("2.5") == 2.5


@pytest.mark.parametrize(("check", "value", "fragment"), [
    (check_n_samples, 0, "n_samples must be"),
    (check_alpha, 1.0, "alpha must be a number in (0, 1)"),
    (check_alpha, True, "alpha must be a number in (0, 1)"),
    (check_alpha, "x", "alpha must be a number in (0, 1)"),
    (check_test, "ks", "test must be"),
    (check_min_expected, float("inf"), "min_expected must be a finite number > 0"),
    (check_min_expected, 0, "min_expected must be a finite number > 0"),
])
def test_bad_arguments_are_refused_in_one_line(check, value, fragment):
    with pytest.raises(ValueError) as info:
        check(value)
    assert str(info.value).startswith("goodness_of_fit: ") and fragment in str(info.value)
    assert "\n" not in str(info.value)


def test_a_distribution_gives_its_float_view_in_outputs_order():
    dist = PermuteAndFlip(1).distribution([1, 0])
    p = probability_vector(dist)
    # P(0) = 1 - exp(-1/2)/2 (PF on two items: the runner-up is tried first half the time)
    assert p.shape == (2,) and abs(p[0] - (1 - np.exp(-0.5) / 2)) < 1e-15
    assert abs(p.sum() - 1) < 1e-15


def test_a_probability_vector_is_validated_and_normalised():
    p = probability_vector([0.25, 0.75 + 5e-10])
    assert abs(p.sum() - 1) < 1e-15 and p[0] == pytest.approx(0.25, rel=1e-9)
    for bad, fragment in [([], "shape"), ([0.5, -0.1, 0.6], "distribution[1] must be "
                                                           "non-negative"),
                          ([0.5, float("nan")], "distribution[1] must be finite"),
                          ("ab", "a distribution or a probability vector"),
                          ([0.5, 0.4], "1")]:
        with pytest.raises(ValueError, match=None) as info:
            probability_vector(bad)
        assert fragment in str(info.value), str(info.value)
