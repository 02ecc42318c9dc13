"""Public functions that had no test, each checked against an independent route
(a closed form derived by hand, enumeration, or a second algorithm)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy

import exactdp
from exactdp.analysis.divergence import kl, kl_divergence
from exactdp.analysis.neighbourhood import neighbours
from exactdp.exact.unit_interval import descartes_bound, is_nonnegative_on_unit_interval
from tests.reference import LP_VARIABLES_K4

EPS = sympy.Symbol("epsilon", positive=True)
R = sympy.Rational


def two_item_pf(eps, gap=1, c=2):
    """PF on (0, -gap): the runner-up wins with p/2, p = exp(-eps*gap/(c*Delta))."""
    p = sympy.exp(-eps * gap / c)
    return (1 - p / 2, p / 2)


def test_subs_matches_a_fresh_distribution_at_that_epsilon():
    d = exactdp.PermuteAndFlip(EPS).distribution([0, -1])
    at = d.subs(epsilon=2)
    assert at.probabilities == exactdp.PermuteAndFlip(2).distribution([0, -1]).probabilities
    want = two_item_pf(sympy.Integer(2))
    assert all(sympy.simplify(a - b) == 0 for a, b in zip(at.probabilities, want, strict=True))
    assert d.subs(EPS, 2).probabilities == at.probabilities
    with pytest.raises(ValueError, match="subs"):
        d.subs(delta=1)


def test_entropy_three_views_against_hand_formula():
    d = exactdp.PermuteAndFlip(2).distribution([0, -1])
    p = math.exp(-1) / 2  # runner-up probability
    want = -(p * math.log(p) + (1 - p) * math.log(1 - p))
    assert d.entropy() == pytest.approx(want, rel=1e-14)
    assert float(d.entropy("mpmath", 30)) == pytest.approx(want, rel=1e-14)
    assert float(sympy.N(d.entropy("exact"), 30)) == pytest.approx(want, rel=1e-14)
    # uniform on n outputs: ln n (docs/formulas.md section 5, the T -> oo end)
    assert exactdp.ExponentialMechanism(1).distribution([0] * 7).entropy() == pytest.approx(
        math.log(7), rel=1e-14)


def test_expect_and_error_tail_against_enumeration():
    q = [0, -1, -1, -3]
    d = exactdp.ExponentialMechanism(1).distribution(q)
    w = [math.exp(v / 2) for v in q]  # softmax at temperature 2*Delta/eps = 2
    p = [x / sum(w) for x in w]
    assert d.expect(lambda r: r * r) == pytest.approx(sum(r * r * p[r] for r in range(4)))
    assert float(d.expect(lambda r: r, method="exact")) == pytest.approx(
        sum(r * p[r] for r in range(4)))
    for t in (0, 1, R(3, 2), 3, 4):
        want = sum(pr for pr, v in zip(p, q, strict=True) if -v >= t)
        assert float(d.error_tail(t)) == pytest.approx(want, abs=1e-15)
        assert d.error_tail(t, method="float") == pytest.approx(want, abs=1e-15)


def test_pmf_and_expected_error_views():
    d = exactdp.PermuteAndFlip(2).distribution([0, -1])
    lose = sympy.exp(-1) / 2
    assert sympy.simplify(d.pmf(1) - lose) == 0
    assert sympy.simplify(d.expected_error() - lose) == 0
    assert float(d.expected_error("mpmath")) == pytest.approx(math.exp(-1) / 2, rel=1e-14)
    assert d.expected_error("float") == pytest.approx(math.exp(-1) / 2, rel=1e-14)
    with pytest.raises(ValueError):
        d.pmf(2)


def test_repr_latex_shows_the_exact_probabilities():
    d = exactdp.PermuteAndFlip(2).distribution([0, -1])
    tex = d._repr_latex_()
    assert tex.startswith("$") and tex.endswith("$")
    # each exact probability appears as sympy prints it (1/(2e) for the runner-up)
    assert sympy.latex(sympy.exp(-1) / 2) in tex
    assert tex.count(r"\Pr[") == 2


def test_kl_two_point_closed_form():
    P, Q = (R(1, 2), R(1, 2)), (R(1, 4), R(3, 4))
    want = R(1, 2) * sympy.log(2) + R(1, 2) * sympy.log(R(2, 3))
    got = kl(P, Q)
    assert sympy.simplify(sympy.sympify(got.value) - want) == 0
    assert kl is kl_divergence
    # KL of a distribution with itself is 0, and infinite when Q misses P's support
    assert sympy.sympify(kl(P, P).value) == 0
    assert kl((1, 0), (0, 1)).value == sympy.oo


def test_condition_certificate_roots_are_the_sign_changes():
    # PF (0, -1) vs the neighbour (0, 0): output 0 needs P(q)_0 <= e^eps P(q')_0 everywhere;
    # pick a wrong mechanism whose condition changes sign at a known point instead: the root
    # of every certificate's polynomial in (0, 1) must make it vanish exactly.
    cert = exactdp.certify_dp(exactdp.PermuteAndFlip(EPS), [0, -1])
    assert cert.holds
    for c in cert.conditions:
        for root in c.roots:
            assert 0 < root < 1
            assert sympy.simplify(c.polynomial.as_expr().subs(c.polynomial.gens[0], root)) == 0
    with_roots = [c for c in cert.conditions if c.roots]
    # PF's tight rows touch 0 only at y -> 0/1, so a non-empty root list must still hold
    assert all(c.holds for c in with_roots)


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


def test_descartes_bound_and_nonnegativity_against_known_roots():
    import flint

    y = flint.fmpq_poly([0, 1])
    # (y - 1/2)(y - 1/3)(y + 1): two roots in (0, 1)
    p = (y - flint.fmpq(1, 2)) * (y - flint.fmpq(1, 3)) * (y + 1)
    b = descartes_bound(p)
    assert b >= 2 and b % 2 == 0
    assert descartes_bound((y + 1) * (y + 2)) == 0
    Y = sympy.Symbol("y", positive=True)
    assert is_nonnegative_on_unit_interval((Y - R(1, 2)) ** 2)
    assert not is_nonnegative_on_unit_interval((Y - R(1, 2)) * (Y - R(1, 3)))


def test_lattice_size_against_enumeration():
    from itertools import combinations_with_replacement

    for n, k in ((2, 4), (3, 4), (4, 3)):
        sizes = exactdp.lattice_size(n, k)
        canon = [g for g in combinations_with_replacement(range(k + 1), n - 1)]
        assert sizes["vectors"] == len(canon)
    for n, want in LP_VARIABLES_K4.items():  # ties merged, k = 4 (docs/formulas.md section 4)
        assert exactdp.lattice_size(n, 4)["variables"] == want


def test_mechanism_label_names():
    from exactdp.io.latex import mechanism_label

    assert mechanism_label(exactdp.PermuteAndFlip(1)) == "PF"
    assert mechanism_label(exactdp.ReportNoisyMax(1, noise="laplace")) == "RNM-Laplace"
    assert mechanism_label(exactdp.GaussianNoisyMax(1)) == "RNM-Gauss"


def test_sample_size_shapes_and_seed_reproducibility():
    d = exactdp.PermuteAndFlip(1).distribution([0, -1, -2])
    a = d.sample((3, 4), np.random.default_rng(5))
    b = d.sample((3, 4), np.random.default_rng(5))
    assert a.shape == (3, 4) and np.array_equal(a, b)
    assert isinstance(d.sample(rng=1), int)
    with mpmath.workdps(15):
        assert set(np.unique(d.sample(2000, 3))) <= {0, 1, 2}
