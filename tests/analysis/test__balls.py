"""exactdp.analysis._balls: the exact lower endpoint of an arb ball, against the ball's own
exact midpoint and radius (dyadic rationals read from their mantissas and exponents)."""

from __future__ import annotations

from fractions import Fraction

import flint
import pytest

from exactdp.analysis._balls import arb_lower_fraction


def _dyadic(x: flint.arf) -> Fraction:
    man, exp = (int(v) for v in x.man_exp())
    return Fraction(man) * Fraction(2) ** exp


@pytest.mark.parametrize("text", ["0.1 +/- 1e-20", "-3.25 +/- 0.5", "1e-300 +/- 1e-310",
                                  "12345678901234567890 +/- 3", "0 +/- 0", "7"])
def test_the_lower_endpoint_is_mid_minus_radius_and_a_lower_bound(text):
    b = flint.arb(text)
    low = arb_lower_fraction(b)
    mid, rad = _dyadic(b.mid()), _dyadic(b.rad().mid())
    assert low <= mid - rad  # the lower() endpoint rounds outward, never inward
    assert mid - rad - low <= abs(mid - rad) * Fraction(1, 2**40) + Fraction(1, 2**1100)


def test_exact_values_give_themselves():
    assert arb_lower_fraction(flint.arb(3) / 8) == Fraction(3, 8)
    assert arb_lower_fraction(flint.arb(-5)) == -5
    assert arb_lower_fraction(flint.arb(2) ** 200) == 2**200
