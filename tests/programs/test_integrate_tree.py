"""Trees of comparisons integrated leaf first (exactdp/programs/integrate_tree.py), against
independent routes: sympy's derivative of the closed-form antiderivative, the star engine
on stars, symmetry (1/n! for i.i.d. chains), nested mpmath quadrature at 30 digits of a
chain's defining integral."""

from __future__ import annotations

import random
from fractions import Fraction

import mpmath
import pytest
import sympy

from exactdp.exact.piecewise_exp import value_expr
from exactdp.programs.integrate import run_probability
from exactdp.programs.integrate_plan import Bound, Tree, plan
from exactdp.programs.integrate_tree import (
    antiderivative,
    compose,
    density,
    message,
    multiply,
    tree_terms,
    tree_value,
    value_at,
)
from exactdp.programs.runs import Run
from tests.programs.test_integrate import EPS, R, con, draw, lin, same

from . import quadrature as Q

F = Fraction
Z = sympy.Symbol("z", real=True)


def as_expr(f: dict) -> sympy.Expr:
    """``sum q lam**e z**m exp(lam (r z + w))`` at ``lam = epsilon``."""
    return sum((sympy.Rational(q.numerator, q.denominator) * EPS**e * Z**m
                * sympy.exp(EPS * (sympy.Rational(r.numerator, r.denominator) * Z
                                   + sympy.Rational(w.numerator, w.denominator)))
                for (e, m, r, w), q in f.items()), sympy.Integer(0))


def test_antiderivative_differentiates_back_and_compose_substitutes():
    f = {(1, 2, F(-3, 2), F(1, 3)): F(5, 7), (0, 1, F(0), F(2)): F(-1, 2), (2, 0, F(1), F(0)): F(3)}
    assert sympy.simplify(sympy.diff(as_expr(antiderivative(f)), Z) - as_expr(f)) == 0
    g = compose(f, F(-2), F(1, 4))
    assert sympy.simplify(as_expr(g) - as_expr(f).subs(Z, -2 * Z + R(1, 4))) == 0
    v = value_at(f, F(3, 2))
    assert sympy.simplify(value_expr(v, EPS) - as_expr(f).subs(Z, R(3, 2))) == 0


def test_a_message_is_a_difference_of_cdfs():
    """One leaf of rate 1 between ``z - 1`` and ``z + 2``: ``F(z + 2) - F(z - 1)``."""
    lo, hi = Bound(F(1), F(-1), True, False, ""), Bound(F(1), F(2), False, False, "")
    breaks, pieces = message(multiply([density("laplace", F(1))]), (lo, hi))
    for t in (F(-3), F(-1, 2), F(1, 2), F(3, 2), F(5)):
        assert t not in breaks
        k = sum(1 for b in breaks if b < t)
        got = sympy.N(as_expr(pieces[k]).subs({Z: t, EPS: 1}), 30)
        with mpmath.workdps(30):
            x = mpmath.mpf(t.numerator) / t.denominator
            want = Q.laplace_cdf(x + 2, 1) - Q.laplace_cdf(x - 1, 1)
            assert abs(mpmath.mpf(str(got)) - want) < mpmath.mpf(10) ** -28


def _random_star(rng: random.Random, law: str) -> Run:
    n = rng.randint(2, 4)
    d = tuple(draw(i, law, rng.choice([1, R(1, 2), 2]) / EPS) for i in range(n))
    cons = []
    for leaf in range(1, n):
        for _ in range(rng.randint(1, 2)):
            coef = {"z0": -rng.choice([1, 2]), f"z{leaf}": rng.choice([1, -1, 2])}
            cons.append(con(lin(R(rng.randint(-4, 4), 2), **coef), rng.choice([">", ">="])))
    if rng.random() < 0.5:
        cons.append(con(lin(rng.randint(-2, 2), z0=rng.choice([1, -1])), ">"))
    return Run(d, tuple(cons), 1, 0)


def _as_tree(run: Run) -> Tree:
    """The star of ``run`` as a hand-built :class:`Tree` rooted at the centre."""
    (_, (star,)), = plan(run).alternatives
    nodes = [(v, star.centre, bs) for v, bs in star.leaves]
    return Tree("tree", (*nodes, (star.centre, None, star.centre_bounds)))


def test_tree_engine_agrees_with_the_star_engine_on_random_stars():
    rng = random.Random(34)
    for law in ("laplace", "exponential"):
        for _ in range(12):
            run = _random_star(rng, law)
            rates = tuple(F(int(r.p), int(r.q)) for r in (1 / (EPS * d.scale) for d in run.draws))
            mine = value_expr(tree_value(_as_tree(run), [law] * len(run.draws), rates), EPS)
            assert same(mine, run_probability(run)), run


