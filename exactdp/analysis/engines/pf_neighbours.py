"""Permute-and-flip on a neighbourhood: balls first, exact polynomials when a comparison
needs them.

``check_dp`` on PF with rational scores compares the probabilities of ``q`` with those of
its neighbours (2n + 2 in the reduced search). Building each neighbour's exact polynomials
by its own product tree (:func:`exactdp.xform.pf_polynomials_tree`) was most of the time
(issue 36). On this route every probability is a :class:`LazyPair`: a rigorous arb ball at
``x = exp(-epsilon/N)``, which decides every comparison whose balls do not overlap (the
x-form engine's pre-filter), and its exact ``fmpq_poly``, formed only when a comparison
needs it (a tie such as PF's loss = epsilon, a close call, the final loss), from ``q``'s
product:

With ``F(t, x) = prod_s (1 - t x^{G_s}) = sum_i T_i(x) t^i`` PF's probability of an output
with gap ``h`` is (McKenna & Sheldon 2020, Prop. 1; docs/formulas.md section 2, the stable
integral form)

    P_h(x) = x^h int_0^1 F(t, x) / (1 - t x^h) dt = x^h sum_k K_k(x) / (k + 1),

``K = F / (1 - t x^h)`` (``K_k = T_k + x^h K_{k-1}``). A neighbour ``v`` that moves every
gap but one, output r's, by one common amount ``c`` (``G^v_s = G_s + c`` for ``s != r``,
``G^v_r = g'``: every reduced and monotone move) has, with ``W = F / (1 - t x^{G_r})``
(``q``'s product without r),

    F^v(t, x) = W(x^c t, x) (1 - t x^{g'}),

so its blocks come from ``W``'s by shifts (``W_i`` is divisible by ``x^{-c i}`` when
``c < 0``, since every ``G_s + c >= 0``), and for the gap ``g'`` itself ``K = W(x^c t)``:
``P^v_{g'} = x^{g'} sum_k x^{c k} W_k / (k + 1)``, which for ``c = 0`` is
``x^{g' - G_r} P_{G_r}`` (the tie ``P_r(q) / P_r(v) = e^{+-epsilon}`` of most reduced
moves: no arithmetic). A neighbour with q's gaps shares q's pairs; any other vector (an
exhaustive or user-given neighbour) gets its own product.

The balls: for ``q`` (and a neighbour that is not such a move), ``F`` at the ball ``x`` as
an ``arb_poly`` in t, its correlation ``H_l = sum_i T_i / (i + l + 1)`` by one product, and
``P_h = y H(y)`` at ``y = x^h`` (the formula of :func:`exactdp.xform.pf_polynomials_tree`):
O(n^2) each. A moved neighbour's balls come from ``q``'s products without one or two
factors (:class:`_MovedBalls`, built once per pair of distinct gaps): O(1) ball operations
per distinct gap, so the search no longer costs O(n^3). All in arb, so each ball contains
the exact value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import flint
import sympy

from ...exact.arb import to_arb
from ...scores import ScoreVector
from ...xform import DENSE_DEGREE_LIMIT, EXACT_SIZE_LIMIT, exact_pf_size, pf_product_blocks
from .xform import Ratio, XEngine

#: Bits of the balls beyond ``n`` (the alternating sums lose about n/2 bits at n = 40); a
#: comparison the balls cannot decide is decided exactly, so this trades time only.
BALL_PREC = 64

#: The denominator of every PF probability (a polynomial: 1), one shared object.
_ONE = flint.fmpq_poly([1])


class LazyPair:
    """A probability ``(num, den)`` of the x-form engine whose exact polynomials are made on
    first access (``pair[0]``, ``pair[1]``, unpacking); ``ball`` encloses its value at the
    engine's ``x``."""

    __slots__ = ("ball", "_make", "_pair", "shift_of")

    def __init__(self, ball: flint.arb, make, shift_of: tuple | None = None):
        self.ball = ball
        self._make = make
        self._pair: tuple | None = None
        #: ``(other, k)``: this probability is exactly ``x^k`` times ``other``'s (a proved
        #: identity of the construction), or None
        self.shift_of = shift_of

    def _exact(self) -> tuple:
        if self._pair is None:
            self._pair = (self._make(), _ONE)
            self._make = None
        return self._pair

    def __getitem__(self, i: int) -> flint.fmpq_poly:
        return self._exact()[i]

    def __iter__(self):
        return iter(self._exact())

    def __len__(self) -> int:
        return 2


