"""Exact permute-and-flip by the product tree (issue 10), against two independent routes.

The product tree (:func:`exactdp.xform.pf_polynomials_tree`) must give, polynomial for
polynomial, what PF's coins give (Poisson-binomial, ``pf_ring_probabilities``) and what
report-noisy-max with exponential noise gives by its noise integral
(``rnm_exponential_ring``; Ding et al. 2021, Thm 1). The fast sympy builder must give
expressions equal (same args, same hash) to sympy's own ``Add``.
"""

import flint
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp import PermuteAndFlip, ReportNoisyMax
from exactdp.mechanisms.noisy_max import rnm_exponential_ring
from exactdp.mechanisms.permute_flip import pf_ring_probabilities
from exactdp.xform import (
    EXACT_SIZE_LIMIT,
    Atoms,
    generators_for,
    pf_polynomials_lazy,
    pf_polynomials_tree,
    pf_product_blocks,
    poly_expr,
)

gap_lists = st.lists(st.integers(0, 7), min_size=0, max_size=9).map(lambda g: [0] + g)


@settings(max_examples=60, deadline=None)
@given(gap_lists)
def test_tree_equals_coins_and_noise_integral(G):
    tree = pf_polynomials_tree(G)
    gens = generators_for(G, None, sympy.Integer(1))
    coins = pf_ring_probabilities(gens)
    integral = rnm_exponential_ring(gens)
    for g, a, b in zip(G, coins, integral, strict=True):
        assert tree[g] == flint.fmpq_poly(a) == flint.fmpq_poly(b)


@settings(max_examples=30, deadline=None)
@given(gap_lists)
def test_lazy_per_gap_equals_the_coins(G):
    """The per-gap route (shared blocks, Horner on demand) against PF's coins (an
    independent route), whatever gap is asked first."""
    poly = pf_polynomials_lazy(G)
    coins = pf_ring_probabilities(generators_for(G, None, sympy.Integer(1)))
    for g, a in reversed(list(zip(G, coins, strict=True))):
        assert poly(g) == flint.fmpq_poly(a)


def test_lazy_refuses_like_the_tree():
    big = [0] + [40] * 600  # n (sum G + 1) > EXACT_SIZE_LIMIT
    with pytest.raises(ValueError, match="probabilities: exact permute-and-flip"):
        pf_polynomials_lazy(big)


def test_tree_known_polynomials():
    # docs/formulas.md section 2: q = (0, -1, -2) gives 1 - x/2 - x^2/2 + x^3/3, x/2 - x^3/6, ...
    tree = pf_polynomials_tree([0, 1, 2])
    assert tree[0] == flint.fmpq_poly([1, flint.fmpq(-1, 2), flint.fmpq(-1, 2), flint.fmpq(1, 3)])
    assert tree[1] == flint.fmpq_poly([0, flint.fmpq(1, 2), 0, flint.fmpq(-1, 6)])
    assert tree[2] == flint.fmpq_poly([0, 0, flint.fmpq(1, 2), flint.fmpq(-1, 6)])
    # n ties: 1/n each; one output: 1
    assert pf_polynomials_tree([0, 0, 0, 0])[0] == flint.fmpq_poly([flint.fmpq(1, 4)])
    assert pf_polynomials_tree([0])[0] == flint.fmpq_poly([1])


def test_tree_larger_case_sums_to_one_and_matches_coins():
    G = [0, 0, 3, 17, 17, 5, 40, 1, 1, 1, 29, 8] * 3
    tree = pf_polynomials_tree(G)
    coins = pf_ring_probabilities(generators_for(G, None, sympy.Integer(1)))
    assert all(tree[g] == flint.fmpq_poly(c) for g, c in zip(G, coins, strict=True))
    assert sum((tree[g] for g in G), flint.fmpq_poly([0])) == 1


def test_public_views_agree_with_rnm_exponential():
    q = [5, 3, 3, 0, 5, 1, -4]
    pf, rnm = PermuteAndFlip(1).distribution(q), ReportNoisyMax(1).distribution(q)
    assert pf.rational_form().forms == rnm.rational_form().forms
    assert pf.probabilities == rnm.probabilities
    x, forms = pf.rational_form()
    assert sympy.expand(sum(forms)) == 1
    # shared: equal gaps give the very same expression object
    assert forms[1] is forms[2] and forms[0] is forms[4]
    assert pf.probabilities[1] is pf.probabilities[2]


