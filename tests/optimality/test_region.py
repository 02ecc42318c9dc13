"""exactdp.optimality.region: PF's exact optimality region against the LP and hand cases."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import pytest
import sympy

import exactdp
from exactdp.optimality import program as LLP
from exactdp.optimality import region as RG

LOG = sympy.log
Q = sympy.Rational


@pytest.mark.parametrize("n, k", [(3, 4), (4, 4), (5, 4), (4, 6)])
def test_pf_optimal_at_reported_epsilons(n, k):
    region = RG.pf_optimality_region(n, k)
    assert isinstance(region, exactdp.optimality.PFOptimalityRegion)
    for eps in (0.9, 0.95, math.log((3 + math.sqrt(5)) / 2), 1.0, 2.0):
        assert region.contains(eps)
        assert abs(LLP.lattice_lp(n, k, eps).pf_ratio - 1) < 1e-9


# --------------------------------------------------------------------------- region


def test_region_n2_everything():
    reg = RG.pf_optimality_region(2, 4)
    assert reg.epsilon_intervals == ((0, sympy.oo),)
    assert reg.boundaries == ()


@pytest.mark.parametrize("n, k", [(4, 4), (5, 4), (4, 6)])
def test_region_boundary_polynomial(n, k):
    x = sympy.Symbol("x")  # x = exp(-epsilon), the lattice's N = 1
    reg = RG.pf_optimality_region(n, k)
    (b,) = reg.boundaries
    assert b.polynomial.as_expr() == sum(x**j for j in range(1, k + 1)) - 1
    lo, hi = b.x_interval
    assert lo < hi and hi - lo < Q(1, 10**30)
    assert b.polynomial.eval(lo) * b.polynomial.eval(hi) <= 0  # sign change: root inside
    assert reg.epsilon_intervals[0][1] == sympy.oo
    assert reg.degenerate_points == ()


def test_region_boundary_against_lp():
    reg = RG.pf_optimality_region(4, 4)
    eps_star = reg.boundaries[0].epsilon_float
    assert eps_star == pytest.approx(0.6562559792369758, abs=1e-13)
    assert LLP.lattice_lp(4, 4, eps_star - 2e-3).pf_ratio > 1 + 1e-7
    assert abs(LLP.lattice_lp(4, 4, eps_star + 2e-3).pf_ratio - 1) < 1e-10
    # exact LP on both sides: e^eps = 19/10 (eps 0.642) and 2 (eps 0.693)
    below = LLP.lattice_lp(4, 4, LOG(Q(19, 10)), method="exact")
    above = LLP.lattice_lp(4, 4, LOG(2), method="exact")
    assert below.pf_ratio > 1 and above.pf_ratio == 1
    assert not reg.contains(LOG(Q(19, 10))) and reg.contains(LOG(2))
    assert not reg.contains(eps_star - 1e-9) and reg.contains(eps_star + 1e-9)


def test_region_golden_threshold_is_not_tight():
    golden = math.log((3 + math.sqrt(5)) / 2)
    for n, k in ((3, 4), (4, 4), (5, 4), (4, 6)):
        eps_star = RG.pf_optimality_region(n, k).boundaries[0].epsilon_float
        assert 0.5 < eps_star < math.log(2) < golden


# --------------------------------------------------------------------------- epsilon input forms


EPS_FORMS = ["1/100", "0.01", Fraction(1, 100), Decimal("0.01"), Q(1, 100), " 1/100 "]


@pytest.mark.parametrize("eps", EPS_FORMS + ["log(3/2)", LOG(Q(3, 2)), 1, "2"])
def test_epsilon_exact_forms_region(eps):
    reg = RG.pf_optimality_region(3, 4)
    want = float(sympy.sympify(eps if not isinstance(eps, (Fraction, Decimal)) else str(eps)))
    assert reg.contains(eps) == (want >= reg.boundaries[0].epsilon_float)


def test_threshold_is_the_left_end_of_the_unbounded_interval():
    """pf_optimality_region(3, 4): eps* = 0.5796999857973... (the README's number), the
    exact left end of [eps*, oo), and PF is optimal exactly there."""
    import mpmath

    from exactdp import pf_optimality_region

    reg = pf_optimality_region(3, 4)
    t = reg.threshold
    assert any(lo == t and hi is sympy.oo for lo, hi in reg.epsilon_intervals)
    assert mpmath.almosteq(mpmath.mpf(sympy.N(t, 30)), mpmath.mpf("0.5796999857973183"), 1e-15)
    assert reg.contains(t)


@pytest.mark.parametrize("n, k", [(3, 2), (3, 3), (4, 2), (4, 3), (3, 4), (4, 4)])
def test_region_contains_its_own_boundary_exactly(n, k):
    """Issue 20: contains(eps*) at the boundary the region returns raised; the region is
    closed there (a multiplier is exactly 0), while 1e-30 below it PF is not optimal."""
    reg = RG.pf_optimality_region(n, k)
    (b,) = reg.boundaries
    assert reg.epsilon_intervals == ((b.epsilon, sympy.oo),)
    # the boundary's polynomial divides a multiplier: lam(x*) = 0 exactly (independent of
    # contains, which also checks the other multipliers' signs)
    m = b.polynomial
    lams = [sympy.Poly([Q(int(c.p), int(c.q)) for c in reversed(p.coeffs())], m.gen)
            for p in RG._multipliers(n, k)]
    assert any(not lam.is_zero and lam.rem(m).is_zero for lam in lams)
    small = Q(1, 10**30)
    assert reg.contains(b.epsilon)
    assert not reg.contains(b.epsilon - small) and reg.contains(b.epsilon + small)


def test_region_contains_the_golden_boundary_in_other_exact_forms():
    reg = RG.pf_optimality_region(4, 2)  # boundary x* = (sqrt 5 - 1)/2
    assert reg.contains("log((1 + sqrt(5))/2)")
    assert reg.contains(-LOG(sympy.sqrt(5) / 2 - Q(1, 2)))
    assert not reg.contains(LOG(Q(161803398, 10**8)))  # just below phi = 1.6180339887...
    assert reg.contains(LOG(Q(161803399, 10**8)))


def test_region_too_large_names_a_route_it_can_take():
    """pf_optimality_region has no method= keyword: its refusal names lattice_lp's float
    solve (the fresh-user trial followed "use method='float'" into a TypeError)."""
    import time

    from exactdp.cost import TooCostly

    t0 = time.process_time()
    with pytest.raises(TooCostly, match=r"^pf_optimality_region: .*lattice_lp\(n, k, epsilon, "
                                        r"method='float'\)"):
        RG.pf_optimality_region(8, 8)
    assert time.process_time() - t0 < 2
