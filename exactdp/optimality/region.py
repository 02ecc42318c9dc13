"""PF's optimality region: every epsilon at which permute-and-flip solves the lattice LP.

PF's dual multipliers are polynomials in ``x``; PF is optimal exactly where they are
nonnegative, a finite union of intervals whose endpoints are algebraic numbers decided exactly
(:func:`pf_optimality_region`).

References
----------
R. McKenna and D. Sheldon, "Permute-and-Flip", NeurIPS 2020, section 5.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import flint
import mpmath
import sympy

from ..exact.arb import flint_prec, mpf_to_arb, to_arb
from ..exact.signs import MAX_PREC, UndecidedSignError, compare, proved_rational
from ..numbers import safe_sympify
from ..result import Result
from .lattice import (
    build_lattice,
    check_size_args,
    guard_size,
    lattice_pf_polys,
    lp_parameter,
    pf_dual_polys,
)

# ---------------------------------------------------------------------------------------
# public: pf_optimality_region
# ---------------------------------------------------------------------------------------

#: The generator ``x = exp(-epsilon)`` of the lattice (``N = 1``), the boundary polynomials'
#: variable.
_X = sympy.Symbol("x")


@dataclass(frozen=True)
class RegionBoundary:
    """One endpoint of PF's optimality region.

    Attributes
    ----------
    polynomial : sympy.Poly
        Irreducible integer polynomial in ``x`` (``x = exp(-epsilon/N)`` with the lattice's
        ``N = 1``) with the endpoint as a root.
    x : sympy.Expr
        The endpoint in ``x``, exactly (``sympy.CRootOf``, or radicals for degree <= 2).
    epsilon : sympy.Expr
        ``-log(x)``, exactly.
    x_interval : tuple[sympy.Rational, sympy.Rational]
        Certified rational isolating interval of ``x`` (width below 1e-30).
    epsilon_interval : tuple[sympy.Expr, sympy.Expr]
        Certified ``(-log(x_hi), -log(x_lo))``.
    epsilon_float : float
        Nearest double of the boundary epsilon.
    """

    polynomial: sympy.Poly
    x: sympy.Expr
    epsilon: sympy.Expr
    x_interval: tuple
    epsilon_interval: tuple
    epsilon_float: float


@dataclass(frozen=True)
class PFOptimalityRegion(Result):
    """The set of epsilon at which PF attains the lattice-LP optimum, computed exactly.

    Attributes
    ----------
    n, k : int
        Lattice parameters.
    x_intervals : tuple of (lo, hi)
        Region in ``x = exp(-epsilon)`` (the lattice's ``N = 1``) as closed intervals inside
        ``(0, 1)``; ``lo = 0`` or ``hi = 1`` mean the open end of ``(0, 1)``.  Endpoints are
        exact sympy numbers.
    epsilon_intervals : tuple of (lo, hi)
        The same in epsilon (``hi = oo`` for ``x -> 0``).
    boundaries : tuple of RegionBoundary
        Every finite endpoint, with its polynomial and certified intervals.
    degenerate_points : tuple of sympy.Expr
        Values of ``x`` in (0, 1) where one of PF's slack ("top") rows becomes tight, so
        the dual certificate is not unique; there PF's optimality is decided separately
        (see ``degenerate_optimal``).  Empty in every case computed so far.
    certificate_degrees : int
        Largest degree of the multiplier polynomials ``lam(x)``.
    n_multipliers : int
        Number of multiplier polynomials (one per tight "step" row).

    Notes
    -----
    The result protocol (:class:`exactdp.result.Result`): ``value`` is :attr:`threshold`,
    the exact eps* at which the last interval ``[eps*, oo)`` of the region starts.
    """

    headline = "threshold"
    headline_label = "eps*"
    repr_fields = ("n", "k", "epsilon_intervals")

    n: int
    k: int
    x_intervals: tuple
    epsilon_intervals: tuple
    boundaries: tuple
    degenerate_points: tuple
    certificate_degrees: int
    n_multipliers: int
    certified: bool = True  # exact dual polynomials and exact real-root isolation
    caveat: str | None = None

    @property
    def threshold(self) -> sympy.Expr | None:
        """eps*: the exact left end of the region's unbounded interval ``[eps*, oo)`` (None
        if PF is not optimal for every large epsilon)."""
        for lo, hi in self.epsilon_intervals:
            if hi is sympy.oo:
                return lo
        return None

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
        expr = lp_parameter("PFOptimalityRegion.contains", "epsilon", epsilon)
        return _pf_optimal_at(self.n, self.k, expr)


def _sympy_poly(f: flint.fmpz_poly) -> sympy.Poly:
    """``f`` as a sympy polynomial in ``x``."""
    return sympy.Poly([int(c) for c in reversed(f.coeffs())], _X)


def _multipliers(n: int, k: int) -> list[flint.fmpq_poly]:
    _, lam = pf_dual_polys(n, k)
    return [lam[r] for r in sorted(lam)]


def _x_ball(epsilon: Any, prec: int) -> flint.arb:
    """A rigorous ball of ``exp(-epsilon)`` (a float epsilon by its exact binary value)."""
    if isinstance(epsilon, float):
        return (-mpf_to_arb(mpmath.mpf(epsilon))).exp()
    return to_arb(sympy.exp(-safe_sympify(epsilon)), prec)


def _pf_optimal_at(n: int, k: int, epsilon: Any) -> bool:
    lams = _multipliers(n, k)
    expr = None if isinstance(epsilon, float) else safe_sympify(epsilon)
    if expr is not None:
        e = proved_rational(sympy.exp(expr))
        if e is not None:
            x = flint.fmpq(int(e.q), int(e.p))
            return all(p(x) >= 0 for p in lams)
        algebraic = _pf_optimal_at_algebraic(lams, sympy.exp(-expr))
        if algebraic is not None:
            return algebraic
    for prec in (64, 128, 256, 512, 1024, 2048):
        with flint_prec(prec):
            xb = _x_ball(epsilon, prec)
            vals = [_eval_arb(p, xb) for p in lams]
        if any(v < 0 for v in vals):
            return False
        if all(v > 0 or (v.is_exact() and v.is_zero()) for v in vals):
            return True
    raise UndecidedSignError(
        f"PFOptimalityRegion.contains: cannot decide the sign of a multiplier at "
        f"epsilon={epsilon!r} (it may be a boundary point of the region)"
    )


def _pf_optimal_at_algebraic(lams, x: sympy.Expr) -> bool | None:
    """All ``lam(x) >= 0`` at an algebraic ``x`` (a boundary point of the region), exactly.

    ``lam(x) = 0`` iff the minimal polynomial of ``x`` divides ``lam``; a non-zero value is
    separated from 0 by balls of rising precision (it must be, being non-zero). None if
    ``x`` is not algebraic (transcendental epsilon: the caller's balls decide).
    """
    if x.free_symbols or not x.is_algebraic:
        return None
    mp = sympy.minimal_polynomial(x, _X, polys=True)
    m = flint.fmpq_poly([flint.fmpq(int(c.p), int(c.q)) for c in reversed(mp.all_coeffs())])
    nonzero = [p for p in lams if p.degree() >= 0 and (p % m).degree() >= 0]
    prec = 64
    while nonzero:
        with flint_prec(prec):
            xb = to_arb(x, prec)
            vals = [_eval_arb(p, xb) for p in nonzero]
        if any(v < 0 for v in vals):
            return False
        nonzero = [p for p, v in zip(nonzero, vals, strict=True) if not v > 0]
        prec *= 2
        if prec > MAX_PREC:  # pragma: no cover - a non-zero algebraic number separates
            raise UndecidedSignError(
                f"PFOptimalityRegion.contains: no ball separates a multiplier from 0 at "
                f"x = {x} within {MAX_PREC} bits"
            )
    return True


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
    poly = _sympy_poly(f)
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


def _feasible_rational(lams, x: flint.fmpq) -> bool:
    return all(p(x) >= 0 for p in lams)


def _feasible_at_root(lams, f: flint.fmpz_poly, lo, hi) -> bool:
    """All lam(rho) >= 0 at the root rho of irreducible f isolated in [lo, hi]."""
    poly = _sympy_poly(f)
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
                    _X)
    return sp.count_roots(a, b) == 0


def _boundary(f: flint.fmpz_poly, lo, hi, idx: int) -> RegionBoundary:
    poly = _sympy_poly(f)
    if poly.degree() <= 2:
        cands = [
            r for r in sympy.roots(poly, _X)
            if r.is_real and compare(lo, r) <= 0 and compare(r, hi) <= 0
        ]  # exact comparisons with the isolating interval
        xexpr = cands[0] if len(cands) == 1 else sympy.CRootOf(poly, idx)
    else:
        xexpr = sympy.CRootOf(poly, idx)
    a, b = poly.refine_root(lo, hi, eps=sympy.Rational(1, 10**32))
    a, b = sympy.Rational(a), sympy.Rational(b)
    return RegionBoundary(
        polynomial=poly,
        x=xexpr,
        epsilon=-sympy.log(xexpr),
        x_interval=(a, b),
        epsilon_interval=(-sympy.log(b), -sympy.log(a)),
        epsilon_float=float(-sympy.log(xexpr).evalf(30)),
    )


def pf_optimality_region(n: int, k: int) -> PFOptimalityRegion:
    """Exact set of epsilon where permute-and-flip attains the lattice-LP optimum.

    Method (parametric LP in ``x = exp(-epsilon)``, the generator with the lattice's
    ``N = 1``; exact).  PF is primal feasible for
    every epsilon, has every variable positive and makes exactly the "step" rows tight
    for ``0 < x < 1`` (apart from ``degenerate_points``).  By complementary slackness PF is
    optimal iff some dual point with zero reduced costs is supported on the tight rows;
    that linear system is triangular with the unique solution ``(mu(x), lam(x))``, whose
    entries are polynomials in ``x`` with rational coefficients (``_pf_dual_polys``).  So
    PF is optimal iff ``lam_i(x) >= 0`` for all i.  The region is cut out by the real
    roots in ``(0, 1)`` of the irreducible factors of the ``lam_i``; each root is isolated
    in exact rationals (sympy), the sign pattern is evaluated exactly at rational points
    between roots and at the roots themselves (exact divisibility, else sign by interval
    refinement).  Strong duality ``sum_g mu_g(x) = PF's objective(x)`` holds identically
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
    ``epsilon >= ln((3 + sqrt 5)/2)``); docs/formulas.md section 4 (the section-5 equations: PF
    makes the non-maximiser privacy constraints tight).

    Examples
    --------
    >>> import exactdp
    >>> region = exactdp.pf_optimality_region(3, 4)
    >>> region.contains(1), region.contains("1/2")
    (True, False)
    """
    func = "pf_optimality_region"
    n, k = check_size_args(func, n, k)
    guard_size(func, n, k, "exact")
    lat = build_lattice(n, k)
    lams = _multipliers(n, k)
    degenerate = _degenerate_points(lat)
    cands = _disjoint_candidates(lams)
    bounds: dict[int, RegionBoundary] = {}
    y_int, e_int = [], []
    for lo_piece, hi_piece in _feasible_runs(lams, cands):
        ylo = _endpoint(lo_piece, "lo", cands, bounds)
        yhi = _endpoint(hi_piece, "hi", cands, bounds)
        y_int.append((ylo, yhi))
        e_lo = sympy.Integer(0) if yhi == 1 else -sympy.log(yhi)
        e_hi = sympy.oo if ylo == 0 else -sympy.log(ylo)
        e_int.append((e_lo, e_hi))
    e_int.reverse()
    return PFOptimalityRegion(
        n=n,
        k=k,
        x_intervals=tuple(y_int),
        epsilon_intervals=tuple(e_int),
        boundaries=tuple(bounds[i] for i in sorted(bounds)),
        degenerate_points=tuple(degenerate),
        certificate_degrees=max((p.degree() for p in lams), default=0),
        n_multipliers=len(lams),
    )


def _degenerate_points(lat) -> list:
    """Points of (0, 1) where one of PF's "top" rows is tight too (exact algebraic ``x``)."""
    pf = lattice_pf_polys(lat)
    ypoly = flint.fmpq_poly([0, 1])
    slacks = [pf[s] - ypoly * pf[t] for t, s, kind in lat.rows if kind == "top"]
    degenerate = []
    for f in _irreducible_factors(slacks):
        for lo, hi, idx in _roots_in_unit(f):
            degenerate.append(_boundary(f, lo, hi, idx).x)
    return degenerate


