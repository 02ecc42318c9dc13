r"""Theorem 5.1, restated as it is true: where permute-and-flip is the lattice-LP optimum.

Statement
---------
Let :math:`L_{n,k}` be the McKenna-Sheldon linear program on the lattice
:math:`\{0, -2\Delta, \dots, -2k\Delta\}^n`: variables :math:`P(q, r)` for canonical
vectors (sorted, maximum 0; ties merged), the objective the expected error summed over
every vector of the grid, rows :math:`\sum_r P(q, r) = 1` and the raise rows
:math:`e^{-\varepsilon} P(q + 2\Delta e_r, r) \le P(q, r)` where the neighbour is in the grid
(docs/lp.md). With :math:`y = e^{-\varepsilon}` there is an :math:`\varepsilon^*(n, k)` such
that

* PF is an optimal solution of :math:`L_{n,k}` for every :math:`\varepsilon \ge
  \varepsilon^*` (certified for :math:`\varepsilon \ge -\ln y_{lo}`, where
  :math:`y_{lo}` is the lower end of a rational isolating interval of width
  :math:`< 10^{-30}` around :math:`e^{-\varepsilon^*}`); also for the program with the full
  DP constraints between lattice neighbours (its rows contain the raise rows and PF is
  :math:`\varepsilon`-DP);
* PF is strictly sub-optimal at a stated rational point :math:`y_- = e^{-\varepsilon_-}`
  with :math:`\varepsilon_- < \varepsilon^*` (an exact certificate, below), for the raise
  rows; for the full DP rows and for the *regular class* (symmetric, shift-invariant,
  monotone :math:`\varepsilon`-DP mechanisms on the lattice) on the lattices where the exact
  LP was run: there the exact optimum of the full program is itself monotone, so it is a
  regular mechanism that beats PF. Above :math:`\varepsilon^*` PF is optimal in both,
  since it belongs to them and is optimal in the larger raise-row program.

The notes' Theorem 5.1 ("PF is optimal among regular eps-DP mechanisms") omits the
condition on epsilon; for n = 2 the region is every epsilon.

Human proof (own words, after the notes' section 5.2)
-----------------------------------------------------
*Primal.* PF is feasible: its probabilities sum to 1, it makes every "step" raise row
tight (the section-5 identity :math:`P_r(q) = y^{g_r} P_r(q^{(r)})`, one lattice step at a
time), and the "top" rows (raising a maximiser) hold because PF is
:math:`\varepsilon`-DP. *Dual.* Give the top rows multiplier 0 and ask every reduced cost to
vanish. Processing vectors by decreasing number of maximisers and gaps from the deepest
down, each unknown is fixed by one equation:
:math:`\mu_g = y\,\lambda_{(g[0\to1],1)}/m_0(g)` (tied maximum; :math:`\mu_g = 0` for a unique
maximum) and :math:`\lambda_{(g,v)} = c_{(g,v)} - m_{(g,v)}\mu_g + y\,\lambda_{(g[v\to v+1], v+1)}`.
The solution is polynomial in y. *Weak duality.* For any feasible P,
:math:`c\cdot P = \sum_j r_j P_j + \sum_g \mu_g + \sum_i \lambda_i (-\text{row}_i\cdot P) \ge
\sum_g \mu_g` whenever every :math:`r_j \ge 0` and :math:`\lambda_i \ge 0`. Here
:math:`r \equiv 0` and :math:`\sum_g \mu_g \equiv c\cdot P_{PF}` identically, so PF is optimal
wherever all :math:`\lambda_i(y) \ge 0`. *Below.* At a rational :math:`y_-` where PF is
strictly positive, the top rows strictly slack, and some :math:`\lambda_i(y_-) < 0`,
complementary slackness forces any optimal dual to be the unique solution above, which is
infeasible, so PF is not optimal there.

Method of the check
-------------------
Independent of :mod:`exactdp.optimality`'s internals: this module builds the lattice, the
rows and the multipliers itself, takes PF's probabilities from
:func:`exactdp.mechanisms.optimal.pf_polynomials` (PF's coins) and uses
:func:`exactdp.pf_optimality_region` only to locate the boundary.
Then, in exact rational polynomial arithmetic (python-flint):
every reduced cost is the zero polynomial; :math:`\sum \mu \equiv c \cdot P_{PF}`; PF's rows
hold (equalities and step rows identically; top rows and :math:`P_j \ge 0` by a sign
certificate on (0, 1)); each :math:`\lambda_i > 0` on :math:`(0, y_{lo}]` (Descartes' rule after
the substitution :math:`y = y_{lo}/(1+s)`, falling back to Sturm counting); and at
:math:`y_-` the exact values show the sub-optimality certificate. Optionally the library's
exact LP (:func:`exactdp.lattice_lp`, HiGHS + rational crossover) confirms
:math:`PF/OPT > 1` at :math:`y_-` for the raise and the full rows.

Scope
-----
For every epsilon at once (polynomials in y); exhaustive over the stored lattices
n = 2..6 with k = 1..8 and n = 7 with k = 1..6 (``exactdp/proofs/certificates/thm_5_1.json``,
computed by ``python -m exactdp.proofs.thm_5_1_pf_lp_optimal``). The default run recomputes
n <= 4, k <= 4 from scratch and re-verifies every stored certificate of at most 500 LP
variables; ``--runslow`` re-verifies all of them. Full DP rows: the optimal side follows
from the same multipliers once PF is feasible there (checked exactly, row by row, on the
lattices of at most 20 vectors; in general it is the theorem that PF is eps-DP); the
sub-optimal side is the library's exact LP at ``y_below`` (HiGHS + rational crossover,
verified certificate), run for the lattices of at most 1000 variables, so the exact
threshold of the full program and of the regular class is only bracketed: in
``(eps_below, eps*]`` with ``eps* - eps_below`` about 0.01. Regular class: sub-optimality at
``y_below`` is certified where the exact full LP ran (its optimum has no monotonicity or DP
violation, checked exactly by :func:`monotone_violations`); the LP with monotonicity rows
was not solved as such. The pattern
:math:`y + y^2 + \dots + y^k = 1` for the boundary at n >= 4 is observed on every stored
lattice (n = 4..7), not proved.
"""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations_with_replacement

