"""The x-form's integer exponent keys (merging count vectors) and commensurable steps, and
self_compose on that exact lattice step (issue 36): checked against the exact count, a
brute-force enumeration of every output tuple, and a Fraction-keyed grouping."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import flint
import mpmath
import pytest
import sympy

import exactdp
from exactdp import privacy_loss_distribution
from exactdp.analysis import DiscretisedPLD
from exactdp.analysis.pld.core import EXACT_SUPPORT, MAX_SUPPORT
from exactdp.analysis.pld.xform import (
    XForm,
    commensurable_step,
    coprime_basis,
    exponent_matrix,
    factor_ratios,
    group_terms,
)

EM = exactdp.ExponentialMechanism(1)
PAIR = ([2, 0, -1], [1, 1, -1])


@pytest.fixture(autouse=True)
def _digits():
    with mpmath.workdps(50):
        yield


def _brute(mech, q, q2, k: int, eps) -> mpmath.mpf:
    """delta of the k-fold product, every output tuple enumerated (independent route)."""
    p = mech.distribution(q).evalf(45)
    r = mech.distribution(q2).evalf(45)
    e = mpmath.exp(mpmath.mpf(sympy.N(eps, 60)))
    total = mpmath.mpf(0)
    for outs in itertools.product(range(len(p)), repeat=k):
        a = mpmath.fprod(p[o] for o in outs)
        b = mpmath.fprod(r[o] for o in outs)
        total += max(mpmath.mpf(0), a - e * b)
    return total


def _mpf(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator  # dyadic ends: exact at 50 digits


def _inside(value: mpmath.mpf, h) -> bool:
    return _mpf(h.lower) <= value <= _mpf(h.upper)


def test_em_losses_are_commensurable_and_pf_losses_are_not():
    pld = privacy_loss_distribution(EM, *PAIR)
    h = pld.lattice_step()
    assert h == sympy.Rational(1, 2)  # x = exp(-1/2): the losses differ by multiples of 1/2
    _, j = commensurable_step(pld.xform)
    losses = [float(b.mid()) for b in pld._balls(128)[0]]
    for loss, ji in zip(losses, j, strict=True):
        assert abs(loss - losses[0] - ji * float(h)) < 1e-15
    # scores with denominator 3: N = 3, x = exp(-1/6); losses -0.577, 0.423, 0.256 (by
    # hand: (q_r - q'_r)/2 + ln(Z'/Z), differences 1/2 and 1/3): step 1/6
    third = privacy_loss_distribution(EM, [0, "1/3", 1], [1, "-2/3", "1/3"])
    assert third.xform.N == 3 and third.lattice_step() == sympy.Rational(1, 6)
    assert commensurable_step(third.xform)[1] == [0, 6, 5]
    half = privacy_loss_distribution(EM, [0, "1/2", 1], [1, "-1/2", 0])
    assert half.lattice_step() == 1  # two losses, -1/2 and 1/2 apart from ln(Z'/Z)
    pf = privacy_loss_distribution(exactdp.PermuteAndFlip(1), [-1, 2, 1], [0, 1, 2])
    assert pf.lattice_step() is None
    lap = privacy_loss_distribution(exactdp.ReportNoisyMax(1, noise="laplace"), [0, 1, 2],
                                    [1, 0, 1])
    assert lap.lattice_step() is None  # no x-form
    assert exactdp.laplace_privacy_loss_distribution(1).lattice_step() is None


def test_default_route_exact_when_small_lattice_beyond_and_max_support_forces_exact():
    pld = privacy_loss_distribution(EM, *PAIR)
    small = pld.self_compose(10)  # C(12, 2) = 66 count vectors <= EXACT_SUPPORT
    assert isinstance(small, exactdp.PrivacyLossDistribution)
    assert small.delta(3).algorithm == "exact"
    k = 60
    assert math.comb(k + 2, 2) > EXACT_SUPPORT
    lattice = pld.self_compose(k)
    assert isinstance(lattice, DiscretisedPLD) and lattice.k == k
    h = lattice.delta(12)
    assert h.algorithm == "grid" and h.certified and h.value is None
    assert "certified" in repr(h) and "exact" not in repr(h)
    assert "certified" in str(h) and "exact" not in str(h)
    forced = pld.self_compose(k, max_support=MAX_SUPPORT)
    assert isinstance(forced, exactdp.PrivacyLossDistribution)
    assert forced.delta(12).algorithm == "exact" and forced.delta(12).value is not None
    # a pair without an exact step is still counted exactly
    pf = privacy_loss_distribution(exactdp.PermuteAndFlip(1), [-1, 2, 1], [0, 1, 2])
    assert isinstance(pf.self_compose(k), exactdp.PrivacyLossDistribution)
    for bad in (0, -1, 1.5, "many"):
        with pytest.raises(ValueError, match="self_compose: max_support"):
            pld.self_compose(5, max_support=bad)


@pytest.mark.parametrize("k", [30, 60])
def test_lattice_route_brackets_the_exact_count_as_tightly(k):
    """Against today's exact-count route: the certified interval contains the exact value
    and is no wider than the exact count's bounds, to 1e-15 relative."""
    pld = privacy_loss_distribution(EM, *PAIR)
    lattice = pld.self_compose(k)
    exact = pld.self_compose(k, max_support=MAX_SUPPORT)
    assert isinstance(lattice, DiscretisedPLD)
    for eps in [0, "1/3", k // 5, "13.7", k // 3]:
        g, ex = lattice.delta(eps), exact.delta(eps)
        value = mpmath.mpf(str(sympy.N(ex.value, 45)))
        assert _inside(value, g)
        assert g.upper - g.lower <= (ex.upper - ex.lower) + Fraction(1, 10**15) * ex.lower
    lo, ex_eps = lattice.epsilon(Fraction(1, 100)), exact.epsilon(Fraction(1, 100), dps=25)
    assert lo.lower <= ex_eps.upper and ex_eps.lower <= lo.upper


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_lattice_route_matches_enumeration_of_every_output_tuple(k):
    q, q2 = [0, 1, 3], [1, 0, 2]
    pld = privacy_loss_distribution(EM, q, q2)
    grid = pld.self_compose(k, max_support=1)  # the lattice route at small k
    assert isinstance(grid, DiscretisedPLD)
    for eps in [0, "1/2", 1, "2.5"]:
        h = grid.delta(eps)
        want = _brute(EM, q, q2, k, sympy.Rational(str(eps)))
        assert _inside(want, h)
        # on the exact step the bounds meet to working precision (not just rtol = 1e-3)
        assert h.upper - h.lower <= Fraction(1, 10**15) * max(h.lower, Fraction(1, 10**6))


def _fraction_groups(terms: dict, xf: XForm) -> list[set]:
    """The grouping by (factor exponents, Fraction constant): the former keys."""
    consts, exps = factor_ratios(xf)
    names = sorted({f for e in exps for f in e})
    groups: dict = {}
    for c in terms:
        powers = tuple(sum(ci * e.get(f, 0) for ci, e in zip(c, exps, strict=True))
                       for f in names)
        const = math.prod((Fraction(k) ** ci for ci, k in zip(c, consts, strict=True)),
                          start=Fraction(1))
        groups.setdefault((powers, const), set()).add(c)
    return sorted(groups.values(), key=min)


@pytest.mark.parametrize("mech, q, q2", [
    (EM, [2, 0, -1], [1, 1, -1]),
    (exactdp.PermuteAndFlip(1), [-1, 2, 1], [0, 1, 2]),
    (exactdp.PermuteAndFlip(1), [0, 1, 2, 3], [1, 0, 3, 2]),
    (exactdp.ReportNoisyMax(1, noise="gumbel"), [0, 1, 2], [1, 0, 1]),
])
def test_integer_exponent_keys_group_as_the_fraction_keys(mech, q, q2):
    from exactdp.analysis.pld.core import _multinomial_terms

    pld = privacy_loss_distribution(mech, q, q2)
    terms = _multinomial_terms(7, len(pld.p_base))
    got = sorted((set(g) for g in group_terms(terms, pld.xform)), key=min)
    assert got == _fraction_groups(terms, pld.xform)


def test_exponent_matrix_separates_rational_constants_and_signs():
    one = flint.fmpq_poly([1])
    consts = [flint.fmpq_poly([c]) for c in (2, 4, -3, 6)]
    xf = XForm(sympy.Integer(1), 1, tuple(consts), (one,) * 4, (one,) * 4, (one,) * 4)
    matrix = exponent_matrix(xf)
    assert matrix.shape[0] == 4
    terms = {(2, 0, 0, 0): 1, (0, 1, 0, 0): 1, (0, 0, 2, 0): 1, (0, 0, 0, 1): 1,
             (1, 0, 1, 0): 1, (0, 0, 1, 1): 1, (1, 0, 0, 0): 1}
    groups = sorted((set(g) for g in group_terms(terms, xf)), key=min)
    # 2^2 = 4; (-3)^2 = 9; 6; 2 * (-3) = -6 != 6; (-3) * 6 = -18; 2
    want = _fraction_groups(terms, xf)
    assert groups == want
    assert {(2, 0, 0, 0), (0, 1, 0, 0)} in groups and {(1, 0, 1, 0)} in groups


def test_coprime_basis():
    values = [12, 18, 5, 1, 35, 2**40 * 3, 49]
    basis = coprime_basis(values)
    assert all(math.gcd(a, b) == 1 for a, b in itertools.combinations(basis, 2))
    for v in values:
        for b in basis:
            while v % b == 0:
                v //= b
        assert v == 1
    assert coprime_basis([1, 1]) == []
