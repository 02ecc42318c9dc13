"""exactdp.mechanisms.release_views: BallViews' evalf and to_numpy from the rigorous balls,
on the sparse vector that releases its values (Algorithm 3), against sympy's evaluation of
the closed-form pattern probabilities (P[(T, -)] = 5 e^{-1/2} / 8 at epsilon 1, threshold 1,
answers (0, 1))."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy

import exactdp
from exactdp.mechanisms.release_views import BallViews, ReleasedValues


@pytest.fixture(scope="module")
def dist():
    return exactdp.SparseVector(1, 1, c=1, variant=3).distribution([0, 1])


def test_the_sparse_vector_release_has_the_ball_views(dist):
    assert isinstance(dist, BallViews) and isinstance(dist, ReleasedValues)
    assert dist.probabilities[0] == 5 * sympy.exp(sympy.Rational(-1, 2)) / 8


@pytest.mark.parametrize("dps", [15, 40])
def test_evalf_is_the_balls_midpoints_correct_to_dps_digits(dist, dps):
    values = dist.evalf(dps)
    balls = dist.evalf_balls(dps)
    with mpmath.workdps(dps + 20):
        for p, v, b in zip(dist.probabilities, values, balls, strict=True):
            ref = mpmath.mpf(str(sympy.N(p, dps + 20)))
            assert abs(v - ref) <= abs(ref) * mpmath.mpf(10) ** (1 - dps)
            assert b.contains(b.mid())
        assert abs(mpmath.fsum(values) - 1) < mpmath.mpf(10) ** (2 - dps)


def test_to_numpy_is_read_only_float64_of_evalf(dist):
    out = dist.to_numpy()
    assert out.dtype == np.float64 and not out.flags.writeable
    assert np.allclose(out, [float(v) for v in dist.evalf(20)], rtol=1e-15, atol=0)
    assert out[0] == pytest.approx(5 * np.exp(-0.5) / 8, rel=1e-15)


def test_loss_seconds_prices_one_density_pair_as_n_cubed(dist):
    """The base estimate of one exact density supremum: 0.02 s at 5 values, as n**3 (the
    sparse vector release on 2 answers, 0.02 * (2/5)**3 s)."""
    assert dist.loss_seconds("check_dp") == pytest.approx(0.02 * (2 / 5) ** 3)
    big = exactdp.SparseVector(1, 1, c=1, variant=3).distribution([0] * 10)
    assert big.loss_seconds("check_dp") == pytest.approx(0.16)
