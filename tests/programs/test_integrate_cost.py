"""exactdp.programs.integrate_cost: the estimated terms and products of a star, against
the terms and products the integrator actually builds (counted), and the lattice-point
count of a zonotope against brute-force subset sums."""

from __future__ import annotations

import itertools
import math
import random
import warnings

import numpy as np
import pytest
import sympy

import exactdp
from exactdp.exact import piecewise_exp
from exactdp.programs import integrate_stars
from exactdp.programs.integrate import run_cost
from exactdp.programs.integrate_cost import StarWork, _Zonotope, star_work
from exactdp.programs.integrate_plan import plan
from exactdp.programs.library import svt1
from exactdp.programs.runs import Constraint, Draw, Linear, Run

R = sympy.Rational
EPS = sympy.Symbol("epsilon", positive=True)


def argmax_runs(law: str, q: list, scale=2 / EPS) -> list[Run]:
    """The runs of report-noisy-max on ``q``, built by hand: run ``w`` has ``v_w > v_j``
    for every other ``j`` (``v_i = q_i + z_i``)."""
    n = len(q)
    draws = tuple(Draw(i, law, scale, "rnm.py:3") for i in range(n))
    runs = []
    for w in range(n):
        cons = tuple(Constraint(Linear(R(q[w]) - R(q[j]), tuple(sorted(
            ((w, sympy.Integer(1)), (j, sympy.Integer(-1)))))), ">", "rnm.py:4")
            for j in range(n) if j != w)
        runs.append(Run(draws, cons, sympy.Integer(1), w))
    return runs


def counted(run: Run, monkeypatch) -> tuple[int, int]:
    """The products of terms (``len(a) * len(b)`` per product of two factors) and the
    integrand's terms (summed over the pieces) that the general continuous engine builds
    on ``run``'s one star."""
    count = [0, 0]
    times, integrate = integrate_stars.times, integrate_stars.integrate_piece

    def counting_times(a, b):
        if a != piecewise_exp.ONE and b != piecewise_exp.ONE:
            count[0] += len(a) * len(b)
        return times(a, b)

    def counting_integrate(out, piece, *args, **kwargs):
        count[1] += len(piece)
        return integrate(out, piece, *args, **kwargs)

    with monkeypatch.context() as m:
        m.setattr(integrate_stars, "times", counting_times)
        m.setattr(integrate_stars, "integrate_piece", counting_integrate)
        (star,) = plan(run).alternatives[0][1]
        integrate_stars.star_frac(star, [d.law for d in run.draws],
                                  integrate_stars.units(run), False)
    return count[0], count[1]


def estimated(run: Run) -> StarWork:
    (star,) = plan(run).alternatives[0][1]
    return star_work(star, [d.law for d in run.draws], integrate_stars.units(run))


@pytest.mark.parametrize("law", ["laplace", "exponential"])
@pytest.mark.parametrize("q", [list(range(9)), [0, 3, 1, 4, 1, 5, 9, 2, 6],
                               [R(1, 2) * i for i in range(8)], [0, 0, 0, 1, 1, 1, 2, 2]])
def test_terms_and_products_against_those_built(law, q, monkeypatch):
    """Every run of an argmax (distinct, repeated and half-integer answers): the terms
    estimated bound those built, within 30% (the zonotope's lattice points are the
    subset sums here), and the products are within a factor 2 of those counted."""
    for run in argmax_runs(law, q):
        products, terms = counted(run, monkeypatch)
        work = estimated(run)
        assert terms <= work.terms <= 1.3 * terms + 2, (q, run.output, work, terms)
        assert products / 2 <= work.products <= 2 * products + 10, (q, work, products)


def test_terms_are_polynomial_where_the_product_of_factors_is_exponential():
    """An argmax over 40 distinct integer answers: the winner's star has 39 two-term
    leaves (2**39 choices) but at most ``sum_p sum_m (m (p - m) + 1)`` terms over its
    pieces, about 40**4 / 24: the estimate is that count (consecutive offsets fill their
    zonotope), not the product."""
    run = argmax_runs("laplace", list(range(40)))[39]  # the top answer wins: 39 leaves
    work = estimated(run)
    exact = sum(sum(m * (p - m) + 1 for m in range(p + 1)) for p in range(40))
    assert exact <= work.terms <= 1.1 * exact + 40
    assert work.terms < 2e6 < 2**39
    assert run_cost(run) < 5  # the old product estimate: about 2**39 terms, days


