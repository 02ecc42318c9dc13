"""exactdp.audit.fit: goodness_of_fit: protocol, statistics, pooled cells, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

import exactdp
from exactdp.audit import (
    GoodnessOfFit,
    goodness_of_fit,
    probability_vector,
)
from exactdp.rng import as_generator
from tests.reference import PF_Q31002_EPS2

P3 = np.array([0.5, 0.3, 0.2])


def categorical(p, bias=None):
    """A vectorised sampler of the categorical distribution p (optionally distorted)."""
    q = np.asarray(p if bias is None else bias, dtype=float)

    def sample(size, rng=None):
        gen = np.random.default_rng(rng)
        return gen.choice(q.size, size=size, p=q / q.sum())

    return sample


# ---------------------------------------------------------------------------- verdicts


def test_correct_sampler_is_consistent_and_result_is_complete():
    res = goodness_of_fit(categorical(P3), P3, 20_000, rng=1)
    assert isinstance(res, GoodnessOfFit)
    assert res.verdict == "consistent" and res.holds
    assert res.p_value > 0.01
    assert res.dof == 2 and res.cells == ((0,), (1,), (2,))
    assert sum(res.observed) == 20_000 == sum(res.counts)
    assert res.expected == pytest.approx((10_000, 6_000, 4_000))
    assert res.pooled == () and res.impossible == ()
    assert res.n_samples == 20_000 and res.alpha == 0.01 and res.test == "chi2"
    with pytest.raises(AttributeError):
        res.p_value = 1.0  # frozen


def test_biased_sampler_is_rejected_overwhelmingly():
    res = goodness_of_fit(categorical(P3, bias=[0.52, 0.3, 0.18]), P3, 100_000, rng=2)
    assert res.verdict == "rejected"
    assert res.p_value < 1e-6
    # the largest standardized deviation is the under-produced output 2
    assert res.max_deviation_outputs == (2,)
    assert res.max_deviation < -5


def test_statistics_match_hand_computation():
    """Pearson and G statistics recomputed from the reported counts (independent route)."""
    sampler = categorical(P3, bias=[0.49, 0.31, 0.2])
    for test in ("chi2", "gtest"):
        res = goodness_of_fit(sampler, P3, 5_000, rng=3, test=test)
        o, e = np.array(res.observed, float), np.array(res.expected)
        if test == "chi2":
            stat = float(np.sum((o - e) ** 2 / e))
        else:
            stat = float(2 * np.sum(o * np.log(o / e)))
        assert res.statistic == pytest.approx(stat, rel=1e-12)
        assert res.p_value == pytest.approx(scipy.stats.chi2.sf(stat, 2), rel=1e-9)
        z = (o - e) / np.sqrt(5_000 * P3 * (1 - P3))
        k = int(np.argmax(np.abs(z)))
        assert res.max_deviation == pytest.approx(z[k]) and res.max_deviation_cell == k


def test_p_values_are_uniform_under_the_null():
    """200 audits of a correct sampler at fixed seeds: p-values ~ U(0, 1) (KS test)."""
    p = np.array([0.4, 0.3, 0.2, 0.1])
    pvals = [goodness_of_fit(categorical(p), p, 2_000, rng=seed).p_value for seed in range(200)]
    assert scipy.stats.kstest(pvals, "uniform").pvalue > 1e-3
    # and the rejection rate at alpha = 0.05 is near 5% (binomial 99.9% band: 2..20 of 200)
    assert 2 <= sum(v < 0.05 for v in pvals) <= 20


def test_seed_makes_the_audit_reproducible():
    a = goodness_of_fit(categorical(P3), P3, 3_000, rng=7)
    b = goodness_of_fit(categorical(P3), P3, 3_000, rng=7)
    c = goodness_of_fit(categorical(P3), P3, 3_000, rng=8)
    assert a == b
    assert a.counts != c.counts


# ---------------------------------------------------------------------------- protocol


def test_protocol_size_n_and_single_calls():
    seen = {}

    def by_size(size):
        seen["size"] = size
        return np.zeros(size, dtype=np.int64)

    def by_n(n, rng):
        seen["n"] = (n, type(rng))
        return [0] * n

    calls = []

    def single(rng=None):
        calls.append(rng)
        return 0

    dist = [1.0, 0.0]
    for s in (by_size, by_n, single):
        assert goodness_of_fit(s, dist, 7, rng=0).counts == (7, 0)
    assert seen["size"] == 7
    assert seen["n"] == (7, np.random.Generator)
    assert len(calls) == 7 and all(isinstance(g, np.random.Generator) for g in calls)
    assert len({id(g) for g in calls}) == 1  # one generator, shared by the calls
    # a builtin-like callable without an inspectable signature is called repeatedly
    it = iter([0, 1, 1, 0])
    assert goodness_of_fit(it.__next__, [0.5, 0.5], 4).counts == (2, 2)


def test_typeerror_inside_the_sampler_is_not_swallowed():
    def broken(size):
        raise TypeError("bug inside the sampler")

    with pytest.raises(TypeError, match="bug inside"):
        goodness_of_fit(broken, P3, 10)


def test_output_distribution_and_its_vector_give_the_same_audit():
    dist = exactdp.PermuteAndFlip(2).distribution([3, 1, 0, 0, -2])
    probs = probability_vector(dist)
    a = goodness_of_fit(dist.sample, dist, 20_000, rng=11)
    b = goodness_of_fit(dist.sample, probs, 20_000, rng=11)
    assert a == b
    assert a.verdict == "consistent"
    # docs/formulas.md section 7: PF on (3, 1, 0, 0, -2), eps = 2
    assert probs == pytest.approx(list(PF_Q31002_EPS2), abs=1e-6)


def test_integral_floats_are_accepted():
    res = goodness_of_fit(lambda size: np.array([0.0, 1.0] * (size // 2)), [0.5, 0.5], 10)
    assert res.counts == (5, 5)
    res = goodness_of_fit(lambda: np.float64(1.0), [0.5, 0.5], 3)
    assert res.counts == (0, 3)


def test_tiny_probabilities_are_pooled_and_reported():
    p = np.array([0.6, 0.3999, 1e-4, 1e-12])
    res = goodness_of_fit(categorical(p), p, 10_000, rng=5)
    # expected counts 6000, 3999, 1, 1e-8: outputs 2 and 3 pooled with output 1
    assert res.cells == ((0,), (1, 2, 3))
    assert res.pooled == (1, 2, 3)
    assert "pooled" in res.note
    assert all(e >= 5 for e in res.expected)
    assert res.verdict == "consistent"
    # the rare outputs 2 and 3 are also tested exactly, Bonferroni-combined
    assert res.algorithm == "chi2+binomial"
    k_rare = res.counts[2] + res.counts[3]
    p_tot = scipy.stats.binomtest(k_rare, 10_000, 1e-4 + 1e-12).pvalue
    tails = scipy.stats.binom.sf(np.array(res.counts[2:]) - 1, 10_000, p[2:])
    p_rare = min(1, 3 * min(p_tot, *tails))
    assert res.p_value_rare == pytest.approx(p_rare)
    assert res.p_value == pytest.approx(min(1, 2 * min(res.p_value_cells, p_rare)))


def test_rare_output_returned_too_often_is_caught_despite_pooling():
    p = np.array([0.6, 0.3999, 1e-4, 1e-12])

    def leaky(size, rng):
        out = categorical(p)(size, rng)
        out[:4] = 3  # a 1e-12 output, 4 times
        return out

    res = goodness_of_fit(leaky, p, 10_000, rng=5)
    assert 3 in res.pooled
    assert res.p_value_cells > 0.01  # the pooled chi-square alone does not see it
    assert res.verdict == "rejected" and res.p_value < 1e-6


def test_single_cell_falls_back_to_exact_binomial():
    p = [1 - 1e-9, 1e-9]
    ok = goodness_of_fit(lambda size: np.zeros(size, int), p, 20_000)
    assert ok.algorithm == "binomial" and ok.verdict == "consistent" and ok.cells == ((0,), (1,))
    # a sampler that returns the 1e-9 output 3 times in 20 000 draws is caught
    bad = goodness_of_fit(lambda size: np.r_[np.zeros(size - 3, int), 1, 1, 1], p, 20_000)
    assert bad.algorithm == "binomial" and bad.verdict == "rejected"
    assert bad.p_value == pytest.approx(scipy.stats.binomtest(3, 20_000, 1e-9).pvalue)
    assert bad.p_value == pytest.approx((20_000 * 1e-9) ** 3 / 6, rel=1e-3)  # Poisson tail
    assert bad.max_deviation_outputs == (1,) and bad.max_deviation > 0


def test_single_possible_output_is_consistent_and_said():
    res = goodness_of_fit(lambda: 0, [1.0, 0.0], 50)
    assert res.p_value == 1.0 and res.dof == 0 and res.verdict == "consistent"
    assert "single possible output" in res.note


PF_Q = [3, 1, 0, 0, -2]  # docs/formulas.md section 7: PF, eps = 2, output 4 has probability .003114


def test_dof_zero_is_inconclusive_not_consistent():
    """Every output rare (5 draws): no chi-square cell test, so no 'consistent' verdict."""
    d = exactdp.PermuteAndFlip(2).distribution(PF_Q)
    res = goodness_of_fit(lambda: 0, d, 5)  # the likeliest output, 5 times: not evidence
    assert res.algorithm == "binomial-each" and res.dof == 0
    assert res.verdict == "inconclusive" and not res.holds
    assert "dof = 0" in res.note and "increase n_samples" in res.note
    p0 = probability_vector(d)[0]
    assert res.p_value == pytest.approx(min(1.0, 5 * p0**5))  # Bonferroni over 5 tails


def test_always_returned_rare_output_is_rejected_even_with_five_draws():
    """The tester's example: a sampler that always returns the p = 0.003114 output."""
    d = exactdp.PermuteAndFlip(2).distribution(PF_Q)
    res = goodness_of_fit(lambda: 4, d, 5)
    p4 = probability_vector(d)[4]
    assert p4 == pytest.approx(0.003114, abs=1e-6)
    # Pr[Bin(5, p4) >= 5] = p4**5, Bonferroni over the 5 per-output tests
    assert res.p_value == pytest.approx(5 * p4**5, rel=1e-9)
    assert res.p_value == pytest.approx(1.46e-12, rel=1e-2)
    assert res.verdict == "rejected" and res.statistic == 5.0
    assert res.p_value_rare == res.p_value


