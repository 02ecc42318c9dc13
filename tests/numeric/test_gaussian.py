"""Report-noisy-max with Gaussian noise: certified quadrature vs closed form, float, sampling."""

from __future__ import annotations

import warnings

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from exactdp.numeric.gaussian import gaussian_float, gaussian_mp, gaussian_mp_bounds


@pytest.fixture(autouse=True)
def _high_mp_precision():
    """Comparisons happen at 50 digits (the engines set their own precision)."""
    with mpmath.workdps(50):
        yield


@pytest.mark.parametrize("z", [0.0, 1e-6, 0.7, 1.5, 4.0, 12.0, 30.0])
def test_two_items_closed_form(z):
    # difference of two standard normals is N(0, 2): Pr[lose] = Phi(-z / sqrt 2)
    probs, err = gaussian_mp([0, z], 30)
    want = mpmath.ncdf(-mpmath.mpf(z) / mpmath.sqrt(2))
    assert err < mpmath.mpf(10) ** -29
    assert abs(probs[1] - want) <= err
    assert abs(probs[1] - want) <= mpmath.mpf(10) ** -28 * want  # relative, also when tiny
    f = gaussian_float(np.array([0.0, z]))
    assert abs(f[1] - float(want)) <= 1e-14 * float(want) * (1 + z * z)
    assert abs(f.sum() - 1) < 1e-15


def test_single_item_and_infinite_gaps():
    assert gaussian_mp([2.5]) == ([1], 0)
    assert gaussian_float(np.array([np.inf, 3.0])).tolist() == [0.0, 1.0]
    p, err = gaussian_mp([np.inf, 0, 1], 20)
    assert p[0] == 0 and abs(sum(p) - 1) <= 3 * err


def test_three_items_vs_direct_quadrature():
    z = [0, mpmath.mpf("0.5"), mpmath.mpf("1.25")]
    probs, err = gaussian_mp(z, 30)
    with mpmath.workdps(45):
        for r in range(3):

            def f(y, r=r):
                v = mpmath.npdf(y + z[r])
                for s in range(3):
                    if s != r:
                        v *= mpmath.ncdf(y + z[s])
                return v

            ref = mpmath.quad(f, [-mpmath.inf, -5, -1.25, -0.5, 0, 5, mpmath.inf])
            assert abs(probs[r] - ref) <= err + mpmath.mpf(10) ** -40
            assert abs(probs[r] - ref) < mpmath.mpf(10) ** -29
    assert abs(sum(probs) - 1) <= 3 * err


def test_ties_and_all_equal():
    p, err = gaussian_mp([0, 0, 0, 0], 25)
    assert all(abs(x - mpmath.mpf(1) / 4) <= err for x in p)
    f = gaussian_float(np.zeros(1000))
    np.testing.assert_allclose(f, 1e-3, rtol=1e-13)
    q = gaussian_float(np.array([1.0, 0.0, 1.0, 2.0]))
    assert q[0] == q[2]


@given(st.lists(st.floats(0, 6, allow_subnormal=False), min_size=2, max_size=6))
@settings(max_examples=15, deadline=None)
def test_float_vs_mp(z):
    probs, err = gaussian_mp(z, 25)
    assert abs(sum(probs) - 1) <= len(z) * err
    f = gaussian_float(np.array(z))
    m = np.array([float(x) for x in probs])
    assert np.all(np.abs(f - m) <= 1e-13 * m + 1e-300)


def test_tiny_probabilities_relative():
    z = [0, 0.1, 5, 20, 40]
    probs, _ = gaussian_mp(z, 20)
    f = gaussian_float(np.array(z, float))
    for a, b in zip(f, probs, strict=True):
        assert abs(a - float(b)) <= 1e-12 * float(b)
    assert float(probs[4]) < 1e-200


def test_monte_carlo():
    rng = np.random.default_rng(11)
    z = np.array([0.0, 0.3, 0.3, 1.0, 2.0])
    probs = gaussian_float(z)
    size = 200_000
    noisy = -z[None, :] + rng.standard_normal((size, z.size))
    counts = np.bincount(noisy.argmax(axis=1), minlength=z.size)
    assert chisquare(counts, probs * size).pvalue > 1e-3
    # power: the distribution for twice the noise is rejected
    assert chisquare(counts, gaussian_float(z / 2) * size).pvalue < 1e-9


@pytest.mark.parametrize("kind", ["exp", "tied", "wide"])
def test_float_large_n(kind):
    n = 10_000
    rng = np.random.default_rng(5)
    z = {
        "exp": rng.exponential(1.0, n),
        "tied": np.zeros(n),
        "wide": 10.0 ** rng.uniform(-300, 300, n),
    }[kind]
    f = gaussian_float(z)
    assert np.all(np.isfinite(f)) and np.all(f >= 0)
    assert abs(f.sum() - 1) < 1e-12


