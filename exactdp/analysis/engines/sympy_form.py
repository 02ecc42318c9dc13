"""The sympy form of an x-form ratio ``P(x)/Q(x)`` at ``x = exp(-epsilon/N)``.

The canonical form of the dense engine (:meth:`~exactdp.analysis.engines.xform.XEngine.to_sympy`)
is ``powsimp((P(X)/Q(X)).subs(X, x))`` with ``P/Q`` in sympy's ``cancel`` normal form. At a
rational epsilon ``x = exp(c)`` with ``c`` rational, every power ``x^k`` is the single atom
``exp(k c)``, so each term of ``P`` and ``Q`` is ``coefficient * exp(k c)`` (one exponential
per product: nothing for ``powsimp`` to combine), and the expression is built directly from
the flint coefficients (:func:`exactdp.xform.poly_expr`) and divided once: the same
expression (``==``, ``srepr``; tests/analysis/engines/test_sympy_form.py compares the two
routes), without the substitution and ``powsimp`` walks (about a third of ``build_report``
in the pricing report: issue 36). Any other ``x`` (a symbolic or a logarithmic epsilon)
and a monomial denominator ``c x^m``, ``m >= 1``, take the ``subs`` and ``powsimp`` route.
"""

from __future__ import annotations

from functools import lru_cache

import flint
import sympy

from ...exact.poly import fmpq_poly_to_sympy
from ...xform import Atoms, poly_expr
from ..common import X


@lru_cache(maxsize=16)
def _exp_atoms(lam: sympy.Rational) -> Atoms:
    """``k -> exp(-k lam)``, shared by the ratios of one rate."""
    return Atoms.coins(lam)


def ratio_at(P: flint.fmpz_poly, Q: flint.fmpz_poly, x_value: sympy.Expr) -> sympy.Expr:
    """``P(x)/Q(x)`` at ``x = x_value`` in the canonical form
    ``powsimp((P(X)/Q(X)).subs(X, x_value))`` (``P``, ``Q`` integer polynomials, ``Q != 0``,
    as :func:`~exactdp.analysis.engines.xform.canonical_pair` gives them)."""
    c = x_value.args[0] if isinstance(x_value, sympy.exp) else None
    # a monomial denominator c x^m (m >= 1) is left to sympy: the substitution distributes
    # its 1/c over the numerator's terms, a direct division does not
    plain_den = Q.degree() < 1 or sum(1 for a in Q.coeffs() if a != 0) > 1
    if c is not None and c.is_Rational and c < 0 and plain_den:
        atoms = _exp_atoms(-c)
        u = poly_expr(flint.fmpq_poly(P), atoms)
        return u if Q == 1 else u / poly_expr(flint.fmpq_poly(Q), atoms)
    u = fmpq_poly_to_sympy(flint.fmpq_poly(P), X).as_expr()
    r = u if Q == 1 else u / fmpq_poly_to_sympy(flint.fmpq_poly(Q), X).as_expr()
    return sympy.powsimp(r.subs(X, x_value))
