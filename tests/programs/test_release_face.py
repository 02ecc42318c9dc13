"""Exponential polynomials in two released values and a face's geometry
(exactdp.programs.release_face). Independent routes: direct evaluation with mpmath at 30
digits (finite differences for the derivatives, large t for the leading parts), and
hand-computed polygons."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath

from exactdp.programs.release_face import (
    along,
    cross2,
    edges,
    extremes,
    halves,
    in_cone,
    leading_along,
    mul2,
    region,
    restrict,
    sub2,
)
from exactdp.programs.release_plane import normal

H = {(F(-1, 8), F(-1, 8), F(-1, 4)): {(1, 0): F(1, 4096), (0, 0): F(5, 4096)},
     (F(-7, 8), F(1, 8), F(-3, 4)): {(0, 0): F(-1, 12288)},
     (F(-1, 8), F(-5, 8), F(1, 4)): {(0, 1): F(3, 7), (1, 1): F(-1, 9)}}
G = {(F(-1, 8), F(-1, 8), F(0)): {(0, 0): F(2)}, (F(-1, 2), F(0), F(0)): {(0, 0): F(1)}}


def mp(x):
    x = F(x) if not isinstance(x, (F, int)) else F(x)
    return mpmath.mpf(x.numerator) / x.denominator


def ev(h, u, v, lam=1):
    """``h(u, v)`` in mpmath (exact rationals in, the sum at the working precision)."""
    u, v, lam = (x if isinstance(x, mpmath.mpf) else mp(x) for x in (u, v, lam))
    total = mpmath.mpf(0)
    for (a, b, w), p in h.items():
        poly = sum(mp(c) * u**i * v**j for (i, j), c in p.items())
        total += poly * mpmath.exp(lam * (mp(a) * u + mp(b) * v + mp(w)))
    return total


def ev1(f, t, lam=1):
    t, lam = (x if isinstance(x, mpmath.mpf) else mp(x) for x in (t, lam))
    return sum(sum(mp(c) * t**i for i, c in enumerate(p)) * mpmath.exp(lam * (mp(k) * t + mp(w)))
               for (k, w), p in f.items())


def test_algebra_against_direct_evaluation():
    mpmath.mp.dps = 30
    u, v, lam = F(3, 7), F(-2, 5), F(3, 2)
    assert abs(ev(mul2(H, G), u, v) - ev(H, u, v) * ev(G, u, v)) < 1e-25
    assert abs(ev(sub2(H, G), u, v) - ev(H, u, v) + ev(G, u, v)) < 1e-25
    d = (F(1), F(2))
    step = mpmath.mpf(10) ** -12
    mu, mv = mp(u), mp(v)
    num = (ev(H, mu + step * d[0], mv + step * d[1], lam)
           - ev(H, mu - step * d[0], mv - step * d[1], lam)) / (2 * step)
    assert abs(ev(along(H, d, lam), u, v, lam) - num) < 1e-15
    n = cross2(H, G, d, F(1))
    direct = ev(along(H, d, 1), u, v) * ev(G, u, v) - ev(H, u, v) * ev(along(G, d, 1), u, v)
    assert abs(ev(n, u, v) - direct) < 1e-25
    p, e = (F(1), F(-1)), (F(2), F(3))
    for t in (F(-1), F(1, 3), F(5)):
        assert abs(ev1(restrict(H, p, e), t) - ev(H, p[0] + t * e[0], p[1] + t * e[1])) < 1e-25


def test_leading_part_along_a_direction():
    mpmath.mp.dps = 40
    d, e = (F(1), F(1)), (F(-1), F(1))
    kappa, m, c = leading_along(H, d, e)
    s, t = F(1, 3), 4000
    u, v = s * e[0] + t * d[0], s * e[1] + t * d[1]
    approx = ev1(c, s) * mpmath.mpf(t) ** m * mpmath.exp(mp(kappa) * t)
    assert abs(ev(H, u, v) / approx - 1) < 0.01
    assert leading_along({}, d, e) is None


def test_face_geometry():
    # the face u > 0, v > 0, u < v + 1 (v = u - 1 the line (1, -1, 1) normalised)
    lines = [normal(F(0), F(1), F(0)), normal(F(0), F(0), F(1)), normal(F(-1), F(1), F(-1))]
    signs = tuple(zip(lines, (1, 1, -1), strict=True))
    hs = halves(signs)
    reg = region(hs)
    assert set(reg.vertices) == {(0, 0), (1, 0)}
    assert in_cone(hs, (F(1), F(1))) and in_cone(hs, (F(0), F(1)))
    assert not in_cone(hs, (F(1), F(0)))
    assert extremes(reg, (F(-1), F(-1)), F(0)) == (None, 0)
    assert extremes(reg, (F(1), F(-1)), F(2)) == (None, F(3))
    es = {e.line: (e.lo, e.hi) for e in edges(signs)}
    assert len(es) == 3 and es[lines[1]] == (0, 1)