def _disjoint_candidates(lams) -> list[tuple]:
    """Candidate boundary points ``(lo, hi, f, idx)``: the roots in (0, 1) of the
    multipliers' irreducible factors, isolating intervals refined until disjoint, sorted."""
    cands = []
    for f in _irreducible_factors(lams):
        for lo, hi, idx in _roots_in_unit(f):
            cands.append((lo, hi, f, idx))
    cands.sort(key=lambda c: c[0])
    changed = True
    while changed:
        changed = False
        for i in range(len(cands) - 1):
            lo1, hi1, f1, i1 = cands[i]
            lo2, hi2, f2, i2 = cands[i + 1]
            if hi1 >= lo2:
                a1, b1 = _sympy_poly(f1).refine_root(
                    lo1, hi1, eps=(hi1 - lo1) / 4 or sympy.Rational(1, 10**40))
                a2, b2 = _sympy_poly(f2).refine_root(
                    lo2, hi2, eps=(hi2 - lo2) / 4 or sympy.Rational(1, 10**40))
                cands[i] = (sympy.Rational(a1), sympy.Rational(b1), f1, i1)
                cands[i + 1] = (sympy.Rational(a2), sympy.Rational(b2), f2, i2)
                changed = True
        cands.sort(key=lambda c: c[0])
    return cands


