"""The float64 routes on grouped gaps (``counts``) and in the caller's memory (``overwrite_d``),
against the ungrouped call and against pf_mp (an independent, higher-precision route)."""

from __future__ import annotations

import numpy as np
import pytest

from exactdp import ExponentialMechanism, PermuteAndFlip
from exactdp.numeric.pf import em_float, pf_float, pf_float_owned, pf_mp


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


@pytest.mark.parametrize("k", [0, 12, 33])
def test_rule_nodes_weights_and_powers(k):
    """A planned rule: nodes increasing in (0, 1), weights integrating tau^j exactly
    (1/(j+1), j < 8, far below each panel's degree of exactness), rows tau**j against
    numpy's power (repeated products: within 2 ulp), ``half`` splitting at 1/2."""
    from exactdp.numeric.pf.float64 import _JMAX, _float_rule

    rule = _float_rule(k)
    tau, w = rule.tau, rule.w
    assert np.all(np.diff(tau) > 0) and 0 < tau[0] and tau[-1] < 1 and np.all(w > 0)
    for j in range(8):
        assert float(np.dot(w, tau**j)) == pytest.approx(1 / (j + 1), rel=4e-16)
    expect = np.power.outer(tau, np.arange(_JMAX + 1)).T
    np.testing.assert_allclose(rule.powers, expect, rtol=8e-15, atol=1e-300)
    assert tau[rule.half - 1] <= 0.5 < tau[rule.half]


def _pf_mpmath(d: np.ndarray, outputs: list[int]) -> list[float]:
    """PF probabilities of the given outputs by mpmath quadrature of the integral form
    ``p_r int_0^1 prod_{s != r} (1 - t p_s) dt`` at 50 digits (equal gaps grouped)."""
    import mpmath

    with mpmath.workdps(50):
        vals, counts = np.unique(d, return_counts=True)
        p = [mpmath.exp(-mpmath.mpf(float(v))) for v in vals]
        out = []
        for r in outputs:
            i = int(np.searchsorted(vals, d[r]))

            def f(t, i=i):
                return mpmath.fprod((1 - t * p[j]) ** (int(c) - (j == i))
                                    for j, c in enumerate(counts))

            S = float(np.dot(counts, [float(x) for x in p]))
            cuts = sorted({0.0, 1.0, *[min(1.0, c / S) for c in (0.5, 2, 8, 32)]})
            out.append(float(p[i] * mpmath.quad(f, cuts)))
        return out


def _adversarial_cases():
    rng = np.random.default_rng(36)
    C = 60 * np.log(2.0) + 2.5  # trunc_const(60): t_max = 1 iff sum p <= C
    yield "44 maximizers (t_max = 1, 44 coins at u = 1)", np.r_[np.zeros(44), 3.0, 9.0]
    yield "45 maximizers (t_max just below 1)", np.r_[np.zeros(45), 0.5, 30.0]
    yield "two maximizers", np.array([0.0, 0.0])
    yield "a near tie", np.array([0.0, 1e-12, 5.0])
    # coins at the large/small split u = 1/8 and at the series level u = 2^-12 (t_max = 1)
    yield "coins at u = 1/8 and 2^-12", np.r_[0.0, np.log(8.0) + np.array([-1e-15, 0, 1e-15]),
                                            12 * np.log(2.0) + np.array([-1e-13, 0, 1e-13])]
    for k in (0, 6, 19, 32):  # sum p at the rule buckets' edges 2^(k/6) (Lambda = sum p)
        target = 2.0 ** (k / 6)
        for side in (-1e-9, 1e-9):
            n = max(2, int(target) + 1)
            if target * (1 + side) <= 1:
                continue  # sum p >= 1 (the maximizer's coin)
            x = np.log((n - 1) / (target * (1 + side) - 1))
            yield f"sum p = 2^({k}/6) {side:+g}", np.r_[0.0, np.full(n - 1, x)]
    yield "sum p just above C", np.r_[np.zeros(int(C)), 0.0 + np.log(1 / (C - int(C) + 1e-9))]
    for n in (4096, 4097):  # either side of the one-matrix route (_DENSE)
        d = np.round(rng.exponential(3.0, n) * 2) / 2
        d[0] = 0.0
        yield f"n = {n}, rounded gaps", d
    yield "many tiny and two large", np.r_[0.0, 0.3, np.round(rng.uniform(20, 40, 3000))]


