"""Exponential polynomials ``f(t) = sum_k p_k(t) exp(w_k t)``: exact values and signs at points.

No differential-privacy concepts live here. ``p_k`` are polynomials with rational
coefficients and ``w_k`` distinct rationals (terms of equal ``w`` are merged, so ``f`` is
identically zero exactly when no term is left: exponentials of distinct rates and powers
of ``t`` are linearly independent functions). Such an ``f`` has at most ``N(f) - 1`` real
zeros counted with multiplicity, ``N(f) = sum_k (deg p_k + 1)`` (Polya and Szego,
*Problems and Theorems in Analysis II*, Part V, problem 75); its zeros on ``(0, oo)`` are
isolated by :func:`exactdp.exact.exp_poly_sign.sign_on_positive_reals`.

Signs here are exact or certified, never a float guess:

- at a rational point ``t != 0``, ``f(t) = 0`` iff every ``p_k(t) = 0`` (Lindemann and
  Weierstrass: ``exp(w_k t)`` for distinct rationals ``w_k t`` are linearly independent
  over the algebraic numbers), decided in exact arithmetic; otherwise the sign comes from
  an arb ball at rising precision (:mod:`exactdp.exact.arb`);
- near ``0+``: the sign of the first non-zero Taylor coefficient at 0, computed exactly
  (``[t^n] p(t) exp(w t) = sum_j p_j w^(n-j) / (n-j)!``); one of the first ``N(f)`` is
  non-zero, since a zero at 0 has multiplicity at most ``N(f) - 1``;
- near ``oo``: the sign of the leading coefficient of ``p_k`` for the largest ``w_k``.

The kernels below work on :data:`Terms` (flint ``fmpq`` rates and ``fmpq_poly``
polynomials), the computing form of an :class:`ExpPoly`.

References
----------
G. Polya and G. Szego, *Problems and Theorems in Analysis II*, Springer 1976, Part V,
problem 75. F. Lindemann (1882), K. Weierstrass (1885) (A. Baker, *Transcendental Number
Theory*, 1975, Theorem 1.4). F. Johansson, "Arb: efficient arbitrary-precision
midpoint-radius interval arithmetic", IEEE Trans. Computers 66(8), 2017.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from math import factorial

import flint
import sympy

from .._validate import argument_error
from .arb import flint_prec
from .signs import UndecidedSignError

#: Lowest and highest working precision (bits) of a certified sign at a rational point.
FIRST_PREC = 64
MAX_PREC = 1 << 15

#: The computing form: ``(rate w, polynomial p)`` pairs, sorted by ``w``.
Terms = tuple[tuple[flint.fmpq, flint.fmpq_poly], ...]


def fmpq_of(v: Fraction | int) -> flint.fmpq:
    """A rational as a flint ``fmpq``, exactly.

    Parameters
    ----------
    v : Fraction or int

    Returns
    -------
    flint.fmpq
    """
    v = Fraction(v)
    return flint.fmpq(v.numerator, v.denominator)


def fraction_of(v: flint.fmpq) -> Fraction:
    """A flint ``fmpq`` as a ``Fraction``, exactly.

    Parameters
    ----------
    v : flint.fmpq

    Returns
    -------
    Fraction
    """
    return Fraction(int(v.p), int(v.q))


def sign_of(v: flint.fmpq) -> int:
    """The sign of a rational: -1, 0 or 1.

    Parameters
    ----------
    v : flint.fmpq

    Returns
    -------
    int
    """
    return (v > 0) - (v < 0)


# ============================================================================== the value
@dataclass(frozen=True)
class ExpPoly:
    """``f(t) = sum_k p_k(t) exp(w_k t)``, ``p_k`` in ``Q[t]``, ``w_k`` distinct rationals.

    Build it with :meth:`from_terms` (``{(e, W): q}`` meaning ``sum q lam**e exp(lam W)``
    with ``lam = scale * t``) or :meth:`from_sympy`; the constructor takes the canonical
    form directly.

    Attributes
    ----------
    terms : tuple of (Fraction, tuple of Fraction)
        ``(w_k, (c_0, c_1, ..., c_d))`` with ``p_k = sum_j c_j t^j``, sorted by ``w_k``,
        distinct ``w_k``, no zero polynomial, no trailing zero coefficient. The empty tuple
        is the zero function.

    Examples
    --------
    >>> from fractions import Fraction
    >>> f = ExpPoly.from_terms({(0, Fraction(0)): Fraction(1), (1, Fraction(-1)): Fraction(-1)})
    >>> f
    ExpPoly(-t*exp(-t) + 1)
    >>> f.zero_bound
    2
    """

    terms: tuple[tuple[Fraction, tuple[Fraction, ...]], ...]

    def __post_init__(self) -> None:
        ws = [w for w, _ in self.terms]
        if ws != sorted(set(ws)) or any(not c or c[-1] == 0 for _, c in self.terms):
            raise argument_error("ExpPoly", "terms", "sorted by distinct w, without zero "
                                 "polynomials or trailing zeros (use ExpPoly.from_terms)")

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_terms(cls, terms: Mapping[tuple[int, Fraction], Fraction],
                   scale: Fraction | int = 1) -> ExpPoly:
        """``sum q lam**e exp(lam W)`` over ``{(e, W): q}`` with ``lam = scale * t``.

        Parameters
        ----------
        terms : mapping (int e >= 0, rational W) -> rational q
            The representation of :mod:`exactdp.mechanisms.sparse_vector_integral`.
        scale : rational, > 0
            ``lam = scale * t`` (``lam = epsilon / sensitivity`` gives ``scale = 1 /
            sensitivity`` for ``t = epsilon``).

        Raises
        ------
        ValueError
            A negative or non-integer power, a float, or a non-positive scale.
        """
        s = _rational(scale, "scale")
        if s <= 0:
            raise argument_error("ExpPoly.from_terms", "scale", "> 0", scale)
        acc: dict[Fraction, dict[int, Fraction]] = {}
        for key, q in terms.items():
            e, W = key
            if isinstance(e, bool) or not isinstance(e, int) or e < 0:
                raise argument_error("ExpPoly.from_terms", "terms", "keys (e, W) with a "
                                     "power of lam e an integer >= 0", e)
            w = _rational(W, "W") * s
            c = _rational(q, "q") * s**e
            poly = acc.setdefault(w, {})
            poly[e] = poly.get(e, Fraction(0)) + c
        return cls._canonical(acc)

    @classmethod
    def from_sympy(cls, expr: object, symbol: sympy.Symbol) -> ExpPoly:
        """Parse ``sum q symbol**e exp(w symbol)`` (rationals ``q, w``) exactly.

        Raises
        ------
        ValueError
            One line naming the first sub-expression of another shape (a float, another
            symbol, an exponential with a constant or non-linear argument).
        """
        e = sympy.sympify(expr)
        if e.atoms(sympy.Float):
            raise ValueError(f"ExpPoly.from_sympy: refusing floats in {_short(e)}")
        try:
            return cls._canonical(_parse(e, symbol))
        except ValueError:  # a shape only its expansion has (sqrt(2) t + t (t - sqrt(2)))
            return cls._canonical(_parse(sympy.expand(e), symbol))

    @classmethod
    def _canonical(cls, acc: Mapping[Fraction, Mapping[int, Fraction]]) -> ExpPoly:
        out = []
        for w in sorted(acc):
            d = acc[w]
            top = max((k for k, v in d.items() if v != 0), default=-1)
            if top >= 0:
                out.append((w, tuple(d.get(k, Fraction(0)) for k in range(top + 1))))
        return cls(tuple(out))

    @classmethod
    def _from_flint(cls, terms: Terms) -> ExpPoly:
        return cls(tuple((fraction_of(w), tuple(fraction_of(c) for c in p.coeffs()))
                         for w, p in terms))

    # ------------------------------------------------------------------ views
    @cached_property
    def flint_terms(self) -> Terms:
        """The terms as ``(flint.fmpq w, flint.fmpq_poly p)`` (the computing form)."""
        return tuple((fmpq_of(w), flint.fmpq_poly([fmpq_of(c) for c in cs]))
                     for w, cs in self.terms)

    @property
    def is_zero(self) -> bool:
        """True iff ``f`` is identically 0 (exact: every coefficient cancelled)."""
        return not self.terms

    @property
    def zero_bound(self) -> int:
        """``N(f) - 1 = sum_k (deg p_k + 1) - 1``: at most this many real zeros, counted
        with multiplicity (Polya-Szego V.75); -1 for the zero function (every point)."""
        return sum(len(c) for _, c in self.terms) - 1

    def to_sympy(self, symbol: sympy.Symbol) -> sympy.Expr:
        """``f`` as a sympy expression in ``symbol``."""
        return sympy.Add(*[
            sympy.Rational(c.numerator, c.denominator) * symbol**j
            * sympy.exp(sympy.Rational(w.numerator, w.denominator) * symbol)
            for w, cs in self.terms for j, c in enumerate(cs) if c])

    def __repr__(self) -> str:
        t = sympy.Symbol("t")
        return f"ExpPoly({_short(self.to_sympy(t), 200)})"

    # ------------------------------------------------------------------ arithmetic
    def __add__(self, other: ExpPoly) -> ExpPoly:
        if not isinstance(other, ExpPoly):
            return NotImplemented
        return ExpPoly._from_flint(_add(self.flint_terms, other.flint_terms))

    def __neg__(self) -> ExpPoly:
        return ExpPoly(tuple((w, tuple(-c for c in cs)) for w, cs in self.terms))

    def __sub__(self, other: ExpPoly) -> ExpPoly:
        if not isinstance(other, ExpPoly):
            return NotImplemented
        return self + (-other)

    def times_exp(self, w: Fraction | int) -> ExpPoly:
        """``f(t) exp(w t)``."""
        s = _rational(w, "w")
        return ExpPoly(tuple((v + s, cs) for v, cs in self.terms))

    def derivative(self) -> ExpPoly:
        """``f'`` (``p_k' + w_k p_k`` on each term)."""
        return ExpPoly._from_flint(shifted_derivative(self.flint_terms, flint.fmpq(0)))

    # ------------------------------------------------------------------ signs
    def taylor(self, n: int) -> Fraction:
        """The exact Taylor coefficient ``[t^n] f`` at ``t = 0``."""
        return fraction_of(taylor_coefficient(self.flint_terms, n))

    def sign_near_zero(self) -> int:
        """The sign of ``f`` on ``(0, delta)`` for small ``delta`` (0 for the zero function)."""
        return sign_near_zero_of(self.flint_terms) if self.terms else 0

    def sign_at_infinity(self) -> int:
        """The sign of ``f(t)`` for all large ``t`` (0 for the zero function)."""
        return sign_at_infinity_of(self.flint_terms) if self.terms else 0

    def sign_at(self, t: Fraction | int) -> int:
        """The sign of ``f(t)`` at a rational ``t``: exact zero test, else a certified ball.

        Raises
        ------
        UndecidedSignError
            Only if no ball up to :data:`MAX_PREC` bits decides a non-zero value.
        """
        return sign_at_point(self.flint_terms, fmpq_of(_rational(t, "t")))

    def ball(self, t: Fraction | int, prec: int = 128) -> flint.arb:
        """A rigorous arb enclosure of ``f(t)`` at a rational ``t``."""
        with flint_prec(prec):
            return ball_of(self.flint_terms, flint.arb(fmpq_of(_rational(t, "t"))))


def _rational(v: object, name: str) -> Fraction:
    if isinstance(v, bool) or isinstance(v, float):
        raise argument_error("ExpPoly", name, "an exact rational", v)
    if isinstance(v, (int, Fraction)):
        return Fraction(v)
    if isinstance(v, flint.fmpq):
        return fraction_of(v)
    if isinstance(v, sympy.Rational):
        return Fraction(int(v.p), int(v.q))
    raise argument_error("ExpPoly", name, "an exact rational", v)


#: A parsed exponential polynomial: ``{w: {power: coefficient}}``.
Acc = dict[Fraction, dict[int, Fraction]]


def _parse(e: sympy.Expr, symbol: sympy.Symbol) -> Acc:
    """``e`` as ``{w: {power: q}}``, read off its tree: sums add, products multiply
    (exact rational arithmetic), so the expression is never expanded by sympy (the
    closed forms ``A + lam B`` of RNM-Laplace: ``expand`` was a tenth of the report's
    analysis)."""
    if e.is_Rational:
        return {Fraction(0): {0: Fraction(int(e.p), int(e.q))}} if e != 0 else {}
    if e == symbol:
        return {Fraction(0): {1: Fraction(1)}}
    if e.is_Add:
        acc: Acc = {}
        for term in e.args:
            _add_into(acc, _parse(term, symbol))
        return acc
    if e.is_Mul:
        out = _parse(e.args[0], symbol)
        for f in e.args[1:]:
            out = _times(out, _parse(f, symbol))
        return out
    if isinstance(e, sympy.exp) or (e.is_Pow and e.base is sympy.E):
        arg = e.args[0] if isinstance(e, sympy.exp) else e.exp
        return {_linear_rate(arg, symbol, e): {0: Fraction(1)}}
    if e.is_Pow and e.exp.is_Integer and e.exp >= 0:
        if e.base == symbol:
            return {Fraction(0): {int(e.exp): Fraction(1)}}
        if isinstance(e.base, sympy.exp):
            return {int(e.exp) * _linear_rate(e.base.args[0], symbol, e): {0: Fraction(1)}}
        if e.base.is_Add:  # (a + b)^k: k - 1 products
            base = _parse(e.base, symbol)
            out = {Fraction(0): {0: Fraction(1)}}
            for _ in range(int(e.exp)):
                out = _times(out, base)
            return out
    raise ValueError(f"ExpPoly.from_sympy: {_short(e)} is not a rational, a "
                     f"power of {symbol} or exp(w*{symbol}) with rational w")


def _add_into(acc: Acc, other: Acc) -> None:
    for w, poly in other.items():
        mine = acc.setdefault(w, {})
        for k, c in poly.items():
            mine[k] = mine.get(k, Fraction(0)) + c


def _times(a: Acc, b: Acc) -> Acc:
    out: Acc = {}
    for wa, pa in a.items():
        for wb, pb in b.items():
            poly = out.setdefault(wa + wb, {})
            for ka, ca in pa.items():
                for kb, cb in pb.items():
                    poly[ka + kb] = poly.get(ka + kb, Fraction(0)) + ca * cb
    return out


def _linear_rate(arg: sympy.Expr, symbol: sympy.Symbol, whole: sympy.Expr) -> Fraction:
    c, rest = arg.as_coeff_Mul()
    if rest == symbol and c.is_Rational:  # w * symbol as sympy holds it
        return Fraction(int(c.p), int(c.q))
    w = sympy.expand(arg).coeff(symbol, 1) if arg.has(symbol) else None
    if w is None or not w.is_Rational or sympy.expand(arg - w * symbol) != 0:
        raise ValueError(f"ExpPoly.from_sympy: {_short(whole)} is not exp(w*{symbol}) with "
                         "rational w")
    return Fraction(int(w.p), int(w.q))


def _short(e: object, limit: int = 120) -> str:
    s = str(e)
    return s if len(s) <= limit else s[: limit - 10] + " ... " + s[-5:]


# ============================================================================== kernels
def _add(a: Terms, b: Terms) -> Terms:
    acc: dict = {}
    for w, p in (*a, *b):
        key = (int(w.p), int(w.q))
        acc[key] = (w, acc[key][1] + p) if key in acc else (w, p)
    return tuple(sorted(((w, p) for w, p in acc.values() if p != 0), key=lambda t: t[0]))


def shifted_derivative(terms: Terms, w: flint.fmpq) -> Terms:
    """``f' - w f``: term ``k`` becomes ``p_k' + (w_k - w) p_k`` (same exponent).

    Parameters
    ----------
    terms : Terms
        ``f`` in computing form (rates sorted, polynomials non-zero).
    w : flint.fmpq
        The shift (at ``w = w_k`` term ``k`` loses a degree: Polya-Szego's step).

    Returns
    -------
    Terms
        ``f' - w f``, terms that vanish left out (rates stay sorted).
    """
    out = []
    for wk, p in terms:
        d = p.derivative() + (wk - w) * p
        if d != 0:
            out.append((wk, d))
    return tuple(out)


def degree_count(terms: Terms) -> int:
    """``N(f) = sum_k (deg p_k + 1)``: ``f`` has at most ``N(f) - 1`` real zeros counted with
    multiplicity (Polya and Szego, Part V, problem 75).

    Parameters
    ----------
    terms : Terms
        ``f`` in computing form (polynomials non-zero).

    Returns
    -------
    int
        ``N(f)``; 0 for the zero function.
    """
    return sum(p.degree() + 1 for _, p in terms)


def taylor_coefficient(terms: Terms, n: int) -> flint.fmpq:
    """The ``n``-th Taylor coefficient of ``f`` at 0, exactly:
    ``sum_k sum_j p_kj w_k^(n-j) / (n-j)!`` (the Cauchy product of ``p_k`` and the series
    of ``exp(w_k t)``).

    Parameters
    ----------
    terms : Terms
    n : int >= 0

    Returns
    -------
    flint.fmpq
        ``[t^n] f(t)``.
    """
    total = flint.fmpq(0)
    for w, p in terms:
        for j, c in enumerate(p.coeffs()):
            if j > n or c == 0:
                continue
            total += c * w ** (n - j) / factorial(n - j)
    return total


def sign_near_zero_of(terms: Terms) -> int:
    """The sign of ``f`` on ``(0, d)`` for small ``d > 0``: the sign of its first non-zero
    Taylor coefficient at 0 (one of the first ``N(f)`` is non-zero: a zero at 0 has
    multiplicity at most ``N(f) - 1``, Polya and Szego, Part V, problem 75).

    Parameters
    ----------
    terms : Terms
        A non-zero ``f`` in computing form.

    Returns
    -------
    int
        -1 or 1.

    Raises
    ------
    AssertionError
        ``terms`` empty (the zero function has no sign near 0).
    """
    for n in range(degree_count(terms)):
        s = sign_of(taylor_coefficient(terms, n))
        if s:
            return s
    raise AssertionError("exp_poly: a non-zero function with N vanishing Taylor "
                         "coefficients at 0 (impossible by Polya-Szego V.75)")


def sign_at_infinity_of(terms: Terms) -> int:
    """The sign of ``f(t)`` for large ``t``: the sign of the leading coefficient of the
    polynomial of the largest rate (it dominates every other term).

    Parameters
    ----------
    terms : Terms
        A non-zero ``f`` in computing form (rates sorted).

    Returns
    -------
    int
        -1 or 1.

    Raises
    ------
    IndexError
        ``terms`` empty (the zero function has no sign).
    """
    w, p = terms[-1]
    return sign_of(p.coeffs()[-1])


def _horner(p: flint.fmpq_poly, t: flint.arb) -> flint.arb:
    out = flint.arb(0)
    for c in reversed(p.coeffs()):
        out = out * t + c
    return out


def ball_of(terms: Terms, t: flint.arb) -> flint.arb:
    """Ball of ``f`` at the ball ``t`` (at the current flint precision): Horner for each
    ``p_k``, times arb's ``exp(w_k t)``.

    Parameters
    ----------
    terms : Terms
    t : flint.arb

    Returns
    -------
    flint.arb
        A ball containing ``f(s)`` for every ``s`` in ``t`` (arb's enclosure, Johansson 2017).
    """
    out = flint.arb(0)
    for w, p in terms:
        out += _horner(p, t) * (t * w).exp()
    return out


def sign_at_point(terms: Terms, t: flint.fmpq) -> int:
    """Sign of ``f(t)``, ``t`` rational: exact zero test (Lindemann-Weierstrass for
    ``t != 0``: ``f(t) = 0`` iff every ``p_k(t) = 0``), then balls at rising precision
    (64 to 32768 bits).

    Parameters
    ----------
    terms : Terms
    t : flint.fmpq

    Returns
    -------
    int
        -1, 0 or 1, exact (0 only from the exact test).

    Raises
    ------
    UndecidedSignError
        The ball still contains 0 at 32768 bits (a non-zero value that close to 0).

    Examples
    --------
    ``f(t) = exp(t) - 2`` at ``t = 1``: ``e - 2 > 0``; at ``t = 0``: ``-1``:

    >>> import flint
    >>> from exactdp.exact.exp_poly import sign_at_point
    >>> terms = ((flint.fmpq(0), flint.fmpq_poly([-2])), (flint.fmpq(1), flint.fmpq_poly([1])))
    >>> sign_at_point(terms, flint.fmpq(1)), sign_at_point(terms, flint.fmpq(0))
    (1, -1)
    """
    values = [p(t) for _, p in terms]
    if t == 0:
        return sign_of(sum(values, flint.fmpq(0)))
    if all(v == 0 for v in values):
        return 0
    if len(terms) == 1:
        return sign_of(values[0])
    nz = [(w, v) for (w, _), v in zip(terms, values, strict=True) if v != 0]
    if len(nz) == 1:
        return sign_of(nz[0][1])
    prec = FIRST_PREC
    while prec <= MAX_PREC:
        with flint_prec(prec):
            s = flint.arb(0)
            for w, v in nz:
                s += flint.arb(v) * flint.arb(w * t).exp()
        if s > 0:
            return 1
        if s < 0:
            return -1
        prec *= 2
    raise UndecidedSignError(f"exp_poly: the sign at t = {t} is undecided at {MAX_PREC} "
                             "bits (a non-zero value: exact zero test failed)")


def mean_value_enclosure(terms: Terms, dterms: Terms, lo: flint.fmpq, hi: flint.fmpq,
               prec: int = 128) -> flint.arb:
    """Mean value enclosure of ``f`` over ``[lo, hi]``: ``f(m) + f'([lo, hi]) [-r, r]``, ``m``
    the midpoint and ``r`` the half-width (the mean value theorem).

    Parameters
    ----------
    terms : Terms
        ``f``.
    dterms : Terms
        ``f'`` (the caller's derivative of ``terms``).
    lo, hi : flint.fmpq
        The interval, ``lo <= hi``.
    prec : int, default 128
        Working precision in bits.

    Returns
    -------
    flint.arb
        A ball containing ``f([lo, hi])``.
    """
    with flint_prec(prec):
        m = (lo + hi) / 2
        r = (hi - lo) / 2
        rad = flint.arb(r).upper()
        return ball_of(terms, flint.arb(m)) + ball_of(dterms, flint.arb(m, rad)) * flint.arb(0, rad)
