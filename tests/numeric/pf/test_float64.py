"""The float64 routes on grouped gaps (``counts``) and in the caller's memory (``overwrite_d``),
against the ungrouped call and against pf_mp (an independent, higher-precision route)."""

from __future__ import annotations

import numpy as np
import pytest

from exactdp import ExponentialMechanism, PermuteAndFlip
from exactdp.numeric.pf import em_float, pf_float, pf_mp


@pytest.mark.parametrize("scale", [0.01, 1.0, 30.0])
def test_grouped_gaps_match_every_gap(scale):
    rng = np.random.default_rng(3)
    d = np.round(rng.uniform(0, 10, 5000)) * scale
    d[0] = 0.0
    u, inv, cnt = np.unique(d, return_inverse=True, return_counts=True)
    for f in (pf_float, em_float):
        full = f(d)
        grouped = f(u, cnt)[inv]
        np.testing.assert_allclose(grouped, full, rtol=1e-13, atol=0)
        assert abs(float(np.dot(cnt, f(u, cnt))) - 1.0) < 1e-13


def test_grouped_against_mp():
    u = np.array([0.0, 0.5, 2.0])
    cnt = np.array([2, 3, 1])
    ref = pf_mp([0, 0, 0.5, 0.5, 0.5, 2.0], 30)
    got = pf_float(u, cnt)
    np.testing.assert_allclose(got, [float(ref[0]), float(ref[2]), float(ref[5])], rtol=1e-13)


def test_overwrite_d_same_values_and_input_kept_without_it():
    rng = np.random.default_rng(4)
    d = rng.uniform(0, 3, 2000)
    d[5] = 0.0
    keep = d.copy()
    ref = pf_float(d)
    np.testing.assert_array_equal(d, keep)  # not overwritten by default
    np.testing.assert_array_equal(pf_float(d.copy(), overwrite_d=True), ref)
    np.testing.assert_array_equal(em_float(d.copy(), overwrite_d=True), em_float(d))


@pytest.mark.parametrize("counts", [[1, 0], [1.0, 2.0], [1]])
def test_bad_counts(counts):
    with pytest.raises(ValueError, match="pf_float: counts must be"):
        pf_float([0.0, 1.0], counts)


def test_mechanism_groups_few_distinct_integer_scores():
    rng = np.random.default_rng(5)
    q = rng.integers(-20, 21, 4000)
    for mech in (PermuteAndFlip(1), ExponentialMechanism("1/3")):
        grouped = mech.distribution(q).to_numpy()
        ungrouped = mech._float(mech.oriented(mech.distribution(q).scores))
        np.testing.assert_allclose(grouped, ungrouped, rtol=1e-13, atol=0)
        assert q.flags.writeable is False  # the scores are not copied, they are locked


@pytest.mark.parametrize("eps", [0.05, 1.0, 4.0])
def test_medium_coins_in_the_series_against_mp(eps):
    """Coins with u in (1/8, 1/2] go into the moment series (~63 terms, power matrices):
    relative 1e-12 against pf_mp at 30 digits, on the benchmark's input (n = 1e3 scores
    uniform in [0, 40]) and at n = 40 (t_max = 1, the maximizer's coin in the factors)."""
    rng = np.random.default_rng(21)
    for n in (1000, 40):
        q = rng.uniform(0, 40, n)
        d = eps * (q.max() - q) / 2
        ref = np.array([float(v) for v in pf_mp(list(d), 30)])
        got = pf_float(d)
        u = np.exp(-d) * min(1.0, 44.1 / np.exp(-d).sum())
        if n == 1000 and eps == 1.0:  # the band is exercised (eps = 0.05: every u < 1/8)
            assert np.sum((u > 0.125) & (u <= 0.5)) > 50
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=0)


def test_node_powers_rows_are_the_powers_of_the_nodes():
    """Rows tau**j, j = 0..3, of a fresh node array (a new array is a cache miss: the
    cache is keyed by the rule's array), against numpy's power."""
    from exactdp.numeric.pf.float64 import _node_powers

    tau = np.array([0.5, 2.0, 0.1])
    rows = _node_powers(tau, 3)
    assert rows.shape == (4, 3)
    expect = np.power.outer(tau, np.arange(4)).T  # repeated products: within 2 ulp
    np.testing.assert_allclose(rows, expect, rtol=5e-16, atol=0)
