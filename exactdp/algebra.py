"""Exact algebra shared by the privacy certificates: signs of polynomials on ``(0, 1)``.

With rational scores every output probability of PF, EM and RNM with exponential or Gumbel
noise is a rational function of ``x = exp(-epsilon/(c*Delta*L))`` (MATH.md section 2), and
``x`` runs over ``(0, 1)`` as epsilon runs over ``(0, oo)``. So "for every epsilon > 0" is
"for every x in (0, 1)", and each privacy condition becomes the sign of one polynomial with
rational coefficients on the open unit interval. This module decides such signs exactly:

- :func:`descartes_bound` counts sign variations after the Moebius map ``x = 1/(1+t)``
  (Vincent / Descartes): zero variations prove there is no root in ``(0, 1)``;
- :func:`sign_on_unit_interval` isolates the roots in ``(0, 1)`` with sympy
  (``Poly.intervals``, exact rational isolating intervals) and propagates the sign from
  ``0+`` across the roots by the parity of their multiplicities;
- :func:`verify_sign_analysis` re-checks a result by another route (Sturm counting with
  ``Poly.count_roots`` and exact evaluation at rational sample points between the roots);
- :func:`sign_at` decides the sign of a polynomial at a number given by a ball function
  (python-flint ``arb``), raising the precision until the ball excludes zero;
- :func:`to_arb` evaluates a closed-form sympy number rigorously in ball arithmetic;
- :func:`xform_from_probabilities` rewrites exact probabilities that are rational in
  ``exp(epsilon * alpha)``, alpha rational, as rational functions of one ``y``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import flint
import sympy

from .numbers import safe_sympify

__all__ = [
    "UnitIntervalSign",
    "as_fmpq_poly",
    "descartes_bound",
    "fmpq_poly_to_sympy",
    "is_nonnegative_on_unit_interval",
    "sign_at",
    "sign_on_unit_interval",
    "to_arb",
    "verify_sign_analysis",
    "xform_from_probabilities",
]

Y = sympy.Symbol("y", positive=True)


# ---------------------------------------------------------------------------- conversions
def as_fmpq_poly(expr: sympy.Expr | sympy.Poly, x: sympy.Symbol) -> flint.fmpq_poly:
    """A sympy polynomial in ``x`` with rational coefficients as a flint ``fmpq_poly``.

    Raises
    ------
    ValueError
        If ``expr`` is not a polynomial in ``x`` with rational coefficients.
    """
    try:
        poly = expr if isinstance(expr, sympy.Poly) else sympy.Poly(expr, x, domain="QQ")
    except (sympy.PolynomialError, sympy.polys.polyerrors.CoercionFailed) as exc:
        raise ValueError(
            f"as_fmpq_poly: {expr} is not a polynomial in {x} with rational coefficients"
        ) from exc
    coeffs = poly.all_coeffs()[::-1]
    return flint.fmpq_poly([flint.fmpq(int(c.p), int(c.q)) for c in map(sympy.Rational, coeffs)])


def fmpq_poly_to_sympy(poly: flint.fmpq_poly, x: sympy.Symbol = Y) -> sympy.Poly:
    """A flint ``fmpq_poly`` as a sympy ``Poly`` in ``x`` over QQ."""
    coeffs = [sympy.Rational(int(c.p), int(c.q)) for c in poly.coeffs()]
    if not coeffs:
        coeffs = [sympy.Integer(0)]
    return sympy.Poly(coeffs[::-1], x, domain="QQ")


def _sgn(v) -> int:
    return int(bool(v > 0)) - int(bool(v < 0))


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
    signs = [_sgn(c) for c in shifted.coeffs() if c != 0]
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
    method : str
        ``"zero"`` (identically zero), ``"descartes"`` (no root by Descartes' rule) or
        ``"isolation"`` (sympy real-root isolation).
    """

    poly: sympy.Poly
    roots: tuple
    signs: tuple
    method: str

    @property
    def is_zero(self) -> bool:
        """True for the zero polynomial."""
        return self.method == "zero"

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
        """Maximal open sub-intervals ``(lo, hi)`` of ``(0, 1)`` where the polynomial is < 0."""
        if not any(s < 0 for s in self.signs):
            return ()
        points = (sympy.Integer(0),) + self.exact_roots() + (sympy.Integer(1),)
        out: list[list[sympy.Expr]] = []
        for i, s in enumerate(self.signs):
            if s >= 0:
                continue
            if out and out[-1][1] == points[i] and self.signs[i - 1] < 0:
                out[-1][1] = points[i + 1]  # an even root inside a negative region
            else:
                out.append([points[i], points[i + 1]])
        return tuple((lo, hi) for lo, hi in out)


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
            return _sgn(c)
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
        s = _sgn(spoly.eval(sympy.Rational(1, 2)))
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
    if analysis.method == "zero":
        return p.is_zero
    if p.is_zero:
        return False
    endpoint_roots = int(p.eval(0) == 0) + int(p.eval(1) == 0)
    sqf = sympy.Poly(sympy.quo(p, sympy.gcd(p, p.diff())), p.gen, domain="QQ")
    if analysis.method == "isolation" or sqf.degree() <= 24:
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
        if _sgn(p.eval((lo + hi) / 2)) != sign:
            return False
    return True


