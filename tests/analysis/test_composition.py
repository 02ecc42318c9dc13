"""exactdp/analysis/composition.py: certified lower bounds of composed deltas."""

from __future__ import annotations

import itertools
import math

import pytest
import sympy

import exactdp
from exactdp.analysis.composition import available_claims

from .test_outputs import overlap


def _enumerated_delta(p, q, k: int, eps) -> sympy.Expr:
    """delta(eps) of the k-fold product pair by summing every output sequence:
    sum_s max(0, P^k(s) - e^eps Q^k(s)) (the hockey-stick divergence's definition)."""
    total = sympy.Integer(0)
    for seq in itertools.product(range(len(p)), repeat=k):
        a = math.prod((p[i] for i in seq), start=sympy.Integer(1))
        b = math.prod((q[i] for i in seq), start=sympy.Integer(1))
        d = sympy.expand(a - sympy.exp(eps) * b)
        if d.evalf(50) > 0:
            total += d
    return total


def test_the_bound_is_the_witness_pairs_delta_by_enumeration():
    mech = exactdp.PermuteAndFlip(1)
    b = exactdp.composition_lower_bound(mech, [0, 0], 3, 1, progress=False)
    a, c = b.witness.scores, b.witness.neighbour
    truth = _enumerated_delta(mech.distribution(list(a)).probabilities,
                              mech.distribution(list(c)).probabilities, 3, 1)
    # delta(1) of PF(1) composed 3 times on (0,0) vs (-1,1): 0.2579242399305714...
    assert abs(sympy.N(truth, 30) - sympy.Float("0.2579242399305714", 30)) < 1e-15
    assert abs(sympy.N(b.value - truth, 40)) < sympy.Float(10) ** -35
    assert b.lower <= sympy.N(truth, 40) <= b.upper and b.certified
    assert b.k == 3 and b.neighbours_checked >= 1


def test_the_bound_shows_its_delta_as_the_hockey_stick_does():
    """A composed delta too long to print is labelled rounded, as its HockeyStick (beside
    algorithm='exact'): PF(1) on [0, 1, 2], k = 3, epsilon = 0; the digits checked against
    the enumerated delta of the witness pair."""
    mech = exactdp.PermuteAndFlip(1)
    b = exactdp.composition_lower_bound(mech, [0, 1, 2], 3, 0, progress=False)
    truth = _enumerated_delta(mech.distribution(list(b.witness.scores)).probabilities,
                              mech.distribution(list(b.witness.neighbour)).probabilities, 3, 0)
    shown = f"{float(sympy.N(truth, 30)):.6g}"
    assert repr(b).startswith(f"CompositionBound(delta={shown} (rounded), k=3, epsilon=0, ")
    assert b.headline_text() == b.delta.headline_text()


def test_composition_lower_bound_refuses_bad_arguments_in_its_own_name():
    """k and epsilon were refused as check_accountant's (the call it makes)."""
    mech = exactdp.PermuteAndFlip(1)
    for k, eps, what in ((0, 1, "k must be a positive integer, got 0"),
                         (2, -1, "epsilon must be >= 0, got -1"),
                         (2, [0, 1], "epsilon must be a number")):
        with pytest.raises(ValueError, match=rf"^composition_lower_bound: {what}"):
            exactdp.composition_lower_bound(mech, [0, 0], k, eps)


def test_claims_available_are_the_installed_ones():
    claims = available_claims()
    assert {"basic", "kov", "bounded_range"} <= set(claims)
    rows = exactdp.check_accountant(exactdp.PermuteAndFlip(2), [0, 0], 10, [8],
                                    claims=("basic",), progress=False).rows
    # basic composition (10 rounds of 2-DP are 20-DP) is a true bound: its claimed delta(8)
    # is never below the certified lower bound, so the row holds
    assert [(r.claim, r.holds) for r in rows] == [("basic", True)]


