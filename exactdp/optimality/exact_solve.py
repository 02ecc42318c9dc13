"""The exact route of the lattice LP: crossover from a float basis, rational checks, certificates.

A basis (from HiGHS, or PF's known one) is solved in exact rationals and checked for primal and
dual feasibility (:class:`DualCertificate`); sympy's simplex is the fallback for small LPs.
See :func:`exactdp.optimality.program.lattice_lp`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import numpy as np
import sympy

from .float_solve import solve_float
from .lattice import Lattice, build_lattice, lattice_neighbours, lattice_pf_polys, pf_dual_polys

# ---------------------------------------------------------------------------------------
# exact crossover
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DualCertificate:
    """An exact optimality certificate for the lattice LP (rows scaled by ``x = e^-eps``).

    ``x = exp(-epsilon/N)`` with the lattice's ``N = 1`` (steps of ``2*Delta``, ``c = 2``).
    Dual of ``min c.P  s.t.  A_eq P = 1, x P(target) - P(source) <= 0, P >= 0`` is
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
        polynomials ``pf_dual_polys`` at the rational ``x``; used whenever PF is optimal),
        ``"highs-crossover"`` or ``"sympy-simplex"``.
    """

    mu: tuple
    lam: tuple
    dual_objective: sympy.Rational
    checks: Mapping[str, bool]
    route: str

    def verify(self) -> bool:
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


def exact_check(lat: Lattice, x: flint.fmpq, P: list, mu: list, lam: list) -> dict[str, bool]:
    """Exact primal feasibility, dual feasibility and strong duality of ``(P, mu, lam)``
    on the lattice at ``x``, as a dict of bools.
    """
    zero = flint.fmpq(0)
    primal = all(v >= 0 for v in P)
    sums = [zero] * len(lat.vectors)
    for j, i in enumerate(lat.var_vec):
        sums[i] += lat.var_mult[j] * P[j]
    primal = primal and all(s == 1 for s in sums)
    primal = primal and all(x * P[t] - P[s] <= 0 for t, s, _ in lat.rows)
    red = _reduced_costs(lat, x, mu, lam)
    dual = all(v >= 0 for v in lam) and all(r >= 0 for r in red)
    obj = sum((c * v for c, v in zip(lat.cost, P, strict=True)), zero)
    return {
        "primal_feasible": bool(primal),
        "dual_feasible": bool(dual),
        "strong_duality": bool(obj == sum(mu, zero)),
    }


def _reduced_costs(lat: Lattice, x, mu: list, lam: list) -> list:
    red = [lat.cost[j] - lat.var_mult[j] * mu[i] for j, i in enumerate(lat.var_vec)]
    for r, (t, s, _) in enumerate(lat.rows):
        red[t] += x * lam[r]
        red[s] -= lam[r]
    return red


def _crossover(lat: Lattice, x: flint.fmpq, res, tol: float):
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
            row[pos[t]] += x
        if s in pos:
            row[pos[s]] -= 1
        rows.append(row)
        rhs.append(flint.fmpq(0))
    sol = _rref_solve(rows, rhs, len(support))
    if sol is None:
        return None
    P = [flint.fmpq(0)] * nv
    for j, v in zip(support, sol, strict=True):
        P[j] = v
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
        for j, coef in ((t, x), (s, flint.fmpq(-1))):
            if j in zpos:
                # stationarity: m mu - x lam_(rows into j) + lam_(rows out of j) = c
                drows[zpos[j]][col[r]] -= coef
    dsol = _rref_solve(drows, drhs, nmu + len(act))
    if dsol is None:
        return None
    mu = dsol[:nmu]
    lam = [flint.fmpq(0)] * nr
    for r in act:
        lam[r] = dsol[col[r]]
    checks = exact_check(lat, x, P, mu, lam)
    if not all(checks.values()):
        return None
    return P, mu, lam, checks


def pf_certificate(lat: Lattice, x: flint.fmpq):
    """PF's own exact certificate: PF's probabilities and the multipliers ``_pf_dual_polys``.

    Evaluated at the rational ``x``; it verifies exactly iff PF is optimal there (every
    ``lam_i(x) >= 0``, see ``pf_optimality_region``), which covers every large epsilon
    without any floating-point step.  For ``constraints="full"`` the McKenna-Sheldon
    multipliers are placed on the same (target, source) pairs of the full row set (more
    primal rows only enlarge the dual).  None if it does not verify.
    """
    base = build_lattice(lat.n, lat.k)
    mu_p, lam_p = pf_dual_polys(lat.n, lat.k)
    where = {(t, s): r for r, (t, s, _) in enumerate(lat.rows)}
    lam = [flint.fmpq(0)] * len(lat.rows)
    for r, poly in lam_p.items():
        t, s, _ = base.rows[r]
        if (t, s) not in where:
            return None
        lam[where[(t, s)]] = poly(x)
    P = [p(x) for p in lattice_pf_polys(base)]
    mu = [p(x) for p in mu_p]
    checks = exact_check(lat, x, P, mu, lam)
    return (P, mu, lam, checks) if all(checks.values()) else None


def crossover_from_highs(func: str, lat: Lattice, x: flint.fmpq, e_eps, epsilon: Any):
    """HiGHS on the rescaled program, then ``_crossover`` at a few tolerances; or None."""
    try:
        eps_f = math.log(int(e_eps.p)) - math.log(int(e_eps.q))
        res = solve_float(func, lat, eps_f, epsilon).res
    except ValueError:  # PF underflows float64: no float guess
        return None
    if res.status != 0:
        return None
    for tol in (1e-9, 1e-7, 1e-11, 1e-5):
        got = _crossover(lat, x, res, tol)
        if got is not None:
            return got
    return None


def sympy_simplex(lat: Lattice, x: flint.fmpq):
    """Fallback: exact primal and dual by sympy's rational simplex (slow, small sizes)."""
    from sympy.solvers.simplex import linprog as sym_linprog

    xq = sympy.Rational(int(x.p), int(x.q))
    nv, nr, nm = len(lat.var_vec), len(lat.rows), len(lat.vectors)
    a_eq = sympy.zeros(nm, nv)
    for j, i in enumerate(lat.var_vec):
        a_eq[i, j] = lat.var_mult[j]
    a_ub = sympy.zeros(nr, nv)
    for r, (t, s, _) in enumerate(lat.rows):
        a_ub[r, t] += xq
        a_ub[r, s] -= 1
    cost = sympy.Matrix(lat.cost)
    _, xs = sym_linprog(cost, a_ub, sympy.zeros(nr, 1), a_eq, sympy.ones(nm, 1))
    # dual: max 1.mu s.t. A_eq^T mu - A_ub^T lam <= c, lam >= 0, mu free (mu = mu+ - mu-)
    big_a = a_eq.T.row_join(-a_eq.T).row_join(-a_ub.T)
    obj = -sympy.Matrix([1] * nm + [-1] * nm + [0] * nr)
    _, zs = sym_linprog(obj, big_a, cost)
    P = [flint.fmpq(int(sympy.Rational(v).p), int(sympy.Rational(v).q)) for v in xs]
    zq = [flint.fmpq(int(sympy.Rational(v).p), int(sympy.Rational(v).q)) for v in zs]
    mu = [zq[i] - zq[nm + i] for i in range(nm)]
    lam = zq[2 * nm :]
    return P, mu, lam, exact_check(lat, x, P, mu, lam)


# ---------------------------------------------------------------------------------------
# full eps-DP check of a lattice solution (all lattice neighbours, both directions)
# ---------------------------------------------------------------------------------------


def lattice_dp_violation(lat: Lattice, x, e_eps):
    """``max Pr[M(q') = r] - e^eps Pr[M(q) = r]`` over all lattice neighbours ``q ~ q'``.

    On the lattice (steps of 2D), up to shifts the neighbours of q are exactly
    ``q + 2D 1_S`` for a non-empty proper subset S; both directions are checked.
    """
    worst = None
    n = lat.n
    for g in lat.vectors:
        for h, ch in lattice_neighbours(g, lat.k):
            for r in range(n):
                a = x[lat.var_index[(g, g[r])]]
                b = x[lat.var_index[(ch, h[r])]]
                for d in (b - e_eps * a, a - e_eps * b):
                    if worst is None or d > worst:
                        worst = d
    return worst
