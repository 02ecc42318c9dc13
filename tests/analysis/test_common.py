"""analysis/common.py: the shared helpers of the analyzer."""

from __future__ import annotations

import math

import pytest
import sympy

import exactdp
from exactdp.analysis.common import exact_float, ratios_with_limits
from exactdp.analysis.loss_range import bounded_range
from exactdp.analysis.renyi import Divergence, kl_divergence


def test_ratios_with_limits_gives_the_limits_of_the_loss_ratio():
    num, den = [0, 1, 0, 3], [0, 0, 2, 4]
    out = ratios_with_limits(num, den, lambda a: a == 0, lambda a, b: sympy.Rational(a, b))
    assert out[0] is sympy.nan  # 0/0: the output is impossible under both
    assert out[1] is sympy.oo  # a/0: infinite loss
    assert out[2] == 0 and out[3] == sympy.Rational(3, 4)


def test_exact_float_rounds_once_and_maps_oo_to_inf():
    assert exact_float(sympy.Rational(1, 3)) == 1 / 3  # correctly rounded
    assert exact_float(sympy.log(2)) == math.log(2)
    assert exact_float(sympy.exp(-800)) == 0.0  # below the float range: underflows, no error
    assert exact_float(sympy.oo) == math.inf


def test_float_of_the_analysis_results():
    # KL((1/2, 1/2) || (1/4, 3/4)) by hand: 1/2 ln(2) + 1/2 ln(2/3) = ln 2 - ln(3)/2
    d = kl_divergence([sympy.Rational(1, 2)] * 2, [sympy.Rational(1, 4), sympy.Rational(3, 4)])
    assert isinstance(d, Divergence)
    assert float(d) == pytest.approx(math.log(2) - math.log(3) / 2, rel=1e-15)
    assert float(Divergence(sympy.oo, sympy.oo)) == math.inf


def test_bounded_range_float_is_the_closed_form():
    # Durfee & Rogers (2019): PF on (0, 0) vs (0, 1) with monotone scores has range
    # eps + ln(2 - e^{-eps}); at eps = 1:
    br = bounded_range(exactdp.PermuteAndFlip(1, monotonic=True), [0, 0], [0, 1])
    assert float(br) == float(1 + sympy.log(2 - sympy.exp(-1)))


_PF = exactdp.PermuteAndFlip(1)
_BAD = [0, "x"]  # not a number


@pytest.mark.parametrize("func, call", [
    ("check_dp", lambda: exactdp.check_dp(_PF, _BAD)),
    ("privacy_loss", lambda: exactdp.privacy_loss(_PF, _BAD, [0, 1])),
    ("privacy_loss", lambda: exactdp.privacy_loss(_PF, [0, 1], _BAD)),
    ("certify_dp", lambda: exactdp.certify_dp(_PF, _BAD)),
    ("certify_dp", lambda: exactdp.certify_dp(_PF, [0, 1], _BAD)),
    ("neighbours", lambda: exactdp.neighbours(_PF, _BAD)),
    ("bounded_range", lambda: exactdp.bounded_range(_PF, _BAD)),
    ("check_zcdp", lambda: exactdp.check_zcdp(_PF, _BAD, 1)),
    ("is_symmetric", lambda: exactdp.is_symmetric(_PF, [_BAD])),
    ("is_shift_invariant", lambda: exactdp.is_shift_invariant(_PF, [_BAD])),
    ("is_monotonic", lambda: exactdp.is_monotonic(_PF, [_BAD])),
    ("OptimalRegularMechanism.distribution",
     lambda: exactdp.OptimalRegularMechanism(1).distribution(_BAD)),
    ("certify_dominance", lambda: exactdp.certify_dominance(_PF, _PF, _BAD)),
    ("privacy_loss_distribution", lambda: exactdp.privacy_loss_distribution(_PF, _BAD, [0, 1])),
])
def test_score_errors_name_the_function_called(func, call):
    """Issue 20: a bad score vector is refused in the caller's name, with the entry."""
    with pytest.raises(ValueError, match=rf"^{func}: (scores|neighbour|vectors)\[1\] must be a "
                                         r"number .*got 'x'$"):
        call()
