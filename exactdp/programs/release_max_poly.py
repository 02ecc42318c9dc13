"""The density of a released noisy maximum as polynomials in ``(u, x)``, and its pieces.

The released maximum ``V = max_j (a_j + Z_j)`` of independent noises of one law and one
scale ``b`` has the CDF ``prod_j F(v - a_j)`` and the density

    ``f(v) = sum_w f(v - a_w) prod_{j != w} F(v - a_j)``

(the derivative of the product; with the output the value only, summed over the winner
``w``). With the offsets on a lattice ``a_j = A_j / L`` (``A_j`` integers) and the
transcendental ``x = exp(-1/(b L))``, on a piece between consecutive offsets of a pair
``(s, t)`` both densities are polynomials in ``(u, x)`` with integer coefficients, ``u =
exp((v - s/L)/b)``, up to one common factor (Laplace: ``(2u)^n b f``; exponential: ``u^n
b f``):

- Laplace, ``F(z) = e^{z/b}/2`` for ``z < 0`` and ``1 - e^{-z/b}/2`` for ``z >= 0``;
- exponential, ``F(z) = 1 - e^{-z/b}`` for ``z >= 0`` and 0 below (the density is 0 left
  of ``max a_j``).

References
----------
W. Feller, *An Introduction to Probability Theory and Its Applications*, vol. II, Wiley
1971, section I.6 (the distribution of the maximum of independent variables). Y. Wang, Z.
Ding, G. Wang, D. Kifer, D. Zhang, "Proving differential privacy with shadow execution",
PLDI 2019 (the noisy-max variants returning the value).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import sympy

from ..exact.arb import flint_prec
from ..exact.poly import sign_at
from .release_separable import positive_log

_CTX = flint.fmpz_mpoly_ctx.get(("u", "x"), "lex")


@dataclass(frozen=True)
class Exact:
    """A candidate of the supremum with an exact ratio ``A(x)/B(x) >= 1`` (``B = 0``:
    ``oo``); ``direction`` +1 when the first input's density is the larger."""

    A: flint.fmpz_poly
    B: flint.fmpz_poly
    direction: int
    where: str
    attained: bool


def _one() -> Any:
    return _CTX.from_dict({(0, 0): 1})


def _xpow(e: int) -> Any:
    return _CTX.from_dict({(0, e): 1})


class Lattice:
    """The offsets of both inputs on their common lattice ``1/L`` and the noise's rate.

    Parameters
    ----------
    law : str
        ``"laplace"`` or ``"exponential"``.
    rate : Fraction
        ``1/b``.
    first, second : sequence of Fraction
        The offsets ``a_j`` of each input (equal lengths).
    """

    def __init__(self, law: str, rate: Fraction, first: Any, second: Any):
        self.law = law
        self.L = math.lcm(*[v.denominator for v in (*first, *second)])
        self.Q = [int(v * self.L) for v in first]
        self.Q2 = [int(v * self.L) for v in second]
        self.r = rate / self.L  # x = exp(-r); u = exp(r * (L*v - s))

    @property
    def span(self) -> int:
        """The lattice steps between the smallest and largest offset."""
        both = self.Q + self.Q2
        return max(both) - min(both)

    def x_at(self, prec: int) -> flint.arb:
        """A ball of ``x = exp(-r)`` at ``prec`` bits."""
        with flint_prec(prec):
            return (-flint.arb(flint.fmpq(self.r.numerator, self.r.denominator))).exp()

    def v(self, s: int) -> Fraction:
        """The value of the lattice coordinate ``s`` (``v = s / L``)."""
        return Fraction(s, self.L)

    def density(self, Q: list[int], s: int, lo: int | None) -> Any:
        """``P(u, x)`` on a piece whose left end is ``lo`` (None: unbounded) with reference
        point ``s`` (0 where the density vanishes: exponential noise left of a score)."""
        u = _CTX.gens()[0]
        fs, Fs = [], []
        for Qj in Q:
            right = lo is not None and Qj <= lo
            if self.law == "laplace":
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

    def value(self, c: Exact) -> sympy.Expr:
        """``ln(A(x)/B(x))`` at ``x = exp(-r)`` (``oo`` for ``B = 0``), exact."""
        if c.B == 0:
            return sympy.oo
        r = sympy.Rational(self.r.numerator, self.r.denominator)
        a_nz = [(e, int(v)) for e, v in enumerate(c.A.coeffs()) if v != 0]
        b_nz = [(e, int(v)) for e, v in enumerate(c.B.coeffs()) if v != 0]
        if len(a_nz) == 1 and len(b_nz) == 1:  # a monomial ratio: log(c) + k r
            return sympy.log(sympy.Rational(a_nz[0][1], b_nz[0][1])) + (
                b_nz[0][0] - a_nz[0][0]) * r
        return positive_log(self.at_x(c.A) / self.at_x(c.B))

    def at_x(self, p: flint.fmpz_poly) -> sympy.Expr:
        """``p(exp(-r))`` as a sympy sum of exponentials."""
        r = sympy.Rational(self.r.numerator, self.r.denominator)
        return sympy.Add(*[int(v) * sympy.exp(-r * e) for e, v in enumerate(p.coeffs())
                           if v != 0])


def coeffs_in_u(p: Any) -> list[flint.fmpz_poly]:
    """The coefficients ``c_k(x)`` of ``p(u, x) = sum_k c_k(x) u^k``."""
    monoms = p.monoms()
    if not monoms:
        return []
    rows: list[dict[int, Any]] = [{} for _ in range(max(m[0] for m in monoms) + 1)]
    for (k, e), c in zip(monoms, p.coeffs(), strict=True):
        rows[k][e] = c
    out = []
    for row in rows:
        dense = [0] * (max(row) + 1 if row else 0)
        for e, c in row.items():
            dense[e] = c
        out.append(flint.fmpz_poly(dense))
    return out


