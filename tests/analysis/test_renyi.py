"""exactdp.analysis.renyi: the validated exact probabilities every divergence reads."""

from __future__ import annotations

import pytest
import sympy

import exactdp
from exactdp.analysis.renyi import exact_probabilities, renyi_divergence

R = sympy.Rational


def test_exact_probabilities_reads_sequences_and_distributions():
    assert exact_probabilities([R(1, 3), "2/3"], "P") == (R(1, 3), R(2, 3))
    dist = exactdp.PermuteAndFlip(sympy.log(2)).distribution([0, 0])
    assert exact_probabilities(dist, "P") == (R(1, 2), R(1, 2))  # symmetric: 1/2 each


@pytest.mark.parametrize(
    ("probs", "message"),
    [([0.5, 0.5], r"P\[0\]: float 0.5; exact probabilities are required"),
     ([R(3, 2), R(-1, 2)], r"P\[1\] = -1/2 is negative"),
     ([], "P: empty probability vector"),
     (5, "P: expected probabilities or a distribution")],
)
def test_exact_probabilities_refuses_floats_negatives_and_empty_input(probs, message):
    with pytest.raises(ValueError, match=message):
        exact_probabilities(probs, "P")


def test_renyi_of_order_two_by_hand():
    # D_2(P || Q) = ln(sum P^2 / Q) = ln((1/4)/(1/4) + (1/4)/(3/4)) = ln(4/3)
    d = renyi_divergence([R(1, 2), R(1, 2)], [R(1, 4), R(3, 4)], 2)
    assert d.value == sympy.log(R(4, 3)) and d.alpha == 2
