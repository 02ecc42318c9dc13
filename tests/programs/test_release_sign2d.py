"""The certified sign of a two-variable exponential polynomial on a polygon
(exactdp.programs.release_sign2d). Independent route: the functions' minima known in
closed form, and a dense mpmath grid where the sign changes."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath

from exactdp.programs.release_sign2d import frame, nonnegative, transform

from .test_release_face import H, ev

QUADRANT = [(F(0), F(1), F(0)), (F(0), F(0), F(1))]  # u >= 0, v >= 0


def test_signs_proved_and_refuted():
    # e^-u - e^-(u+v) >= 0 on the quadrant (zero on v = 0: a touching zero, weak sign)
    h = {(F(-1), F(0), F(0)): {(0, 0): F(1)}, (F(-1), F(-1), F(0)): {(0, 0): F(-1)}}
    assert nonnegative(h, QUADRANT, F(1)) is not False
    # u e^-u - e^-u / 2 changes sign at u = 1/2: refuted
    k = {(F(-1), F(0), F(0)): {(1, 0): F(1), (0, 0): F(-1, 2)}}
    assert nonnegative(k, QUADRANT, F(1)) is False
    # 2 e^(-u/2) + (u - 1) e^-u > 0 on u >= 0 (at least 2 e^(-u/2) - e^-u): proved with a
    # polynomial factor on an unbounded side
    p = {(F(-1, 2), F(0), F(0)): {(0, 0): F(2)},
         (F(-1), F(0), F(0)): {(1, 0): F(1), (0, 0): F(-1)}}
    strip = QUADRANT + [(F(1), F(0), F(-1))]  # 0 <= v <= 1
    assert nonnegative(p, strip, F(1)) is True


def test_a_diagonal_strip_is_cut_across_in_its_own_frame():
    # 2 e^-(u+v) - e^-(2u) on v - 1 <= u <= v + 1, v >= 0: positive (2 e^(u-v) > e^0... )
    h = {(F(-1), F(-1), F(0)): {(0, 0): F(2)}, (F(-2), F(0), F(0)): {(0, 0): F(-1, 3)}}
    strip = [(F(1), F(1), F(-1)), (F(1), F(-1), F(1)), (F(0), F(0), F(1))]
    assert nonnegative(h, strip, F(1)) is True
    p0, r1, r2 = frame(strip)
    assert r1 == (1, 1) or r2 == (1, 1)


def test_transform_is_a_change_of_variables():
    mpmath.mp.dps = 30
    p0, r1, r2 = (F(1), F(-2)), (F(1), F(1)), (F(-1), F(2))
    t = transform(H, p0, r1, r2)
    for x, y in ((F(1, 3), F(2)), (F(-1), F(1, 5))):
        u, v = p0[0] + x * r1[0] + y * r2[0], p0[1] + x * r1[1] + y * r2[1]
        assert abs(ev(t, x, y) - ev(H, u, v)) < 1e-25
