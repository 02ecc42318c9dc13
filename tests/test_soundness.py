"""Issue 8 regressions: no numeric guess passes as exact or certified.

Each test names the hole (issue 8, "Holes found so far") and checks the right value by an
independent route: integer arithmetic, a closed form evaluated by mpmath, or a theorem.
"""

from __future__ import annotations

import mpmath
import pytest
import sympy

import exactdp
from exactdp import ExponentialMechanism, PermuteAndFlip, ReportNoisyMax
from exactdp.exact import UndecidedSignError, mpf_to_arb
from exactdp.mechanisms.base import ball

S, R, Z = sympy.sqrt, sympy.Rational, sympy.Integer


# ---------------------------------------------------------------- hole 2: signs by float
def test_score_maximum_is_decided_exactly_not_at_60_digits():
    # b = ceil(sqrt(2) 10^80) / 10^80 exceeds sqrt(2) by less than 1e-80: the float
    # comparison N(diff, 60) cannot see it. Independent route: b^2 > 2 in integers.
    k = 10**80
    num = sympy.integer_nthroot(2 * k * k, 2)[0] + 1
    assert num * num > 2 * k * k and (num - 1) ** 2 < 2 * k * k
    b = R(num, k)
    sv = exactdp.as_scores([S(2), b, 0])
    assert sv.argmax_set == (1,)
    assert sv.gaps_exact[1] == 0 and sv.gaps_exact[0] == b - S(2)


def test_equal_irrational_scores_tie_exactly():
    # sqrt(8) and 2 sqrt(2) are the same number written differently (minimal polynomial)
    sv = exactdp.as_scores([S(8), 2 * S(2), 1])
    assert sv.argmax_set == (0, 1) and sv.gaps_exact[:2] == (0, 0)


def test_dominance_of_identical_distributions_is_a_tie_not_a_failure():
    # Thm 6.1 (Ding et al. 2021): PF and RNM-Exp have identical distributions, so every
    # margin is exactly 0 and each dominates the other; the two closed forms differ.
    eps, q = S(2) / 3, [0, -S(3), -R(1, 2), -S(5)]
    pf = PermuteAndFlip(eps).distribution(q)
    rnm = ReportNoisyMax(eps, noise="exponential").distribution(q)
    ab, ba = exactdp.check_dominance(pf, rnm), exactdp.check_dominance(rnm, pf)
    assert ab.holds and ba.holds and ab.certified


# ---------------------------------------------------------------- hole 7: undecided as 0
def test_bounded_range_with_symbolic_epsilon_raises_instead_of_zero():
    eps = sympy.Symbol("epsilon", positive=True)
    with pytest.raises(UndecidedSignError, match="symbolic epsilon"):
        exactdp.bounded_range(ReportNoisyMax(eps, noise="laplace"), [0, -1, -2], [1, -2, -1])


def test_bounded_range_numeric_matches_mpmath_log_ratios():
    # independent route: the mpmath view of both distributions, max - min of log-ratios
    m = ReportNoisyMax(1, noise="laplace")
    res = exactdp.bounded_range(m, [0, -1, -2], [1, -2, -1])
    with mpmath.workdps(40):
        p = m.distribution([0, -1, -2]).evalf(40)
        p2 = m.distribution([1, -2, -1]).evalf(40)
        logs = [mpmath.log(a / b) for a, b in zip(p, p2, strict=True)]
        ref = max(logs) - min(logs)
        assert abs(mpmath.mpf(sympy.N(res.value, 40)) - ref) < mpmath.mpf(10) ** -35
    assert res.certified and res.caveat is None


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


def test_regularity_and_zcdp_results_say_certified():
    m = PermuteAndFlip(1)
    assert exactdp.is_symmetric(m, n=2).certified
    z = exactdp.check_zcdp(ExponentialMechanism(1), [0, -1], R(1, 8), [1, -2])
    assert z.certified and z.holds is (exactdp.exact.sign(z.divergence - R(1, 8) * z.alpha) < 1)


def test_zcdp_decides_a_failure_exactly():
    # PF is not eps^2/8-zCDP (Durfee & Rogers 2019; docs/formulas.md section 6): the failure is a
    # proved positive excess, re-checked here by sign() on the exact divergence
    z = exactdp.check_zcdp(PermuteAndFlip(1, monotone=True), [0, 0], R(1, 8), [0, 1])
    assert not z.holds
    assert exactdp.exact.sign(z.divergence - R(1, 8) * z.alpha) == 1


# ---------------------------------------------------------------- hole 4: assumed radii
def test_pf_balls_at_log2_with_a_huge_irrational_gap_are_proved():
    # two items, gap g = 10^7 + sqrt 2, eps = log 2, c = 2: PF loses w.p. p/2 with
    # p = exp(-eps g / 2) = 2^(-g/2) (docs/formulas.md section 2). mpmath at 80 digits is the
    # independent route.
    g = 10**7 + S(2)
    d = PermuteAndFlip(sympy.log(2)).distribution([0, -g])
    lose = d.evalf_balls(30)[1]
    with mpmath.workdps(80):
        ref = mpmath.power(2, -(10**7 + mpmath.sqrt(2)) / 2) / 2
    assert lose.contains(mpf_to_arb(ref))
    assert lose.rel_accuracy_bits() > 95  # about 30 digits, as asked
    assert d.balls_certified == (True, None)


def test_em_and_laplace_balls_contain_closed_forms():
    # EM two items: lose w.p. p/(1+p); RNM-Laplace three items at eps = 1: formulas section 7
    d = ExponentialMechanism(sympy.log(3)).distribution([0, -2])  # p = 3^(-1) = 1/3
    b = d.evalf_balls(40)
    assert b[1].contains(mpf_to_arb(mpmath.mpf(1) / 4)) and b[1].rad() < mpmath.mpf(10) ** -39
    lap = ReportNoisyMax(1, noise="laplace").distribution([0, -1, -2]).evalf_balls(20)
    for ball_, ref in zip(lap, ("0.519651", "0.305706", "0.174643"), strict=True):
        assert abs(float(ball_.mid()) - float(ref)) < 6e-7


def test_gaussian_beyond_24_items_is_not_certified():
    # the per-item ball route is rigorous up to 24 items; beyond, the trapezoid bound is not
    m = exactdp.GaussianNoisyMax(1)
    assert m.distribution(list(range(24))).balls_certified == (True, None)
    ok, caveat = m.distribution(list(range(25))).balls_certified
    assert not ok and "24 items" in caveat


def test_ball_keeps_the_sign_of_negative_midpoints():
    b = ball(mpmath.mpf("-0.5"), mpmath.mpf(2) ** -40)
    assert b.contains(mpf_to_arb(mpmath.mpf("-0.5"))) and b < 0