def test_composition_over_different_output_sets_counts_the_infinite_mass():
    """Two runs from (1,) to (0,): some run outputs True (infinite loss) with probability
    1 - (1/2)^2 = 3/4; the other outcome, False twice, has P = 1/4 and loss
    2 ln((1/2)/(1 - e^-1/2)) < 0, adding nothing at epsilon 1: delta = 3/4 exactly (the
    float screen and the exact PLD both align the outputs by value)."""
    b = exactdp.composition_lower_bound(overlap(epsilon=1), [1], 2, 1)
    assert b.delta.value == sympy.Rational(3, 4)
    assert b.witness.scores == (1,) and b.witness.neighbour == (0,)



class _BarShown(Exception):
    pass


def test_rnm_laplace_search_is_priced_as_a_whole_and_refused_at_once(monkeypatch):
    """check_accountant / composition_lower_bound on RNM-Laplace: the float64 screen of
    every pair plus the exact PLDs of the pairs composed, priced before any distribution
    (measured 0..n-1, k = 3, one epsilon: n = 10 / 15 / 20 in 0.56 / 1.67 / 3.68 s CPU,
    docs/benchmarks.md); past the limit refused at once naming the call, its estimate and
    the routes that apply (no neighbour= here); a long legitimate run shows its bar."""
    import time

    from exactdp.analysis import composition as C
    from exactdp.scores import as_scores

    mech = exactdp.ReportNoisyMax(1, noise="laplace")
    for n, measured in ((10, 0.56), (15, 1.67), (20, 3.68)):
        sv = as_scores(list(range(n)))
        nbrs, pairs, _ = C._candidates(mech, sv, "auto", "check_accountant")
        est = C._price(mech, sv, nbrs, pairs, 3, 2, "check_accountant")
        assert measured / 3 < est < 3 * measured, (n, est)
    for call, name in ((lambda: exactdp.check_accountant(mech, list(range(50)), 3, [1]),
                        "check_accountant"),
                       (lambda: exactdp.composition_lower_bound(mech, list(range(50)), 3, 1),
                        "composition_lower_bound")):
        t0 = time.process_time()
        with pytest.raises(ValueError) as info:
            call()
        assert time.process_time() - t0 < 2.0
        msg = str(info.value)
        assert msg.startswith(f"{name}: the composed lower bound of k = 3 copies over 204 "
                              "ordered pairs of n = 50 scores"), msg
        assert "candidates=1" in msg and "neighbour=" not in msg and "limit 120 s" in msg
    # many copies: the float64 screen alone (1e-3 s per pair and copy), for any mechanism
    with pytest.raises(ValueError, match=r"check_accountant: .* k = 100000 copies .* fewer "
                       "copies k"):
        exactdp.check_accountant(exactdp.PermuteAndFlip(1), [0, 1, 2], 10**5, [1])
    # n = 40: inside the limit, over 2 s: the bar opens with the estimate
    seen = {}

    def bar(total, desc, **kwargs):
        seen.update(kwargs, total=total)
        raise _BarShown

    monkeypatch.setattr(C, "progress_bar", bar)
    with pytest.raises(_BarShown):
        exactdp.check_accountant(mech, list(range(40)), 3, [1], claims=())
    assert 40 < seen["seconds"] < 120 and seen["total"] == 2 * 82 + 2


def test_a_release_program_is_refused_at_once_in_the_caller_s_name():
    """Before: refused after about 2 s of tracing, in privacy_loss_distribution's name."""
    import time

    from exactdp.programs import library_release as L
    m = L.gap_svt(epsilon=1, threshold=1)
    start = time.process_time()
    for func, call in (("check_accountant",
                        lambda: exactdp.check_accountant(m, [0, 1], 2, [1])),
                       ("composition_lower_bound",
                        lambda: exactdp.composition_lower_bound(m, [0, 1], 2, 1))):
        with pytest.raises(ValueError, match=f"^{func}: gap_svt releases real values"):
            call()
    assert time.process_time() - start < 0.5  # no trace: about a millisecond
