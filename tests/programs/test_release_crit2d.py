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


def _bad_density(q, outs, sigma=16, rho_b=2, eta_b=16, xi_b=8):
    """BadAdaptiveSVT's density (c = 2, T = 0, epsilon 1) of two released values, from the
    algorithm: ``int f_rho(z) prod_i ([o_i - z >= sigma] f_eta(o_i - a_i) + [o_i >= 0]
    F_eta(sigma + z - a_i) f_xi(o_i + z - a_i)) dz`` (the cheap branch releases the noisy
    answer, the costly one the gap)."""
    from .quadrature import _integral, laplace_cdf, laplace_pdf

    def h(z):
        out = laplace_pdf(z, rho_b)
        for a, o in zip(q, outs, strict=True):
            part = laplace_pdf(o - a, eta_b) if o - z >= sigma else 0
            if o >= 0:
                part += laplace_cdf(sigma + z - a, eta_b) * laplace_pdf(o + z - a, xi_b)
            out *= part
        return out

    return _integral(h, [0, *(o - sigma for o in outs),
                         *(a - o for a, o in zip(q, outs, strict=True)),
                         *(a - sigma for a in q)])


def test_bad_adaptive_svt_face_critical_point_against_quadrature(monkeypatch):
    """BadAdaptiveSVT c = 2, (1, 1) against (0, 0), the two-value pattern's face ``v >= 1,
    u >= v, u + v <= 16``: one interior critical point, near (7.708, 7.627); its value
    equals the log ratio of the quadrature density there (30 digits) to 1e-12, and the
    quadrature's log ratio is no larger a step away in either coordinate."""
    from exactdp.programs import library_release as L
    from exactdp.programs import release_two as T
    from exactdp.programs.release_face import edges
    from exactdp.programs.release_loss import _tools

    faces = []
    monkeypatch.setattr(T, "_face", lambda face, f, g, lam, *rest: (
        faces.append((face, f, g, lam)), ([], True))[1])
    prog = L.bad_adaptive_svt(epsilon=1, threshold=0, c=2)
    d, e = prog.distribution((1, 1)), prog.distribution((0, 0))
    key = next(k for k, o in zip(d.keys, d.outputs, strict=True) if str(o) == "(REAL, REAL)")
    T.two_candidates(d.runs[key], e.runs[key], "P", "t", _tools(None))
    face, f, g, lam = next(x for x in faces if x[0].point == (F(7, 6), F(25, 24)))
    sides = edges(face.signs)
    hs = [(s * a, s * b, s * c) for (a, b, c), s in face.signs
          if any(x.line == (a, b, c) for x in sides)]
    [c] = critical_points(f, g, hs, lam, [0], 10**7)
    mpmath.mp.dps = 30
    u, v = (mpmath.mpf(x.mid().str(30, radius=False)) for x in (c.u, c.v))
    want = mpmath.log(_bad_density((1, 1), (u, v)) / _bad_density((0, 0), (u, v)))
    assert abs(mpmath.mpf(c.value.mid().str(30, radius=False)) - want) < 1e-12
    assert abs(float(want) - 0.193592121926568) < 1e-12
    for du, dv in ((1e-3, 0), (-1e-3, 0), (0, 1e-3), (0, -1e-3)):
        near = mpmath.log(_bad_density((1, 1), (u + du, v + dv))
                          / _bad_density((0, 0), (u + du, v + dv)))
        assert near <= want + 1e-20
