"""Regressions from the fresh-user audit of this batch (each asserts the refusal or value)."""

import concurrent.futures

import pytest
import sympy

import exactdp
from exactdp import PermuteAndFlip
from exactdp.io.cli import main as cli_main
from exactdp.sweeps import count_score_vectors


def test_certify_dp_refuses_epsilon_limits():
    # The certificate covers 0 < epsilon < oo; at the argmax limit PF's loss on this pair is
    # infinite (privacy_loss says so), so a certificate there would contradict it.
    assert exactdp.privacy_loss(PermuteAndFlip("oo"), [0, 1, 1], [1, 0, 1]).value == sympy.oo
    for eps in ("oo", 0):
        with pytest.raises(ValueError, match="limit"):
            exactdp.certify_dp(PermuteAndFlip(eps), [0, 1, 1], [1, 0, 1])
    # a finite epsilon still certifies (PF is eps-DP for every eps > 0)
    assert exactdp.certify_dp(PermuteAndFlip(1), [0, 1, 1], [1, 0, 1]).holds


def _string_check(q):
    return "no"


def _true(q):
    return True


def test_sweep_counts_a_non_bool_result_as_a_failure():
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        res = exactdp.sweep(_string_check, 2, 1, executor=pool, progress=False)
    assert res.cases == 2 and not res.holds
    assert all("not a bool" in detail for _, detail in res.failures)


def test_sweep_refuses_huge_families_and_unpicklable_checks():
    with pytest.raises(ValueError, match="more than"):
        exactdp.sweep(_true, 10**6, 10**6)
    with pytest.raises(ValueError, match="picklable"):
        exactdp.sweep(lambda q: True, 2, 1)
    # the early stop never undercounts a family below the limit: C(8, 4) = 70 at n = 5
    assert count_score_vectors(5, 4, n_min=5, stop=10**7) == 70


def test_prove_caps_workers(capsys):
    assert cli_main(["prove", "thm_5_2_dominance", "--workers", "100000"]) == 2
    assert "--workers must be between 1 and" in capsys.readouterr().err


def test_pld_checks_the_neighbour_like_privacy_loss():
    with pytest.raises(ValueError, match="exceeds the sensitivity"):
        exactdp.privacy_loss_distribution(PermuteAndFlip(2), [0, 0], [5, -5])
    pld = exactdp.privacy_loss_distribution(
        PermuteAndFlip(2), [0, 0], [5, -5], allow_non_neighbour=True)
    # P = (1/2, 1/2); Q = (1 - e^-10/2, e^-10/2): delta(0) = sum max(0, P - Q) = 1/2 - e^-10/2
    assert sympy.simplify(pld.delta(0).exact() - (sympy.Rational(1, 2)
                                                    - sympy.exp(-10) / 2)) == 0


def test_self_compose_refuses_astronomical_k_quickly():
    import time
    pld = exactdp.privacy_loss_distribution(PermuteAndFlip(2), [0, 0], [1, -1])
    t = time.perf_counter()
    with pytest.raises(ValueError, match="beyond the limit"):
        pld.self_compose(10**9)
    with pytest.raises(ValueError, match="beyond the limit"):
        exactdp.check_accountant(PermuteAndFlip(2), [0, 0], 10**9, [8])
    assert time.perf_counter() - t < 10


def test_monotonic_keyword_is_the_monotone_flag():
    # issue 13's signature: ExponentialMechanism(epsilon, sensitivity=1, monotonic=False,
    # base_measure=None); monotone stays accepted.
    em = exactdp.ExponentialMechanism(1, sensitivity=1, monotonic=True, base_measure=None)
    assert em.monotone and em.monotonic and em.c == 1
    assert em == exactdp.ExponentialMechanism(1, 1, True)
    # monotonic EM on (0, -1): x = e^{-1}, Pr[0] = 1/(1 + e^{-1})
    p0 = em.distribution([0, -1]).probabilities[0]
    assert sympy.simplify(p0 - 1 / (1 + sympy.exp(-1))) == 0
    assert not exactdp.PermuteAndFlip(1).monotonic
    assert exactdp.PermuteAndFlip(1, monotonic=True).c == 1
    assert exactdp.ReportNoisyMax(1, noise="laplace", monotonic=True).monotone
    assert exactdp.GaussianNoisyMax(1, monotonic=True).monotone
    with pytest.raises(ValueError, match="contradict"):
        exactdp.PermuteAndFlip(1, monotone=True, monotonic=False)
    with pytest.raises(ValueError, match="monotonic must be"):
        exactdp.PermuteAndFlip(1, monotonic="yes")
