"""Rigorous arb enclosures of closed-form sympy numbers, for the composition modules.

A small node-by-node evaluator: every python-flint ``arb`` operation returns a ball that
contains the exact result for all points of its argument balls (Johansson 2017), so the
radius of the result is proved by the arithmetic. Used by :mod:`exactdp.analysis.pld` and
:mod:`exactdp.analysis.accountants` until ``exactdp.exact.arb.to_arb`` (issue 8) is on main.

References
----------
F. Johansson, "Arb: efficient arbitrary-precision midpoint-radius interval arithmetic",
IEEE Transactions on Computers 66(8), 2017.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction

import flint
import sympy

__all__ = ["arb_of", "arb_lower_fraction", "dps_bits", "working_bits"]


def dps_bits(dps: int) -> int:
    """Working bits for ``dps`` decimal digits plus 64 guard bits."""
    return int(math.ceil(int(dps) * math.log2(10))) + 64


@contextmanager
def working_bits(bits: int) -> Iterator[None]:
    """Set flint's working precision for a ``with`` block (restored afterwards)."""
    old = flint.ctx.prec
    flint.ctx.prec = int(bits)
    try:
        yield
    finally:
        flint.ctx.prec = old


def arb_of(expr: object, bits: int) -> flint.arb:
    """A rigorous ball containing the real closed-form number ``expr``.

    Parameters
    ----------
    expr : sympy expression, int or Fraction
        Built from integers, rationals, ``E``, ``pi``, ``+``, ``*``, powers, ``exp`` and
        ``log``.
    bits : int
        Working precision in bits.

    Raises
    ------
    ValueError
        If ``expr`` has free symbols or an unsupported node, or a logarithm / real power of a
        ball that is not certified positive.
    """
    if isinstance(expr, Fraction):
        expr = sympy.Rational(expr.numerator, expr.denominator)
    e = sympy.sympify(expr) if isinstance(expr, int) else expr
    if not isinstance(e, sympy.Basic) or e.free_symbols:
        raise ValueError(f"arb_of: need a closed-form real number, got {expr!r}")
    with working_bits(bits):
        return _node(e)


def _node(e: sympy.Expr) -> flint.arb:  # noqa: C901 - one dispatch table
    if e.is_Integer:
        return flint.arb(int(e))
    if e.is_Rational:
        return flint.arb(flint.fmpq(int(e.p), int(e.q)))
    if e is sympy.E:
        return flint.arb(1).exp()
    if e is sympy.pi:
        return flint.arb.pi()
    if e.is_Add:
        out = flint.arb(0)
        for a in e.args:
            out += _node(a)
        return out
    if e.is_Mul:
        out = flint.arb(1)
        for a in e.args:
            out *= _node(a)
        return out
    if isinstance(e, sympy.exp):
        return _node(e.args[0]).exp()
    if isinstance(e, sympy.log):
        return _positive(_node(e.args[0]), e).log()
    if e.is_Pow:
        base, ex = e.args
        if ex.is_Integer:
            return _node(base) ** int(ex)
        b = _positive(_node(base), e)
        return (b.log() * _node(ex)).exp()
    raise ValueError(f"arb_of: unsupported expression node {type(e).__name__}: {e}")


def _positive(b: flint.arb, e: sympy.Expr) -> flint.arb:
    if not b > 0:
        raise ValueError(f"arb_of: cannot certify a positive argument in {e}")
    return b


def arb_lower_fraction(b: flint.arb) -> Fraction:
    """The exact lower endpoint of a finite ball as a Fraction."""
    lo = b.lower()
    man, exp = lo.mid().man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)