import flint
import sympy

from exactdp.mechanisms.optimal import pf_polynomials
from exactdp.optimality import lattice_lp, pf_optimality_region
from exactdp.proofs.result import ProofResult
from exactdp.proofs.unit_sign import nonnegative_on_unit, positive_on

NAME = "thm_5_1_pf_lp_optimal"
STATEMENT = "Thm 5.1: PF is the lattice-LP optimum iff eps >= eps*(n, k)"

_Y = flint.fmpq_poly([0, 1])


@dataclass(frozen=True)
class Lattice:
    """The McKenna-Sheldon lattice program's combinatorics (built here, independently).

    Attributes
    ----------
    n, k : int
    vectors : tuple of tuple of int
        Canonical gap vectors ``(0, g_2, ..., g_n)`` ascending, ``g_i <= k``.
    var : tuple of (int, int)
        Variable -> (vector index, gap value v); one variable per distinct gap.
    mult : tuple of int
        Variable -> number of outputs of gap v in its vector.
    cost : tuple of int
        Variable -> weight * mult * v (error in lattice units, summed over the grid).
    step : dict
        Source variable (v > 0) -> target variable (one output of gap v lowered to v - 1).
    top : dict
        Source variable (v = 0, max gap <= k - 1) -> target (that output the unique max).
    """

    n: int
    k: int
    vectors: tuple
    var: tuple
    mult: tuple
    cost: tuple
    step: dict
    top: dict


def build_lattice(n: int, k: int) -> Lattice:
    """Build the lattice program of docs/lp.md for (n, k)."""
    vectors = tuple((0, *rest) for rest in combinations_with_replacement(range(k + 1), n - 1))
    index: dict = {}
    var: list[tuple[int, int]] = []
    mult: list[int] = []
    cost: list[int] = []
    for i, g in enumerate(vectors):
        perms = math.factorial(n)
        for v in set(g):
            perms //= math.factorial(g.count(v))
        weight = perms * (k - g[-1] + 1)  # permutations x in-grid shifts
        for v in sorted(set(g)):
            index[(g, v)] = len(var)
            var.append((i, v))
            mult.append(g.count(v))
            cost.append(weight * g.count(v) * v)
    step, top = {}, {}
    for j, (i, v) in enumerate(var):
        h = list(vectors[i])
        if v > 0:
            h[h.index(v)] = v - 1
            step[j] = index[(tuple(sorted(h)), v - 1)]
        elif vectors[i][-1] <= k - 1:
            h.remove(0)
            top[j] = index[((0, *(s + 1 for s in h)), 0)]
    return Lattice(n, k, vectors, tuple(var), tuple(mult), tuple(cost), step, top)


