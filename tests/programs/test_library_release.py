"""The library's release programs (exactdp.programs.library_release): exact densities,
pattern probabilities and CDFs against the hand-written classes (exactly), closed forms,
quadrature and numerical differentiation at 30 digits."""

from __future__ import annotations

import mpmath
import pytest
import sympy

import exactdp
from exactdp import NumericalSparseVector, ReportNoisyMax, SparseVector
from exactdp.programs import REAL
from exactdp.programs import library_release as L

from .test_release import EPS, R, as_svt, at, exactly_equal, mpf_fraction


def test_laplace_mechanism_and_histogram_closed_forms():
    for eps in (R(1, 2), EPS):
        d = L.laplace_mechanism(epsilon=eps).distribution([3])
        for v in (R(-1), R(3), R(7, 2)):
            assert exactly_equal(d.density(v), eps / 2 * sympy.exp(-eps * abs(v - 3)))
        h = L.histogram(epsilon=eps).distribution([0, 1])
        assert h.outputs == ((REAL, REAL),)
        assert exactly_equal(h.density((1, 1)), eps**2 / 4 * sympy.exp(-eps))


@pytest.mark.parametrize("noise", ["laplace", "exponential"])
def test_noisy_max_value_is_report_noisy_max_s_value_exactly(noise):
    prog = L.noisy_max_value_laplace if noise == "laplace" else L.noisy_max_value_exponential
    for q in ([0, 1, 3], [R(1, 2), 0], [2, 2, 0]):
        mine = prog(epsilon=1).distribution(q)
        theirs = ReportNoisyMax(1, noise=noise, output="value").distribution(q)
        assert mine.outputs == (REAL,)
        for v in (-1, 0, R(1, 2), 2, 3, 5):
            assert exactly_equal(mine.density(v), theirs.density(v)), (q, v)
            assert exactly_equal(mine.cdf(REAL, 0, v), theirs.cdf((True,), 0, v)), (q, v)


@pytest.mark.parametrize("c", [1, 2])
def test_svt3_and_numerical_svt_are_the_hand_written_classes_exactly(c):
    for q in ([0], [2, 0, 1], [R(1, 2), 3, -1, 0]):
        for mine, theirs in ((L.svt3(epsilon=1, threshold=1, c=c),
                              SparseVector(1, 1, c, variant=3)),
                             (L.numerical_svt(epsilon=1, threshold=1, c=c),
                              NumericalSparseVector(1, 1, c))):
            d, e = mine.distribution(q), theirs.distribution(q)
            assert sorted(map(as_svt, d.outputs), key=str) == sorted(e.outputs, key=str)
            for p in d.outputs:
                assert exactly_equal(d.pmf(p), e.pmf(as_svt(p)))
                for v in (R(3, 2), R(-1, 3)):
                    assert exactly_equal(d.density(at(p, v)), e.density(at(p, v)))


def test_gap_svt_density_against_quadrature_and_the_cdf_at_30_digits():
    d = L.gap_svt(epsilon=1, threshold=1, c=1).distribution([2, 0])
    assert d.outputs == ((False, False), (False, REAL), (REAL, None))
    assert exactly_equal(sum(d.probabilities), 1)
    with mpmath.workdps(30):
        for p in ((False, REAL), (REAL, None)):
            def dens(g, p=p):
                return mpmath.mpf(sympy.N(d.density(at(p, mpf_fraction(g))), 40))
            total = mpmath.quad(dens, [0, 1, 4, 8, mpmath.inf])
            assert abs(total - sympy.N(d.pmf(p), 40)) < mpmath.mpf(10) ** -28
            for g in (R(1, 3), R(5, 2)):
                def cdf(x, p=p):
                    return mpmath.mpf(sympy.N(d.cdf(p, 0, mpf_fraction(x)), 50))
                slope = mpmath.diff(cdf, mpmath.mpf(g.p) / g.q) * sympy.N(d.pmf(p), 50)
                assert abs(slope - sympy.N(d.density(at(p, g)), 40)) < mpmath.mpf(10) ** -15


def test_histogram_with_the_wrong_scale_has_scale_epsilon():
    d = L.histogram_wrong_scale(epsilon=R(1, 2)).distribution([0])
    assert exactly_equal(d.density((R(1, 2),)), sympy.exp(-1))  # (1/(2b)) exp(-|v|/b), b = 1/2


def test_sums_and_parallel_laplace_closed_forms():
    d = L.partial_sum(epsilon=1).distribution([1, 2])
    assert exactly_equal(d.density(4), sympy.exp(-1) / 2)
    assert exactdp.privacy_loss(L.partial_sum(epsilon=1), [1, 2], [1, 3]).value == 1
    assert exactdp.privacy_loss(L.bad_partial_sum(epsilon=1), [1, 2], [1, 3]).value == 2
    par = L.laplace_parallel(epsilon=1, copies=3)
    assert exactly_equal(par.distribution([0]).density((1, 2, 3)),
                         sympy.exp(-2) / 216)  # (1/6)^3 exp(-(1 + 2 + 3)/3)
    loss = exactdp.privacy_loss(par, [0], [1])
    assert loss.value == 1 and loss.attained
    # prefix sums: the density of (s1, s2) is that of the noises (s1 - a1, s2 - s1 - a2)
    p = L.prefix_sum(epsilon=1).distribution([1, 0])
    assert exactly_equal(p.density((2, 5)), sympy.exp(-1) / 2 * sympy.exp(-3) / 2)
    # the loss of one moved answer: exactly epsilon, attained (the bound of a translation
    # of the moved noise meets the ratio at a point); against the hand-written density
    # on a grid (a lower-bound check: no grid point exceeds it, some point reaches it)
    loss = exactdp.privacy_loss(L.prefix_sum(epsilon=1), [1, 0], [1, 1])
    assert loss.value == 1 and loss.attained and loss.interval is None

    def log_ratio(s1, s2):  # Laplace(1) densities of the differences, by hand
        return (abs(s2 - s1 - 1) - abs(s2 - s1 - 0)) * 1

    grid = [sympy.Rational(k, 2) for k in range(-8, 9)]
    ratios = [abs(log_ratio(x, y)) for x in grid for y in grid]
    assert max(ratios) == loss.value


def test_programs_registry_names_every_release_program():
    assert set(L.PROGRAMS) >= {
        "laplace_mechanism", "histogram", "svt3", "numerical_svt", "gap_svt", "prefix_sum",
        "noisy_max_value_laplace", "noisy_max_value_exponential",
    }
    for name, prog in L.PROGRAMS.items():
        assert prog.name == name and getattr(L, name) is prog