def test_huge_min_expected_does_not_pass_anything():
    d = exactdp.PermuteAndFlip(2).distribution(PF_Q)
    good = goodness_of_fit(d.sample, d, 1000, rng=3, min_expected=1e9)
    assert good.verdict == "inconclusive" and not good.holds
    bad = goodness_of_fit(lambda size: np.full(size, 4), d, 1000, min_expected=1e9)
    assert bad.verdict == "rejected"
    # always the likeliest output: Pr[Bin(1000, .885) = 1000] = .885**1000 ~ 1e-53
    top = goodness_of_fit(lambda size: np.zeros(size, int), d, 1000, min_expected=1e9)
    assert top.verdict == "rejected" and top.p_value < 1e-40


def test_too_few_draws_to_ever_reject_is_inconclusive():
    """Two cells, 5 draws: the largest chi-square is 5 (p = 0.0253 > alpha)."""
    res = goodness_of_fit(lambda size: np.zeros(size, int), [0.5, 0.5], 5, min_expected=1)
    assert res.dof == 1 and res.verdict == "inconclusive"
    assert res.min_p_value == pytest.approx(scipy.stats.chi2.sf(5.0, 1))
    assert res.p_value == pytest.approx(res.min_p_value)  # this sample is the extreme one
    assert "cannot reject" in res.note
    # at alpha = 0.05 the same test has power, and this extreme sample is rejected
    res = goodness_of_fit(lambda size: np.zeros(size, int), [0.5, 0.5], 5, min_expected=1,
                          alpha=0.05)
    assert res.verdict == "rejected"
    # 10 draws can reach p = chi2.sf(10, 1) = 0.0016 < 0.01: a real test, consistent
    res = goodness_of_fit(lambda size: np.array([0, 1] * 5), [0.5, 0.5], 10)
    assert res.verdict == "consistent"
    assert res.min_p_value == pytest.approx(scipy.stats.chi2.sf(10.0, 1))


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.integers(1, 20), min_size=2, max_size=5),
    st.integers(1, 40),
    st.sampled_from(["chi2", "gtest"]),
)
def test_min_p_value_is_attained_and_is_a_floor(weights, n_samples, test):
    """Brute force over the extreme samples (all draws one output) and a random one."""
    p = np.array(weights, float) / sum(weights)
    floor = None
    for r in range(p.size):
        res = goodness_of_fit(lambda size, r=r: np.full(size, r), p, n_samples, test=test)
        assert res.p_value >= res.min_p_value * (1 - 1e-9)
        floor = res.min_p_value if floor is None else floor
        assert res.min_p_value == pytest.approx(floor)  # depends on the cells only
        if res.verdict == "inconclusive":
            assert res.min_p_value >= 0.01 or res.dof == 0
    extremes = [
        goodness_of_fit(lambda size, r=r: np.full(size, r), p, n_samples, test=test).p_value
        for r in range(p.size)
    ]
    assert min(extremes) == pytest.approx(floor, rel=1e-9, abs=1e-300)


