"""The polygonal cells of two released values' density (exactdp.programs.release_plane).
Independent routes: the density computed at rational points by the exact one-point route
(run_density at Fractions) against each face's closed form."""

from __future__ import annotations

from fractions import Fraction as F

from exactdp.programs import library_release as L
from exactdp.programs.release_loss import _density
from exactdp.programs.release_plane import (
    Sides,
    U,
    UVPoly,
    V,
    face_points,
    meet,
    normal,
    plane_at,
    plane_cells,
    side,
)


def _pattern(dist, text):
    return next(k for k, o in zip(dist.keys, dist.outputs, strict=True) if str(o) == text)


def test_uvpoly_orders_are_decided_at_the_test_point_and_record_their_lines():
    with plane_at((F(1, 2), F(1, 3))) as ctx:
        assert 2 * U - 3 < 0 and U > V and abs(V - 1) == 1 - V
    assert ctx.lines == {normal(F(-3), F(2), F(0)), (F(0), F(1), F(-1)), (F(-1), F(0), F(1))}
    assert (U * V + 1).at(F(2), F(3)) == 7 and UVPoly.lift(3) == 3
    assert hash(UVPoly.lift(3)) == hash(F(3))


def test_face_points_meet_every_face_of_an_arrangement():
    # u = 0, v = 0, u = v: six faces (the three lines through one point)
    lines = {normal(F(0), F(1), F(0)), normal(F(0), F(0), F(1)), normal(F(0), F(1), F(-1))}
    signs = {tuple(side(ln, p) for ln in sorted(lines)) for p in face_points(lines)}
    assert len(signs) == 6 and all(0 not in s for s in signs)
    assert meet(normal(F(0), F(1), F(0)), normal(F(-1), F(0), F(1))) == (0, 1)


def test_each_face_holds_the_exact_density_at_its_points():
    """GapSVT, c = 2: the closed form of a face at a second point inside it equals the
    exact density computed there at Fractions."""
    g = L.gap_svt(epsilon=1, threshold=1, c=2)
    d = g.distribution((1, 1, 0, 0))
    runs = d.runs[_pattern(d, "(False, False, REAL, REAL)")]
    lines, faces = plane_cells(lambda u, v: _density(runs, (u, v), "t")[1], "t")
    assert len(faces) > 2 and all(0 not in dict(f.signs).values() for f in faces)
    checked = 0
    for face in faces:
        u0, v0 = face.point
        if u0 <= 0 or v0 <= 0:
            continue
        # a nearby point on the same side of every line
        p = (u0 + F(1, 10**6), v0 + F(1, 10**7))
        assert all(side(ln, p) == s for ln, s in face.signs)
        exact = _density(runs, p, "t")[1]
        mine = {(e, w.at(*p) if isinstance(w, UVPoly) else w):
                q.at(*p) if isinstance(q, UVPoly) else q for (e, w), q in face.result.items()}
        total: dict = {}
        for k, q in mine.items():
            total[k] = total.get(k, 0) + q
        assert {k: q for k, q in total.items() if q} == exact
        checked += 1
    assert checked >= 2


def test_sides_in_integers_agree_with_side_in_fractions():
    """The integer signs (Sides, used in the cells' loops) against ``side`` in Fractions,
    zeros included (points on the lines)."""
    lines = [normal(F(a), F(b), F(c)) for a, b, c in
             ((0, 1, 0), (-1, 2, 3), (F(1, 3), F(-1, 7), 1), (5, 0, F(2, 9)))]
    pts = [(F(0), F(0)), (F(1, 2), F(-1, 3)), (F(-3), F(7, 5)), (F(1, 6), F(-2, 9))]
    pts += [meet(lines[1], lines[2]), (F(1), F(-45, 2))]  # on two lines, on the fourth
    signs = []
    for p in pts:
        at = Sides(p)
        for ln in lines:
            assert at(ln) == side(ln, p) == at(ln)
            signs.append(side(ln, p))
    assert signs.count(0) >= 4
