"""The exact privacy loss of report-noisy-max releasing the value:
``sup_v |ln f_q(v) / f_q'(v)|`` (the method: :mod:`exactdp.mechanisms.noisy_max_value`).

On each piece between consecutive scores of the pair both densities are polynomials in
``(u, x)``, ``u = exp((v - s)/b)``, ``x = exp(-epsilon/(c*Delta*L))`` transcendental: exact
candidates at the piece ends and limits (rational functions of x, compared by the sign of a
polynomial at x: exact zero test, arb signs), certified balls at the interior critical
points (the real roots of ``P_u Q - P Q_u``, squarefree factors isolated by flint).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import flint
import mpmath
import sympy

from ..cost import check_seconds
from ..distribution import LossSupremum
from ..exact.arb import arb_mid_to_float, arb_to_interval, flint_prec
from ..exact.poly import sign_at
from ..exact.signs import UndecidedSignError, compare
from ..scores import ScoreVector
from .base import Mechanism
from .noisy_max_value import PATTERN, ValueDistribution

#: Precisions (bits) tried in turn to isolate the critical points and decide comparisons.
PRECISIONS = (128, 256, 512, 1024, 2048, 4096)
_CTX = flint.fmpz_mpoly_ctx.get(("u", "x"), "lex")


# =============================================================================== the loss
@dataclass(frozen=True)
class _Exact:
    """A candidate of the supremum with an exact ratio ``A(x)/B(x) >= 1`` (B = 0: oo)."""

    A: flint.fmpz_poly
    B: flint.fmpz_poly
    direction: int
    where: str
    attained: bool
    limit: tuple[str, int] | None = None  # ("-oo" | "oo" | "right", s): where approached


@dataclass(frozen=True)
class _Critical:
    """An interior critical point: ``value`` an arb ball of the loss there."""

    value: flint.arb
    direction: int
    where: str


def _one() -> Any:
    return _CTX.from_dict({(0, 0): 1})


def _xpow(e: int) -> Any:
    return _CTX.from_dict({(0, e): 1})


class _Pair:
    """Both densities of one pair as polynomials in ``(u, x)`` on each piece (the rational
    route of the module docstring)."""

    def __init__(self, mech: Mechanism, noise: str, q: ScoreVector, q2: ScoreVector,
                 func: str):
        self.func = func
        self.noise = noise
        rate = mech.rate
        values = list(q.exact) + list(q2.exact)
        if not (rate.is_Rational and all(v.is_Rational for v in values)):
            raise ValueError(f"{func}: the exact supremum needs rational scores and a rational "
                             f"epsilon/(c*sensitivity), got epsilon = {mech.epsilon}")
        self.L = math.lcm(*[int(v.q) for v in values])
        self.Q = [int(v * self.L) for v in q.exact]
        self.Q2 = [int(v * self.L) for v in q2.exact]
        self.r = rate / self.L  # x = exp(-r); u = exp(r * (L*v - s))
        span = max(self.Q + self.Q2) - min(self.Q + self.Q2)
        n = len(self.Q)
        check_seconds(func, f"the exact density pieces of {n} scores spanning {span} steps "
                      f"of 1/{self.L} (polynomials of degree about {span * n} in x)",
                      1e-9 * (span * n + 1) ** 2 * n**3 * (span + 1),
                      "use scores with a smaller common denominator or span, or fewer scores")

    def x_at(self, prec: int) -> flint.arb:
        """A ball of ``x = exp(-r)`` at ``prec`` bits."""
        with flint_prec(prec):
            return (-flint.arb(flint.fmpq(int(self.r.p), int(self.r.q)))).exp()

    def v(self, s: int) -> sympy.Rational:
        """The value v of the integer coordinate ``s`` (``v = s / L``)."""
        return sympy.Rational(s, self.L)

    def density(self, Q: list[int], s: int, lo: int | None) -> Any:
        """``P(u, x)`` on a piece whose left end is ``lo`` (None: unbounded) with reference
        point ``s`` (0 where the density vanishes: exponential noise left of a score).
        Laplace: ``(2u)^n b f_V``; exponential: ``u^n b f_V``."""
        u = _CTX.gens()[0]
        fs, Fs = [], []
        for Qj in Q:
            right = lo is not None and Qj <= lo
            if self.noise == "laplace":
                if right:
                    fs.append(_xpow(s - Qj))
                    Fs.append(2 * u - _xpow(s - Qj))
                else:
                    mono = _CTX.from_dict({(2, Qj - s): 1})
                    fs.append(mono)
                    Fs.append(mono)
            elif not right:
                return _CTX.from_dict({})
            else:
                fs.append(_xpow(s - Qj))
                Fs.append(u - _xpow(s - Qj))
        prefix = [_one()]
        for F in Fs:
            prefix.append(prefix[-1] * F)
        suffix, total = _one(), _CTX.from_dict({})
        for i in range(len(Fs) - 1, -1, -1):
            total += fs[i] * prefix[i] * suffix
            suffix *= Fs[i]
        return total


def _coeffs_in_u(p: Any) -> list[flint.fmpz_poly]:
    """The coefficients ``c_k(x)`` of ``p(u, x) = sum_k c_k(x) u^k``."""
    d = p.to_dict()
    if not d:
        return []
    cs: list[dict[int, int]] = [{} for _ in range(max(k for k, _ in d) + 1)]
    for (k, e), c in d.items():
        cs[k][e] = int(c)
    return [flint.fmpz_poly([c.get(e, 0) for e in range(max(c) + 1)]) if c
            else flint.fmpz_poly() for c in cs]


def _taylor_at_one(p: Any) -> tuple[int, flint.fmpz_poly]:
    """``(j, t_j(x))``: the lowest non-zero coefficient of ``p(1 + h, x)`` in ``h``."""
    cs = _coeffs_in_u(p)
    for j in range(len(cs)):
        t = flint.fmpz_poly()
        for k in range(j, len(cs)):
            t += math.comb(k, j) * cs[k]
        if t != 0:
            return j, t
    raise AssertionError("the zero density has no Taylor coefficient")


def _trailing(p: Any) -> tuple[int, flint.fmpz_poly]:
    """``(k, c_k(x))``: the lowest power of u in ``p`` and its coefficient."""
    cs = _coeffs_in_u(p)
    k = next(i for i, c in enumerate(cs) if c != 0)
    return k, cs[k]


def _leading(p: Any) -> tuple[int, flint.fmpz_poly]:
    cs = _coeffs_in_u(p)
    return len(cs) - 1, cs[-1]


class _Search:
    """The candidates of the supremum of ``|ln P/Q|`` over the pieces of one pair."""

    def __init__(self, pair: _Pair):
        self.pair = pair
        self.exact: list[_Exact] = []
        self.pieces: list[tuple[Any, Any, int, int | None, int | None]] = []

    def sign(self, poly: flint.fmpz_poly) -> int:
        return sign_at(flint.fmpq_poly(poly), self.pair.x_at)

    def add(self, orders: tuple[int, int], A: flint.fmpz_poly, B: flint.fmpz_poly, where: str,
            attained: bool, toward: int, limit: tuple[str, int] | None = None) -> None:
        """A candidate: a ratio ``A/B`` when the orders (of vanishing, or of growth when
        ``toward`` is +1) agree, else an infinite loss approached."""
        if orders[0] != orders[1]:
            direction = 1 if (orders[0] < orders[1]) == (toward <= 0) else -1
            one = flint.fmpz_poly([1])
            self.exact.append(_Exact(one, flint.fmpz_poly(), direction, where, False, limit))
            return
        g = A.gcd(B)
        A, B = A // g, B // g
        if self.sign(B) < 0:  # g may be negative at x: both densities are positive there
            A, B = -A, -B
        s = self.sign(A - B)
        lim = None if attained else limit
        if s >= 0:
            self.exact.append(_Exact(A, B, s, where, attained, lim))
        else:
            self.exact.append(_Exact(B, A, -1, where, attained, lim))

    def compare(self, a: _Exact, b: _Exact) -> int:
        """Exact comparison of two candidates' losses."""
        if a.B == 0 or b.B == 0:
            return int(a.B == 0) - int(b.B == 0)
        return self.sign(a.A * b.B - b.A * a.B)

    def best(self) -> list[_Exact]:
        """The candidates of the largest loss (attained ones first)."""
        top: list[_Exact] = []
        for c in self.exact:
            s = 1 if not top else self.compare(c, top[0])
            if s > 0:
                top = [c]
            elif s == 0:
                top.append(c)
        return sorted(top, key=lambda c: not c.attained)