def test_rng_validation_and_as_generator():
    d = exactdp.PermuteAndFlip(2).distribution(PF_Q)
    for bad in ["x", True, False, np.bool_(True), -1, 1.5, np.random.RandomState(0), [1]]:
        with pytest.raises(ValueError, match=r"goodness_of_fit: rng must be .*got"):
            goodness_of_fit(d.sample, d, 100, rng=bad)
        with pytest.raises(ValueError, match=r"myfunc: rng"):
            as_generator(bad, func="myfunc")
    gen = np.random.default_rng(5)
    assert as_generator(gen) is gen
    assert isinstance(as_generator(None), np.random.Generator)
    a = as_generator(np.random.SeedSequence(9)).integers(0, 2**62, 3)
    b = np.random.default_rng(np.random.SeedSequence(9)).integers(0, 2**62, 3)
    assert (a == b).all()
    assert (as_generator(np.int64(4)).random(2) == np.random.default_rng(4).random(2)).all()
    # a SeedSequence and an equivalent int seed give the same audit
    r1 = goodness_of_fit(d.sample, d, 500, rng=np.random.SeedSequence(4))
    r2 = goodness_of_fit(d.sample, d, 500, rng=4)
    assert r1 == r2


def test_observed_zero_probability_output_is_an_immediate_rejection():
    p = [0.5, 0.5, 0.0]
    res = goodness_of_fit(lambda size: np.r_[np.zeros(size - 1, int), 2], p, 1_000)
    assert res.impossible == (2,)
    assert res.p_value == 0.0 and res.verdict == "rejected"
    assert math.isinf(res.statistic)
    assert "probability 0" in res.note and "impossible" in res.note
    assert res.counts == (999, 0, 1)