def test_symbolic_epsilon_probabilities():
    eps = sympy.Symbol("epsilon", positive=True)
    p = PermuteAndFlip(eps).distribution([0, -1, -2]).probabilities
    expected = 1 - sympy.exp(-eps / 2) / 2 - sympy.exp(-eps) / 2 + sympy.exp(-3 * eps / 2) / 3
    assert sympy.simplify(p[0] - expected) == 0
    assert p[0] == expected  # canonical form: structurally equal


@pytest.mark.parametrize("lam", [None, sympy.Rational(1, 2), sympy.Integer(3),
                                 sympy.Symbol("e", positive=True) / 2])
def test_fast_builder_is_sympys_canonical_form(lam):
    import random

    rnd = random.Random(7)
    x = sympy.Symbol("x", positive=True)
    atoms = Atoms.powers(x) if lam is None else Atoms.coins(lam)
    for _ in range(60):
        coeffs = [flint.fmpq(rnd.choice([0, 0, 1, -1, 2, rnd.randint(-60, 60)]),
                             rnd.choice([1, 1, 2, 3, rnd.randint(1, 40)]))
                  for _ in range(rnd.randint(1, 12))]
        poly = flint.fmpq_poly(coeffs)
        base = (lambda k: x**k) if lam is None else (lambda k: sympy.exp(-k * lam))
        ref = sympy.Add(*[sympy.Rational(int(c.p), int(c.q)) * base(k)
                          for k, c in enumerate(poly.coeffs())])
        got = poly_expr(poly, atoms)
        assert got == ref and hash(got) == hash(ref)
        assert got.args == ref.args and sympy.srepr(got) == sympy.srepr(ref)  # same structure
    # PF's polynomials (~10^2 terms, shared coefficients: one Rational per value and atoms)
    # and an integer polynomial, against sympy's Add term by term
    base = (lambda k: x**k) if lam is None else (lambda k: sympy.exp(-k * lam))
    polys = [*pf_polynomials_tree([0, 0, 1, 3, 3, 4, 7, 7, 9]).values(),
             flint.fmpz_poly([3, -1, 1, 0, 2])]
    for poly in polys:
        ref = sympy.Add(*[sympy.Rational(int(c.p), int(c.q)) * base(k)
                          for k, c in enumerate(flint.fmpq_poly(poly).coeffs())])
        got = poly_expr(poly, atoms)
        assert got == ref and got.args == ref.args and sympy.srepr(got) == sympy.srepr(ref)


def test_exact_size_guard_refuses_quickly():
    import time

    G = [0] + list(range(1, 3001)) * 10  # n ~ 3e4, sum of gaps ~ 4.5e7
    t0 = time.process_time()
    with pytest.raises(ValueError, match=r"coefficients.*to_numpy"):
        pf_polynomials_tree(G)
    assert time.process_time() - t0 < 1.0
    q = [-g for g in G]
    with pytest.raises(ValueError, match="rational_form.*evalf"):
        PermuteAndFlip(1).distribution(q).rational_form()
    assert EXACT_SIZE_LIMIT < len(G) * sum(G)


def test_fast_builder_falls_back_when_coins_evaluate():
    # epsilon = 2 log 2: the coin x = exp(-log 2) = 1/2 is a number, not an exp atom
    eps = 2 * sympy.log(2)
    p = PermuteAndFlip(eps).distribution([0, -1, -2]).probabilities
    # docs/formulas.md section 2 at x = 1/2: 1 - x/2 - x^2/2 + x^3/3
    assert p[0] == sympy.Rational(1) - sympy.Rational(1, 4) - sympy.Rational(1, 8) + \
        sympy.Rational(1, 24)
    assert sum(p) == 1


def test_laplace_numeric_xform_equals_closed_form():
    # the analyzer's flint x-form of RNM-Laplace at a rational epsilon against the closed
    # form's sympy expressions (laplace_exact), term for term
    import random

    from exactdp.numeric.laplace import laplace_exact

    rnd = random.Random(5)
    for eps in (sympy.Rational(1, 10), 1, 3):
        mech = ReportNoisyMax(eps, noise="laplace")
        for _ in range(15):
            q = [rnd.randint(-4, 4) for _ in range(rnd.randint(1, 6))]
            rf = mech.distribution(q).numeric_rational_form()
            lam = mech.rate
            got = [poly_expr(p, Atoms.coins(lam)) for p in rf.polys]
            ref = laplace_exact([max(q) - v for v in q], lam)
            assert all(sympy.expand(a - b) == 0 for a, b in zip(got, ref, strict=True)), q
    symbolic = ReportNoisyMax(sympy.Symbol("e", positive=True), noise="laplace")
    assert symbolic.distribution([0, 1]).numeric_rational_form() is None


