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
    # a huge move is abbreviated, not printed in its 301 digits
    with pytest.raises(ValueError) as err:
        neighbour_list(pf, q, [10**300, 0], "auto", False, "myfunc")
    text = str(err.value)
    assert "= 1.0e+300 exceeds" in text and "got 1.0e+300" in text and len(text) < 220


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


# ----------------------------------------------------------------- declarations
def _lopsided(q):
    """Output 0 weighs exp(L/2), L = q0 + q1 + q2 - (the rest); the others weigh 1: not
    symmetric, not shift-invariant (issue 32)."""
    big_l = sum(q[:3]) - sum(q[3:])
    w = [sympy.exp(big_l / 2)] + [sympy.Integer(1)] * (len(q) - 1)
    return [x / sum(w) for x in w]


def test_an_undeclared_asymmetric_function_is_searched_heuristically_beyond_six_scores():
    """Main searched it as regular (16 reduced neighbours, "reduced (regular mechanism ...)")
    and check_dp(epsilon=2) said it holds. The neighbour q + (-1,-1,-1,1,1,1,1) moves L by
    -7: P_0 goes from 1/7 to e^(-7/2)/(e^(-7/2) + 6), a loss of 7/2 + ln((e^(-7/2) + 6)/7)
    = 3.35 > 2 (by hand), which the heuristic search finds."""
    m = exactdp.mechanism_from_function(_lopsided)
    assert not exactdp.is_symmetric(m).holds
    nb, how = neighbours(m, [0] * 7)
    assert how.startswith("heuristic") and "regular" not in how and len(nb) > 2 * 7 + 2
    res = exactdp.check_dp(m, [0] * 7, epsilon=2)
    assert not res.holds and "regular" not in res.search
    exact = R(7, 2) + sympy.log((sympy.exp(-R(7, 2)) + 6) / 7)
    assert abs(sympy.N(res.loss - exact, 40)) < 1e-35
    assert not m.regular
    with pytest.raises(ValueError, match="search='reduced' holds for regular mechanisms only"):
        neighbours(m, [0] * 7, "reduced")


def test_a_users_regular_declaration_is_checked_on_the_scores_with_a_witness():
    bad = exactdp.mechanism_from_function(_lopsided, regular=True, name="lopsided")
    with pytest.raises(ValueError) as err:
        exactdp.check_dp(bad, [0] * 7, epsilon=2)
    text = str(err.value)
    assert "\n" not in text and text.startswith(
        "check_dp: lopsided declares regular=True but is not shift-invariant on these scores")
    assert "(0,0,0,0,0,0,0)->(1,1,1,1,1,1,1) at output 0" in text  # P_0: 1/7 vs 0.0918
    assert len(neighbours(bad, [0] * 6)[0]) == 3**6 - 1  # exhaustive: no claim relied on

    def em(q, eps):
        w = [sympy.exp(sympy.sympify(eps) * v / 2) for v in q]
        return [x / sum(w) for x in w]

    good = exactdp.mechanism_from_function(em, epsilon=1, regular=True)
    q = [0, -1, -1, -2, -3, -3, -5]
    nb, how = neighbours(good, q)
    assert how.startswith("reduced (regular mechanism") and len(nb) == 2 * 7 + 2
    # the same worst loss as the package's EM (an independent implementation)
    ours, theirs = exactdp.check_dp(good, q), exactdp.check_dp(exactdp.ExponentialMechanism(1), q)
    assert abs(sympy.N(ours.loss - theirs.loss, 40)) < 1e-35


def test_search_descriptions_say_regular_only_of_mechanisms_that_declare_it():
    mechanisms = [spec.instance() for spec in exactdp.mechanisms.REGISTRY.values()
                  if spec.kind == "selection"]
    mechanisms += [exactdp.mechanism_from_function(_lopsided),
                   exactdp.NumericalSparseVector(R(1, 10), 1, c=2),
                   exactdp.SparseVector(R(1, 2), 1, variant=6),
                   exactdp.ReportNoisyMax(1, output="value")]
    for m in mechanisms:
        for search in ("auto", "heuristic", "exhaustive"):
            how = neighbours(m, [1] * 7, search)[1]
            assert ("regular" in how) == (m.regular and search == "auto"), (m, search, how)


def _one_moves(q, delta=1):
    """By enumeration: the vertices q + delta*s, s in {-1,0,1}^n, with one score moved."""
    return {tuple(a + delta * d for a, d in zip(q, s, strict=True))
            for s in itertools.product((-1, 0, 1), repeat=len(q))
            if sum(map(abs, s)) == 1}


@pytest.mark.parametrize("monotonic", [False, True])
@pytest.mark.parametrize("n", [3, 8])
def test_adjacency_one_searches_every_single_score_move(n, monotonic):
    m = exactdp.mechanism_from_function(_lopsided, adjacency="one", monotonic=monotonic,
                                        sensitivity=2)
    q = tuple(range(n))
    for search in ("auto", "exhaustive", "reduced", "heuristic"):
        nb, how = neighbours(m, list(q), search)
        assert len(nb) == 2 * n and {v.exact for v in nb} == _one_moves(q, 2), search
        assert how.startswith("exhaustive, one score moves")


def test_adjacency_one_loss_is_the_worst_single_score_move_by_enumeration():
    def em(q, eps):
        w = [sympy.exp(sympy.sympify(eps) * v / 2) for v in q]
        return [x / sum(w) for x in w]

    m = exactdp.mechanism_from_function(em, epsilon=1, adjacency="one")
    q = (0, -1, -3)
    p = em(q, 1)
    worst = max(abs(sympy.log(a / b)) for v in _one_moves(q) for a, b in zip(
        p, em(v, 1), strict=True))
    res = exactdp.check_dp(m, list(q))
    assert res.neighbours_checked == 6 and res.holds
    assert abs(sympy.N(res.loss - worst, 40)) < 1e-35
    # every-score adjacency has the larger box: a larger worst loss here
    assert exactdp.check_dp(exactdp.ExponentialMechanism(1), list(q)).loss > res.loss