def test_zonotope_points_bound_the_subset_sums():
    """Random small integer vectors: the lattice points of their zonotope (Pick's theorem:
    area + half perimeter + 1, kept under insertion and removal) bound the distinct
    subset sums, enumerated; vectors ``(1, o)`` with consecutive ``o`` fill it."""
    rng = random.Random(7)
    for trial in range(30):
        k = rng.randrange(1, 8)
        vs = [(rng.randrange(0, 4), rng.randrange(-5, 6)) for _ in range(k)]
        vs = [(x, y) if x > 0 or (x == 0 and y > 0) else (-x, -y) for x, y in vs if x or y]
        sums = {tuple(map(sum, zip(*c, strict=True))) if c else (0, 0)
                for r in range(len(vs) + 1) for c in itertools.combinations(vs, r)}
        dirs = sorted({_primitive(v) for v in vs}, key=lambda d: _angle(d))
        rank = {d: i for i, d in enumerate(dirs)}
        z = _Zonotope(len(dirs))
        extra = (3, 1)  # added and removed again: the state returns
        for x, y in [*vs, extra]:
            d = _primitive((x, y))
            if d not in rank:
                continue
            z.add(rank[d], x, y, _length((x, y)), 1)
        if _primitive(extra) in rank:
            z.add(rank[_primitive(extra)], *extra, _length(extra), -1)
        points = z.area + z.length + 1
        assert len(sums) <= points + 1e-9, (trial, vs, len(sums), points)
    z = _Zonotope(8)
    for o in range(8):  # the directions (1, o) in angle order
        z.add(o, 1, o, 1, 1)
    assert z.area + z.length + 1 == len({(m, sum(c)) for m in range(9)
                                        for c in itertools.combinations(range(8), m)})


def _primitive(v):
    g = math.gcd(*v)
    return v[0] // g, v[1] // g


def _length(v):
    return math.gcd(*v)


def _angle(d):
    return math.atan2(d[1], d[0])


def test_a_discrete_star_and_an_empty_centre():
    """A discrete Laplace argmax costs more than the same star with Laplace noise; a
    centre whose own bounds leave nothing has no pieces."""
    disc = estimated(argmax_runs("discrete_laplace", list(range(6)), 2)[5])
    cont = estimated(argmax_runs("laplace", list(range(6)), 2)[5])
    assert disc.pieces > 0 and disc.terms >= cont.terms and disc.products > cont.products
    d = (Draw(0, "laplace", 1, "f.py:1"), Draw(1, "laplace", 1, "f.py:1"))
    cons = (Constraint(Linear(R(-3), ((0, sympy.Integer(1)),)), ">", "f.py:2"),
            Constraint(Linear(R(1), ((0, sympy.Integer(-1)),)), ">", "f.py:3"),
            Constraint(Linear(R(0), ((0, sympy.Integer(1)), (1, sympy.Integer(-1)))), ">",
                       "f.py:4"))
    assert estimated(Run(d, cons, 1, 0)) == StarWork(0, 0.0, 0.0)


def test_segments_of_hundreds_of_digits_do_not_overflow():
    """Two segments whose coordinates have ~300 digits (a float score converted exactly):
    the zonotope is their parallelogram, its area ``|det|`` exactly (integers, no float
    overflow); the estimate then caps the points at ``inf``."""
    u, v = (10 ** 300, 3), (7, 10 ** 301 + 1)
    z = _Zonotope(2)
    z.add(0, *u, 1, 1)
    z.add(1, *v, 1, 1)
    assert z.area == u[0] * v[1] - u[1] * v[0]
    z.add(0, *u, 1, -1)
    assert z.area == 0


@pytest.mark.parametrize("tiny", [1e-300, 1e300])
def test_float_scores_at_the_ends_of_the_double_range(tiny):
    """``svt1`` at the float scores ``1e-300`` and ``1e300`` (exact rationals with
    ~1000-bit denominators or numerators) is computed: at ``1e-300`` it matches the
    distribution at ``[0, 0]`` numerically (continuity) and the privacy loss against
    ``[0, 0]`` is positive and below ``1e-299`` (the loss is Lipschitz in the scores);
    at ``1e300`` the first query is above the threshold with probability 1."""
    mech = svt1(epsilon=1, threshold=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = mech.distribution([tiny, 0]).to_numpy()
        if tiny < 1:
            assert np.allclose(got, mech.distribution([0, 0]).to_numpy(), rtol=0, atol=1e-15)
            loss = exactdp.privacy_loss(mech, [tiny, 0], [0, 0])
            assert 0 < loss.lower <= loss.upper < 1e-299
        else:
            assert np.allclose(got, [1, 0, 0], rtol=0, atol=1e-15)