def pf_variable_polys(lat: Lattice) -> list[flint.fmpq_poly]:
    """PF's probability of each variable's outputs (each one), a polynomial in y."""
    per_vec = []
    for g in lat.vectors:
        polys = pf_polynomials(list(g))
        per_vec.append({v: _to_flint(polys[g.index(v)]) for v in set(g)})
    return [per_vec[i][v] for i, v in lat.var]


def _to_flint(poly: sympy.Poly) -> flint.fmpq_poly:
    return flint.fmpq_poly([flint.fmpq(int(c.p), int(c.q)) for c in reversed(poly.all_coeffs())])


def dual_multipliers(lat: Lattice) -> tuple[list, dict]:
    """The unique dual point with zero reduced costs supported on the step rows.

    Returns ``(mu, lam)``: ``mu[i]`` per vector, ``lam[j]`` per step row (keyed by its source
    variable j). Solved by the triangular recursion of the module docstring.
    """
    index = {(lat.vectors[i], v): j for j, (i, v) in enumerate(lat.var)}
    mu: dict = {}
    lam: dict = {}

    def raise_one(g, v):
        h = list(g)
        h[h.index(v)] = v + 1
        return tuple(sorted(h))

    def get_lam(j):
        if j not in lam:
            i, v = lat.var[j]
            g = lat.vectors[i]
            val = flint.fmpq_poly([lat.cost[j]]) - lat.mult[j] * get_mu(i)
            if v + 1 <= lat.k:
                val += _Y * get_lam(index[(raise_one(g, v), v + 1)])
            lam[j] = val
        return lam[j]

    def get_mu(i):
        if i not in mu:
            g = lat.vectors[i]
            m0 = g.count(0)
            mu[i] = (_Y * get_lam(index[(raise_one(g, 0), 1)]) / m0 if m0 > 1
                     else flint.fmpq_poly([]))
        return mu[i]

    order = sorted(range(len(lat.vectors)), key=lambda i: -lat.vectors[i].count(0))
    for i in reversed(order):  # fewest maximisers first keeps the recursion shallow
        get_mu(i)
    for j in lat.step:
        get_lam(j)
    return [mu[i] for i in range(len(lat.vectors))], lam


def _digest(polys) -> str:
    h = hashlib.sha256()
    for p in polys:
        h.update(repr([str(c) for c in p.coeffs()]).encode())
    return h.hexdigest()[:16]


def _fr(x) -> Fraction:
    x = sympy.Rational(x)
    return Fraction(int(x.p), int(x.q))


def compute_certificate(n: int, k: int, exact_lp: bool = True, full: bool = False) -> dict:
    """Locate eps*(n, k) (library) and certify both sides with this module's own checks.

    Returns a JSON-ready dict: the boundary polynomial and rational isolating interval,
    ``y_lo`` (PF optimal for every ``y <= y_lo``), ``y_below`` (sub-optimal there), the
    sizes, a digest of the multipliers and (``exact_lp``) the library's exact LP ratios at
    ``y_below`` for the raise and the full rows.
    """
    start = time.perf_counter()
    region = pf_optimality_region(n, k)
    cert: dict = {"n": n, "k": k}
    if not region.boundaries:
        if region.epsilon_intervals != ((0, sympy.oo),):
            raise AssertionError(f"unexpected region {region.epsilon_intervals}")
        cert.update(boundary=None, y_lo="1", y_below=None)
    else:
        if len(region.boundaries) != 1 or region.epsilon_intervals[0][1] != sympy.oo:
            raise AssertionError(f"region is not [eps*, oo): {region.epsilon_intervals}")
        b = region.boundaries[0]
        lo, hi = (_fr(v) for v in b.x_interval)
        below = Fraction(1) / Fraction(math.exp(b.epsilon_float - 0.01)).limit_denominator(1000)
        if not hi < below < 1:
            raise AssertionError("no rational point below eps*")
        cert.update(
            boundary={
                "polynomial": [int(c) for c in b.polynomial.all_coeffs()],
                "y_interval": [str(lo), str(hi)],
                "epsilon": b.epsilon_float,
            },
            y_lo=str(lo),
            y_below=str(below),
            epsilon_below=-math.log(below),
        )
    result = verify_certificate(cert, full=full)
    if not result["holds"]:
        raise AssertionError(f"certificate for n={n}, k={k} fails: {result}")
    cert.update(variables=result["variables"], step_rows=result["step_rows"],
                multipliers_digest=result["digest"])
    if exact_lp and cert["y_below"] is not None:
        e_eps = sympy.Rational(1) / sympy.Rational(cert["y_below"])
        for rows in ("raise", "full"):
            res = lattice_lp(n, k, sympy.log(e_eps), method="exact", constraints=rows)
            cert[f"exact_lp_{rows}"] = {"pf_ratio": str(res.pf_ratio),
                                        "verified": bool(res.verify())}
            if rows == "full":
                cert["exact_lp_full"]["regular"] = bool(
                    sympy.Rational(res.full_dp_violation) <= 0
                    and monotone_violations(lat_of(n, k), res.solution) == 0)
    cert["seconds"] = round(time.perf_counter() - start, 2)
    return cert


