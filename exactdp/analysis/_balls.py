"""Exact endpoints of python-flint balls, for the composition modules."""

from __future__ import annotations

from fractions import Fraction

import flint


def arb_lower_fraction(b: flint.arb) -> Fraction:
    """The exact lower endpoint of a finite ball as a Fraction (a dyadic rational)."""
    fman, fexp = b.lower().mid().man_exp()
    man, exp = int(fman), int(fexp)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)
