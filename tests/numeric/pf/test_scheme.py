"""exactdp.numeric.pf.scheme: each parameter is the least one meeting its stated bound
(checked in exact rational arithmetic, not by re-running the float loop)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.numeric.pf.scheme import horner_terms, panel_edges, series_terms, trunc_const


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