# ---------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("n", [0, -1, 1.5, 10.0, True, "10", None])
def test_bad_n_samples(n):
    with pytest.raises(ValueError, match="n_samples"):
        goodness_of_fit(categorical(P3), P3, n)


def test_huge_n_samples_refuses_before_calling_the_sampler():
    calls = []

    def sampler(size, rng=None):
        calls.append(size)
        return np.zeros(size, dtype=np.int64)

    with pytest.raises(ValueError, match=r"goodness_of_fit: .* 8e\+13 bytes .* smaller n_samples"):
        goodness_of_fit(sampler, P3, 10**13, rng=1)
    assert calls == []


@pytest.mark.parametrize("alpha", [0, 1, -0.1, 2, "x", float("nan")])
def test_bad_alpha(alpha):
    with pytest.raises(ValueError, match="alpha"):
        goodness_of_fit(categorical(P3), P3, 10, alpha=alpha)


def test_bad_test_and_min_expected():
    with pytest.raises(ValueError, match="test"):
        goodness_of_fit(categorical(P3), P3, 10, test="ks")
    with pytest.raises(ValueError, match="min_expected"):
        goodness_of_fit(categorical(P3), P3, 10, min_expected=0)


@pytest.mark.parametrize(
    ("dist", "match"),
    [
        ([0.5, -0.1, 0.6], r"goodness_of_fit: distribution\[1\] must be non-negative"),
        ([0.5, float("nan"), 0.5], r"goodness_of_fit: distribution\[1\] must be finite"),
        ([0.5, 0.4], r"goodness_of_fit: sum\(distribution\) must be 1 within"),
        ([0.5, 0.5 + 1e-8], r"sum\(distribution\) must be 1 within"),
        ([[0.5, 0.5]], "1-D"),
        ([], "1-D"),
        ("abc", "probability vector"),
        (["a", "b"], "probability vector"),
    ],
)
def test_bad_distribution(dist, match):
    with pytest.raises(ValueError, match=match):
        goodness_of_fit(lambda: 0, dist, 10)


