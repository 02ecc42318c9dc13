"""exactdp.analysis.utility: error tails, dominance, worst-case error, ratio studies."""

import numpy as np
import pytest
import sympy

import exactdp
from exactdp import ExponentialMechanism, PermuteAndFlip, ReportNoisyMax
from exactdp.analysis.utility import (
    certify_dominance,
    check_dominance,
    error_ratio_study,
    error_tails,
    worst_case_error,
)

EPS = sympy.Symbol("epsilon", positive=True)


def test_error_tails_exact_values():
    d = PermuteAndFlip(1).distribution([0, -1, -2])
    x = sympy.exp(-sympy.Rational(1, 2))
    tails = error_tails(d)
    assert [t for t, _ in tails] == [1, 2]
    # Pr[err >= 1] = P_1 + P_2, Pr[err >= 2] = P_2 (docs/formulas.md section 2 polynomials)
    want1 = x / 2 - x**3 / 6 + x**2 / 2 - x**3 / 6
    want2 = x**2 / 2 - x**3 / 6
    assert sympy.simplify(tails[0][1] - want1) == 0
    assert sympy.simplify(tails[1][1] - want2) == 0


def test_dominates_pf_over_em_at_numeric_epsilon():
    q = [3, 1, 0, 0, -2]
    pf = PermuteAndFlip(2).distribution(q)
    em = ExponentialMechanism(2).distribution(q)
    res = check_dominance(pf, em)
    assert res.holds and res.witness is None
    assert all(float(m) > 0 for _, m in res.margins)
    back = check_dominance(em, pf)
    assert not back.holds and back.witness == 2  # the smallest gap, q* - q_1


def test_dominates_requires_same_scores():
    with pytest.raises(ValueError, match="check_dominance: dist_b must be a distribution on"):
        check_dominance(PermuteAndFlip(1).distribution([0, 1]),
                  ExponentialMechanism(1).distribution([0, 2]))


def test_certify_dominance_rnm_exp_vs_gumbel_and_mismatch():
    cert = certify_dominance(ReportNoisyMax(EPS), ReportNoisyMax(EPS, noise="gumbel"),
                             ["1/2", 0, -1])
    assert cert.holds and cert.verify()
    assert cert.thresholds == (sympy.Rational(1, 2), sympy.Rational(3, 2))
    with pytest.raises(ValueError, match="certify_dominance: mech_b must be a mechanism with the"):
        certify_dominance(PermuteAndFlip(1), ExponentialMechanism(2), [0, -1])
    with pytest.raises(ValueError, match="not rational"):
        certify_dominance(PermuteAndFlip(1), ReportNoisyMax(1, noise="laplace"), [0, -1])


def test_worst_case_error_values_and_bad_n():
    em = worst_case_error(ExponentialMechanism(1), 2)
    assert float(em) == float(em.error) == pytest.approx(0.556929, abs=1e-6)
    with pytest.raises(ValueError, match="n must be"):
        worst_case_error(PermuteAndFlip(1), 1)


@pytest.mark.parametrize("n", [10**6, 10**8])
def test_worst_case_error_on_a_huge_n_refuses_before_the_scan(n):
    from exactdp.cost import WORST_CASE_SECONDS_LIMIT, TooCostly, worst_case_seconds

    # the estimate grows linearly and stays under the limit at the sizes measured in seconds
    assert worst_case_seconds(10**5, 30) <= WORST_CASE_SECONDS_LIMIT < worst_case_seconds(n, 30)
    with pytest.raises(TooCostly) as err:
        worst_case_error(PermuteAndFlip(1), n)
    assert err.value.func == "worst_case_error"
    assert err.value.estimate == f"about {worst_case_seconds(n, 30):.3g} s"
    assert "smaller n (at most 230769 at dps = 30)" in str(err.value)
    assert "method='float'" in str(err.value)