@pytest.mark.parametrize("name,d", list(_adversarial_cases()))
def test_pf_float_against_mpmath_50_digits_on_adversarial_inputs(name, d):
    """The node counts depend on Lambda (:func:`~exactdp.numeric.pf.scheme.quad_plan`):
    inputs at the buckets' edges, at the truncation's switch (t_max = 1 or not), at the
    coin thresholds and either side of the one-matrix route, within 1e-14 relative of an
    mpmath quadrature at 50 digits (for the largest, the smallest and one middle output)."""
    got = pf_float(d)
    order = np.argsort(d, kind="stable")
    outputs = sorted({int(order[0]), int(order[len(d) // 2]), int(order[-1])})
    ref = _pf_mpmath(d, outputs)
    for r, want in zip(outputs, ref, strict=True):
        assert got[r] == pytest.approx(want, rel=1e-14, abs=0), (name, r)
    assert abs(got.sum() - 1.0) <= 1e-13


@pytest.mark.parametrize("d", [np.zeros(5), np.r_[np.zeros(7), 0.1, 0.1, 0.1, 2.0, 2.0],
                               np.r_[0.0, np.full(33, 0.25), 5.0]])
def test_equal_large_coins_get_bit_identical_probabilities(d):
    """Tied large coins (u > 1/8, one column each) are summed in the same order: their
    probabilities are bit-identical (a matrix-vector product rounded columns differently)."""
    f = pf_float(d)
    for v in np.unique(d):
        assert np.unique(f[d == v]).size == 1


@pytest.mark.parametrize("n", [40, 1000, 5000])
def test_underflow_ignored_under_the_callers_errstate(n):
    # one errstate for the whole call: coins, powers and large-coin products that
    # underflow are 0 even when the caller raises on underflow; every large coin's
    # factors (the products at the nodes) against pf_mp
    rng = np.random.default_rng(n)
    d = np.concatenate([[0.0, 0.0, 1e-3], rng.uniform(0, 2, n // 4), rng.uniform(600, 900, 8),
                        rng.uniform(0, 40, n - n // 4 - 11)])
    with np.errstate(all="raise"):
        got = pf_float(d)
    ref = pf_float(d.copy(), overwrite_d=True)
    np.testing.assert_array_equal(got, ref)
    small = np.flatnonzero(d < 60)[:30]
    mp = pf_mp(d.tolist(), 25)
    np.testing.assert_allclose(got[small], [float(mp[i]) for i in small], rtol=2e-14)


@pytest.mark.parametrize("n", [1, 2, 40, 1000, 5000])
def test_owned_gaps_give_pf_float_bit_for_bit(n):
    """``pf_float_owned`` (a mechanism's own gaps, unvalidated) is ``pf_float``: the same
    bits with and without multiplicities; one output is 1."""
    rng = np.random.default_rng(n)
    d = rng.uniform(0, 20, n)
    d[rng.integers(n)] = 0.0
    np.testing.assert_array_equal(pf_float_owned(d.copy()), pf_float(d))
    vals, counts = np.unique(np.round(d), return_counts=True)
    np.testing.assert_array_equal(pf_float_owned(vals.copy(), counts), pf_float(vals, counts))


def test_power_block_rows_against_numpy_power():
    """The dense route's rows ``u^(e_r)`` (in the schedule's order) within ``e`` ulps of
    numpy's ``power`` (a product tree of ``e`` factors), in the preallocated matrix and
    in one too short for the plan (then a new matrix)."""
    from exactdp.numeric.pf.float64 import _TOP_DENSE, _plan, _power_block
    from exactdp.numeric.pf.scheme import power_schedule

    rng = np.random.default_rng(5)
    u = 0.125 * np.exp(-rng.uniform(0, 20, 300))
    plan = _plan(33, -12)
    assert plan.top == _TOP_DENSE
    expect = u[None, :] ** np.array(power_schedule(plan.top)[1])[:, None]
    for rows in (_TOP_DENSE, 1):
        block = np.empty((rows, u.size))
        block[0] = u
        got = _power_block(block, plan)
        assert got.shape == (plan.top, u.size)
        np.testing.assert_allclose(got, expect, rtol=plan.top * 2.3e-16, atol=0)


def _random_cases():
    rng = np.random.default_rng(3636)
    for n, span, eps in ((30, 4.0, 0.3), (100, 40.0, 1.0), (300, 400.0, 3.0), (120, 10.0, 1.0),
                         (60, 40.0, 0.05), (1000, 40.0, 1.0)):
        q = rng.uniform(0, span, n)
        q[rng.integers(n, size=3)] = q[0]  # a few ties (equal coins)
        yield f"n = {n}, scores in [0, {span}], eps = {eps}", eps * (q.max() - q) / 2


@pytest.mark.parametrize("name,d", list(_random_cases()))
def test_pf_float_against_mpmath_50_digits_on_random_inputs(name, d):
    """Random score vectors (the benchmark's shape among them: 1000 scores uniform in
    [0, 40], eps = 1), through the dense route (rows in the schedule's order, large coins'
    table): the largest, the smallest and two random outputs (at n = 1000 one middle
    output: each quadrature point is a product of 1000 factors) within 1e-14 relative of
    an mpmath quadrature at 50 digits; tied outputs bit-identical."""
    got = pf_float(d)
    order = np.argsort(d, kind="stable")
    rng = np.random.default_rng(d.size)
    outputs = sorted({int(order[0]), int(order[-1]), *map(int, rng.integers(d.size, size=2))})
    if d.size > 300:
        outputs = [int(order[d.size // 2])]
    for r, want in zip(outputs, _pf_mpmath(d, outputs), strict=True):
        assert got[r] == pytest.approx(want, rel=1e-14, abs=0), (name, r)
    vals, counts = np.unique(d, return_counts=True)
    assert counts.max() > 1
    for v in vals[counts > 1]:
        assert np.unique(got[d == v]).size == 1
