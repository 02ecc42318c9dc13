"""Exact generating functions in the x-form, shared by the exact mechanism formulas.

With rational scores every coin probability is a power of one number,
``p_r = x**G_r`` with ``x = exp(-epsilon/(c*Delta*L))`` and integer ``G_r``; with irrational
scores each distinct gap gets its own generator ``y_j = exp(-epsilon*gap_j/(c*Delta))``.
The mechanisms need, for every output r, the coefficients in ``t`` of a product of linear
factors over the *other* outputs,

    prod_{s != r} (alpha_s + beta_s * t),

whose coefficients are polynomials in x (python-flint ``fmpz_poly``) or in the ``y_j``
(sympy sparse polynomials). Equal gaps give equal factors, so the work is one full product
and one exact division per *distinct* gap: O(n * D) polynomial operations for D distinct
gaps, instead of O(n^2) per output.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

import flint
import sympy
from sympy.polys.rings import ring

__all__ = ["Generators", "coin", "leave_one_out", "generators_for", "to_sympy_in_x"]

#: Above this gap, an exact coin ``exp(-rate * gap)`` whose rate contains a logarithm is
#: refused: sympy would turn ``exp(-10**300 * log(2)/2)`` into ``2**(-5*10**299)`` and
#: never finish. (``exp(-5*10**299)`` itself is harmless.)
_HUGE_EXPONENT = 10**6


def coin(gap, rate) -> sympy.Expr:
    """The exact coin ``exp(-rate * gap)`` (1 for a zero gap), safe for astronomical gaps."""
    if gap == 0:
        return sympy.Integer(1)
    arg = -rate * gap
    big = gap if isinstance(gap, int) else sympy.Abs(sympy.sympify(gap))
    huge = big > _HUGE_EXPONENT if isinstance(big, int) or big.is_number else False
    if huge and arg.has(sympy.log):
        raise ValueError(
            f"exact probabilities: the coin exp({arg}) would expand to a power with an "
            "astronomical exponent (epsilon contains a logarithm and a score gap is huge); "
            "use .rational_form(), .evalf(dps) or .to_numpy() instead"
        )
    return sympy.exp(arg)


class Generators:
    """The coin probabilities of the distinct gaps, as ring elements.

    ``coins[j]`` is the ring element for the j-th distinct gap, ``index[r]`` the distinct
    gap of output r, ``one`` the ring's unit; ``expr(poly)`` turns a ring element (or a
    ``fmpq_poly`` for the x-ring) into a sympy expression given the generators' values.
    """

    def __init__(self, coins, index, one, to_expr: Callable, monomial_div: Callable):
        self.coins = coins
        self.index = index
        self.one = one
        self.to_expr = to_expr
        self.div_coin = monomial_div


#: Largest exponent of x handled by dense flint polynomials; beyond it each distinct gap
#: gets its own generator (sparse), so gaps such as 10**300 stay exact.
DENSE_DEGREE_LIMIT = 200_000


def generators_for(
    gaps_int: Sequence[int] | None, gaps_exact, rate, x: sympy.Symbol | None = None
) -> Generators:
    """Ring generators for the coins ``p_r = exp(-rate*gap_r)``.

    Parameters
    ----------
    gaps_int : sequence of int or None
        ``G_r = L*gap_r`` when the gaps are rational (then the ring is Z[x] via flint,
        unless a gap exceeds ``DENSE_DEGREE_LIMIT``).
    gaps_exact : sequence of sympy numbers
        The exact gaps (used when ``gaps_int`` is None).
    rate : sympy.Expr
        ``epsilon/(c*Delta)`` for exact gaps, or ``epsilon/(c*Delta*L)`` for integer gaps.
    x : sympy.Symbol, optional
        If given, ``to_expr`` returns expressions in ``x`` (the coin of gap G being
        ``x**G``) instead of in ``exp(-rate*G)``: the x-form.
    """
    if gaps_int is not None and max(gaps_int) <= DENSE_DEGREE_LIMIT:
        distinct = sorted(set(gaps_int))
        pos = {g: j for j, g in enumerate(distinct)}
        coins = [flint.fmpz_poly([0] * g + [1]) for g in distinct]

        def to_expr(poly) -> sympy.Expr:
            return to_sympy_in_x(poly, x) if x is not None else fmpq_poly_to_exp(poly, rate)

        def div(poly, j):
            return poly // coins[j]

        return Generators(coins, [pos[g] for g in gaps_int], flint.fmpz_poly([1]), to_expr, div)

    gaps = list(gaps_int) if gaps_int is not None else list(gaps_exact)
    distinct: list = []
    index = []
    for g in gaps:
        for j, h in enumerate(distinct):
            if g == h or (gaps_int is None and sympy.simplify(g - h) == 0):
                index.append(j)
                break
        else:
            index.append(len(distinct))
            distinct.append(g)
    names = [f"y{j}" for j in range(len(distinct))]
    R, *ys = ring(",".join(names), sympy.QQ)
    values = [x**g for g in distinct] if x is not None else []

    def to_expr_y(poly) -> sympy.Expr:
        # term by term, one coin per monomial: exp(-rate * sum_j k_j g_j), so that no power
        # of an (unevaluated, astronomically small) coin is ever formed
        terms = []
        for exps, c in poly.terms():
            c = sympy.Rational(int(c.numerator), int(c.denominator))
            if x is not None:
                mono = sympy.Mul(*[v**k for v, k in zip(values, exps, strict=True) if k])
            else:
                mono = coin(sum(k * g for k, g in zip(exps, distinct, strict=True)), rate)
            terms.append(sympy.Mul(c, mono, evaluate=False) if mono != 1 else c)
        return sympy.Add(*terms)

    def div_y(poly, j):
        return poly.exquo(ys[j])

    return Generators(ys, index, R.one, to_expr_y, div_y)


def leave_one_out(
    gens: Generators, factor: Callable[[object], tuple[object, object]], divide_top: bool
) -> dict[int, list]:
    """Coefficients in t of ``prod_{s != r}(alpha_s + beta_s t)`` for each distinct gap.

    Parameters
    ----------
    gens : Generators
    factor : callable
        ``factor(coin) -> (alpha, beta)`` ring elements of output s's linear factor.
    divide_top : bool
        Divide the full product by a factor from the top (``beta`` a monomial coin) or
        from the bottom (``alpha`` equal to one).

    Returns
    -------
    dict
        distinct-gap index -> list of coefficients (index = power of t), length n.
    """
    full = [gens.one]
    for j in gens.index:
        alpha, beta = factor(gens.coins[j])
        new = [alpha * c for c in full] + [0 * gens.one]
        for k, c in enumerate(full):
            new[k + 1] = new[k + 1] + beta * c
        full = new
    out: dict[int, list] = {}
    n = len(gens.index)
    for j in sorted(set(gens.index)):
        alpha, beta = factor(gens.coins[j])
        q = [None] * n
        if divide_top:
            # full = (alpha + beta t) * q, beta a monomial: peel from the highest power.
            q[n - 1] = gens.div_coin(full[n], j)
            for k in range(n - 1, 0, -1):
                q[k - 1] = gens.div_coin(full[k] - alpha * q[k], j)
        else:
            # alpha == 1: peel from the constant term.
            q[0] = full[0]
            for k in range(1, n):
                q[k] = full[k] - beta * q[k - 1]
        out[j] = q
    return out


def weighted_sum(coeffs: list, weights: Sequence[Fraction]):
    """``sum_k coeffs[k] * weights[k]`` with rational weights, in the coefficients' ring."""
    if isinstance(coeffs[0], flint.fmpz_poly):
        total = flint.fmpq_poly([0])
        for c, w in zip(coeffs, weights, strict=False):
            if w:
                total += flint.fmpq_poly(c) * flint.fmpq(w.numerator, w.denominator)
        return total
    total = 0 * coeffs[0]
    for c, w in zip(coeffs, weights, strict=False):
        if w:
            total += c * sympy.QQ(w.numerator, w.denominator)
    return total


def to_sympy_in_x(poly, x: sympy.Symbol) -> sympy.Expr:
    """A flint ``fmpq_poly``/``fmpz_poly`` as a sympy polynomial expression in ``x``."""
    coeffs = [sympy.Rational(int(c.p), int(c.q)) if hasattr(c, "p") else sympy.Integer(int(c))
              for c in poly.coeffs()]
    return sympy.Add(*[c * x**k for k, c in enumerate(coeffs) if c != 0])


def fmpq_poly_to_exp(poly, lam: sympy.Expr) -> sympy.Expr:
    """``sum_k c_k x^k`` evaluated at ``x = exp(-lam)`` as a sympy expression."""
    coeffs = poly.coeffs()
    terms = []
    for k, c in enumerate(coeffs):
        c = sympy.Rational(int(c.p), int(c.q)) if hasattr(c, "p") else sympy.Integer(int(c))
        if c != 0:
            terms.append(c * coin(k, lam))
    return sympy.Add(*terms)
