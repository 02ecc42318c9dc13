"""Interior critical points of a face's log ratio (exactdp.programs.release_crit2d),
against closed forms: ``ln 1/(2 cosh u + 2 cosh v)`` has its one critical point at the
origin (value ``-ln 4``); ``ln e^(u+v)/(1 + e^u)(1 + e^v)`` none inside a square off it;
a ratio constant along ``u = v`` (a line of zeros) is undecided, not a wrong point."""

from __future__ import annotations

from fractions import Fraction as F

import flint
import mpmath

from exactdp.programs.release_crit2d import critical_points

ONE = {(F(0), F(0), F(0)): {(0, 0): F(1)}}
SQUARE = [(F(1), F(1), F(0)), (F(1), F(-1), F(0)), (F(1), F(0), F(1)), (F(1), F(0), F(-1))]


def _bump(cu: F, cv: F) -> dict:
    """``e^(u - cu) + e^(cu - u) + e^(v - cv) + e^(cv - v)``."""
    return {(F(1), F(0), -cu): {(0, 0): F(1)}, (F(-1), F(0), cu): {(0, 0): F(1)},
            (F(0), F(1), -cv): {(0, 0): F(1)}, (F(0), F(-1), cv): {(0, 0): F(1)}}


def test_one_critical_point_of_a_cosh_bump_at_its_centre():
    for cu, cv in ((F(0), F(0)), (F(1, 3), F(-1, 2))):
        [c] = critical_points(ONE, _bump(cu, cv), SQUARE, F(1), [0], 10**7)
        assert c.u.overlaps(flint.arb(cu.numerator) / cu.denominator) and c.u.rad() < 1e-20
        assert c.value.overlaps(-flint.arb(4).log()) and c.value.rad() < 1e-30


def test_no_critical_point_where_the_gradient_keeps_a_sign():
    f = {(F(1), F(1), F(0)): {(0, 0): F(1)}}
    g = {(F(0), F(0), F(0)): {(0, 0): F(1)}, (F(1), F(0), F(0)): {(0, 0): F(1)},
         (F(0), F(1), F(0)): {(0, 0): F(1)}, (F(1), F(1), F(0)): {(0, 0): F(1)}}
    assert critical_points(f, g, SQUARE, F(1), [0], 10**7) == []
    # quadrature-free check: the gradient of the closed form has no zero in the square
    for u in (-1, 0, 1):
        assert abs(1 - mpmath.e**u / (1 + mpmath.e**u)) > 0.2


def test_a_line_of_zeros_or_an_unbounded_polygon_is_undecided():
    g = {(F(1), F(-1), F(0)): {(0, 0): F(1)}, (F(-1), F(1), F(0)): {(0, 0): F(1)}}
    spent = [0]
    assert critical_points(ONE, g, SQUARE, F(1), spent, 10**5) is None
    assert 0 < spent[0]
    half = SQUARE[:3]  # u <= 1 unbounded
    assert critical_points(ONE, _bump(F(0), F(0)), half, F(1), [0], 10**5) is None