def test_error_ratio_study_is_between_one_and_two():
    study = error_ratio_study(
        PermuteAndFlip(1), ExponentialMechanism(1), 20,
        lambda rng, n: rng.normal(0, 3, n), "scores i.i.d. N(0, 3^2)", trials=50, rng=1)
    assert 1 <= study.min_ratio <= study.mean_ratio <= study.max_ratio <= 2
    assert 1 < study.ratio_of_means < 2


def test_error_ratio_study_skips_zero_error_vectors():
    with pytest.raises(ValueError, match="zero error"):
        error_ratio_study(PermuteAndFlip(1), ExponentialMechanism(1), 3,
                          lambda rng, n: np.zeros(n), "all tied", trials=3)

S, R, Z = sympy.sqrt, sympy.Rational, sympy.Integer


def test_dominance_of_identical_distributions_is_a_tie_not_a_failure():
    # Thm 6.1 (Ding et al. 2021): PF and RNM-Exp have identical distributions, so every
    # margin is exactly 0 and each dominates the other; the two closed forms differ.
    eps, q = S(2) / 3, [0, -S(3), -R(1, 2), -S(5)]
    pf = PermuteAndFlip(eps).distribution(q)
    rnm = ReportNoisyMax(eps, noise="exponential").distribution(q)
    ab, ba = exactdp.check_dominance(pf, rnm), exactdp.check_dominance(rnm, pf)
    assert ab.holds and ba.holds and ab.certified


def test_dominance_margins_from_flint_equal_sympy_cancel():
    """Each margin ``Pr_B[err >= t] - Pr_A[err >= t]`` read from the flint polynomials is
    the expression ``sympy.fraction(sympy.cancel(sympy.together(...)))`` gives (the former
    route, the same srepr), for PF, EM, RNM-Gumbel and EM in base 2 at a symbolic, an
    integer and a rational epsilon, ties and negative scores included."""
    from exactdp.analysis.utility import _margin, _thresholds
    from exactdp.mechanisms import REGISTRY

    def by_sympy(ra, rb, t):
        ta = sympy.Add(*[f for g, f in zip(ra.gaps, ra.forms, strict=True) if g >= t])
        tb = sympy.Add(*[f for g, f in zip(rb.gaps, rb.forms, strict=True) if g >= t])
        return sympy.fraction(sympy.cancel(sympy.together(tb - ta)))

    eps = sympy.Symbol("epsilon", positive=True)
    checked = 0
    for q in ([3, 4, 3, 2, 2], [3, 8, 9, 8, 10], [0, -1, -2], [5, 1, 1, 1, 0, 3]):
        for e in (eps, sympy.Integer(1), sympy.Rational(1, 3)):
            em = ExponentialMechanism(e).distribution(q).rational_form()
            for key in ("pf", "em", "rnm-gumbel", "em-base2"):
                mech = REGISTRY[key].at_epsilon(e, sensitivity=1, monotonic=False)
                ra = mech.distribution(q).rational_form()
                rb = em if ra.value == em.value else ra
                assert ra.polys is not None
                for t in _thresholds(ra.gaps):
                    got, want = _margin(ra, rb, t), by_sympy(ra, rb, t)
                    assert sympy.srepr(got) == sympy.srepr(want)
                    checked += 1
    assert checked > 50


def test_worst_case_error_at_epsilon_zero_is_refused_in_one_line():
    """At epsilon 0 permute-and-flip is uniform: on (0, -g, -g) the error is 2g/3 (exact
    enumeration below), unbounded in g, so worst_case_error refuses by name."""
    d = exactdp.PermuteAndFlip(0).distribution([0, -5, -5])
    assert list(d.probabilities) == [sympy.Rational(1, 3)] * 3
    with pytest.raises(ValueError, match=r"^worst_case_error: at epsilon 0 .*unbounded"):
        exactdp.worst_case_error(exactdp.PermuteAndFlip(0), 3)
