"""The float route of the lattice LP: scipy's HiGHS on the rescaled LP, polishing, residuals.

The LP is rescaled so that PF's probability is ``v = 1`` (coefficients are O(1)); the
residual of the returned solution is measured exactly against the constraints. See
:func:`exactdp.optimality.program.lattice_lp`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .lattice import Lattice, lattice_pf_float

# ---------------------------------------------------------------------------------------
# float LP
# ---------------------------------------------------------------------------------------


#: HiGHS primal / dual feasibility tolerance for the rescaled program (O(1) coefficients).
HIGHS_TOLERANCE = 1e-10
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


def _pf_for_scaling(func: str, lat: Lattice, eps: float, epsilon: Any) -> np.ndarray:
    pf = lattice_pf_float(lat, eps)
    if not np.all(np.isfinite(pf)) or float(np.min(pf)) < _TINY:
        raise ValueError(
            f"{func}: epsilon={epsilon!r} is too large for method='float' at k={lat.k}: PF's "
            f"probability of a gap-{lat.k} output (about exp(-{lat.k}*epsilon)) is below "
            f"float64's range (needs k*epsilon below about 700). Use method='exact' with a "
            "rational exp(epsilon), e.g. epsilon=sympy.log(10**400)."
        )
    return pf


def solve_float(func: str, lat: Lattice, eps: float, epsilon: Any) -> _FloatSolve:
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