def test_float_extremes():
    z = np.array([0, 1e-300, 1e300, np.inf, 85.0])
    f = gaussian_float(z)
    assert f[0] == f[1] and abs(f[0] - 0.5) < 1e-15
    assert f[2] == f[3] == f[4] == 0


@pytest.mark.parametrize(
    "z", [[], [0, -1.0], [0, float("nan")], [np.inf], [0, "a"], [0, True], None]
)
def test_bad_input(z):
    with pytest.raises(ValueError, match="gaussian_mp"):
        gaussian_mp(z)
    with pytest.raises(ValueError, match="gaussian_float"):
        gaussian_float(z)


@pytest.mark.parametrize("dps", [0, 1.5, False])
def test_bad_dps(dps):
    with pytest.raises(ValueError, match="dps"):
        gaussian_mp([0, 1], dps)


def test_trapezoid_route_matches_certified_route():
    from exactdp.numeric.gaussian import _gaussian_mp_trapezoid

    z = [0, 0.1, 0.1, 2.0, 7.5, 30.0]
    arb_p, arb_err = gaussian_mp_bounds(z, 25)
    trap_p, trap_err = _gaussian_mp_trapezoid([mpmath.mpf(x) for x in z], 25)
    for a, b, ea, eb in zip(arb_p, trap_p, arb_err, trap_err, strict=True):
        assert abs(a - b) <= ea + eb
        assert abs(a - b) <= mpmath.mpf(10) ** -23 * a


def test_larger_n_uses_trapezoid_and_matches_float():
    rng = np.random.default_rng(8)
    z = rng.exponential(1.0, 30)
    probs, err = gaussian_mp(list(z), 20)
    assert err < 1e-19
    assert abs(sum(probs) - 1) <= 30 * err
    f = gaussian_float(z)
    assert np.all(np.abs(f - np.array([float(p) for p in probs])) <= 1e-13 * f)


# ----------------------------------------------------------------------------------------
# regressions: huge gaps (scaled coordinates), relative accuracy of tiny probabilities
# ----------------------------------------------------------------------------------------


def _two_item_loss(z) -> mpmath.mpf:
    """``Pr[lose] = Phi(-z/sqrt 2) = erfc(z/2)/2`` at high precision, independently.

    mpmath's erfc for ``u = z/2 <= 1e8``; above (mpmath's erfc overflows there) three terms
    of the asymptotic series, whose remainder ``15/(8 u^6)`` is far below 1e-100.
    """
    z = mpmath.mpf(z)
    u = z / 2
    if u <= 10**8:
        return mpmath.erfc(u) / 2
    w = 1 / (2 * u * u)
    return mpmath.exp(-u * u) / (u * mpmath.sqrt(mpmath.pi)) * (1 - w + 3 * w * w) / 2


@pytest.mark.parametrize(
    "z", ["1e2", "3e4", "1e5", "1e6", "1e9", "1e30", "1e100", "1e300", "1e1000"]
)
@pytest.mark.parametrize("dps", [20, 45])
def test_two_items_huge_gaps_relative(z, dps):
    # reported: 3e4 gave 1.03e-97716274 (true 7.0e-97716264), 1e6 raised RuntimeError
    zz = mpmath.mpf(z)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        probs, bounds = gaussian_mp_bounds([0, zz], dps)
        p2, b2 = gaussian_mp([zz, 0], dps)
    with mpmath.workprec(int(2 * mpmath.mag(zz)) + 400):
        want = _two_item_loss(zz)
        assert abs(probs[1] - want) <= bounds[1]
        assert abs(probs[1] - want) <= mpmath.mpf(10) ** (1 - dps) * want
        assert bounds[1] <= mpmath.mpf(10) ** (1 - dps) * want  # per output: relative
        assert abs(probs[0] - (1 - want)) <= bounds[0]
        assert p2[0] == probs[1] and p2[1] == probs[0] and b2 == max(bounds)


def test_huge_gap_from_exact_input():
    # sigma = 1e-300 as its exact binary value: z = 1/sigma must be read with ~600 digits
    s = sympy.Rational(*(1e-300).as_integer_ratio())
    probs, bounds = gaussian_mp_bounds([0, 1 / s], 20)
    with mpmath.workprec(5000):
        want = _two_item_loss(mpmath.mpf(sympy.N(1 / s, 1000)))
        assert abs(probs[1] - want) <= bounds[1] <= mpmath.mpf(10) ** -19 * want


