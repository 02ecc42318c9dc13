"""The search over several released values: the arb value of a density against its sympy
closed form, the grid and starts from the runs' noise-free outputs, and the coordinate
search against a brute-force maximum over the same grid."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import flint
import sympy

from exactdp.exact.piecewise_exp import value_expr
from exactdp.programs import library_release as L
from exactdp.programs.release_search import (
    OFFSETS,
    best_point,
    grid,
    search_cost,
    starts,
    value_arb,
)


def test_value_arb_encloses_the_closed_form():
    v = {(1, F(-1, 3)): F(1, 2), (2, F(2)): F(-3, 7)}
    lam = F(1, 5)
    b = value_arb(v, lam)
    exact = value_expr(v, sympy.Rational(1, 5))
    assert b.contains(flint.arb(str(sympy.N(exact, 40))))


def test_grid_and_starts_are_the_noise_free_outputs_moved():
    m = L.prefix_sum(epsilon=1)
    d, d2 = m.distribution([1, 0]), m.distribution([1, 1])
    (key,) = d.keys
    assert starts(d.runs[key], d2.runs[key]) == [(F(1), F(1)), (F(1), F(2))]
    pts = grid(d.runs[key], d2.runs[key], F(1))
    assert pts == sorted({a + t for a in (F(1), F(2)) for t in (F(0), *OFFSETS)})
    assert {F(1), F(2), F(-3), F(6)} <= set(pts)
    assert search_cost(2, len(pts), 2) == 2 * 2 * 2 * len(pts)


def test_best_point_is_the_grid_maximum_of_a_separable_function():
    def f(o):
        return flint.arb(float(-(o[0] - 1) ** 2 - abs(o[1] + 2)))

    pts = [F(k) for k in range(-4, 5)]
    o, val = best_point(f, pts, [(F(0), F(0))])
    brute = max(itertools.product(pts, pts), key=lambda p: abs(f(p)).mid())
    assert abs(val.mid() - abs(f(brute)).mid()) < 1e-12
    assert best_point(lambda o: None, pts, [(F(0), F(0))]) is None
