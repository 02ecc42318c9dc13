"""exactdp.analysis.renyi: Renyi, KL and max divergences against closed forms; the validated
exact probabilities every divergence reads."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy

import exactdp
from exactdp.analysis.renyi import (
    exact_probabilities,
    kl_divergence,
    max_divergence,
    renyi_divergence,
)
from exactdp.exact import UndecidedSignError

from .test_outputs import overlap

R = sympy.Rational


def test_exact_probabilities_reads_sequences_and_distributions():
    assert exact_probabilities([R(1, 3), "2/3"], "P") == (R(1, 3), R(2, 3))
    dist = exactdp.PermuteAndFlip(sympy.log(2)).distribution([0, 0])
    assert exact_probabilities(dist, "P") == (R(1, 2), R(1, 2))  # symmetric: 1/2 each


@pytest.mark.parametrize(
    ("probs", "message"),
    [([0.5, 0.5], r"^P\[0\] must be an exact probability, not a float, got 0.5$"),
     ([R(3, 2), R(-1, 2)], r"^P\[1\] must be a probability \(>= 0\), got -1/2$"),
     ([], "^P must be non-empty$"),
     (5, "^P must be probabilities or a distribution, got 5$")],
)
def test_exact_probabilities_refuses_floats_negatives_and_empty_input(probs, message):
    with pytest.raises(ValueError, match=message):
        exact_probabilities(probs, "P")


def test_renyi_of_order_two_by_hand():
    # D_2(P || Q) = ln(sum P^2 / Q) = ln((1/4)/(1/4) + (1/4)/(3/4)) = ln(4/3)
    d = renyi_divergence([R(1, 2), R(1, 2)], [R(1, 4), R(3, 4)], 2)
    assert d.value == sympy.log(R(4, 3)) and d.alpha == 2


def test_renyi_closed_forms_and_kl_limit():
    P, Q = [R(1, 2), R(1, 2)], [R(1, 4), R(3, 4)]
    assert renyi_divergence(P, Q, 2).value == sympy.log(R(1, 4) * 4 + R(1, 4) * R(4, 3))
    assert sympy.simplify(
        kl_divergence(P, Q).value - (sympy.log(2) / 2 + sympy.log(R(2, 3)) / 2)
    ) == 0
    assert renyi_divergence(P, Q, 1) == kl_divergence(P, Q)
    assert renyi_divergence(P, Q, sympy.oo).value == sympy.log(2)
    # independent route: numpy, and the alpha -> 1 limit
    p, q = np.array([0.5, 0.5]), np.array([0.25, 0.75])
    for a in (R(3, 2), R(5, 1), R(1, 2)):
        ref = math.log(np.sum(p ** float(a) * q ** (1 - float(a)))) / (float(a) - 1)
        assert abs(float(renyi_divergence(P, Q, a)) - ref) < 1e-14
    near = float(renyi_divergence(P, Q, R(1001, 1000)))
    assert abs(near - float(kl_divergence(P, Q))) < 1e-3


def test_supports_and_bad_alpha():
    assert renyi_divergence([1, 0], [R(1, 2), R(1, 2)], 2).value == sympy.log(2)
    assert renyi_divergence([R(1, 2), R(1, 2)], [1, 0], 2).value is sympy.oo
    assert kl_divergence([R(1, 2), R(1, 2)], [1, 0]).value is sympy.oo
    assert max_divergence([R(1, 2), R(1, 2)], [1, 0]).value is sympy.oo
    with pytest.raises(ValueError, match="renyi_divergence: alpha must be a rational number > 0"):
        renyi_divergence([1, 0], [1, 0], 0)
    with pytest.raises(ValueError, match="renyi_divergence: alpha must be exact"):
        renyi_divergence([1, 0], [1, 0], 1.5)
    with pytest.raises(ValueError, match=r"renyi_divergence: len\(Q\) must be 2 \(= len\(P\)\)"):
        renyi_divergence([1, 0], [1], 2)


def test_distributions_are_accepted():
    m = exactdp.ExponentialMechanism(1)
    d1, d2 = m.distribution([0, 0]), m.distribution([1, -1])
    assert renyi_divergence(d1, d2, 2) == renyi_divergence(d1.probabilities, d2.probabilities, 2)

S, R, Z = sympy.sqrt, sympy.Rational, sympy.Integer


# ---------------------------------------------------------------- results carry certified
def test_divergences_are_results_with_value_and_certified():
    P, Q = (R(1, 2), R(1, 2)), (R(1, 4), R(3, 4))
    kl = exactdp.kl_divergence(P, Q)
    assert kl.certified and kl.alpha == 1
    # KL = 1/2 ln 2 + 1/2 ln(2/3), by hand
    assert exactdp.exact.sign(kl.value - (sympy.log(2) / 2 + sympy.log(R(2, 3)) / 2)) == 0
    mx = exactdp.max_divergence(P, Q)
    assert mx.value == sympy.log(2) and mx.alpha is sympy.oo
    assert abs(float(exactdp.renyi_divergence(P, Q, 2)) - float(sympy.log(R(4, 3)))) < 1e-15


def test_max_divergence_symbolic_tie_raises():
    # ratios 2 and e^eps / 2 cannot be ordered for every epsilon: never a silent pick
    eps = sympy.Symbol("epsilon", positive=True)
    P = (R(1, 2), R(1, 2))
    Q = (R(1, 4), R(1, 2) * sympy.exp(-eps))
    with pytest.raises(UndecidedSignError):
        exactdp.max_divergence(P, Q)


def test_kl_two_point_closed_form():
    P, Q = (R(1, 2), R(1, 2)), (R(1, 4), R(3, 4))
    want = R(1, 2) * sympy.log(2) + R(1, 2) * sympy.log(R(2, 3))
    got = kl_divergence(P, Q)
    assert sympy.simplify(sympy.sympify(got.value) - want) == 0
    # KL of a distribution with itself is 0, and infinite when Q misses P's support
    assert sympy.sympify(kl_divergence(P, P).value) == 0
    assert kl_divergence((1, 0), (0, 1)).value == sympy.oo


def test_every_discrete_kind_sparse_vector_sequences():
    """The divergences take the sparse vector's answer-sequence distributions (output kind
    "sequence") like any other. Independent route: SVT Algorithm 5 (no query noise) with
    epsilon = 2 (lam = 2, rho ~ Lap(1)), T = 0, one query a: True iff rho <= a, so
    Pr[True] = F(a), the Laplace(1) CDF. a = 0: (1/2, 1/2); a = 1: (1 - e^-1/2, e^-1/2).
    max divergence = max(ln(1/2 / (1 - e^-1/2)), ln((1/2) / (e^-1/2))) = 1 (the second)."""
    m = exactdp.SparseVector(2, 0, variant=5)
    d0, d1 = m.distribution([0]), m.distribution([1])
    assert d1.probabilities == (1 - sympy.exp(-1) / 2, sympy.exp(-1) / 2)
    assert sympy.simplify(max_divergence(d0, d1).value - 1) == 0
    kl = kl_divergence(d0, d1).value
    ref = (sympy.Rational(1, 2) * sympy.log(sympy.Rational(1, 2) / (1 - sympy.exp(-1) / 2))
           + sympy.Rational(1, 2) * sympy.log(sympy.Rational(1, 2) / (sympy.exp(-1) / 2)))
    assert abs(float(kl - ref)) < 1e-15
    two = exactdp.SparseVector(1, 0).distribution([0, 1])  # Algorithm 1, two queries
    assert max_divergence(two, two).value == 0


def test_divergences_of_a_sequence_mechanism_align_outputs_by_value():
    """The two distributions of ``overlap`` share the output False only: KL and max
    divergence from (1,) to (0,) are infinite (True has Q = 0), and the order-1/2 Renyi
    divergence is, by hand, -2 ln sqrt(P_False Q_False) = -ln((1/2)(1 - e^-1/2))."""
    m = overlap(epsilon=1)
    P, Q = m.distribution([1]), m.distribution([0])
    assert kl_divergence(P, Q).value is sympy.oo
    assert max_divergence(Q, P).value is sympy.oo
    half = renyi_divergence(P, Q, R(1, 2)).value
    assert sympy.simplify(half + sympy.log(R(1, 2) * (1 - sympy.exp(-1) / 2))) == 0


def test_renyi_divergence_at_a_tiny_alpha_against_mpmath():
    """alpha = 1e-300 (a rational with a 301-digit denominator: arb's root index overflows,
    the power is exp(alpha log x)): the value against mpmath at 700 digits of
    log(sum P^a Q^(1-a)) / (a - 1), P uniform, Q = (e^(-1/2)/2, 1 - e^(-1/2)/2)."""
    import mpmath

    P = exactdp.PermuteAndFlip(1).distribution([0, 0])
    Q = exactdp.PermuteAndFlip(1).distribution([0, 1])
    d = exactdp.renyi_divergence(P, Q, "1e-300")
    with mpmath.workdps(700):
        a = mpmath.mpf(10) ** -300
        q0 = mpmath.exp(-0.5) / 2
        s = sum(mpmath.mpf(0.5) ** a * q ** (1 - a) for q in (q0, 1 - q0))
        ref = mpmath.log(s) / (a - 1)
        assert abs(mpmath.mpf(d.lower.numerator) / d.lower.denominator - ref) < 1e-10 * ref
        assert abs(ref / mpmath.mpf(float(d)) - 1) < 1e-12


def test_disjoint_supports_below_order_one_are_infinite():
    # sum_r P_r^a Q_r^(1-a) = 0, so log(0) / (a - 1) = +oo for every order (never zoo)
    P = exactdp.PermuteAndFlip("oo").distribution([0, 1])
    Q = exactdp.PermuteAndFlip("oo").distribution([1, 0])
    for a in ("1/3", "1/2", 1, "3/2", 2):
        d = exactdp.renyi_divergence(P, Q, a)
        assert d.value == sympy.oo and d.certified
    # overlapping supports keep the closed form: D_(1/2) = -2 log(sum sqrt(p q))
    d = exactdp.renyi_divergence(["1/2", "1/2", 0], [0, "1/2", "1/2"], "1/2")
    assert d.value == -2 * sympy.log(sympy.Rational(1, 2))
