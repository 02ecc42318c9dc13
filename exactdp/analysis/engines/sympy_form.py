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


def _poly_terms(p: flint.fmpq_poly) -> dict[int, flint.fmpq]:
    return {k: c for k, c in enumerate(p.coeffs()) if c != 0}


def sparser_terms(reduced: tuple, whole: tuple) -> tuple[dict, dict]:
    """The term dicts of ``reduced`` (a ratio's flint pair over its gcd) or, when the gcd
    densifies it, of ``whole`` (the unreduced pair): ``(1 + x**98962)/(1 + x**2)`` has
    49481 terms, the pair itself two (EM on gaps over 1850: minutes of sympy before)."""
    terms = _poly_terms(reduced[0]), _poly_terms(reduced[1])
    if reduced[0] is whole[0] or reduced[0] == whole[0]:
        return terms
    full = _poly_terms(whole[0]), _poly_terms(whole[1])
    return full if len(terms[0]) + len(terms[1]) > len(full[0]) + len(full[1]) else terms


def terms_value(num: dict, den: dict, eps: sympy.Expr, N: int) -> sympy.Expr:
    """``num(x)/den(x)`` at ``x = exp(-eps/N)``, from term dicts, without expanding.

    The common power of ``x`` and a single-term denominator are divided out, and a
    numerator that is ``c * x**k`` times the denominator gives ``c * exp(-k*eps/N)``; no
    other common factor is cancelled (a sparse gcd at degree 10**300 is out of reach), so
    the expression may be unsimplified but is exact.
    """

    def rat(c) -> sympy.Rational:
        p, q = (c.p, c.q) if isinstance(c, flint.fmpq) else (c.numerator, c.denominator)
        return sympy.Rational(int(p), int(q))

    num = {e: rat(c) for e, c in num.items() if c != 0}
    den = {e: rat(c) for e, c in den.items() if c != 0}
    if not num:
        return sympy.Integer(0)
    if len(num) == len(den):
        # num = c * x**k * den (checked term by term): the value is one exp
        pairs = list(zip(sorted(num.items()), sorted(den.items()), strict=True))
        (e0, c0), (f0, d0) = pairs[0]
        if all(e - f == e0 - f0 and c * d0 == d * c0 for (e, c), (f, d) in pairs):
            k = e0 - f0
            return (c0 / d0) * (sympy.exp(-eps * k / N) if k else sympy.Integer(1))
    low = min(list(num) + list(den))
    if len(den) == 1:
        (e0, c0), = den.items()
        num = {e - e0: c / c0 for e, c in num.items()}
        den = {0: sympy.Integer(1)}
    else:
        num = {e - low: c for e, c in num.items()}
        den = {e - low: c for e, c in den.items()}

    def value(t: dict) -> sympy.Expr:
        return sympy.Add(*[c * sympy.exp(-eps * e / N) if e else c for e, c in sorted(t.items())])

    return value(num) / value(den)
