"""exactdp.analysis.zcdp: check_zcdp, decided exactly (Bun & Steinke 2016, Def. 1.1)."""

import math

import numpy as np
import pytest
import sympy

import exactdp
from exactdp import ExponentialMechanism, PermuteAndFlip
from exactdp.analysis.zcdp import check_zcdp

from .test_outputs import overlap

EPS = sympy.Symbol("epsilon", positive=True)
R = sympy.Rational


def test_em_passes_and_pf_fails_eps2_over_8_zcdp():
    for mono in (True, False):
        em = check_zcdp(exactdp.ExponentialMechanism(1, monotonic=mono), [0, 0], R(1, 8))
        assert em.holds and em.excess < 0
        pf = check_zcdp(exactdp.PermuteAndFlip(1, monotonic=mono), [0, 0], R(1, 8))
        assert not pf.holds and pf.excess > 0
    pf = check_zcdp(exactdp.PermuteAndFlip(1, monotonic=True), [0, 0], R(1, 8), [0, 1],
                    alphas=[2])
    # D_2 = ln( (1/2)^2/(e^-1/2) + (1/2)^2/(1 - e^-1/2) ) ~ 0.51 > 2/8
    P = np.array([0.5, 0.5])
    Q = np.array([math.exp(-1) / 2, 1 - math.exp(-1) / 2])
    assert abs(float(pf.divergence) - math.log(np.sum(P**2 / Q))) < 1e-14
    assert not pf.holds and pf.alpha == 2
    # the generic bound eps^2/2 is not refuted
    assert check_zcdp(exactdp.PermuteAndFlip(1, monotonic=True), [0, 0], R(1, 2)).holds


def test_zcdp_rho_as_expression_in_epsilon():
    m = exactdp.ExponentialMechanism(EPS)
    res = check_zcdp(m.with_epsilon(2), [0, -1], EPS**2 / 8)
    assert res.holds and res.rho == R(1, 2)

S, R, Z = sympy.sqrt, sympy.Rational, sympy.Integer


def test_regularity_and_zcdp_results_say_certified():
    m = PermuteAndFlip(1)
    assert exactdp.is_symmetric(m, n=2).certified
    z = exactdp.check_zcdp(ExponentialMechanism(1), [0, -1], R(1, 8), [1, -2])
    assert z.certified and z.holds is (exactdp.exact.sign(z.divergence - R(1, 8) * z.alpha) < 1)


def test_zcdp_decides_a_failure_exactly():
    # PF is not eps^2/8-zCDP (Durfee & Rogers 2019; docs/formulas.md section 6): the failure is a
    # proved positive excess, re-checked here by sign() on the exact divergence
    z = exactdp.check_zcdp(PermuteAndFlip(1, monotonic=True), [0, 0], R(1, 8), [0, 1])
    assert not z.holds
    assert exactdp.exact.sign(z.divergence - R(1, 8) * z.alpha) == 1


def test_zcdp_refuses_an_empty_list_of_orders():
    with pytest.raises(ValueError, match=r"^check_zcdp: alphas must be rational numbers >= 1 "
                                         r"\(at least one\), got \[\]$"):
        check_zcdp(PermuteAndFlip(1), [0, 1], 1, alphas=[])


def test_check_zcdp_over_different_output_sets_fails():
    """True is reached on (1,) only: every Renyi divergence of order >= 1 is infinite."""
    r = check_zcdp(overlap(epsilon=1), [1], 1)
    assert not r.holds and r.divergence is sympy.oo
