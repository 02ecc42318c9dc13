"""exactdp.analysis.peer_accountants and the dp_accounting defects of docs/composition.md.

Each defect is checked against exactdp's certified value (skips only without the
``accounting`` extra; conftest turns that skip into a failure under CI=true)."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import pytest

import exactdp

pld_lib = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
common = pytest.importorskip("dp_accounting.pld.common")


def _pair_pmfs(mech, a, b):
    p = mech.distribution(a).to_numpy()
    q = mech.distribution(b).to_numpy()
    up = {i: math.log(v) for i, v in enumerate(p) if v > 0}
    lo = {i: math.log(v) for i, v in enumerate(q) if v > 0}
    return lo, up


def test_defect_vectorised_delta_overflows_above_709():
    """Row 1 of the defects table: nan / -inf where the certified delta is a number."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rr_lib = pld_lib.from_privacy_parameters(
            common.DifferentialPrivacyParameters(2, 0)).self_compose(1000)
        assert math.isnan(rr_lib.get_delta_for_epsilon([730.0])[0])
        pf = exactdp.PermuteAndFlip(2)
        lo, up = _pair_pmfs(pf, [0, 0], [1, -1])
        pf_lib = pld_lib.from_two_probability_mass_functions(lo, up).self_compose(1000)
        assert pf_lib.get_delta_for_epsilon([730.0])[0] == -math.inf
    # exactdp: randomized response with e0 = 2 (EM(4) on [1,0] vs [0,1]: losses +-2)
    rr = exactdp.privacy_loss_distribution(exactdp.ExponentialMechanism(4), [1, 0], [0, 1],
                                           allow_non_neighbour=True)
    h = rr.self_compose(1000).delta(730)  # losses +-2: on the exact lattice step 4
    assert h.algorithm == "grid" and h.certified and Fraction(0) < h.lower <= h.upper <= 1
    assert h.upper - h.lower <= Fraction(1, 10**15)
    exact = exactdp.privacy_loss_distribution(pf, [0, 0], [1, -1]).self_compose(1000).delta(730)
    assert exact.algorithm == "exact" and abs(float(exact) - 0.152899244343381) < 1e-14


def test_defect_optimistic_estimate_is_not_a_lower_bound():
    """Row 2: k = 10, eps = 20 on PF(2) [0,0] -> [1,-1]: exactly 0, optimistic 1e-15."""
    pf = exactdp.PermuteAndFlip(2)
    lo, up = _pair_pmfs(pf, [0, 0], [1, -1])
    opt = pld_lib.from_two_probability_mass_functions(
        lo, up, pessimistic_estimate=False).self_compose(10).get_delta_for_epsilon(20.0)
    exact = exactdp.privacy_loss_distribution(pf, [0, 0], [1, -1]).self_compose(10).delta(20)
    assert exact.value == 0 and opt > 0 and Fraction(opt) > exact.upper


def test_defect_pessimistic_estimate_below_the_exact_delta_near_one():
    """Row 3: the pessimistic RR(2) PLD at k = 1000 is below the certified lower bound."""
    lib = pld_lib.from_privacy_parameters(
        common.DifferentialPrivacyParameters(2, 0)).self_compose(1000)
    rr = exactdp.privacy_loss_distribution(exactdp.ExponentialMechanism(4), [1, 0], [0, 1],
                                           allow_non_neighbour=True).self_compose(1000)
    for eps in (100, 1200):
        claimed = Fraction(float(lib.get_delta_for_epsilon(float(eps))))
        h = rr.delta(eps)
        assert claimed < h.lower and h.lower - claimed > Fraction(1, 10**14)


def test_check_accountant_outcomes_and_rdp_claim():
    """Outcomes against the certified bounds: kov (optimal pure-DP composition) confirms,
    dp_accounting's RDP claim is an upper bound too, and a claim below the lower bound
    (basic composition at eps < k e0 claims 1; take advanced composition at small eps)."""
    res = exactdp.check_accountant(exactdp.ExponentialMechanism(1), [0, 1, 2], 20, [2, 6],
                                   claims=("kov", "dp_accounting_rdp", "dp_accounting_pld"))
    for r in res.rows:
        assert r.outcome in ("refuted", "confirmed", "undecided")
        assert r.holds == (r.outcome != "refuted")
        assert r.lower_bound <= r.upper_bound
        if r.outcome == "confirmed":
            assert r.claimed_delta >= r.upper_bound and r.looseness >= 1
        if r.upper_bound > 0:
            assert r.looseness == pytest.approx(float(r.claimed_delta / r.upper_bound))
    kov = [r for r in res.rows if r.claim == "kov"]
    assert all(r.outcome == "confirmed" for r in kov)
    rdp = [r for r in res.rows if r.claim == "dp_accounting_rdp"]
    assert rdp and all(r.holds for r in rdp) and "RDP" in rdp[0].caveat
    # the library's RDP value, independently
    from dp_accounting import dp_event
    from dp_accounting.rdp import rdp_privacy_accountant as rdp_lib

    acc = rdp_lib.RdpAccountant()
    acc.compose(dp_event.ZCDpEvent(1 / 8), 20)
    assert float(rdp[0].claimed_delta) == pytest.approx(acc.get_delta(2.0), rel=1e-12)


def test_check_accountant_refutes_a_claim_below_the_lower_bound():
    from exactdp.analysis.accountants import ClaimedDelta
    from exactdp.analysis.composition import _row, composition_lower_bound

    bound = composition_lower_bound(exactdp.PermuteAndFlip(1), [0, 1], 5, 1)
    low = _row(bound, "made up", ClaimedDelta("made up", bound.lower / 2, True, ""))
    high = _row(bound, "made up", ClaimedDelta("made up", Fraction(1), True, ""))
    assert (low.outcome, low.holds) == ("refuted", False) and low.looseness < 1
    assert high.outcome == "confirmed" and high.looseness == float(1 / bound.upper)