def test_sum_within_tolerance_is_accepted():
    res = goodness_of_fit(lambda: 0, [0.5, 0.5 + 5e-10], 10)
    assert sum(res.probabilities) == pytest.approx(1.0, abs=1e-15)


@pytest.mark.parametrize(
    ("value", "match"),
    [
        (1.5, r"1\.5"),
        (float("nan"), "nan"),
        (-1, "-1"),
        (3, "3, outside 0..2"),
        ("a", "'a'"),
        (None, "None"),
        (True, "bool"),
        (np.int64(7), "7"),
        (2.0 + 1j, "complex"),
    ],
)
def test_single_draw_bad_values(value, match):
    with pytest.raises(ValueError, match=match):
        goodness_of_fit(lambda: value, P3, 5)


@pytest.mark.parametrize(
    ("batch", "match"),
    [
        (np.array([0, 1, 2, 1.5]), r"1\.5"),
        (np.array([0, 1, np.nan, 1]), "nan"),
        (np.array([0, 1, 5, 1]), "5"),
        (np.array([0, -2, 1, 1]), "-2"),
        ([0, 1, "x", 1], "'x'"),
        (np.array([True, False, True, True]), "bool"),
        (np.array(["0", "1", "2", "1"]), "'0'"),
    ],
)
def test_batch_bad_values(batch, match):
    with pytest.raises(ValueError, match=match):
        goodness_of_fit(lambda size: batch, P3, 4)


@pytest.mark.parametrize("batch", [np.zeros(3, int), [0] * 5, np.zeros((4, 1), int), 0])
def test_wrong_length_batch(batch):
    with pytest.raises(ValueError, match="expected|batch"):
        goodness_of_fit(lambda size: batch, P3, 4)


def test_not_callable():
    with pytest.raises(ValueError, match="callable"):
        goodness_of_fit([0, 1, 2], P3, 3)


def test_every_discrete_kind_sparse_vector_sequences():
    """goodness_of_fit takes the sparse vector's distribution (answer sequences); its
    sampler (the algorithm) fits, a wrong distribution (another answer vector) does not."""
    import exactdp

    m = exactdp.SparseVector(1, 0, variant=6)
    d, wrong = m.distribution([0, 1, 2]), m.distribution([2, 1, 0])
    assert goodness_of_fit(d.sample_index, d, 20000, rng=3).verdict == "consistent"
    assert goodness_of_fit(d.sample_index, wrong, 20000, rng=3).verdict == "rejected"



def test_goodness_of_fit_takes_a_sequence_distributions_outputs():
    """``d.sample`` of a sequence program (outputs, objects) and ``d.sample_index``
    (positions) draw the same runs at one seed: the two audits count the same cells, so
    their statistics and p-values agree; a wrong sampler (always None) is rejected."""
    from tests.example_programs import tries

    d = tries(epsilon=1, k=3).distribution([0])
    a = goodness_of_fit(lambda size, rng: d.sample(size, rng), d, 3000, rng=4)
    b = goodness_of_fit(lambda size, rng: d.sample_index(size, rng), d, 3000, rng=4)
    assert a.statistic == b.statistic and a.p_value == b.p_value
    bad = goodness_of_fit(lambda size: np.array([None] * size, dtype=object), d, 3000)
    assert bad.verdict == "rejected"
