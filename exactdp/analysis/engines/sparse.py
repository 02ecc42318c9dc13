"""The sparse x-form engine for huge gaps: sympy sparse polynomials instead of dense flint ones.

Same decisions as :class:`exactdp.analysis.engines.xform.XEngine`; signs on ``(0, 1)`` by
Descartes / partial-sum rules with exact root isolation as the fallback.
"""

from __future__ import annotations

import itertools

import flint
import sympy
from sympy.polys.rings import ring

from ...exact.arb import flint_prec, to_arb
from ...exact.signs import MAX_PREC, UndecidedSignError, proved_rational
from ...xform import DENSE_DEGREE_LIMIT
from ..common import exact_sign
from .sympy_form import terms_value
from .xform import XEngine

_SPARSE_RING, _SPARSE_X = ring("x", sympy.QQ)


def sparse_poly(t: dict):
    """A term dict ``{exponent: fmpq}`` as an element of the sparse ring ``QQ[x]``."""
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


def expands_powers(eps: sympy.Expr, N: int) -> bool:
    """True when sympy rewrites ``x**k = exp(-k*eps/N)`` as a power (eps a rational
    multiple of a logarithm: ``exp(-3*log(2))`` is ``1/8``), which it would expand for a
    sparse exponent ``k`` near ``10**300``."""
    return not eps.free_symbols and not isinstance(sympy.exp(-eps * 3 / N), sympy.exp)


def check_sparse_epsilon(eps: sympy.Expr, N: int, x_value: object) -> None:
    """Refuse the sparse x-form engine at an epsilon whose powers of ``x`` sympy expands
    (:func:`expands_powers`), before any power is built.

    Raises
    ------
    ValueError
        With the epsilon, ``x`` and the cheaper route (a rational epsilon).
    """
    if expands_powers(eps, N):
        raise ValueError(
            f"epsilon = {eps}: sympy rewrites x**k = exp(-k*epsilon/{N}) as a power "
            f"(x = {x_value}) that it would expand for the score gaps above "
            f"DENSE_DEGREE_LIMIT = {DENSE_DEGREE_LIMIT} here; use a rational epsilon "
            "(or smaller gaps)"
        )


class SparseXEngine(XEngine):
    """The x-form engine on sparse polynomials (degree above ``DENSE_DEGREE_LIMIT``).

    Polynomials in ``x = exp(-eps/N)`` are elements of sympy's sparse ring ``QQ[x]``
    (a dict of exponents), so ``x**(2*10**300)`` is one term. Signs:

    - numeric epsilon: the lowest power of ``x`` is factored out and the rest is evaluated
      in ball arithmetic at rising precision, each ``x**k`` as ``exp(-k*eps/N)`` with
      ``log2(k)`` guard bits; for algebraic epsilon ``x`` is transcendental, so a non-zero
      polynomial is never 0 at ``x`` and the loop ends;
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
        check_sparse_epsilon(eps, N, self.x_value)

    def _powers(self, ks: list[int], prec: int) -> list[flint.arb]:
        """Balls of ``x**k = exp(-k*eps/N)`` for every ``k`` of ``ks``, with relative
        accuracy about ``2**-prec``: ``log2(max k)`` guard bits, and ``-eps/N`` converted to
        a ball once per working precision (one sympy conversion per term and precision
        made PF at epsilon 1e-300 on 7 scores spend 11 s CPU in 220,000 of them)."""
        guard = prec + max(int(max(ks, default=1)).bit_length(), 1) + 32
        rates = self.__dict__.setdefault("_rates", {})
        with flint_prec(guard):
            if guard not in rates:
                rates[guard] = to_arb(-self.eps / self.N, guard)
            rate = rates[guard]
            return [(rate * k).exp() if k else flint.arb(1) for k in ks]

    def sign(self, f) -> int | None:
        if not f:
            return 0
        items = _sparse_items(f)
        if self.symbolic:
            try:
                return sparse_unit_sign(items)
            except ValueError as exc:
                raise ValueError(f"{self.func}: {exc}") from exc
        low = items[0][0]
        top = self._top_prec(items[-1][0] - low)
        prec = 96
        while prec <= top:
            parts = list(zip((c for _, c in items),
                             self._powers([e - low for e, _ in items], prec), strict=True))
            with flint_prec(prec):
                total = flint.arb(0)
                for c, yk in parts:
                    total += flint.arb(flint.fmpq(int(c.p), int(c.q))) * yk
            if total > 0:
                return 1
            if total < 0:
                return -1
            prec *= 2
        raise UndecidedSignError(
            f"{self.func}: sign of a sparse polynomial of degree {items[-1][0]} at "
            f"x = exp(-{self.eps}/{self.N}) not decided at {top} bits (epsilon = {self.eps} "
            "is not known to be algebraic, so the value may be exactly 0)"
        )

    def _top_prec(self, span: int) -> int:
        """Highest precision: ``2 * span * |log2 x| + 256`` bits (a cancellation can hide the
        value below the smallest term ``x**span``), at least 2**15, at most MAX_PREC."""
        with flint_prec(64):
            bits = (to_arb(self.eps / self.N, 64) * span / flint.arb(2).log()).upper()
            if not bits.is_finite() or bits > MAX_PREC:
                return MAX_PREC
            top = bits.ceil().unique_fmpz()  # an exact point: its ceiling is one integer
            if top is None:
                return MAX_PREC
            need = int(top)
        return min(MAX_PREC, max(1 << 15, 2 * need + 256))

    def cmp_exp(self, R, claim: sympy.Expr) -> int | None:
        ratio = proved_rational(claim / self.eps)
        t = None if ratio is None else ratio * self.N
        if t is not None and t.is_Integer and t >= 0:
            mono = _SPARSE_X ** int(t)
            return self.sign(mono * R[0] - R[1])
        return exact_sign(self.to_sympy(R) - sympy.exp(claim))

    def to_sympy(self, R) -> sympy.Expr:
        num = {e: c for (e,), c in R[0].terms()}
        den = {e: c for (e,), c in R[1].terms()}
        return terms_value(num, den, self.eps, self.N)

    def zero(self) -> tuple:
        """Probability exactly 0 in the sparse ring, the pair ``(0, 1)``."""
        return _SPARSE_RING.zero, _SPARSE_RING.one

    def _sum_value(self, num, den) -> sympy.Expr:
        return self.to_sympy((num, den))

    def _check_nonnegative(self, i: int, func: str, name: str, scores) -> None:
        for r, (a, b) in enumerate(self.probs[i]):
            sa, sb = self.sign(a), self.sign(b)
            if sb in (None, 0) or sa is None or sa * sb < 0:
                raise ValueError(
                    f"{func}: probability {r} of {name} on {scores} is negative (or its "
                    "denominator vanishes) for some epsilon"
                )


def sparse_unit_sign(items: list[tuple[int, sympy.Rational]]) -> int | None:
    """Sign of a non-zero sparse polynomial on ``(0, 1)``; None if it changes there.

    ``items``: ``(exponent, coefficient)`` by increasing exponent, coefficients non-zero.
    With ``s0`` the sign at ``0+`` (lowest term) and ``f(1)`` the coefficient sum:

    - no sign variation in the coefficients: no positive root (Descartes), sign ``s0``;
    - ``f(1)`` of sign ``-s0``: a root inside (intermediate value theorem): None;
    - ``f(1)`` of sign ``s0`` and one variation: the only positive root is beyond 1;
    - ``f(1) = 0``: ``f = (1 - x) g`` where g's coefficients are the partial sums ``S_j``
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
