"""Exact polynomials in the generator ``y``: flint/sympy conversions, signs at a ball, x-forms.

With rational scores every output probability of PF, EM and RNM with exponential or Gumbel
noise is a rational function of ``x = exp(-epsilon/(c*Delta*L))`` (docs/formulas.md section 2). This
module holds the conversions between sympy and python-flint ``fmpq_poly``, the sign of a
polynomial at a number given by a ball function (:func:`sign_at`), the rigorous ball of a
closed-form sympy number (:func:`to_arb`), and :func:`xform_from_probabilities`, which rewrites
exact probabilities that are rational in ``exp(epsilon * alpha)`` (alpha rational) as rational
functions of one ``y``. Signs on the whole of ``(0, 1)`` are in :mod:`exactdp.exact.unit_interval`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import flint
import sympy

from ..numbers import safe_sympify
from .arb import flint_prec
from .signs import MAX_PREC, UndecidedSignError, exact_zero, proved_rational

#: The default variable of the polynomial helpers (a plain polynomial variable on (0, 1)).
Y = sympy.Symbol("y", positive=True)
#: The generator ``x = exp(-epsilon/N)`` of the x-forms :func:`xform_from_probabilities` builds
#: (the same symbol as :data:`exactdp.mechanisms.base.X`).
X = sympy.Symbol("x", positive=True)


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


def sgn(v) -> int:
    """The sign of ``v``: 1, 0 or -1."""
    return int(bool(v > 0)) - int(bool(v < 0))


# ---------------------------------------------------------------------------- signs at a ball
def sign_at(poly: flint.fmpq_poly, point: Callable[[int], flint.arb], max_prec: int | None = None,
            exact_point: sympy.Expr | None = None) -> int:
    """Sign of ``poly(point)`` for a real number given by ball enclosures.

    Parameters
    ----------
    poly : flint.fmpq_poly
        The polynomial.
    point : callable
        ``point(prec)`` returns an ``arb`` ball containing the number at ``prec`` bits.
    max_prec : int, optional
        Give up (see Raises) beyond this precision. Default: chosen from the size of the
        problem, ``max(2**15, 2 * deg * |log2 point| + 256)`` bits (capped at
        :data:`exactdp.exact.signs.MAX_PREC`): a cancellation in ``poly(point)`` can hide the
        value below the smallest term ``point**deg``.
    exact_point : sympy.Expr, optional
        The number itself; used for an exact zero test (:func:`exactdp.exact.signs.exact_zero`:
        minimal polynomials for algebraic numbers) when the ball keeps containing 0 (needed
        only when the number may be algebraic).

    Returns
    -------
    int
        -1, 0 or +1. The zero polynomial gives 0; a non-zero polynomial at a transcendental
        number (``exp(r)`` with algebraic ``r != 0``, Lindemann-Weierstrass) is never 0, so
        raising the precision always terminates.

    Raises
    ------
    UndecidedSignError
        If the sign is not decided by ``max_prec`` bits and no exact test applies.
    """
    if poly == 0:
        return 0
    numer = poly.numer()  # poly = numer / denom with denom > 0: the same sign, exact coefficients
    if max_prec is None:
        with flint_prec(64):
            x0 = point(64)
        lo = abs(x0).lower()
        bits = 0
        if 0 < lo < 1:  # |log2 x| from the ball's lower end (a safe over-estimate)
            top = (-lo.log() / flint.arb(2).log()).upper().ceil().unique_fmpz()
            bits = int(top) if top is not None else MAX_PREC  # an exact point: unique
        max_prec = min(MAX_PREC, max(1 << 15, 2 * poly.degree() * bits + 256))
    prec = 96
    tested = False
    while prec <= max_prec:
        with flint_prec(prec):
            val = flint.arb_poly(numer)(point(prec))
        if val > 0:
            return 1
        if val < 0:
            return -1
        if exact_point is not None and not tested and prec >= 384:
            tested = True
            value = fmpq_poly_to_sympy(poly, Y).as_expr().subs(Y, exact_point)
            if exact_zero(value) is True:
                return 0
        prec *= 2
    raise UndecidedSignError(
        f"sign_at: sign of a degree-{poly.degree()} polynomial at the point not decided at "
        f"{max_prec} bits",
        poly,
    )


# ---------------------------------------------------------------------------- x-form
def _exact_ratio(a: sympy.Expr, epsilon: sympy.Expr) -> sympy.Expr:
    """``a / epsilon`` rewritten by exact algebra only (``cancel``, then a proved rational:
    :func:`exactdp.exact.signs.proved_rational`).

    The ratio counts as rational only if exact rewriting produces a sympy Rational; a number
    such as ``1 + sqrt(2)*10**-20`` stays irrational (never identified numerically).
    """
    r = sympy.cancel(sympy.together(a / epsilon))
    if not r.is_Rational:
        r2 = proved_rational(r)
        if r2 is not None:
            r = r2
    return r


def xform_from_probabilities(
    probabilities: Sequence[sympy.Expr], epsilon: sympy.Expr
) -> tuple[sympy.Symbol, tuple[sympy.Expr, ...], sympy.Rational]:
    """Rewrite exact probabilities as rational functions of ``x = exp(-epsilon/N)``.

    Every ``exp(a)`` in the probabilities must have ``a/epsilon`` rational; ``N`` is the
    least common denominator of these ratios, so ``exp(a) = x**(-N*a/epsilon)``. After the
    substitution no ``epsilon`` (symbolic) or transcendental number (numeric) may remain.

    Parameters
    ----------
    probabilities : sequence of sympy.Expr, shape (n,)
    epsilon : sympy.Expr
        The mechanism's epsilon (a positive number or Symbol).

    Returns
    -------
    (x, forms, kappa)
        ``x`` the positive Symbol ``x``, ``forms[r]`` rational functions of ``x`` with
        rational coefficients, ``kappa = 1/N`` so that ``x = exp(-epsilon/N)``.

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
        alpha = proved_rational(1 / epsilon)
        if alpha is None:
            raise ValueError("xform_from_probabilities: E = exp(1) is not exp(epsilon*rational)")
        ratios[sympy.E] = alpha
    for a in atoms:
        alpha = _exact_ratio(a.args[0], epsilon)
        if not alpha.is_Rational:
            raise ValueError(
                f"xform_from_probabilities: exp({a.args[0]}) is not exp(epsilon * rational)"
            )
        ratios[a] = alpha
    N = 1
    for alpha in ratios.values():
        N = math.lcm(N, int(alpha.q))
    degree = max((abs(int(N * alpha)) for alpha in ratios.values()), default=0)
    if degree > MAX_X_DEGREE:  # scores with large denominators (floats): no dense form
        raise ValueError(f"xform_from_probabilities: the forms in x = exp(-epsilon/{N}) "
                         f"have degree about {degree}, above {MAX_X_DEGREE}")
    subs = {a: X ** int(-N * alpha) for a, alpha in ratios.items()}
    forms = [_rational_in_x(p, p.xreplace(subs), N) for p in probs]
    return X, tuple(forms), sympy.Rational(1, N)


