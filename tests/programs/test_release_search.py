"""The search over several released values: the arb value of a density against its sympy
closed form, the grid and starts from the runs' noise-free outputs, the coordinate search
against a brute-force maximum over the same grid, and SVT3 with two released values (exact
and bracketed losses) against 30-digit quadrature of its densities."""

from __future__ import annotations

import itertools
import re
from fractions import Fraction as F

import flint
import mpmath
import pytest
import sympy

import exactdp
from exactdp.cost import TooCostly
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


# ------------------------------------------------- SVT3 with c = 2: two released values
def _svt3_density(q, out, eps=1, c=2, t=1):
    """The density of Lyu-Su-Li's Algorithm 3 at an output (released values as numbers,
    ``False`` below, ``None`` after the stop), by 30-digit quadrature over the threshold
    noise: ``int p(r) prod_below F(t + r - q_i) prod_released g(v_i - q_i) dr`` over ``r <=
    min(v) - t`` (p Laplace of scale 2/eps, F and g of scale 2c/eps): an independent route."""
    b1, b2 = mpmath.mpf(2) / eps, mpmath.mpf(2 * c) / eps

    def lap(x, b):
        return mpmath.exp(-abs(x) / b) / (2 * b)

    def cdf(x, b):
        return mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2

    vals = [(mpmath.mpf(v), a) for v, a in zip(out, q, strict=True)
            if v is not None and v is not False]
    below = [a for v, a in zip(out, q, strict=True) if v is False]
    top = min(v for v, _ in vals) - t

    def f(r):
        out = lap(r, b1)
        for a in below:
            out *= cdf(t + r - a, b2)
        for v, a in vals:
            out *= lap(v - a, b2)
        return out

    cuts = sorted({mpmath.mpf(0), *(mpmath.mpf(a - t) for a in below)})
    return mpmath.quad(f, [-mpmath.inf, *[x for x in cuts if x < top], top])


def _values(text):
    return [sympy.Rational(x) for x in re.search(r"values \(([^)]*)\)", text).group(1)
            .split(", ")]


def test_svt3_c2_two_values_exact_against_quadrature():
    q, q2 = (1, 1, 1, 1), (2, 0, 0, 0)
    loss = exactdp.privacy_loss(L.svt3(epsilon=1, threshold=1, c=2), q, q2)
    assert loss.value == 1 and loss.attained and loss.interval is None
    assert "(REAL, False, False, REAL)" in loss.output
    v1, v4 = _values(loss.output)
    with mpmath.workdps(30):
        at = (v1, False, False, v4)
        ratio = mpmath.log(_svt3_density(q, at) / _svt3_density(q2, at))
        assert abs(abs(ratio) - 1) < mpmath.mpf(10) ** -20
        for x in (-3, 0, 2, 6):  # a grid of outputs never exceeds the loss
            for y in (-3, 0, 2, 6):
                o = (x, False, False, y)
                r = abs(mpmath.log(_svt3_density(q, o) / _svt3_density(q2, o)))
                assert r <= 1 + mpmath.mpf(10) ** -20


def test_svt3_c2_moving_both_ways_is_exact_inside_its_former_bracket():
    """(1, 1, 0, 0) vs (0, 0, 1, 1): the search gave the certified bracket [0.972808, 1]
    (its lower end the ratio at (1, 17), its upper the translation bound 1); the released
    values are coupled only through their least (:mod:`exactdp.programs.release_min`), so
    the supremum is exact: ln(10 - 16 e^(1/4) + 8 e^(1/2)), attained at (1, 1)."""
    q, q2 = (1, 1, 0, 0), (0, 0, 1, 1)
    loss = exactdp.privacy_loss(L.svt3(epsilon=1, threshold=1, c=2), q, q2)
    want = sympy.log(10 - 16 * sympy.exp(sympy.Rational(1, 4)) + 8 * sympy.exp(
        sympy.Rational(1, 2)))
    assert loss.interval is None and loss.attained
    assert exactdp.exact.compare(loss.value, want) == 0
    assert sympy.Rational(97280848, 10**8) <= loss.value <= 1  # the former bracket
    v3, v4 = _values(loss.output)
    with mpmath.workdps(30):
        o = (False, False, v3, v4)
        at = abs(mpmath.log(_svt3_density(q, o) / _svt3_density(q2, o)))
        assert abs(at - sympy.N(want, 30)) < mpmath.mpf(10) ** -20  # quadrature at it
        for x in (-2, 0, 1, "3/2", 3, 8):
            for y in (-2, 0, 1, "3/2", 3, 8):
                o = (False, False, sympy.Rational(x), sympy.Rational(y))
                r = abs(mpmath.log(_svt3_density(q, o) / _svt3_density(q2, o)))
                assert r <= sympy.N(want, 30) + mpmath.mpf(10) ** -20


def test_search_past_the_cost_limit_is_refused_at_once(monkeypatch):
    from exactdp.programs import release_chain, release_loss

    monkeypatch.setattr(release_loss, "run_cost", lambda run: 1e3)
    # the plane's faces settle this pair now (release_two): the search is its fallback
    monkeypatch.setattr(release_chain, "two_candidates", lambda *args: None)
    with pytest.raises(TooCostly, match=r"gap_svt.privacy_loss: a search over the 2 released"):
        exactdp.privacy_loss(L.gap_svt(epsilon=1, threshold=1, c=2), (1, 1, 0, 0), (0, 0, 1, 1))


def test_screen_points_cover_the_cell():
    from exactdp.programs.release_search import screen_points

    inside = screen_points(F(0), F(17), F(1))
    assert inside == [F(k) for k in range(1, 17)]
    right = screen_points(F(2), None, F(1, 2))
    assert right[0] == F(2) + F(1, 2) and right[-1] == F(2) + F(2**11, 2) and right == sorted(right)
    both = screen_points(None, None, F(1))
    assert len(both) == 24 and both[0] < 0 < both[-1]


def test_best_point_stops_at_the_target():
    calls = []

    def f(o):
        calls.append(o)
        return flint.arb(float(o[0]))

    pts = [F(k) for k in range(-4, 5)]
    o, val = best_point(f, pts, [(F(2),)], target=2.0)
    assert o == (F(2),) and len(calls) == 1  # the bound is met at the start: no sweep
    o, val = best_point(f, pts, [(F(0),)], target=4.0)
    assert o in ((F(4),), (F(-4),)) and val.mid() == 4


def test_prefix_sum_at_ten_answers_is_epsilon_attained():
    q = [1] * 10
    loss = exactdp.privacy_loss(L.prefix_sum(epsilon=F(1, 2)), q, q[:-1] + [0])
    assert loss.value == sympy.Rational(1, 2) and loss.attained
