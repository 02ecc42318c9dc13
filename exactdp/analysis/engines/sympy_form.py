"""The sympy form of an x-form ratio ``P(x)/Q(x)`` at ``x = exp(-epsilon/N)``.

The canonical form of the dense engine (:meth:`~exactdp.analysis.engines.xform.XEngine.to_sympy`)
is ``powsimp((P(X)/Q(X)).subs(X, x))`` with ``P/Q`` in sympy's ``cancel`` normal form. At a
rational epsilon ``x = exp(c)`` with ``c`` rational, every power ``x^k`` is the single atom
``exp(k c)``, so each term of ``P`` and ``Q`` is ``coefficient * exp(k c)`` (one exponential
per product: nothing for ``powsimp`` to combine), and the expression is built directly from
the flint coefficients (:func:`exactdp.xform.poly_expr`) and divided once: the same
expression (``==``, ``srepr``; tests/analysis/engines/test_sympy_form.py compares the two
routes), without the substitution and ``powsimp`` walks (about a third of ``build_report``
in the pricing report: issue 36). A symbolic epsilon ``x = exp(-r epsilon)`` (a positive
symbol times a rational) builds the same way: each ``x^k`` is the single atom
``exp(-k r epsilon)`` (the walks took 20 s a ratio at degree 1000: permute-and-flip's loss
on 0..10 and 50 at a symbolic epsilon, over 100 s). A logarithmic epsilon and a monomial
denominator ``c x^m``, ``m >= 1``, take the ``subs`` and ``powsimp`` route.
"""

from __future__ import annotations

from functools import lru_cache

import flint
import sympy

from ...exact.poly import fmpq_poly_to_sympy
from ...xform import Atoms, poly_expr
from ..common import X


@lru_cache(maxsize=16)
def _exp_atoms(lam: sympy.Expr) -> Atoms:
    """``k -> exp(-k lam)``, shared by the ratios of one rate."""
    return Atoms.coins(lam)


def _single_atoms(c: sympy.Expr) -> bool:
    """Whether every power ``exp(c)^k`` is the single atom ``exp(k c)``: ``c`` a negative
    rational, or a negative rational times one positive symbol (``-epsilon/N`` at a symbolic
    epsilon; a logarithm is not: ``exp(-k log 3)`` evaluates to ``3**-k``)."""
    if c.is_Rational:
        return bool(c < 0)
    r, s = c.as_coeff_Mul()
    return bool(r.is_Rational and r < 0 and isinstance(s, sympy.Symbol) and s.is_positive)


def ratio_at(P: flint.fmpz_poly, Q: flint.fmpz_poly, x_value: sympy.Expr) -> sympy.Expr:
    """``P(x)/Q(x)`` at ``x = x_value`` in the canonical form
    ``powsimp((P(X)/Q(X)).subs(X, x_value))`` (``P``, ``Q`` integer polynomials, ``Q != 0``,
    as :func:`~exactdp.analysis.engines.xform.canonical_pair` gives them)."""
    c = x_value.args[0] if isinstance(x_value, sympy.exp) else None
    # a monomial denominator c x^m (m >= 1) is left to sympy: the substitution distributes
    # its 1/c over the numerator's terms, a direct division does not
    plain_den = Q.degree() < 1 or sum(1 for a in Q.coeffs() if a != 0) > 1
    if c is not None and plain_den and _single_atoms(c):
        atoms = _exp_atoms(-c)
        u = poly_expr(flint.fmpq_poly(P), atoms)
        return u if Q == 1 else u / poly_expr(flint.fmpq_poly(Q), atoms)
    u = fmpq_poly_to_sympy(flint.fmpq_poly(P), X).as_expr()
    r = u if Q == 1 else u / fmpq_poly_to_sympy(flint.fmpq_poly(Q), X).as_expr()
    return sympy.powsimp(r.subs(X, x_value))