def taylor_at_one(cs: list[flint.fmpz_poly]) -> tuple[int, flint.fmpz_poly]:
    """``(j, t_j(x))``: the lowest non-zero coefficient of ``p(1 + h, x)`` in ``h``, ``cs``
    the coefficients of ``p`` in u (the order of vanishing at the piece's left end)."""
    for j in range(len(cs)):
        t = flint.fmpz_poly()
        for k in range(j, len(cs)):
            t += math.comb(k, j) * cs[k]
        if t != 0:
            return j, t
    raise AssertionError("the zero density has no Taylor coefficient")


def trailing(cs: list[flint.fmpz_poly]) -> tuple[int, flint.fmpz_poly]:
    """``(k, c_k(x))``: the lowest power of u and its coefficient (``cs`` as above)."""
    k = next(i for i, c in enumerate(cs) if c != 0)
    return k, cs[k]


def leading(cs: list[flint.fmpz_poly]) -> tuple[int, flint.fmpz_poly]:
    """``(k, c_k(x))``: the highest power of u and its coefficient (``cs`` as above)."""
    return len(cs) - 1, cs[-1]


class Search:
    """The exact candidates of the supremum of ``|ln P/Q|`` over the pieces of one pair,
    and the pieces left for the critical points."""

    def __init__(self, lattice: Lattice, label: str):
        self.lattice = lattice
        self.label = label
        self.exact: list[Exact] = []
        self.pieces: list[tuple[Any, Any, int, int | None, int | None, list, list]] = []

    def sign(self, poly: flint.fmpz_poly) -> int:
        """The sign of ``poly(x)``, exact (``x`` is transcendental)."""
        return sign_at(flint.fmpq_poly(poly), self.lattice.x_at)

    def add(self, orders: tuple[int, int], A: flint.fmpz_poly, B: flint.fmpz_poly,
            where: str, attained: bool, toward: int, infinite: str | None = None) -> None:
        """A candidate: a ratio ``A/B`` when the orders (of vanishing, or of growth when
        ``toward`` is +1) agree, else an infinite loss approached (named ``infinite``)."""
        if orders[0] != orders[1]:
            direction = 1 if (orders[0] < orders[1]) == (toward <= 0) else -1
            one = flint.fmpz_poly([1])
            self.exact.append(Exact(one, flint.fmpz_poly(), direction, infinite or where,
                                    False))
            return
        g = A.gcd(B)
        A, B = A // g, B // g
        if self.sign(B) < 0:  # g may be negative at x: both densities are positive there
            A, B = -A, -B
        s = self.sign(A - B)
        if s >= 0:
            self.exact.append(Exact(A, B, s, where, attained))
        else:
            self.exact.append(Exact(B, A, -1, where, attained))

    def compare(self, a: Exact, b: Exact) -> int:
        """Exact comparison of two candidates' losses."""
        if a.B == 0 or b.B == 0:
            return int(a.B == 0) - int(b.B == 0)
        return self.sign(a.A * b.B - b.A * a.B)

    def best(self) -> Exact:
        """The candidate of the largest loss (the first attained one among equals)."""
        top: list[Exact] = []
        for c in self.exact:
            s = 1 if not top else self.compare(c, top[0])
            if s > 0:
                top = [c]
            elif s == 0:
                top.append(c)
        return sorted(top, key=lambda c: not c.attained)[0]


def _pieces(lat: Lattice) -> list[tuple[int | None, int | None]]:
    if lat.law == "exponential":
        return [(max(lat.Q), None)]
    T = sorted(set(lat.Q) | set(lat.Q2))
    return [(None, T[0]), *zip(T, T[1:], strict=False), (T[-1], None)]


def _text(x: int | None, lat: Lattice, none: str) -> str:
    return none if x is None else str(lat.v(x))


def scan_pieces(search: Search) -> None:
    """Every exact candidate (piece ends, limits, constant pieces), and the pieces whose
    interior critical points remain to be searched."""
    lat, label = search.lattice, search.label
    for lo, hi in _pieces(lat):
        s = lo if lo is not None else hi
        assert s is not None
        P, P2 = lat.density(lat.Q, s, lo), lat.density(lat.Q2, s, lo)
        cs, cs2 = coeffs_in_u(P), coeffs_in_u(P2)
        constant = P.derivative(0) * P2 - P * P2.derivative(0) == 0
        cell = (f"{label} with the value in ({_text(lo, lat, '-oo')}, "
                f"{_text(hi, lat, 'oo')}) (a constant ratio)")
        if lo is None:  # v -> -oo (u -> 0)
            (k1, c1), (k2, c2) = trailing(cs), trailing(cs2)
            where = cell if constant else f"{label} as the value -> -oo"
            search.add((k1, k2), c1, c2, where, constant, 0)
        else:
            (j1, t1), (j2, t2) = taylor_at_one(cs), taylor_at_one(cs2)
            at = lat.v(lo)
            if constant:
                where = cell
            elif j1 == j2 == 0:
                where = f"{label} with the value {at}"
            else:
                where = f"{label} as the value -> {at} from above"
            edge = f"{label} as the value -> {at}" + (" from above" if j1 and j2 else "")
            search.add((j1, j2), t1, t2, where, constant or j1 == j2 == 0, 0, edge)
            if hi is None and not constant:  # v -> +oo (u -> oo)
                (k1, c1), (k2, c2) = leading(cs), leading(cs2)
                search.add((k1, k2), c1, c2, f"{label} as the value -> +oo", False, 1)
        if not constant:
            search.pieces.append((P, P2, s, lo, hi, cs, cs2))