def test_adjacency_one_refuses_a_neighbour_that_moves_two_scores():
    m = exactdp.mechanism_from_function(_lopsided, adjacency="one", name="histogram")
    with pytest.raises(ValueError, match=r"^privacy_loss: histogram declares adjacency 'one' "
                       r".*moves scores\[0\] and scores\[2\]; pass allow_non_neighbour=True"):
        exactdp.privacy_loss(m, [0, 0, 0], [1, 0, -1])
    # L = q0 + q1 + q2 is 0 on both: the same probabilities, loss 0 (by hand)
    assert exactdp.privacy_loss(m, [0, 0, 0], [1, 0, -1], allow_non_neighbour=True).loss == 0
    # one score moved: L = -1, P_0 = e^(-1/2)/(e^(-1/2) + 2) against 1/3
    loss = exactdp.privacy_loss(m, [0, 0, 0], [0, 0, -1]).loss
    by_hand = sympy.log((sympy.exp(-R(1, 2)) + 2) / (3 * sympy.exp(-R(1, 2))))
    assert abs(sympy.N(loss - by_hand, 40)) < 1e-35
    with pytest.raises(ValueError, match="check_dp: histogram declares adjacency 'one'"):
        exactdp.check_dp(m, [0, 0, 0], [1, 1, 0], epsilon=2)


def test_integer_score_domain_refuses_fractions_before_any_computation():
    calls = []

    def f(q):
        calls.append(q)
        return [sympy.Rational(1, len(q))] * len(q)

    m = exactdp.mechanism_from_function(f, score_domain="integer", name="ints")
    for call, message in [
        (lambda: exactdp.check_dp(m, [0, "1/2"], epsilon=1),
         r"^check_dp: scores\[1\] must be an integer"),
        (lambda: exactdp.neighbours(m, [R(1, 3), 0]), r"^neighbours: scores\[0\] must be an"),
        (lambda: exactdp.privacy_loss(m, [0, 0], [0, "0.5"]),
         r"^privacy_loss: neighbour\[1\] must be an integer \(ints declares "
         r"score_domain='integer'\), got 1/2$"),
        (lambda: exactdp.check_dp(m, [0, sympy.sqrt(2)], epsilon=1),
         r"scores\[1\] must be an integer"),
    ]:
        with pytest.raises(ValueError, match=message):
            call()
    assert calls == []
    assert exactdp.check_dp(m, [0, 1], epsilon=1).holds  # integers are fine (uniform: loss 0)


def test_the_search_asks_the_mechanism_for_its_cost_unconditionally():
    from dataclasses import dataclass

    from exactdp.mechanisms.custom import FunctionMechanism

    seen = []

    @dataclass(frozen=True, eq=False)
    class Recording(FunctionMechanism):
        def check_cost(self, func, vectors):
            seen.append((func, [v.exact for v in vectors]))

    m = Recording(_lopsided)
    nb, _ = neighbours(m, [0, 1], func="check_dp")
    # once, with every vector: a program's probes then estimate them all before enumerating
    assert seen == [("check_dp", [(0, 1), *[v.exact for v in nb]])]


def test_the_neighbour_search_reads_declarations_not_classes():
    from pathlib import Path

    import exactdp.analysis.neighbourhood as module

    source = Path(module.__file__).read_text()
    assert "isinstance(" not in source and '"density"' not in source
    assert "SparseVector" not in source


def test_a_vertex_search_of_a_mechanism_not_declared_regular_says_vertices_only():
    """A program may use the answers non-linearly: on ``4 q (1 - q) + Lap(1/(2 eps)) >= 0``
    the vertex [1] of [0] has loss 0 while the neighbour [1/2] inside the box has loss 2
    (``P[True]`` is 1/2 at q in {0, 1} and 1 - e^-2/2 at 1/2). The search says so; a regular
    mechanism's does not."""

    from exactdp.analysis.neighbourhood import VERTICES_ONLY
    from exactdp.programs import laplace, program

    @program(domain=(0, 1), adjacency="one")
    def bump(q, epsilon):
        return 4 * q[0] * (1 - q[0]) + laplace(1 / (2 * epsilon)) >= 0

    m = bump(epsilon=1)
    vectors, how = exactdp.neighbours(m, [0])
    assert [v.exact for v in vectors] == [(1,)]
    assert how.endswith(VERTICES_ONLY)
    inside = exactdp.privacy_loss(m, [0], [sympy.Rational(1, 2)])
    assert sympy.simplify(inside.loss - 2) == 0
    assert exactdp.check_dp(m, [0]).loss == 0  # the vertex only: the search says so
    _, regular = exactdp.neighbours(exactdp.PermuteAndFlip(1), [0, 1])
    assert VERTICES_ONLY not in regular


def test_check_cost_false_leaves_the_pricing_to_the_caller():
    """RNM-Laplace's check_cost prices exact closed forms of every vector (check_dp's
    work): refused at 50 scores; a caller that prices its own work (check_accountant)
    gets the same 2n + 2 neighbours."""
    mech = exactdp.ReportNoisyMax(1, noise="laplace")
    with pytest.raises(ValueError, match="closed forms of 103 score vectors"):
        neighbours(mech, list(range(50)))
    out, how = neighbours(mech, list(range(50)), check_cost=False)
    assert len(out) == 102 and how.startswith("reduced")
