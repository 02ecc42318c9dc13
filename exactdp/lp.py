"""The McKenna-Sheldon lattice linear program and the exact region where PF is optimal.

The program (MATH.md section 4; McKenna & Sheldon 2020, code ``linear-program.ipynb`` of
``ryan112358/permute-and-flip``) optimises over *regular* (symmetric, shift-invariant)
selection mechanisms on the score lattice ``{0, -2D, ..., -2kD}^n`` (``D`` the sensitivity).

Lattice units
-------------
A canonical score vector is stored by its *gaps* ``g = (0, g_2, ..., g_n)``, sorted
ascending, ``0 <= g_i <= k``; its scores are ``-2 D g``.  With ``y = exp(-epsilon)`` the
coin of an item with gap ``g`` is ``p = exp(-epsilon * 2 D g / (2 D)) = y**g`` for both
PF and EM, so every quantity below is a polynomial or rational function of ``y``;
``exp(epsilon)`` rational makes everything rational.

Variables ``P(g, v)``: probability of *each* output whose gap in ``g`` is ``v`` (ties merged;
``m(g, v)`` outputs share the value).  Rows:

* ``sum_v m(g, v) P(g, v) = 1`` for every canonical ``g``;
* raise one output of gap ``v`` by ``2D``.  If ``v > 0`` the neighbour is ``g`` with one
  ``v`` replaced by ``v - 1`` ("step" row, always in the lattice).  If ``v = 0`` the
  output becomes the unique maximum and re-canonicalising shifts every other gap up by
  one ("top" row, in the lattice iff ``max(g) <= k - 1``).  The DP row
  ``P(q + 2D e_r, r) <= e^eps P(q, r)`` is stored multiplied by ``y = e^-eps``:
  ``y * P(target) - P(source) <= 0`` (same feasible set, better scaled).

Float solves (``method="float"``) work in ``v = P / P_PF`` (PF's probabilities, computed
by the one PF engine from the gaps ``v * epsilon``, never from an underflowing ``y``), so PF
is ``v = 1`` and the privacy coefficients ``y P_PF(target) / P_PF(source)`` are O(1) (exactly
1 on PF's tight rows); the solution is then checked (``max_violation``).

Objective: ``sum`` over every grid vector of the expected error, i.e. canonical ``g`` is
weighted by ``(#distinct permutations) * (k - max(g) + 1)`` in-grid shifts, and output
``(g, v)`` has error ``2 D v``.
"""

from __future__ import annotations

import functools
import math
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations_with_replacement
from types import MappingProxyType
from typing import Any

import flint
import numpy as np
import sympy

from .mechanisms.permute_flip import pf_ring_probabilities
from .numbers import ExactConversionWarning, exact_epsilon, exact_sensitivity, safe_sympify
from .numeric.pf_engine import pf_float
from .xform import generators_for

__all__ = [
    "LatticeLPResult",
    "DualCertificate",
    "PFOptimalityRegion",
    "RegionBoundary",
    "lattice_lp",
    "pf_optimality_region",
    "lattice_size",
]

#: Refuse lattices with more variables or constraint non-zeros than this.
MAX_FLOAT_SIZE = 2_000_000
#: Refuse exact solves beyond this many variables (dense rational linear algebra).
MAX_EXACT_VARIABLES = 6_000

_GOLDEN_THRESHOLD = math.log((3 + math.sqrt(5)) / 2)


# ---------------------------------------------------------------------------------------
# input checks
# ---------------------------------------------------------------------------------------


def _check_size_args(func: str, n: Any, k: Any) -> tuple[int, int]:
    for name, value, low in (("n", n, 2), ("k", k, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"{func}: argument {name} must be an int >= {low}, got {value!r}")
        if int(value) < low:
            raise ValueError(f"{func}: argument {name} must be >= {low}, got {value!r}")
    return int(n), int(k)


def _parameter(func: str, name: str, value: Any) -> sympy.Expr:
    """Positive finite real parameter as an exact sympy number, by the project's parser.

    Every exact form works (int, Fraction, Decimal, ``'1/100'``, ``'0.01'``, ``'log(3/2)'``,
    sympy numbers); a float is taken by its binary value with ``ExactConversionWarning``
    (``exactdp.numbers``).  Symbols are refused: the LP needs a number.
    """
    parse = exact_epsilon if name == "epsilon" else exact_sensitivity
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ExactConversionWarning)
        try:
            expr = parse(value)
        except ValueError as exc:
            msg = f"{func}: argument {name} must be a positive finite real: {exc}"
            raise ValueError(msg) from None
    for w in caught:  # re-issue with the function's name, pointing at the user's call
        cat = w.category if issubclass(w.category, Warning) else UserWarning
        warnings.warn(f"{func}: {w.message}", cat, stacklevel=3)
    if expr.free_symbols:
        raise ValueError(f"{func}: argument {name} must be a number, got the expression {value!r}")
    return expr


def _to_float(func: str, name: str, expr: sympy.Expr, value: Any) -> float:
    """Nearest double of a positive exact parameter; ValueError if it is not finite."""
    out = float(sympy.N(expr, 30))
    if not math.isfinite(out) or out <= 0:
        raise ValueError(
            f"{func}: argument {name}={value!r} is not a positive finite double ({out!r}), "
            "so method='float' cannot use it; use method='exact' (epsilon with a rational "
            "exp(epsilon))"
        )
    return out


def _exact_rational(func: str, name: str, expr: sympy.Expr, value: Any) -> sympy.Rational:
    """The parsed parameter as an exact positive rational, or ValueError."""
    if not expr.is_Rational:
        raise ValueError(
            f"{func}: argument {name} must be rational for method='exact', got {value!r}"
        )
    return sympy.Rational(expr)


def _exact_exp_epsilon(func: str, expr: sympy.Expr, value: Any) -> sympy.Rational:
    """``exp(epsilon)`` as an exact rational, or ValueError."""
    if isinstance(value, float):
        raise ValueError(
            f"{func}: method='exact' needs exp(epsilon) rational; a float epsilon={value!r} "
            "gives a transcendental exp(epsilon). Pass e.g. sympy.log(sympy.Rational(3, 2))."
        )
    e = sympy.simplify(sympy.exp(expr))
    if not e.is_Rational:
        raise ValueError(
            f"{func}: method='exact' needs exp(epsilon) rational, got epsilon={value!r} "
            f"(exp(epsilon) = {e}). Pass e.g. sympy.log(sympy.Rational(3, 2))."
        )
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
        If ``n < 2`` or ``k < 1``.
    """
    n, k = _check_size_args("lattice_size", n, k)
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
class _Lattice:
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


def _neighbours(g: tuple[int, ...], k: int):
    """Lattice neighbours of canonical g: raise a non-empty proper subset by one step.

    Yields ``(h, ch)``: h the re-shifted gap list (same output order as g), ch its
    canonical form.  Up to shifts these are all ``q'`` with ``||q - q'||_inf <= D`` on the
    lattice of step ``2D``.
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
        for h, ch in _neighbours(g, k):
            for r in range(n):
                a, b = var_index[(g, g[r])], var_index[(ch, h[r])]
                for t, s in ((b, a), (a, b)):
                    if t != s and (t, s) not in seen:
                        seen.add((t, s))
                        yield (t, s, "full")


