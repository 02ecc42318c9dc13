"""The score lattice of the McKenna-Sheldon LP (section 5): vectors, neighbours, PF / EM values.

Score vectors with entries in ``{0, ..., k}`` for ``n`` items, merged by symmetry, their
neighbouring pairs, the size guards, and the probabilities of permute-and-flip and the exponential
mechanism on the lattice (float, or exact polynomials in ``x``), plus PF's dual polynomials.
Used by :mod:`exactdp.optimality.program` and :mod:`exactdp.optimality.region`.

References
----------
R. McKenna and D. Sheldon, "Permute-and-Flip", NeurIPS 2020, section 5.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations_with_replacement
from types import MappingProxyType
from typing import Any

import flint
import numpy as np
import sympy

from .._validate import argument_error, check_int
from ..cost import as_caller, fmt_size, refuse
from ..exact.signs import proved_rational
from ..mechanisms.permute_flip import pf_ring_probabilities
from ..numbers import ExactConversionWarning, exact_epsilon, exact_sensitivity
from ..numeric.pf import pf_float
from ..xform import generators_for

#: Refuse lattices with more variables or constraint non-zeros than this.
MAX_FLOAT_SIZE = 2_000_000
#: ``lattice_size`` refuses counts of more bits than this (computing them takes seconds
#: to minutes, and no LP of that size can be built anyway).
LATTICE_SIZE_BITS = 2**16
#: Refuse exact solves beyond this many variables (dense rational linear algebra).
MAX_EXACT_VARIABLES = 6_000

_GOLDEN_THRESHOLD = math.log((3 + math.sqrt(5)) / 2)


# ---------------------------------------------------------------------------------------
# input checks
# ---------------------------------------------------------------------------------------


def check_size_args(func: str, n: Any, k: Any) -> tuple[int, int]:
    """``(n, k)`` as ints, with ``n >= 2`` and ``k >= 1``.

    Parameters
    ----------
    func : str
        The public caller, named in the error.
    n, k : int
        Number of outputs and grid depth.

    Returns
    -------
    (int, int)

    Raises
    ------
    ValueError
        If ``n`` or ``k`` is not such an integer.
    """
    return check_int(func, "n", n, 2), check_int(func, "k", k, 1)


def lp_parameter(func: str, name: str, value: Any) -> sympy.Expr:
    """Positive finite real parameter as an exact sympy number, by the project's parser.

    Every exact form works (int, Fraction, Decimal, ``'1/100'``, ``'0.01'``, ``'log(3/2)'``,
    sympy numbers); a float is taken by its binary value with ``ExactConversionWarning``
    (``exactdp.numbers``).  Symbols are refused: the LP needs a number.

    Parameters
    ----------
    func : str
        The public caller, named in errors and warnings.
    name : str
        ``"epsilon"`` (parsed as an epsilon) or another name (parsed as a sensitivity).
    value : object

    Returns
    -------
    sympy.Expr
        A positive finite number.

    Raises
    ------
    ValueError
        The parser's one-line errors (not positive, not finite, not a number), or a
        symbolic expression.
    """
    parse = exact_epsilon if name == "epsilon" else exact_sensitivity
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ExactConversionWarning)
        expr = parse(value, func)
    for w in caught:  # re-issue, pointing at the user's call (the message names func)
        cat = w.category if issubclass(w.category, Warning) else UserWarning
        warnings.warn(str(w.message), cat, stacklevel=3)
    if expr.free_symbols:
        raise argument_error(func, name, "a number, not a symbolic expression", value)
    return expr


def to_float(func: str, name: str, expr: sympy.Expr, value: Any) -> float:
    """Nearest double of a positive exact parameter.

    Parameters
    ----------
    func, name : str
        The caller and the parameter, named in the error.
    expr : sympy.Expr
        The parsed parameter (rounded from 30 digits).
    value : object
        The user's value, shown in the error.

    Returns
    -------
    float
        Positive and finite.

    Raises
    ------
    ValueError
        The double is not positive and finite (under- or overflow).
    """
    out = float(sympy.N(expr, 30))
    if not math.isfinite(out) or out <= 0:
        raise argument_error(
            func, name, f"a positive finite double for method='float' (it rounds to {out!r}; "
            "use method='exact' with a rational exp(epsilon))", value)
    return out


def exact_rational(func: str, name: str, expr: sympy.Expr, value: Any) -> sympy.Rational:
    """The parsed parameter as an exact positive rational.

    Parameters
    ----------
    func, name : str
        The caller and the parameter, named in the error.
    expr : sympy.Expr
    value : object
        The user's value, shown in the error.

    Returns
    -------
    sympy.Rational

    Raises
    ------
    ValueError
        ``expr`` is not rational (``method='exact'`` needs one).
    """
    if not expr.is_Rational:
        raise argument_error(func, name, "rational for method='exact'", value)
    return sympy.Rational(expr)


def exact_exp_epsilon(func: str, expr: sympy.Expr, value: Any) -> sympy.Rational:
    """``exp(epsilon)`` as an exact rational (decided by
    :func:`~exactdp.exact.signs.proved_rational`).

    Parameters
    ----------
    func : str
        The caller, named in the error.
    expr : sympy.Expr
        The parsed epsilon.
    value : object
        The user's value (a float is refused: its exp is transcendental).

    Returns
    -------
    sympy.Rational

    Raises
    ------
    ValueError
        ``value`` is a float, or ``exp(epsilon)`` is not proved rational.
    """
    if isinstance(value, float):
        raise argument_error(
            func, "epsilon", "exact with exp(epsilon) rational for method='exact' (a float "
            "gives a transcendental exp(epsilon); pass e.g. sympy.log(sympy.Rational(3, 2)))",
            value)
    e = proved_rational(sympy.exp(expr))
    if e is None:
        raise argument_error(
            func, "epsilon", f"a number with exp(epsilon) rational for method='exact' (here "
            f"exp(epsilon) = {sympy.exp(expr)}; pass e.g. sympy.log(sympy.Rational(3, 2)))", value)
    return sympy.Rational(e)


# ---------------------------------------------------------------------------------------
# the lattice
# ---------------------------------------------------------------------------------------


def lattice_size(n: int, k: int) -> dict[str, int]:
    """Sizes of the lattice LP without building it.

    Parameters
    ----------
    n : int
        Number of outputs, ``n >= 2``.
    k : int
        Grid depth: scores ``{0, -2D, ..., -2kD}``, ``k >= 1``.

    Returns
    -------
    dict
        ``vectors`` (canonical vectors ``C(n-1+k, k)``), ``variables``
        (``C + k C(n-2+k, k)``), ``eq_rows``, ``ub_rows``, ``nonzeros``.

    Raises
    ------
    ValueError
        If ``n < 2`` or ``k < 1``, or the counts exceed :data:`LATTICE_SIZE_BITS` bits
        (``n = k = 10**6``: a 2-million-bit integer that takes minutes to compute).

    Examples
    --------
    >>> import exactdp
    >>> exactdp.lattice_size(3, 4)
    {'vectors': 15, 'variables': 35, 'eq_rows': 15, 'ub_rows': 30, 'nonzeros': 95}
    """
    n, k = check_size_args("lattice_size", n, k)
    log2_vectors = (math.lgamma(n + k) - math.lgamma(k + 1) - math.lgamma(n)) / math.log(2)
    if log2_vectors > LATTICE_SIZE_BITS:
        raise refuse(
            "lattice_size", f"the exact counts for n = {n}, k = {k}",
            f"integers of about {log2_vectors:.3g} bits (~10^{log2_vectors * 0.30103:.0f} "
            "canonical vectors)", f"{LATTICE_SIZE_BITS} bits",
            f"no LP of that size can be built (limit {MAX_FLOAT_SIZE} variables); "
            "use math.lgamma for the order of magnitude, or smaller n and k",
        )
    vectors = math.comb(n - 1 + k, k)
    variables = vectors + k * math.comb(n - 2 + k, k)
    top_rows = math.comb(n - 2 + k, k - 1)  # canonical vectors with max gap <= k-1
    ub_rows = (variables - vectors) + top_rows
    return {
        "vectors": vectors,
        "variables": variables,
        "eq_rows": vectors,
        "ub_rows": ub_rows,
        "nonzeros": variables + 2 * ub_rows,
    }


@dataclass(frozen=True)
class Lattice:
    """The score lattice for ``n`` items and gaps in ``0..k``: vectors, LP variables, costs
    and neighbour rows.
    """
    n: int
    k: int
    vectors: tuple[tuple[int, ...], ...]  # canonical gap tuples, ascending
    var_vec: tuple[int, ...]  # variable -> vector index
    var_gap: tuple[int, ...]  # variable -> gap value v
    var_mult: tuple[int, ...]  # variable -> multiplicity m(g, v)
    var_index: Mapping[tuple[tuple[int, ...], int], int]
    weight: tuple[int, ...]  # vector -> (#permutations) * (#in-grid shifts)
    cost: tuple[int, ...]  # variable -> weight * m * v (lattice units)
    rows: tuple[tuple[int, int, str], ...]  # (target var, source var, "step"/"top")


def lattice_neighbours(g: tuple[int, ...], k: int):
    """Lattice neighbours of canonical g: raise a non-empty proper subset by one step.

    Up to shifts these are all ``q'`` with ``||q - q'||_inf <= D`` on the lattice of step
    ``2D`` (McKenna and Sheldon 2020, section 5).

    Parameters
    ----------
    g : tuple of int
        A canonical gap vector (sorted, ``g[0] = 0``).
    k : int
        The grid depth: neighbours with a gap above ``k`` are left out.

    Yields
    ------
    (list of int, tuple of int)
        ``(h, ch)``: h the re-shifted gap list (same output order as g), ch its canonical
        form.
    """
    n = len(g)
    for mask in range(1, 2**n - 1):
        raised = [v - 1 if mask >> i & 1 else v for i, v in enumerate(g)]
        low = min(raised)
        h = [v - low for v in raised]
        if max(h) <= k:
            yield h, tuple(sorted(h))


def _full_rows(n, k, vectors, var_index):
    seen = set()
    for g in vectors:
        for h, ch in lattice_neighbours(g, k):
            for r in range(n):
                a, b = var_index[(g, g[r])], var_index[(ch, h[r])]
                for t, s in ((b, a), (a, b)):
                    if t != s and (t, s) not in seen:
                        seen.add((t, s))
                        yield (t, s, "full")


@functools.lru_cache(maxsize=32)
def build_lattice(n: int, k: int, full: bool = False) -> Lattice:
    """The :class:`Lattice` for ``n`` and ``k`` (all neighbour rows if ``full``).

    Parameters
    ----------
    n : int >= 2
    k : int >= 1
    full : bool, default False
        Every neighbour row (both directions), not only the "step" and "top" rows.

    Returns
    -------
    Lattice
        Cached; unchecked (callers run :func:`check_size_args` and :func:`guard_size`).
    """
    vectors = tuple((0,) + rest for rest in combinations_with_replacement(range(k + 1), n - 1))
    var_vec: list[int] = []
    var_gap, var_mult, cost, weight = [], [], [], []
    var_index: dict[tuple[tuple[int, ...], int], int] = {}
    fact_n = math.factorial(n)
    for i, g in enumerate(vectors):
        counts: dict[int, int] = {}
        for v in g:
            counts[v] = counts.get(v, 0) + 1
        perms = fact_n
        for c in counts.values():
            perms //= math.factorial(c)
        w = perms * (k - g[-1] + 1)
        weight.append(w)
        for v in sorted(counts):
            var_index[(g, v)] = len(var_vec)
            var_vec.append(i)
            var_gap.append(v)
            var_mult.append(counts[v])
            cost.append(w * counts[v] * v)
    rows = []
    for j, (i, v) in enumerate(zip(var_vec, var_gap, strict=True)):
        g = vectors[i]
        if v > 0:
            lst = list(g)
            lst[lst.index(v)] = v - 1
            target = (tuple(sorted(lst)), v - 1)
            rows.append((var_index[target], j, "step"))
        elif g[-1] <= k - 1:
            others = list(g)
            others.remove(0)
            target = ((0,) + tuple(s + 1 for s in others), 0)
            rows.append((var_index[target], j, "top"))
    if full:
        rows = list(_full_rows(n, k, vectors, var_index))
    return Lattice(
        n=n,
        k=k,
        vectors=vectors,
        var_vec=tuple(var_vec),
        var_gap=tuple(var_gap),
        var_mult=tuple(var_mult),
        var_index=MappingProxyType(var_index),
        weight=tuple(weight),
        cost=tuple(cost),
        rows=tuple(rows),
    )


def guard_size(func: str, n: int, k: int, method: str, full: bool = False) -> None:
    """Refuse lattices too large for ``method``, before any is built.

    Parameters
    ----------
    func : str
        The public caller, named in the refusal.
    n, k : int
    method : {"float", "exact"}
    full : bool, default False
        Count every neighbour row (an upper bound).

    Raises
    ------
    ValueError
        (``TooCostly``) Beyond :data:`MAX_FLOAT_SIZE`, or for ``"exact"`` beyond
        :data:`MAX_EXACT_VARIABLES`.
    """
    with as_caller(func, "use smaller n and k"):
        size = dict(lattice_size(n, k))
    if full:  # upper bound: 2 rows per (vector, subset, output), 2 non-zeros per row
        size["nonzeros"] = size["variables"] + 4 * n * (2**n - 2) * size["vectors"]
    if size["variables"] > MAX_FLOAT_SIZE or size["nonzeros"] > MAX_FLOAT_SIZE:
        raise refuse(
            func, f"the lattice LP at n = {n}, k = {k}",
            f"{fmt_size(size['variables'])} variables and {fmt_size(size['nonzeros'])} "
            f"constraint non-zeros (about {fmt_size(48 * size['nonzeros'] // 2**20 + 1)} MiB "
            "for the sparse matrix alone)", f"{MAX_FLOAT_SIZE} of each",
            "use smaller n and k (lattice_size(n, k) gives the counts)",
        )
    if method == "exact" and size["variables"] > MAX_EXACT_VARIABLES:
        raise refuse(
            func, f"method='exact' at n = {n}, k = {k}", f"{size['variables']} variables",
            f"{MAX_EXACT_VARIABLES} for the exact solve",
            "use lattice_lp(n, k, epsilon, method='float') at the epsilon of interest"
            if func == "pf_optimality_region" else "use method='float'",
        )


# ---------------------------------------------------------------------------------------
# PF and EM on lattice vectors (private; docs/formulas.md section 2)
# ---------------------------------------------------------------------------------------


def lattice_pf_float(lat: Lattice, eps: float) -> np.ndarray:
    """PF per-output probabilities at ``epsilon = eps`` by the one PF engine.

    A lattice gap of v steps of 2*Delta is the scaled gap ``d = v*eps`` (no ``x = e^-eps``
    is formed, so nothing underflows before the probabilities themselves do).

    Parameters
    ----------
    lat : Lattice
    eps : float > 0

    Returns
    -------
    numpy.ndarray, shape (len(lat.var_vec),)
        Each variable's probability (its output's, on its vector).
    """
    out = np.empty(len(lat.var_vec))
    probs: dict[int, np.ndarray] = {}
    for j, (i, v) in enumerate(zip(lat.var_vec, lat.var_gap, strict=True)):
        if i not in probs:  # one engine call per canonical vector
            probs[i] = pf_float(np.asarray(lat.vectors[i], dtype=float) * eps)
        out[j] = probs[i][lat.vectors[i].index(v)]
    return out


def lattice_em_float(lat: Lattice, eps: float) -> np.ndarray:
    """The exponential mechanism's probability of each lattice variable at ``eps`` (floats):
    ``exp(-eps (s_max - v)) / sum_s exp(-eps (s_max - s))`` over the vector's gaps.

    Parameters
    ----------
    lat : Lattice
    eps : float > 0

    Returns
    -------
    numpy.ndarray, shape (len(lat.var_vec),)
    """
    return np.array(
        [
            1.0 / sum(math.exp(-eps * (s - v)) for s in lat.vectors[i])
            for i, v in zip(lat.var_vec, lat.var_gap, strict=True)
        ]
    )


def lattice_pf_polys(lat: Lattice) -> list[flint.fmpq_poly]:
    """PF per-output probability of each variable as a polynomial in ``x = e^-eps``.

    ``x = exp(-epsilon/N)`` with the lattice's ``N = 1`` (a gap of one step of ``2*Delta``
    is the coin ``exp(-epsilon * 2*Delta / (2*Delta))``).

    ``int_0^1 prod_{s in S}(1 - t a_s) dt = sum_j (-1)^j e_j(a) / (j + 1)`` with ``e_j`` the
    elementary symmetric polynomials of the coins ``a_s = x^{g_s}`` (exact, rational).

    Parameters
    ----------
    lat : Lattice

    Returns
    -------
    list of flint.fmpq_poly, length len(lat.var_vec)

    Examples
    --------
    Two outputs one step apart: the top wins with ``1 - x/2``, the other with ``x/2``:

    >>> from exactdp.optimality.lattice import build_lattice, lattice_pf_polys
    >>> lattice_pf_polys(build_lattice(2, 1))
    [1/2, (-1/2)*x + 1, 1/2*x]
    """
    return list(_pf_polys_cached(lat.n, lat.k))


@functools.lru_cache(maxsize=32)
def _pf_polys_cached(n: int, k: int) -> tuple[flint.fmpq_poly, ...]:
    """PF's exact polynomials in x (the core's coin route, python-flint)."""
    lat = build_lattice(n, k)
    out = []
    for i, v in zip(lat.var_vec, lat.var_gap, strict=True):
        gaps = list(lat.vectors[i])
        probs = pf_ring_probabilities(generators_for(gaps, None, sympy.Integer(1)))
        out.append(flint.fmpq_poly(probs[gaps.index(v)]))
    return tuple(out)


def lattice_em_exact(lat: Lattice, x: flint.fmpq) -> list[flint.fmpq]:
    """The exponential mechanism's exact probability of each lattice variable at ``x``:
    ``x^v / sum_s x^s`` over the vector's gaps ``s``.

    Parameters
    ----------
    lat : Lattice
    x : flint.fmpq
        ``exp(-epsilon)``, in ``(0, 1)``.

    Returns
    -------
    list of flint.fmpq, length len(lat.var_vec)
    """
    return [
        x**v / sum((x**s for s in lat.vectors[i]), flint.fmpq(0))
        for i, v in zip(lat.var_vec, lat.var_gap, strict=True)
    ]


# ---------------------------------------------------------------------------------------
# PF's dual certificate as polynomials in x
# ---------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=32)
def pf_dual_polys(n: int, k: int) -> tuple[tuple[flint.fmpq_poly, ...], dict[int, Any]]:
    """Complementary-slackness multipliers for PF's solution, as polynomials in x.

    PF makes every "step" row tight (docs/formulas.md section 4: ``P_r(q) = x^{gap} P_r(q^(r))``)
    and, for ``0 < x < 1``, every variable positive; "top" rows are generically slack.
    Stationarity (zero reduced cost) for every variable then reads
    ``lam_(g,v) = c_(g,v) - m(g,v) mu_g + x lam_(g[v->v+1], v+1)`` (v > 0) and
    ``mu_g = x lam_(g[0->1], 1) / m(g,0)`` (tied maximum) or ``mu_g = 0`` (unique maximum),
    a triangular system with a unique solution.

    Parameters
    ----------
    n : int >= 2
    k : int >= 1

    Returns
    -------
    (tuple of flint.fmpq_poly, dict of int to flint.fmpq_poly)
        ``mu`` (per vector) and ``lam`` (row index -> polynomial, step rows only; top rows
        have multiplier 0). Cached.
    """
    lat = build_lattice(n, k)
    row_of_source = {src: r for r, (_, src, _) in enumerate(lat.rows)}
    mu: dict[int, flint.fmpq_poly] = {}
    lam: dict[int, flint.fmpq_poly] = {}
    xpoly = flint.fmpq_poly([0, 1])

    def lam_var(j: int) -> flint.fmpq_poly:
        # multiplier of the step row whose source is variable j (gap v > 0)
        r = row_of_source[j]
        if r in lam:
            return lam[r]
        i, v = lat.var_vec[j], lat.var_gap[j]
        g = lat.vectors[i]
        val = flint.fmpq_poly([lat.cost[j]]) - lat.var_mult[j] * mu_vec(i)
        if v + 1 <= k:
            lst = list(g)
            lst[lst.index(v)] = v + 1
            val += xpoly * lam_var(lat.var_index[(tuple(sorted(lst)), v + 1)])
        lam[r] = val
        return val

    def mu_vec(i: int) -> flint.fmpq_poly:
        if i in mu:
            return mu[i]
        g = lat.vectors[i]
        m0 = g.count(0)
        if m0 == 1:
            val = flint.fmpq_poly([])
        else:
            lst = list(g)
            lst[0] = 1
            src = lat.var_index[(tuple(sorted(lst)), 1)]
            val = xpoly * lam_var(src) / m0
        mu[i] = val
        return val

    # recursion depth is at most ~ n * k; order vectors by number of zeros
    order = sorted(range(len(lat.vectors)), key=lambda i: lat.vectors[i].count(0))
    for i in order:
        mu_vec(i)
    for j, v in enumerate(lat.var_gap):
        if v > 0:
            lam_var(j)
    return tuple(mu[i] for i in range(len(lat.vectors))), lam