def _bisect(p: sympy.Poly, a, b):
    mid = (a + b) / 2
    if p.eval(mid) == 0:
        return mid, mid
    if _open_count(p, a, mid) == 1:
        return a, mid
    return mid, b


# ---------------------------------------------------------------------------- ball arithmetic
def to_arb(expr: sympy.Expr, prec: int = 128) -> flint.arb:
    """Rigorous ball enclosure of a closed-form real sympy number.

    Supports integers, rationals, ``E``, ``pi``, sums, products, powers (integer and
    rational exponents, positive bases), ``exp``, ``log``, ``erf``, ``erfc`` and ``Abs``.

    Parameters
    ----------
    expr : sympy.Expr
        A real number without free symbols.
    prec : int
        Working precision in bits.

    Raises
    ------
    ValueError
        For free symbols, floats or unsupported functions.
    """
    old = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        return _arb(safe_sympify(expr))
    finally:
        flint.ctx.prec = old


def _arb(e: sympy.Expr) -> flint.arb:
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
            out += _arb(a)
        return out
    if e.is_Mul:
        out = flint.arb(1)
        for a in e.args:
            out *= _arb(a)
        return out
    if e.is_Pow:
        base, expo = e.args
        if expo.is_Integer:
            b = _arb(base)
            k = int(expo)
            return b**k if k >= 0 else 1 / b ** (-k)
        if base is sympy.E:
            return _arb(expo).exp()
        return (_arb(expo) * _arb(base).log()).exp()
    if isinstance(e, sympy.exp):
        return _arb(e.args[0]).exp()
    if isinstance(e, sympy.log):
        return _arb(e.args[0]).log()
    if isinstance(e, sympy.erf):
        return _arb(e.args[0]).erf()
    if isinstance(e, sympy.erfc):
        return _arb(e.args[0]).erfc()
    if isinstance(e, sympy.Abs):
        return abs(_arb(e.args[0]))
    if e.free_symbols:
        raise ValueError(f"to_arb: {e} has free symbols {sorted(map(str, e.free_symbols))}")
    if e.is_Float:
        raise ValueError(f"to_arb: refusing the float {e} in an exact computation")
    raise ValueError(f"to_arb: unsupported expression {e} ({type(e).__name__})")


def sign_at(poly: flint.fmpq_poly, point: Callable[[int], flint.arb], max_prec: int = 1 << 15,
            exact_point: sympy.Expr | None = None) -> int:
    """Sign of ``poly(point)`` for a real number given by ball enclosures.

    Parameters
    ----------
    poly : flint.fmpq_poly
        The polynomial.
    point : callable
        ``point(prec)`` returns an ``arb`` ball containing the number at ``prec`` bits.
    max_prec : int
        Give up (see Raises) beyond this precision.
    exact_point : sympy.Expr, optional
        The number itself; used for an exact zero test when the ball keeps containing 0
        (needed only when the number may be algebraic).

    Returns
    -------
    int
        -1, 0 or +1. The zero polynomial gives 0; a non-zero polynomial at a transcendental
        number (``exp(r)`` with algebraic ``r != 0``, Lindemann-Weierstrass) is never 0, so
        raising the precision always terminates.

    Raises
    ------
    ArithmeticError
        If the sign is not decided by ``max_prec`` bits and no exact test applies.
    """
    if poly == 0:
        return 0
    prec = 96
    while prec <= max_prec:
        old = flint.ctx.prec
        flint.ctx.prec = prec
        try:
            x = point(prec)
            val = flint.arb_poly(list(poly.coeffs()))(x)
        finally:
            flint.ctx.prec = old
        if val > 0:
            return 1
        if val < 0:
            return -1
        if exact_point is not None and prec >= 384:
            value = fmpq_poly_to_sympy(poly, Y).as_expr().subs(Y, exact_point)
            if sympy.simplify(value) == 0:
                return 0
        prec *= 2
    raise ArithmeticError(f"sign_at: sign of {poly} not decided at {max_prec} bits")


