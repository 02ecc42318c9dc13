"""Exact signs of polynomials with rational coefficients on the open unit interval ``(0, 1)``.

``x = exp(-epsilon/N)`` runs over ``(0, 1)`` as epsilon runs over ``(0, oo)``, so "for every
epsilon > 0" is "for every x in (0, 1)" and each privacy condition becomes the sign of one
polynomial on ``(0, 1)`` (docs/formulas.md section 2). This module decides such signs exactly:

- :func:`descartes_bound` counts sign variations after the Moebius map ``x = 1/(1+t)``
  (Vincent / Descartes): zero variations prove there is no root in ``(0, 1)``;
- :func:`sign_on_unit_interval` isolates the roots in ``(0, 1)`` with sympy
  (``Poly.intervals``, exact rational isolating intervals) and propagates the sign from
  ``0+`` across the roots by the parity of their multiplicities;
- :func:`verify_sign_analysis` re-checks a result by another route (Sturm counting with
  ``Poly.count_roots`` and exact evaluation at rational sample points between the roots).
"""

from __future__ import annotations

from dataclasses import dataclass

import flint
import sympy

from .poly import Y, as_fmpq_poly, fmpq_poly_to_sympy, sgn


# ---------------------------------------------------------------------------- Descartes
def descartes_bound(poly: flint.fmpq_poly) -> int:
    """Upper bound on the number of roots in ``(0, 1)`` (with multiplicity), of the same parity.

    Sign variations of the coefficients of ``(1+t)^d p(1/(1+t))``; the map ``x = 1/(1+t)``
    sends ``t in (0, oo)`` onto ``x in (0, 1)``.

    Parameters
    ----------
    poly : flint.fmpq_poly
        A non-zero polynomial.

    Returns
    -------
    int
        Number of sign variations; 0 proves there is no root in ``(0, 1)``.

    References
    ----------
    G. E. Collins and A. G. Akritas, "Polynomial real root isolation using Descartes' rule
    of signs", SYMSAC 1976 (the Vincent-Collins-Akritas transformation).
    """
    coeffs = poly.coeffs()
    if not coeffs:
        raise ValueError("descartes_bound: the zero polynomial has roots everywhere")
    rev = flint.fmpq_poly(coeffs[::-1])
    shifted = rev(flint.fmpq_poly([1, 1]))
    signs = [sgn(c) for c in shifted.coeffs() if c != 0]
    return sum(1 for a, b in zip(signs, signs[1:], strict=False) if a != b)


# ---------------------------------------------------------------------------- sign analysis
@dataclass(frozen=True)
class UnitIntervalSign:
    """The sign pattern of a polynomial on the open interval ``(0, 1)``.

    Attributes
    ----------
    poly : sympy.Poly
        The polynomial (over QQ).
    roots : tuple of ((Rational, Rational), int)
        Isolating intervals ``[a, b]`` (``a == b`` for a rational root) and multiplicities
        of the distinct roots in ``(0, 1)``, left to right.
    signs : tuple of int
        Sign (-1, 0 or +1) on each of the ``len(roots) + 1`` open pieces between 0, the
        roots and 1. All 0 for the zero polynomial.
    algorithm : str
        Which route decided it: ``"zero"`` (identically zero), ``"descartes"`` (no root by
        Descartes' rule) or ``"isolation"`` (sympy real-root isolation).
    """

    poly: sympy.Poly
    roots: tuple
    signs: tuple
    algorithm: str

    @property
    def is_zero(self) -> bool:
        """True for the zero polynomial."""
        return self.algorithm == "zero"

    @property
    def nonnegative(self) -> bool:
        """True iff the polynomial is >= 0 on all of ``(0, 1)``."""
        return all(s >= 0 for s in self.signs)

    @property
    def positive(self) -> bool:
        """True iff the polynomial is > 0 on all of ``(0, 1)``."""
        return not self.roots and all(s > 0 for s in self.signs)

    @property
    def constant_sign(self) -> int | None:
        """The sign if it is the same on all of ``(0, 1)`` apart from isolated roots."""
        nonzero = {s for s in self.signs}
        return nonzero.pop() if len(nonzero) == 1 else None

    def exact_roots(self) -> tuple[sympy.Expr, ...]:
        """The roots in ``(0, 1)`` as exact sympy numbers (Rational or ``CRootOf``)."""
        return tuple(_exact_root(self.poly, a, b) for (a, b), _ in self.roots)

    def negative_intervals(self) -> tuple[tuple[sympy.Expr, sympy.Expr], ...]:
        """Maximal open sub-intervals ``(lo, hi)`` of ``(0, 1)`` where the polynomial is < 0.

        A root is never inside one: the polynomial is 0 there, so a root of even
        multiplicity between two negative pieces (a tangency) separates two intervals and
        belongs to the set where the polynomial is >= 0.
        """
        if not any(s < 0 for s in self.signs):
            return ()
        points = (sympy.Integer(0),) + self.exact_roots() + (sympy.Integer(1),)
        return tuple(
            (points[i], points[i + 1]) for i, s in enumerate(self.signs) if s < 0
        )