def lat_of(n: int, k: int) -> Lattice:
    """:func:`build_lattice` (a separate name keeps call sites readable)."""
    return build_lattice(n, k)


def monotone_violations(lat: Lattice, solution) -> int:
    """Number of monotonicity rows an LP solution breaks on the lattice (exact).

    ``solution`` maps canonical score vectors (descending, max 0, lattice step 2) to
    per-output probabilities (``LatticeLPResult.solution``). For every vector, output r and
    elementary move inside the grid -- raise r by one step, or lower another output by one
    step, then shift back to maximum 0 -- r's probability must not fall. A solution with no
    violation and no full-DP violation is a regular (symmetric, shift-invariant, monotone)
    eps-DP mechanism on the lattice.
    """
    table = {}
    for q, probs in solution.items():
        gaps = [int(-v) // 2 for v in q]
        table[tuple(sorted(gaps))] = dict(zip(gaps, probs, strict=True))
    bad = 0
    for g, probs in table.items():
        for r in range(lat.n):
            for s in range(lat.n):
                h = list(g)
                h[s] += -1 if s == r else 1
                low = min(h)
                h = [v - low for v in h]
                if max(h) <= lat.k and table[tuple(sorted(h))][h[r]] < probs[g[r]]:
                    bad += 1
    return bad


def full_rows(lat: Lattice):
    """Every lattice neighbour pair, every output, both directions: ``(source, target)``.

    Up to a shift, the neighbours of canonical g raise a non-empty proper subset S of the
    outputs by one step (``q' = q + 2 Delta 1_S``); the row reads
    ``y P(target) - P(source) <= 0``.
    """
    index = {(lat.vectors[i], v): j for j, (i, v) in enumerate(lat.var)}
    n = lat.n
    for g in lat.vectors:
        for mask in range(1, 2**n - 1):
            raised = [v - 1 if mask >> i & 1 else v for i, v in enumerate(g)]
            low = min(raised)
            h = [v - low for v in raised]
            if max(h) > lat.k:
                continue
            ch = tuple(sorted(h))
            for r in range(n):
                a, b = index[(g, g[r])], index[(ch, h[r])]
                yield a, b
                yield b, a


def pf_feasible_full(lat: Lattice, pf: list) -> bool:
    """PF satisfies every full-DP row on (0, 1) (exact signs), so it is feasible there."""
    seen = set()
    for s, t in full_rows(lat):
        if (s, t) in seen or s == t:
            continue
        seen.add((s, t))
        if not nonnegative_on_unit(pf[s] - _Y * pf[t]):
            return False
    return True


def verify_certificate(cert: dict, full: bool = False) -> dict:
    """Re-check one stored (n, k) certificate from scratch with this module's own code.

    Returns a dict with ``holds`` and the checks: ``reduced_costs_zero``,
    ``strong_duality``, ``pf_feasible``, ``multipliers_nonnegative`` (on ``(0, y_lo]``),
    ``suboptimal_below`` (some multiplier < 0 at ``y_below`` while PF > 0 and every top row
    is strictly slack there), ``boundary_root`` (the stored polynomial has a root in the
    stored interval and divides some multiplier), and the digest of the multipliers.
    """
    n, k = cert["n"], cert["k"]
    lat = build_lattice(n, k)
    pf = pf_variable_polys(lat)
    mu, lam = dual_multipliers(lat)
    checks: dict = {}
    # reduced costs, from the explicit row lists
    incoming: dict = {}
    for s, t in lat.step.items():
        incoming.setdefault(t, []).append(s)
    checks["reduced_costs_zero"] = all(
        (flint.fmpq_poly([lat.cost[j]]) - lat.mult[j] * mu[i]
         + sum((_Y * lam[s] for s in incoming.get(j, [])), flint.fmpq_poly([]))
         - lam.get(j, flint.fmpq_poly([]))).is_zero()
        for j, (i, _) in enumerate(lat.var)
    )
    objective = sum((lat.cost[j] * pf[j] for j in range(len(pf))), flint.fmpq_poly([]))
    checks["strong_duality"] = (sum(mu, flint.fmpq_poly([])) - objective).is_zero()
    sums: dict = {}
    for j, (i, _) in enumerate(lat.var):
        sums[i] = sums.get(i, flint.fmpq_poly([])) + lat.mult[j] * pf[j]
    checks["pf_feasible"] = (
        all((s - 1).is_zero() for s in sums.values())
        and all((_Y * pf[t] - pf[s]).is_zero() for s, t in lat.step.items())
        and all(nonnegative_on_unit(pf[s] - _Y * pf[t]) for s, t in lat.top.items())
        and all(nonnegative_on_unit(p) for p in pf)
    )
    if full:
        checks["pf_feasible_full_rows"] = pf_feasible_full(lat, pf)
    y_lo = Fraction(cert["y_lo"])
    if y_lo == 1:  # PF optimal for every epsilon: lam >= 0 on all of (0, 1)
        checks["multipliers_nonnegative"] = all(nonnegative_on_unit(p) for p in lam.values())
    else:
        checks["multipliers_nonnegative"] = all(positive_on(p, y_lo) or p.is_zero()
                                                for p in lam.values())
    if cert["y_below"] is not None:
        yb = Fraction(cert["y_below"])
        y = flint.fmpq(yb.numerator, yb.denominator)
        checks["suboptimal_below"] = (
            all(p(y) > 0 for p in pf)
            and all(pf[s](y) - y * pf[t](y) > 0 for s, t in lat.top.items())
            and any(p(y) < 0 for p in lam.values())
        )
        poly = flint.fmpz_poly(list(reversed(cert["boundary"]["polynomial"])))
        lo, hi = (Fraction(v) for v in cert["boundary"]["y_interval"])
        flo, fhi = (poly(flint.fmpq(v.numerator, v.denominator)) for v in (lo, hi))
        checks["boundary_root"] = bool(
            flo * fhi < 0 and hi - lo < Fraction(1, 10**30) and lo < yb
            and any(_divides(poly, p) for p in lam.values())
        )
    digest = _digest(lam[j] for j in sorted(lam))
    if "multipliers_digest" in cert:
        checks["digest_matches"] = digest == cert["multipliers_digest"]
    return {"holds": all(checks.values()), "variables": len(lat.var),
            "step_rows": len(lat.step), "digest": digest, **checks}


def _divides(f: flint.fmpz_poly, p: flint.fmpq_poly) -> bool:
    if p.is_zero():
        return False
    num = flint.fmpz_poly(p.numer().coeffs())
    return (num % f).is_zero()


CERTIFICATES = "thm_5_1.json"


def stored_certificates() -> list[dict]:
    """The certificates shipped in ``exactdp/proofs/certificates/thm_5_1.json``."""
    import importlib.resources
    import json

    text = importlib.resources.files("exactdp.proofs").joinpath(
        "certificates").joinpath(CERTIFICATES).read_text()
    return json.loads(text)


def stored_scope(stored: dict) -> str:
    """``"n = 2..6 with k = 1..8, n = 7 with k = 1..6"`` for the stored (n, k) pairs."""
    by_k: dict = {}
    for n, k in stored:
        by_k.setdefault(n, []).append(k)
    groups: list = []
    for n in sorted(by_k):
        ks = sorted(by_k[n])
        rng = f"k = {ks[0]}..{ks[-1]}" if ks == list(range(ks[0], ks[-1] + 1)) else f"k in {ks}"
        if groups and groups[-1][1] == rng and groups[-1][0][-1] == n - 1:
            groups[-1][0].append(n)
        else:
            groups.append(([n], rng))
    return ", ".join(
        f"n = {ns[0]}..{ns[-1]} with {r}" if len(ns) > 1 else f"n = {ns[0]} with {r}"
        for ns, r in groups)


def verify(*, n_max: int = 4, k_max: int = 4, stored_max_variables: int | None = 500,
           executor=None) -> ProofResult:
    """Recompute (n <= n_max, k <= k_max) and re-verify the stored certificates.

    Parameters
    ----------
    n_max, k_max : int
        Recompute every (n, k) in range from scratch (region by the library, certificate by
        this module) and compare with the stored boundary.
    stored_max_variables : int or None
        Re-verify from scratch every stored certificate whose lattice has at most this many
        variables (None: all of them; n = 6, k = 8 has 5247).
    executor : ignored (present for the common ``verify`` signature).
    """
    start = time.perf_counter()
    stored = {(c["n"], c["k"]): c for c in stored_certificates()}
    certs: list[tuple[str, bool]] = []
    failures: list[tuple[int, int, str | dict]] = []  # (n, k, why)
    for n in range(2, n_max + 1):
        for k in range(1, k_max + 1):
            small = math.comb(n - 1 + k, k) <= 20  # PF's full-row feasibility where cheap
            fresh = compute_certificate(n, k, exact_lp=small, full=small)
            old = stored.get((n, k))
            same = old is not None and all(
                old.get(key) == fresh.get(key)
                for key in ("boundary", "multipliers_digest", "y_below", "exact_lp_full")
                if key in fresh)
            certs.append((f"recomputed n={n}, k={k}", same))
            if not same:
                failures.append((n, k, "recomputed certificate differs from the stored one"))
    for (n, k), cert in sorted(stored.items()):
        if stored_max_variables is not None and cert["variables"] > stored_max_variables:
            continue
        res = verify_certificate(cert)
        lp_ok = all(cert[key]["verified"] and Fraction(cert[key]["pf_ratio"]) > 1
                    and cert[key].get("regular", True)
                    for key in ("exact_lp_raise", "exact_lp_full") if key in cert)
        certs.append((f"stored n={n}, k={k}", res["holds"] and lp_ok))
        if not (res["holds"] and lp_ok):
            failures.append((n, k, res))
    checked = [c for c in certs if c[0].startswith("stored")]
    scope = (f"every epsilon; stored lattices {stored_scope(stored)}; "
             f"{len(checked)} stored certificates re-verified here"
             + ("" if stored_max_variables is None else
                f" (those with <= {stored_max_variables} LP variables)")
             + f"; recomputed n <= {n_max}, k <= {k_max}; raise rows (full rows: optimal "
             "side by the same multipliers, PF feasible checked where <= 20 vectors; "
             "sub-optimal side at one point by the exact LP, <= 1000 variables; regular class: "
             "that optimum is monotone)")
    return ProofResult(NAME, STATEMENT, not failures and bool(certs), scope, len(certs),
                       tuple(certs), time.perf_counter() - start, tuple(failures))


def main(argv=None) -> int:
    """Compute and store the certificates: ``python -m exactdp.proofs.thm_5_1_pf_lp_optimal``.

    Writes one JSON list (sorted by n, k) after every (n, k), so an interrupted run keeps
    what it finished. ``--exact-lp-max-vars`` limits the optional exact-LP cross-check.
    """
    import argparse
    import json
    import pathlib

    parser = argparse.ArgumentParser(prog="python -m exactdp.proofs.thm_5_1_pf_lp_optimal")
    parser.add_argument("--n-max", type=int, default=6)
    parser.add_argument("--k-max", type=int, default=8)
    parser.add_argument("--exact-lp-max-vars", type=int, default=1000)
    parser.add_argument("--out", default="exactdp/proofs/certificates/thm_5_1.json")
    args = parser.parse_args(argv)
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = {(c["n"], c["k"]): c for c in json.loads(out.read_text())} if out.exists() else {}
    for n in range(2, args.n_max + 1):
        for k in range(1, args.k_max + 1):
            if (n, k) in done:
                continue
            size = len(build_lattice(n, k).var)
            done[(n, k)] = compute_certificate(n, k, exact_lp=size <= args.exact_lp_max_vars)
            out.write_text(json.dumps([done[key] for key in sorted(done)], indent=1) + "\n")
            print(n, k, done[(n, k)].get("boundary") and done[(n, k)]["boundary"]["epsilon"],
                  done[(n, k)]["seconds"], flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
