"""exactdp.analysis.neighbourhood: the neighbour sets, counted by hand."""

import itertools

import pytest
import sympy

import exactdp
from exactdp.analysis.neighbourhood import neighbour_list, neighbours
from exactdp.scores import ScoreVector

R = sympy.Rational


# ----------------------------------------------------------------- neighbour search
def test_neighbour_sets():
    pf = exactdp.PermuteAndFlip(1)
    assert len(neighbours(pf, [0, 0, 0])[0]) == 26
    assert len(neighbours(exactdp.PermuteAndFlip(1, monotonic=True), [0, 0, 0])[0]) == 14
    nb, how = neighbours(pf, list(range(8)))
    assert len(nb) == 2 * 8 + 2 and "reduced" in how
    nb, _ = neighbours(exactdp.PermuteAndFlip(1, sensitivity=R(1, 2)), [0, 1])
    assert all(max(abs(a - b) for a, b in zip(v.exact, (0, 1), strict=True)) == R(1, 2)
               for v in nb)


def test_monotonic_reduced_neighbour_search_is_a_subset_that_finds_the_worst_case():
    mech = exactdp.PermuteAndFlip(1, 1, True)
    q = [0, -1, -2, -2, -3, -5, -6]  # n = 7 > 6: "auto" means reduced
    reduced, how = neighbours(mech, q, "reduced")
    full, _ = neighbours(mech, q, "exhaustive")
    assert "reduced" in how.lower() or len(reduced) < len(full)
    as_set = {tuple(v.exact) for v in full}
    assert {tuple(v.exact) for v in reduced} <= as_set
    # monotone moves: every neighbour moves all scores in one direction by 0 or Delta
    for v in reduced:
        diff = [a - b for a, b in zip(v.exact, q, strict=True)]
        assert all(x in (0, 1) for x in diff) or all(x in (0, -1) for x in diff)
    # the reduced search attains the exhaustive worst loss (McKenna & Sheldon, Lemma 1)
    worst_full = exactdp.check_dp(mech, q[:5], search="exhaustive")
    worst_red = exactdp.check_dp(mech, q[:5], search="reduced")
    assert sympy.simplify(worst_full.loss - worst_red.loss) == 0


# ----------------------------------------------------------------- neighbour_list
def test_neighbour_list_uses_the_given_neighbour_or_the_search():
    pf = exactdp.PermuteAndFlip(1)
    q = ScoreVector.from_input([0, 0, 0], "scores")
    nbrs, how = neighbour_list(pf, q, [1, 0, -1], "auto", False, "f")
    assert how == "given neighbour" and [v.exact for v in nbrs] == [(1, 0, -1)]
    nbrs, how = neighbour_list(pf, q, None, "exhaustive", False, "f")
    searched, how2 = neighbours(pf, q, "exhaustive")
    assert how == how2 and [v.exact for v in nbrs] == [v.exact for v in searched]
    assert len(nbrs) == 26  # 3^3 - 1 vertices of the neighbour box


def test_neighbour_list_checks_the_given_pair():
    pf = exactdp.PermuteAndFlip(1)
    q = ScoreVector.from_input([0, 0], "scores")
    with pytest.raises(ValueError, match="myfunc: neighbour.* exceeds the sensitivity"):
        neighbour_list(pf, q, [2, 0], "auto", False, "myfunc")
    nbrs, _ = neighbour_list(pf, q, [2, 0], "auto", True, "myfunc")  # allowed on request
    assert [v.exact for v in nbrs] == [(2, 0)]