def _exact_root(poly: sympy.Poly, a: sympy.Rational, b: sympy.Rational) -> sympy.Expr:
    """The root isolated by ``[a, b]`` (a non-degenerate interval holds it in its interior)."""
    if a == b:
        return sympy.Rational(a)
    for factor, _ in poly.factor_list()[1]:
        if factor.degree() == 1:
            root = sympy.Rational(-factor.nth(0) / factor.nth(1))
            if a < root < b:
                return root
        elif _open_count(factor, a, b) > 0:
            for root in factor.real_roots():
                if a < root < b:
                    return root
    raise ArithmeticError(f"no root of {poly} found in ({a}, {b})")  # pragma: no cover


def _open_count(p: sympy.Poly, a, b) -> int:
    """Distinct roots of ``p`` in the open interval ``(a, b)`` (Sturm)."""
    return p.count_roots(a, b) - int(p.eval(a) == 0) - int(p.eval(b) == 0)


def _strip_unit_endpoints(poly: sympy.Poly) -> sympy.Poly:
    x = poly.gen
    while not poly.is_zero and poly.eval(0) == 0:
        poly = sympy.Poly(sympy.cancel(poly.as_expr() / x), x, domain="QQ")
    one = sympy.Poly(x - 1, x, domain="QQ")
    while not poly.is_zero and poly.eval(1) == 0:
        poly = poly.exquo(one)
    return poly


def _sign_near_zero(poly: sympy.Poly) -> int:
    coeffs = poly.all_coeffs()[::-1]
    for c in coeffs:
        if c != 0:
            return sgn(c)
    return 0


def sign_on_unit_interval(
    poly: sympy.Poly | flint.fmpq_poly | sympy.Expr, x: sympy.Symbol = Y
) -> UnitIntervalSign:
    """Exact sign pattern of a polynomial with rational coefficients on ``(0, 1)``.

    Parameters
    ----------
    poly : sympy.Poly, sympy expression in ``x`` or flint.fmpq_poly
        The polynomial.
    x : sympy.Symbol
        Its variable (for expressions and for the returned ``Poly``).

    Returns
    -------
    UnitIntervalSign

    Notes
    -----
    Roots at 0 and 1 are divided out first (they lie outside the open interval). If
    Descartes' rule after ``x = 1/(1+t)`` shows no sign variation, there is no root in
    ``(0, 1)`` and the sign is that of ``p(1/2)``. Otherwise sympy isolates the distinct
    roots in ``[0, 1]`` with exact rational intervals and multiplicities
    (``Poly.intervals``); the sign just right of 0 is the sign of the lowest non-zero
    coefficient, and it flips across each root of odd multiplicity.

    References
    ----------
    Collins & Akritas (1976); sympy ``Poly.intervals`` (Vincent-Akritas-Strzebonski
    continued-fraction isolation).
    """
    if isinstance(poly, flint.fmpq_poly):
        fpoly = poly
        spoly = fmpq_poly_to_sympy(poly, x)
    else:
        spoly = poly if isinstance(poly, sympy.Poly) else sympy.Poly(poly, x, domain="QQ")
        if spoly.domain != sympy.QQ:
            spoly = spoly.set_domain(sympy.QQ)
        fpoly = None
    if spoly.is_zero:
        return UnitIntervalSign(spoly, (), (0,), "zero")
    if fpoly is None:
        fpoly = as_fmpq_poly(spoly, spoly.gen)
    if descartes_bound(fpoly) == 0:
        s = sgn(spoly.eval(sympy.Rational(1, 2)))
        return UnitIntervalSign(spoly, (), (s,), "descartes")
    core = _strip_unit_endpoints(spoly)
    ivs = [
        ((sympy.Rational(a), sympy.Rational(b)), m)
        for (a, b), m in core.intervals(inf=0, sup=1)
    ]
    sign = _sign_near_zero(spoly)
    signs = [sign]
    for _, m in ivs:
        if m % 2:
            sign = -sign
        signs.append(sign)
    return UnitIntervalSign(spoly, tuple(ivs), tuple(signs), "isolation")


