"""Tests of exactdp.rational_form (RationalForm)."""

from __future__ import annotations

import mpmath
import sympy

import exactdp
from exactdp.mechanisms import X


def test_shown_forms_are_the_first_forms_and_match_pf_closed_form():
    """PF(1) on [0,1,2], x = e^{-1/2}: shown_forms gives the first forms (x^2/2 - x^3/6 and
    x/2 - x^3/6), which at x = e^{-1/2} equal the mpmath route's probabilities."""
    rf = exactdp.PermuteAndFlip(1).distribution([0, 1, 2]).rational_form()
    want = (X**2 / 2 - X**3 / 6, X / 2 - X**3 / 6)
    assert all(sympy.expand(a - b) == 0 for a, b in zip(rf.shown_forms(2), want, strict=True))
    assert rf.shown_forms(2) == rf.forms[:2]
    assert len(rf.shown_forms()) == 3
    mp = exactdp.PermuteAndFlip(1).distribution([0, 1, 2]).evalf(30)
    with mpmath.workdps(30):
        for form, p in zip(rf.shown_forms(), mp, strict=True):
            exact = mpmath.mpf(str(sympy.N(form.subs(X, sympy.exp(sympy.Rational(-1, 2))), 40)))
            assert abs(exact - p) < mpmath.mpf(10) ** -28