def test_an_iid_chain_has_probability_one_over_n_factorial():
    for law in ("laplace", "exponential"):
        d = tuple(draw(i, law, 3 / EPS) for i in range(5))
        chain = tuple(con(lin(0, **{f"z{i}": 1, f"z{i + 1}": -1})) for i in range(4))
        assert same(run_probability(Run(d, chain, 1, 0)), R(1, 120))


@pytest.mark.parametrize("digits", [10, pytest.param(30, marks=pytest.mark.slow)])
def test_a_chain_with_offsets_against_nested_quadrature(digits):
    """``P(z0 + 1 > z1 > z2 - 1/2 > z3 + 5/2)``, Laplace draws of scales 1, 2, 1, 1, from
    its definition: ``int int f1(x1) f2(x2) [1 - F0(x1 - 1)] F3(x2 - 5/2) dx1 dx2`` over
    ``x1 > x2 - 1/2`` (the two ends of the chain in closed form, the middle by a nested
    ``mpmath.quad`` split at the kinks)."""
    d = tuple(draw(i, "laplace", s) for i, s in enumerate([1, 2, 1, 1]))
    chain = (con(lin(1, z0=1, z1=-1)), con(lin(R(1, 2), z1=1, z2=-1)),
             con(lin(R(-5, 2), z2=1, z3=-1)))
    run = Run(d, chain, 1, 0)
    (_, (tree,)), = plan(run).alternatives
    assert tree.kind == "tree" and tree_terms(tree) > 0
    p = run_probability(run)
    with mpmath.workdps(digits + 2):
        pdf, cdf, half = Q.laplace_pdf, Q.laplace_cdf, mpmath.mpf(1) / 2

        def inner(x1):
            return pdf(x1, 2) * (1 - cdf(x1 - 1, 1))

        def outer(x2):
            lo = x2 - half
            kinks = sorted(k for k in (mpmath.mpf(0), mpmath.mpf(1)) if k > lo)
            return pdf(x2, 1) * cdf(x2 - 5 * half, 1) * mpmath.quad(inner, [lo, *kinks,
                                                                            mpmath.inf])

        want = mpmath.quad(outer, [-mpmath.inf, 0, half, 3 * half, 5 * half, mpmath.inf])
        got = mpmath.mpf(str(sympy.N(p, digits + 2)))
        assert abs(got - want) < mpmath.mpf(10) ** -digits


def _random_tree(rng: random.Random, law: str) -> tuple[Run, list, list]:
    """A random tree of 5 or 6 draws (each joined to an earlier one), one or two
    comparisons per edge, a constant bound now and then; with the comparisons as
    ``(coefficients, constant)`` for the Monte Carlo check."""
    n = rng.randint(5, 6)
    scales = [rng.choice([1, 2, R(1, 2)]) for _ in range(n)]
    d = tuple(draw(i, law, s) for i, s in enumerate(scales))
    cons, raw = [], []
    for v in range(1, n):
        p = rng.randrange(v)
        for _ in range(rng.randint(1, 2)):
            cv, cp, k = rng.choice([1, -1, 2]), -rng.choice([1, 2]), R(rng.randint(-3, 3), 2)
            cons.append(con(lin(k, **{f"z{v}": cv, f"z{p}": cp})))
            raw.append(({v: cv, p: cp}, k))
    if rng.random() < 0.5:
        cons.append(con(lin(1, z0=-1)))
        raw.append(({0: -1}, 1))
    return Run(d, tuple(cons), 1, 0), [float(s) for s in scales], raw


def test_random_trees_against_monte_carlo():
    """Random trees (not only chains) of Laplace and exponential draws: the exact
    probability against 200,000 draws of the noises (5 standard errors)."""
    import numpy as np

    rng, gen = random.Random(7), np.random.default_rng(34)
    checked = trees = 0
    for law in ("laplace", "exponential"):
        for _ in range(6):
            run, scales, raw = _random_tree(rng, law)
            p = float(sympy.N(run_probability(run)))
            size = 200_000
            z = np.stack([gen.laplace(0, s, size) if law == "laplace" else
                          gen.exponential(s, size) for s in scales])
            ok = np.ones(size, dtype=bool)
            for coef, k in raw:
                ok &= sum(c * z[i] for i, c in coef.items()) + float(k) > 0
            assert abs(ok.mean() - p) <= 5 * np.sqrt(p * (1 - p) / size) + 1e-4, (run, p)
            checked += p > 0.001
            trees += any(s.kind == "tree" for _, stars in plan(run).alternatives
                         for s in stars)
    assert checked >= 4 and trees >= 6
