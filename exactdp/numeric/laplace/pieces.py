"""The piecewise expansion of the Laplace report-noisy-max integral (docs/formulas.md section 2).

Between two consecutive distinct scaled gaps ``u_{k-1} < u_k`` the integrand is
``X^{k1} * sum_j h_j Y^j`` with ``X = e^{y + u_{k-1}}`` and ``Y = e^{-(y + u_k)}``; :func:`expand`
integrates it piece by piece over a coefficient ring (flint polynomials for integer gaps,
scalars otherwise). See :mod:`exactdp.numeric.laplace` for the convention and references.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import cmp_to_key
from typing import Any

import sympy
from flint import fmpq, fmpq_poly

# --------------------------------------------------------------------------------------
# the piecewise expansion engine (generic coefficient arithmetic)
# --------------------------------------------------------------------------------------


class _Ops:
    """Coefficient arithmetic used by :func:`_expand`.

    ``decay(t)`` is ``e^{-t}`` for a non-negative gap difference ``t``; ``piece(c, k1, k2,
    W)`` is ``c * integral_piece X^{k1} Y^{k2}``; ``top(c, k)`` is ``c/k``; ``acc`` adds
    two accumulated values.
    """

    zero: object
    one: Any  # the ring's 1: an fmpq_poly, mpf or arb (FlintOps / ScalarOps)

    def decay(self, t):  # pragma: no cover - interface
        raise NotImplementedError

    def sub(self, a, b):
        return a - b

    def neg(self, a):
        return -a

    def diff(self, a, b):
        """Difference of two gaps (an int for integer gaps, else an exact or mp number)."""
        return a - b


def expand(u: list, cnt: list[int], idx: list[int], ops) -> list:
    """Pr[RNM = r] for every item by the piecewise closed form.

    ``u`` are the distinct gaps in increasing order with ``u[0] == 0`` (any exact or mp
    type supporting ``-``), ``cnt`` their multiplicities, ``idx[r]`` the position of item
    r's gap in ``u``. Cost O(p * p * n) coefficient operations (p = len(u)): items with
    equal gaps share one result.
    """
    p = len(u)
    n = len(idx)
    half = ops.half
    # leftmost piece (-oo, -u_max]: every factor low; integral of X^n is 1/n
    left = ops.scale(ops.decay(ops.sum_diff(u[p - 1], u, cnt, p)), Fraction(1, n * 2**n))
    by_gap: dict[int, object] = {}  # the result depends on r only through its gap
    for r in range(n):
        kr = idx[r]
        if kr in by_gap:
            continue
        total = ops.acc_start(left)
        H = [ops.one]  # high product (r excluded) as a polynomial in Y
        for k in range(p - 1, -1, -1):
            if k < p - 1:  # re-anchor Y from -u_{k+1} to -u_k: h_j *= e^{-j (u_{k+1}-u_k)}
                w = ops.diff(u[k + 1], u[k])
                H = [H[0]] + [ops.mul(h, ops.decay_mult(w, j)) for j, h in enumerate(H) if j]
            for _ in range(cnt[k] - (1 if kr == k else 0)):  # new high items: (1 - Y/2)
                H = (
                    [H[0]]
                    + [ops.sub(H[j], ops.mul(H[j - 1], half)) for j in range(1, len(H))]
                    + [ops.neg(ops.mul(H[-1], half))]
                )
            if kr >= k:  # r high: f = e^{-(y + d_r)}/2 = Y e^{-(u_kr - u_k)}/2
                fcoef = ops.mul(ops.decay(ops.diff(u[kr], u[k])), half)
                shift = 1
                k1 = 0
            else:  # r low: f = F = e^{y + d_r}/2, part of the low monomial
                fcoef = None
                shift = 0
            if k == 0:  # top piece [0, oo): X absent, integral of Y^j is 1/j
                for j, h in enumerate(H):
                    total = ops.acc_add(total, ops.top(ops.mul(h, fcoef), j + shift))
                continue
            # low monomial on [-u_k, -u_{k-1}]: prod_{i<k} (X e^{-(u_{k-1} - u_i)}/2)^{cnt_i}
            nlow = sum(cnt[:k])
            low = ops.scale(ops.decay(ops.sum_diff(u[k - 1], u, cnt, k)), Fraction(1, 2**nlow))
            if fcoef is not None:
                low = ops.mul(low, fcoef)
            k1 = nlow
            W = ops.diff(u[k], u[k - 1])
            for j, h in enumerate(H):
                total = ops.acc_add(total, ops.piece(ops.mul(h, low), k1, j + shift, W))
        by_gap[kr] = total
    return [by_gap[k] for k in idx]


class FlintOps(_Ops):
    """Integer gaps G (in units of lam): coefficients are fmpq_poly in x = e^{-lam};
    integrals are pairs (A, B) meaning ``A(x) + lam * B(x)``."""

    def __init__(self) -> None:
        self.one = fmpq_poly([1])
        self.half = fmpq_poly([fmpq(1, 2)])
        self._zero = fmpq_poly([])

    def decay(self, t: int) -> fmpq_poly:
        return self.one.left_shift(t)

    def decay_mult(self, w: int, j: int) -> int:
        return w * j  # marker: multiply by x^(w*j)

    def mul(self, a, b):
        if isinstance(b, int):
            return a.left_shift(b)
        return a * b

    def scale(self, a, q: Fraction):
        return a * fmpq(q.numerator, q.denominator)

    def sum_diff(self, top: int, u: list, cnt: list, k: int) -> int:
        return sum(c * (top - v) for v, c in zip(u[:k], cnt[:k], strict=True))

    def top(self, c, j: int):
        return (c * fmpq(1, j), self._zero)

    def piece(self, c, k1: int, k2: int, W: int):
        if k1 == k2:
            return (self._zero, c.left_shift(k1 * W) * W)
        return ((c.left_shift(k2 * W) - c.left_shift(k1 * W)) * fmpq(1, k1 - k2), self._zero)

    def acc_start(self, c):
        return (c, self._zero)

    def acc_add(self, a, b):
        return (a[0] + b[0], a[1] + b[1])


class SparseOps(_Ops):
    """Integer gaps of any size: coefficients are sparse polynomials in x = e^{-lam}, dicts
    ``{exponent: Fraction}`` (a gap of 10**35 is one term, not a dense array); integrals
    are pairs (A, B) meaning ``A(x) + lam * B(x)``, as in :class:`FlintOps`."""

    def __init__(self) -> None:
        self.one = {0: Fraction(1)}
        self.half = {0: Fraction(1, 2)}
        self._zero: dict = {}

    def decay(self, t: int) -> dict:
        return {t: Fraction(1)}

    def decay_mult(self, w: int, j: int) -> int:
        return w * j  # marker: multiply by x^(w*j)

    @staticmethod
    def _add(a: dict, b: dict, sign: int = 1) -> dict:
        out = dict(a)
        for e, c in b.items():
            v = out.get(e, 0) + sign * c
            if v:
                out[e] = v
            else:
                out.pop(e, None)
        return out

    def sub(self, a, b):
        return self._add(a, b, -1)

    def neg(self, a):
        return {e: -c for e, c in a.items()}

    def mul(self, a, b):
        if isinstance(b, int):
            return {e + b: c for e, c in a.items()}
        out: dict = {}
        for e1, c1 in a.items():
            for e2, c2 in b.items():
                out[e1 + e2] = out.get(e1 + e2, 0) + c1 * c2
        return {e: c for e, c in out.items() if c}

    def scale(self, a, q: Fraction):
        return {e: c * q for e, c in a.items()}

    def sum_diff(self, top: int, u: list, cnt: list, k: int) -> int:
        return sum(c * (top - v) for v, c in zip(u[:k], cnt[:k], strict=True))

    def top(self, c, j: int):
        return (self.scale(c, Fraction(1, j)), self._zero)

    def piece(self, c, k1: int, k2: int, W: int):
        if k1 == k2:
            return (self._zero, self.scale(self.mul(c, k1 * W), Fraction(W)))
        diff = self.sub(self.mul(c, k2 * W), self.mul(c, k1 * W))
        return (self.scale(diff, Fraction(1, k1 - k2)), self._zero)

    def acc_start(self, c):
        return (c, self._zero)

    def acc_add(self, a, b):
        return (self._add(a[0], b[0]), self._add(a[1], b[1]))


class ScalarOps(_Ops):
    """Scalar coefficients: sympy expressions (exact) or mpmath numbers."""

    def __init__(self, exp_neg: Callable, expm1: Callable | None, one, half) -> None:
        self.exp_neg = exp_neg
        self.expm1 = expm1
        self.one = one
        self.half = half

    def decay(self, t):
        return self.exp_neg(t)

    def decay_mult(self, w, j):
        return self.exp_neg(w * j)

    def mul(self, a, b):
        return a * b

    def scale(self, a, q: Fraction):
        if isinstance(a, sympy.Basic):
            return a * sympy.Rational(q.numerator, q.denominator)
        return a * q.numerator / q.denominator

    def sum_diff(self, top, u, cnt, k):
        s = self.one * 0
        for v, c in zip(u[:k], cnt[:k], strict=True):
            s = s + c * (top - v)
        return s

    def top(self, c, j: int):
        return c / j

    def piece(self, c, k1: int, k2: int, W):
        if k1 == k2:
            return c * W * self.exp_neg(k1 * W)
        lo, diff = min(k1, k2), abs(k1 - k2)
        if self.expm1 is None:  # exact: (e^{-lo W} - e^{-hi W})/diff
            return c * (self.exp_neg(lo * W) - self.exp_neg((lo + diff) * W)) / diff
        return c * self.exp_neg(lo * W) * (-self.expm1(-diff * W)) / diff

    def acc_start(self, c):
        return c

    def acc_add(self, a, b):
        return a + b


def group_gaps(gaps: list, cmp: Callable | None = None) -> tuple[list, list[int], list[int]]:
    """Distinct gaps (ascending), multiplicities, and each item's index into them."""
    order = sorted(range(len(gaps)), key=cmp_to_key(cmp) if cmp else (lambda i: gaps[i]))
    u: list = []
    cnt: list[int] = []
    idx = [0] * len(gaps)
    rep = -1  # an item carrying the current distinct gap
    for i in order:
        if rep >= 0 and (cmp(i, rep) == 0 if cmp else gaps[i] == gaps[rep]):
            cnt[-1] += 1
        else:
            u.append(gaps[i])
            cnt.append(1)
            rep = i
        idx[i] = len(u) - 1
    return u, cnt, idx
