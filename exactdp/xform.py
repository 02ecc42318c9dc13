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

import gc
import math
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from fractions import Fraction
from functools import lru_cache
from operator import itemgetter
from typing import Any

import flint
import sympy
from sympy.polys.rings import ring

from .cost import RING_WORK_LIMIT, refuse
from .exact.signs import proved_equal
from .numeric.gaps import DENSE_DEGREE_LIMIT, coin
from .pf_cost import PF_CHEAPER, check_pf_tree, pf_tree_bar


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




def group_equal(values: Sequence, equal: Callable[[Any, Any], bool]) -> tuple[list[int], list]:
    """Label equal values alike: ``(labels, distinct)``, ``distinct`` in order of first
    appearance and ``equal(values[i], distinct[labels[i]])`` for every i.

    ``equal`` is the caller's exact equality test (a test that cannot prove equality must
    return False: equal values then get two labels, which costs time, never correctness).
    Quadratic in the number of distinct values.
    """
    labels: list[int] = []
    distinct: list = []
    for g in values:
        for j, h in enumerate(distinct):
            if equal(g, h):
                labels.append(j)
                break
        else:
            labels.append(len(distinct))
            distinct.append(g)
    return labels, distinct


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
    index, distinct = group_equal(
        gaps, lambda g, h: g == h if gaps_int is not None else proved_equal(g, h)
    )
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
    gens: Generators, factor: Callable[[Any], tuple[Any, Any]], divide_top: bool
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
    n = len(gens.index)
    if isinstance(gens.one, flint.fmpz_poly):
        work = n * n * (max(c.degree() for c in gens.coins) + 1)
        if work > RING_WORK_LIMIT:
            raise refuse(
                "probabilities", f"the leave-one-out product for n = {n} outputs",
                f"about {work:.3g} coefficient operations", f"{RING_WORK_LIMIT:.0e}",
                "use .to_numpy() or .evalf(dps); for permute-and-flip, .rational_form() "
                "uses the faster product tree",
            )
    full = [gens.one]
    for j in gens.index:
        alpha, beta = factor(gens.coins[j])
        new = [alpha * c for c in full] + [0 * gens.one]
        for k, c in enumerate(full):
            new[k + 1] = new[k + 1] + beta * c
        full = new
    out: dict[int, list] = {}
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


def shared_exprs(gens: Generators, ring_probs: list) -> tuple[sympy.Expr, ...]:
    """``gens.to_expr`` of per-output ring elements, converted once per distinct gap."""
    built: dict[int, sympy.Expr] = {}
    for j, p in zip(gens.index, ring_probs, strict=True):
        if j not in built:
            built[j] = gens.to_expr(p)
    return tuple(built[j] for j in gens.index)


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


# ----------------------------------------------------------------------------- product tree
#: Refuse an exact PF computation whose Kronecker-packed product would hold more than this
#: many coefficients (about n * sum of the gaps; n = 200 scores in 0..100 need 1.9e6 and
#: took 87 s on a heavily loaded 2-core machine, docs/benchmarks.md): beyond it, minutes to
#: hours and GBs.
EXACT_SIZE_LIMIT = 10_000_000


def exact_pf_size(gaps: Sequence[int]) -> int:
    """Estimated size (coefficients) of the exact PF product tree: ``n * (sum G + 1)``."""
    return len(gaps) * (sum(gaps) + 1)


def _tree_product(polys: list, cut: int, step: Callable[[], Any] = lambda: None):
    """Product of flint polynomials, balanced by length, each product truncated at ``cut``
    (``step()`` after each level: a progress bar)."""
    polys = list(polys)
    while len(polys) > 1:
        polys.sort(key=lambda p: p.length())
        nxt = [polys[i].mul_low(polys[i + 1], cut) for i in range(0, len(polys) - 1, 2)]
        if len(polys) % 2:
            nxt.append(polys[-1])
        polys = nxt
        step()
    return polys[0]


