"""exactdp/analysis/composition.py: certified lower bounds of composed deltas."""

from __future__ import annotations

import itertools
import math

import sympy

import exactdp
from exactdp.analysis.composition import available_claims

from .test_outputs import overlap


def _enumerated_delta(p, q, k: int, eps) -> sympy.Expr:
    """delta(eps) of the k-fold product pair by summing every output sequence:
    sum_s max(0, P^k(s) - e^eps Q^k(s)) (the hockey-stick divergence's definition)."""
    total = sympy.Integer(0)
    for seq in itertools.product(range(len(p)), repeat=k):
        a = math.prod((p[i] for i in seq), start=sympy.Integer(1))
        b = math.prod((q[i] for i in seq), start=sympy.Integer(1))
        d = sympy.expand(a - sympy.exp(eps) * b)
        if d.evalf(50) > 0:
            total += d
    return total


def test_the_bound_is_the_witness_pairs_delta_by_enumeration():
    mech = exactdp.PermuteAndFlip(1)
    b = exactdp.composition_lower_bound(mech, [0, 0], 3, 1, progress=False)
    a, c = b.witness.scores, b.witness.neighbour
    truth = _enumerated_delta(mech.distribution(list(a)).probabilities,
                              mech.distribution(list(c)).probabilities, 3, 1)
    # delta(1) of PF(1) composed 3 times on (0,0) vs (-1,1): 0.2579242399305714...
    assert abs(sympy.N(truth, 30) - sympy.Float("0.2579242399305714", 30)) < 1e-15
    assert abs(sympy.N(b.value - truth, 40)) < sympy.Float(10) ** -35
    assert b.lower <= sympy.N(truth, 40) <= b.upper and b.certified
    assert b.k == 3 and b.neighbours_checked >= 1


def test_claims_available_are_the_installed_ones():
    claims = available_claims()
    assert {"basic", "kov", "bounded_range"} <= set(claims)
    rows = exactdp.check_accountant(exactdp.PermuteAndFlip(2), [0, 0], 10, [8],
                                    claims=("basic",), progress=False).rows
    # basic composition (10 rounds of 2-DP are 20-DP) is a true bound: its claimed delta(8)
    # is never below the certified lower bound, so the row holds
    assert [(r.claim, r.holds) for r in rows] == [("basic", True)]


def test_composition_over_different_output_sets_counts_the_infinite_mass():
    """Two runs from (1,) to (0,): some run outputs True (infinite loss) with probability
    1 - (1/2)^2 = 3/4; the other outcome, False twice, has P = 1/4 and loss
    2 ln((1/2)/(1 - e^-1/2)) < 0, adding nothing at epsilon 1: delta = 3/4 exactly (the
    float screen and the exact PLD both align the outputs by value)."""
    b = exactdp.composition_lower_bound(overlap(epsilon=1), [1], 2, 1)
    assert b.delta.value == sympy.Rational(3, 4)
    assert b.witness.scores == (1,) and b.witness.neighbour == (0,)

