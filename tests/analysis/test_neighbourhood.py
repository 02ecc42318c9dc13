"""exactdp.analysis.neighbourhood: the neighbour sets, counted by hand."""



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