def _split_blocks(q, S: int, lo: int, hi: int, out: list) -> None:
    """Cut ``q = sum_k out[k] z^((k - lo) S)`` into its blocks, halving (linear per level)."""
    if hi - lo == 1:
        out[lo] = q
        return
    mid = (lo + hi) // 2
    _split_blocks(q.truncate((mid - lo) * S), S, lo, mid, out)
    _split_blocks(q.right_shift((mid - lo) * S), S, mid, hi, out)


def pf_polynomials_tree(gaps: Sequence[int], func: str = "rational_form") -> dict:
    r"""Exact permute-and-flip probabilities for integer gaps, one polynomial per distinct gap.

    With ``p_s = x^{G_s}`` PF's probability of an output with gap ``g`` is
    (docs/formulas.md section 2, stable integral form)

    .. math::  P_g(x) = x^g \int_0^1 \frac{F(t, x)}{1 - t x^g}\, dt, \qquad
               F(t, x) = \prod_{\text{distinct } h} (1 - t x^h)^{m_h}.

    Writing ``F = sum_i T_i(x) t^i`` and expanding ``1/(1 - t y)`` (the quotient is a
    polynomial of degree ``n - 1`` in t) gives ``P_g = x^g H(x^g, x)`` with
    ``H(y, x) = sum_l y^l H_l(x)``, ``H_l = sum_{i <= n-1-l} T_i / (i + l + 1)``.

    Method: Kronecker substitution ``t = z^S``, ``x = z`` with ``S = sum G + 1`` (every
    ``T_i`` has degree below S, so blocks never overlap); ``F`` by a product tree over the
    distinct gaps, balanced by length, with flint's fast ``fmpz_poly`` multiplication
    truncated at ``t^n``; all ``H_l`` at once by one truncated product with
    ``sum_m lcm(1..n)/(m + 1) t^(n-1-m)`` (a correlation); then ``H(x^g, x)`` by Horner for
    each distinct gap. Cost: ``O(M(n S) log D)`` for the tree and the correlation plus
    ``O(D n S)`` coefficient additions for the D distinct gaps (no sympy).

    Parameters
    ----------
    gaps : sequence of int, length n
        ``G_r = L (q* - q_r) >= 0`` with at least one 0.
    func : str
        Name used in error messages.

    Returns
    -------
    dict
        distinct gap -> ``flint.fmpq_poly`` in x (the probability of one output with that gap).

    Raises
    ------
    ValueError
        If the estimated size ``n * (sum G + 1)`` exceeds :data:`EXACT_SIZE_LIMIT` (say so,
        with the numeric routes to use instead).

    References
    ----------
    McKenna & Sheldon (2020), Prop. 1; J. von zur Gathen and J. Gerhard, *Modern Computer
    Algebra*, 3rd ed., section 8.4 (Kronecker substitution) and section 10.1 (product trees).
    """
    counts: dict[int, int] = {}
    for g in gaps:
        counts[g] = counts.get(g, 0) + 1
    n = len(gaps)
    if n == 1:
        return {gaps[0]: flint.fmpq_poly([1])}
    size = _refuse_large(gaps, func)
    key = tuple(sorted(counts.items()))
    if size <= TREE_CACHE_SIZE:  # a neighbour search meets the same gap multiset often
        return dict(_cached_tree(key))
    return _tree_polynomials(key)


def _refuse_large(gaps: Sequence[int], func: str) -> int:
    """The estimated size :func:`exact_pf_size`; raises the refusal beyond
    :data:`EXACT_SIZE_LIMIT`."""
    size = exact_pf_size(gaps)
    if size > EXACT_SIZE_LIMIT:
        raise refuse(
            func, f"exact permute-and-flip polynomials for n = {len(gaps)} outputs and total "
            f"gap {sum(gaps)}", f"about {size:.3g} coefficients", f"{EXACT_SIZE_LIMIT:.0e}",
            PF_CHEAPER,
        )
    check_pf_tree(func, len(gaps), sum(gaps), size)
    return size


