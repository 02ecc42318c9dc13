"""Tests of :mod:`exactdp.proofs.thm_5_1_pf_lp_optimal` (statement, proof and scope there).

Theorem 5.1 as it is true: PF is the lattice-LP optimum exactly for eps >= eps*(n, k).
"""

from __future__ import annotations

import json
from fractions import Fraction

import flint
import pytest
import sympy

from exactdp import lattice_lp, pf_optimality_region
from exactdp.proofs import thm_5_1_pf_lp_optimal as thm

STORED = {(c["n"], c["k"]): c for c in thm.stored_certificates()}


def test_verify_recomputes_small_lattices_and_reverifies_stored():
    res = thm.verify()
    assert res.holds, res.failures
    assert res.cases >= 12 + 25  # recomputed n<=4, k<=4 plus the stored ones re-verified


def test_stored_scope_reaches_n6_k8():
    assert {(n, k) for n in range(2, 7) for k in range(1, 9)} <= set(STORED)


@pytest.mark.slow
def test_every_stored_certificate_reverifies():
    assert thm.verify(n_max=2, k_max=1, stored_max_variables=None).holds


def test_table_matches_docs_and_known_numbers():
    # docs/lp.md: n = 4, k = 2 boundary is ln(golden ratio); n >= 4: y + ... + y^k = 1
    for n in (4, 5, 6):
        for k in range(1, 9):
            b = STORED[(n, k)]["boundary"]
            if k == 1:
                assert b is None
                continue
            assert b["polynomial"] == [1] * k + [-1], (n, k)
    assert STORED[(4, 2)]["boundary"]["epsilon"] == pytest.approx(
        float(sympy.log(sympy.GoldenRatio)), abs=1e-15)
    assert STORED[(3, 4)]["boundary"]["epsilon"] == pytest.approx(0.579700, abs=1e-6)
    assert all(STORED[(2, k)]["boundary"] is None for k in range(1, 9))


def test_independent_route_lp_agrees_at_the_stored_points():
    # HiGHS + rational crossover (exactdp.lattice_lp) at eps_below: PF strictly sub-optimal;
    # at a rational point above eps*: PF optimal (ratio exactly 1).
    cert = STORED[(4, 3)]
    assert Fraction(cert["exact_lp_full"]["pf_ratio"]) > 1
    above = lattice_lp(4, 3, sympy.log(2), method="exact")
    assert above.pf_ratio == 1
    assert pf_optimality_region(4, 3).contains(sympy.log(2))


def test_negative_control_tampered_certificate_is_rejected():
    cert = json.loads(json.dumps(STORED[(3, 3)]))
    lo = Fraction(cert["boundary"]["y_interval"][1]) * Fraction(11, 10)  # above the root
    cert["y_lo"] = str(lo)  # claims optimality on (0, y_lo]: beyond the true boundary
    res = thm.verify_certificate(cert)
    assert not res["multipliers_nonnegative"] and not res["holds"]
    cert = json.loads(json.dumps(STORED[(3, 3)]))
    cert["y_below"] = str(Fraction(1, 10))  # eps = ln 10 > eps*: PF is optimal there
    assert not thm.verify_certificate(cert)["suboptimal_below"]


def test_negative_control_wrong_multipliers_break_duality():
    lat = thm.build_lattice(3, 3)
    mu, lam = thm.dual_multipliers(lat)
    j = next(iter(lam))
    lam[j] = lam[j] + flint.fmpq_poly([0, 1])
    incoming = {}
    for s, t in lat.step.items():
        incoming.setdefault(t, []).append(s)
    y = flint.fmpq_poly([0, 1])
    reduced = [
        flint.fmpq_poly([lat.cost[i]]) - lat.mult[i] * mu[v]
        + sum((y * lam[s] for s in incoming.get(i, [])), flint.fmpq_poly([]))
        - lam.get(i, flint.fmpq_poly([]))
        for i, (v, _) in enumerate(lat.var)
    ]
    assert not all(r.is_zero() for r in reduced)


def test_lattice_sizes_match_the_library():
    from exactdp import lattice_size

    for n, k in [(2, 4), (3, 4), (4, 4), (5, 4), (6, 8)]:
        lat = thm.build_lattice(n, k)
        size = lattice_size(n, k)
        assert len(lat.var) == size["variables"] and len(lat.vectors) == size["vectors"]
        assert len(lat.step) + len(lat.top) == size["ub_rows"]


def test_regular_class_suboptimal_below_where_the_exact_lp_ran():
    ran = [c for c in STORED.values() if "exact_lp_full" in c]
    assert len(ran) >= 20
    assert all(c["exact_lp_full"]["regular"] for c in ran)


def test_negative_control_pf_like_solution_breaking_monotonicity_is_caught():
    # a table that gives the loser of (0, -2) more than the loser of (0, 0): not monotone
    lat = thm.build_lattice(2, 1)
    half, q1, q3 = sympy.Rational(1, 2), sympy.Rational(1, 4), sympy.Rational(3, 4)
    good = {(0, 0): (half, half), (0, -2): (q3, q1)}
    bad = {(0, 0): (half, half), (0, -2): (q1, q3)}
    assert thm.monotone_violations(lat, good) == 0
    assert thm.monotone_violations(lat, bad) > 0