# ----------------------------------------------------------------- the heuristic search
def test_heuristic_moves_by_hand():
    from exactdp.analysis.neighbourhood import HEURISTIC_RANDOM, heuristic_moves

    vertices = {s for s in itertools.product((-1, 0, 1), repeat=2) if any(s)}
    assert set(heuristic_moves(2)) == vertices  # n = 2: every vertex already
    n = 10
    moves = heuristic_moves(n)
    assert len(moves) == len(set(moves)) and all(any(s) for s in moves)
    assert all(set(s) <= {-1, 0, 1} for s in moves)
    # deterministic part: 4n (+-e_r, +-(2e_r - 1)) + 2 + 6(n - 1) splits and shifts, minus
    # the 8 that repeat (k = 1 and k = n - 1), then the random vertices
    assert len(moves[:10 * n - 12]) == 10 * n - 12 and len(moves) <= 10 * n - 12 + HEURISTIC_RANDOM
    half = (1,) * 5 + (-1,) * 5
    tools = [(-1,) + (0,) * 9, (1,) + (0,) * 9, (1,) + (-1,) * 9, (-1,) + (1,) * 9, half,
             (1,) * 10, (-1,) * 10]  # StatDP's patterns on (1, ..., 1) (docs/suite.md)
    assert all(t in moves[:10 * n - 12] for t in tools)
    assert heuristic_moves(n) == moves  # seeded
    assert all(min(s) >= 0 or max(s) <= 0 for s in heuristic_moves(6, monotone=True))


def test_heuristic_count_without_building_the_moves():
    """Exact up to 64 queries, an upper bound beyond (checked against the built moves);
    at 10**4 queries it answers at once (the moves themselves are quadratic)."""
    from exactdp.analysis.neighbourhood import heuristic_count, heuristic_moves

    for n in (1, 2, 3, 10, 64):
        for monotone in (False, True):
            assert heuristic_count(n, monotone) == len(heuristic_moves(n, monotone))
    for n in (65, 200):
        assert len(heuristic_moves(n)) <= heuristic_count(n) <= len(heuristic_moves(n)) + 12
    assert heuristic_count(10**4) == 10**5 + 64


def test_mechanisms_releasing_values_get_no_reduced_search():
    """McKenna-Sheldon's reduction is for indices: a mechanism with capability "density"
    is searched heuristically beyond six queries, and "reduced" refuses it."""
    num = exactdp.NumericalSparseVector(R(1, 10), 1, c=2)
    nb, how = neighbours(num, [1] * 7)
    assert how.startswith("heuristic") and len(nb) > 2 * 7 + 2
    with pytest.raises(ValueError, match="search='reduced' holds for regular mechanisms"):
        neighbours(num, [1] * 7, "reduced")


def test_sparse_vector_search_exhaustive_to_six_queries_heuristic_beyond():
    svt = exactdp.SparseVector(R(1, 2), 1, variant=6)
    nb, how = neighbours(svt, [1, 1, 1])
    assert len(nb) == 26 and "exhaustive" in how
    nb, how = neighbours(svt, [1] * 7)
    assert how.startswith("heuristic, not exhaustive") and len(nb) < 3**7 - 1
    with pytest.raises(ValueError, match="neighbours: search='reduced' holds for regular"):
        neighbours(svt, [1] * 7, "reduced")
    with pytest.raises(exactdp.cost.TooCostly, match="check_dp: search='exhaustive' for n = 9"
                       ".*search='heuristic'"):
        exactdp.check_dp(svt, [1] * 9, search="exhaustive")
    with pytest.raises(exactdp.cost.TooCostly, match="check_dp: an exact analysis of 1"):
        exactdp.check_dp(svt, list(range(10)))  # distinct answers: refused up front


def test_sparse_vector_exhaustive_search_is_the_worst_of_every_vertex_by_floats():
    """check_dp's exhaustive search against an independent route: the float64 view of
    every one of the 3**4 - 1 neighbours, max |log P/P'| over the answer sequences."""
    import numpy as np

    svt = exactdp.SparseVector(R(1, 2), 1, variant=6)
    q = [1, 0, 2, 1]
    check = exactdp.check_dp(svt, q)
    assert check.neighbours_checked == 80 and not check.holds
    p = svt.distribution(q).to_numpy()
    worst, where = 0.0, None
    for s in itertools.product((-1, 0, 1), repeat=4):
        if any(s):
            b = [a + d for a, d in zip(q, s, strict=True)]
            loss = float(np.max(np.abs(np.log(p / svt.distribution(b).to_numpy()))))
            if loss > worst:
                worst, where = loss, tuple(b)
    assert abs(float(check.loss) - worst) < 1e-12
    assert tuple(check.witness.neighbour) == where
