"""A quick exact closed form of a ratio of exponential sums, for searches over many pairs.

:func:`~exactdp.programs.release_sup.tidy_ratio` simplifies a loss's ratio ``f / g`` of
exponential sums with ``sympy.simplify`` (0.1 s each). A search over pairs (the suite's
rows) needs most losses only as numbers to compare with exactly; inside :func:`quick` the
ratio is instead reduced as a rational function of ``x = exp(1/L)`` (``L`` the lcm of the
exponents' denominators): ``f = x^m P(x)``, ``g = x^m Q(x)``, divided by the exact
``gcd(P, Q)`` (flint ``fmpq_poly``), ``Q`` made monic. The same value, exactly; the pair the
search names gets the simplified form afterwards (:func:`quick_sources` gives back
``(f, g)``), so what a row shows is what ``tidy_ratio`` gives.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from fractions import Fraction

import flint
import sympy

from ..exact.signs import exp_sum_terms

#: Whether ratios are reduced quickly (:func:`quick`) rather than simplified.
QUICK: ContextVar[bool] = ContextVar("quick_ratio", default=False)
#: The ratios ``(f, g)`` each quick form was made from (at most 4096 forms, then cleared).
_SOURCES: dict[sympy.Expr, set[tuple[sympy.Expr, sympy.Expr]]] = {}


@contextmanager
def quick() -> Iterator[None]:
    """Reduce the ratios of losses quickly inside the block (:func:`quick_ratio`)."""
    token = QUICK.set(True)
    try:
        yield
    finally:
        QUICK.reset(token)


def _terms(e: sympy.Expr) -> dict[Fraction, Fraction] | None:
    t = exp_sum_terms(e, None)
    if not t:
        return None
    return {Fraction(int(a.p), int(a.q)): Fraction(int(c.p), int(c.q)) for a, c in t.items()}


def _sum(poly: flint.fmpq_poly, lcm: int) -> sympy.Expr:
    return sympy.Add(*[sympy.Rational(int(c.p), int(c.q)) * sympy.exp(sympy.Rational(k, lcm))
                       for k, c in enumerate(poly.coeffs()) if c != 0])


def quick_ratio(f: sympy.Expr, g: sympy.Expr) -> sympy.Expr | None:
    """``f / g`` reduced as a rational function of ``exp(1/L)`` (see the module), exactly;
    None where ``f`` or ``g`` is not a sum ``sum c exp(a)`` of rationals ``c, a``."""
    tf, tg = _terms(f), _terms(g)
    if tf is None or tg is None:
        return None
    lcm = math.lcm(1, *(a.denominator for a in (*tf, *tg)))
    low = min((*tf, *tg))

    def poly(t: dict[Fraction, Fraction]) -> flint.fmpq_poly:
        out = [Fraction(0)] * (int((max(t) - low) * lcm) + 1)
        for a, c in t.items():
            out[int((a - low) * lcm)] += c
        return flint.fmpq_poly([flint.fmpq(c.numerator, c.denominator) for c in out])

    p, q = poly(tf), poly(tg)
    common = p.gcd(q)
    p, q = p // common, q // common
    lead = q.coeffs()[-1]
    p, q = p / lead, q / lead
    out = _sum(p, lcm) if q.degree() == 0 else _sum(p, lcm) / _sum(q, lcm)
    if len(_SOURCES) > 4096:
        _SOURCES.clear()
    _SOURCES.setdefault(out, set()).add((f, g))
    return out


def quick_sources(ratio: sympy.Expr) -> frozenset[tuple[sympy.Expr, sympy.Expr]]:
    """The ratios ``(f, g)`` a quick form was made from (empty: not a quick form)."""
    return frozenset(_SOURCES.get(ratio, ()))