def pf_polynomials_lazy(gaps: Sequence[int], func: str = "probabilities") -> Callable[[int], Any]:
    """:func:`pf_polynomials_tree` one gap at a time: ``poly(g)``, the ``fmpq_poly`` of an
    output with gap ``g`` (one of ``gaps``). The work shared by all gaps (the product tree,
    the correlation) and every refusal are done here, the per-gap Horner step on the first
    call for that gap (for a caller that may need only some outputs: a lazy
    ``.probabilities``). Nothing is cached beyond the returned function."""
    if len(gaps) == 1:
        return pf_polynomials_tree(gaps, func).__getitem__
    _refuse_large(gaps, func)
    counts: dict[int, int] = {}
    for g in gaps:
        counts[g] = counts.get(g, 0) + 1
    H, Lc = _tree_blocks(tuple(sorted(counts.items())))
    done: dict[int, Any] = {}

    def poly(g: int):
        hit = done.get(g)
        if hit is None:
            hit = done[g] = _finish_gap(H, g, Lc)
        return hit

    return poly


#: Gap multisets whose PF product tree holds at most this many coefficients keep their
#: polynomials in a small cache (the reduced neighbours of tied scores share multisets).
TREE_CACHE_SIZE = 200_000


@lru_cache(maxsize=128)
def _cached_tree(key: tuple[tuple[int, int], ...]) -> dict:
    return _tree_polynomials(key)


def _tree_polynomials(key: tuple[tuple[int, int], ...]) -> dict:
    """:func:`pf_polynomials_tree` for the gap multiset ``key`` (``(gap, count)`` pairs)."""
    H, Lc = _tree_blocks(key)
    return {g: _finish_gap(H, g, Lc) for g, _ in key}