#: The largest degree in ``x`` :func:`xform_from_probabilities` builds (as the dense
#: flint forms' limit, :data:`exactdp.xform.DENSE_DEGREE_LIMIT`): past it the callers take
#: the ball or density routes.
MAX_X_DEGREE = 200_000


def _rational_in_x(original: sympy.Expr, f: sympy.Expr, N: int) -> sympy.Expr:
    """``f`` checked to be a rational function of ``X`` with rational coefficients."""
    try:  # fast path: a polynomial (RNM-Laplace at a numeric epsilon, PF)
        sympy.Poly(f, X, domain="QQ")
        return f
    except (sympy.PolynomialError, sympy.polys.polyerrors.CoercionFailed):
        pass
    num, den = sympy.fraction(f)
    try:  # a quotient of polynomials (EM)
        sympy.Poly(num, X, domain="QQ")
        sympy.Poly(den, X, domain="QQ")
        return f
    except (sympy.PolynomialError, sympy.polys.polyerrors.CoercionFailed):
        pass
    f = sympy.cancel(sympy.together(f))
    num, den = sympy.fraction(f)
    bad = (num.free_symbols | den.free_symbols) - {X}
    if bad or not num.is_polynomial(X) or not den.is_polynomial(X):
        raise ValueError(
            f"xform_from_probabilities: {original} is not rational in exp(epsilon/{N})"
        )
    for part in (num, den):
        try:
            sympy.Poly(part, X, domain="QQ")
        except (sympy.PolynomialError, sympy.polys.polyerrors.CoercionFailed) as exc:
            raise ValueError(
                f"xform_from_probabilities: {original} has non-rational coefficients in x"
            ) from exc
    return f