def _scan_pieces(search: _Search) -> None:
    """Every exact candidate: piece ends, limits, constant pieces; the pieces for roots."""
    pair = search.pair
    if pair.noise == "exponential":
        pieces: list[tuple[int | None, int | None]] = [(max(pair.Q), None)]
    else:
        T = sorted(set(pair.Q) | set(pair.Q2))
        pieces = [(None, T[0])] + list(zip(T, T[1:], strict=False)) + [(T[-1], None)]
    for lo, hi in pieces:
        s = lo if lo is not None else hi
        assert s is not None
        P, P2 = pair.density(pair.Q, s, lo), pair.density(pair.Q2, s, lo)
        D = P.derivative(0) * P2 - P * P2.derivative(0)
        constant = D == 0
        if lo is None:  # v -> -oo (u -> 0)
            (k1, c1), (k2, c2) = _trailing(P), _trailing(P2)
            where = (f"every value v <= {pair.v(hi)}" if constant  # type: ignore[arg-type]
                     else "the values v -> -oo (not attained)")
            search.add((k1, k2), c1, c2, where, constant, 0, ("-oo", hi))  # type: ignore[arg-type]
        else:
            (j1, t1), (j2, t2) = _taylor_at_one(P), _taylor_at_one(P2)
            attained = j1 == j2 == 0
            end = f"v <= {pair.v(hi)}" if hi is not None else "v"
            if constant:
                where = f"every value {pair.v(lo)} <= {end}"
            elif attained:
                where = f"the value v = {pair.v(lo)}"
            else:
                where = f"the values v -> {pair.v(lo)} from above (not attained)"
            search.add((j1, j2), t1, t2, where, attained or constant, 0, ("right", lo))
            if hi is None and not constant:  # v -> +oo (u -> oo)
                (k1, c1), (k2, c2) = _leading(P), _leading(P2)
                search.add((k1, k2), c1, c2, "the values v -> oo (not attained)", False, 1,
                           ("oo", lo))
        if not constant:
            search.pieces.append((P, P2, s, lo, hi))


