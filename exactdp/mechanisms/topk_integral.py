"""Exact iterated integrals of one-shot noisy top-k (exponential, Gumbel, Laplace noise).

One-shot top-k adds i.i.d. noise to every score once and reports the k largest noisy scores
in order. With ``f_i``, ``F_i`` the density and CDF of item i's noisy score ``Y_i``,

.. math:: \\Pr[(r_1, \\dots, r_k)] = \\int_{y_1 > \\dots > y_k}
          \\prod_{j} f_{r_j}(y_j) \\prod_{s \\notin \\{r_1..r_k\\}} F_s(y_k)\\, dy,

computed inner-first: ``H_k(y) = int_{-oo}^y f_{r_k} G``, ``H_j(y) = int_{-oo}^y f_{r_j}
H_{j+1}`` and the probability is ``H_1(+oo)`` (G the product of the others' CDFs).

Every function here is *piecewise exp-polynomial*: on each piece between consecutive
breakpoints, a finite sum ``c * z^m * e^{a z}``. Products and antiderivatives stay in that
class (``int z^m e^{az} = e^{az} sum_j (-1)^j m!/(m-j)! z^{m-j} / a^{j+1}``, and
``z^{m+1}/(m+1)`` when ``a = 0``), so the integral is exact. Coefficients live in the field
``Q(x, lam)`` (sympy ``field``) with ``x = e^{-lam}`` and ``lam = epsilon/(c*Delta*L)``;
scores are measured in units of the noise scale, so item i sits at ``-G_i * lam``.

- Exponential noise (Exp(1)): ``f = x^{G} e^{-z}``, ``F = 1 - x^{G} e^{-z}`` right of the
  item, 0 left of it.
- Laplace noise (Lap(1)): left of the item ``f = F = x^{-G} e^{z}/2``; right of it
  ``f = x^{G} e^{-z}/2``, ``F = 1 - x^{G} e^{-z}/2``.
- Gumbel noise: under the increasing map ``v = -e^{-z}`` the noisy score has CDF
  ``e^{w v}`` on ``v < 0`` with ``w = x^{G}`` (the coin), density ``w e^{w v}``: one piece,
  with exponents in ``Q(x)``. The result is computed, not assumed: that it equals peeling
  the exponential mechanism is checked by the tests.

A sign of an exponent (needed for the limits at -oo and +oo) is decided exactly: integers
directly, field elements by the signs of their coefficients (x > 0); otherwise an error.

References
----------
C. Dwork and A. Roth (2014), section 3.3 (report-noisy-max); D. Durfee and R. Rogers,
"Practical differentially private top-k selection with pay-what-you-get composition",
NeurIPS 2019 (one-shot Gumbel top-k equals peeling the exponential mechanism).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import factorial

from sympy import QQ
from sympy.polys.fields import field

#: The coefficient field Q(x, lam), ``x = exp(-lam)``.
FIELD, FX, FLAM = field("x,lam", QQ)

Piece = dict  # (exponent a, power m) -> coefficient


def _field_sign(a) -> int:
    """Exact sign of an exponent: an int, or an element of Q(x, lam) with x, lam > 0."""
    if isinstance(a, int):
        return (a > 0) - (a < 0)
    if a == 0:
        return 0
    sign = 1
    for poly in (a.numer, a.denom):
        cs = poly.coeffs()
        if all(c > 0 for c in cs):
            continue
        if all(c < 0 for c in cs):
            sign = -sign
            continue
        raise ValueError(f"one-shot top-k: cannot decide the sign of the exponent {a}")
    return sign


class ExpPolyLine:
    """Breakpoints ``B_1 < ... < B_m`` on a line and the exact value of ``e^{a B_j}``.

    Parameters
    ----------
    points : sequence of field elements
        The breakpoints, increasing.
    exp_at : callable
        ``exp_at(j, a)`` returns ``e^{a B_j}`` in the field (j = 0..m-1).
    """

    def __init__(self, points: Sequence, exp_at: Callable):
        self.points = list(points)
        self.exp_at = exp_at
        self.pieces = len(self.points) + 1

    # ---------------------------------------------------------------- algebra
    @staticmethod
    def mul(f: list[Piece], g: list[Piece]) -> list[Piece]:
        out = []
        for p, q in zip(f, g, strict=True):
            acc: Piece = {}
            for (a1, m1), c1 in p.items():
                for (a2, m2), c2 in q.items():
                    key = (a1 + a2, m1 + m2)
                    acc[key] = acc.get(key, 0) + c1 * c2
            out.append({k: c for k, c in acc.items() if c != 0})
        return out

    @staticmethod
    def _antiderivative(piece: Piece) -> Piece:
        out: Piece = {}
        for (a, m), c in piece.items():
            if a == 0:
                key = (a, m + 1)
                out[key] = out.get(key, 0) + c * QQ(1, m + 1)
                continue
            for j in range(m + 1):
                key = (a, m - j)
                term = c * ((-1) ** j * factorial(m) // factorial(m - j)) / a ** (j + 1)
                out[key] = out.get(key, 0) + term
        return {k: v for k, v in out.items() if v != 0}

    def value(self, piece: Piece, j: int):
        """The piece's function at breakpoint ``B_j``."""
        b = self.points[j]
        total = FIELD.zero
        for (a, m), c in piece.items():
            total += c * (b**m if m else 1) * self.exp_at(j, a)
        return total

    def integrate(self, f: list[Piece]) -> list[Piece]:
        """``H(y) = int_{-oo}^y f(t) dt`` as a piecewise exp-polynomial.

        Raises
        ------
        ValueError
            If ``f`` does not decay at -oo (a term with exponent <= 0 on the lowest piece).
        """
        for (a, _m) in f[0]:
            if _field_sign(a) <= 0:
                raise ValueError("one-shot top-k: integrand does not vanish at -infinity")
        out = [self._antiderivative(f[0])]
        for j in range(1, self.pieces):
            prim = self._antiderivative(f[j])
            const = self.value(out[-1], j - 1) - self.value(prim, j - 1)
            if const != 0:
                key = (0, 0)
                prim = dict(prim)
                prim[key] = prim.get(key, 0) + const
            out.append({k: v for k, v in prim.items() if v != 0})
        return out

    @staticmethod
    def at_infinity(h: list[Piece]):
        """``lim_{y -> +oo} H(y)``: the constant term of the last piece.

        Raises
        ------
        ValueError
            If a term of the last piece does not decay (exponent >= 0 with a power of z).
        """
        total = FIELD.zero
        for (a, m), c in h[-1].items():
            s = _field_sign(a)
            if s == 0 and m == 0:
                total += c
            elif s >= 0:
                raise ValueError("one-shot top-k: the integral diverges at +infinity")
        return total


