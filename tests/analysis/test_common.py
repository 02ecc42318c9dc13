"""analysis/common.py: the shared helpers of the analyzer."""

from __future__ import annotations

import sympy

from exactdp.analysis.common import ratios_with_limits


def test_ratios_with_limits_gives_the_limits_of_the_loss_ratio():
    num, den = [0, 1, 0, 3], [0, 0, 2, 4]
    out = ratios_with_limits(num, den, lambda a: a == 0, lambda a, b: sympy.Rational(a, b))
    assert out[0] is sympy.nan  # 0/0: the output is impossible under both
    assert out[1] is sympy.oo  # a/0: infinite loss
    assert out[2] == 0 and out[3] == sympy.Rational(3, 4)
