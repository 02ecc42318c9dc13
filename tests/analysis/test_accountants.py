"""Accountants' claimed curves: formulas checked by independent routes; claims checked."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import pytest
import sympy

import exactdp
from exactdp import check_accountant, composition_lower_bound, privacy_loss_distribution
from exactdp.analysis.accountants import claimed_delta


@pytest.fixture(autouse=True)
def _digits():
    """Work at 40 digits without touching the global mpmath context of other tests."""
    with mpmath.workdps(40):
        yield


def _rr_brute(e0: float, k: int, eps: float) -> float:
    """Hockey stick of k-fold randomized response, enumerating all 2^k output sequences."""
    p = [mpmath.e**e0 / (1 + mpmath.e**e0), 1 / (1 + mpmath.e**e0)]
    total = mpmath.mpf(0)
    for outs in itertools.product((0, 1), repeat=k):
        a = mpmath.fprod(p[o] for o in outs)
        b = mpmath.fprod(p[1 - o] for o in outs)
        total += max(0, a - mpmath.e**eps * b)
    return float(total)


@pytest.mark.parametrize("k", [1, 2, 5, 8])
@pytest.mark.parametrize("eps", [0, 0.5, 1.5, 3])
def test_kov_formula_is_brute_force_randomized_response(k, eps):
    e = sympy.Rational(eps)
    got = float(claimed_delta("kov", sympy.Integer(1), k, e))
    assert got == pytest.approx(_rr_brute(1, k, eps), rel=1e-12, abs=1e-30)


def test_kov_is_the_composed_randomized_response_pld():
    # randomized response is EM with c = 1 on [1, 0] vs [0, 1]: P = (e, 1)/(1 + e)
    # (a device, not a monotone neighbour pair: the neighbour check is switched off)
    rr = privacy_loss_distribution(exactdp.ExponentialMechanism(1, monotonic=True), [1, 0],
                                   [0, 1], allow_non_neighbour=True).self_compose(6)
    for eps in [0, 1, 2, 4]:
        claim = claimed_delta("kov", sympy.Integer(1), 6, sympy.Integer(eps))
        assert rr.delta(eps).lower <= claim.upper
        assert float(claim.upper) - float(rr.delta(eps)) < 1e-40 + 1e-15 * float(claim.upper)


def _gaussian_delta(rho: float, eps: float) -> float:
    """Exact privacy curve of the Gaussian mechanism with rho = mu^2/2 (Balle & Wang 2018)."""
    mu = mpmath.sqrt(2 * rho)
    phi = lambda z: mpmath.ncdf(z)  # noqa: E731
    return float(phi(-eps / mu + mu / 2) - mpmath.e**eps * phi(-eps / mu - mu / 2))


@pytest.mark.parametrize("rho", [Fraction(1, 8), Fraction(1, 2), 2, 5])
@pytest.mark.parametrize("eps", [Fraction(1, 4), 1, 3, 8])
def test_zcdp_conversions_are_valid_and_ordered(rho, eps):
    # a rho-zCDP Gaussian must satisfy both conversions; CKS is at least as tight as Bun-Steinke
    e0 = sympy.sqrt(8 * sympy.Rational(rho))  # claims use rho = k * e0^2 / 8 with k = 1
    cks = claimed_delta("zcdp", e0, 1, sympy.Rational(eps))
    bs = claimed_delta("zcdp_bun_steinke", e0, 1, sympy.Rational(eps))
    g = _gaussian_delta(float(rho), float(eps))
    assert g <= float(cks.upper) * (1 + 1e-9)
    assert float(cks.upper) <= float(bs.upper) * (1 + 1e-6)


def test_zcdp_cks_matches_opendp_conversion():
    opendp = pytest.importorskip("opendp.prelude")
    opendp.enable_features("contrib")
    meas = opendp.m.make_noisy_max(opendp.vector_domain(opendp.atom_domain(T=int)),
                                   opendp.linf_distance(T=int),
                                   opendp.zero_concentrated_divergence(), scale=2.0)
    prof = opendp.c.make_zCDP_to_approxDP(opendp.c.make_composition([meas] * 10)).map(1)
    for eps in [1, 3, 6]:
        ours = float(claimed_delta("zcdp", sympy.Integer(1), 10, sympy.Integer(eps)).upper)
        assert ours == pytest.approx(prof.delta(float(eps)), rel=1e-6)


def _br_brute(e0: float, k: int, eps: float, grid: int = 400) -> float:
    """max over a t-grid of the k-fold binary bounded-range pair, by enumeration."""
    best = 0.0
    for j in range(grid + 1):
        t = e0 * j / grid
        p = (math.exp(e0) - math.exp(t)) / (math.exp(e0) - 1)
        val = sum(math.comb(k, i) * p ** (k - i) * (1 - p) ** i
                  * max(0.0, 1 - math.exp(eps - (k * t - i * e0))) for i in range(k + 1))
        best = max(best, val)
    return best


@pytest.mark.parametrize("k", [1, 3, 10])
@pytest.mark.parametrize("eps", [0.25, 1, 3])
def test_bounded_range_claim_encloses_the_maximum(k, eps):
    claim = float(claimed_delta("bounded_range", sympy.Integer(1), k, sympy.Rational(eps)).upper)
    brute = _br_brute(1.0, k, eps)
    assert brute <= claim * (1 + 1e-9) + 1e-300
    assert claim <= brute * 1.01 + 1e-12
    kov = float(claimed_delta("kov", sympy.Integer(1), k, sympy.Rational(eps)).upper)
    assert claim <= kov * (1 + 1e-9) + 1e-300  # bounded range is stronger than pure DP


def test_pf_zcdp_claim_refuted_on_the_issue_pair():
    # OpenDP's scale 1 is epsilon = 2 here: rho = eps^2/8 = 1/2 would be PF's zCDP level
    pld = privacy_loss_distribution(exactdp.PermuteAndFlip(2), [0, 0], [1, -1])
    comp = pld.self_compose(10)
    lower = comp.delta(8).lower
    claim = claimed_delta("zcdp", sympy.Integer(2), 10, sympy.Integer(8))
    assert lower > claim.upper  # refuted, exactly
    res = check_accountant(exactdp.PermuteAndFlip(2), [0, 0], 10, [8], claims=("zcdp", "kov"))
    rows = {r.claim: r for r in res.rows}
    assert not rows["zcdp"].holds and rows["kov"].holds
    assert res.refuted() == [rows["zcdp"]] and not res.holds
    w = rows["zcdp"].witness
    assert {w.scores, w.neighbour} == {(0, 0), (-1, 1)}


@pytest.mark.parametrize("scores", [[0, 0], [0, 1, 2], [0, "1/2", 3]], ids=str)
def test_em_zcdp_and_bounded_range_claims_hold_on_every_pair_tried(scores):
    mech = exactdp.ExponentialMechanism(2)
    for k in (1, 4):
        res = check_accountant(mech, scores, k, [0, "1/2", 2, 5], candidates=3,
                               claims=("zcdp", "zcdp_bun_steinke", "bounded_range", "kov",
                                       "basic"))
        assert res.holds, res.table()


def test_composition_lower_bound_is_the_exact_worst_pair_value():
    mech = exactdp.PermuteAndFlip(1)
    b = composition_lower_bound(mech, [0, 1, 1], 3, 1)
    assert b.delta.algorithm == "exact" and b.certified
    assert b.neighbours_checked == 52
    nbrs, _ = exactdp.analysis.neighbours(mech, [0, 1, 1])
    best = max(float(privacy_loss_distribution(mech, a, c).self_compose(3).delta(1))
               for nb in nbrs for a, c in (([0, 1, 1], nb), (nb, [0, 1, 1])))
    assert float(b.delta) == pytest.approx(best, rel=1e-12)


def test_dp_accounting_claim_is_kov():
    pytest.importorskip("dp_accounting")
    res = check_accountant(exactdp.ExponentialMechanism(1), [0, 1], 10, [1, 3],
                           claims=("dp_accounting", "kov"))
    by = {(float(r.epsilon), r.claim): r for r in res.rows}
    for eps in (1, 3):
        assert float(by[(eps, "dp_accounting")].claimed_delta) == pytest.approx(
            float(by[(eps, "kov")].claimed_delta), rel=1e-4)
        assert not by[(eps, "dp_accounting")].certified
    assert res.versions["dp_accounting"]


def test_check_accountant_bad_input():
    mech = exactdp.ExponentialMechanism(1)
    with pytest.raises(ValueError, match="check_accountant: k must be a positive integer"):
        check_accountant(mech, [0, 1], 0, [1])
    with pytest.raises(ValueError, match=r"check_accountant: claims must be .*unknown claims"):
        check_accountant(mech, [0, 1], 2, [1], claims=("nope",))
    with pytest.raises(ValueError, match="epsilon"):
        check_accountant(mech, [0, 1], 2, [-1])
    with pytest.raises(ValueError, match="check_accountant: epsilons must be non-empty"):
        check_accountant(mech, [0, 1], 2, [])


def test_dp_accounting_pair_pld_is_a_close_upper_estimate():
    pytest.importorskip("dp_accounting")
    res = check_accountant(exactdp.PermuteAndFlip(1), [0, 1, 2], 10, [2, 4, 6],
                           claims=("dp_accounting_pld",))
    for r in res.rows:
        # pessimistic float PLD of the same pair: above the exact value, within 0.1 %
        assert r.holds and not r.certified
        assert float(r.lower_bound) <= float(r.claimed_delta) <= float(r.lower_bound) * 1.001


def test_exact_zeros_of_basic_and_kov():
    third = sympy.Rational(1, 3)
    assert claimed_delta("basic", third, 3, sympy.Integer(1)).upper == 0
    assert claimed_delta("basic", third, 3, sympy.Rational(99, 100)).upper == 1
    assert claimed_delta("kov", third, 3, sympy.Integer(1)).upper == 0
    assert claimed_delta("kov", third, 3, sympy.Rational(99, 100)).upper > 0
    with pytest.raises(ValueError, match="claimed_delta: claim must be one of .* got 'nope'"):
        claimed_delta("nope", third, 3, sympy.Integer(1))


def test_opendp_maps_are_recorded_and_hold_for_em_and_pf():
    pytest.importorskip("opendp")
    em = check_accountant(exactdp.ExponentialMechanism(1), [0, 1, 2], 10, [2, 4],
                          claims=("opendp", "zcdp"))
    rows = {(float(r.epsilon), r.claim): r for r in em.rows}
    for eps in (2, 4):  # OpenDP's EM map is rho = eps^2/8 converted like Canonne et al.
        assert float(rows[(eps, "opendp")].claimed_delta) == pytest.approx(
            float(rows[(eps, "zcdp")].claimed_delta), rel=1e-6)
    assert em.holds and em.versions["opendp"]
    pf = check_accountant(exactdp.PermuteAndFlip(1), [0, 1], 3, [1, 3], claims=("opendp",))
    assert [float(r.claimed_delta) for r in pf.rows] == [1.0, 0.0] and pf.holds


def test_default_claims_skip_missing_libraries(monkeypatch):
    import importlib.util

    from exactdp.analysis import composition

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name in ("dp_accounting", "opendp")
                        else real(name, *a))
    assert composition.available_claims() == ("basic", "kov", "drv", "zcdp",
                                              "zcdp_bun_steinke", "bounded_range")
    res = check_accountant(exactdp.ExponentialMechanism(1), [0, 1], 2, [1])
    assert [r.claim for r in res.rows] == list(composition.available_claims())


def test_search_and_scores_errors_name_the_function_called():
    pf = exactdp.PermuteAndFlip(1)
    with pytest.raises(ValueError, match=r"^composition_lower_bound: search must be one of "
                                         r"'auto', 'exhaustive', 'reduced', 'heuristic', "
                                         r"got 'foo'$"):
        composition_lower_bound(pf, [0, 1], 2, 1, search="foo")
    with pytest.raises(ValueError, match=r"^check_accountant: search must be one of .*"
                                         r"got 'foo'$"):
        check_accountant(pf, [0, 1], 2, [1], claims=(), search="foo")
    with pytest.raises(ValueError, match=r"^check_accountant: scores\[0\] must be a finite "
                                         r"real number, got nan$"):
        check_accountant(pf, [float("nan"), 1], 2, [1], claims=())