def test_analyzer_reads_flint_forms_without_sympy(monkeypatch):
    # check_dp on PF / RNM-exponential / the optimal mechanism must not build the sympy
    # forms: the x-form engine reads RationalForm.polys. Building them here would fail.
    import exactdp.rational_form
    import exactdp.xform
    from exactdp import check_dp
    from exactdp.mechanisms.optimal import OptimalRegularMechanism

    def boom(*args, **kwargs):
        raise AssertionError("sympy forms built")

    monkeypatch.setattr(exactdp.xform, "poly_expr", boom)
    monkeypatch.setattr(exactdp.rational_form, "poly_expr", boom)  # its own name
    for mech in (PermuteAndFlip(1), ReportNoisyMax(1), OptimalRegularMechanism(1)):
        res = check_dp(mech, [0, -1, -2, 0], search="reduced")
        assert res.holds and float(res) == pytest.approx(1.0)
    with pytest.raises(AssertionError, match="sympy forms built"):
        _ = PermuteAndFlip(1).distribution([0, -1]).rational_form().forms


def test_group_equal_labels_equal_values_alike():
    from exactdp.exact import is_zero
    from exactdp.xform import group_equal

    s2 = sympy.sqrt(2)
    nested = sympy.sqrt(3 + 2 * s2) - 1  # = sqrt(2): (1 + sqrt 2)^2 = 3 + 2 sqrt 2
    values = [s2, 1, nested, 0, 1]
    labels, distinct = group_equal(values, lambda g, h: is_zero(g - h))
    assert labels == [0, 1, 0, 2, 1] and distinct == [s2, 1, 0]
    # an equality that cannot prove anything gives every value its own label
    assert group_equal([1, 1], lambda g, h: False) == ([0, 1], [1, 1])


def test_proved_equal_never_merges_distinct_gaps():
    """Equal gaps share a generator only when equality is proved (no simplify guess)."""
    import sympy

    from exactdp.xform import generators_for

    r2 = sympy.sqrt(2)
    tiny = sympy.exp(-sympy.Integer(10) ** 300)
    gens = generators_for(None, [r2, 2 * r2 / 2, r2 + tiny, sympy.sqrt(8) / 2], sympy.Integer(1))
    assert gens.index == [0, 0, 1, 0]


def test_tree_cache_serves_equal_multisets_and_copies_the_dict():
    from exactdp.xform import _cached_tree, _tree_polynomials

    _cached_tree.cache_clear()
    G = [0, 3, 1, 3, 0, 2]
    first = pf_polynomials_tree(G)
    first[99] = None  # the caller's dict: not the cache's
    again = pf_polynomials_tree([3, 0, 2, 0, 3, 1])  # the same multiset, permuted
    assert _cached_tree.cache_info().hits == 1 and 99 not in again
    fresh = _tree_polynomials(((0, 2), (1, 1), (2, 1), (3, 2)))
    coins = pf_ring_probabilities(generators_for(G, None, sympy.Integer(1)))
    assert again == fresh
    assert all(again[g] == flint.fmpq_poly(c) for g, c in zip(G, coins, strict=True))


def test_product_blocks_are_the_elementary_symmetric_polynomials():
    """F = prod (1 - t x^G) has t-coefficients (-1)^k e_k(x^G) (the direct expansion)."""
    x = flint.fmpz_poly([0, 1])
    for G in ([0, 1, 1, 3], [0], [2, 0, 5, 5, 5]):
        e = [flint.fmpz_poly([1])] + [flint.fmpz_poly([0])] * len(G)
        for g in G:  # e_k += x^g e_{k-1}
            for k in range(len(G), 0, -1):
                e[k] = e[k] + x**g * e[k - 1]
        blocks = pf_product_blocks(G)
        assert blocks == [(-1) ** k * e[k] for k in range(len(G) + 1)]
