"""The certified sign of a two-variable exponential polynomial on a polygon
(exactdp.programs.release_sign2d). Independent route: the functions' minima known in
closed form, and a dense mpmath grid where the sign changes."""

from __future__ import annotations

from fractions import Fraction as F

import flint
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


def test_the_integer_part_is_the_fraction_region():
    """The box loop's exact integer geometry (``part``: homogeneous vertices, reduced rays,
    coordinate ranges) against release_face.region in Fractions, on bounded and unbounded
    polygons cut by boxes; the vertex balls hold the exact vertices."""
    from itertools import product

    from exactdp.programs.release_face import extremes, region
    from exactdp.programs.release_polygon import int_half
    from exactdp.programs.release_sign2d import _box_halves, part

    polys = [QUADRANT, [(F(1), F(1), F(-1)), (F(1), F(-1), F(1)), (F(0), F(0), F(1))],
             QUADRANT + [(F(7, 3), F(-1, 2), F(-2, 5))], [(F(-1, 3), F(1), F(0))]]
    cuts = [None, F(0), F(5, 7), F(-3, 2)]
    checked = 0
    for hs, (a, b) in product(polys, product(cuts, cuts)):
        box = (a, None, b, None)
        boxed = hs + ([(-a, F(1), F(0))] if a is not None else []) + (
            [(-b, F(0), F(1))] if b is not None else [])
        want = region(boxed)
        got = part([int_half(h) for h in hs] + _box_halves(box))
        if want is None:
            assert got is None
            continue
        assert got is not None
        assert sorted((F(x, w), F(y, w)) for x, y, w in got.vertices) == list(want.vertices)
        unit = {(r[0] / max(abs(r[0]), abs(r[1])), r[1] / max(abs(r[0]), abs(r[1])))
                for r in want.rays}
        assert {(F(x, max(abs(x), abs(y))), F(y, max(abs(x), abs(y)))) for x, y in got.rays} == unit
        for axis in (0, 1):
            lin = (F(1), F(0)) if axis == 0 else (F(0), F(1))
            assert got.rng[axis] == extremes(want, lin, F(0))
        for (x, y, w), bx, by in zip(got.vertices, got.xs, got.ys, strict=True):
            assert bx.contains(flint.fmpq(x, w)) and by.contains(flint.fmpq(y, w))
        checked += 1
    assert checked > 20


def test_cancelling_terms_are_resolved_by_the_mean_value_form(monkeypatch):
    """``e^{-3u} ((e^u - 1)^2 + c)`` on ``[0, 4] x [0, 1]``: three terms of size about 1
    whose sum is ``c`` near ``u = 0``. With ``c = 1/100`` it is positive (proved), with
    ``c = -1/100`` negative near 0 (refuted: ``(e^u - 1)^2 < 1/100`` for ``u < ln 1.1``).
    The mean-value form proves it with a tenth of the naive enclosures' work."""
    from exactdp.programs import release_sign2d as S

    z, one = F(0), F(1)
    box = [(z, one, z), (z, z, one), (F(4), -one, z), (one, z, -one)]

    def h(c):
        return {(-one, z, z): {(0, 0): one}, (F(-2), z, z): {(0, 0): F(-2)},
                (F(-3), z, z): {(0, 0): 1 + c}}

    fast = [0]
    assert nonnegative(h(F(1, 100)), box, one, 10**5, fast)
    assert nonnegative(h(F(-1, 100)), box, one, 10**5) is False
    monkeypatch.setattr(S, "_mean_value", lambda *a: flint.arb(0, 10**300))  # naive only
    slow = [0]
    assert nonnegative(h(F(1, 100)), box, one, 10**5, slow)
    assert 10 * fast[0] < slow[0]
