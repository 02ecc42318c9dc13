"""The x-form engine: probabilities as rational functions of ``x = exp(-epsilon/N)``.

PF, EM, RNM with exponential or Gumbel noise, and any mechanism whose probabilities are
rational in ``exp(epsilon/N)``: each comparison is the sign of one polynomial ``f(x)``. ``N``
(stored on the engine) is common to every vector compared: a form whose own generator has
``N / power`` is spread to ``x`` by ``x_form = x**power``. For a numeric algebraic epsilon
``x`` is transcendental (Lindemann-Weierstrass), so ``f(x) = 0`` iff ``f`` is the zero
polynomial, and otherwise ball arithmetic at rising precision decides the
sign; for a symbolic epsilon the sign on ``x in (0, 1)`` is decided by exact real-root
isolation (:mod:`exactdp.exact.unit_interval`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import flint
import sympy

from ...exact.arb import to_arb
from ...exact.poly import (
    as_fmpq_poly,
    fmpq_poly_to_sympy,
    sign_at,
    xform_from_probabilities,
)
from ...exact.signs import proved_rational
from ...exact.unit_interval import has_unit_root, unit_sign
from ...numbers import safe_sympify
from ..common import X, exact_sign
from .sympy_form import ratio_at, sparser_terms, terms_value


# =============================================================================== engines
def poly_pair(form: sympy.Expr, x: sympy.Symbol, power: int):
    """The numerator and denominator of ``form`` as ``fmpq_poly`` in ``x``, spread by ``power``."""
    num, den = sympy.fraction(safe_sympify(form))
    if not (num.is_polynomial(x) and den.is_polynomial(x)):
        num, den = sympy.fraction(sympy.cancel(sympy.together(form)))
    pn, pd = as_fmpq_poly(num, x), as_fmpq_poly(den, x)
    if power != 1:
        pn = _spread(pn, power)
        pd = _spread(pd, power)
    return pn, pd


def gap_terms(expr: sympy.Expr, x: sympy.Symbol) -> dict[int, flint.fmpq] | None:
    """``expr`` as a sparse Laurent polynomial ``{exponent: coefficient}`` in ``x``.

    Works on the expression tree (sums, products, integer powers), never on a dense
    coefficient list, so ``x**(2*10**300)`` costs one term. None if ``expr`` is not a
    Laurent polynomial in ``x`` with rational coefficients.
    """
    if expr.is_Rational:
        return {0: flint.fmpq(int(expr.p), int(expr.q))} if expr != 0 else {}
    if expr == x:
        return {1: flint.fmpq(1)}
    if expr.is_Add:
        out: dict[int, flint.fmpq] = {}
        for arg in expr.args:
            t = gap_terms(arg, x)
            if t is None:
                return None
            for e, c in t.items():
                v = out.get(e, 0) + c
                if v == 0:
                    out.pop(e, None)
                else:
                    out[e] = v
        return out
    if expr.is_Mul:
        out = {0: flint.fmpq(1)}
        for arg in expr.args:
            t = gap_terms(arg, x)
            if t is None:
                return None
            out = _terms_mul(out, t)
        return out
    if expr.is_Pow and expr.exp.is_Integer:
        k = int(expr.exp)
        if expr.base == x:
            return {k: flint.fmpq(1)}
        base = gap_terms(expr.base, x)
        if base is None:
            return None
        if len(base) == 1:
            (e, c), = base.items()
            if c == 0:
                return None
            return {e * k: c**k}
        if k < 0 or k > 64:
            return None
        out = {0: flint.fmpq(1)}
        for _ in range(k):
            out = _terms_mul(out, base)
        return out
    return None


def _terms_mul(a: dict, b: dict) -> dict:
    out: dict[int, flint.fmpq] = {}
    for ea, ca in a.items():
        for eb, cb in b.items():
            v = out.get(ea + eb, 0) + ca * cb
            if v == 0:
                out.pop(ea + eb, None)
            else:
                out[ea + eb] = v
    return out


def max_exponent(expr: sympy.Expr, x: sympy.Symbol) -> int:
    """Largest ``|k|`` of a power ``x**k`` in the expression tree (1 for a bare x)."""
    best = 1 if expr.has(x) else 0
    for p in expr.atoms(sympy.Pow):
        if p.base == x and p.exp.is_Integer:
            best = max(best, abs(int(p.exp)))
    return best


def form_terms(form: sympy.Expr, x: sympy.Symbol, power: int):
    """``(num, den, direct)``: sparse term dicts in the common generator (``x**power`` is
    the form's own generator ``x``), or None.

    ``direct`` is True when ``sympy.fraction(form)`` already gave two polynomials (the
    case in which :func:`_poly_pair` gives the same pair without ``cancel``).
    """
    form = safe_sympify(form)
    for direct in (True, False):
        num, den = sympy.fraction(form if direct else sympy.together(form))
        tn, td = gap_terms(num, x), gap_terms(den, x)
        if tn is not None and td is not None and td:
            low = min(list(tn) + list(td))
            shift = -low if low < 0 else 0
            return (
                {(e + shift) * power: c for e, c in tn.items()},
                {(e + shift) * power: c for e, c in td.items()},
                direct and shift == 0,
            )
    return None


def dense_poly(t: dict) -> flint.fmpq_poly:
    """The ``fmpq_poly`` with coefficients ``{exponent: coefficient}`` from ``t`` (0 if empty)."""
    if not t:
        return flint.fmpq_poly([0])
    coeffs = [flint.fmpq(0)] * (max(t) + 1)
    for e, c in t.items():
        coeffs[e] = c
    return flint.fmpq_poly(coeffs)


def _spread(p: flint.fmpq_poly, m: int) -> flint.fmpq_poly:
    coeffs = p.coeffs()
    out = [flint.fmpq(0)] * ((len(coeffs) - 1) * m + 1) if coeffs else []
    for k, c in enumerate(coeffs):
        out[k * m] = c
    return flint.fmpq_poly(out)


class FlintForms(tuple):
    """x-forms given as ``(numerator, denominator)`` flint ``fmpq_poly`` pairs in ``x``
    (from a ``RationalForm`` that carries ``polys``), so the engine needs no sympy."""

    def terms(self, power: int) -> list[tuple[dict, dict, bool]]:
        """Sparse ``{exponent: coefficient}`` pairs in the common generator (the form's
        generator is its ``power``-th power)."""
        def sparse(p) -> dict:
            return {k * power: c for k, c in enumerate(p.coeffs()) if c != 0}

        return [(sparse(a), sparse(b), True) for a, b in self]

    def degree(self, power: int) -> int:
        distinct = {id(p): p for p in self}.values()  # outputs with equal gaps share a pair
        return max(max(a.degree(), b.degree(), 0) for a, b in distinct) * power

    def dense(self, power: int) -> list[tuple]:
        """The pairs in the common generator (the form's is its ``power``-th power), exact."""
        if power == 1:
            return list(self)
        # outputs sharing one pair (or one denominator) keep sharing it when inflated
        done: dict[int, flint.fmpq_poly] = {}

        def inflated(p: flint.fmpq_poly) -> flint.fmpq_poly:
            if id(p) not in done:  # a constant stays itself (power may be 10**400)
                done[id(p)] = p if p.degree() <= 0 else flint.fmpq_poly(
                    p.numer().inflate(power), p.denom())
            return done[id(p)]

        pairs: dict[int, tuple] = {}
        for pair in self:
            if id(pair) not in pairs:
                pairs[id(pair)] = tuple(inflated(p) for p in pair)
        return [pairs[id(pair)] for pair in self]


@lru_cache(maxsize=256)
def _generator_exponent(value: sympy.Expr, eps: sympy.Expr) -> sympy.Expr:
    """``kappa`` with ``value = exp(-eps*kappa)``, by exact rewriting only (a sympy Rational
    when proved rational); cached, since every vector of a search has the same generator."""
    kappa = sympy.cancel(-sympy.log(value) / eps)
    if not kappa.is_Rational:
        kappa = proved_rational(kappa) or kappa
    return kappa


def xform_of(dist, eps: sympy.Expr, probs=None):
    """``(x, forms, kappa)`` with ``x = exp(-eps*kappa)``, or None if there is no x-form.

    Read from the distribution's capabilities: its ``rational_form`` (every epsilon), else
    its ``numeric_rational_form`` (RNM-Laplace), else the exact probabilities'."""
    caps = dist.capabilities
    rf = None
    if "rational_form" in caps:
        try:  # a program's form past the dense degree limit at this epsilon: none here
            rf = dist.rational_form()
        except ValueError:
            rf = None
    elif "numeric_rational_form" in caps:
        rf = dist.numeric_rational_form()  # None where it does not apply
    if rf is not None:
        kappa = _generator_exponent(rf.value, eps)
        if kappa.is_Rational and kappa > 0:
            if rf.polys is not None:  # flint already: no sympy round trip
                den = rf.denominator if rf.denominator is not None else flint.fmpq_poly([1])
                # outputs with equal gaps share one polynomial: share one pair too (the
                # engine's ball cache then evaluates each distinct probability once)
                pairs: dict[int, tuple] = {}
                for p in rf.polys:
                    if id(p) not in pairs:
                        pairs[id(p)] = (p if type(p) is flint.fmpq_poly  # shared, not copied
                                        else flint.fmpq_poly(p), den)
                return rf.x, FlintForms(pairs[id(p)] for p in rf.polys), kappa
            return rf.x, tuple(rf.forms), kappa
    if "exact" not in caps:
        return None
    p = probs if probs is not None else dist.probabilities
    try:  # ValueError: the probabilities are not rational in exp(epsilon * rational)
        gen, forms, kappa = xform_from_probabilities(p, eps)
    except ValueError:
        return None
    return gen, forms, kappa


#: Precision (bits) of the ball pre-filter of the x-form engine at a numeric epsilon: each
#: probability polynomial is enclosed once at ``x``; a comparison whose enclosures do not
#: overlap is decided by them (a rigorous decision: the balls contain the exact values), and
#: only an overlap (a tie or a close call) forms the exact polynomial and decides its sign.
FILTER_PREC = 128


class Ratio:
    """``(num, den)``: a ratio of flint polynomials in ``x``, with ``ball``, an ``arb``
    enclosure of its value at the engine's numeric ``x`` (None: none, decide exactly).

    The ratio of two probabilities ``a / b`` keeps the pairs and forms the products
    ``(a_num b_den, a_den b_num)`` only when indexed (most comparisons are decided by the
    balls and never need them); ``R[0]``, ``R[1]`` and ``num, den = R`` read the pair."""

    __slots__ = ("_a", "_b", "_pair", "ball")

    ball: flint.arb | None

    def __init__(self, num: flint.fmpq_poly | None, den: flint.fmpq_poly | None,
                 ball: flint.arb | None = None, *, of: tuple | None = None):
        self._pair = None if of is not None else (num, den)
        self._a, self._b = of if of is not None else (None, None)
        self.ball = ball

    def _products(self) -> tuple:
        pair = self._pair
        if pair is None:
            a, b = self._a, self._b
            pair = self._pair = (a[0] * b[1], a[1] * b[0])
            self._a = self._b = None
        return pair

    def __getitem__(self, i: int) -> flint.fmpq_poly:
        return self._products()[i]

    def __iter__(self):
        return iter(self._products())

    def __len__(self) -> int:
        return 2

    def same_as(self, other: object) -> bool:
        """Whether both are the lazy ratio of the same two probability pairs (identical
        objects: outputs with equal gaps share one pair), hence equal."""
        return (isinstance(other, Ratio) and self._pair is None and other._pair is None
                and self._a is other._a and self._b is other._b)

    def inverse(self, ball: flint.arb | None) -> Ratio:
        """``den / num`` with the enclosure ``ball`` (still lazy if this one is)."""
        if self._pair is None:
            return Ratio(None, None, ball, of=(self._b, self._a))
        return Ratio(self._pair[1], self._pair[0], ball)


def _ball_of(R) -> flint.arb | None:
    """The enclosure a :class:`Ratio` carries (None for a plain pair)."""
    return R.ball if isinstance(R, Ratio) else None


def _at_filter_prec(fn, *args):
    """``fn(*args)`` at flint precision :data:`FILTER_PREC` (restored after; cheaper than
    a context manager in the comparison loops)."""
    ctx = flint.ctx
    prec, ctx.prec = ctx.prec, FILTER_PREC
    try:
        return fn(*args)
    finally:
        ctx.prec = prec


def _ball_sign(ball: flint.arb | None) -> int | None:
    """The sign of a ball that excludes 0, else None."""
    if ball is None:
        return None
    if ball > 0:
        return 1
    if ball < 0:
        return -1
    return None


class XEngine:
    """Probabilities as ``(num, den)`` flint polynomials in ``x = exp(-eps/N)`` (``N`` on
    the engine)."""

    kind = "x-form"
    sparse = False  # dense flint polynomials (SparseXEngine: sympy's sparse ring)
    certified, caveat = True, None  # exact: nothing to caveat
    #: Ratios as sympy expressions by ``cancel`` and ``powsimp`` (a canonical form; about
    #: 0.1 s each at degree 20); False: term by term (:func:`terms_value`, the same exact
    #: value, milliseconds), for distributions with thousands of outputs (answer sequences)
    canonical_sympy = True
    #: A sequence mechanism's outputs, indexed by ``probs[i][r]`` on every vector (their
    #: union, :mod:`exactdp.analysis.outputs`); None for the other kinds
    outputs: tuple | None = None

    def __init__(self, eps: sympy.Expr, N: int, probs: list[list[tuple]]):
        self.eps = eps
        self.N = N
        self.probs = probs
        self.symbolic = bool(eps.free_symbols)
        self.x_value = sympy.exp(-eps / N)
        self._exact_point = None if (self.symbolic or eps.is_algebraic) else self.x_value
        self._balls: dict[int, flint.arb] = {}
        # the ball pre-filter: dense flint polynomials at a numeric epsilon only
        self._filtering = not self.symbolic and not self.sparse
        # id(poly) -> (poly, its ball at x): the poly is kept, so its id is not reused
        self._values: dict[int, tuple[Any, Any]] = {}

    # -- signs
    def _point(self, prec: int) -> flint.arb:
        if prec not in self._balls:
            self._balls[prec] = to_arb(-self.eps / self.N, prec + 32).exp()
        return self._balls[prec]

    def sign(self, f: flint.fmpq_poly) -> int | None:
        if f == 0:
            return 0
        if self.symbolic:
            return unit_sign(f)  # no sympy form unless Descartes' rule sees a root
        return sign_at(f, self._point, exact_point=self._exact_point)

    def _value(self, f: flint.fmpq_poly) -> flint.arb:
        """A ball around ``f(x)`` at :data:`FILTER_PREC` bits (cached per polynomial). Call at
        ``flint.ctx.prec == FILTER_PREC`` with the filter on."""
        hit = self._values.get(id(f))
        if hit is not None and hit[0] is f:
            return hit[1]
        # the integer numerator evaluated at the ball directly (arb's rigorous evaluation of
        # an fmpz_poly; no arb_poly copy of the coefficients)
        ball = f.numer()(self._point(FILTER_PREC)) / f.denom()
        self._values[id(f)] = (f, ball)
        return ball

    def _prob_ball(self, p: tuple) -> flint.arb | None:
        """A ball around the probability ``p = (num, den)`` at ``x`` (cached per pair), or
        None (filter off: symbolic epsilon, sparse polynomials; or ``den(x)`` not told from
        0)."""
        if not self._filtering:
            return None
        hit = self._values.get(id(p))
        if hit is not None and hit[0] is p:
            return hit[1]
        ctx = flint.ctx
        prec, ctx.prec = ctx.prec, FILTER_PREC
        try:
            den = self._value(p[1])
            ball = self._value(p[0]) / den if _ball_sign(den) is not None else None
        finally:
            ctx.prec = prec
        self._values[id(p)] = (p, ball)
        return ball

    # -- probabilities
    def is_zero(self, p) -> bool:
        return p[0] == 0

    def cmp_prob(self, a, b) -> int | None:
        qa, qb = self._prob_ball(a), self._prob_ball(b)
        if qa is not None and qb is not None:
            if qa > qb:
                return 1
            if qa < qb:
                return -1
        return self.sign(a[0] * b[1] - b[0] * a[1])

    def ratio(self, a, b) -> Ratio:
        qa, qb = self._prob_ball(a), self._prob_ball(b)
        ball = None
        if qa is not None and qb is not None and _ball_sign(qb) is not None:
            ball = _at_filter_prec(qa.__truediv__, qb)
        return Ratio(None, None, ball, of=(a, b))

    def inv(self, R) -> Ratio:
        ball = _ball_of(R)
        if ball is not None and _ball_sign(ball) is not None:
            ball = _at_filter_prec(flint.arb(1).__truediv__, ball)
        else:
            ball = None
        if isinstance(R, Ratio):
            return R.inverse(ball)
        return Ratio(R[1], R[0], ball)

    def div(self, R1, R2) -> Ratio:
        return Ratio(R1[0] * R2[1], R1[1] * R2[0])

    def cmp(self, R1, R2) -> int | None:
        if isinstance(R1, Ratio) and R1.same_as(R2):
            return 0
        b1, b2 = _ball_of(R1), _ball_of(R2)
        if b1 is not None and b2 is not None:
            if b1 > b2:
                return 1
            if b1 < b2:
                return -1
        return self.sign(R1[0] * R2[1] - R2[0] * R1[1])

    def cmp_one(self, R) -> int | None:
        ball = _ball_of(R)
        if ball is not None:
            if ball > 1:
                return 1
            if ball < 1:
                return -1
        return self.sign(R[0] - R[1])

    def cmp_exp(self, R, claim: sympy.Expr) -> int | None:
        ratio = proved_rational(claim / self.eps)
        t = None if ratio is None else ratio * self.N
        if t is not None and t.is_Integer and t >= 0:
            ball = _ball_of(R)
            if ball is not None:
                bound = _at_filter_prec(lambda: to_arb(claim, FILTER_PREC).exp())
                if ball > bound:
                    return 1
                if ball < bound:
                    return -1
            mono = flint.fmpq_poly([0] * int(t) + [1])
            return self.sign(mono * R[0] - R[1])
        return exact_sign(self.to_sympy(R) - sympy.exp(claim))

    def to_sympy(self, R) -> sympy.Expr:
        # reduce by the flint gcd first: sympy's cancel of the full pair is the slow part
        g = R[0].gcd(R[1])
        num, den = R[0] // g, R[1] // g
        if not self.canonical_sympy or max(num.degree(), den.degree()) > _SYMPY_DEGREE:
            # high degree: build only the non-zero terms
            # (sympy's dense Poly / cancel cost seconds at degree 10**5)
            return terms_value(*sparser_terms((num, den), R), self.eps, self.N)
        P, Q = canonical_pair(num, den)
        return ratio_at(P, Q, self.x_value)

    def prob_sympy(self, p) -> sympy.Expr:
        return self.to_sympy(p)

    def zero(self) -> tuple:
        """Probability exactly 0, the pair ``(0, 1)`` (an output a vector does not reach)."""
        return flint.fmpq_poly([0]), flint.fmpq_poly([1])

    def _sum_value(self, num, den) -> sympy.Expr:
        """``num/den`` at ``x = exp(-eps/N)`` (for the error message)."""
        total = sympy.cancel(
            fmpq_poly_to_sympy(num, X).as_expr() / fmpq_poly_to_sympy(den, X).as_expr()
        )
        return total.subs(X, self.x_value)

    def check_normalised(self, i: int, func: str, name: str, scores) -> None:
        """Raise ValueError unless the probabilities of vector ``i`` sum to 1 exactly and
        are non-negative (for every epsilon when it is symbolic)."""
        num, den = self.zero()  # the sum starts at 0/1
        # outputs with equal gaps share one pair: add each distinct pair times its count
        shared: dict[int, list] = {}
        for pair in self.probs[i]:
            entry = shared.get(id(pair))
            if entry is None:
                shared[id(pair)] = [pair, 1]
            else:
                entry[1] += 1
        for (a, b), m in shared.values():
            if m != 1:
                a = a * m
            if b == den:
                num = num + a
            else:
                num, den = num * b + a * den, den * b
        if num != den:
            raise ValueError(
                f"{func}: the probabilities of {name} on {scores} do not sum to 1 (sum = "
                f"{self._sum_value(num, den)}); not a probability distribution"
            )
        self._check_nonnegative(i, func, name, scores)

    def _check_nonnegative(self, i: int, func: str, name: str, scores) -> None:
        for r, pair in enumerate(self.probs[i]):
            a, b = pair
            if self.symbolic:
                ok = unit_sign(a * b) in (0, 1) and not has_unit_root(b)
            else:
                ball = self._prob_ball(pair)
                ok = (ball is not None and ball > 0) or (
                    (self.sign(a) or 0) * (self.sign(b) or 0) >= 0)
            if not ok:
                raise ValueError(
                    f"{func}: probability {r} of {name} on {scores} is negative"
                )


def canonical_pair(num: flint.fmpq_poly, den: flint.fmpq_poly) -> tuple:
    """``(P, Q)``: integer polynomials with ``P/Q = num/den``, no common integer factor and
    ``Q``'s leading coefficient positive, for coprime ``num``, ``den`` (den non-zero).

    This is the normal form ``sympy.cancel`` gives a quotient of coprime polynomials
    (``P.as_expr()/Q.as_expr()``), computed in flint: cancel's pre-pass (``factor_terms``)
    and its polynomial gcd cost most of the final loss's sympy form (issue 21)."""
    A, da = num.numer(), num.denom()
    B, db = den.numer(), den.denom()
    P, Q = A * db, B * da
    c = P.content().gcd(Q.content())
    if c != 1:
        P, Q = P // c, Q // c  # exact: c divides every coefficient
    if Q.leading_coefficient() < 0:
        P, Q = -P, -Q
    return P, Q


#: Above this degree the dense engine converts results to sympy term by term.
_SYMPY_DEGREE = 2000
