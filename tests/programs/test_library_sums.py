"""The library's noise-addition programs (exactdp.programs.library_sums): the Laplace
mechanism, histograms, partial and prefix sums, parallel Laplace and SmartSum; exact
densities, CDFs and losses against closed forms (the Laplace density, the CDF of a sum of
two Laplace noises, Feller II.V.4), a grid of the log ratio and the program's own sampler."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import exactdp
from exactdp.programs import REAL
from exactdp.programs import library_release as L
from exactdp.programs import library_sums as S

from .test_release import EPS, R, exactly_equal


def test_laplace_mechanism_and_histogram_closed_forms():
    for eps in (R(1, 2), EPS):
        d = S.laplace_mechanism(epsilon=eps).distribution([3])
        for v in (R(-1), R(3), R(7, 2)):
            assert exactly_equal(d.density(v), eps / 2 * sympy.exp(-eps * abs(v - 3)))
        h = S.histogram(epsilon=eps).distribution([0, 1])
        assert h.outputs == ((REAL, REAL),)
        assert exactly_equal(h.density((1, 1)), eps**2 / 4 * sympy.exp(-eps))


def test_histogram_with_the_wrong_scale_has_scale_epsilon():
    d = S.histogram_wrong_scale(epsilon=R(1, 2)).distribution([0])
    assert exactly_equal(d.density((R(1, 2),)), sympy.exp(-1))  # (1/(2b)) exp(-|v|/b), b = 1/2


def test_sums_and_parallel_laplace_closed_forms():
    d = S.partial_sum(epsilon=1).distribution([1, 2])
    assert exactly_equal(d.density(4), sympy.exp(-1) / 2)
    assert exactdp.privacy_loss(S.partial_sum(epsilon=1), [1, 2], [1, 3]).value == 1
    assert exactdp.privacy_loss(S.bad_partial_sum(epsilon=1), [1, 2], [1, 3]).value == 2
    par = S.laplace_parallel(epsilon=1, copies=3)
    assert exactly_equal(par.distribution([0]).density((1, 2, 3)),
                         sympy.exp(-2) / 216)  # (1/6)^3 exp(-(1 + 2 + 3)/3)
    loss = exactdp.privacy_loss(par, [0], [1])
    assert loss.value == 1 and loss.attained
    # prefix sums: the density of (s1, s2) is that of the noises (s1 - a1, s2 - s1 - a2)
    p = S.prefix_sum(epsilon=1).distribution([1, 0])
    assert exactly_equal(p.density((2, 5)), sympy.exp(-1) / 2 * sympy.exp(-3) / 2)
    # the sums are a triangular map of the noises: the loss is sum |d_i|/b_i of the noises'
    # shifts d = A^-1 (k - k'): one noise moves by 1 (Lap(1)), the loss is epsilon, attained
    for other in ([1, 1], [2, 0]):
        loss = exactdp.privacy_loss(S.prefix_sum(epsilon=1), [1, 0], other)
        assert loss.value == 1 and loss.attained
    # the loss of one moved answer: exactly epsilon, attained (the bound of a translation
    # of the moved noise meets the ratio at a point); against the hand-written density
    # on a grid (a lower-bound check: no grid point exceeds it, some point reaches it)
    loss = exactdp.privacy_loss(S.prefix_sum(epsilon=1), [1, 0], [1, 1])
    assert loss.value == 1 and loss.attained and loss.interval is None

    def log_ratio(s1, s2):  # Laplace(1) densities of the differences, by hand
        return (abs(s2 - s1 - 1) - abs(s2 - s1 - 0)) * 1

    grid = [sympy.Rational(k, 2) for k in range(-8, 9)]
    ratios = [abs(log_ratio(x, y)) for x in grid for y in grid]
    assert max(ratios) == loss.value


def test_smart_sum_density_cdf_and_loss_of_its_bad_twin():
    m = S.smart_sum(epsilon=1, block=2)
    d = m.distribution([1, 0, 1])
    # the noises from the released sums: s1 = 1 + z1, s2 = 1 + z2 (block total), s3 = s2 + 1
    # + z3; each z ~ Lap(2): density prod exp(-|z|/2)/4
    s = (R(3, 2), 2, R(7, 2))
    z = (s[0] - 1, s[1] - 1, s[2] - s[1] - 1)
    assert exactly_equal(d.density(s), sympy.exp(-sum(abs(x) for x in z) / 2) / 64)
    # the third sum is 2 + z2 + z3: the CDF of a sum of two Lap(2) (Feller II.V.4) at 1
    assert exactly_equal(d.cdf(d.outputs[0], 2, 3), 1 - R(5, 8) * sympy.exp(-R(1, 2)))
    # the loss: an answer enters one noisy answer and one noisy block total, Lap(2/epsilon)
    # each (Chan, Shi and Song 2011): epsilon when both move, epsilon/2 at a block's end;
    # the density ratio at outputs beyond both inputs' sums attains it
    for other, want in (([2, 0, 1], 1), ([1, 1, 1], R(1, 2)), ([1, 0, 2], R(1, 2))):
        loss = exactdp.privacy_loss(m, [1, 0, 1], other)
        assert loss.value == want and loss.attained
        far = (10, 10, 20)
        ratio = m.distribution(other).density(far) / d.density(far)
        assert exactly_equal(sympy.log(sympy.powsimp(ratio)), want) or exactly_equal(
            sympy.log(sympy.powsimp(1 / ratio)), want)
    bad = S.bad_smart_sum(epsilon=1, block=2)
    assert bad.distribution([1, 0, 1]).outputs == ((REAL, 1, REAL),)
    # s1 = 1 + z1, the exact total 1, s3 = 1 + 1 + z3: two Lap(2) densities
    assert exactly_equal(bad.distribution([1, 0, 1]).density((R(3, 2), 1, 4)),
                         sympy.exp(-R(1, 4) - 1) / 16)
    loss = exactdp.privacy_loss(bad, [1, 0, 1], [1, 1, 1])
    assert loss.value == sympy.oo and loss.attained
    # a change after the last block end moves one Laplace value only: loss epsilon/2
    assert exactdp.privacy_loss(bad, [1, 0, 1], [1, 0, 2]).value == R(1, 2)


@pytest.mark.parametrize("n", [20_000, pytest.param(100_000, marks=pytest.mark.slow)])
def test_smart_sum_sampler_against_the_exact_cdfs(n):
    d = S.smart_sum(epsilon=1, block=2).distribution([1, 0, 1])
    _, values = d.split(d.sample(n, rng=7))
    for i, v in ((0, 1), (1, 2), (2, 3), (2, 5)):
        p = float(sympy.N(d.cdf(d.outputs[0], i, v), 20))
        assert abs(np.mean(values[:, i] <= v) - p) <= 5 * np.sqrt(p * (1 - p) / n)
    bad = S.bad_smart_sum(epsilon=1, block=2).distribution([1, 0, 1])
    assert all(o[1] == 1 for o in bad.sample(100, rng=1))  # the exact block total


def test_every_sum_program_is_in_the_release_registry():
    for name in ("laplace_mechanism", "histogram", "histogram_wrong_scale", "laplace_parallel",
                 "partial_sum", "bad_partial_sum", "prefix_sum", "smart_sum", "bad_smart_sum"):
        assert L.PROGRAMS[name] is getattr(S, name)
