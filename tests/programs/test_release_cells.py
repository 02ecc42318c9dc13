"""The cells of a released value's density (exactdp.programs.release_cells)."""

from __future__ import annotations

from fractions import Fraction

from exactdp.programs import library_release as L
from exactdp.programs import release_sup as S
from exactdp.programs.release_cells import V, VPoly, cell_at, cells, joint_cells, own_cells
from exactdp.programs.release_density import run_density
from exactdp.programs.release_loss import _density

from .test_release_loss import same


def test_cells_cover_the_line_and_hold_the_closed_forms():
    d = L.noisy_max_value_laplace(epsilon=1).distribution([0, 1, 3])
    runs = d.runs[d.keys[0]]

    def compute(v):
        total = {}
        for r in runs:
            for k, q in run_density(r, (v,), "x")[1].items():
                total[k] = total.get(k, 0) + q
        return total

    cs = cells(compute, "test")
    assert [(c.lo, c.hi) for c in cs] == [(None, 0), (0, 1), (1, 3), (3, None)]
    # the closed form of a cell at a point inside it is the exact density there
    f = S.add({}, {})
    for (_, w), q in cs[2].result.items():
        wp = VPoly.lift(w).c
        f = S.add(f, {(wp[1] if len(wp) > 1 else Fraction(0), wp[0]): VPoly.lift(q).c})
    assert same(S.exact_at(f, Fraction(2), Fraction(1)), d.density(2))


def test_vpoly_orders_are_decided_at_the_test_point_and_record_their_roots():
    with cell_at(Fraction(1, 2)) as ctx:
        assert 2 * V - 3 < 0 and V > 0 and abs(V - 1) == 1 - V
    assert ctx.roots == {Fraction(3, 2), Fraction(0), Fraction(1)}
    assert VPoly((Fraction(2),)) == Fraction(2) and hash(VPoly((Fraction(2),))) == hash(Fraction(2))


def test_joint_cells_are_the_pair_walked_together():
    # each input's cells, cached, then intersected: the same cells and closed forms as the
    # walk of the pair computed together (AdaptiveSVT at 2 queries, every one-value pattern)
    m = L.adaptive_svt(epsilon=Fraction(1, 10), threshold=1)
    a, b = m.distribution((1, 1)), m.distribution((2, 0))
    for key in a.keys[1:]:  # the first pattern, (False, False), releases no value
        pair = cells(lambda v, key=key: (_density(a.runs[key], (v,), "x"),
                                         _density(b.runs[key], (v,), "x")), "x")
        joint = joint_cells(a, b, key, "x", _density)
        assert [(c.lo, c.hi) for c in joint] == [(c.lo, c.hi) for c in pair]
        assert [c.result for c in joint] == [c.result for c in pair]
        assert len(own_cells(a, key, "x", _density)) <= len(joint)


def test_linear_is_the_checked_constructor():
    F = Fraction
    for c0, c1 in ((F(1), F(2)), (F(1), F(0)), (F(0), F(0)), (F(0), F(-1, 3))):
        a, b = VPoly.linear(c0, c1), VPoly((c0, c1))
        assert a.c == b.c and hash(a) == hash(b) and a == b
