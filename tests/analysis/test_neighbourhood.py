"""exactdp.analysis.neighbourhood: the neighbour sets, counted by hand."""



import sympy

import exactdp
from exactdp.analysis.neighbourhood import neighbours

R = sympy.Rational


# ----------------------------------------------------------------- neighbour search
def test_neighbour_sets():
    pf = exactdp.PermuteAndFlip(1)
    assert len(neighbours(pf, [0, 0, 0])[0]) == 26
    assert len(neighbours(exactdp.PermuteAndFlip(1, monotone=True), [0, 0, 0])[0]) == 14
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
