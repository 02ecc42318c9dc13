"""Report-noisy-max with Gaussian noise: certified quadrature vs closed form, float, sampling."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from exactdp.numeric.gaussian import gaussian_float, gaussian_mp


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
    arb_p, arb_err = gaussian_mp(z, 25)
    trap_p, trap_err = _gaussian_mp_trapezoid([mpmath.mpf(x) for x in z], 25)
    for a, b in zip(arb_p, trap_p, strict=True):
        assert abs(a - b) <= arb_err + trap_err
        assert abs(a - b) <= mpmath.mpf(10) ** -23 * a


def test_larger_n_uses_trapezoid_and_matches_float():
    rng = np.random.default_rng(8)
    z = rng.exponential(1.0, 30)
    probs, err = gaussian_mp(list(z), 20)
    assert err < 1e-19
    assert abs(sum(probs) - 1) <= 30 * err
    f = gaussian_float(z)
    assert np.all(np.abs(f - np.array([float(p) for p in probs])) <= 1e-13 * f)
