"""The audit of release samplers (exactdp/audit/release_fit.py)."""

from __future__ import annotations

import pytest

import exactdp
from exactdp.audit import goodness_of_fit
from exactdp.audit.release_fit import holm


def test_release_samplers_patterns_and_values_combined_by_holm():
    """A release sampler: chi-square on the patterns and a KS test of each released value
    against its exact conditional CDF, Holm-combined. The algorithm fits its own law; the
    same algorithm on other answers (only the second answer moves: the patterns and the
    second value change) is rejected; RNM returning the value: one pattern, one KS test."""
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    svt3 = exactdp.SparseVector(1, 0, variant=3)
    d = svt3.distribution([0, 1])
    ok = goodness_of_fit(d.sample, d, 4000, rng=5)
    assert ok.verdict == "consistent" and ok.holds and len(ok.values) == 2
    assert ok.p_value == min(ok.adjusted) and len(ok.adjusted) == 3
    bad = goodness_of_fit(svt3.distribution([0, 3]).sample, d, 4000, rng=5)
    assert bad.verdict == "rejected" and not bad.holds
    v = exactdp.ReportNoisyMax(1, noise="laplace", output="value").distribution([0, 1])
    fit = goodness_of_fit(v.sample, v, 2000, rng=6)
    assert fit.verdict == "consistent" and [t.pattern for t in fit.values] == [(True,)]
    shifted = exactdp.ReportNoisyMax(1, noise="laplace", output="value").distribution([1, 2])
    assert goodness_of_fit(shifted.sample, v, 2000, rng=6).verdict == "rejected"


def test_released_values_read_true_positions_and_real_placeholders():
    from exactdp.audit.release_fit import released_values
    from exactdp.programs.runs import REAL

    assert released_values((False, True, None, True)) == (1, 3)
    assert released_values(REAL) == (0,)
    assert released_values((False, (REAL, True), REAL)) == (0, 1)  # a program's: REAL wins
    assert released_values((False, None)) == () and released_values(3) == ()


def test_a_release_program_is_audited_on_its_released_values():
    """The Laplace mechanism as a program (pattern REAL): its own sampler is consistent,
    and the Kolmogorov-Smirnov test of the value against the exact CDF rejects a sampler
    at twice the scale (the pattern alone cannot: there is one)."""
    from exactdp.programs.library_release import laplace_mechanism

    d = laplace_mechanism(epsilon=1).distribution([3])
    fit = goodness_of_fit(d.sample, d, 600, rng=1)
    assert fit.verdict == "consistent" and [(t.position, t.n) for t in fit.values] == [(0, 600)]
    wide = laplace_mechanism(epsilon="1/2").distribution([3])
    bad = goodness_of_fit(wide.sample, d, 600, rng=1)
    assert bad.verdict == "rejected" and bad.values[0].p_value < 1e-6
    assert bad.patterns.verdict == "consistent"
