"""A pointed polygon's vertices and extreme rays in exact integers
(exactdp.programs.release_polygon). Independent route: the same polygons by brute force in
Fractions (every pair of boundary lines solved by Cramer's rule, the recession cone
checked on a ring of directions), and shapes whose corners are known."""

from __future__ import annotations

from fractions import Fraction as F
from itertools import combinations, product

from exactdp.programs.release_polygon import corners, int_half, meet, solid


def _brute(hs):
    pts = set()
    for (a, b, c), (a2, b2, c2) in combinations(hs, 2):
        det = b * c2 - c * b2
        if det:
            p = ((c * a2 - a * c2) / det, (a * b2 - b * a2) / det)
            if all(x + y * p[0] + z * p[1] >= 0 for x, y, z in hs):
                pts.add(p)
    return pts


def test_corners_are_the_brute_force_vertices_and_a_cone_of_rays():
    polys = [[(F(0), F(1), F(0)), (F(0), F(0), F(1))],
             [(F(1), F(1), F(-1)), (F(1), F(-1), F(1)), (F(0), F(0), F(1))],
             [(F(0), F(1), F(0)), (F(0), F(0), F(1)), (F(7, 3), F(-1, 2), F(-2, 5))],
             [(F(-1, 3), F(1), F(0)), (F(2), F(0), F(-1)), (F(1), F(0), F(1))],
             [(F(0), F(1), F(0)), (F(-1), F(1), F(0))],  # two parallel lines: no vertex
             [(F(0), F(1), F(0)), (F(-1), F(-1), F(0))]]  # empty
    ring = [(F(x), F(y)) for x, y in product(range(-3, 4), repeat=2) if x or y]
    for hs in polys:
        got = corners([int_half(h) for h in hs])
        want = _brute(hs)
        if not want:
            assert got is None
            continue
        assert {(F(x, w), F(y, w)) for x, y, w in got[0]} == want
        cone = {d for d in ring if all(b * d[0] + c * d[1] >= 0 for _, b, c in hs)}
        rays = [(F(x), F(y)) for x, y in got[1]]
        assert all(r in cone or all(b * r[0] + c * r[1] >= 0 for _, b, c in hs) for r in rays)
        for d in cone:  # each a nonnegative combination of the rays (Cramer's rule)
            assert _spanned(d, rays)


def _spanned(d, rays):
    if len(rays) == 1:
        r = rays[0]
        return r[0] * d[1] == r[1] * d[0] and r[0] * d[0] + r[1] * d[1] > 0
    (a, b), (c, e) = rays
    det = a * e - b * c
    if det == 0:
        return any(_spanned(d, [r]) for r in rays)
    return (d[0] * e - d[1] * c) / det >= 0 and (a * d[1] - b * d[0]) / det >= 0

def test_int_half_and_meet_are_exact():
    assert int_half((F(1, 2), F(-3, 4), F(0))) == (2, -3, 0)
    assert int_half((F(0), F(0), F(0))) == (0, 0, 0)
    assert meet((-1, 1, 0), (-2, 0, 3)) == (3, 2, 3)  # x = 1, y = 2/3
    assert meet((0, 1, 0), (5, 2, 0)) is None  # parallel


def test_solid_tells_a_polygon_from_a_segment_or_a_ray():
    assert solid([(0, 0, 1), (1, 0, 1), (0, 1, 1)], [])  # a triangle
    assert not solid([(0, 0, 1), (1, 0, 1), (2, 0, 1)], [])  # a segment
    assert solid([(0, 0, 1)], [(1, 0), (0, 1)])  # a quadrant
    assert not solid([(0, 0, 1)], [(1, 1)])  # a ray
    assert solid([(F(0), F(0), 1), (F(1, 2), F(0), 1)], [(F(0), F(1))])  # rationals, W = 1
