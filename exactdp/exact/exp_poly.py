"""Exponential polynomials ``f(t) = sum_k p_k(t) exp(w_k t)``: exact values, signs on (0, oo).

No differential-privacy concepts live here. ``p_k`` are polynomials with rational
coefficients and ``w_k`` distinct rationals (terms of equal ``w`` are merged). Such an
``f`` that is not identically zero has at most ``N(f) - 1`` real zeros counted with
multiplicity, ``N(f) = sum_k (deg p_k + 1)`` (Polya and Szego, *Problems and Theorems in
Analysis II*, Part V, problem 75: divide by ``exp(w_1 t)`` and differentiate
``deg p_1 + 1`` times; the first term dies, the others keep their degrees, and Rolle's
theorem loses at most one zero per derivative).

:func:`sign_on_positive_reals` isolates the zeros on ``(0, oo)`` along the same induction,
one derivative at a time: with ``phi = exp(-w t) f`` (same zeros and signs as ``f``),
``phi' = exp(-w t) (f' - w f)``, and ``D_w f = f' - w f`` is again an exponential
polynomial with ``N(D_w f) = N(f) - 1`` when ``w`` is the exponent of a term of ``f``.
Between two consecutive sign changes of ``D_w f``, ``phi`` is strictly monotone, so ``f``
has at most one zero there, decided by the signs at the ends. The signs are exact or
certified:

- at a rational point ``t != 0``, ``f(t) = 0`` iff every ``p_k(t) = 0`` (Lindemann and
  Weierstrass: ``exp(w_k t)`` for distinct rationals ``w_k t`` are linearly independent
  over the algebraic numbers), decided in exact arithmetic; otherwise the sign comes from
  an arb ball at rising precision (:mod:`exactdp.exact.arb`), never from a float;
- near ``0+``: the sign of the first non-zero Taylor coefficient at 0 (computed exactly:
  ``[t^n] p(t) exp(w t) = sum_j p_j w^(n-j) / (n-j)!``); one of the first ``N(f)`` is
  non-zero, since a zero at 0 has multiplicity at most ``N(f) - 1``;
- near ``oo``: the sign of the leading coefficient of ``p_k`` for the largest ``w_k``.

Around an extremum of ``phi`` where ``f`` has the sign that could give two zeros, the
extremum's interval is bisected until the mean value enclosure of ``f`` over it excludes
0 (no zero), or a point of the other sign splits it (two zeros); a zero where the
enclosures of ``f`` and ``D_w f`` both keep containing 0 down to a tiny width is reported
*undecided* with its interval (a tangential zero), never guessed.

References
----------
G. Polya and G. Szego, *Problems and Theorems in Analysis II*, Springer 1976, Part V,
problem 75. F. Lindemann (1882), K. Weierstrass (1885) (A. Baker, *Transcendental Number
Theory*, 1975, Theorem 1.4). F. Johansson, "Arb: efficient arbitrary-precision
midpoint-radius interval arithmetic", IEEE Trans. Computers 66(8), 2017.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from math import factorial

import flint
import sympy

from .arb import flint_prec
from .signs import UndecidedSignError

#: Lowest and highest working precision (bits) of a certified sign at a rational point.
FIRST_PREC = 64
MAX_PREC = 1 << 15
#: Relative width (bits) below which an interval around a tangential zero is undecided.
UNDECIDED_BITS = 60
#: Relative width (bits) to which the reported zeros of the top-level function are refined.
ROOT_BITS = 50

_Terms = tuple[tuple[flint.fmpq, flint.fmpq_poly], ...]


def _q(v: Fraction | int) -> flint.fmpq:
    v = Fraction(v)
    return flint.fmpq(v.numerator, v.denominator)


def _frac(v: flint.fmpq) -> Fraction:
    return Fraction(int(v.p), int(v.q))


def _sgn(v: flint.fmpq) -> int:
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
    ExpPoly(1 - t*exp(-t))
    >>> f.zero_bound
    2
    """

    terms: tuple[tuple[Fraction, tuple[Fraction, ...]], ...]

    def __post_init__(self) -> None:
        ws = [w for w, _ in self.terms]
        if ws != sorted(set(ws)) or any(not c or c[-1] == 0 for _, c in self.terms):
            raise ValueError("ExpPoly: terms must be sorted by distinct w, without zero "
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
            raise ValueError(f"ExpPoly.from_terms: scale must be > 0, got {scale}")
        acc: dict[Fraction, dict[int, Fraction]] = {}
        for key, q in terms.items():
            e, W = key
            if isinstance(e, bool) or not isinstance(e, int) or e < 0:
                raise ValueError(f"ExpPoly.from_terms: a power of lam must be an integer "
                                 f">= 0, got {e!r}")
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
        e = sympy.expand(sympy.sympify(expr))
        if e.atoms(sympy.Float):
            raise ValueError(f"ExpPoly.from_sympy: refusing floats in {_short(e)}")
        acc: dict[Fraction, dict[int, Fraction]] = {}
        for term in sympy.Add.make_args(e):
            coeff, power, w = Fraction(1), 0, Fraction(0)
            for f in sympy.Mul.make_args(term):
                if f.is_Rational:
                    coeff *= Fraction(int(f.p), int(f.q))
                elif f == symbol:
                    power += 1
                elif f.is_Pow and f.base == symbol and f.exp.is_Integer and f.exp >= 0:
                    power += int(f.exp)
                elif isinstance(f, sympy.exp) or (f.is_Pow and f.base is sympy.E):
                    arg = f.args[0] if isinstance(f, sympy.exp) else f.exp
                    w += _linear_rate(arg, symbol, f)
                elif (f.is_Pow and isinstance(f.base, sympy.exp) and f.exp.is_Integer):
                    w += int(f.exp) * _linear_rate(f.base.args[0], symbol, f)
                else:
                    raise ValueError(f"ExpPoly.from_sympy: {_short(f)} is not a rational, a "
                                     f"power of {symbol} or exp(w*{symbol}) with rational w")
            poly = acc.setdefault(w, {})
            poly[power] = poly.get(power, Fraction(0)) + coeff
        return cls._canonical(acc)

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
    def _from_flint(cls, terms: _Terms) -> ExpPoly:
        return cls(tuple((_frac(w), tuple(_frac(c) for c in p.coeffs())) for w, p in terms))

    # ------------------------------------------------------------------ views
    @cached_property
    def flint_terms(self) -> _Terms:
        """The terms as ``(flint.fmpq w, flint.fmpq_poly p)`` (the computing form)."""
        return tuple((_q(w), flint.fmpq_poly([_q(c) for c in cs])) for w, cs in self.terms)

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
        return ExpPoly._from_flint(_d_w(self.flint_terms, flint.fmpq(0)))

    # ------------------------------------------------------------------ signs
    def taylor(self, n: int) -> Fraction:
        """The exact Taylor coefficient ``[t^n] f`` at ``t = 0``."""
        return _frac(_taylor(self.flint_terms, n))

    def sign_near_zero(self) -> int:
        """The sign of ``f`` on ``(0, delta)`` for small ``delta`` (0 for the zero function)."""
        return _sign0(self.flint_terms) if self.terms else 0

    def sign_at_infinity(self) -> int:
        """The sign of ``f(t)`` for all large ``t`` (0 for the zero function)."""
        return _sign_inf(self.flint_terms) if self.terms else 0

    def sign_at(self, t: Fraction | int) -> int:
        """The sign of ``f(t)`` at a rational ``t``: exact zero test, else a certified ball.

        Raises
        ------
        UndecidedSignError
            Only if no ball up to :data:`MAX_PREC` bits decides a non-zero value.
        """
        return _sign_at(self.flint_terms, _q(_rational(t, "t")))

    def ball(self, t: Fraction | int, prec: int = 128) -> flint.arb:
        """A rigorous arb enclosure of ``f(t)`` at a rational ``t``."""
        with flint_prec(prec):
            return _eval(self.flint_terms, flint.arb(_q(_rational(t, "t"))))


def _rational(v: object, name: str) -> Fraction:
    if isinstance(v, bool) or isinstance(v, float):
        raise ValueError(f"ExpPoly: {name} must be an exact rational, got {v!r}")
    if isinstance(v, (int, Fraction)):
        return Fraction(v)
    if isinstance(v, flint.fmpq):
        return _frac(v)
    if isinstance(v, sympy.Rational):
        return Fraction(int(v.p), int(v.q))
    raise ValueError(f"ExpPoly: {name} must be an exact rational, got {v!r}")


def _linear_rate(arg: sympy.Expr, symbol: sympy.Symbol, whole: sympy.Expr) -> Fraction:
    w = sympy.expand(arg).coeff(symbol, 1) if arg.has(symbol) else None
    if w is None or not w.is_Rational or sympy.expand(arg - w * symbol) != 0:
        raise ValueError(f"ExpPoly.from_sympy: {_short(whole)} is not exp(w*{symbol}) with "
                         "rational w")
    return Fraction(int(w.p), int(w.q))


def _short(e: object, limit: int = 120) -> str:
    s = str(e)
    return s if len(s) <= limit else s[: limit - 10] + " ... " + s[-5:]


# ============================================================================== kernels
def _add(a: _Terms, b: _Terms) -> _Terms:
    acc: dict = {}
    for w, p in (*a, *b):
        key = (int(w.p), int(w.q))
        acc[key] = (w, acc[key][1] + p) if key in acc else (w, p)
    return tuple(sorted(((w, p) for w, p in acc.values() if p != 0), key=lambda t: t[0]))


def _d_w(terms: _Terms, w: flint.fmpq) -> _Terms:
    """``f' - w f``: term ``k`` becomes ``p_k' + (w_k - w) p_k`` (same exponent)."""
    out = []
    for wk, p in terms:
        d = p.derivative() + (wk - w) * p
        if d != 0:
            out.append((wk, d))
    return tuple(out)


def _degree_count(terms: _Terms) -> int:
    return sum(p.degree() + 1 for _, p in terms)


def _taylor(terms: _Terms, n: int) -> flint.fmpq:
    total = flint.fmpq(0)
    for w, p in terms:
        for j, c in enumerate(p.coeffs()):
            if j > n or c == 0:
                continue
            total += c * w ** (n - j) / factorial(n - j)
    return total


def _sign0(terms: _Terms) -> int:
    for n in range(_degree_count(terms)):
        s = _sgn(_taylor(terms, n))
        if s:
            return s
    raise AssertionError("exp_poly: a non-zero function with N vanishing Taylor "
                         "coefficients at 0 (impossible by Polya-Szego V.75)")


def _sign_inf(terms: _Terms) -> int:
    w, p = terms[-1]
    return _sgn(p.coeffs()[-1])


def _horner(p: flint.fmpq_poly, t: flint.arb) -> flint.arb:
    out = flint.arb(0)
    for c in reversed(p.coeffs()):
        out = out * t + c
    return out


def _eval(terms: _Terms, t: flint.arb) -> flint.arb:
    """Ball of ``f`` at the ball ``t`` (at the current flint precision)."""
    out = flint.arb(0)
    for w, p in terms:
        out += _horner(p, t) * (t * w).exp()
    return out


def _sign_at(terms: _Terms, t: flint.fmpq) -> int:
    """Sign of ``f(t)``, ``t`` rational: exact zero test (Lindemann-Weierstrass for
    ``t != 0``), then balls at rising precision."""
    values = [p(t) for _, p in terms]
    if t == 0:
        return _sgn(sum(values, flint.fmpq(0)))
    if all(v == 0 for v in values):
        return 0
    if len(terms) == 1:
        return _sgn(values[0])
    nz = [(w, v) for (w, _), v in zip(terms, values, strict=True) if v != 0]
    if len(nz) == 1:
        return _sgn(nz[0][1])
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


def _enclosure(terms: _Terms, dterms: _Terms, lo: flint.fmpq, hi: flint.fmpq,
               prec: int = 128) -> flint.arb:
    """Mean value enclosure of ``f`` over ``[lo, hi]``: ``f(m) + f'([lo, hi]) [-r, r]``."""
    with flint_prec(prec):
        m = (lo + hi) / 2
        r = (hi - lo) / 2
        box = flint.arb(m, flint.arb(r).upper())
        return _eval(terms, flint.arb(m)) + _eval(dterms, box) * flint.arb(0, flint.arb(r).upper())


# ============================================================================== sign charts
@dataclass(frozen=True)
class Root:
    """A zero of an exponential polynomial on ``(0, oo)``.

    Attributes
    ----------
    lo, hi : Fraction
        The zero lies in ``[lo, hi]`` (``lo == hi``: the exact rational zero ``lo``; else
        in the open ``(lo, hi)``), and it is the only zero there unless ``kind ==
        "undecided"``.
    kind : str
        ``"exact"`` (a rational zero), ``"isolated"`` (exactly one zero in ``(lo, hi)``),
        ``"algebraic"`` (a tangential zero, exactly the one root of ``polynomial`` in
        ``[lo, hi]``: a multiple common root of every ``p_k``) or ``"undecided"`` (``f``
        and its derivative's enclosures both contain 0 on ``[lo, hi]``: zero, one or two
        zeros, say a tangential zero at a transcendental point).
    left, right : int
        The sign of the function just left of ``lo`` and just right of ``hi``.
    polynomial : tuple of Fraction or None
        For ``"algebraic"``: the coefficients (constant first) of a squarefree polynomial
        whose only root in ``[lo, hi]`` is the zero.
    """

    lo: Fraction
    hi: Fraction
    kind: str
    left: int
    right: int
    polynomial: tuple[Fraction, ...] | None = None

    @property
    def exact(self) -> Fraction | None:
        """The exact rational zero, or None."""
        return self.lo if self.kind == "exact" else None

    def ball(self, prec: int = 128) -> flint.arb:
        """An arb ball containing ``[lo, hi]`` (hence the zero)."""
        with flint_prec(prec):
            lo, hi = flint.arb(_q(self.lo)), flint.arb(_q(self.hi))
            return lo.union(hi)

    def __str__(self) -> str:
        if self.kind == "exact":
            return str(self.lo)
        mid = f"{float(self.lo + self.hi) / 2:.12g}"
        return f"~{mid}" if self.kind != "undecided" else f"~{mid} (undecided)"


#: An end of an interval of ``(0, oo)``: an exact rational (0 included), a :class:`Root`,
#: or None for ``oo``.
End = Fraction | Root | None


@dataclass(frozen=True)
class PositiveRealsSign:
    """The sign chart of an exponential polynomial on ``(0, oo)``.

    Attributes
    ----------
    function : ExpPoly
    roots : tuple of Root
        Left to right, disjoint; between consecutive roots the sign is constant and
        non-zero.
    first : int
        The sign on ``(0, delta)`` (0 for the zero function).

    Examples
    --------
    >>> from fractions import Fraction
    >>> f = ExpPoly.from_terms({(0, Fraction(0)): Fraction(1), (0, Fraction(-1)): Fraction(-2)})
    >>> chart = sign_on_positive_reals(f)     # 1 - 2 exp(-t): negative below log 2
    >>> chart.first, len(chart.roots), chart.nonnegative
    (-1, 1, False)
    >>> float(chart.roots[0].lo) < 0.6931471805599453 < float(chart.roots[0].hi)
    True
    """

    function: ExpPoly
    roots: tuple[Root, ...]
    first: int
    algorithm: str = field(default="polya-szego")

    @property
    def is_zero(self) -> bool:
        """True iff the function is identically 0."""
        return self.function.is_zero

    @property
    def undecided(self) -> tuple[Root, ...]:
        """The undecided intervals (empty when every zero is isolated)."""
        return tuple(r for r in self.roots if r.kind == "undecided")

    @property
    def gap_signs(self) -> tuple[int, ...]:
        """The sign on each of the ``len(roots) + 1`` open gaps between 0, the roots, oo."""
        return (self.first, *(r.right for r in self.roots))

    @property
    def nonnegative(self) -> bool:
        """True iff ``f >= 0`` on all of ``(0, oo)`` is proved."""
        return not self.undecided and all(s >= 0 for s in self.gap_signs)

    @property
    def decided(self) -> bool:
        """True when no undecided interval meets a gap where the sign matters."""
        return not self.undecided

    def negative_intervals(self) -> tuple[tuple[End, End], ...]:
        """The open intervals where ``f < 0`` is proved, as ``(start, end)`` ends (maximal
        runs of negative gaps, split at tangential zeros). Undecided intervals are not in
        them: read :attr:`undecided`."""
        out: list[tuple[End, End]] = []
        start: End = Fraction(0) if self.first < 0 else None
        neg = self.first < 0
        for r in self.roots:
            if neg:
                out.append((start, r))
            neg = r.right < 0 and r.kind != "undecided"
            start = r
        if neg:
            out.append((start, None))
        return tuple(out)


def sign_on_positive_reals(f: ExpPoly) -> PositiveRealsSign:
    """Isolate the zeros of ``f`` on ``(0, oo)`` and give its sign between them.

    Parameters
    ----------
    f : ExpPoly

    Returns
    -------
    PositiveRealsSign
        ``roots`` (exact, isolated to a relative width ``2**-ROOT_BITS``, or undecided),
        ``first`` (the sign near ``0+``), ``negative_intervals()``, ``nonnegative``. The
        zero function gives no roots and ``first = 0``.

    Raises
    ------
    ValueError
        If ``f`` is not an :class:`ExpPoly`.
    UndecidedSignError
        Only if a sign at a rational point needs more than :data:`MAX_PREC` bits.

    Notes
    -----
    Polya-Szego V.75 induction (module docstring): the number of roots found (with
    multiplicity, an undecided interval counting as at most two) never exceeds
    :attr:`ExpPoly.zero_bound`.
    """
    if not isinstance(f, ExpPoly):
        raise ValueError(f"sign_on_positive_reals: f must be an ExpPoly, got {type(f).__name__}")
    if f.is_zero:
        return PositiveRealsSign(f, (), 0, "zero")
    terms = f.flint_terms
    events = _chart(terms)
    roots = tuple(_refine_root(terms, ev, ROOT_BITS) for ev in events)
    return PositiveRealsSign(f, tuple(_to_root(ev) for ev in roots), _sign0(terms))


@dataclass
class _Ev:
    """A zero event of a chart: ``kind`` "exact" (lo == hi), "iso" or "und"."""

    kind: str
    lo: flint.fmpq
    hi: flint.fmpq
    left: int
    right: int
    poly: tuple[Fraction, ...] | None = None


def _to_root(ev: _Ev) -> Root:
    kind = {"exact": "exact", "iso": "isolated", "und": "undecided", "alg": "algebraic"}[ev.kind]
    return Root(_frac(ev.lo), _frac(ev.hi), kind, ev.left, ev.right, ev.poly)


def _narrow(lo: flint.fmpq, hi: flint.fmpq, bits: int) -> bool:
    scale = max(abs(lo), abs(hi), flint.fmpq(1))
    return (hi - lo) <= scale / flint.fmpq(2) ** bits


def _refine_root(terms: _Terms, ev: _Ev, bits: int) -> _Ev:
    """Bisect an isolated sign-changing zero to relative width ``2**-bits``."""
    if ev.kind != "iso" or ev.left == ev.right:
        return ev
    lo, hi = ev.lo, ev.hi
    while not _narrow(lo, hi, bits):
        m = (lo + hi) / 2
        s = _sign_at(terms, m)
        if s == 0:
            return _Ev("exact", m, m, ev.left, ev.right)
        if s == ev.left:
            lo = m
        else:
            hi = m
    return _Ev("iso", lo, hi, ev.left, ev.right)


def _chart(terms: _Terms) -> list[_Ev]:
    """The zero events of a non-zero ``f`` on ``(0, oo)``, left to right, with the sign on
    each side (induction on ``N(f)``)."""
    if len(terms) == 1:
        return _poly_chart(terms[0][1])
    k = min(range(len(terms)), key=lambda i: terms[i][1].degree())
    w = terms[k][0]
    h = _d_w(terms, w)
    h_events = _chart(h)
    h_first = _sign0(h)
    return _rolle(terms, h, h_events, h_first)


def _poly_chart(p: flint.fmpq_poly) -> list[_Ev]:
    """Roots of a polynomial on ``(0, oo)``: exact rational isolation (sympy's
    ``Poly.intervals`` and ``refine_root``, Vincent-Collins-Akritas) with ends that are
    positive and not roots, and exact signs between them."""
    if p.degree() <= 0:
        return []
    signs = [_sgn(c) for c in p.coeffs() if c != 0]
    if all(x == signs[0] for x in signs):
        return []  # Descartes' rule of signs: no positive root
    if p.degree() == 1:
        r = -p[0] / p[1]
        if r <= 0:
            return []
        return [_Ev("exact", r, r, _sgn(p(r / 2)), _sgn(p(r + 1)))]
    t = sympy.Dummy("t")
    poly = sympy.Poly([sympy.Rational(int(c.p), int(c.q)) for c in reversed(p.coeffs())], t,
                      domain="QQ")
    events = []
    for (a, b), _mult in poly.intervals(inf=0):
        if b <= 0:
            continue  # the root 0
        while a != b and (a <= 0 or poly.eval(a) == 0 or poly.eval(b) == 0):
            a, b = poly.refine_root(a, b, eps=(b - a) / 4)
        lo, hi = flint.fmpq(int(a.p), int(a.q)), flint.fmpq(int(b.p), int(b.q))
        events.append(_Ev("exact" if lo == hi else "iso", lo, hi, 0, 0))
    events.sort(key=lambda ev: ev.lo)
    signs = [_sgn(p(x)) for x in _gap_points(events)]
    for i, ev in enumerate(events):
        ev.left, ev.right = signs[i], signs[i + 1]
    return events


def _gap_points(events: list[_Ev]) -> list[flint.fmpq]:
    if not events:
        return [flint.fmpq(1)]
    pts = [events[0].lo / 2]
    for a, b in zip(events, events[1:], strict=False):
        pts.append((a.hi + b.lo) / 2)
    pts.append(events[-1].hi + 1)
    return pts


def _refine_h(h: _Terms, ev: _Ev) -> _Ev:
    """One bisection step of a sign-changing event of ``h`` (iso): the half holding the
    zero (or the exact zero at the midpoint)."""
    m = (ev.lo + ev.hi) / 2
    s = _sign_at(h, m)
    if s == 0:
        return _Ev("exact", m, m, ev.left, ev.right)
    if s == ev.left:
        return _Ev("iso", m, ev.hi, ev.left, ev.right)
    return _Ev("iso", ev.lo, m, ev.left, ev.right)


def _rolle(g: _Terms, h: _Terms, h_events: list[_Ev], h_first: int) -> list[_Ev]:
    """The zero events of ``g`` from those of ``h = D_w g`` (``phi = exp(-w t) g`` is
    strictly monotone wherever ``h`` keeps one sign)."""
    dg = _d_w(g, flint.fmpq(0))
    # turning events of h: where its sign changes, or undecided
    turning = [ev for ev in h_events if not (ev.kind != "und" and ev.left == ev.right)]
    out: list[_Ev] = []
    # region boundary on the left: (point or None for 0, sign of g there)
    a: flint.fmpq | None = None
    s_a = _sign0(g)
    direction = h_first
    for T in turning:
        if T.kind == "iso":
            T = _settle_ends(g, h, T)
        if T.kind == "exact":
            c = T.lo
            sc = _sign_at(g, c)
            out.extend(_region(g, a, s_a, c, sc, direction))
            if sc == 0:
                out.append(_Ev("exact", c, c, -T.left, -T.left))
            a, s_a, direction = c, sc, T.right
            continue
        lo, hi = T.lo, T.hi
        s_lo, s_hi = _sign_at(g, lo), _sign_at(g, hi)
        out.extend(_region(g, a, s_a, lo, s_lo, direction))
        if T.kind == "iso":
            out.extend(_turn(g, dg, h, T, s_lo, s_hi))
        else:
            out.extend(_undecided(g, dg, T, s_lo, s_hi, direction))
        a, s_a, direction = hi, s_hi, T.right
    out.extend(_region(g, a, s_a, None, _sign_inf(g), direction))
    return out


def _settle_ends(g: _Terms, h: _Terms, T: _Ev) -> _Ev:
    """Shrink a sign-changing event of ``h`` until ``g`` is non-zero at both ends."""
    for _ in range(200):
        if T.kind != "iso":
            return T
        if _sign_at(g, T.lo) != 0 and _sign_at(g, T.hi) != 0:
            return T
        T = _refine_h(h, T)
    raise UndecidedSignError("exp_poly: could not separate a zero of f from a critical point")


def _region(g: _Terms, a: flint.fmpq | None, s_a: int, b: flint.fmpq | None, s_b: int,
            direction: int) -> list[_Ev]:
    """Zero events of ``g`` strictly inside a region where ``phi`` is strictly monotone
    (``direction`` the sign of ``phi'``), from ``a`` (None: 0, ``s_a`` the sign at 0+) to
    ``b`` (None: oo, ``s_b`` the sign at oo): one zero iff the end signs differ. An
    infinite end is replaced by a rational point of the same sign (halving towards 0,
    doubling towards oo: the signs near 0+ and near oo are attained)."""
    if s_a == 0 or s_b == 0 or s_a == s_b:
        return []
    lo, hi = a, b
    if lo is None and hi is None:
        x = flint.fmpq(1)
        s = _sign_at(g, x)
        if s == 0:
            return [_Ev("exact", x, x, s_a, s_b)]
        lo, hi = (x, None) if s == s_a else (None, x)
    if lo is None:
        assert hi is not None
        x = hi / 2
        while True:
            s = _sign_at(g, x)
            if s == 0:
                return [_Ev("exact", x, x, s_a, s_b)]
            if s == s_a:
                lo = x
                break
            hi, x = x, x / 2
    if hi is None:
        x = 2 * lo
        while True:
            s = _sign_at(g, x)
            if s == 0:
                return [_Ev("exact", x, x, s_a, s_b)]
            if s == s_b:
                hi = x
                break
            lo, x = x, 2 * x
    return [_Ev("iso", lo, hi, s_a, s_b)]


def _turn(g: _Terms, dg: _Terms, h: _Terms, T: _Ev, s_lo: int, s_hi: int) -> list[_Ev]:
    """Zeros of ``g`` across one sign change of ``h`` in ``(T.lo, T.hi)``: ``phi`` has one
    strict extremum there (a maximum when ``h`` goes from + to -)."""
    if s_lo != s_hi:
        return [_Ev("iso", T.lo, T.hi, s_lo, s_hi)]
    s = s_lo
    is_max = T.left > 0
    if (is_max and s > 0) or (not is_max and s < 0):
        return []  # the extremum is on the far side of 0
    lo, hi = T.lo, T.hi
    while True:
        enc = _enclosure(g, dg, lo, hi)
        if enc > 0 or enc < 0:
            return []
        if _narrow(lo, hi, UNDECIDED_BITS):
            return [_tangency(g, lo, hi, s) or _Ev("und", lo, hi, s, s)]
        m = (lo + hi) / 2
        sg = _sign_at(g, m)
        sh = _sign_at(h, m)
        if sh == 0:  # the extremum exactly at m
            if sg == 0:
                return [_Ev("exact", m, m, s, s)]
            if sg == s:
                return []
            return [_Ev("iso", lo, m, s, -s), _Ev("iso", m, hi, -s, s)]
        if sg == -s:
            return [_Ev("iso", lo, m, s, -s), _Ev("iso", m, hi, -s, s)]
        if sg == 0:  # g vanishes at m, off the extremum: a simple zero at m, another beyond
            if sh == T.left:  # m left of the extremum: the other zero is in (m, hi)
                return [_Ev("exact", m, m, s, -s), _Ev("iso", m, hi, -s, s)]
            return [_Ev("iso", lo, m, s, -s), _Ev("exact", m, m, -s, s)]
        if sh == T.left:
            lo = m
        else:
            hi = m


def _tangency(g: _Terms, lo: flint.fmpq, hi: flint.fmpq, s: int) -> _Ev | None:
    """An exact tangential zero in ``[lo, hi]``, or None. At an algebraic ``r != 0``,
    ``g(r) = g'(r) = 0`` iff ``(t - r)^2`` divides every ``p_k`` (Lindemann-Weierstrass),
    i.e. ``r`` is a multiple root of ``G = gcd(p_k)``: decided when exactly one such root
    lies in ``[lo, hi]`` (rational: the exact point; else its isolating interval and
    polynomial)."""
    G = g[0][1]
    for _, p in g[1:]:
        G = G.gcd(p)
    if G.degree() < 2:
        return None
    D = G.gcd(G.derivative())  # its roots are the multiple roots of G
    if D.degree() < 1:
        return None
    t = sympy.Dummy("t")
    S = sympy.Poly([sympy.Rational(int(c.p), int(c.q)) for c in reversed(D.coeffs())], t,
                   domain="QQ").sqf_part()
    a0, b0 = sympy.Rational(int(lo.p), int(lo.q)), sympy.Rational(int(hi.p), int(hi.q))
    found = S.intervals(inf=a0, sup=b0)
    if len(found) != 1:
        return None
    (a, b), _ = found[0]
    qa, qb = flint.fmpq(int(a.p), int(a.q)), flint.fmpq(int(b.p), int(b.q))
    if qa == qb:
        return _Ev("exact", qa, qb, s, s)
    coeffs = tuple(Fraction(int(c.p), int(c.q)) for c in reversed(S.all_coeffs()))
    return _Ev("alg", qa, qb, s, s, coeffs)


def _undecided(g: _Terms, dg: _Terms, T: _Ev, s_lo: int, s_hi: int,
               direction: int) -> list[_Ev]:
    """``g`` on an interval where ``h``'s zeros are undecided: no zero if the enclosures of
    ``g`` on 16 pieces all exclude 0 with one sign, else undecided."""
    lo, hi = T.lo, T.hi
    pieces = 16
    step = (hi - lo) / pieces
    signs = set()
    for i in range(pieces):
        enc = _enclosure(g, dg, lo + i * step, lo + (i + 1) * step)
        if enc > 0:
            signs.add(1)
        elif enc < 0:
            signs.add(-1)
        else:
            signs.add(0)
    if signs == {1} or signs == {-1}:
        return []
    left = s_lo if s_lo != 0 else -direction
    right = s_hi if s_hi != 0 else T.right
    return [_Ev("und", lo, hi, left, right)]
