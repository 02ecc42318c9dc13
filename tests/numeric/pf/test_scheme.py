"""exactdp.numeric.pf.scheme: each parameter is the least one meeting its stated bound
(checked in exact rational arithmetic, not by re-running the float loop)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.numeric.pf.scheme import (
    horner_terms,
    panel_edges,
    power_schedule,
    series_terms,
    trunc_const,
)


def _tail_series(umax: Fraction, lam: Fraction, J: int) -> Fraction:
    return lam * umax**J / ((J + 1) * (1 - umax))


def _tail_horner(umax: Fraction, J: int) -> Fraction:
    return umax ** (J + 1) / (1 - umax)


@pytest.mark.parametrize("bits", [24, 53, 60, 113, 200])
def test_truncation_constant_meets_its_bound(bits):
    # e^{1 - C} / 0.316 <= 2^-bits, checked at 50 digits
    with mpmath.workdps(50):
        C = mpmath.mpf(trunc_const(bits))
        assert mpmath.e ** (1 - C) / mpmath.mpf("0.316") <= mpmath.mpf(2) ** -bits


@settings(max_examples=60, deadline=None)
@given(
    umax=st.floats(1e-6, 0.5),
    lam=st.floats(1e-3, 60.0),
    bits=st.integers(10, 200),
)
def test_series_terms_is_the_least_count_meeting_the_tail_bound(umax, lam, bits):
    J = series_terms(umax, lam, bits)
    u, L, tol = Fraction(umax), Fraction(lam), Fraction(1, 2**bits)
    assert J >= 1
    assert _tail_series(u, L, J) <= tol * (1 + Fraction(1, 10**9))
    if J > 1:
        assert _tail_series(u, L, J - 1) > tol * (1 - Fraction(1, 10**9))


@settings(max_examples=60, deadline=None)
@given(umax=st.floats(1e-6, 0.5), bits=st.integers(10, 200))
def test_horner_terms_is_the_least_count_meeting_the_tail_bound(umax, bits):
    J = horner_terms(umax, bits)
    u, tol = Fraction(umax), Fraction(1, 2**bits)
    assert _tail_horner(u, J) <= tol * (1 + Fraction(1, 10**9))
    if J > 0:
        assert _tail_horner(u, J - 1) > tol * (1 - Fraction(1, 10**9))


def test_no_coins_need_no_terms():
    assert series_terms(0.0, 1.0, 60) == 0
    assert series_terms(0.1, 0.0, 60) == 0
    assert horner_terms(0.0, 60) == 0


@pytest.mark.parametrize("grading", [1, 3, 8, 12])
def test_panels_cover_the_unit_interval_graded_towards_both_ends(grading):
    e = [Fraction(x) for x in panel_edges(grading)]  # exact dyadics: Fraction is exact
    assert e[0] == 0 and e[-1] == 1
    assert all(a < b for a, b in zip(e[:-1], e[1:], strict=True))
    assert e[1] == Fraction(1, 2**grading) and e[-2] == 1 - Fraction(1, 2**grading)
    # every inner panel is no wider than its distance to the nearer end of [0, 1]
    for a, b in zip(e[1:-2], e[2:-1], strict=True):
        assert b - a <= min(a, 1 - b)


# ----------------------------------------------------------------------------- quadrature plan
def _planned_rule_arb(k: int):
    """The float64 route's rule for bucket k, nodes and weights as 200-bit balls."""
    import flint

    from exactdp.numeric.pf.float64 import _STEPS
    from exactdp.numeric.pf.scheme import quad_plan

    grading, nodes = quad_plan(2.0 ** ((k - 1) / _STEPS), 2.0 ** (k / _STEPS), 56)
    edges = panel_edges(grading)
    rule = []
    for a, b, count in zip(edges[:-1], edges[1:], nodes, strict=True):
        h = (flint.arb(b) - flint.arb(a)) / 2
        for i in range(count):
            x, w = flint.arb.legendre_p_root(count, i, weight=True)
            rule.append((a + h * (x + 1), h * w))
    return rule


@pytest.mark.parametrize("k", [0, 6, 17, 25, 30, 33])
def test_planned_rule_meets_its_bound_on_extreme_integrands(k):
    """The node counts of quad_plan, applied exactly (200-bit balls), integrate the extreme
    integrands of bucket k (Lambda up to 2^(k/6)) within 2^-56 relative: m coins at u = 1
    (all maximizers, t_max = 1), at u = 1/2 and 1/8 (the large/small split), the limit of
    many tiny coins exp(-Lambda tau), and one factor divided out (a large coin's
    integral). References are the closed forms of int_0^1 (1 - u tau)^m and of
    int_0^1 exp(-L tau) (not quadrature)."""
    import flint

    from exactdp.exact.arb import flint_prec

    with flint_prec(200):
        rule = _planned_rule_arb(k)
        lam = flint.arb(2) ** (flint.arb(k) / 6)
        lam_f = float(lam.mid())
        cases = []
        for u in (Fraction(1), Fraction(1, 2), Fraction(1, 8)):
            m = int(lam_f / u)
            if m >= 1 and (u < 1 or m <= 44):
                ua = flint.arb(flint.fmpq(u.numerator, u.denominator))
                for mm in (m, m - 1):  # g, and g with one factor divided out
                    if mm >= 0:
                        exact = (1 - (1 - ua) ** (mm + 1)) / ((mm + 1) * ua)
                        cases.append((lambda t, ua=ua, mm=mm: (1 - ua * t) ** mm, exact))
        cases.append((lambda t: (-lam * t).exp(), -(-lam).expm1() / lam))
        for f, exact in cases:
            q = sum((w * f(t) for t, w in rule), flint.arb(0))
            rel = abs(float(((q - exact) / exact).mid()))
            assert rel <= 2.0**-56


def test_plan_node_counts_are_least_for_their_bound():
    """Each panel's count is the least meeting its share of the bound (one node fewer
    fails it), and the rule is far smaller than the 640 nodes of the former fixed rules."""
    from exactdp.numeric.pf.scheme import integral_lower_bound, panel_nodes, quad_plan

    for k in (0, 20, 33):
        lo, hi = 2.0 ** ((k - 1) / 6), 2.0 ** (k / 6)
        grading, nodes = quad_plan(lo, hi, 56)
        assert sum(nodes) <= 40
        edges = panel_edges(grading)
        tol = 2.0**-56 * integral_lower_bound(hi) / (len(edges) - 1)
        for a, b, n in zip(edges[:-1], edges[1:], nodes, strict=True):
            assert panel_nodes(a, b, lo, hi, tol) == n
            assert panel_nodes(a, b, lo, hi, tol * 2.0**-8) > n  # tighter: more nodes


@pytest.mark.parametrize("top", [1, 2, 3, 7, 18, 21, 22, 40])
def test_power_schedule_fills_every_power_once_from_filled_rows(top):
    """Each op reads rows already filled and writes the next block; the exponents are
    1..top once each, and the products of exact dyadic powers of 2 (no rounding) are exact:
    ``(1/2)^e`` in row r."""
    ops, exps = power_schedule(top)
    assert sorted(exps) == list(range(1, top + 1))
    filled = 1
    rows: list[Fraction] = [Fraction(1, 2)]
    for i, j, m, o in ops:
        assert o == filled and i + m <= filled and j + m <= filled and m >= 1
        rows += [rows[i + t] * rows[j + t] for t in range(m)]
        filled += m
    assert rows == [Fraction(1, 2) ** e for e in exps]
    if top == 21:
        assert len(ops) <= 7  # the dense route's usual length: fewer calls than it has rows