def line_for(noise: str, G: Sequence[int]):
    """The line and per-item density / CDF pieces for integer gaps ``G`` (units of ``lam``).

    Returns ``(line, densities, cdfs)``; ``densities[i]`` and ``cdfs[i]`` are lists of
    pieces.
    """
    n = len(G)
    if noise == "gumbel":
        line = ExpPolyLine([FIELD.zero], lambda j, a: FIELD.one)
        w = [FX**g for g in G]
        dens = [[{(w[i], 0): w[i]}, {}] for i in range(n)]
        cdfs = [[{(w[i], 0): FIELD.one}, {(0, 0): FIELD.one}] for i in range(n)]
        return line, dens, cdfs
    distinct = sorted(set(G), reverse=True)  # breakpoints -G*lam, increasing
    at = {g: j + 1 for j, g in enumerate(distinct)}  # item i is right of piece at[G_i] - 1
    line = ExpPolyLine([-g * FLAM for g in distinct], lambda j, a: FX ** (a * distinct[j]))
    dens, cdfs = [], []
    half = QQ(1, 2)
    for g in G:
        t = at[g]
        coin, inv = FX**g, FX ** (-g)
        if noise == "exponential":
            d = [{} if j < t else {(-1, 0): coin} for j in range(line.pieces)]
            c = [{} if j < t else {(0, 0): FIELD.one, (-1, 0): -coin} for j in range(line.pieces)]
        elif noise == "laplace":
            d = [{(1, 0): inv * half} if j < t else {(-1, 0): coin * half}
                 for j in range(line.pieces)]
            c = [{(1, 0): inv * half} if j < t else {(0, 0): FIELD.one, (-1, 0): -coin * half}
                 for j in range(line.pieces)]
        else:
            raise ValueError(f"one-shot top-k: no exact integral for noise {noise!r}")
        dens.append(d)
        cdfs.append(c)
    return line, dens, cdfs


def one_shot_topk(noise: str, G: Sequence[int], outputs: Sequence[tuple[int, ...]],
                  step: Callable[[], object] = lambda: None) -> list:
    """Exact probabilities (elements of ``Q(x, lam)``) of the ordered k-tuples ``outputs``.

    Parameters
    ----------
    noise : {"exponential", "gumbel", "laplace"}
    G : sequence of int, shape (n,)
        Integer gaps ``L * (q* - q_r)``.
    outputs : sequence of k-tuples of distinct indices
    step : callable, optional
        Called after each tuple (a progress bar's ``update``).
    """
    line, dens, cdfs = line_for(noise, G)
    n = len(G)
    one = [{(0, 0): FIELD.one} for _ in range(line.pieces)]
    others_cache: dict[frozenset, list[Piece]] = {}
    suffix_cache: dict[tuple, list[Piece]] = {}

    def others(chosen: frozenset) -> list[Piece]:
        if chosen not in others_cache:
            prod = one
            for s in range(n):
                if s not in chosen:
                    prod = line.mul(prod, cdfs[s])
            others_cache[chosen] = prod
        return others_cache[chosen]

    def suffix(chosen: frozenset, tail: tuple) -> list[Piece]:
        key = (chosen, tail)
        if key not in suffix_cache:
            inner = others(chosen) if len(tail) == 1 else suffix(chosen, tail[1:])
            suffix_cache[key] = line.integrate(line.mul(dens[tail[0]], inner))
        return suffix_cache[key]

    out = []
    for t in outputs:
        out.append(line.at_infinity(suffix(frozenset(t), tuple(t))))
        step()
    return out
