"""Exact privacy loss, neighbour search, certificates for every epsilon, and suprema.

A selection mechanism M is epsilon-DP iff ``Pr[M(q) = r] <= e^eps Pr[M(q') = r]`` for every
pair of neighbouring score vectors (``||q - q'||_inf <= Delta``; for monotone score
functions all scores move in the same direction) and every output r (MATH.md section 1).

Everything here is exact. Two engines decide the comparisons:

- the **x-form engine** (PF, EM, RNM with exponential or Gumbel noise, and any mechanism
  whose probabilities are rational in ``exp(epsilon/N)``): every probability is a rational
  function of ``y = exp(-epsilon/N)`` with rational coefficients, so each comparison is the
  sign of one polynomial ``f(y)``. For a numeric algebraic epsilon ``y`` is transcendental
  (Lindemann-Weierstrass), so ``f(y) = 0`` iff ``f`` is the zero polynomial, and otherwise
  ball arithmetic at rising precision decides the sign; for a symbolic epsilon the sign on
  ``y in (0, 1)`` is decided by exact real-root isolation (:mod:`exactdp.algebra`).
- the **generic engine** (RNM-Laplace, irrational scores, user mechanisms in closed form):
  signs of sympy expressions by rigorous ball arithmetic (:func:`exactdp.algebra.to_arb`),
  with an exact zero test (expansion, then ``simplify``) when a ball keeps containing 0.

One route is certified but not exact, and is used only when a distribution has no exact
probabilities (``dist.probabilities`` raises; RNM with Gaussian noise):

- the **ball engine**: every probability is a python-flint ``arb`` ball from
  ``dist.evalf_balls(dps)`` (for RNM-Gaussian the radius is the quadrature's error bound,
  :func:`exactdp.numeric.gaussian.gaussian_mp`). Losses, ranges and divergences are
  enclosed in certified intervals; a yes/no answer is given only when the interval is on
  one side, otherwise the work is repeated at the next precision of :data:`BALL_DPS` and
  :class:`BallUndecided` (a ValueError, "undecided at dps=...") is raised at the last one.
  Results carry ``engine == "ball"``, ``interval`` and ``dps``.

References
----------
C. Dwork and A. Roth, The Algorithmic Foundations of Differential Privacy (2014), Def. 2.4.
R. McKenna and D. Sheldon, "Permute-and-Flip", NeurIPS 2020, section 2 (regular
mechanisms, monotone score functions).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property

import flint
import mpmath
import sympy
from sympy.polys.rings import ring

from ..algebra import (
    UnitIntervalSign,
    as_fmpq_poly,
    fmpq_poly_to_sympy,
    sign_at,
    sign_on_unit_interval,
    to_arb,
    verify_sign_analysis,
    xform_from_probabilities,
)
from ..numbers import exact_epsilon, exact_number, safe_sympify
from ..scores import ScoreVector, as_scores
from ..xform import DENSE_DEGREE_LIMIT

__all__ = [
    "PrivacyLoss",
    "DPCheck",
    "Witness",
    "DPCertificate",
    "ConditionCertificate",
    "SupremumResult",
    "privacy_loss",
    "check_dp",
    "certify_dp",
    "sup_privacy_loss",
    "neighbours",
    "EXHAUSTIVE_MAX_N",
    "BALL_DPS",
    "BallUndecided",
]

#: Largest range size for which ``search="auto"`` enumerates all 3**n - 1 vertices.
EXHAUSTIVE_MAX_N = 6

Y = sympy.Symbol("y", positive=True)
EPSILON = sympy.Symbol("epsilon", positive=True)


# =============================================================================== helpers
def _sensitivity(mech: object) -> sympy.Expr:
    return exact_number(getattr(mech, "sensitivity", 1), "sensitivity")


def _monotone(mech: object) -> bool:
    return bool(getattr(mech, "monotone", False))


def _epsilon(mech: object) -> sympy.Expr | None:
    eps = getattr(mech, "epsilon", None)
    return None if eps is None else safe_sympify(eps)


def _name(mech: object) -> str:
    return getattr(mech, "name", None) or type(mech).__name__


def _is_core(mech: object) -> bool:
    from ..mechanisms.base import Mechanism

    return isinstance(mech, Mechanism)


def _sv(scores: object, name: str) -> ScoreVector:
    return as_scores(scores, name)


def _plain(sv: ScoreVector) -> tuple:
    """Scores as a plain tuple (ints kept as Python ints)."""
    if sv.kind == "int":
        return tuple(sv.raw)  # type: ignore[arg-type]
    return tuple(sv.exact)


def _distribution(mech: object, sv: ScoreVector):
    if not hasattr(mech, "distribution"):
        raise ValueError(
            f"{type(mech).__name__} is not a mechanism: it needs a distribution(scores) method"
        )
    return mech.distribution(sv if _is_core(mech) else _plain(sv))


def _exact_probabilities(dist, func: str, mech: object) -> tuple[sympy.Expr, ...]:
    try:
        probs = tuple(safe_sympify(p) for p in dist.probabilities)
    except (ValueError, NotImplementedError) as exc:
        raise ValueError(
            f"{func}: {_name(mech)} has no exact probabilities here ({exc})"
        ) from exc
    for i, p in enumerate(probs):
        if p.atoms(sympy.Float):
            raise ValueError(
                f"{func}: probability {i} of {_name(mech)} contains a float ({p}); "
                "exact probabilities are required"
            )
    return probs


def _is_zero_expr(expr: sympy.Expr) -> bool:
    """Exact zero test for a closed-form number (expansion, then simplify)."""
    if expr == 0:
        return True
    e = sympy.expand(expr)
    if e == 0:
        return True
    e = sympy.expand(sympy.powsimp(e))
    if e == 0:
        return True
    return sympy.simplify(e) == 0


def exact_sign(expr: sympy.Expr) -> int | None:
    """Sign of an exact real expression: -1, 0, +1, or None if it depends on free symbols.

    Numbers are decided by ball arithmetic at rising precision, with an exact zero test
    when a ball keeps containing zero.

    Raises
    ------
    ArithmeticError
        If a non-zero number cannot be told from zero at 2**14 bits.
    """
    expr = safe_sympify(expr)
    if expr == 0:
        return 0
    if expr.free_symbols:
        if expr.is_zero:
            return 0
        if expr.is_positive:
            return 1
        if expr.is_negative:
            return -1
        return 0 if _is_zero_expr(expr) else None
    if expr.is_Rational:
        return int(bool(expr > 0)) - int(bool(expr < 0))
    if expr is sympy.oo:
        return 1
    if expr is -sympy.oo:
        return -1
    prec = 96
    tested = False
    while prec <= 1 << 14:
        try:
            val = to_arb(expr, prec)
        except ValueError:
            val = None
        if val is not None:
            if val > 0:
                return 1
            if val < 0:
                return -1
        if not tested and prec >= 192:
            tested = True
            if _is_zero_expr(expr):
                return 0
            if val is None:
                v = sympy.N(expr, 60)
                if v != 0 and abs(v) > sympy.Float(10) ** -50:
                    return 1 if v > 0 else -1
                raise ArithmeticError(f"exact_sign: cannot decide the sign of {expr}")
        prec *= 2
    raise ArithmeticError(f"exact_sign: cannot decide the sign of {expr}")


# =============================================================================== neighbours
def _check_pair(
    mech: object,
    q: ScoreVector,
    q2: ScoreVector,
    func: str,
    allow_non_neighbour: bool,
) -> None:
    if q.n != q2.n:
        raise ValueError(
            f"{func}: neighbour has {q2.n} scores but scores has {q.n}; neighbouring score "
            "vectors cover the same range"
        )
    if allow_non_neighbour:
        return
    delta = _sensitivity(mech)
    diffs = [b - a for a, b in zip(q.exact, q2.exact, strict=True)]
    for i, d in enumerate(diffs):
        if exact_sign(abs(d) - delta) == 1:
            raise ValueError(
                f"{func}: neighbour[{i}] - scores[{i}] = {d} exceeds the sensitivity {delta} "
                "(||q - q'||_inf must be <= sensitivity); pass allow_non_neighbour=True to "
                "compare arbitrary vectors"
            )
    if _monotone(mech):
        up = any(exact_sign(d) == 1 for d in diffs)
        down = any(exact_sign(d) == -1 for d in diffs)
        if up and down:
            raise ValueError(
                f"{func}: {_name(mech)} is declared for monotone score functions, whose "
                "neighbours move all scores in the same direction, but this neighbour moves "
                "some up and some down; pass allow_non_neighbour=True to compare anyway"
            )


def _moves(n: int, monotone: bool, search: str) -> tuple[list[tuple[int, ...]], str]:
    if search not in ("auto", "exhaustive", "reduced"):
        raise ValueError(f"search must be 'auto', 'exhaustive' or 'reduced', got {search!r}")
    exhaustive = search == "exhaustive" or (search == "auto" and n <= EXHAUSTIVE_MAX_N)
    if exhaustive:
        steps = (0, 1) if monotone else (-1, 0, 1)
        moves = [s for s in itertools.product(steps, repeat=n) if any(s)]
        if monotone:
            moves += [tuple(-v for v in s) for s in moves]
            return moves, "exhaustive monotone vertices {0,1}^n and {0,-1}^n"
        return moves, "exhaustive vertices {-1,0,1}^n"
    moves = []
    for r in range(n):
        e = tuple(1 if i == r else 0 for i in range(n))
        if monotone:
            rest = tuple(1 - v for v in e)
            for s in (e, rest):
                moves += [s, tuple(-v for v in s)]
        else:
            up = tuple(2 * v - 1 for v in e)
            moves += [up, tuple(-v for v in up)]
    ones = tuple([1] * n)
    moves += [ones, tuple(-v for v in ones)]
    if monotone:
        return moves, "reduced (regular mechanism, monotone moves: +-e_r, +-(1 - e_r))"
    return moves, "reduced (regular mechanism: raise r and lower the rest, and the reverse)"


def neighbours(
    mechanism: object, scores: object, search: str = "auto"
) -> tuple[list[ScoreVector], str]:
    """The neighbouring score vectors that the analyzer searches, and why.

    Parameters
    ----------
    mechanism : object
        Supplies ``sensitivity`` (default 1) and ``monotone`` (default False).
    scores : sequence of numbers, shape (n,)
    search : {"auto", "exhaustive", "reduced"}
        ``"exhaustive"``: the vertices ``q + Delta*s`` of the neighbour box,
        ``s in {-1, 0, 1}^n`` without 0 (monotone: ``s in {0,1}^n or {0,-1}^n``).
        ``"reduced"``: for regular mechanisms (symmetric, shift-invariant, monotone in the
        sense of MATH.md section 3) ``Pr[M(q') = r]`` is largest when ``q'`` raises r and
        lowers the others and smallest in the reverse move, so ``q + Delta*(2e_r - 1)`` and
        ``q - Delta*(2e_r - 1)`` for every r suffice; for monotone score functions the
        extreme monotone moves are ``+-Delta e_r`` and ``+-Delta (1 - e_r)``. The all-up and
        all-down shifts are added too. ``"auto"``: exhaustive for ``n <= 6``.

    Returns
    -------
    (list of ScoreVector, str)
        The neighbours and a description of the search.

    References
    ----------
    McKenna & Sheldon (2020), section 2 and Lemma 1 (worst case of regular mechanisms).
    """
    sv = _sv(scores, "scores")
    delta = _sensitivity(mechanism)
    moves, how = _moves(sv.n, _monotone(mechanism), search)
    if sv.kind == "int" and delta.is_Integer:
        d = int(delta)
        out = [
            ScoreVector.from_input([a + d * s for a, s in zip(sv.raw, m, strict=True)],
                                   "neighbour")
            for m in moves
        ]
    else:
        out = [
            ScoreVector.from_input(
                [a + delta * s for a, s in zip(sv.exact, m, strict=True)], "neighbour"
            )
            for m in moves
        ]
    return out, how


# =============================================================================== engines
def _poly_pair(form: sympy.Expr, x: sympy.Symbol, power: int):
    num, den = sympy.fraction(safe_sympify(form))
    if not (num.is_polynomial(x) and den.is_polynomial(x)):
        num, den = sympy.fraction(sympy.cancel(sympy.together(form)))
    pn, pd = as_fmpq_poly(num, x), as_fmpq_poly(den, x)
    if power != 1:
        pn = _spread(pn, power)
        pd = _spread(pd, power)
    return pn, pd


def _terms(expr: sympy.Expr, x: sympy.Symbol) -> dict[int, flint.fmpq] | None:
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
            t = _terms(arg, x)
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
            t = _terms(arg, x)
            if t is None:
                return None
            out = _terms_mul(out, t)
        return out
    if expr.is_Pow and expr.exp.is_Integer:
        k = int(expr.exp)
        if expr.base == x:
            return {k: flint.fmpq(1)}
        base = _terms(expr.base, x)
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


def _max_exponent(expr: sympy.Expr, x: sympy.Symbol) -> int:
    """Largest ``|k|`` of a power ``x**k`` in the expression tree (1 for a bare x)."""
    best = 1 if expr.has(x) else 0
    for p in expr.atoms(sympy.Pow):
        if p.base == x and p.exp.is_Integer:
            best = max(best, abs(int(p.exp)))
    return best


def _form_terms(form: sympy.Expr, x: sympy.Symbol, power: int):
    """``(num, den, direct)``: sparse term dicts in ``y`` (``x = y**power``), or None.

    ``direct`` is True when ``sympy.fraction(form)`` already gave two polynomials (the
    case in which :func:`_poly_pair` gives the same pair without ``cancel``).
    """
    form = safe_sympify(form)
    for direct in (True, False):
        num, den = sympy.fraction(form if direct else sympy.together(form))
        tn, td = _terms(num, x), _terms(den, x)
        if tn is not None and td is not None and td:
            low = min(list(tn) + list(td))
            shift = -low if low < 0 else 0
            return (
                {(e + shift) * power: c for e, c in tn.items()},
                {(e + shift) * power: c for e, c in td.items()},
                direct and shift == 0,
            )
    return None


def _dense(t: dict) -> flint.fmpq_poly:
    if not t:
        return flint.fmpq_poly([0])
    coeffs = [flint.fmpq(0)] * (max(t) + 1)
    for e, c in t.items():
        coeffs[e] = c
    return flint.fmpq_poly(coeffs)


def _fmpq_poly_terms(p: flint.fmpq_poly) -> dict[int, flint.fmpq]:
    return {k: c for k, c in enumerate(p.coeffs()) if c != 0}


def _spread(p: flint.fmpq_poly, m: int) -> flint.fmpq_poly:
    coeffs = p.coeffs()
    out = [flint.fmpq(0)] * ((len(coeffs) - 1) * m + 1) if coeffs else []
    for k, c in enumerate(coeffs):
        out[k * m] = c
    return flint.fmpq_poly(out)


def _xform(dist, eps: sympy.Expr, probs=None):
    """``(x, forms, kappa)`` with ``x = exp(-eps*kappa)``, or None if there is no x-form."""
    rf = None
    if hasattr(dist, "rational_form"):
        try:
            rf = dist.rational_form()
        except (ValueError, NotImplementedError, AttributeError, TypeError):
            rf = None
    if rf is not None:
        try:
            x, forms = rf[0], rf[1]
            value = rf.value
        except (AttributeError, IndexError, TypeError):
            rf = None
    if rf is not None:
        kappa = sympy.simplify(-sympy.log(value) / eps)
        if kappa.is_Rational and kappa > 0:
            return x, tuple(forms), kappa
    try:
        p = probs if probs is not None else dist.probabilities
        y, forms, kappa = xform_from_probabilities(p, eps)
    except (ValueError, NotImplementedError, TypeError):
        return None
    return y, forms, kappa


class _XEngine:
    """Probabilities as ``(num, den)`` flint polynomials in ``y = exp(-eps/N)``."""

    kind = "x-form"

    def __init__(self, eps: sympy.Expr, N: int, probs: list[list[tuple]]):
        self.eps = eps
        self.N = N
        self.probs = probs
        self.symbolic = bool(eps.free_symbols)
        self.y_value = sympy.exp(-eps / N)
        self._exact_point = None if (self.symbolic or eps.is_algebraic) else self.y_value
        self._balls: dict[int, flint.arb] = {}

    # -- signs
    def _point(self, prec: int) -> flint.arb:
        if prec not in self._balls:
            self._balls[prec] = to_arb(-self.eps / self.N, prec + 32).exp()
        return self._balls[prec]

    def sign(self, f: flint.fmpq_poly) -> int | None:
        if f == 0:
            return 0
        if self.symbolic:
            return sign_on_unit_interval(f).constant_sign
        return sign_at(f, self._point, exact_point=self._exact_point)

    # -- probabilities
    def is_zero(self, p) -> bool:
        return p[0] == 0

    def cmp_prob(self, a, b) -> int | None:
        return self.sign(a[0] * b[1] - b[0] * a[1])

    def ratio(self, a, b):
        return (a[0] * b[1], a[1] * b[0])

    def inv(self, R):
        return (R[1], R[0])

    def div(self, R1, R2):
        return (R1[0] * R2[1], R1[1] * R2[0])

    def cmp(self, R1, R2) -> int | None:
        return self.sign(R1[0] * R2[1] - R2[0] * R1[1])

    def cmp_one(self, R) -> int | None:
        return self.sign(R[0] - R[1])

    def cmp_exp(self, R, claim: sympy.Expr) -> int | None:
        t = sympy.simplify(claim / self.eps) * self.N
        if t.is_Integer and t >= 0:
            mono = flint.fmpq_poly([0] * int(t) + [1])
            return self.sign(mono * R[0] - R[1])
        return exact_sign(self.to_sympy(R) - sympy.exp(claim))

    def to_sympy(self, R) -> sympy.Expr:
        if max(R[0].degree(), R[1].degree()) > _SYMPY_DEGREE:
            # high degree: reduce by the flint gcd and build only the non-zero terms
            # (sympy's dense Poly / cancel cost seconds at degree 10**5)
            g = R[0].gcd(R[1])
            num, den = R[0] // g, R[1] // g
            return _terms_value(
                _fmpq_poly_terms(num), _fmpq_poly_terms(den), self.eps, self.N
            )
        u = fmpq_poly_to_sympy(R[0], Y).as_expr()
        v = fmpq_poly_to_sympy(R[1], Y).as_expr()
        r = sympy.cancel(u / v)
        return sympy.powsimp(r.subs(Y, self.y_value))

    def prob_sympy(self, p) -> sympy.Expr:
        return self.to_sympy(p)

    def check_normalised(self, i: int, func: str, name: str, scores) -> None:
        num, den = flint.fmpq_poly([0]), flint.fmpq_poly([1])
        for a, b in self.probs[i]:
            if b == den:
                num = num + a
            else:
                num, den = num * b + a * den, den * b
        if num != den:
            total = sympy.cancel(
                fmpq_poly_to_sympy(num, Y).as_expr() / fmpq_poly_to_sympy(den, Y).as_expr()
            )
            raise ValueError(
                f"{func}: the probabilities of {name} on {scores} do not sum to 1 (sum = "
                f"{total.subs(Y, self.y_value)}); not a probability distribution"
            )
        for r, (a, b) in enumerate(self.probs[i]):
            if self.symbolic:
                ok = sign_on_unit_interval(a * b).nonnegative and not sign_on_unit_interval(
                    b
                ).roots
            else:
                ok = (self.sign(a) or 0) * (self.sign(b) or 0) >= 0
            if not ok:
                raise ValueError(
                    f"{func}: probability {r} of {name} on {scores} is negative"
                )


#: Above this degree the dense engine converts results to sympy term by term.
_SYMPY_DEGREE = 2000

_SPARSE_RING, _SPARSE_Y = ring("y", sympy.QQ)


def _sparse(t: dict):
    """A term dict ``{exponent: fmpq}`` as an element of the sparse ring ``QQ[y]``."""
    QQ = _SPARSE_RING.domain
    return _SPARSE_RING.from_dict(
        {(int(e),): QQ(int(c.p), int(c.q)) for e, c in t.items() if c != 0}
    )


def _sparse_items(f) -> list[tuple[int, sympy.Rational]]:
    """Terms of a sparse ring element, by increasing exponent, coefficients as Rationals."""
    out = []
    for (e,), c in f.terms():
        p, q = (c.p, c.q) if hasattr(c, "p") else (c.numerator, c.denominator)
        out.append((int(e), sympy.Rational(int(p), int(q))))
    return sorted(out)


def _terms_value(num: dict, den: dict, eps: sympy.Expr, N: int) -> sympy.Expr:
    """``num(y)/den(y)`` at ``y = exp(-eps/N)``, from term dicts, without expanding.

    The common power of ``y`` and a single-term denominator are divided out, and a
    numerator that is ``c * y**k`` times the denominator gives ``c * exp(-k*eps/N)``; no
    other common factor is cancelled (a sparse gcd at degree 10**300 is out of reach), so
    the expression may be unsimplified but is exact.
    """

    def rat(c) -> sympy.Rational:
        p, q = (c.p, c.q) if hasattr(c, "p") else (c.numerator, c.denominator)
        return sympy.Rational(int(p), int(q))

    num = {e: rat(c) for e, c in num.items() if c != 0}
    den = {e: rat(c) for e, c in den.items() if c != 0}
    if not num:
        return sympy.Integer(0)
    if len(num) == len(den):
        # num = c * y**k * den (checked term by term): the value is one exp
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


class _SparseXEngine(_XEngine):
    """The x-form engine on sparse polynomials (degree above ``DENSE_DEGREE_LIMIT``).

    Polynomials in ``y = exp(-eps/N)`` are elements of sympy's sparse ring ``QQ[y]``
    (a dict of exponents), so ``y**(2*10**300)`` is one term. Signs:

    - numeric epsilon: the lowest power of ``y`` is factored out and the rest is evaluated
      in ball arithmetic at rising precision, each ``y**k`` as ``exp(-k*eps/N)`` with
      ``log2(k)`` guard bits; for algebraic epsilon ``y`` is transcendental, so a non-zero
      polynomial is never 0 at ``y`` and the loop ends;
    - symbolic epsilon (sign on all of ``(0, 1)``): Descartes' rule of signs on the
      sparse coefficient sequence (no variation: constant sign; one variation: the single
      positive root lies in ``(0, 1)`` iff the signs at ``0+`` and ``1`` differ), and the
      intermediate value theorem when the signs at ``0+`` and ``1`` differ; anything else
      raises ValueError (give a numeric epsilon).
    """

    kind = "x-form"
    sparse = True
    func = "privacy analysis"

    def __init__(self, eps: sympy.Expr, N: int, probs: list[list[tuple]]):
        super().__init__(eps, N, probs)
        # y**k must stay exp(-k*eps/N) in sympy: for eps = log(2) sympy would turn it into
        # 2**(-k/N) and try to compute that power for k ~ 10**300
        if not self.symbolic and not isinstance(sympy.exp(-eps * 3 / N), sympy.exp):
            raise ValueError(
                f"epsilon = {eps}: sympy rewrites y**k = exp(-k*epsilon/{N}) as a power "
                f"(y = {self.y_value}) that it would expand for the score gaps above "
                f"DENSE_DEGREE_LIMIT = {DENSE_DEGREE_LIMIT} here; use a rational epsilon "
                "(or smaller gaps)"
            )

    def _y_power(self, k: int, prec: int) -> flint.arb:
        """Ball of ``y**k = exp(-k*eps/N)`` with relative accuracy about ``2**-prec``."""
        guard = prec + max(int(k).bit_length(), 1) + 32
        old = flint.ctx.prec
        flint.ctx.prec = guard
        try:
            return (to_arb(-self.eps / self.N, guard) * k).exp()
        finally:
            flint.ctx.prec = old

    def sign(self, f) -> int | None:
        if not f:
            return 0
        items = _sparse_items(f)
        if self.symbolic:
            try:
                return _sparse_unit_sign(items)
            except ValueError as exc:
                raise ValueError(f"{self.func}: {exc}") from exc
        low = items[0][0]
        prec = 96
        while prec <= 1 << 15:
            old = flint.ctx.prec
            try:
                parts = [
                    (c, self._y_power(e - low, prec) if e != low else flint.arb(1))
                    for e, c in items
                ]
                flint.ctx.prec = prec
                total = flint.arb(0)
                for c, yk in parts:
                    total += flint.arb(flint.fmpq(int(c.p), int(c.q))) * yk
            finally:
                flint.ctx.prec = old
            if total > 0:
                return 1
            if total < 0:
                return -1
            prec *= 2
        raise ValueError(
            f"{self.func}: sign of a sparse polynomial of degree {items[-1][0]} at "
            f"y = exp(-{self.eps}/"
            f"{self.N}) not decided at {1 << 15} bits (epsilon = {self.eps} is not known to "
            "be algebraic, so the value may be exactly 0)"
        )

    def cmp_exp(self, R, claim: sympy.Expr) -> int | None:
        t = sympy.simplify(claim / self.eps) * self.N
        if t.is_Integer and t >= 0:
            mono = _SPARSE_Y ** int(t)
            return self.sign(mono * R[0] - R[1])
        return exact_sign(self.to_sympy(R) - sympy.exp(claim))

    def to_sympy(self, R) -> sympy.Expr:
        num = {e: c for (e,), c in R[0].terms()}
        den = {e: c for (e,), c in R[1].terms()}
        return _terms_value(num, den, self.eps, self.N)

    def check_normalised(self, i: int, func: str, name: str, scores) -> None:
        num, den = _SPARSE_RING.zero, _SPARSE_RING.one
        for a, b in self.probs[i]:
            if b == den:
                num = num + a
            else:
                num, den = num * b + a * den, den * b
        if num != den:
            total = self.to_sympy((num, den))
            raise ValueError(
                f"{func}: the probabilities of {name} on {scores} do not sum to 1 (sum = "
                f"{total}); not a probability distribution"
            )
        for r, (a, b) in enumerate(self.probs[i]):
            sa, sb = self.sign(a), self.sign(b)
            if sb in (None, 0) or sa is None or sa * sb < 0:
                raise ValueError(
                    f"{func}: probability {r} of {name} on {scores} is negative (or its "
                    "denominator vanishes) for some epsilon"
                )


def _sparse_unit_sign(items: list[tuple[int, sympy.Rational]]) -> int | None:
    """Sign of a non-zero sparse polynomial on ``(0, 1)``; None if it changes there.

    ``items``: ``(exponent, coefficient)`` by increasing exponent, coefficients non-zero.
    With ``s0`` the sign at ``0+`` (lowest term) and ``f(1)`` the coefficient sum:

    - no sign variation in the coefficients: no positive root (Descartes), sign ``s0``;
    - ``f(1)`` of sign ``-s0``: a root inside (intermediate value theorem): None;
    - ``f(1)`` of sign ``s0`` and one variation: the only positive root is beyond 1;
    - ``f(1) = 0``: ``f = (1 - y) g`` where g's coefficients are the partial sums ``S_j``
      of f's (piecewise constant between exponents, so computed sparsely). If they do
      not vary in sign, g has no positive root: sign ``s0``. If they vary once, g has
      exactly one positive root, which lies in ``(0, 1)`` iff
      ``g(1) = sum_j S_j`` has sign ``-s0``; otherwise the sign on ``(0, 1)`` is ``s0``.

    Raises
    ------
    ValueError
        If these rules do not decide it.

    References
    ----------
    Descartes' rule of signs; G. Polya and G. Szego, Problems and Theorems in Analysis II,
    Part V, Problems 36-38 (partial sums and roots in (0, 1)).
    """

    def sgn(v) -> int:
        return int(bool(v > 0)) - int(bool(v < 0))

    def variations(values) -> int:
        signs = [sgn(v) for v in values if v != 0]
        return sum(1 for a, b in itertools.pairwise(signs) if a != b)

    s0 = sgn(items[0][1])
    if variations(c for _, c in items) == 0:
        return s0
    partial = []
    run = sympy.Integer(0)
    for _, c in items:
        run += c
        partial.append(run)
    s1 = sgn(partial[-1])
    if s1 == -s0:
        return None
    if s1 == s0 and variations(c for _, c in items) == 1:
        return s0
    if s1 == 0 and variations(partial) == 0:
        return s0  # g has no positive root
    if s1 == 0 and variations(partial) == 1:
        g1 = sum(
            (partial[i] * (items[i + 1][0] - items[i][0]) for i in range(len(items) - 1)),
            sympy.Integer(0),
        )
        return None if sgn(g1) == -s0 else s0
    raise ValueError(
        "the sign on (0, 1) of a sparse polynomial with "
        f"{len(items)} terms and degree {items[-1][0]} (score gaps above "
        f"DENSE_DEGREE_LIMIT = {DENSE_DEGREE_LIMIT}) is not decided by Descartes' rule; "
        "give a numeric epsilon"
    )


class _GenericEngine:
    """Probabilities as sympy expressions; signs by ball arithmetic and zero tests."""

    kind = "generic"

    def __init__(self, eps: sympy.Expr | None, probs: list[list[sympy.Expr]]):
        self.eps = eps
        self.probs = probs
        self.symbolic = bool(eps is not None and eps.free_symbols)

    def is_zero(self, p) -> bool:
        s = exact_sign(p)
        return s == 0

    def cmp_prob(self, a, b) -> int | None:
        return exact_sign(a - b)

    def ratio(self, a, b):
        return a / b

    def inv(self, R):
        return 1 / R

    def div(self, R1, R2):
        return R1 / R2

    def cmp(self, R1, R2) -> int | None:
        return exact_sign(R1 - R2)

    def cmp_one(self, R) -> int | None:
        return exact_sign(R - 1)

    def cmp_exp(self, R, claim: sympy.Expr) -> int | None:
        return exact_sign(R - sympy.exp(claim))

    def to_sympy(self, R) -> sympy.Expr:
        r = sympy.powsimp(sympy.cancel(R)) if not R.has(sympy.erf) else R
        return r

    def prob_sympy(self, p) -> sympy.Expr:
        return p

    def check_normalised(self, i: int, func: str, name: str, scores) -> None:
        probs = self.probs[i]
        total = sympy.Add(*probs)
        s = exact_sign(total - 1)
        if s != 0:
            raise ValueError(
                f"{func}: the probabilities of {name} on {scores} do not sum to 1 (sum = "
                f"{total}); not a probability distribution"
            )
        for r, p in enumerate(probs):
            if exact_sign(p) == -1:
                raise ValueError(f"{func}: probability {r} of {name} on {scores} is negative")


#: Working precisions (decimal digits) of the ball engine, tried in turn until a
#: comparison is decided.
BALL_DPS = (30, 60, 120)


class BallUndecided(ValueError):
    """A comparison of the ball engine stayed undecided at the highest working precision."""


@contextmanager
def _arb_prec(dps: int):
    old = flint.ctx.prec
    flint.ctx.prec = int(dps * 3.33) + 64
    try:
        yield
    finally:
        flint.ctx.prec = old


def _arb_float(x: flint.arb, dps: int | None = None) -> sympy.Float:
    """An exact arb (or the midpoint of a ball) as a sympy Float.

    ``dps=None`` keeps every bit (for interval end points, so that rounding cannot shrink
    the enclosure); otherwise rounds to ``dps`` digits.
    """
    man, exp = x.mid().man_exp()
    bits = max(53, int(man).bit_length())
    with mpmath.workprec(bits):
        v = mpmath.mpf((int(man), int(exp)))
    if dps is None:
        return sympy.Float(v, precision=bits)
    return sympy.Float(v, dps)


class _BallEngine:
    """Certified numeric engine for distributions without exact probabilities.

    Each probability is a python-flint ``arb`` ball from ``dist.evalf_balls(dps)`` (for
    RNM-Gaussian the radius is the quadrature's error bound). A comparison is decided when
    the balls of the two sides separate; otherwise it is repeated at the next precision of
    :data:`BALL_DPS`, and a :class:`BallUndecided` (a ValueError) is raised at the last one:
    the engine never guesses. Exact ties (equal probabilities) can therefore never be
    decided. Probabilities are handles ``("p", i, r)``; ratios are small expression trees
    evaluated at the working precision of each attempt.
    """

    kind = "ball"

    def __init__(self, dists: Sequence, func: str, name: str, levels: Sequence[int] = ()):
        self.dists = list(dists)
        self.func = func
        self.name = name
        self.levels = tuple(levels) or BALL_DPS
        self._cache: dict[int, list[tuple[flint.arb, ...]]] = {}
        first = self.balls(self.levels[0])
        self.probs = [[("p", i, r) for r in range(len(b))] for i, b in enumerate(first)]

    # -- balls
    def balls(self, dps: int) -> list[tuple[flint.arb, ...]]:
        """Per vector, the raw probability balls at ``dps`` digits (cached)."""
        if dps not in self._cache:
            out = []
            for d in self.dists:
                bs = tuple(d.evalf_balls(dps))
                for r, b in enumerate(bs):
                    if not isinstance(b, flint.arb) or not b.is_finite():
                        raise ValueError(
                            f"{self.func}: evalf_balls({dps}) of {self.name} gave {b!r} for "
                            f"output {r}; finite python-flint arb balls are required"
                        )
                out.append(bs)
            self._cache[dps] = out
        return self._cache[dps]

    def _ev(self, h, dps: int) -> flint.arb:
        tag = h[0]
        if tag == "p":
            return self.balls(dps)[h[1]][h[2]].nonnegative_part()
        if tag == "div":
            return self._ev(h[1], dps) / self._ev(h[2], dps)
        if tag == "inv":
            return 1 / self._ev(h[1], dps)
        raise AssertionError(tag)  # pragma: no cover

    def _decide(self, diff: Callable[[int], flint.arb], what: str) -> int:
        for dps in self.levels:
            with _arb_prec(dps):
                d = diff(dps)
                if d > 0:
                    return 1
                if d < 0:
                    return -1
                if d.is_exact() and d.is_zero():
                    return 0
        raise BallUndecided(
            f"{self.func}: {what} is undecided at dps={self.levels[-1]} (the certified balls "
            f"of {self.name} still overlap); the two sides are equal or closer than "
            f"10^-{self.levels[-1]}"
        )

    # -- the engine interface
    def is_zero(self, p) -> bool:
        for dps in self.levels:
            with _arb_prec(dps):
                b = self.balls(dps)[p[1]][p[2]]
                if b.is_exact() and b.is_zero():
                    return True
                if b > 0:
                    return False
        raise BallUndecided(
            f"{self.func}: whether probability {p[2]} of {self.name} is 0 is undecided at "
            f"dps={self.levels[-1]}"
        )

    def cmp_prob(self, a, b) -> int:
        return self._decide(lambda d: self._ev(a, d) - self._ev(b, d), "a probability comparison")

    def ratio(self, a, b):
        return ("div", a, b)

    def inv(self, R):
        return ("inv", R)

    def div(self, R1, R2):
        return ("div", R1, R2)

    def cmp(self, R1, R2) -> int:
        return self._decide(lambda d: self._ev(R1, d) - self._ev(R2, d), "a ratio comparison")

    def cmp_one(self, R) -> int:
        return self._decide(lambda d: self._ev(R, d) - 1, "a ratio against 1")

    def cmp_exp(self, R, claim: sympy.Expr) -> int:
        def diff(d: int) -> flint.arb:
            return self._ev(R, d) - to_arb(claim, flint.ctx.prec).exp()

        return self._decide(diff, f"a ratio against exp({claim})")

    def to_sympy(self, R) -> sympy.Expr:
        dps = self.levels[0]
        with _arb_prec(dps):
            return _arb_float(self._ev(R, dps), dps)

    def prob_sympy(self, p) -> sympy.Expr:
        return self.to_sympy(p)

    def check_normalised(self, i: int, func: str, name: str, scores) -> None:
        dps = self.levels[0]
        with _arb_prec(dps):
            bs = self.balls(dps)[i]
            total = sum(bs, flint.arb(0))
            if not total.contains(1):
                raise ValueError(
                    f"{func}: the probabilities of {name} on {scores} do not sum to 1 (their "
                    f"certified sum is {total.str(10, radius=True)}); not a probability "
                    "distribution"
                )
            for r, b in enumerate(bs):
                if b < 0:
                    raise ValueError(f"{func}: probability {r} of {name} on {scores} is negative")

    # -- certified enclosures used by the analyzer's ball routes
    def log_ratios(self, i: int, j: int, dps: int) -> list | None:
        """Per output ``ln(P_r(i) / P_r(j))`` at ``dps`` (call inside ``_arb_prec(dps)``).

        Entries: an arb ball; ``None`` when both probabilities are exactly 0; ``+oo`` or
        ``-oo`` (sympy) when exactly one of them is exactly 0. Returns None when some ball
        cannot yet be told from 0 (more precision needed).
        """
        out: list = []
        for a, b in zip(self.balls(dps)[i], self.balls(dps)[j], strict=True):
            za = a.is_exact() and a.is_zero()
            zb = b.is_exact() and b.is_zero()
            pa, pb = a > 0, b > 0
            if za and zb:
                out.append(None)
            elif za and pb:
                out.append(-sympy.oo)
            elif zb and pa:
                out.append(sympy.oo)
            elif pa and pb:
                out.append(a.log() - b.log())
            else:
                return None
        return out


@dataclass(frozen=True)
class _Iv:
    """A certified interval ``[lo, hi]`` of exact arb end points (or an exact infinity)."""

    lo: flint.arb | None
    hi: flint.arb | None
    infinite: bool = False

    def better_lo(self, other: _Iv) -> bool:
        if self.infinite or other.infinite:
            return self.infinite and not other.infinite
        return self.lo > other.lo

    def narrow(self, dps: int) -> bool:
        if self.infinite:
            return True
        return bool(self.hi - self.lo <= flint.arb(10) ** (-(2 * dps // 3)) * (1 + abs(self.hi)))

    def sympy(self) -> tuple:
        if self.infinite:
            return (sympy.oo, sympy.oo)
        return (_arb_float(self.lo), _arb_float(self.hi))

    def value(self, dps: int) -> sympy.Expr:
        if self.infinite:
            return sympy.oo
        return _arb_float((self.lo + self.hi) / 2, dps)


def _iv_max(ivs: Sequence[_Iv]) -> _Iv:
    """Enclosure of the maximum of quantities enclosed by ``ivs`` (non-empty)."""
    if any(v.infinite for v in ivs):
        return _Iv(None, None, True)
    lo = max((v.lo for v in ivs), key=_ArbKey)
    hi = max((v.hi for v in ivs), key=_ArbKey)
    return _Iv(lo, hi)


class _ArbKey:
    """Sort key for exact arb numbers (comparisons of exact values are decided)."""

    def __init__(self, x: flint.arb):
        self.x = x

    def __lt__(self, other: _ArbKey) -> bool:
        return bool(self.x < other.x)


def _abs_iv(L: flint.arb) -> _Iv:
    return _Iv(L.abs_lower(), L.abs_upper())


def _ball_pair_loss(engine: _BallEngine, i: int, j: int, dps: int):
    """``(loss interval, per-output intervals, log-ratio balls)`` or None if undecided."""
    logs = engine.log_ratios(i, j, dps)
    if logs is None:
        return None
    per: dict[int, _Iv] = {}
    for r, L in enumerate(logs):
        if L is None:
            continue
        per[r] = _Iv(None, None, True) if isinstance(L, sympy.Basic) else _abs_iv(L)
    if not per:
        zero = flint.arb(0)
        return _Iv(zero, zero), per, logs
    return _iv_max(list(per.values())), per, logs


def _ball_output(per: dict[int, _Iv], total: _Iv) -> tuple[int, tuple[int, ...]]:
    """The output with the best certified lower bound, and every output that may attain."""
    best = None
    for r, iv in per.items():
        if best is None or iv.better_lo(per[best]):
            best = r
    if total.infinite:
        cands = tuple(r for r, iv in per.items() if iv.infinite)
    else:
        cands = tuple(r for r, iv in per.items() if iv.hi >= total.lo)
    return best, cands


def _ball_ratios(engine: _BallEngine, i: int, j: int, dps: int) -> tuple:
    out = []
    for a, b in zip(engine.balls(dps)[i], engine.balls(dps)[j], strict=True):
        za = a.is_exact() and a.is_zero()
        zb = b.is_exact() and b.is_zero()
        if za and zb:
            out.append(sympy.nan)
        elif zb:
            out.append(sympy.oo)
        elif za:
            out.append(sympy.Integer(0))
        else:
            out.append(_arb_float(a.nonnegative_part() / b.nonnegative_part(), dps))
    return tuple(out)


def _undecided(func: str, engine: _BallEngine, what: str) -> BallUndecided:
    return BallUndecided(
        f"{func}: {what} undecided at dps={engine.levels[-1]}: the certified probability "
        f"balls of {engine.name} are too wide (a probability cannot be told from 0)"
    )


def _needs_balls(dists: Sequence) -> bool:
    """True iff some distribution has no exact probabilities but every one offers balls."""
    missing = False
    for d in dists:
        try:
            _ = d.probabilities
        except (ValueError, NotImplementedError):
            missing = True
            break
    return missing and all(hasattr(d, "evalf_balls") for d in dists)


def _xform_probs(xforms: list, func: str, dense_only: bool):
    """``(N, probs, degree, sparse)`` of the x-form engine for these x-forms.

    The degree in ``y`` decides the representation: up to
    :data:`exactdp.xform.DENSE_DEGREE_LIMIT` dense flint ``fmpq_poly`` pairs, beyond it
    sparse sympy ring elements (a gap of 10**300 is one term, not 10**300 coefficients).
    """
    N = 1
    for _, _, kappa in xforms:
        N = math.lcm(N, int(kappa.q))
    powers = [int(N * kappa) for _, _, kappa in xforms]
    terms = [
        [_form_terms(f, x, pw) for f in forms]
        for (x, forms, _), pw in zip(xforms, powers, strict=True)
    ]
    degree = 0
    for (x, forms, _), pw, ts in zip(xforms, powers, terms, strict=True):
        for f, t in zip(forms, ts, strict=True):
            if t is None:
                degree = max(degree, _max_exponent(safe_sympify(f), x) * pw)
            else:
                degree = max([degree, *t[0], *t[1]])
    if degree <= DENSE_DEGREE_LIMIT:
        probs = [
            [
                (_dense(t[0]), _dense(t[1])) if t is not None and t[2] else _poly_pair(f, x, pw)
                for f, t in zip(forms, ts, strict=True)
            ]
            for (x, forms, _), pw, ts in zip(xforms, powers, terms, strict=True)
        ]
        return N, probs, degree, False
    if dense_only:
        raise ValueError(
            f"{func}: the score gaps make the probabilities polynomials of degree {degree} in "
            f"y = exp(-epsilon/{N}), above exactdp.xform.DENSE_DEGREE_LIMIT = "
            f"{DENSE_DEGREE_LIMIT}; exact root isolation on (0, 1) needs dense polynomials, "
            "so no certificate for every epsilon is given for such gaps. Use privacy_loss or "
            "check_dp at a numeric epsilon (exact, sparse arithmetic)"
        )
    if any(t is None for ts in terms for t in ts):
        raise ValueError(
            f"{func}: a probability is not a sparse rational function of "
            f"y = exp(-epsilon/{N}) that exactdp can handle at degree {degree} "
            f"(above DENSE_DEGREE_LIMIT = {DENSE_DEGREE_LIMIT})"
        )
    probs = [[(_sparse(t[0]), _sparse(t[1])) for t in ts] for ts in terms]
    return N, probs, degree, True


def _make_engine(
    mech: object,
    vectors: Sequence[ScoreVector],
    func: str,
    check: bool = True,
    dense_only: bool = False,
):
    """One engine holding the probabilities of ``mech`` on every vector.

    The x-form engine when every probability is rational in ``exp(-eps/N)`` (dense flint
    polynomials up to degree :data:`exactdp.xform.DENSE_DEGREE_LIMIT`, sparse ones beyond;
    ``dense_only=True`` raises ValueError instead of going sparse), else the generic
    (exact sympy) engine; the ball engine only when some distribution has no exact
    probabilities (``probabilities`` raises) and every one offers ``evalf_balls``.
    """
    eps = _epsilon(mech)
    dists = [_distribution(mech, v) for v in vectors]
    xforms = None
    if eps is not None and not eps.has(sympy.oo):
        xforms = []
        for d in dists:
            xf = _xform(d, eps)
            if xf is None:
                xforms = None
                break
            xforms.append(xf)
    if xforms is not None:
        N, probs, degree, sparse = _xform_probs(xforms, func, dense_only)
        if all(len(p) == v.n for p, v in zip(probs, vectors, strict=True)):
            if sparse:
                try:
                    engine = _SparseXEngine(eps, N, probs)
                except ValueError as exc:
                    raise ValueError(f"{func}: {exc}") from exc
                engine.func = func
            else:
                engine = _XEngine(eps, N, probs)
        else:
            xforms = None
    if xforms is None:
        if _needs_balls(dists):
            engine = _BallEngine(dists, func, _name(mech))
        else:
            probs = [list(_exact_probabilities(d, func, mech)) for d in dists]
            engine = _GenericEngine(eps, probs)
    for i, (p, v) in enumerate(zip(engine.probs, vectors, strict=True)):
        if len(p) != v.n:
            raise ValueError(
                f"{func}: {_name(mech)} returned {len(p)} probabilities for {v.n} scores"
            )
        if check:
            engine.check_normalised(i, func, _name(mech), _plain(v))
    return engine


# =============================================================================== privacy loss
@dataclass(frozen=True)
class PrivacyLoss:
    """The privacy loss ``max_r |ln(P_r / P'_r)|`` of one pair of score vectors.

    Exact unless ``engine == "ball"`` (mechanisms without exact probabilities, such as
    RNM with Gaussian noise), where it is a certified enclosure.

    Attributes
    ----------
    value : sympy.Expr
        The loss (``oo`` when one probability is 0 and the other is not; a ``Max`` of the
        candidates when epsilon is symbolic and the largest one depends on epsilon). With
        the ball engine: a ``sympy.Float`` with ``dps`` significant digits (the working
        precision), the midpoint of ``interval``.
    output : int or None
        The output attaining it (None when it depends on a symbolic epsilon). With the ball
        engine: the output with the largest certified lower bound (exact ties cannot be
        resolved numerically; see ``candidates``).
    ratios : tuple of sympy.Expr, shape (n,)
        ``P_r(q) / P_r(q')`` per output (``oo``, 0, or ``nan`` when both are 0); sympy
        Floats at ``dps`` digits with the ball engine.
    scores, neighbour : tuple
        The pair.
    direction : int
        +1 if ``P_output(q) > P_output(q')``, -1 if smaller, 0 if the loss is 0 (or, with
        the ball engine, if the sign is undecided).
    candidates : tuple of int
        Outputs whose loss may be the largest (one entry unless epsilon is symbolic; with
        the ball engine every output whose interval reaches the largest lower bound).
    engine : str
        ``"x-form"``, ``"generic"`` (exact) or ``"ball"`` (certified numeric).
    interval : tuple of sympy.Float or None
        Ball engine only: ``(lo, hi)`` with ``lo <= loss <= hi`` certified (end points
        exact binary numbers, ``(oo, oo)`` for an infinite loss); None for exact engines.
    dps : int or None
        Ball engine only: the working precision (decimal digits) of the result.
    """

    value: sympy.Expr
    output: int | None
    ratios: tuple
    scores: tuple
    neighbour: tuple
    direction: int
    candidates: tuple = ()
    engine: str = "x-form"
    interval: tuple | None = None
    dps: int | None = None

    def to_float(self) -> float:
        """The loss as a float (``inf`` for ``oo``); needs a numeric epsilon."""
        if self.value is sympy.oo:
            return math.inf
        return float(sympy.N(self.value, 30))

    def __float__(self) -> float:
        return self.to_float()


def _pair_candidates(engine, i: int, j: int):
    """Per output: ('inf', r, dir) or ('ratio', r, R >= 1, dir) or ('both', r, R, None)."""
    out = []
    for r, (a, b) in enumerate(zip(engine.probs[i], engine.probs[j], strict=True)):
        za, zb = engine.is_zero(a), engine.is_zero(b)
        if za and zb:
            continue
        if za or zb:
            out.append(("inf", r, None, -1 if za else 1))
            continue
        R = engine.ratio(a, b)
        s = engine.cmp_one(R)
        if s is None:
            out.append(("ratio", r, R, 1))
            out.append(("ratio", r, engine.inv(R), -1))
        elif s >= 0:
            out.append(("ratio", r, R, s))
        else:
            out.append(("ratio", r, engine.inv(R), -1))
    return out


def _max_candidates(engine, cands):
    """Undominated candidates (one when all comparisons are decided)."""
    best: list = []
    for c in cands:
        if c[0] == "inf":
            if not best or best[0][0] != "inf":
                best = [c]
            continue
        if best and best[0][0] == "inf":
            continue
        keep = []
        dominated = False
        for b in best:
            s = engine.cmp(c[2], b[2])
            if s is None:
                keep.append(b)
            elif s <= 0:
                dominated = True
                keep.append(b)
            # s > 0: c beats b, drop b
        if not dominated:
            keep.append(c)
        best = keep
    return best


def _value_of(engine, cand) -> sympy.Expr:
    if cand[0] == "inf":
        return sympy.oo
    R = engine.to_sympy(cand[2])
    val = sympy.log(R)
    return val


def _ratios(engine, i: int, j: int) -> tuple:
    out = []
    for a, b in zip(engine.probs[i], engine.probs[j], strict=True):
        za, zb = engine.is_zero(a), engine.is_zero(b)
        if za and zb:
            out.append(sympy.nan)
        elif zb:
            out.append(sympy.oo)
        elif za:
            out.append(sympy.Integer(0))
        else:
            out.append(engine.to_sympy(engine.ratio(a, b)))
    return tuple(out)


def _loss_from_engine(engine, i: int, j: int, q: ScoreVector, q2: ScoreVector) -> PrivacyLoss:
    cands = _pair_candidates(engine, i, j)
    best = _max_candidates(engine, cands)
    ratios = _ratios(engine, i, j)
    if not best:
        return PrivacyLoss(sympy.Integer(0), None, ratios, _plain(q), _plain(q2), 0, (),
                           engine.kind)
    if len(best) == 1:
        c = best[0]
        value = _value_of(engine, c)
        direction = c[3] if value != 0 else 0
        return PrivacyLoss(value, c[1], ratios, _plain(q), _plain(q2), direction, (c[1],),
                           engine.kind)
    value = sympy.Max(*[_value_of(engine, c) for c in best])
    return PrivacyLoss(value, None, ratios, _plain(q), _plain(q2), 0,
                       tuple(sorted({c[1] for c in best})), engine.kind)


def privacy_loss(
    mechanism: object,
    scores: object,
    neighbour: object,
    *,
    allow_non_neighbour: bool = False,
) -> PrivacyLoss:
    """Exact privacy loss ``max_r |ln(Pr[M(q) = r] / Pr[M(q') = r])|`` of one pair.

    Parameters
    ----------
    mechanism : object
        Any object with ``distribution(scores)`` whose result has exact ``probabilities``
        (exactdp mechanisms, :func:`~exactdp.mechanisms.custom.mechanism_from_function`),
        or, when it has none, certified ``evalf_balls(dps)`` (RNM with Gaussian noise: the
        ball engine, see the module docstring). ``sensitivity`` (default 1) and
        ``monotone`` (default False) are read if present.
    scores, neighbour : sequence of numbers, shape (n,)
        The score vectors ``q`` and ``q'``.
    allow_non_neighbour : bool
        Compare vectors that are not neighbours (research use).

    Returns
    -------
    PrivacyLoss
        Exact; with the ball engine ``value`` is a sympy Float at the working precision
        ``dps`` (30, raised to 60 and 120 until ``interval`` is narrower than
        ``10^(-2 dps/3)`` relatively) and ``interval`` encloses the loss.

    Raises
    ------
    ValueError
        Different lengths; ``||q - q'||_inf`` above the sensitivity; a neighbour that moves
        scores in both directions for a mechanism declared ``monotone=True`` (such a pair
        cannot come from a monotone score function); probabilities that are not exact (and
        no balls), do not sum to 1 or are negative; :class:`BallUndecided` when a
        probability ball still contains 0 at the highest precision.

    References
    ----------
    Dwork & Roth (2014), Def. 2.4 and section 3.5 (privacy loss).
    """
    q = _sv(scores, "scores")
    q2 = _sv(neighbour, "neighbour")
    _check_pair(mechanism, q, q2, "privacy_loss", allow_non_neighbour)
    engine = _make_engine(mechanism, [q, q2], "privacy_loss")
    if isinstance(engine, _BallEngine):
        return _ball_privacy_loss(engine, q, q2)
    return _loss_from_engine(engine, 0, 1, q, q2)


def _ball_privacy_loss(engine: _BallEngine, q: ScoreVector, q2: ScoreVector) -> PrivacyLoss:
    """Loss of one pair with the ball engine: retry until the enclosure is narrow."""
    found = None
    for dps in engine.levels:
        with _arb_prec(dps):
            res = _ball_pair_loss(engine, 0, 1, dps)
            if res is None:
                continue
            found = (dps, res)
            if res[0].narrow(dps):
                break
    if found is None:
        raise _undecided("privacy_loss", engine, "the loss is")
    dps, (total, per, logs) = found
    with _arb_prec(dps):
        ratios = _ball_ratios(engine, 0, 1, dps)
        if not per:
            return PrivacyLoss(sympy.Integer(0), None, ratios, _plain(q), _plain(q2), 0, (),
                               "ball", total.sympy(), dps)
        out, cands = _ball_output(per, total)
        L = logs[out]
        if isinstance(L, sympy.Basic):
            direction = 1 if L is sympy.oo else -1
        else:
            direction = 1 if L > 0 else -1 if L < 0 else 0
        return PrivacyLoss(total.value(dps), out, ratios, _plain(q), _plain(q2), direction,
                           cands, "ball", total.sympy(), dps)


# =============================================================================== check_dp
@dataclass(frozen=True)
class Witness:
    """A pair of score vectors and an output: ``(scores, neighbour, output)``."""

    scores: tuple
    neighbour: tuple
    output: int | None

    def __iter__(self):
        return iter((self.scores, self.neighbour, self.output))


@dataclass(frozen=True)
class DPCheck:
    """Result of :func:`check_dp`.

    Attributes
    ----------
    holds : bool
        True iff every searched pair satisfies the epsilon-DP ratio bound.
    loss : sympy.Expr
        The largest exact privacy loss over the searched neighbours.
    epsilon : sympy.Expr
        The privacy level checked.
    witness : Witness
        The pair and output attaining ``loss`` (a violation when ``holds`` is False).
    neighbours_checked : int
    search : str
        Which neighbours were searched and why.
    engine : str
        ``"x-form"``, ``"generic"`` (exact) or ``"ball"`` (certified numeric: ``loss`` is
        a sympy Float with ``dps`` digits, the midpoint of ``interval``; ``holds`` is
        True only if the certified upper bound of the loss is <= epsilon and False only if
        the certified lower bound is > epsilon).
    interval : tuple of sympy.Float or None
        Ball engine only: certified ``(lo, hi)`` around the largest loss.
    dps : int or None
        Ball engine only: the working precision (decimal digits) that decided ``holds``.
    """

    holds: bool
    loss: sympy.Expr
    epsilon: sympy.Expr
    witness: Witness | None
    neighbours_checked: int
    search: str
    engine: str = "x-form"
    interval: tuple | None = None
    dps: int | None = None

    def __bool__(self) -> bool:
        return self.holds

    def loss_float(self) -> float:
        """The loss as a float."""
        return math.inf if self.loss is sympy.oo else float(sympy.N(self.loss, 30))


def _numeric_mechanism(mech: object, epsilon: object, func: str):
    eps = _epsilon(mech)
    claim = None if epsilon is None else exact_number(epsilon, "epsilon", allow_symbols=True)
    if claim is not None and not (claim.free_symbols or exact_sign(claim) == 1):
        raise ValueError(f"{func}: epsilon must be > 0, got {epsilon!r}")
    if eps is not None and eps.free_symbols:
        if claim is None or claim.free_symbols:
            raise ValueError(
                f"{func}: the mechanism's epsilon is symbolic ({eps}); give a numeric "
                "epsilon=..., or use certify_dp for a proof valid for every epsilon > 0"
            )
        if not hasattr(mech, "with_epsilon"):
            raise ValueError(f"{func}: cannot instantiate a symbolic mechanism (no with_epsilon)")
        mech = mech.with_epsilon(claim)
        eps = claim
    if claim is None:
        if eps is None:
            if hasattr(mech, "epsilon"):
                raise ValueError(
                    f"{func}: {_name(mech)} has epsilon=None (it is not calibrated by "
                    "epsilon, e.g. Gaussian noise set by sigma); pass the claimed privacy "
                    "level epsilon=..."
                )
            raise ValueError(f"{func}: the mechanism has no epsilon attribute; pass epsilon=...")
        claim = eps
    if claim.free_symbols:
        raise ValueError(f"{func}: epsilon must be a number here (got {claim})")
    return mech, claim


def check_dp(
    mechanism: object,
    scores: object,
    neighbour: object | None = None,
    epsilon: object | None = None,
    *,
    search: str = "auto",
    allow_non_neighbour: bool = False,
) -> DPCheck:
    """Check the epsilon-DP ratio bound exactly on ``scores`` and its neighbours.

    Parameters
    ----------
    mechanism : object
        A mechanism (see :func:`privacy_loss`).
    scores : sequence of numbers, shape (n,)
    neighbour : sequence of numbers, shape (n,), optional
        One neighbour to check; ``None`` searches the neighbours of :func:`neighbours`
        (exhaustive vertices for ``n <= 6``, the reduced set of regular mechanisms beyond;
        for ``monotone=True`` mechanisms only all-up / all-down moves, the only neighbours a
        monotone score function can produce).
    epsilon : number, optional
        The privacy level to check; default the mechanism's own epsilon. A mechanism with a
        symbolic epsilon is instantiated at this value. Required when the mechanism's
        epsilon is None (Gaussian noise: the claimed privacy level).
    search : {"auto", "exhaustive", "reduced"}
    allow_non_neighbour : bool

    Returns
    -------
    DPCheck
        ``holds`` iff the largest loss over the searched pairs is ``<= epsilon`` (decided
        exactly: a tie ``loss == epsilon`` holds). With the ball engine (no exact
        probabilities, e.g. RNM-Gaussian) ``holds`` is True only if the certified upper
        bound of the largest loss is ``<= epsilon``, False only if its lower bound is
        ``> epsilon``; ``loss`` is a sympy Float at the working precision ``dps``.

    Raises
    ------
    ValueError
        As :func:`privacy_loss`; a symbolic epsilon without a numeric ``epsilon=``; no
        ``epsilon=`` for a mechanism with ``epsilon=None`` (RNM-Gaussian, calibrated by
        sigma); :class:`BallUndecided` when the ball engine cannot separate the loss from
        epsilon at dps = 120.

    Notes
    -----
    A vertex search is a search: a violation found is a proof that the mechanism is not
    epsilon-DP, but ``holds`` covers the searched pairs only (:func:`certify_dp` proves
    the bound for every epsilon on given pairs).

    References
    ----------
    Dwork & Roth (2014), Def. 2.4; McKenna & Sheldon (2020), section 2.
    """
    mech, claim = _numeric_mechanism(mechanism, epsilon, "check_dp")
    q = _sv(scores, "scores")
    if neighbour is not None:
        q2 = _sv(neighbour, "neighbour")
        _check_pair(mech, q, q2, "check_dp", allow_non_neighbour)
        nbrs, how = [q2], "given neighbour"
    else:
        nbrs, how = neighbours(mech, q, search)
    engine = _make_engine(mech, [q] + nbrs, "check_dp")
    if isinstance(engine, _BallEngine):
        return _ball_check_dp(engine, q, nbrs, claim, how)
    best = None
    best_j = None
    for j in range(1, len(nbrs) + 1):
        for c in _max_candidates(engine, _pair_candidates(engine, 0, j)):
            if best is None:
                best, best_j = c, j
                continue
            if best[0] == "inf":
                break
            if c[0] == "inf" or engine.cmp(c[2], best[2]) == 1:
                best, best_j = c, j
    if best is None:
        value = sympy.Integer(0)
        holds = True
        witness = None
    else:
        value = _value_of(engine, best)
        holds = best[0] != "inf" and engine.cmp_exp(best[2], claim) <= 0
        witness = Witness(_plain(q), _plain(nbrs[best_j - 1]), best[1])
    return DPCheck(bool(holds), value, claim, witness, len(nbrs), how, engine.kind)


def _ball_check_dp(
    engine: _BallEngine, q: ScoreVector, nbrs: list[ScoreVector], claim: sympy.Expr, how: str
) -> DPCheck:
    """check_dp with the ball engine: the largest loss enclosed, then compared with eps."""
    for dps in engine.levels:
        with _arb_prec(dps):
            pairs = [_ball_pair_loss(engine, 0, j, dps) for j in range(1, len(nbrs) + 1)]
            if any(p is None for p in pairs):
                continue
            total = _iv_max([p[0] for p in pairs])
            e = to_arb(claim, flint.ctx.prec)
            if total.infinite or total.lo > e:
                holds = False
            elif total.hi <= e:
                holds = True
            else:
                continue
            best_j = 0
            for k, p in enumerate(pairs):
                if p[0].better_lo(pairs[best_j][0]):
                    best_j = k
            _, per, _ = pairs[best_j]
            out = _ball_output(per, pairs[best_j][0])[0] if per else None
            witness = Witness(_plain(q), _plain(nbrs[best_j]), out)
            return DPCheck(holds, total.value(dps), claim, witness, len(nbrs), how, "ball",
                           total.sympy(), dps)
    raise BallUndecided(
        f"check_dp: undecided at dps={engine.levels[-1]}: the certified enclosure of the "
        f"largest privacy loss of {engine.name} still contains epsilon = {claim} (or a "
        "probability cannot be told from 0)"
    )


# =============================================================================== certify_dp
@dataclass(frozen=True)
class ConditionCertificate:
    """One condition ``Pr[M(a) = r] <= e^eps Pr[M(b) = r]`` for every epsilon > 0.

    In ``y = exp(-epsilon/N)`` it reads ``polynomial(y) >= 0`` on ``(0, 1)``, with
    ``polynomial = num_b * den_a - y**N * num_a * den_b`` (denominators positive).

    Attributes
    ----------
    pair : int
        Index of the neighbour in the certificate.
    output : int
    direction : str
        ``"q->q'"`` (a = scores, b = neighbour) or ``"q'->q"``.
    polynomial : sympy.Poly
    analysis : UnitIntervalSign
    holds : bool
    """

    pair: int
    output: int
    direction: str
    polynomial: sympy.Poly
    analysis: UnitIntervalSign
    holds: bool

    @property
    def roots(self) -> tuple[sympy.Expr, ...]:
        """Exact roots of the polynomial in ``(0, 1)``."""
        return self.analysis.exact_roots()


@dataclass(frozen=True)
class DPCertificate:
    """Exact certificate of the epsilon-DP bound on given pairs, for every epsilon > 0.

    Attributes
    ----------
    scores : tuple
    neighbours : tuple of tuple
    N : int
        ``y = exp(-epsilon/N)``, so ``e^epsilon = y**(-N)``.
    forms : tuple
        Per vector (scores first, then the neighbours), per output ``(num, den)`` sympy
        ``Poly`` in ``y``.
    conditions : tuple of ConditionCertificate
    denominators : tuple of UnitIntervalSign
        Sign analyses proving every denominator positive on ``(0, 1)``.
    mechanism : object
        The mechanism at the symbolic epsilon.
    """

    scores: tuple
    neighbours: tuple
    N: int
    forms: tuple
    conditions: tuple
    denominators: tuple
    mechanism: object = field(repr=False)
    epsilon: sympy.Symbol = EPSILON
    y: sympy.Symbol = Y

    @property
    def holds(self) -> bool:
        """True iff every condition holds for every epsilon > 0."""
        return all(c.holds for c in self.conditions)

    def __bool__(self) -> bool:
        return self.holds

    @property
    def failing(self) -> tuple[ConditionCertificate, ...]:
        """The conditions that fail for some epsilon."""
        return tuple(c for c in self.conditions if not c.holds)

    def _eps_interval(self, lo, hi) -> sympy.Interval:
        a = sympy.Integer(0) if hi == 1 else -self.N * sympy.log(hi)
        b = sympy.oo if lo == 0 else -self.N * sympy.log(lo)
        return sympy.Interval.open(a, b)

    @cached_property
    def failing_epsilon_intervals(self) -> sympy.Set:
        """The set of epsilon > 0 at which some condition fails (a union of open intervals).

        ``EmptySet`` when the certificate holds. A y-interval ``(lo, hi)`` maps to
        ``(-N ln hi, -N ln lo)``.
        """
        sets = [
            self._eps_interval(lo, hi)
            for c in self.failing
            for lo, hi in c.analysis.negative_intervals()
        ]
        return sympy.Union(*sets) if sets else sympy.EmptySet

    def holds_at(self, epsilon: object) -> bool:
        """True iff every condition holds at this epsilon.

        Parameters
        ----------
        epsilon : exact positive number
            Validated by :func:`exactdp.numbers.exact_epsilon`.

        Raises
        ------
        ValueError
            If epsilon is not a finite number > 0 (the certificate covers epsilon > 0 only).
        """
        try:
            e = exact_epsilon(epsilon)
        except ValueError as exc:
            raise ValueError(f"DPCertificate.holds_at: {exc}") from exc
        if e.free_symbols:
            raise ValueError(
                f"DPCertificate.holds_at: epsilon must be a number, got the symbol {epsilon!r}"
            )
        return not any(
            exact_sign(e - iv.start) == 1 and exact_sign(iv.end - e) == 1
            for iv in _intervals(self.failing_epsilon_intervals)
        )

    def check(self) -> bool:
        """Re-verify the certificate by independent routes.

        1. each condition polynomial is recomputed from the stored forms with sympy
           arithmetic and compared with the stored one;
        2. each sign analysis (conditions and denominators) is re-verified with Sturm
           counting and exact evaluation at rational points between the roots;
        3. the forms sum to 1 identically;
        4. the forms agree with the mechanism's own exact probabilities at epsilon = 1/3
           and 2 (ball arithmetic, 200 bits).

        Returns
        -------
        bool
        """
        y = self.y
        for c in self.conditions:
            a, b = (0, c.pair + 1) if c.direction == "q->q'" else (c.pair + 1, 0)
            na, da = (f.as_expr() for f in self.forms[a][c.output])
            nb, db = (f.as_expr() for f in self.forms[b][c.output])
            poly = sympy.Poly(sympy.expand(nb * da - y**self.N * na * db), y, domain="QQ")
            if poly != c.polynomial:
                return False
            if (c.analysis.nonnegative != c.holds) or not verify_sign_analysis(c.analysis):
                return False
        for d in self.denominators:
            if not (d.positive and verify_sign_analysis(d)):
                return False
        for forms in self.forms:
            total = sympy.cancel(sympy.Add(*[n.as_expr() / d.as_expr() for n, d in forms]))
            if total != 1:
                return False
        vectors = (self.scores,) + self.neighbours
        for e in (sympy.Rational(1, 3), sympy.Integer(2)):
            mech = self.mechanism.with_epsilon(e)
            yv = to_arb(-e / self.N, 200).exp()
            for vec, forms in zip(vectors, self.forms, strict=True):
                probs = _distribution(mech, _sv(vec, "scores")).probabilities
                for p, (n_, d_) in zip(probs, forms, strict=True):
                    fv = _eval_poly(n_, yv) / _eval_poly(d_, yv)
                    if not (to_arb(p, 200) - fv).contains(0):
                        return False
        return True


def _eval_poly(p: sympy.Poly, x: flint.arb) -> flint.arb:
    old = flint.ctx.prec
    flint.ctx.prec = 200
    try:
        coeffs = [flint.arb(flint.fmpq(int(c.p), int(c.q))) for c in p.all_coeffs()[::-1]]
        return flint.arb_poly(coeffs)(x)
    finally:
        flint.ctx.prec = old


def _intervals(s: sympy.Set) -> list[sympy.Interval]:
    if s is sympy.EmptySet:
        return []
    if isinstance(s, sympy.Interval):
        return [s]
    return [a for a in s.args if isinstance(a, sympy.Interval)]


def _symbolic_mechanism(mech: object, func: str):
    eps = _epsilon(mech)
    if eps is not None and eps.free_symbols:
        if eps != EPSILON and hasattr(mech, "with_epsilon"):
            return mech.with_epsilon(EPSILON)
        return mech
    if not hasattr(mech, "with_epsilon"):
        raise ValueError(
            f"{func}: a certificate for every epsilon needs mechanism.with_epsilon(...) "
            f"or a symbolic epsilon; {_name(mech)} has neither"
        )
    return mech.with_epsilon(EPSILON)


def certify_dp(
    mechanism: object,
    scores: object,
    neighbour: object | None = None,
    *,
    search: str = "auto",
    allow_non_neighbour: bool = False,
) -> DPCertificate:
    """Prove (or refute) the epsilon-DP bound on rational scores for every epsilon > 0.

    With ``y = exp(-epsilon/N)`` (``N`` the least integer making every probability a
    rational function of ``y``; ``N = c*Delta*L`` for integer sensitivity) every
    probability is ``num(y)/den(y)`` with rational coefficients and ``e^epsilon =
    y**(-N)``. The condition ``P_r(a) <= e^eps P_r(b)`` becomes
    ``num_b den_a - y^N num_a den_b >= 0`` on ``y in (0, 1)`` (denominators are proved
    positive there), decided by exact real-root isolation.

    Parameters
    ----------
    mechanism : object
        A mechanism with ``with_epsilon`` (or a symbolic epsilon) whose probabilities are
        rational in ``exp(epsilon/N)``: PF, EM, RNM with exponential or Gumbel noise, or a
        user mechanism of that form. Its numeric epsilon, if any, is ignored.
    scores : sequence of rational numbers, shape (n,)
    neighbour : sequence, shape (n,), optional
        ``None``: the neighbours of :func:`neighbours` (``search``).
    search : {"auto", "exhaustive", "reduced"}
    allow_non_neighbour : bool

    Returns
    -------
    DPCertificate
        ``.holds``, ``.failing_epsilon_intervals``, ``.check()``.

    Raises
    ------
    ValueError
        Irrational scores, a mechanism without such a rational form (RNM-Laplace), or the
        input errors of :func:`privacy_loss`.

    References
    ----------
    MATH.md section 2 (x-form); Collins & Akritas (1976) for root isolation. The idea of
    deciding DP by exact arithmetic follows G. Barthe et al., "Deciding differential
    privacy for programs with finite inputs and outputs" (DiPC), LICS 2020.
    """
    mech = _symbolic_mechanism(mechanism, "certify_dp")
    q = _sv(scores, "scores")
    if not q.is_rational:
        raise ValueError("certify_dp: scores must be rational (integers or fractions)")
    if neighbour is not None:
        q2 = _sv(neighbour, "neighbour")
        _check_pair(mech, q, q2, "certify_dp", allow_non_neighbour)
        nbrs = [q2]
    else:
        nbrs, _ = neighbours(mech, q, search)
    if not all(v.is_rational for v in nbrs):
        raise ValueError("certify_dp: neighbour must be rational (integers or fractions)")
    engine = _make_engine(mech, [q] + nbrs, "certify_dp", dense_only=True)
    if isinstance(engine, _BallEngine):
        raise ValueError(
            f"certify_dp: {_name(mechanism)} has no exact probabilities here (e.g. Gaussian "
            "noise), so no certificate for every epsilon exists; use check_dp with a numeric "
            "epsilon (certified ball arithmetic)"
        )
    if not isinstance(engine, _XEngine):
        raise ValueError(
            f"certify_dp: the probabilities of {_name(mechanism)} are not rational functions "
            "of exp(-epsilon/N) (e.g. RNM-Laplace has epsilon*exp(-epsilon) terms); use "
            "check_dp at numeric epsilon or sup_privacy_loss"
        )
    N = engine.N
    mono = flint.fmpq_poly([0] * N + [1])
    dens: dict = {}
    for probs in engine.probs:
        for _, d in probs:
            key = tuple(d.coeffs())
            if key not in dens:
                dens[key] = sign_on_unit_interval(d)
    flipped: set = set()
    for key, an in dens.items():
        s = an.constant_sign
        if an.roots or s not in (1, -1):
            raise ValueError("certify_dp: a probability denominator vanishes in (0, 1)")
        if s == -1:
            flipped.add(key)
    probs_pos = [
        [(-n, -d) if tuple(d.coeffs()) in flipped else (n, d) for n, d in probs]
        for probs in engine.probs
    ]
    conditions = []
    for j in range(1, len(nbrs) + 1):
        for r in range(q.n):
            for direction, (a, b) in (("q->q'", (0, j)), ("q'->q", (j, 0))):
                na, da = probs_pos[a][r]
                nb, db = probs_pos[b][r]
                f = nb * da - mono * na * db
                an = sign_on_unit_interval(f, Y)
                conditions.append(
                    ConditionCertificate(j - 1, r, direction, an.poly, an, an.nonnegative)
                )
    forms = tuple(
        tuple((fmpq_poly_to_sympy(n, Y), fmpq_poly_to_sympy(d, Y)) for n, d in probs)
        for probs in probs_pos
    )
    den_analyses = tuple(
        sign_on_unit_interval(-flint.fmpq_poly(list(k)) if k in flipped
                              else flint.fmpq_poly(list(k)), Y)
        for k in dens
    )
    return DPCertificate(
        _plain(q), tuple(_plain(v) for v in nbrs), N, forms, tuple(conditions),
        den_analyses, mech,
    )


# =============================================================================== suprema
@dataclass(frozen=True)
class SupremumResult:
    """Supremum of the privacy loss over a one-parameter family of pairs.

    Attributes
    ----------
    value : sympy.Expr
        The supremum (exact when ``exact`` is True).
    limit : sympy.Expr
        ``lim |loss|`` at the far end of the parameter range.
    output : int
        The output whose loss gives ``value``.
    attained : bool
        False when the value is only approached (every scanned loss is below it).
    parameter : sympy.Symbol
    log_ratios : tuple of sympy.Expr
        ``ln(P_r(q(g)) / P_r(q'(g)))`` per output, as functions of the parameter.
    scan_max : float
        Largest loss found on the numeric scan of the interior.
    exact : bool
        True when no interior scan point exceeds the exact end-point limits.
    """

    value: sympy.Expr
    limit: sympy.Expr
    output: int
    attained: bool
    parameter: sympy.Symbol
    log_ratios: tuple
    scan_max: float
    exact: bool

    def to_float(self) -> float:
        return math.inf if self.value is sympy.oo else float(sympy.N(self.value, 30))

    def __float__(self) -> float:
        return self.to_float()


def symbolic_probabilities(mechanism: object, scores: Sequence) -> tuple[sympy.Expr, ...]:
    """Exact probabilities of ``mechanism`` on scores that may contain symbols.

    exactdp mechanisms get the scores as an exact :class:`~exactdp.scores.ScoreVector`
    without validation (the order of the scores must be decidable from the symbols'
    assumptions); other objects get a tuple of sympy expressions.
    """
    exprs = tuple(safe_sympify(s) for s in scores)
    inner = getattr(mechanism, "inner", None)
    if inner is not None and _is_core(inner):
        mechanism = inner
    if _is_core(mechanism):
        sv = ScoreVector(exprs, "exact", "scores")
        return tuple(mechanism._exact(sv))
    return tuple(safe_sympify(p) for p in mechanism.distribution(exprs).probabilities)


def sup_privacy_loss(
    mechanism: object,
    family: Callable[[sympy.Symbol], tuple[Sequence, Sequence]],
    *,
    parameter: sympy.Symbol | None = None,
    start: object = 0,
    scan: int = 24,
    scan_epsilon: object = 1,
    allow_non_neighbour: bool = False,
) -> SupremumResult:
    """Supremum of the exact privacy loss over a one-parameter family of pairs.

    Parameters
    ----------
    mechanism : object
        A mechanism (exactdp or user); its epsilon may be symbolic.
    family : callable
        ``family(g) -> (scores, neighbour)``: two sequences of sympy expressions in the
        positive Symbol ``g``, a pair of neighbours for every ``g > start`` (for example
        ``lambda g: ((0, -g - 2), (-1, -g - 1))``). The order of the scores must be
        decidable from ``g > 0``; shift ``g`` to ensure it.
    parameter : sympy.Symbol, optional
        The Symbol passed to ``family`` (default ``Symbol("g", positive=True)``).
    start : number
        Lower end of the parameter range ``(start, oo)``.
    scan : int
        Number of interior points (geometric grid) scanned numerically at 30 digits to
        confirm that the supremum is the end-point limit.
    scan_epsilon : number
        Epsilon used by the scan when the mechanism's epsilon is symbolic.

    Returns
    -------
    SupremumResult
        ``value = max_r max(|lim_{g->start+} ln ratio_r|, |lim_{g->oo} ln ratio_r|)``
        (exact sympy limits) when the scan finds nothing larger; otherwise the scanned
        maximum with ``exact=False``.

    Raises
    ------
    ValueError
        If ``family`` does not return two vectors of the same length, or (unless
        ``allow_non_neighbour``) a scanned member is not a pair of neighbours.

    References
    ----------
    Dwork & Roth (2014), Claim 3.9 (report-noisy-max with Laplace noise); the worst loss
    of RNM-Laplace at scale Delta/eps on non-monotone scores tends to 2*eps.
    """
    g = parameter if parameter is not None else sympy.Symbol("g", positive=True)
    pair = family(g)
    try:
        q_expr, q2_expr = pair
        q_expr = tuple(safe_sympify(v) for v in q_expr)
        q2_expr = tuple(safe_sympify(v) for v in q2_expr)
    except (TypeError, ValueError) as exc:
        raise ValueError("sup_privacy_loss: family(g) must return (scores, neighbour)") from exc
    if len(q_expr) != len(q2_expr):
        raise ValueError(
            f"sup_privacy_loss: family gives {len(q_expr)} scores and {len(q2_expr)} "
            "neighbour scores; neighbours cover the same range"
        )
    start = exact_number(start, "start")
    eps = _epsilon(mechanism)
    scan_eps = exact_number(scan_epsilon, "scan_epsilon")
    grid = [start + sympy.Rational(1, 8) * sympy.Integer(2) ** k for k in range(scan)]
    for gv in grid[:: max(1, scan // 6)]:
        qa = _sv([v.subs(g, gv) for v in q_expr], "scores")
        qb = _sv([v.subs(g, gv) for v in q2_expr], "neighbour")
        _check_pair(mechanism, qa, qb, "sup_privacy_loss", allow_non_neighbour)
    P = symbolic_probabilities(mechanism, q_expr)
    P2 = symbolic_probabilities(mechanism, q2_expr)
    logs = tuple(sympy.log(sympy.powsimp(sympy.simplify(a / b))) for a, b in zip(P, P2,
                                                                                   strict=True))
    ends = []
    for r, f in enumerate(logs):
        hi = sympy.limit(f, g, sympy.oo)
        lo = sympy.limit(f, g, start, dir="+")
        ends.append((r, sympy.Abs(hi), sympy.Abs(lo)))
    limit_far = sympy.Max(*[hi for _, hi, _ in ends])
    best_r, best_val = 0, None
    for r, hi, lo in ends:
        v = sympy.Max(hi, lo)
        if best_val is None or _greater(v, best_val, eps, scan_eps):
            best_r, best_val = r, v
    subs_eps = {eps: scan_eps} if eps is not None and eps.free_symbols else {}
    target = best_val.subs(subs_eps)
    scan_max = 0.0
    exceeded, attained = False, False
    for gv in grid:
        for f in logs:
            v = sympy.Abs(f.subs(subs_eps).subs(g, gv))
            s = exact_sign(v - target)
            exceeded = exceeded or s == 1
            attained = attained or s == 0
            scan_max = max(scan_max, float(sympy.N(v, 30)))
    exact = not exceeded
    value = best_val if exact else sympy.Float(scan_max, 15)
    attained = attained or not exact
    return SupremumResult(value, limit_far, best_r, bool(attained), g, logs, scan_max, exact)


def _greater(a: sympy.Expr, b: sympy.Expr, eps, scan_eps) -> bool:
    s = exact_sign(a - b)
    if s is None and eps is not None and eps.free_symbols:
        s = exact_sign((a - b).subs(eps, scan_eps))
    return s == 1