def _shift(p: flint.fmpz_poly, k: int) -> flint.fmpz_poly:
    """``p x^k`` (``k < 0``: an exact division, the caller guarantees it)."""
    return p.left_shift(k) if k >= 0 else p.right_shift(-k)


def _divide(blocks: list, h: int) -> list:
    """The blocks ``K_0..K_{n-1}`` of ``F / (1 - t x^h)`` from ``F``'s ``T_0..T_n``; raises
    ArithmeticError unless the division is exact (the remainder ``T_n + x^h K_{n-1}`` is
    0), so every polynomial made from them is PF's closed form on ``F``."""
    acc = blocks[0]
    out = [acc]
    for k in range(1, len(blocks) - 1):
        acc = blocks[k] + acc.left_shift(h)
        out.append(acc)
    if blocks[-1] + acc.left_shift(h) != 0:
        raise ArithmeticError(f"a product without the factor 1 - t x^{h} of a gap it holds")
    return out


class _Product:
    """Exact PF polynomials of one vector from the blocks of its product ``F``, one per gap
    on demand (see the module notes)."""

    def __init__(self, n: int, blocks=None, base: _Product | None = None,
                 move: tuple[int, int, int] | None = None, gaps: Sequence[int] = ()):
        self.n = n
        self.Lc = math.lcm(*range(1, n + 1))
        self.weights = [self.Lc // (k + 1) for k in range(n)]
        self._blocks = blocks
        self._gaps = gaps
        self.base, self.move = base, move  # move = (G_r, c, g')
        self._without: dict[int, list] = {}
        self._integral: dict[int, flint.fmpz_poly] = {}

    def _weighted(self, K: list) -> flint.fmpz_poly:
        acc = flint.fmpz_poly([0])
        for Kk, w in zip(K, self.weights, strict=False):
            acc += Kk * w
        return acc

    def blocks(self) -> list:
        """``T_0..T_n`` of this vector's ``F``."""
        if self._blocks is None:
            if self.base is None:
                self._blocks = pf_product_blocks(self._gaps)
            else:
                G_r, c, g2 = self.move  # type: ignore[misc]
                W = self.base.without(G_r)
                V = [W[0]]
                for i in range(1, self.n):
                    V.append(_shift(W[i], c * i) - _shift(W[i - 1], c * (i - 1) + g2))
                V.append(-_shift(W[self.n - 1], c * (self.n - 1) + g2))
                self._blocks = V
        return self._blocks

    def without(self, h: int) -> list:
        """The blocks of ``F / (1 - t x^h)`` (cached per gap)."""
        hit = self._without.get(h)
        if hit is None:
            hit = self._without[h] = _divide(self.blocks(), h)
        return hit

    def integral(self, h: int) -> flint.fmpz_poly:
        """``Lc sum_k K_k / (k + 1)`` for ``K = F / (1 - t x^h)`` (cached per gap)."""
        hit = self._integral.get(h)
        if hit is None:
            hit = self._integral[h] = self._weighted(self.without(h))
        return hit

    def poly(self, h: int) -> flint.fmpq_poly:
        """PF's probability of an output with gap ``h``, ``P_h = x^h int_0^1 K dt``."""
        if self.move is not None and h == self.move[2]:
            G_r, c, g2 = self.move
            if c == 0:
                num = self.base.integral(G_r)  # type: ignore[union-attr]
            else:
                W = self.base.without(G_r)  # type: ignore[union-attr]
                num = self._weighted([_shift(Wk, c * k) for k, Wk in enumerate(W)])
            return flint.fmpq_poly(num.left_shift(g2), self.Lc)
        return flint.fmpq_poly(self.integral(h).left_shift(h), self.Lc)


def _balls(G: Sequence[int], distinct: list[int], n: int, x: flint.arb) -> list[flint.arb]:
    """Balls of ``P_g(x)`` for the gaps ``distinct`` of ``G``, in arb at the current
    precision: ``H_l = C_{n-1-l}`` for ``C = F A``, ``A = sum_p t^p / (n - p)``, so
    ``P_g = y H(y) = y^n C_{<n}(1/y)`` at ``y = x^g``. ``F``'s coefficients are those of
    ``prod_s (s - y_s)`` reversed (``T_i = (-1)^i e_i(y)``)."""
    powers = {g: x**g for g in distinct}
    F = flint.arb_poly(flint.arb_poly.from_roots([powers[g] for g in G]).coeffs()[::-1])
    C = (F * _weights(n, flint.ctx.prec)).truncate(n)
    values = C.evaluate([1 / powers[g] for g in distinct], algorithm="iter")
    return [powers[g] ** n * v for g, v in zip(distinct, values, strict=True)]


class _MovedBalls:
    """Balls of a moved neighbour's probabilities from ``q``'s roots, O(d) per neighbour
    (``d`` distinct gaps) after a table of ``d^2`` products built once.

    A neighbour ``v`` with ``G^v_s = G_s + c`` (``s != r``) and ``G^v_r = g'`` has
    ``F^v(t) = W(x^c t) (1 - t y')``, ``W = F / (1 - t y_r)``, ``y_s = x^{G_s}``,
    ``y' = x^{g'}``, so with ``U = F / ((1 - t y_r)(1 - t y_s))`` (q's product without the
    factors of r and s; McKenna & Sheldon 2020, Prop. 1, as in the module notes)

        P^v_{G_s + c} = x^{G_s + c} int_0^1 U(x^c t) (1 - y' t) dt
                      = x^{G_s + c} (I_1(z) / z - y' I_2(z) / z^2),   z = x^c,

    ``I_1 = int_0^t U``, ``I_2 = int_0^t u U(u) du``, and ``P^v_{g'} = x^{g'} J(z) / z``,
    ``J = int_0^t W``. ``U`` and ``W`` are ``arb_poly.from_roots`` of q's ``y`` (one per
    pair of distinct gaps ``(G_r, G_s)`` and per ``G_r``), their values at each ``z``
    cached: a neighbour costs a few ball products per distinct gap instead of its own
    product ``F^v A`` (O(n^2), :func:`_balls`). Every step is arb arithmetic: each ball
    contains the exact value.
    """

    def __init__(self, G: Sequence[int], x: flint.arb):
        self.G, self.x = list(G), x
        self._pow: dict[int, flint.arb] = {}
        self._w: dict[int, flint.arb_poly] = {}
        self._at: dict[tuple, tuple] = {}

    def power(self, k: int) -> flint.arb:
        hit = self._pow.get(k)
        if hit is None:
            hit = self._pow[k] = self.x**k
        return hit

    def _without(self, g: int) -> flint.arb_poly:
        """``W = prod (1 - t y_s)`` over q's gaps less one copy of ``g`` (cached)."""
        hit = self._w.get(g)
        if hit is None:
            roots = list(self.G)
            roots.remove(g)
            hit = self._w[g] = flint.arb_poly(
                flint.arb_poly.from_roots([self.power(h) for h in roots]).coeffs()[::-1])
        return hit

    def _product(self, drop: tuple[int, ...]) -> flint.arb_poly:
        """``prod (1 - t y_s)`` over q's gaps less one copy of each gap in ``drop`` (one or
        two): ``W`` by its roots, ``U = W / (1 - t y_s)`` by a series division (exact: the
        quotient is a polynomial of degree n - 2, its n - 1 terms the series')."""
        W = self._without(drop[0])
        if len(drop) == 1:
            return W
        m = len(self.G) - 1
        U = flint.arb_series(W.coeffs(), prec=m) / flint.arb_series(
            [1, -self.power(drop[1])], prec=m)
        return flint.arb_poly(U.coeffs()[:m])

    def at(self, drop: tuple[int, ...], c: int) -> tuple[flint.arb, flint.arb]:
        """``(I_1(z) / z, I_2(z) / z^2)`` of the product less ``drop`` at ``z = x^c``."""
        key = (drop, c)
        hit = self._at.get(key)
        if hit is None:
            U = self._product(drop)
            z = self.power(c)
            hit = self._at[key] = (U.integral()(z) / z, U.left_shift(1).integral()(z) / z**2)
        return hit

    def balls(self, move: tuple[int, int, int], distinct: list[int]) -> list[flint.arb]:
        """Balls of ``P^v_h`` for the gaps ``distinct`` of the neighbour moved by
        ``move = (G_r, c, g')`` (:func:`_move`)."""
        G_r, c, g2 = move
        y2 = self.power(g2)
        out = []
        for h in distinct:
            if h == g2:
                out.append(self.power(g2) * self.at((G_r,), c)[0])
                continue
            m1, m2 = self.at((G_r, h - c), c)  # h - c: the gap in q of an output s != r
            out.append(self.power(h) * (m1 - y2 * m2))
        return out


@lru_cache(maxsize=16)
def _weights(n: int, prec: int) -> flint.arb_poly:
    """``sum_{p < n} t^p / (n - p)`` in arb at ``prec`` bits."""
    return flint.arb_poly([flint.arb(1) / (n - p) for p in range(n)])


def _move(G: Sequence[int], Gv: Sequence[int]) -> tuple[int, int, int] | None:
    """``(G_r, c, g')`` when ``Gv`` moves every gap of ``G`` but output r's by ``c`` (``G``
    itself is ``c = 0`` with no output moved, not this), else None."""
    diffs = [b - a for a, b in zip(G, Gv, strict=True)]
    c = diffs[0] if diffs.count(diffs[0]) > 1 or len(diffs) == 1 else diffs[1]
    odd = [r for r, d in enumerate(diffs) if d != c]
    if len(odd) != 1:
        return None
    r = odd[0]
    return G[r], c, Gv[r]


def _monomial_ratio(k: int) -> tuple:
    """``x^k`` as a pair ``(num, den)`` of ``fmpq_poly``."""
    mono = flint.fmpq_poly([0] * abs(k) + [1])
    return (mono, _ONE) if k >= 0 else (_ONE, mono)


class LazyXEngine(XEngine):
    """The x-form engine over :class:`LazyPair` probabilities (a numeric epsilon).

    The ratio of a probability to itself is 1, and to one it is ``x^k`` times (a
    :attr:`LazyPair.shift_of` identity) ``x^-k``: both exact without any polynomial."""

    def ratio(self, a, b) -> Ratio:
        R = super().ratio(a, b)
        if isinstance(a, LazyPair) and isinstance(b, LazyPair):
            k = None
            if a is b:
                k = 0
            elif b.shift_of is not None and b.shift_of[0] is a:
                k = -b.shift_of[1]
            elif a.shift_of is not None and a.shift_of[0] is b:
                k = a.shift_of[1]
            if k is not None:
                num, den = _monomial_ratio(k)
                return Ratio(num, den, R.ball)
        return R

    def _prob_ball(self, p):
        if isinstance(p, LazyPair):
            return p.ball
        return super()._prob_ball(p)

    def is_zero(self, p) -> bool:
        if isinstance(p, LazyPair) and p.ball > 0:
            return False
        return super().is_zero(p)

    def __init__(self, eps: sympy.Expr, N: int, probs: list[list], zero_gap: Sequence[bool] = ()):
        super().__init__(eps, N, probs)
        #: per vector, whether its integer gaps hold a 0 (PF's identity proves its sum)
        self.zero_gap = list(zero_gap) or [False] * len(probs)

    def check_normalised(self, i: int, func: str, name: str, scores) -> None:
        """Vector ``i``'s probabilities sum to 1 exactly, by PF's identity, and are
        positive, by their balls; the exact test of :meth:`XEngine.check_normalised` when
        a ball is not positive or their sum does not contain 1.

        The identity (McKenna & Sheldon 2020, Prop. 1, and the product rule): every
        probability here is the closed form ``P_r = x^{G_r} int_0^1 F / (1 - t x^{G_r}) dt``
        of the vector's own product ``F = prod_s (1 - t x^{G_s})`` (every exact division
        is checked where it is made, :func:`_divide`), and
        ``sum_r x^{G_r} F / (1 - t x^{G_r}) = -dF/dt``, so
        ``sum_r P_r = F(0, x) - F(1, x) = 1 - prod_s (1 - x^{G_s})``: exactly 1, as a
        polynomial in x, when some ``G_s = 0`` (the top score). This replaces summing
        every distinct gap's polynomial of ``q`` (30-45% of a ``check_dp`` at 40-90
        scores); each polynomial formed for a comparison is still PF's closed form,
        which ``tests/analysis/engines/test_pf_neighbours.py`` compares with the product
        tree's and whose sum it checks exactly."""
        if not self.zero_gap[i]:
            return super().check_normalised(i, func, name, scores)
        shared: dict[int, list] = {}
        for pair in self.probs[i]:
            entry = shared.get(id(pair))
            if entry is None:
                shared[id(pair)] = [pair, 1]
            else:
                entry[1] += 1
        total = flint.arb(0)
        for pair, m in shared.values():
            ball = self._prob_ball(pair)
            if ball is None or not ball > 0:
                return super().check_normalised(i, func, name, scores)
            total += ball * m
        if not total.contains(1):
            super().check_normalised(i, func, name, scores)


def pf_lazy_engine(mech, eps: sympy.Expr, vectors: Sequence[ScoreVector],
                   degree_limit: int = DENSE_DEGREE_LIMIT) -> LazyXEngine | None:
    """The x-form engine with :class:`LazyPair` probabilities of PF on ``vectors`` (the
    first is ``q``), or None where this route does not apply (a mechanism without PF's
    product tree, a symbolic or limit epsilon, irrational scores, gaps beyond the dense
    limit ``degree_limit``, an x other than ``exp(-epsilon/N)``): the caller takes the
    general route."""
    if (not mech.product_tree or mech.output_kind != "selection" or eps is None
            or eps.free_symbols or mech.epsilon_limit is not None
            or not all(v.is_rational for v in vectors) or vectors[0].n < 2):
        return None
    gaps = [mech.oriented(v).integer_gaps() for v in vectors]
    L = gaps[0][0]
    if any(Lv != L or max(G) > degree_limit for Lv, G in gaps):
        return None
    if exact_pf_size(gaps[0][1]) > EXACT_SIZE_LIMIT:
        return None  # the general route refuses it with its message
    kappa = sympy.cancel(mech.rate / (eps * L))
    if not (kappa.is_Rational and kappa > 0 and kappa.p == 1):
        return None
    N = int(kappa.q)
    n = vectors[0].n
    G0 = gaps[0][1]
    base = _Product(n, gaps=G0)
    moved: _MovedBalls | None = None
    ctx = flint.ctx
    prec, ctx.prec = ctx.prec, BALL_PREC + n
    cap, ctx.cap = ctx.cap, n + 1  # the series' length (:class:`_MovedBalls`)
    try:
        x = to_arb(-eps / N, ctx.prec + 32).exp()
        probs: list[list] = []
        for _, G in gaps:
            if probs and G == G0:
                probs.append(probs[0])  # q's gaps: q's pairs
                continue
            move = _move(G0, G) if probs else None
            prod = base if not probs else (
                _Product(n, base=base, move=move) if move is not None else _Product(n, gaps=G))
            distinct = list(dict.fromkeys(G))
            if move is None:
                balls = _balls(G, distinct, n, x)
            else:
                moved = moved or _MovedBalls(G0, x)
                balls = moved.balls(move, distinct)
            pairs = {g: LazyPair(b, lambda g=g, prod=prod: prod.poly(g))
                     for g, b in zip(distinct, balls, strict=True)}
            if move is not None and move[1] == 0:  # P^v_{g'} = x^(g' - G_r) P_{G_r}
                G_r, _, g2 = move
                pairs[g2].shift_of = (probs[0][G0.index(G_r)], g2 - G_r)
            probs.append([pairs[g] for g in G])
    finally:
        ctx.prec, ctx.cap = prec, cap
    return LazyXEngine(eps, N, probs, [min(G) == 0 for _, G in gaps])