# ---------------------------------------------------------------------------- x-form
def xform_from_probabilities(
    probabilities: Sequence[sympy.Expr], epsilon: sympy.Expr
) -> tuple[sympy.Symbol, tuple[sympy.Expr, ...], sympy.Rational]:
    """Rewrite exact probabilities as rational functions of ``y = exp(-epsilon/N)``.

    Every ``exp(a)`` in the probabilities must have ``a/epsilon`` rational; ``N`` is the
    least common denominator of these ratios, so ``exp(a) = y**(-N*a/epsilon)``. After the
    substitution no ``epsilon`` (symbolic) or transcendental number (numeric) may remain.

    Parameters
    ----------
    probabilities : sequence of sympy.Expr, shape (n,)
    epsilon : sympy.Expr
        The mechanism's epsilon (a positive number or Symbol).

    Returns
    -------
    (y, forms, kappa)
        ``y`` the positive Symbol ``y``, ``forms[r]`` rational functions of ``y`` with
        rational coefficients, ``kappa = 1/N`` so that ``y = exp(-epsilon*kappa)``.

    Raises
    ------
    ValueError
        If the probabilities are not of this form (RNM-Laplace contains ``epsilon*exp(..)``).
    """
    probs = [safe_sympify(p) for p in probabilities]
    atoms = set()
    for p in probs:
        atoms |= p.atoms(sympy.exp)
    ratios = {}
    if any(p.has(sympy.E) for p in probs):
        alpha = sympy.simplify(1 / epsilon)
        if not alpha.is_Rational:
            raise ValueError("xform_from_probabilities: E = exp(1) is not exp(epsilon*rational)")
        ratios[sympy.E] = alpha
    for a in atoms:
        alpha = sympy.nsimplify(sympy.simplify(a.args[0] / epsilon), rational=False)
        if not alpha.is_Rational:
            raise ValueError(
                f"xform_from_probabilities: exp({a.args[0]}) is not exp(epsilon * rational)"
            )
        ratios[a] = alpha
    N = 1
    for alpha in ratios.values():
        N = math.lcm(N, int(alpha.q))
    subs = {a: Y ** int(-N * alpha) for a, alpha in ratios.items()}
    forms = [_rational_in_y(p, p.xreplace(subs), N) for p in probs]
    return Y, tuple(forms), sympy.Rational(1, N)


def _rational_in_y(original: sympy.Expr, f: sympy.Expr, N: int) -> sympy.Expr:
    """``f`` checked to be a rational function of ``Y`` with rational coefficients."""
    try:  # fast path: a polynomial (RNM-Laplace at a numeric epsilon, PF)
        sympy.Poly(f, Y, domain="QQ")
        return f
    except (sympy.PolynomialError, sympy.polys.polyerrors.CoercionFailed):
        pass
    num, den = sympy.fraction(f)
    try:  # a quotient of polynomials (EM)
        sympy.Poly(num, Y, domain="QQ")
        sympy.Poly(den, Y, domain="QQ")
        return f
    except (sympy.PolynomialError, sympy.polys.polyerrors.CoercionFailed):
        pass
    f = sympy.cancel(sympy.together(f))
    num, den = sympy.fraction(f)
    bad = (num.free_symbols | den.free_symbols) - {Y}
    if bad or not num.is_polynomial(Y) or not den.is_polynomial(Y):
        raise ValueError(
            f"xform_from_probabilities: {original} is not rational in exp(epsilon/{N})"
        )
    for part in (num, den):
        try:
            sympy.Poly(part, Y, domain="QQ")
        except (sympy.PolynomialError, sympy.polys.polyerrors.CoercionFailed) as exc:
            raise ValueError(
                f"xform_from_probabilities: {original} has non-rational coefficients in y"
            ) from exc
    return f
