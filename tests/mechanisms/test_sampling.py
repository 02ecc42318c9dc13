"""exactdp's own samplers (EM, PF, RNM-exponential, RNM-Gumbel, RNM-Laplace) audited
against the exact output distributions with exactdp.audit.goodness_of_fit: the mechanisms'
algorithms themselves (``sample(..., algorithm="mechanism")``) and the default draws from the
float probabilities (``algorithm="pmf"``).

The expected probabilities come from the exact sympy expressions evaluated to 30 digits
(not from the float engines), so sampler and reference are independent routes. Seeds are
fixed: every audit is deterministic. Correct samplers must pass at alpha = 1e-4 (were the
seeds changed, 28 such audits would raise a false alarm with probability < 0.3%); samplers
that are wrong on purpose must be rejected with p < 1e-6 at the same sample size.
"""

from __future__ import annotations

import functools
import math

import pytest
import sympy

import exactdp
from exactdp.audit import goodness_of_fit
from tests.reference import PF_Q31002_EPS2, RNM_LAPLACE_Q012_EPS1

N = 50_000
ALPHA = 1e-4


def literal(dist):
    """The mechanism's own algorithm as a sampler (what an audit of the algorithm runs)."""
    return functools.partial(dist.sample, algorithm="mechanism")

# name -> (scores, epsilon, sensitivity, monotone)
CASES = {
    "known": ([3, 1, 0, 0, -2], 2, 1, False),  # docs/formulas.md section 7
    "ties": ([0, 0, 0, -1, -1], 1, 1, False),
    "monotone": ([5, 5, 4, 1], 1, 1, True),
    "tiny": ([0, -1, -2, -3, -45], 1, 1, False),  # last output: p ~ e^-22.5 ~ 1.7e-10
    "rational": (["1/2", 0, "-3/2", 2], 3, 2, False),
    "wide": ([7, 3, 3, 0, -1, -2, 5, 6, 1, 1, -4, 2], "1/2", 1, False),
}

MECHANISMS = {
    "EM": lambda e, s, m: exactdp.ExponentialMechanism(e, s, m),
    "PF": lambda e, s, m: exactdp.PermuteAndFlip(e, s, m),
    "RNM-exponential": lambda e, s, m: exactdp.ReportNoisyMax(e, s, m, noise="exponential"),
    "RNM-gumbel": lambda e, s, m: exactdp.ReportNoisyMax(e, s, m, noise="gumbel"),
}


def exact_vector(dist) -> list[float]:
    """The exact probabilities, evaluated by sympy to 30 digits, rounded to float."""
    return [float(sympy.N(p, 30)) for p in dist.probabilities]


def seed_of(*names: str) -> int:
    return sum(ord(ch) * (i + 1) for i, ch in enumerate("/".join(names)))


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("mech", sorted(MECHANISMS))
def test_own_sampler_matches_exact_distribution(mech, case):
    scores, eps, sens, mono = CASES[case]
    dist = MECHANISMS[mech](eps, sens, mono).distribution(scores)
    probs = exact_vector(dist)
    res = goodness_of_fit(literal(dist), probs, N, rng=seed_of(mech, case), alpha=ALPHA)
    assert res.verdict == "consistent", res.summary()
    assert sum(res.observed) == N
    if case == "tiny":
        assert 4 in res.pooled  # expected count 1e-5: pooled, never divided by


def test_known_numbers_of_math_md():
    """The references themselves: docs/formulas.md section 7 (q = (3, 1, 0, 0, -2), eps = 2)."""
    q = [3, 1, 0, 0, -2]
    pf = exact_vector(exactdp.PermuteAndFlip(2).distribution(q))
    em = exact_vector(exactdp.ExponentialMechanism(2).distribution(q))
    assert pf == pytest.approx(list(PF_Q31002_EPS2), abs=1e-6)
    assert em == pytest.approx([0.805382, 0.108997, 0.040098, 0.040098, 0.005427], abs=1e-6)


@pytest.mark.parametrize("case", ["known", "ties", "monotone"])
def test_pf_and_rnm_exponential_samplers_cross(case):
    """PF = RNM-Exp (Ding et al. 2021): each sampler fits the other's exact distribution."""
    scores, eps, sens, mono = CASES[case]
    pf = exactdp.PermuteAndFlip(eps, sens, mono).distribution(scores)
    rnm = exactdp.ReportNoisyMax(eps, sens, mono, noise="exponential").distribution(scores)
    a = goodness_of_fit(literal(pf), exact_vector(rnm), N, rng=101, alpha=ALPHA)
    b = goodness_of_fit(literal(rnm), exact_vector(pf), N, rng=102, alpha=ALPHA, test="gtest")
    assert a.verdict == b.verdict == "consistent", (a.summary(), b.summary())


# ---------------------------------------------------------------------------- power


def test_pf_sampler_is_not_em():
    q = [3, 1, 0, 0, -2]
    pf = exactdp.PermuteAndFlip(2).distribution(q)
    em = exactdp.ExponentialMechanism(2).distribution(q)
    res = goodness_of_fit(literal(pf), exact_vector(em), N, rng=5)
    assert res.verdict == "rejected" and res.p_value < 1e-6
    assert res.max_deviation_outputs == (0,) and res.max_deviation > 0  # PF favours the max