def _feasible_runs(lams, cands: list[tuple]) -> list[list]:
    """Maximal runs of consecutive feasible pieces, each ``[first piece, last piece]``.

    Piece ``("gap", i)`` is the open gap before root i (decided at a rational sample point
    ``0 < s_0 < root_1 < s_1 < ... < root_m < s_m < 1``), piece ``("root", i)`` root i itself.
    """
    edges = [sympy.Integer(0)] + [x for c in cands for x in (c[0], c[1])] + [sympy.Integer(1)]
    samples = []
    for i in range(len(cands) + 1):
        a, b = edges[2 * i], edges[2 * i + 1]
        samples.append((a + b) / 2)
    sample_ok = [_feasible_rational(lams, flint.fmpq(int(s.p), int(s.q))) for s in samples]
    root_ok = [_feasible_at_root(lams, c[2], c[0], c[1]) for c in cands]
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
        elif ok and cur is not None:
            cur[1] = (kind, i)
        elif cur is not None:
            intervals.append(cur)
            cur = None
    if cur is not None:
        intervals.append(cur)
    return intervals


def _endpoint(piece: tuple, side: str, cands: list[tuple], bounds: dict) -> sympy.Expr:
    """The ``x`` at the ``side`` ("lo" or "hi") end of ``piece``; a root's boundary is
    computed once and stored in ``bounds``."""
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
    return bounds[i].x
