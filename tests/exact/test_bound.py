"""exactdp.exact.bound: proved bounds of |f| on an interval (branch and bound in arb)."""

from __future__ import annotations

import sympy

from exactdp.exact.bound import abs_bound

u = sympy.Symbol("u", positive=True)
E, R = sympy.exp, sympy.Rational


def test_supremum_approached_at_an_end_is_proved_by_monotonicity():
    # f(u) = 1 + log((1 + u/e)/(1 + u)) decreases on [0, 1] (f' = 1/(e + u) - 1/(1 + u) < 0)
    # from f(0) = 1: |f| <= 1 everywhere, with equality only at u = 0
    f = 1 + sympy.log((1 + E(-1) * u) / (1 + u))
    res = abs_bound(f, u, 0, 1, sympy.Integer(1))
    assert res.holds is True and res.witness is None


def test_a_smaller_target_is_refuted_at_an_exact_point():
    f = 1 + sympy.log((1 + E(-1) * u) / (1 + u))
    res = abs_bound(f, u, 0, 1, R(99, 100))
    assert res.holds is False
    # independent check of the witness: f(w) > 99/100 by a 50-digit evaluation
    assert sympy.N(f.subs(u, res.witness), 50) > sympy.Float("0.99", 50)


def test_interior_maximum_equal_to_the_target_is_undecided_not_guessed():
    # 4u(1 - u) reaches 1 at u = 1/2 only: no enclosure separates it, no monotone box
    res = abs_bound(4 * u * (1 - u), u, 0, 1, sympy.Integer(1), max_boxes=400)
    assert res.holds is None and res.reason
    assert abs_bound(4 * u * (1 - u), u, 0, 1, R(101, 100)).holds is True
    assert abs_bound(4 * u * (1 - u), u, 0, 1, R(99, 100)).holds is False


def test_bound_reached_at_the_right_end():
    # f = u/(1 + u) increases on [1/4, 1] to 1/2 at u = 1: the bound 1/2 is reached at the
    # end only (monotone box), any smaller target fails near u = 1
    f = u / (1 + u)
    assert abs_bound(f, u, R(1, 4), 1, R(1, 2)).holds is True
    assert abs_bound(f, u, R(1, 4), 1, R(49, 100)).holds is False


# ------------------------------------------------------------- mutants that lived (issue 20)
def test_negative_interval_is_not_clipped_to_nonnegative():
    """|t| <= 1 fails on [-2, 1] (|-2| = 2), holds on [-1, 1/2]."""
    t = sympy.Symbol("t", real=True)
    res = abs_bound(t, t, -2, 1, sympy.Integer(1))
    assert res.holds is False and abs(res.witness) > 1
    assert abs_bound(t, t, -1, R(1, 2), sympy.Integer(1)).holds is True


def test_no_split_below_min_width():
    """4u(1-u) reaches 1 at u = 1/2, so boxes touching 1/2 never separate: with
    min_width = 1 the first box is the last one."""
    res = abs_bound(4 * u * (1 - u), u, 0, 1, sympy.Integer(1), min_width=1)
    assert res.holds is None and res.boxes == 1 and "not separated" in res.reason


def test_reversed_interval_is_refused_naming_both_ends():
    import pytest

    with pytest.raises(ValueError, match=r"^abs_bound: hi must be > lo = 1, got 0$"):
        abs_bound(u, u, 1, 0, sympy.Integer(1))


def test_an_interior_excess_is_found_when_the_midpoint_and_the_end_are_below():
    """f = 4u(1 - u)^2 peaks at u = 1/3 with f = 16/27 > 11/20, while f(1/2) = 1/2 and
    f(1) = 0 are below 11/20: only a split of [0, 1] finds the excess (a monotone-box
    certificate needs both end values and a derivative 4(1 - u)(1 - 3u) of one sign)."""
    f = 4 * u * (1 - u) ** 2
    res = abs_bound(f, u, 0, 1, R(11, 20))
    assert res.holds is False and f.subs(u, res.witness) > R(11, 20)
    assert abs_bound(f, u, 0, 1, R(16, 27) + R(1, 100)).holds is True


def test_a_box_starting_at_zero_is_clipped_to_the_domain_of_sqrt():
    """sqrt(u) <= 1 on [0, 1/3] (sqrt(1/3) < 1) and sqrt(u) <= sqrt(1/3) with equality at
    the right end (increasing): boxes [0, 1/3 * 2^-k] are not dyadic, so their ball's lower
    end is rounded below 0 unless clipped to the non-negative part."""
    f = sympy.sqrt(u)
    assert abs_bound(f, u, 0, R(1, 3), sympy.Integer(1)).holds is True
    assert abs_bound(f, u, 0, R(1, 3), sympy.sqrt(R(1, 3))).holds is True
    assert abs_bound(f, u, 0, R(1, 3), R(1, 2)).holds is False


def test_an_exhausted_box_budget_is_named_in_the_reason():
    """Mutation seed 11: 4u(1 - u) = 1 at u = 1/2 only (no box separates it); with a budget
    of 5 boxes the answer is undecided and says why."""
    res = abs_bound(4 * u * (1 - u), u, 0, 1, sympy.Integer(1), max_boxes=5)
    assert res.holds is None and res.witness is None
    assert res.reason == "box budget 5 exhausted" and res.boxes == 6