def test_tiny_gap_sigma_huge():
    for z in [mpmath.mpf("1e-300"), mpmath.mpf(2) ** -60]:
        probs, bounds = gaussian_mp_bounds([0, z], 30)
        want = mpmath.ncdf(-z / mpmath.sqrt(2))
        assert abs(probs[1] - want) <= bounds[1] <= mpmath.mpf(10) ** -29 * want
        assert abs(probs[0] - (1 - want)) <= bounds[0]
    f = gaussian_float(np.array([0.0, 1e-300, 2.0**-60]))
    assert abs(f.sum() - 1) < 1e-15 and np.all(np.abs(f - 1 / 3) < 1e-15)


def test_three_items_huge_gap_vs_direct_quadrature():
    z = [mpmath.mpf(0), mpmath.mpf("0.5"), mpmath.mpf(10**4)]
    probs, bounds = gaussian_mp_bounds(z, 25)
    with mpmath.workdps(60):
        m = -(z[2] + z[1]) / 3  # mode: -(y + z) - y - (y + 0.5) ~ 0

        def f(y):
            return mpmath.npdf(y + z[2]) * mpmath.ncdf(y) * mpmath.ncdf(y + z[1])

        # scaled by f(m): mpmath.quad's tolerance is absolute (1e-14475768 would pass at once)
        top = f(m)
        ref = top * mpmath.quad(lambda y: f(y) / top, mpmath.linspace(m - 15, m + 15, 7))
        assert ref < mpmath.mpf(10) ** -(10**7)
        assert abs(probs[2] - ref) <= bounds[2] + mpmath.mpf(10) ** -40 * ref
        assert abs(probs[2] - ref) <= mpmath.mpf(10) ** -24 * ref
        # the other two are the two-item problem to ~1e-(10^7)
        want = mpmath.ncdf(-z[1] / mpmath.sqrt(2))
        assert abs(probs[1] - want) <= bounds[1] + mpmath.mpf(10) ** -30


@given(
    st.lists(
        st.one_of(st.floats(0, 8), st.sampled_from([30.0, 1e3, 1e8, 1e200, np.inf])),
        min_size=2,
        max_size=5,
    ).filter(lambda v: any(np.isfinite(v)))
)
@settings(max_examples=25, deadline=None)
def test_per_output_bounds_are_relative(z):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        probs, bounds = gaussian_mp_bounds(z, 20)
        f = gaussian_float(np.array(z))
    tol = mpmath.mpf(10) ** -19
    for p, b in zip(probs, bounds, strict=True):
        assert b <= tol * p or (p == 0 and b == 0)
    assert abs(mpmath.fsum(probs) - 1) <= mpmath.fsum(bounds) + mpmath.mpf(10) ** -19
    m = np.array([float(x) for x in probs])
    normal = m > 1e-300
    assert np.all(np.abs(f - m)[normal] <= 1e-12 * m[normal])
    assert np.all(f[~normal] <= 1e-290) and abs(f.sum() - 1) < 1e-12


@pytest.mark.parametrize("z", [0.0, 1e-8, 1.0, 5.0, 12.0, 25.0, 40.0, 50.0, 52.5])
def test_float_two_items_relative(z):
    want = float(_two_item_loss(z)) if z else 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = gaussian_float(np.array([0.0, z]))
    assert abs(f[1] - want) <= 1e-12 * want
    assert abs(f.sum() - 1) < 1e-15


def test_float_far_extremes_no_warnings():
    z = np.array([0.0, 60.0, 1e5, 1e300, 1.7e308, np.inf, 3.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = gaussian_float(z)
        g = gaussian_float(np.array([1e300, 1e300, np.inf]))  # equal huge gaps: a tie
    assert np.all(np.isfinite(f)) and np.all(f >= 0) and abs(f.sum() - 1) < 1e-15
    assert np.all(f[1:6] <= 1e-300)
    assert g[0] == g[1] and abs(g[0] - 0.5) < 1e-15 and g[2] == 0


def test_large_n_with_huge_gaps():
    # n > 24: shared grid for the small gaps, per-item certified route for the huge ones
    z = [0.0] + [0.25 * k for k in range(1, 26)] + [1e6]
    probs, bounds = gaussian_mp_bounds(z, 15)
    assert all(b <= mpmath.mpf(10) ** -14 * p for p, b in zip(probs, bounds, strict=True))
    assert abs(mpmath.fsum(probs) - 1) <= mpmath.fsum(bounds)
    f = gaussian_float(np.array(z))
    m = np.array([float(x) for x in probs])
    assert np.all(np.abs(f - m)[:-1] <= 1e-12 * m[:-1]) and f[-1] == 0
    assert probs[-1] < mpmath.mpf(10) ** -(10**11)