def test_em_with_doubled_exponent_is_rejected():
    q = [0, 0, -1, -2]
    right = exactdp.ExponentialMechanism(1).distribution(q)
    doubled = exactdp.ExponentialMechanism(1, monotonic=True).distribution(q)  # eps*q/Delta
    res = goodness_of_fit(literal(doubled), exact_vector(right), N, rng=6)
    assert res.verdict == "rejected" and res.p_value < 1e-6


def test_tiny_output_returned_too_often_is_caught():
    """A sampler that returns a 1.7e-10 output 5 times in 50 000 draws is rejected."""
    scores, eps, sens, mono = CASES["tiny"]
    dist = exactdp.PermuteAndFlip(eps, sens, mono).distribution(scores)

    def leaky(size, rng):
        out = dist.sample(size, rng, algorithm="mechanism")
        out[:5] = 4
        return out

    res = goodness_of_fit(leaky, exact_vector(dist), N, rng=7)
    assert res.counts[4] >= 5
    assert res.verdict == "rejected" and res.p_value < 1e-6, res.summary()


# ---------------------------------------------------------------------------- Laplace


def laplace_two_items_loss(g: float, b: float) -> float:
    """docs/formulas.md section 2: two items, gap g, Laplace(b): Pr[lower wins]."""
    return (1 + g / (2 * b)) * math.exp(-g / b) / 2


def test_rnm_laplace_sampler_two_items_closed_form():
    """RNM-Laplace's sampler against the closed form (1 + g/(2b)) e^{-g/b} / 2."""
    for g, eps, seed in [(1, 1, 21), (3, 2, 22), (0.5, 4, 23)]:
        mech = exactdp.ReportNoisyMax(eps, noise="laplace")
        b = 2 / eps
        loss = laplace_two_items_loss(g, b)
        dist = mech.distribution([0, -sympy.Rational(g)])
        res = goodness_of_fit(literal(dist), [1 - loss, loss], N, rng=seed, alpha=ALPHA)
        assert res.verdict == "consistent", res.summary()


def test_rnm_laplace_sampler_known_values_and_half_scale_rejected():
    """docs/formulas.md section 7 (q = (0, -1, -2), eps = 1); scale b/2 (eps doubled) is caught."""
    known = list(RNM_LAPLACE_Q012_EPS1)  # 6 digits: error 5e-7, far below N's resolution
    total = sum(known)
    known = [k / total for k in known]
    right = exactdp.ReportNoisyMax(1, noise="laplace").distribution([0, -1, -2])
    half = exactdp.ReportNoisyMax(2, noise="laplace").distribution([0, -1, -2])  # scale b/2
    ok = goodness_of_fit(literal(right), known, N, rng=31, alpha=ALPHA)
    assert ok.verdict == "consistent", ok.summary()
    bad = goodness_of_fit(literal(half), known, N, rng=32)
    assert bad.verdict == "rejected" and bad.p_value < 1e-6


@pytest.mark.parametrize("case", ["known", "ties", "monotone", "tiny"])
def test_rnm_laplace_sampler_against_exact_engine(case):
    """Against the exact Laplace closed form (a regression of the engine fails here)."""
    scores, eps, sens, mono = CASES[case]
    dist = exactdp.ReportNoisyMax(eps, sens, mono, noise="laplace").distribution(scores)
    probs = exact_vector(dist)
    res = goodness_of_fit(literal(dist), probs, N, rng=seed_of("laplace", case), alpha=ALPHA)
    assert res.verdict == "consistent", res.summary()


@pytest.mark.parametrize("mech", sorted(MECHANISMS))
def test_default_pmf_draws_follow_the_exact_distribution(mech):
    """The default route (inverse CDF on to_numpy) against the exact 30-digit values."""
    scores, eps, sens, mono = CASES["wide"]
    dist = MECHANISMS[mech](eps, sens, mono).distribution(scores)
    res = goodness_of_fit(dist.sample, exact_vector(dist), N, rng=seed_of(mech, "pmf"),
                          alpha=ALPHA)
    assert res.verdict == "consistent", res.summary()


def test_pmf_route_never_draws_an_impossible_output_and_is_reproducible():
    dist = exactdp.PermuteAndFlip(sympy.oo).distribution([0, 3, 3, 1])  # support {1, 2}
    draws = dist.sample(20_000, rng=8)
    assert set(draws.tolist()) == {1, 2}
    assert (draws == 1).mean() == pytest.approx(0.5, abs=0.02)
    assert (dist.sample((4, 5), rng=9) == dist.sample((4, 5), rng=9)).all()
    assert isinstance(dist.sample(rng=1), int)
    with pytest.raises(ValueError, match="sample: algorithm must be"):
        dist.sample(3, rng=1, algorithm="shuffle")


def test_pmf_route_is_not_the_mechanism_route():
    """The two routes consume the generator differently (independent routes)."""
    dist = exactdp.PermuteAndFlip(1).distribution([0, 1, 2, 3, 4, 5])
    a = dist.sample(200, rng=3)
    b = dist.sample(200, rng=3, algorithm="mechanism")
    assert not (a == b).all()