@functools.lru_cache(maxsize=32)
def _lattice(n: int, k: int, full: bool = False) -> _Lattice:
    vectors = tuple((0,) + rest for rest in combinations_with_replacement(range(k + 1), n - 1))
    var_vec, var_gap, var_mult, cost, weight = [], [], [], [], []
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
    return _Lattice(
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


def _guard(func: str, n: int, k: int, method: str, full: bool = False) -> None:
    size = dict(lattice_size(n, k))
    if full:  # upper bound: 2 rows per (vector, subset, output), 2 non-zeros per row
        size["nonzeros"] = size["variables"] + 4 * n * (2**n - 2) * size["vectors"]
    if size["variables"] > MAX_FLOAT_SIZE or size["nonzeros"] > MAX_FLOAT_SIZE:
        raise ValueError(
            f"{func}: lattice n={n}, k={k} needs {size['variables']} variables and "
            f"{size['nonzeros']} constraint non-zeros (limit {MAX_FLOAT_SIZE}); "
            f"about {48 * size['nonzeros'] // 2**20 + 1} MiB for the sparse matrix alone"
        )
    if method == "exact" and size["variables"] > MAX_EXACT_VARIABLES:
        raise ValueError(
            f"{func}: method='exact' at n={n}, k={k} needs {size['variables']} variables "
            f"(exact limit {MAX_EXACT_VARIABLES}); use method='float'"
        )


# ---------------------------------------------------------------------------------------
# PF and EM on lattice vectors (private; MATH.md section 2)
# ---------------------------------------------------------------------------------------


def _pf_float(lat: _Lattice, eps: float) -> np.ndarray:
    """PF per-output probabilities at ``epsilon = eps`` by the one PF engine.

    A lattice gap of v steps of 2*Delta is the scaled gap ``d = v*eps`` (no ``y = e^-eps``
    is formed, so nothing underflows before the probabilities themselves do).
    """
    out = np.empty(len(lat.var_vec))
    probs: dict[int, np.ndarray] = {}
    for j, (i, v) in enumerate(zip(lat.var_vec, lat.var_gap, strict=True)):
        if i not in probs:  # one engine call per canonical vector
            probs[i] = pf_float(np.asarray(lat.vectors[i], dtype=float) * eps)
        out[j] = probs[i][lat.vectors[i].index(v)]
    return out


def _em_float(lat: _Lattice, eps: float) -> np.ndarray:
    return np.array(
        [
            1.0 / sum(math.exp(-eps * (s - v)) for s in lat.vectors[i])
            for i, v in zip(lat.var_vec, lat.var_gap, strict=True)
        ]
    )


def _pf_polys(lat: _Lattice) -> list[flint.fmpq_poly]:
    """PF per-output probability of each variable as a polynomial in ``y = e^-eps``.

    ``int_0^1 prod_{s in S}(1 - t a_s) dt = sum_j (-1)^j e_j(a) / (j + 1)`` with ``e_j`` the
    elementary symmetric polynomials of the coins ``a_s = y^{g_s}`` (exact, rational).
    """
    return list(_pf_polys_cached(lat.n, lat.k))


@functools.lru_cache(maxsize=32)
def _pf_polys_cached(n: int, k: int) -> tuple[flint.fmpq_poly, ...]:
    """PF's exact polynomials in y (the core's coin route, python-flint)."""
    lat = _lattice(n, k)
    out = []
    for i, v in zip(lat.var_vec, lat.var_gap, strict=True):
        gaps = list(lat.vectors[i])
        probs = pf_ring_probabilities(generators_for(gaps, None, sympy.Integer(1)))
        out.append(flint.fmpq_poly(probs[gaps.index(v)]))
    return tuple(out)


def _em_exact(lat: _Lattice, y: flint.fmpq) -> list[flint.fmpq]:
    return [
        y**v / sum((y**s for s in lat.vectors[i]), flint.fmpq(0))
        for i, v in zip(lat.var_vec, lat.var_gap, strict=True)
    ]


# ---------------------------------------------------------------------------------------
# PF's dual certificate as polynomials in y
# ---------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=32)
def _pf_dual_polys(n: int, k: int) -> tuple[tuple[flint.fmpq_poly, ...], dict[int, Any]]:
    """Complementary-slackness multipliers for PF's solution, as polynomials in y.

    PF makes every "step" row tight (MATH.md section 4: ``P_r(q) = y^{gap} P_r(q^(r))``)
    and, for ``0 < y < 1``, every variable positive; "top" rows are generically slack.
    Stationarity (zero reduced cost) for every variable then reads
    ``lam_(g,v) = c_(g,v) - m(g,v) mu_g + y lam_(g[v->v+1], v+1)`` (v > 0) and
    ``mu_g = y lam_(g[0->1], 1) / m(g,0)`` (tied maximum) or ``mu_g = 0`` (unique maximum),
    a triangular system with a unique solution.  Returns ``mu`` (per vector) and ``lam``
    (row index -> polynomial, step rows only; top rows have multiplier 0).
    """
    lat = _lattice(n, k)
    row_of_source = {src: r for r, (_, src, _) in enumerate(lat.rows)}
    mu: dict[int, flint.fmpq_poly] = {}
    lam: dict[int, flint.fmpq_poly] = {}
    ypoly = flint.fmpq_poly([0, 1])

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
            val += ypoly * lam_var(lat.var_index[(tuple(sorted(lst)), v + 1)])
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
            val = ypoly * lam_var(src) / m0
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


# ---------------------------------------------------------------------------------------
# float LP
# ---------------------------------------------------------------------------------------


#: HiGHS primal / dual feasibility tolerance for the rescaled program (O(1) coefficients).
HIGHS_TOLERANCE = 1e-10
#: A float solution whose ``max_violation`` exceeds this is flagged (warning, status).
VIOLATION_TOLERANCE = 1e-8
#: Refine HiGHS's vertex (``_polish``) only if its residual exceeds this.
_POLISH_ABOVE = 1e-13
#: Smallest PF probability the rescaling accepts (float64's smallest normal number).
_TINY = float(np.finfo(float).tiny)


@dataclass(frozen=True)
class _FloatSolve:
    """HiGHS on the program rescaled by PF: ``P_j = pf_j * v_j`` (PF is ``v = 1``).

    Rows: ``sum_j m_j pf_j v_j = 1`` and ``a_r v_t - v_s <= 0`` with
    ``a_r = y pf_t / pf_s`` (exactly 1 on PF's tight "step" rows); objective
    ``sum_j (c_j pf_j / pf_obj) v_j`` so that PF's value is 1 and the optimum is
    ``1 / (PF/OPT)``.  Every coefficient the solver's absolute tolerances act on is O(1).
    """

    res: Any
    pf: np.ndarray
    a_ub: Any
    a_eq: Any
    pf_obj: float  # sum_j c_j pf_j (lattice units)
    x: np.ndarray  # P = pf * v
    scaled_opt: float
    max_violation: float


def _pf_for_scaling(func: str, lat: _Lattice, eps: float, epsilon: Any) -> np.ndarray:
    pf = _pf_float(lat, eps)
    if not np.all(np.isfinite(pf)) or float(np.min(pf)) < _TINY:
        raise ValueError(
            f"{func}: epsilon={epsilon!r} is too large for method='float' at k={lat.k}: PF's "
            f"probability of a gap-{lat.k} output (about exp(-{lat.k}*epsilon)) is below "
            f"float64's range (needs k*epsilon below about 700). Use method='exact' with a "
            "rational exp(epsilon), e.g. epsilon=sympy.log(10**400)."
        )
    return pf


def _solve_float(func: str, lat: _Lattice, eps: float, epsilon: Any) -> _FloatSolve:
    from scipy.optimize import linprog
    from scipy.sparse import csr_matrix

    pf = _pf_for_scaling(func, lat, eps, epsilon)
    nv = len(lat.var_vec)
    mult = np.asarray(lat.var_mult, float)
    a_eq = csr_matrix(
        (mult * pf, (np.asarray(lat.var_vec), np.arange(nv))), shape=(len(lat.vectors), nv)
    )
    t = np.array([r[0] for r in lat.rows], dtype=int)
    s = np.array([r[1] for r in lat.rows], dtype=int)
    log_pf = np.log(pf)
    coef = np.exp(-eps + log_pf[t] - log_pf[s])  # y pf_t / pf_s without forming y
    nr = len(lat.rows)
    a_ub = csr_matrix(
        (np.concatenate([coef, -np.ones(nr)]), (np.tile(np.arange(nr), 2), np.concatenate([t, s]))),
        shape=(nr, nv),
    )
    cost = np.asarray(lat.cost, float) * pf
    pf_obj = float(cost.sum())
    if not (math.isfinite(pf_obj) and pf_obj > 0):
        raise ValueError(
            f"{func}: PF's objective at epsilon={epsilon!r} is {pf_obj!r}, not a positive "
            "double; use method='exact' with a rational exp(epsilon)"
        )
    res = linprog(
        cost / pf_obj,
        A_ub=a_ub,
        b_ub=np.zeros(nr),
        A_eq=a_eq,
        b_eq=np.ones(a_eq.shape[0]),
        bounds=(0, None),
        method="highs-ds",
        options={
            "primal_feasibility_tolerance": HIGHS_TOLERANCE,
            "dual_feasibility_tolerance": HIGHS_TOLERANCE,
        },
    )
    if res.status != 0:
        return _FloatSolve(res, pf, a_ub, a_eq, pf_obj, np.full(nv, np.nan), math.nan, math.inf)
    v = np.asarray(res.x, float)
    viol = _max_violation(a_eq, a_ub, v)
    if viol > _POLISH_ABOVE:
        v2 = _polish(a_eq, a_ub, v, np.asarray(res.ineqlin.residual, float))
        viol2 = _max_violation(a_eq, a_ub, v2)
        if viol2 < viol:
            v, viol = v2, viol2
    return _FloatSolve(
        res=res, pf=pf, a_ub=a_ub, a_eq=a_eq, pf_obj=pf_obj, x=pf * v,
        scaled_opt=float((cost / pf_obj) @ v),
        max_violation=viol,
    )


def _polish(a_eq, a_ub, v: np.ndarray, slack: np.ndarray, tol: float = 1e-9) -> np.ndarray:
    """Iterative refinement of HiGHS's vertex on its own active set.

    HiGHS treats matrix entries below ``1e-9`` as zero and scales internally, so on rows
    mixing PF probabilities of very different size (a tied maximum next to a deep gap) it
    can stop ``~7e-10`` off.  Keep its support ``{v > tol}`` and tight rows
    ``{slack <= tol}``, and remove the residual of that (consistent) linear system by two
    sparse least-squares corrections (LSQR).  The caller keeps the result only if its
    ``max_violation`` is smaller.
    """
    from scipy.sparse import vstack
    from scipy.sparse.linalg import lsqr

    support = np.flatnonzero(v > tol)
    tight = np.flatnonzero(slack <= tol)
    mat = vstack([a_eq, a_ub[tight]]).tocsc()[:, support]
    rhs = np.concatenate([np.ones(a_eq.shape[0]), np.zeros(tight.size)])
    out = np.zeros_like(v)
    out[support] = v[support]
    for _ in range(2):
        resid = rhs - mat @ out[support]
        if not np.any(resid):
            break
        out[support] += lsqr(mat, resid, atol=1e-16, btol=1e-16, iter_lim=10 * support.size)[0]
    return out


def _max_violation(a_eq, a_ub, v: np.ndarray) -> float:
    """Largest primal residual of the rescaled program, relative to each row's scale.

    Equality rows: ``|sum m pf v - 1|`` (in probability).  Privacy rows:
    ``max(0, a v_t - v_s) / max(1, a v_t, v_s)``, i.e. ``P_s`` may fall short of
    ``y P_t`` by this fraction of PF's (or the solution's) probability.  Bounds: ``-v``.
    """
    eq = float(np.max(np.abs(a_eq @ v - 1.0)))
    pos = a_ub.multiply(a_ub > 0) @ v
    neg = -(a_ub.multiply(a_ub < 0) @ v)
    ub = np.maximum(pos - neg, 0.0) / np.maximum(1.0, np.maximum(pos, neg))
    return max(eq, float(np.max(ub, initial=0.0)), float(np.max(-v, initial=0.0)), 0.0)


# ---------------------------------------------------------------------------------------
# exact crossover
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DualCertificate:
    """An exact optimality certificate for the lattice LP (rows scaled by ``y = e^-eps``).

    Dual of ``min c.P  s.t.  A_eq P = 1, y P(target) - P(source) <= 0, P >= 0`` is
    ``max sum(mu)  s.t.  reduced cost c - A_eq^T mu + A_ub^T lam >= 0, lam >= 0``.

    Attributes
    ----------
    mu : tuple of sympy.Rational
        One multiplier per canonical vector (order of ``LatticeLPResult.vectors``).
    lam : tuple of sympy.Rational
        One multiplier per privacy row (order of ``LatticeLPResult.rows``), ``>= 0``.
    dual_objective : sympy.Rational
        ``sum(mu)`` times ``2 * sensitivity`` (objective units).
    checks : Mapping[str, bool]
        ``primal_feasible``, ``dual_feasible`` (``lam >= 0`` and reduced costs ``>= 0``),
        ``strong_duality`` (``c.P == sum(mu)`` exactly); all True means certified optimal.
    route : str
        How the exact point was found: ``"pf-certificate"`` (PF with its multiplier
        polynomials ``_pf_dual_polys`` at the rational ``y``; used whenever PF is optimal),
        ``"highs-crossover"`` or ``"sympy-simplex"``.
    """

    mu: tuple
    lam: tuple
    dual_objective: sympy.Rational
    checks: Mapping[str, bool]
    route: str

    @property
    def verified(self) -> bool:
        """True iff every exact check passed."""
        return all(self.checks.values())


def _to_q(x: float) -> flint.fmpq:
    f = Fraction(x).limit_denominator(10**15)
    return flint.fmpq(f.numerator, f.denominator)


def _rref_solve(rows: list[list[flint.fmpq]], rhs: list[flint.fmpq], ncols: int):
    """Unique exact solution of an (over)determined consistent system, else None."""
    if ncols == 0:
        return [] if all(b == 0 for b in rhs) else None
    flat = [x for r, b in zip(rows, rhs, strict=True) for x in (*r, b)]
    m = flint.fmpq_mat(len(rows), ncols + 1, flat)
    red, rank = m.rref()
    if rank != ncols:  # rank deficient or inconsistent (pivot in the rhs column)
        return None
    for c in range(ncols):
        if red[c, c] != 1:
            return None
    return [red[c, ncols] for c in range(ncols)]


def _exact_check(lat: _Lattice, y: flint.fmpq, x: list, mu: list, lam: list) -> dict[str, bool]:
    zero = flint.fmpq(0)
    primal = all(v >= 0 for v in x)
    sums = [zero] * len(lat.vectors)
    for j, i in enumerate(lat.var_vec):
        sums[i] += lat.var_mult[j] * x[j]
    primal = primal and all(s == 1 for s in sums)
    primal = primal and all(y * x[t] - x[s] <= 0 for t, s, _ in lat.rows)
    red = _reduced_costs(lat, y, mu, lam)
    dual = all(v >= 0 for v in lam) and all(r >= 0 for r in red)
    obj = sum((c * v for c, v in zip(lat.cost, x, strict=True)), zero)
    return {
        "primal_feasible": bool(primal),
        "dual_feasible": bool(dual),
        "strong_duality": bool(obj == sum(mu, zero)),
    }


def _reduced_costs(lat: _Lattice, y, mu: list, lam: list) -> list:
    red = [lat.cost[j] - lat.var_mult[j] * mu[i] for j, i in enumerate(lat.var_vec)]
    for r, (t, s, _) in enumerate(lat.rows):
        red[t] += y * lam[r]
        red[s] -= lam[r]
    return red


def _crossover(lat: _Lattice, y: flint.fmpq, res, tol: float):
    """Exact primal and dual points from HiGHS's supports; None if they do not verify.

    ``res`` is HiGHS's answer for the PF-rescaled program (``_solve_float``): variables and
    slacks are O(1) there, so one absolute ``tol`` selects the support and the tight rows
    at every epsilon.  Multipliers and reduced costs scale with PF's probabilities, so at
    large epsilon the dual selection can fail; there PF is optimal and ``_pf_certificate``
    is tried first.  The selection is only a guess; the exact re-solve and
    ``_exact_check`` decide.
    """
    nv, nr = len(lat.var_vec), len(lat.rows)
    xf = np.asarray(res.x)
    slack = np.asarray(res.ineqlin.residual)
    lam_f = -np.asarray(res.ineqlin.marginals)
    red_f = np.asarray(res.lower.marginals)
    scale = 1.0
    support = [j for j in range(nv) if xf[j] > tol]
    tight = [r for r in range(nr) if slack[r] <= tol]
    pos = {j: c for c, j in enumerate(support)}
    # primal: x_j = 0 off the support, equality rows and tight rows as equations
    rows, rhs = [], []
    for i in range(len(lat.vectors)):
        row = [flint.fmpq(0)] * len(support)
        for j in support:
            if lat.var_vec[j] == i:
                row[pos[j]] = flint.fmpq(lat.var_mult[j])
        rows.append(row)
        rhs.append(flint.fmpq(1))
    for r in tight:
        t, s, _ = lat.rows[r]
        row = [flint.fmpq(0)] * len(support)
        if t in pos:
            row[pos[t]] += y
        if s in pos:
            row[pos[s]] -= 1
        rows.append(row)
        rhs.append(flint.fmpq(0))
    sol = _rref_solve(rows, rhs, len(support))
    if sol is None:
        return None
    x = [flint.fmpq(0)] * nv
    for j, v in zip(support, sol, strict=True):
        x[j] = v
    # dual: zero reduced cost where HiGHS has ~zero reduced cost; lam only on rows with
    # a positive HiGHS multiplier; mu free
    act = [r for r in tight if lam_f[r] > tol * scale]
    nmu = len(lat.vectors)
    col = {r: nmu + c for c, r in enumerate(act)}
    zero_rc = [j for j in range(nv) if j in pos or abs(red_f[j]) <= tol * scale]
    zpos = {j: c for c, j in enumerate(zero_rc)}
    drows, drhs = [], []
    for j in zero_rc:
        row = [flint.fmpq(0)] * (nmu + len(act))
        row[lat.var_vec[j]] = flint.fmpq(lat.var_mult[j])
        drows.append(row)
        drhs.append(flint.fmpq(lat.cost[j]))
    for r in act:
        t, s, _ = lat.rows[r]
        for j, coef in ((t, y), (s, flint.fmpq(-1))):
            if j in zpos:
                # stationarity: m mu - y lam_(rows into j) + lam_(rows out of j) = c
                drows[zpos[j]][col[r]] -= coef
    dsol = _rref_solve(drows, drhs, nmu + len(act))
    if dsol is None:
        return None
    mu = dsol[:nmu]
    lam = [flint.fmpq(0)] * nr
    for r in act:
        lam[r] = dsol[col[r]]
    checks = _exact_check(lat, y, x, mu, lam)
    if not all(checks.values()):
        return None
    return x, mu, lam, checks


def _pf_certificate(lat: _Lattice, y: flint.fmpq):
    """PF's own exact certificate: PF's probabilities and the multipliers ``_pf_dual_polys``.

    Evaluated at the rational ``y``; it verifies exactly iff PF is optimal there (every
    ``lam_i(y) >= 0``, see ``pf_optimality_region``), which covers every large epsilon
    without any floating-point step.  For ``constraints="full"`` the McKenna-Sheldon
    multipliers are placed on the same (target, source) pairs of the full row set (more
    primal rows only enlarge the dual).  None if it does not verify.
    """
    base = _lattice(lat.n, lat.k)
    mu_p, lam_p = _pf_dual_polys(lat.n, lat.k)
    where = {(t, s): r for r, (t, s, _) in enumerate(lat.rows)}
    lam = [flint.fmpq(0)] * len(lat.rows)
    for r, poly in lam_p.items():
        t, s, _ = base.rows[r]
        if (t, s) not in where:
            return None
        lam[where[(t, s)]] = poly(y)
    x = [p(y) for p in _pf_polys(base)]
    mu = [p(y) for p in mu_p]
    checks = _exact_check(lat, y, x, mu, lam)
    return (x, mu, lam, checks) if all(checks.values()) else None


def _crossover_from_highs(func: str, lat: _Lattice, y: flint.fmpq, e_eps, epsilon: Any):
    """HiGHS on the rescaled program, then ``_crossover`` at a few tolerances; or None."""
    try:
        eps_f = math.log(int(e_eps.p)) - math.log(int(e_eps.q))
        res = _solve_float(func, lat, eps_f, epsilon).res
    except ValueError:  # PF underflows float64: no float guess
        return None
    if res.status != 0:
        return None
    for tol in (1e-9, 1e-7, 1e-11, 1e-5):
        got = _crossover(lat, y, res, tol)
        if got is not None:
            return got
    return None


def _sympy_simplex(lat: _Lattice, y: flint.fmpq):
    """Fallback: exact primal and dual by sympy's rational simplex (slow, small sizes)."""
    from sympy.solvers.simplex import linprog as sym_linprog

    yq = sympy.Rational(int(y.p), int(y.q))
    nv, nr, nm = len(lat.var_vec), len(lat.rows), len(lat.vectors)
    a_eq = sympy.zeros(nm, nv)
    for j, i in enumerate(lat.var_vec):
        a_eq[i, j] = lat.var_mult[j]
    a_ub = sympy.zeros(nr, nv)
    for r, (t, s, _) in enumerate(lat.rows):
        a_ub[r, t] += yq
        a_ub[r, s] -= 1
    cost = sympy.Matrix(lat.cost)
    _, xs = sym_linprog(cost, a_ub, sympy.zeros(nr, 1), a_eq, sympy.ones(nm, 1))
    # dual: max 1.mu s.t. A_eq^T mu - A_ub^T lam <= c, lam >= 0, mu free (mu = mu+ - mu-)
    big_a = a_eq.T.row_join(-a_eq.T).row_join(-a_ub.T)
    obj = -sympy.Matrix([1] * nm + [-1] * nm + [0] * nr)
    _, zs = sym_linprog(obj, big_a, cost)
    x = [flint.fmpq(int(sympy.Rational(v).p), int(sympy.Rational(v).q)) for v in xs]
    zq = [flint.fmpq(int(sympy.Rational(v).p), int(sympy.Rational(v).q)) for v in zs]
    mu = [zq[i] - zq[nm + i] for i in range(nm)]
    lam = zq[2 * nm :]
    return x, mu, lam, _exact_check(lat, y, x, mu, lam)


# ---------------------------------------------------------------------------------------
# full eps-DP check of a lattice solution (all lattice neighbours, both directions)
# ---------------------------------------------------------------------------------------


def _full_dp_violation(lat: _Lattice, x, e_eps):
    """``max Pr[M(q') = r] - e^eps Pr[M(q) = r]`` over all lattice neighbours ``q ~ q'``.

    On the lattice (steps of 2D), up to shifts the neighbours of q are exactly
    ``q + 2D 1_S`` for a non-empty proper subset S; both directions are checked.
    """
    worst = None
    n = lat.n
    for g in lat.vectors:
        for h, ch in _neighbours(g, lat.k):
            for r in range(n):
                a = x[lat.var_index[(g, g[r])]]
                b = x[lat.var_index[(ch, h[r])]]
                for d in (b - e_eps * a, a - e_eps * b):
                    if worst is None or d > worst:
                        worst = d
    return worst


# ---------------------------------------------------------------------------------------
# public: lattice_lp
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LatticeLPResult:
    """Optimum of the McKenna-Sheldon lattice LP with PF's and EM's values on it.

    Attributes
    ----------
    n, k : int
        Number of outputs and grid depth (scores ``{0, -2D, ..., -2kD}``).
    epsilon, sensitivity
        As parsed by ``exactdp.numbers.exact_epsilon`` / ``exact_sensitivity`` (exact
        sympy numbers; a float is its binary value).
    method : str
        ``"float"`` (HiGHS, double precision) or ``"exact"`` (rational, certified).
    optimum, pf_value, em_value
        Objective (sum over all ``(k+1)^n`` grid vectors of the expected error, in score
        units) at the LP optimum, at PF and at EM.  ``float`` or ``sympy.Rational``.
    pf_ratio, em_ratio
        ``pf_value / optimum`` and ``em_value / optimum`` (exact rationals when exact).
    n_variables, n_constraints : int
        Variables (ties merged) and rows (equality + privacy rows).
    solution : Mapping[tuple, tuple]
        Canonical score vector (descending, max 0) -> per-output probabilities.
    status : str
        Float: ``"optimal: <HiGHS message>"`` if ``max_violation <= VIOLATION_TOLERANCE``,
        else ``"inaccurate (max_violation=...): ..."``.  Exact: the certification route.
    certificate : DualCertificate or None
        Exact dual certificate (``method="exact"`` only).
    full_dp_violation
        ``max Pr[M(q') = r] - e^eps Pr[M(q) = r]`` of the LP solution over *all* lattice
        neighbours and both directions; ``<= 0`` means the optimum is truly eps-DP on the
        lattice (the LP imposes only the raise-one-output rows).
    solve_seconds : float
        Wall time of the solve (HiGHS plus exact crossover).
    constraints : str
        ``"raise"`` (McKenna-Sheldon rows) or ``"full"`` (all lattice neighbours).
    max_violation
        A-posteriori check of the float solution: its largest primal residual in the
        PF-rescaled program, relative to each row's scale (equality rows in probability;
        privacy rows as the fraction of PF's probability by which ``P(q, r)`` falls short of
        ``e^-eps P(q + 2D e_r, r)``; negativity likewise).  Above ``VIOLATION_TOLERANCE``
        (1e-8) the status starts with ``"inaccurate"`` and a ``RuntimeWarning`` is issued.
        Exactly 0 for ``method="exact"`` (the point is checked in rationals).
    """

    n: int
    k: int
    epsilon: Any
    sensitivity: Any
    method: str
    optimum: Any
    pf_value: Any
    em_value: Any
    pf_ratio: Any
    em_ratio: Any
    n_variables: int
    n_constraints: int
    solution: Mapping[tuple, tuple]
    status: str
    certificate: DualCertificate | None = None
    full_dp_violation: Any = None
    solve_seconds: float = 0.0
    constraints: str = "raise"
    max_violation: Any = None
    _exact: Any = field(default=None, repr=False, compare=False)

    @property
    def vectors(self) -> tuple[tuple, ...]:
        """Canonical score vectors in the order of ``certificate.mu``."""
        return tuple(self.solution.keys())

    @property
    def rows(self) -> tuple[tuple[tuple, tuple], ...]:
        """Privacy rows as ``((source vector, output gap), (target vector, output gap))``."""
        lat = _lattice(self.n, self.k, self.constraints == "full")
        out = []
        for t, s, _ in lat.rows:
            out.append(
                ((lat.vectors[lat.var_vec[s]], lat.var_gap[s]),
                 (lat.vectors[lat.var_vec[t]], lat.var_gap[t]))
            )
        return tuple(out)

    def verify(self) -> bool:
        """Re-check the exact certificate from scratch (exact method only).

        Returns
        -------
        bool
            True iff the stored primal point is feasible, the stored ``(mu, lam)`` is
            dual-feasible and both objectives are equal, all in exact rationals.

        Raises
        ------
        ValueError
            If the result is not from ``method="exact"``.
        """
        if self.certificate is None or self._exact is None:
            raise ValueError(
                "LatticeLPResult.verify: only results of method='exact' carry a certificate"
            )
        lat = _lattice(self.n, self.k, self.constraints == "full")
        y, x = self._exact
        to_q = lambda r: flint.fmpq(int(r.p), int(r.q))  # noqa: E731
        mu = [to_q(v) for v in self.certificate.mu]
        lam = [to_q(v) for v in self.certificate.lam]
        return all(_exact_check(lat, y, x, mu, lam).values())


def _q_to_sympy(v: flint.fmpq) -> sympy.Rational:
    return sympy.Rational(int(v.p), int(v.q))


def _plain(v):
    """sympy Integer -> int (so keys read ``(0, -2, -4)``); other numbers unchanged."""
    return int(v) if isinstance(v, sympy.Integer) else v


def _solution_map(lat: _Lattice, x, scale) -> Mapping[tuple, tuple]:
    out = {}
    for g in lat.vectors:
        key = tuple(_plain(-scale * v) for v in g)
        out[key] = tuple(x[lat.var_index[(g, v)]] for v in g)
    return MappingProxyType(out)


def lattice_lp(
    n: int,
    k: int,
    epsilon: Any,
    sensitivity: Any = 1,
    method: str = "float",
    constraints: str = "raise",
) -> LatticeLPResult:
    """Solve the McKenna-Sheldon lattice LP (MATH.md section 4) in float or exactly.

    Parameters
    ----------
    n : int
        Number of outputs, ``n >= 2``.
    k : int
        Grid depth, scores in ``{0, -2D, ..., -2kD}`` (``D`` = sensitivity), ``k >= 1``.
    epsilon : positive real number (int, Fraction, Decimal, str, sympy, float)
        Privacy parameter, ``> 0``, read by ``exactdp.numbers.exact_epsilon``: ``1``,
        ``Fraction(1, 100)``, ``"1/100"``, ``"0.01"``, ``"log(3/2)"``, sympy expressions;
        a float is taken by its binary value with ``ExactConversionWarning``.  For
        ``method="exact"`` ``exp(epsilon)`` must be rational, e.g. ``"log(3/2)"``.
        ``method="float"`` needs ``k * epsilon`` below about 700 (PF's smallest
        probability, about ``exp(-k epsilon)``, must be a normal double).
    sensitivity : positive real number, default 1
        ``D`` (read by ``exact_sensitivity``); it only scales the objective (error
        ``2 D v`` for gap ``v``).
    method : {"float", "exact"}
        ``"float"``: scipy HiGHS (dual simplex, feasibility tolerances 1e-10) on the
        program rescaled by PF's probabilities (``P = P_PF * v``, so PF is ``v = 1`` and
        every coefficient is O(1) at every epsilon); the solution is then checked
        (``max_violation``, ``status``).
        ``"exact"``: first PF itself with its exact multipliers (``_pf_dual_polys`` at the
        rational ``y``; certifies wherever PF is optimal, at any size of ``e^eps``), else
        HiGHS's optimal supports re-solved in rationals (python-flint ``fmpq_mat``); each
        candidate is checked exactly for primal feasibility, dual feasibility and equal
        objectives; sympy's rational simplex is the fallback if both fail.
    constraints : {"raise", "full"}
        ``"raise"`` (default): the McKenna-Sheldon rows ``P(q + 2D e_r, r) <= e^eps P(q, r)``
        only.  ``"full"``: every lattice neighbour pair ``q ~ q'`` (``q' = q + 2D 1_S`` up
        to shift, S a non-empty proper subset), every output, both directions, i.e. the
        optimum over all symmetric shift-invariant eps-DP mechanisms on the lattice.

    Returns
    -------
    LatticeLPResult
        Optimum, PF and EM values, ratios, sizes, the solution, and (exact) the dual
        certificate.

    Raises
    ------
    ValueError
        Bad ``n``, ``k``, ``epsilon``, ``sensitivity`` or ``method``; ``exp(epsilon)`` not
        rational for ``method="exact"``; ``method="float"`` at an epsilon so large that
        PF's probabilities underflow float64 (the message suggests ``method="exact"``);
        lattices beyond ``MAX_FLOAT_SIZE`` variables / non-zeros (or
        ``MAX_EXACT_VARIABLES`` for exact), with the size they would need.
    RuntimeError
        If HiGHS fails, or (exact) neither the crossover nor the fallback certifies.

    References
    ----------
    R. McKenna and D. Sheldon, "Permute-and-Flip: A new mechanism for differentially
    private selection", NeurIPS 2020, section 5 and their ``linear-program.ipynb``.
    MATH.md section 4 (objective weighting, constraints) and section 2 (PF, EM formulas).
    """
    func = "lattice_lp"
    n, k = _check_size_args(func, n, k)
    if method not in ("float", "exact"):
        raise ValueError(f"{func}: argument method must be 'float' or 'exact', got {method!r}")
    if constraints not in ("raise", "full"):
        raise ValueError(
            f"{func}: argument constraints must be 'raise' or 'full', got {constraints!r}"
        )
    full = constraints == "full"
    eps_x = _parameter(func, "epsilon", epsilon)
    delta_x = _parameter(func, "sensitivity", sensitivity)
    _guard(func, n, k, method, full)
    lat = _lattice(n, k, full)
    n_cons = len(lat.vectors) + len(lat.rows)
    start = time.perf_counter()
    if method == "float":
        eps_f = _to_float(func, "epsilon", eps_x, epsilon)
        delta = _to_float(func, "sensitivity", delta_x, sensitivity)
        sol = _solve_float(func, lat, eps_f, epsilon)
        res = sol.res
        if res.status != 0:
            raise RuntimeError(f"{func}: HiGHS failed at n={n}, k={k}, eps={eps_f}: {res.message}")
        elapsed = time.perf_counter() - start
        if not (math.isfinite(sol.scaled_opt) and sol.scaled_opt > 0):
            raise RuntimeError(
                f"{func}: HiGHS returned the optimum {sol.scaled_opt!r} (in units of PF's "
                f"value) at n={n}, k={k}, epsilon={epsilon!r}; use method='exact'"
            )
        cost = np.asarray(lat.cost, float)
        em = _em_float(lat, eps_f)
        pfv = 2 * delta * sol.pf_obj
        opt = pfv * sol.scaled_opt
        emv = 2 * delta * float(cost @ em)
        viol = _full_dp_violation(lat, list(sol.x), math.exp(eps_f))
        ok = sol.max_violation <= VIOLATION_TOLERANCE
        if not ok:
            warnings.warn(
                f"{func}: the HiGHS solution at n={n}, k={k}, epsilon={epsilon!r} violates the "
                f"constraints by {sol.max_violation:.3g} (relative to the row scale; tolerance "
                f"{VIOLATION_TOLERANCE:g}); the optimum is inaccurate. Use method='exact'.",
                RuntimeWarning,
                stacklevel=2,
            )
        head = "optimal" if ok else f"inaccurate (max_violation={sol.max_violation:.3g})"
        return LatticeLPResult(
            n=n, k=k, epsilon=eps_x, sensitivity=delta_x, method=method,
            optimum=opt, pf_value=pfv, em_value=emv,
            pf_ratio=1.0 / sol.scaled_opt, em_ratio=emv / opt,
            n_variables=len(lat.var_vec), n_constraints=n_cons,
            solution=_solution_map(lat, [float(v) for v in sol.x], 2 * delta),
            status=f"{head}: {res.message} [constraints={constraints}]",
            full_dp_violation=float(viol), solve_seconds=elapsed, constraints=constraints,
            max_violation=sol.max_violation,
        )
    # exact
    e_eps = _exact_exp_epsilon(func, eps_x, epsilon)
    delta = _exact_rational(func, "sensitivity", delta_x, sensitivity)
    y = flint.fmpq(int(e_eps.q), int(e_eps.p))
    got = _pf_certificate(lat, y)
    route = "pf-certificate"
    if got is None:
        route = "highs-crossover"
        got = _crossover_from_highs(func, lat, y, e_eps, epsilon)
    if got is None:
        route = "sympy-simplex"
        got = _sympy_simplex(lat, y)
        if not all(got[3].values()):
            raise RuntimeError(f"{func}: exact certification failed at n={n}, k={k}: {got[3]}")
    x, mu, lam, checks = got
    elapsed = time.perf_counter() - start
    two_d = 2 * delta
    zero = flint.fmpq(0)
    opt = _q_to_sympy(sum((c * v for c, v in zip(lat.cost, x, strict=True)), zero)) * two_d
    pf = [p(y) for p in _pf_polys(lat)]
    em = _em_exact(lat, y)
    pfv = _q_to_sympy(sum((c * v for c, v in zip(lat.cost, pf, strict=True)), zero)) * two_d
    emv = _q_to_sympy(sum((c * v for c, v in zip(lat.cost, em, strict=True)), zero)) * two_d
    cert = DualCertificate(
        mu=tuple(_q_to_sympy(v) for v in mu),
        lam=tuple(_q_to_sympy(v) for v in lam),
        dual_objective=_q_to_sympy(sum(mu, zero)) * two_d,
        checks=MappingProxyType(dict(checks)),
        route=route,
    )
    viol = _full_dp_violation(lat, x, flint.fmpq(int(e_eps.p), int(e_eps.q)))
    return LatticeLPResult(
        n=n, k=k, epsilon=eps_x, sensitivity=delta, method=method,
        optimum=opt, pf_value=pfv, em_value=emv,
        pf_ratio=pfv / opt, em_ratio=emv / opt,
        n_variables=len(lat.var_vec), n_constraints=n_cons,
        solution=_solution_map(lat, [_q_to_sympy(v) for v in x], two_d),
        status=f"certified optimal ({route}) [constraints={constraints}]", certificate=cert,
        full_dp_violation=_q_to_sympy(viol), solve_seconds=elapsed, constraints=constraints,
        max_violation=sympy.Integer(0), _exact=(y, x),
    )


# ---------------------------------------------------------------------------------------
# public: pf_optimality_region
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RegionBoundary:
    """One endpoint of PF's optimality region.

    Attributes
    ----------
    polynomial : sympy.Poly
        Irreducible integer polynomial in ``y`` (``y = exp(-epsilon)``) with the endpoint
        as a root.
    y : sympy.Expr
        The endpoint in ``y``, exactly (``sympy.CRootOf``, or radicals for degree <= 2).
    epsilon : sympy.Expr
        ``-log(y)``, exactly.
    y_interval : tuple[sympy.Rational, sympy.Rational]
        Certified rational isolating interval of ``y`` (width below 1e-30).
    epsilon_interval : tuple[sympy.Expr, sympy.Expr]
        Certified ``(-log(y_hi), -log(y_lo))``.
    epsilon_float : float
        Nearest double of the boundary epsilon.
    """

    polynomial: sympy.Poly
    y: sympy.Expr
    epsilon: sympy.Expr
    y_interval: tuple
    epsilon_interval: tuple
    epsilon_float: float


@dataclass(frozen=True)
class PFOptimalityRegion:
    """The set of epsilon at which PF attains the lattice-LP optimum, computed exactly.

    Attributes
    ----------
    n, k : int
        Lattice parameters.
    y_intervals : tuple of (lo, hi)
        Region in ``y = exp(-epsilon)`` as closed intervals inside ``(0, 1)``; ``lo = 0`` or
        ``hi = 1`` mean the open end of ``(0, 1)``.  Endpoints are exact sympy numbers.
    epsilon_intervals : tuple of (lo, hi)
        The same in epsilon (``hi = oo`` for ``y -> 0``).
    boundaries : tuple of RegionBoundary
        Every finite endpoint, with its polynomial and certified intervals.
    degenerate_points : tuple of sympy.Expr
        Values of ``y`` in (0, 1) where one of PF's slack ("top") rows becomes tight, so
        the dual certificate is not unique; there PF's optimality is decided separately
        (see ``degenerate_optimal``).  Empty in every case computed so far.
    certificate_degrees : int
        Largest degree of the multiplier polynomials ``lam(y)``.
    n_multipliers : int
        Number of multiplier polynomials (one per tight "step" row).
    """

    n: int
    k: int
    y_intervals: tuple
    epsilon_intervals: tuple
    boundaries: tuple
    degenerate_points: tuple
    certificate_degrees: int
    n_multipliers: int

    def contains(self, epsilon: Any) -> bool:
        """Decide exactly whether PF is LP-optimal at ``epsilon``.

        Uses the multiplier polynomials directly (not the stored intervals): exact for
        rational ``exp(epsilon)``, certified interval arithmetic (python-flint ``arb``)
        otherwise.

        Parameters
        ----------
        epsilon : positive real number
            Read by ``exactdp.numbers.exact_epsilon``: int, Fraction, Decimal, strings
            (``"1/100"``, ``"0.01"``, ``"log(3/2)"``), sympy numbers; a float is decided
            at its exact binary value (with ``ExactConversionWarning``).

        Returns
        -------
        bool

        Raises
        ------
        ValueError
            If epsilon is not a positive finite real.
        """
        expr = _parameter("PFOptimalityRegion.contains", "epsilon", epsilon)
        return _pf_optimal_at(self.n, self.k, expr)


def _multipliers(n: int, k: int) -> list[flint.fmpq_poly]:
    _, lam = _pf_dual_polys(n, k)
    return [lam[r] for r in sorted(lam)]


def _y_ball(epsilon: Any, prec: int) -> flint.arb:
    expr = safe_sympify(epsilon)
    if isinstance(epsilon, float) or expr.is_Float:
        return (-flint.arb(float(epsilon))).exp()
    digits = int(prec * 0.302) + 10
    val = sympy.N(sympy.exp(-expr), digits)
    return flint.arb(str(val)) + flint.arb(0, sympy.Rational(1, 10 ** (digits - 5)).evalf(20))


def _pf_optimal_at(n: int, k: int, epsilon: Any) -> bool:
    lams = _multipliers(n, k)
    expr = None if isinstance(epsilon, float) else safe_sympify(epsilon)
    if expr is not None:
        e = sympy.simplify(sympy.exp(expr))
        if e.is_Rational:
            y = flint.fmpq(int(e.q), int(e.p))
            return all(p(y) >= 0 for p in lams)
    for prec in (64, 128, 256, 512, 1024, 2048):
        old = flint.ctx.prec
        flint.ctx.prec = prec
        try:
            yb = _y_ball(epsilon, prec)
            vals = [_eval_arb(p, yb) for p in lams]
        finally:
            flint.ctx.prec = old
        if any(v < 0 for v in vals):
            return False
        if all(v > 0 or v == 0 for v in vals):
            return True
    raise ValueError(f"pf_optimality_region: cannot decide the sign at epsilon={epsilon!r}")


def _eval_arb(p: flint.fmpq_poly, x: flint.arb) -> flint.arb:
    acc = flint.arb(0)
    for c in reversed(p.coeffs()):
        acc = acc * x + flint.arb(c)
    return acc


def _irreducible_factors(polys) -> list[flint.fmpz_poly]:
    seen: dict[str, flint.fmpz_poly] = {}
    for p in polys:
        if p.degree() <= 0:
            continue
        num = p.numer()
        _, facs = num.factor()
        for f, _mult in facs:
            if f.degree() <= 0:
                continue
            if f[f.degree()] < 0:
                f = -f
            seen.setdefault(str(f), f)
    return list(seen.values())


def _roots_in_unit(f: flint.fmpz_poly) -> list[tuple[sympy.Rational, sympy.Rational, int]]:
    """Real roots of irreducible f in (0, 1): certified rational intervals and root index."""
    if f.degree() == 1 and (f(0) == 0 or f(1) == 0):
        return []
    poly = sympy.Poly([int(c) for c in reversed(f.coeffs())], sympy.Symbol("y"))
    out = []
    ivs = poly.intervals(inf=0, sup=1)
    real_all = poly.intervals()
    for (lo, hi), _m in ivs:
        lo, hi = sympy.Rational(lo), sympy.Rational(hi)
        if lo == hi and lo in (0, 1):
            continue
        # index among all real roots, for CRootOf
        idx = [i for i, ((a, b), _) in enumerate(real_all) if not (b < lo or a > hi)]
        out.append((lo, hi, idx[0] if len(idx) == 1 else -1))
    return out


def _feasible_rational(lams, y: flint.fmpq) -> bool:
    return all(p(y) >= 0 for p in lams)


def _feasible_at_root(lams, f: flint.fmpz_poly, lo, hi) -> bool:
    """All lam(rho) >= 0 at the root rho of irreducible f isolated in [lo, hi]."""
    poly = sympy.Poly([int(c) for c in reversed(f.coeffs())], sympy.Symbol("y"))
    a, b = sympy.Rational(lo), sympy.Rational(hi)
    fq = flint.fmpq_poly(f)
    for p in lams:
        if p.degree() < 0:
            continue
        if p.degree() >= 0 and (p % fq).degree() < 0:
            continue  # f | p: p(rho) = 0 exactly
        # p(rho) != 0: refine until p has no root in [a, b] other than... sign is constant
        while True:
            pa = p(flint.fmpq(int(a.p), int(a.q)))
            pb = p(flint.fmpq(int(b.p), int(b.q)))
            if pa != 0 and pb != 0 and (pa > 0) == (pb > 0) and _no_root_between(p, a, b):
                if pa < 0:
                    return False
                break
            ivs = poly.refine_root(a, b, eps=(b - a) / 1000)
            a, b = sympy.Rational(ivs[0]), sympy.Rational(ivs[1])
    return True


def _no_root_between(p: flint.fmpq_poly, a, b) -> bool:
    sp = sympy.Poly([sympy.Rational(int(c.p), int(c.q)) for c in reversed(p.coeffs())],
                    sympy.Symbol("y"))
    return sp.count_roots(a, b) == 0


def _boundary(f: flint.fmpz_poly, lo, hi, idx: int) -> RegionBoundary:
    ysym = sympy.Symbol("y")
    poly = sympy.Poly([int(c) for c in reversed(f.coeffs())], ysym)
    if poly.degree() <= 2:
        cands = [r for r in sympy.roots(poly, ysym) if r.is_real and lo <= r <= hi]
        yexpr = sympy.nsimplify(cands[0]) if len(cands) == 1 else sympy.CRootOf(poly, idx)
    else:
        yexpr = sympy.CRootOf(poly, idx)
    a, b = poly.refine_root(lo, hi, eps=sympy.Rational(1, 10**32))
    a, b = sympy.Rational(a), sympy.Rational(b)
    return RegionBoundary(
        polynomial=poly,
        y=yexpr,
        epsilon=-sympy.log(yexpr),
        y_interval=(a, b),
        epsilon_interval=(-sympy.log(b), -sympy.log(a)),
        epsilon_float=float(-sympy.log(yexpr).evalf(30)),
    )


def pf_optimality_region(n: int, k: int) -> PFOptimalityRegion:
    """Exact set of epsilon where permute-and-flip attains the lattice-LP optimum.

    Method (parametric LP in ``y = exp(-epsilon)``, exact).  PF is primal feasible for
    every epsilon, has every variable positive and makes exactly the "step" rows tight
    for ``0 < y < 1`` (apart from ``degenerate_points``).  By complementary slackness PF is
    optimal iff some dual point with zero reduced costs is supported on the tight rows;
    that linear system is triangular with the unique solution ``(mu(y), lam(y))``, whose
    entries are polynomials in ``y`` with rational coefficients (``_pf_dual_polys``).  So
    PF is optimal iff ``lam_i(y) >= 0`` for all i.  The region is cut out by the real
    roots in ``(0, 1)`` of the irreducible factors of the ``lam_i``; each root is isolated
    in exact rationals (sympy), the sign pattern is evaluated exactly at rational points
    between roots and at the roots themselves (exact divisibility, else sign by interval
    refinement).  Strong duality ``sum_g mu_g(y) = PF's objective(y)`` holds identically
    (tested as a polynomial identity).

    Parameters
    ----------
    n : int
        Number of outputs, ``n >= 2``.
    k : int
        Grid depth, ``k >= 1``.  (Independent of the sensitivity.)

    Returns
    -------
    PFOptimalityRegion

    Raises
    ------
    ValueError
        Bad ``n`` or ``k``; lattices beyond ``MAX_EXACT_VARIABLES`` variables.

    References
    ----------
    McKenna & Sheldon (2020), section 5 and ``linear-program.ipynb`` (threshold
    ``epsilon >= ln((3 + sqrt 5)/2)``); MATH.md section 4 (the section-5 equations: PF
    makes the non-maximiser privacy constraints tight).
    """
    func = "pf_optimality_region"
    n, k = _check_size_args(func, n, k)
    _guard(func, n, k, "exact")
    lat = _lattice(n, k)
    lams = _multipliers(n, k)
    # degenerate points: PF's "top" rows tight somewhere in (0, 1)
    pf = _pf_polys(lat)
    ypoly = flint.fmpq_poly([0, 1])
    slacks = [pf[s] - ypoly * pf[t] for t, s, kind in lat.rows if kind == "top"]
    degenerate = []
    for f in _irreducible_factors(slacks):
        for lo, hi, idx in _roots_in_unit(f):
            degenerate.append(_boundary(f, lo, hi, idx).y)
    # candidate boundary points
    cands = []  # (lo, hi, f, idx)
    for f in _irreducible_factors(lams):
        for lo, hi, idx in _roots_in_unit(f):
            cands.append((lo, hi, f, idx))
    # make isolating intervals disjoint, then sort
    cands.sort(key=lambda c: c[0])
    changed = True
    while changed:
        changed = False
        for i in range(len(cands) - 1):
            lo1, hi1, f1, i1 = cands[i]
            lo2, hi2, f2, i2 = cands[i + 1]
            if hi1 >= lo2:
                p1 = sympy.Poly([int(c) for c in reversed(f1.coeffs())], sympy.Symbol("y"))
                p2 = sympy.Poly([int(c) for c in reversed(f2.coeffs())], sympy.Symbol("y"))
                a1, b1 = p1.refine_root(lo1, hi1, eps=(hi1 - lo1) / 4 or sympy.Rational(1, 10**40))
                a2, b2 = p2.refine_root(lo2, hi2, eps=(hi2 - lo2) / 4 or sympy.Rational(1, 10**40))
                cands[i] = (sympy.Rational(a1), sympy.Rational(b1), f1, i1)
                cands[i + 1] = (sympy.Rational(a2), sympy.Rational(b2), f2, i2)
                changed = True
        cands.sort(key=lambda c: c[0])
    # sample points: 0 < s_0 < root_1 < s_1 < ... < root_m < s_m < 1
    edges = [sympy.Integer(0)] + [x for c in cands for x in (c[0], c[1])] + [sympy.Integer(1)]
    samples = []
    for i in range(len(cands) + 1):
        a, b = edges[2 * i], edges[2 * i + 1]
        samples.append((a + b) / 2)
    sample_ok = [_feasible_rational(lams, flint.fmpq(int(s.p), int(s.q))) for s in samples]
    root_ok = [_feasible_at_root(lams, c[2], c[0], c[1]) for c in cands]
    # assemble closed intervals in y; piece 2i = open gap i, piece 2i+1 = root i
    pieces = []
    for i in range(len(cands) + 1):
        pieces.append(("gap", i, sample_ok[i]))
        if i < len(cands):
            pieces.append(("root", i, root_ok[i]))
    intervals = []
    cur = None
    for kind, i, ok in pieces:
        if ok and cur is None:
            cur = [(kind, i), (kind, i)]
        elif ok:
            cur[1] = (kind, i)
        elif cur is not None:
            intervals.append(cur)
            cur = None
    if cur is not None:
        intervals.append(cur)
    bounds: dict[int, RegionBoundary] = {}

    def endpoint(piece, side):
        kind, i = piece
        if kind == "gap":  # interval reaches the end of a gap: open end of (0,1) or a root
            j = i - 1 if side == "lo" else i
            if j < 0:
                return sympy.Integer(0)
            if j >= len(cands):
                return sympy.Integer(1)
            raise AssertionError("gap piece bounded by an infeasible root")
        if i not in bounds:
            lo, hi, f, idx = cands[i]
            bounds[i] = _boundary(f, lo, hi, idx)
        return bounds[i].y

    y_int, e_int = [], []
    for lo_piece, hi_piece in intervals:
        ylo, yhi = endpoint(lo_piece, "lo"), endpoint(hi_piece, "hi")
        y_int.append((ylo, yhi))
        e_lo = sympy.Integer(0) if yhi == 1 else -sympy.log(yhi)
        e_hi = sympy.oo if ylo == 0 else -sympy.log(ylo)
        e_int.append((e_lo, e_hi))
    e_int.reverse()
    return PFOptimalityRegion(
        n=n,
        k=k,
        y_intervals=tuple(y_int),
        epsilon_intervals=tuple(e_int),
        boundaries=tuple(bounds[i] for i in sorted(bounds)),
        degenerate_points=tuple(degenerate),
        certificate_degrees=max((p.degree() for p in lams), default=0),
        n_multipliers=len(lams),
    )