# ------------------------------------------------------------------ critical points
def _real_roots_in(g: Any, lo_m: int | None, hi_m: int | None, pair: _Pair, prec: int,
                   ) -> list[flint.arb] | None:
    """Balls of the real roots of the squarefree ``g(u, x)`` (at the transcendental x) in the
    open u-range ``(lo, hi)``, ``lo = x^(-lo_m)`` (None: 0), ``hi = x^(-hi_m)`` (None: oo);
    None if ``prec`` bits do not decide.

    A root box that meets the real axis holds a real root when its mirror image meets no
    other box (the conjugate of a non-real root would be a second root in the box's mirror).
    """
    cs = _coeffs_in_u(g)
    xb = pair.x_at(prec)
    with flint_prec(prec):
        poly = flint.acb_poly([flint.acb(c(xb)) for c in cs])
        try:
            roots = poly.roots(tol=flint.arb(2) ** (-(prec // 2)), maxprec=4 * prec)
        except ValueError:
            return None
        lo_b = flint.arb(0) if lo_m is None else xb ** (-lo_m)
        hi_b = None if hi_m is None else xb ** (-hi_m)
        out = []
        for i, z in enumerate(roots):
            if not z.imag.contains(0):
                continue  # not real
            mirror = flint.acb(z.real, flint.arb(0, z.imag.abs_upper()))
            if any(mirror.overlaps(w) for j, w in enumerate(roots) if j != i):
                return None
            re = z.real
            if not re > lo_b:
                if re < lo_b or _vanishes_at(g, lo_m):
                    continue  # outside, or the root is the end point (a candidate already)
                return None
            if hi_b is not None and not re < hi_b:
                if re > hi_b or _vanishes_at(g, hi_m):
                    continue
                return None
            out.append(re)
        return out


def _vanishes_at(g: Any, m: int | None) -> bool:
    """Whether ``g(u, x)`` is identically 0 at ``u = x^(-m)`` (None: at u = 0)."""
    cs = _coeffs_in_u(g)
    if m is None:
        return not cs or cs[0] == 0
    top = len(cs) - 1
    total = flint.fmpz_poly()
    for k, c in enumerate(cs):
        total += c * flint.fmpz_poly([0] * (m * (top - k)) + [1])
    return total == 0


def _critical(search: _Search, prec: int) -> list[_Critical] | None:
    """The losses at the interior critical points of every piece, as balls (None: undecided
    at ``prec`` bits)."""
    pair = search.pair
    out = []
    for P, P2, s, lo, hi in search.pieces:
        D = P.derivative(0) * P2 - P * P2.derivative(0)
        lo_m = None if lo is None else 0
        hi_m = 0 if lo is None else (None if hi is None else hi - lo)
        _, factors = D.factor_squarefree()
        for g, _mult in factors:
            if g.degrees()[0] == 0:
                continue
            roots = _real_roots_in(g, lo_m, hi_m, pair, prec)
            if roots is None:
                return None
            xb = pair.x_at(prec)
            with flint_prec(prec):
                p1 = flint.arb_poly([c(xb) for c in _coeffs_in_u(P)])
                p2 = flint.arb_poly([c(xb) for c in _coeffs_in_u(P2)])
                rr = flint.arb(pair.r.p) / pair.r.q
                for u in roots:
                    ratio = p1(u) / p2(u)
                    if not ratio > 0:
                        return None
                    val = ratio.log()
                    direction = 1 if val > 0 else -1 if val < 0 else 0
                    v_ball = (u.log() / rr + s) / pair.L
                    lo_v, hi_v = arb_to_interval(v_ball)
                    out.append(_Critical(abs(val), direction,
                                         f"the critical value v in [{_short(lo_v)}, "
                                         f"{_short(hi_v)}] (a root of the derivative of the "
                                         "log density ratio)"))
    return out


def _short(v: sympy.Float) -> str:
    return mpmath.nstr(mpmath.mpf(v._to_mpmath(v._prec)), 12)


# ------------------------------------------------------------------ the supremum
def _exact_value(pair: _Pair, c: _Exact) -> sympy.Expr:
    """``ln(A(x)/B(x))`` at ``x = exp(-r)`` as a sympy expression (``oo`` for B = 0)."""
    if c.B == 0:
        return sympy.oo
    xs = sympy.exp(-pair.r)
    a_nz = [(e, int(v)) for e, v in enumerate(c.A.coeffs()) if v != 0]
    b_nz = [(e, int(v)) for e, v in enumerate(c.B.coeffs()) if v != 0]
    if len(a_nz) == 1 and len(b_nz) == 1:  # a monomial ratio: log(c) + k r
        shift = b_nz[0][0] - a_nz[0][0]
        return sympy.log(sympy.Rational(a_nz[0][1], b_nz[0][1])) + shift * pair.r
    num = sympy.Add(*[v * xs**e for e, v in a_nz])
    den = sympy.Add(*[v * xs**e for e, v in b_nz])
    return sympy.log(num / den)


def _loss_at(mech: Mechanism, noise: str, q: ScoreVector, q2: ScoreVector, v: sympy.Expr,
             ) -> sympy.Expr:
    """The exact loss ``|ln f_q(v) / f_q'(v)|`` of the output v."""
    a = sympy.sympify(ValueDistribution(mech, q, noise).density(v))
    b = sympy.sympify(ValueDistribution(mech, q2, noise).density(v))
    val = sympy.log(a / b)
    return -val if compare(val, 0) < 0 else val


def _approaching(mech: Mechanism, q: ScoreVector, q2: ScoreVector, pair: _Pair,
                 limit: tuple[str, int]) -> tuple[tuple[str, sympy.Expr], ...]:
    """Outputs approaching a supremum that is not attained, with their exact losses,
    increasing (the increasing tail of a sequence of points towards the limit)."""
    kind, s = limit
    b = 1 / mech.rate
    t = pair.v(s)
    if kind == "-oo":
        points = [t - b * 4**j for j in range(4)]
    elif kind == "oo":
        points = [t + b * 4**j for j in range(4)]
    else:
        points = [t + b / 4**j for j in range(1, 5)]
    losses = [_loss_at(mech, pair.noise, q, q2, v) for v in points]
    keep = [len(points) - 1]
    for i in range(len(points) - 2, -1, -1):
        if compare(losses[i], losses[keep[-1]]) < 0:
            keep.append(i)
    return tuple((f"the value v = {points[i]}", losses[i]) for i in reversed(keep))


def value_loss_supremum(mech: Mechanism, noise: str, q: ScoreVector, q2: ScoreVector,
                        func: str) -> LossSupremum:
    """The exact ``sup_v |ln f_q(v) / f_q'(v)|`` of report-noisy-max releasing the value
    (the module docstring says how), for Laplace or exponential noise at a finite numeric
    epsilon: :func:`exactdp.mechanisms.noisy_max_value_engine.value_loss` answers the
    limits and Gumbel noise, checks the pair, and routes here pairs of many distinct scores.

    Raises
    ------
    ValueError
        For irrational scores or epsilon, for a pair too large for the exact route (the
        cost model).
    UndecidedSignError
        If a critical value cannot be told from the largest exact candidate at 4096 bits.
    """
    pair = _Pair(mech, noise, q, q2, func)
    if pair.noise == "exponential" and max(pair.Q) != max(pair.Q2):
        lo, hi = sorted((max(pair.Q), max(pair.Q2)))
        under, first = ("the scores", q) if max(pair.Q) == lo else ("the neighbour", q2)
        prob = ValueDistribution(mech, first, noise).cdf(PATTERN, 0, pair.v(hi))
        return LossSupremum(sympy.oo, True, 1 if first is q else -1,
                            f"the values v in [{pair.v(lo)}, {pair.v(hi)}): probability "
                            f"{prob} under {under}, 0 under the other")
    search = _Search(pair)
    _scan_pieces(search)
    best = search.best()[0]
    if best.B == 0:
        return _exact_result(mech, q, q2, pair, best)
    for prec in PRECISIONS:
        crit = _critical(search, prec)
        if crit is None:
            continue
        with flint_prec(prec):
            xb = pair.x_at(prec)
            eb = (best.A(xb) / best.B(xb)).log()
            if any(not (c.value > eb or c.value < eb) for c in crit):
                continue
            bigger = [c for c in crit if c.value > eb]
            if not bigger:
                return _exact_result(mech, q, q2, pair, best)
            # the largest of the balls lies between the largest lower and upper ends
            lo_end = max((c.value.lower() for c in bigger), key=lambda b: b.mid())
            hi_end = max((c.value.upper() for c in bigger), key=lambda b: b.mid())
            hull = lo_end.union(hi_end)
            pick = max(bigger, key=lambda c: c.value.mid())
            return LossSupremum(arb_mid_to_float(hull), True, pick.direction, pick.where, (),
                                arb_to_interval(hull))
    raise UndecidedSignError(f"{func}: a critical value of the log density ratio could not "
                             f"be told from the largest end point value at {PRECISIONS[-1]} "
                             "bits")


def _exact_result(mech: Mechanism, q: ScoreVector, q2: ScoreVector, pair: _Pair,
                  best: _Exact) -> LossSupremum:
    value = _exact_value(pair, best)
    direction = best.direction if value != 0 else 0
    if best.attained or best.limit is None:
        return LossSupremum(value, True, direction, best.where)
    return LossSupremum(value, False, direction, best.where,
                        _approaching(mech, q, q2, pair, best.limit))