def unit_sign(poly: flint.fmpq_poly) -> int | None:
    """:attr:`UnitIntervalSign.constant_sign` of a flint polynomial, without its sympy form
    when Descartes' rule proves no root in ``(0, 1)``: then the sign of ``p(1/2)``, in flint
    (the conversion of a degree-20,000 polynomial to sympy took 0.25 s, more than the rule).

    Examples
    --------
    >>> unit_sign(flint.fmpq_poly([1, -3])), unit_sign(flint.fmpq_poly([-1, 0, 1]))
    (None, -1)
    """
    if poly == 0:
        return 0
    if descartes_bound(poly) == 0:
        return sgn(poly(flint.fmpq(1, 2)))
    return sign_on_unit_interval(poly).constant_sign


def has_unit_root(poly: flint.fmpq_poly) -> bool:
    """Whether a flint polynomial has a root in ``(0, 1)`` (False for the zero polynomial,
    as :attr:`UnitIntervalSign.roots`); without its sympy form when Descartes' rule proves
    none.

    Examples
    --------
    >>> has_unit_root(flint.fmpq_poly([1, -3])), has_unit_root(flint.fmpq_poly([1, 1]))
    (True, False)
    """
    if poly == 0 or descartes_bound(poly) == 0:
        return False
    return bool(sign_on_unit_interval(poly).roots)


def is_nonnegative_on_unit_interval(poly, x: sympy.Symbol = Y) -> bool:
    """True iff the polynomial is >= 0 at every point of ``(0, 1)`` (exact)."""
    return sign_on_unit_interval(poly, x).nonnegative


def verify_sign_analysis(analysis: UnitIntervalSign) -> bool:
    """Re-verify a :class:`UnitIntervalSign` by an independent route.

    Counts the distinct roots in the open interval with Sturm sequences
    (``Poly.count_roots``, which counts the closed interval, corrected for the endpoints),
    checks that every claimed isolating interval holds exactly one root, and evaluates the
    polynomial exactly at a rational point of every piece between the roots.

    Returns
    -------
    bool
        True iff the stored roots and signs are confirmed.
    """
    p = analysis.poly
    if analysis.algorithm == "zero":
        return p.is_zero
    if p.is_zero:
        return False
    endpoint_roots = int(p.eval(0) == 0) + int(p.eval(1) == 0)
    sqf = sympy.Poly(sympy.quo(p, sympy.gcd(p, p.diff())), p.gen, domain="QQ")
    if analysis.algorithm == "isolation" or sqf.degree() <= 24:
        inner = sqf.count_roots(0, 1) - endpoint_roots  # Sturm sequences
    else:
        # Descartes-route claims of high degree: count with sympy's continued-fraction
        # isolation instead (Sturm sequences over QQ blow up in coefficient size there)
        inner = len(_strip_unit_endpoints(sqf).intervals(inf=0, sup=1))
    if inner != len(analysis.roots):
        return False
    bounds = []
    for (a, b), _ in analysis.roots:
        if a == b:
            if p.eval(a) != 0:
                return False
        elif _open_count(sqf, a, b) != 1:
            return False
        bounds.append([a, b])
    # refine until the intervals are strictly separated and off the endpoints 0 and 1
    for _ in range(200):
        clash = False
        for i, (a, b) in enumerate(bounds):
            lo = bounds[i - 1][1] if i else sympy.Integer(0)
            hi = bounds[i + 1][0] if i + 1 < len(bounds) else sympy.Integer(1)
            if a != b and (a <= lo or b >= hi):
                bounds[i] = list(_bisect(sqf, a, b))
                clash = True
        if not clash:
            break
    edges = [sympy.Integer(0)] + [v for ab in bounds for v in ab] + [sympy.Integer(1)]
    for i, sign in enumerate(analysis.signs):
        lo, hi = edges[2 * i], edges[2 * i + 1]
        if not lo < hi:
            return False
        if sgn(p.eval((lo + hi) / 2)) != sign:
            return False
    return True


def _bisect(p: sympy.Poly, a, b):
    mid = (a + b) / 2
    if p.eval(mid) == 0:
        return mid, mid
    if _open_count(p, a, mid) == 1:
        return a, mid
    return mid, b