def _tree_blocks(key: tuple[tuple[int, int], ...]) -> tuple[list, int]:
    """``(H, Lc)``: the blocks ``H[l] = Lc * H_l`` of :func:`pf_polynomials_tree` (the
    product tree and the correlation, shared by every gap) and the scale ``lcm(1..n)``."""
    counts = dict(key)
    n = sum(counts.values())
    S = sum(g * m for g, m in key) + 1
    cut = n * S
    one_minus = flint.fmpz_poly([1, -1])
    leaves = [(one_minus**m).inflate(S + g) for g, m in counts.items()]
    with pf_tree_bar(n, len(leaves), cut) as bar:
        F = _tree_product([p.truncate(cut) if p.length() > cut else p for p in leaves], cut,
                          bar.update)
        Lc = math.lcm(*range(1, n + 1))
        A = flint.fmpz_poly([Lc // (n - p) for p in range(n)]).inflate(S)
        F = F.mul_low(A, cut)
        bar.update()
    blocks: list = [None] * n
    _split_blocks(F, S, 0, n, blocks)
    return blocks[::-1], Lc  # H[l] sits at t^(n-1-l) of the correlation


def pf_product_blocks(gaps: Sequence[int]) -> list:
    """``[T_0, ..., T_n]``: ``F(t, x) = prod_r (1 - t x^{G_r}) = sum_i T_i(x) t^i`` as
    ``fmpz_poly`` in x, by the Kronecker product tree of :func:`pf_polynomials_tree`."""
    counts: dict[int, int] = {}
    for g in gaps:
        counts[g] = counts.get(g, 0) + 1
    n = len(gaps)
    S = sum(gaps) + 1  # every T_i has degree <= sum G < S: the blocks never overlap
    cut = (n + 1) * S
    one_minus = flint.fmpz_poly([1, -1])
    F = _tree_product([(one_minus**m).inflate(S + g) for g, m in counts.items()], cut)
    blocks: list = [None] * (n + 1)
    _split_blocks(F, S, 0, n + 1, blocks)
    return blocks


def _finish_gap(H: list, g: int, Lc: int) -> flint.fmpq_poly:
    """``P_g = x^g H(x^g, x)`` by Horner in ``y = x^g`` over the blocks."""
    n = len(H)
    acc = H[n - 1]
    for lev in range(n - 2, -1, -1):
        acc = acc.left_shift(g) + H[lev] if g else acc + H[lev]
    return flint.fmpq_poly(acc.left_shift(g) if g else acc, Lc)


# ----------------------------------------------------------------------------- fast sympy
@lru_cache(maxsize=64)
def _class_key(name: str) -> tuple:
    """The position of the sympy class ``name`` in sympy's canonical order of classes."""
    from sympy.core.basic import ordering_of_classes

    try:
        return (ordering_of_classes.index(name), "")
    except ValueError:
        return (len(ordering_of_classes) + 1, name)


def _canonical_key(e) -> tuple:
    """A sort key reproducing ``Basic.compare`` (the order of ``Add``'s arguments)."""
    hc = e._hashable_content()
    return (_class_key(type(e).__name__), len(hc),
            tuple(_canonical_key(a) if isinstance(a, sympy.Basic) else a for a in hc))


@contextmanager
def paused_gc():
    """Pause Python's cyclic garbage collector while building many sympy objects at once.

    The objects built are acyclic, so nothing is lost; without the pause the collector
    rescans the growing heap again and again and doubles the build time. The previous
    state is restored on exit.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class Atoms:
    """``k -> (atom_k, key of atom_k)`` for :func:`poly_expr`, cached; ``atom_k`` is
    ``x**k`` (:meth:`powers`) or ``exp(-k*lam)`` (:meth:`coins`)."""

    def __init__(self, make: Callable[[int], sympy.Expr], plain: bool = False):
        self._make = make
        #: every atom is plain (:func:`_plain_atom`), known without building it
        self.plain = plain
        self._cache: dict[int, tuple] = {}
        self._table: list = []
        #: reduced coefficients ``(p, q) -> Rational`` shared by every polynomial built on
        #: these atoms (the outputs of one distribution share a third of theirs)
        self.rationals: dict[tuple[int, int], sympy.Rational] = {}

    def __call__(self, k: int) -> tuple:
        """``(atom_k, its sort key, whether it is plain)`` (:func:`_plain_atom`)."""
        hit = self._cache.get(k)
        if hit is None:
            atom = self._make(k)
            hit = self._cache[k] = (atom, _canonical_key(atom), _plain_atom(atom))
        return hit

    def table(self, n: int) -> list:
        """``[self(k) for k in range(n)]``, kept and extended (one list per polynomial
        instead of one call per term)."""
        tab = self._table
        for k in range(len(tab), n):
            tab.append(self(k) if k else (None, None, True))
        return tab

    @classmethod
    def powers(cls, x: sympy.Symbol) -> Atoms:
        return cls(lambda k: x**k, plain=True)

    @classmethod
    def coins(cls, lam: sympy.Expr) -> Atoms:
        """``exp(-k*lam)``; for a rational ``lam`` built without re-evaluation."""
        if lam.is_Rational:
            return cls(lambda k: sympy.exp(-k * lam, evaluate=False), plain=True)
        return cls(lambda k: coin(k, lam))


def _plain_atom(a: sympy.Expr) -> bool:
    """Atoms for which ``Mul(c, a)`` is canonical: a symbol, a power of a symbol, an exp."""
    return isinstance(a, (sympy.Symbol, sympy.exp)) or (
        isinstance(a, sympy.Pow) and isinstance(a.base, sympy.Symbol))


def poly_expr(poly, atoms: Atoms) -> sympy.Expr:
    """``sum_k c_k atom_k`` for a flint polynomial, built directly in sympy's canonical form.

    Equal (``==``, same hash, same structure) to ``sympy.Add(*[c_k * atom_k])`` but without
    sympy's flattening: each term is ``Mul(c_k, atom_k)`` and the terms are ordered by the
    key of ``Basic.compare`` (what ``Add`` does). This needs atoms that are canonical and
    distinct for k >= 1 (a symbol, ``x**k``, ``exp(-k*lam)``); otherwise (an atom that
    evaluated to a number, e.g. ``exp(-k log 2) = 2**-k``) sympy's ``Add`` is used.

    The coefficients are read as one integer vector over a common denominator and reduced
    by ``gcd``, each ``Rational`` made once per ``atoms`` (:attr:`Atoms.rationals`); the
    ``Rational`` and ``Mul`` objects are made the way ``Basic.__new__`` and
    ``AssocOp._from_args`` make them, without their call layers; the terms are sorted in
    buckets of equal key prefix (coefficient class), each by the rest of its key (the
    build is ~10^4 terms per output at n = 20: issue 36).
    """
    if isinstance(poly, flint.fmpq_poly):
        num, den = poly.numer().coeffs(), int(poly.denom())
    else:  # fmpz_poly
        num, den = poly.coeffs(), 1
    if not num:
        return sympy.Integer(0)
    table = atoms.table(len(num))
    if not all(table[k][2] for k in range(1, len(num)) if num[k] != 0):
        # e.g. exp(-k log 2) = 2**-k: sympy's own Add
        return sympy.Add(*[_reduced(int(c), den) * (table[j][0] if j else 1)
                           for j, c in enumerate(num) if c != 0])
    const = _reduced(int(num[0]), den) if num[0] != 0 else None
    mul_key = _class_key("Mul")
    new, Mul, Rational = object.__new__, sympy.Mul, sympy.Rational
    mul_assumptions, rat_assumptions = Mul.default_assumptions, Rational.default_assumptions
    cache = atoms.rationals
    rats: list = []  # Mul(Rational, atom): key (p, q, atom key) after a common prefix
    buckets: dict[tuple, list] = {(mul_key, 2, _class_key("Rational"), 2): rats}
    gcd = math.gcd
    for k in range(1, len(num)):
        if num[k] == 0:
            continue
        atom, akey, _ = table[k]
        a = int(num[k])
        g = gcd(a, den)
        p, q = (a // g, den // g) if g != 1 else (a, den)
        if q != 1 and (q != 2 or p != 1):
            r = cache.get((p, q))
            if r is None:  # Rational(p, q) for coprime p, q, q > 2 or p != 1 (Basic.__new__)
                r = cache[(p, q)] = new(Rational)
                r._assumptions = rat_assumptions
                r._mhash = None
                r._args = ()
                r.p = p
                r.q = q
            rest: tuple = (p, q, akey)
            bucket = rats
        elif p == 1 and q == 1:  # the atom itself, sorted by its own key
            buckets.setdefault((akey[0],), []).append((akey, atom))
            continue
        else:  # Integer, NegativeOne or Half
            r = sympy.Integer(p) if q == 1 else sympy.S.Half
            hc = r._hashable_content()
            rest = (*hc, akey)
            bucket = buckets.setdefault(
                (mul_key, 2, _class_key(type(r).__name__), len(hc)), [])
        t = new(Mul)  # Mul._from_args((r, atom), True)
        t._assumptions = mul_assumptions
        t._mhash = None
        t._args = (r, atom)
        t.is_commutative = True
        bucket.append((rest, t))
    terms = [] if const is None else [const]
    for prefix in sorted(buckets):
        group = buckets[prefix]
        group.sort(key=itemgetter(0))
        terms.extend([t for _, t in group])
    if not terms:
        return sympy.Integer(0)
    if len(terms) == 1:
        return terms[0]
    return sympy.Add._from_args(terms, True)


def _reduced(a: int, den: int) -> sympy.Rational:
    """``a / den`` as a sympy Rational (reduced by ``gcd``, not re-reduced by sympy)."""
    g = math.gcd(a, den)
    p, q = a // g, den // g
    if q == 1:
        return sympy.Integer(p)
    if q == 2 and p == 1:
        return sympy.S.Half
    r = sympy.Expr.__new__(sympy.Rational)
    r.p, r.q = p, q
    return r
