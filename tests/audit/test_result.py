"""exactdp.audit.result: GoodnessOfFit's fields, verdict and summary, against Pearson's
statistic computed by hand from fixed counts."""

from __future__ import annotations

import math

import numpy as np
import pytest

from exactdp.audit import goodness_of_fit
from exactdp.audit.result import GoodnessOfFit


def _fixed(counts):
    draws = np.repeat(np.arange(len(counts)), counts)
    return lambda size: draws[:size]


def test_a_fixed_sample_gives_pearsons_statistic_and_its_p_value():
    # 60 zeros and 40 ones against (1/2, 1/2): chi2 = 10**2/50 + 10**2/50 = 4, dof 1,
    # p = P[chi2_1 >= 4] = erfc(sqrt(2)) = 0.0455..., z of cell 0 = 10 / sqrt(25) = 2
    res = goodness_of_fit(_fixed([60, 40]), [0.5, 0.5], 100, rng=0)
    assert isinstance(res, GoodnessOfFit)
    assert res.counts == (60, 40) and res.dof == 1 and res.statistic == pytest.approx(4)
    assert res.p_value == pytest.approx(math.erfc(math.sqrt(2)), rel=1e-9)
    assert res.max_deviation == pytest.approx(2) and res.max_deviation_outputs == (0,)
    assert res.alpha == 0.01 and res.verdict == "consistent" and res.holds  # p > 0.01
    assert float(res) == res.p_value
    strict = goodness_of_fit(_fixed([60, 40]), [0.5, 0.5], 100, rng=0, alpha=0.05)
    assert strict.verdict == "rejected" and not strict.holds
    lines = res.summary().splitlines()
    assert lines[0] == repr(res) and "statistic=4, dof=1, p=0.0455" in lines[1]
    assert lines[2:] == ["observed: [60, 40]", "expected: [50.0, 50.0]"]


def test_an_exact_fit_is_consistent():
    res = goodness_of_fit(_fixed([50, 50]), [0.5, 0.5], 100, rng=0)
    assert res.statistic == 0 and res.p_value == 1.0 and res.verdict == "consistent"
    assert res.holds and not res.certified and len(repr(res)) <= 200
