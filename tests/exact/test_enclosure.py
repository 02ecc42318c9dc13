"""enclosure.enclose: to_arb at rising precision until the ball has the digits asked for (against
mpmath at 80 digits, independent code)."""

from __future__ import annotations

import mpmath
import sympy

from exactdp.exact.enclosure import enclose

E = sympy.exp
S = sympy.sqrt


def test_enclose_reaches_the_digits_asked_for():
    """pi and exp(-50)*sqrt(3) against mpmath at 80 digits (independent code)."""
    with mpmath.workdps(80):
        refs = {sympy.pi: mpmath.pi, E(-50) * S(3): mpmath.exp(-50) * mpmath.sqrt(3)}
        for expr, ref in refs.items():
            b = enclose(expr, 50)
            assert b.rel_accuracy_bits() >= 166  # 50 digits = 166.1 bits
            mid = mpmath.mpf(b.mid().str(70, radius=False))
            rad = mpmath.mpf(b.rad().str(5, radius=False))
            assert abs(mid - ref) <= rad + abs(ref) * mpmath.mpf(10) ** -65
    zero = enclose(S(8) - 2 * S(2), 30)
    assert zero.is_exact() and zero.is_zero()


def test_enclose_stops_at_the_first_precision_that_suffices():
    """sqrt 2 to 15 digits needs ~50 bits: the ball is not refined to max_prec bits."""
    b = enclose(sympy.sqrt(2), 15)
    assert 50 <= b.rel_accuracy_bits() < 1000
