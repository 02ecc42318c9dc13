"""A closed-form number enclosed to a number of correct digits: ``to_arb`` at rising
precision.

Every ``evalf(dps)`` of exactdp that promises ``dps`` correct digits goes through
:func:`enclose`: the ball of :func:`~exactdp.exact.arb.to_arb` is rigorous at any
precision, and doubling the precision until its relative radius is below ``10**-dps`` gives
the digits (or stops at a ceiling, the ball still rigorous, only wider).

References
----------
F. Johansson, "Arb: efficient arbitrary-precision midpoint-radius interval arithmetic",
IEEE Transactions on Computers 66(8), 2017.
"""

from __future__ import annotations

import math

import flint

from .arb import dps_to_prec, to_arb


def enclose(expr: object, dps: int, max_prec: int = 1 << 16) -> flint.arb:
    """:func:`~exactdp.exact.arb.to_arb` at rising precision until the ball has ``dps``
    correct digits.

    Starts at :func:`~exactdp.exact.arb.dps_to_prec` ``(dps)`` bits and doubles until the
    relative radius is below ``10**-dps`` (or the ball is the exact 0), up to ``max_prec``
    bits; the ball returned is rigorous in every case, only possibly wider.

    Parameters
    ----------
    expr : sympy.Expr, int or fractions.Fraction
        A real number without free symbols (as :func:`~exactdp.exact.arb.to_arb`).
    dps : int
        Correct decimal digits wanted (relative accuracy).
    max_prec : int, default 65536
        The highest working precision in bits.

    Returns
    -------
    flint.arb
        A finite ball containing ``expr``.

    Raises
    ------
    ValueError
        As :func:`~exactdp.exact.arb.to_arb`.

    Examples
    --------
    >>> import sympy
    >>> from exactdp.exact.enclosure import enclose
    >>> enclose(sympy.pi, 20).rel_accuracy_bits() >= 67
    True
    >>> enclose(sympy.exp(1) - sympy.E, 20)
    0
    """
    target = int(math.ceil(int(dps) * math.log2(10)))
    prec = dps_to_prec(dps)
    while True:
        b = to_arb(expr, prec)
        if (b.is_exact() and b.is_zero()) or b.rel_accuracy_bits() >= target:
            return b
        if prec >= max_prec:
            return b
        prec = min(2 * prec, max_prec)
