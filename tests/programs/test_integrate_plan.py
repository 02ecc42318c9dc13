"""The exact class and the star decomposition of a run
(exactdp/programs/integrate_plan.py): what is refused, with which line, before any
integral; and the bound rules for discrete noise."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

from exactdp.programs.integrate import run_cost, run_probability
from exactdp.programs.integrate_plan import Bound, plan
from exactdp.programs.runs import Run
from tests.programs.test_integrate import EPS, R, con, draw, lin, same, svt_runs


def test_star_decomposition_of_a_sparse_vector_run():
    """SVT1 on two queries, (True, False): one star centred at the threshold, each query a
    leaf with one bound ``nu >= rho - (a - T)`` / ``nu < rho - (a - T)``."""
    r = next(r for r in svt_runs(1, EPS, 1, 2, [3, 0]) if r.output == (True, False))
    (sign, (star,)), = plan(r).alternatives
    assert sign == 1 and star.kind == "continuous" and star.centre == 0
    assert star.leaves == ((1, (Bound(Fraction(1), Fraction(-2), True, False, "svt.py:5"),)),
                           (2, (Bound(Fraction(1), Fraction(1), False, True, "svt.py:5"),)))


def test_discrete_not_equal_expands_by_inclusion_exclusion():
    d = (draw(0, "discrete_laplace", 1), draw(1, "discrete_laplace", 1))
    r = Run(d, (con(lin(0, z0=1, z1=-1), ">"), con(lin(3, z0=1, z1=-1), "!=")), 1, 0)
    alts = plan(r).alternatives
    assert sorted(s for s, _ in alts) == [-1, 1]
    assert all(len(stars) == 1 for _, stars in alts)


def test_svt2_redrawn_threshold_is_a_product_of_stars():
    runs = svt_runs(2, EPS, 0, 2, [1, 0])
    p = plan(runs[0])
    assert len(p.alternatives) == 1 and len(p.alternatives[0][1]) == 2
    assert same(sum(run_probability(r) for r in runs), 1)


def test_chain_of_four_is_a_tree_and_a_triangle_is_refused_with_the_line():
    """z0 > z1 > z2 > z3: a tree (not a star), integrated leaf first: 1/4! by symmetry; a
    cycle of comparisons is refused naming the comparison that closes it."""
    d = tuple(draw(i, "laplace", 1, f"p.py:{i}") for i in range(4))
    chain = (con(lin(0, z0=1, z1=-1), ">", "p.py:10"), con(lin(0, z1=1, z2=-1), ">", "p.py:11"),
             con(lin(0, z2=1, z3=-1), ">", "p.py:12"))
    (_, (tree,)), = plan(Run(d, chain, 1, 0)).alternatives
    assert tree.kind == "tree" and [v for v, _, _ in tree.nodes][-1] in (1, 2)
    assert same(run_probability(Run(d, chain, 1, 0)), R(1, 24))
    assert run_cost(Run(d, chain, 1, 0)) > 0
    tri = (con(lin(0, z0=1, z1=-1), ">", "p.py:20"), con(lin(0, z1=1, z2=-1), ">", "p.py:21"),
           con(lin(0, z2=1, z0=-1), ">", "p.py:22"))
    with pytest.raises(ValueError, match=r"^p\.py:2[012]: .*closes a cycle.*forest"):
        run_probability(Run(d[:3], tri, 1, 0))
    g = tuple(draw(i, "discrete_laplace", 1, f"p.py:{i}") for i in range(4))
    with pytest.raises(ValueError, match=r"^p\.py:1[012]: .*tree that is not a star"):
        run_cost(Run(g, chain, 1, 0))


def test_a_chain_of_three_is_a_star():
    """z0 - z1 - z2: a star centred at z1 (the threshold compared with two queries)."""
    d = tuple(draw(i, "laplace", 1) for i in range(3))
    chain = (con(lin(0, z0=1, z1=-1)), con(lin(0, z1=1, z2=-1)))
    assert same(run_probability(Run(d, chain, 1, 0)), R(1, 6))   # P(z0 > z1 > z2) = 1/3!


def test_three_noise_comparison_is_refused_with_the_line():
    d = tuple(draw(i, "laplace", 1, f"p.py:{i}") for i in range(3))
    c = con(lin(0, z0=1, z1=1, z2=-1), ">", "prog.py:7")
    with pytest.raises(ValueError, match=r"^prog\.py:7: this comparison involves 3 noises"):
        run_probability(Run(d, (c,), 1, 0))


@pytest.mark.parametrize("bad,match", [
    (Run((draw(0, "cauchy", 1),), (), 1, 0), "unknown noise law"),
    (Run((draw(0, "laplace", -1),), (), 1, 0), "not provably positive"),
    (Run((draw(0, "laplace", sympy.Symbol("s")),), (), 1, 0), "not provably positive"),
    (Run((draw(0, "laplace", 1), draw(1, "discrete_laplace", 1)),
         (con(lin(0, z0=1, z1=-1), ">", "m.py:3"),), 1, 0), "^m.py:3: .*mixes noise laws"),
    (Run((draw(0, "gumbel", 1), draw(1, "gumbel", 1)),
         (con(lin(0, z0=2, z1=-1), ">", "g.py:4"),), 1, 0), "^g.py:4: .*argmax"),
    (Run((draw(0, "discrete_laplace", 1), draw(1, "discrete_laplace", 1)),
         (con(lin(0, z0=2, z1=-3), ">", "d.py:5"),), 1, 0), "^d.py:5: .*non-integer"),
])
def test_bad_runs_are_refused(bad, match):
    with pytest.raises(ValueError, match=match):
        run_probability(bad)


def test_refusal_comes_before_any_integral_even_for_an_impossible_run():
    d = tuple(draw(i, "laplace", 1) for i in range(3))
    cons = (con(lin(-1), ">", "p.py:1"), con(lin(0, z0=1, z1=1, z2=1), ">", "p.py:2"))
    with pytest.raises(ValueError, match="^p.py:2"):
        run_probability(Run(d, cons, 1, 0))




@pytest.mark.parametrize(("k", "rel", "holds"), [
    (0, "==", True), (1, "==", False), (0, "!=", False), (1, "!=", True),
    (0, ">", False), (0, ">=", True), (-1, ">=", False), (1, ">", True),
])
def test_a_comparison_of_constants_keeps_or_empties_the_run(k, rel, holds):
    """A comparison with no noise in it is decided by exact arithmetic: ``k rel 0`` true
    keeps the run's probability (here P(Lap(1) > -1) = 1 - e^-1 / 2, the Laplace CDF),
    false makes it 0."""
    d = (draw(0, "laplace", 1),)
    base = (con(lin(1, z0=1), ">"),)
    assert run_probability(Run(d, base, 1, None)) == 1 - sympy.exp(-1) / 2
    got = run_probability(Run(d, (*base, con(lin(k), rel)), 1, None))
    assert got == (1 - sympy.exp(-1) / 2 if holds else 0)


def test_refusals_name_the_first_comparison_and_the_reason():
    """17 '!=' comparisons of discrete noise (the limit is 16) are refused at the first
    one's line; a comparison of Laplace with discrete Laplace noise at its own line."""
    d = tuple(draw(i, "discrete_laplace", 1, f"p.py:{i}") for i in range(18))
    cons = tuple(con(lin(0, z0=1, **{f"z{i}": -1}), "!=", f"p.py:{20 + i}")
                 for i in range(1, 18))
    with pytest.raises(ValueError, match=r"^p\.py:21: 17 '!=' comparisons of discrete noise "
                       r"in one run \(limit 16: each doubles the work\)$"):
        plan(Run(d, cons, 1, 0))
    mixed = (draw(0, "laplace", 1, "p.py:0"), draw(1, "discrete_laplace", 1, "p.py:1"))
    with pytest.raises(ValueError, match=r"^p\.py:5: this comparison mixes noise laws "
                       r"\(discrete_laplace, laplace\) that the exact class does not integrate "
                       r"together \(discrete with continuous, or Gumbel with another law\)$"):
        plan(Run(mixed, (con(lin(0, z0=1, z1=-1), ">", "p.py:5"),), 1, 0))
