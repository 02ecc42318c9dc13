"""The McKenna-Sheldon lattice LP (section 5): the best regular mechanism on a score lattice.

:func:`lattice_lp` maximises the expected score of a symmetric, shift-invariant, epsilon-DP
mechanism on the lattice ``{0..k}^n``, by float (HiGHS) or exact (rational) routes, and
compares it with permute-and-flip.

References
----------
R. McKenna and D. Sheldon, "Permute-and-Flip", NeurIPS 2020, section 5.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import flint
import numpy as np
import sympy

from .._validate import check_choice
from ..result import Result
from ..result_text import stated_text
from .exact_solve import (
    DualCertificate,
    crossover_from_highs,
    exact_check,
    lattice_dp_violation,
    pf_certificate,
    sympy_simplex,
)
from .float_solve import solve_float
from .lattice import (
    Lattice,
    build_lattice,
    check_size_args,
    exact_exp_epsilon,
    exact_rational,
    guard_size,
    lattice_em_exact,
    lattice_em_float,
    lattice_pf_polys,
    lp_parameter,
    to_float,
)

#: A float solution whose ``max_violation`` exceeds this is flagged (warning, status).
VIOLATION_TOLERANCE = 1e-8


# ---------------------------------------------------------------------------------------
# public: lattice_lp
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LatticeLPResult(Result):
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

    Notes
    -----
    The result protocol (:class:`exactdp.result.Result`): ``value`` is ``pf_ratio`` (PF's
    error over the optimal error; exact for ``method="exact"``, else None and ``float()``
    gives the float); ``summary()`` prints the LP solution.
    """

    headline = "pf_ratio"
    repr_fields = ("n", "k", "epsilon", "method", "em_ratio", "n_variables")

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
    def certified(self) -> bool:
        """True for ``method="exact"`` (rational optimum with an exact dual certificate)."""
        return self.method == "exact"

    @property
    def caveat(self) -> str | None:
        """Why not certified (None when it is)."""
        if self.certified:
            return None
        return "method='float': HiGHS in double precision, checked by residuals, not proved"

    def headline_text(self) -> str:
        """``pf_ratio``; beside ``method='exact'`` labelled ``(rounded)`` unless its text
        shows the value (:func:`~exactdp.result_text.stated_text`)."""
        text = super().headline_text()
        return stated_text(text, self.pf_ratio) if self.certified else text

    def repr_parts(self) -> list[str]:
        """The repr's fields, each exact number labelled as the headline is."""
        parts = super().repr_parts()
        if not self.certified:
            return parts
        return [f"{f}={stated_text(p.partition('=')[2], getattr(self, f))}"
                for f, p in zip(self.repr_fields, parts, strict=True)]

    @property
    def vectors(self) -> tuple[tuple, ...]:
        """Canonical score vectors in the order of ``certificate.mu``."""
        return tuple(self.solution.keys())

    @property
    def rows(self) -> tuple[tuple[tuple, tuple], ...]:
        """Privacy rows as ``((source vector, output gap), (target vector, output gap))``."""
        lat = build_lattice(self.n, self.k, self.constraints == "full")
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
        lat = build_lattice(self.n, self.k, self.constraints == "full")
        y, x = self._exact
        to_q = lambda r: flint.fmpq(int(r.p), int(r.q))  # noqa: E731
        mu = [to_q(v) for v in self.certificate.mu]
        lam = [to_q(v) for v in self.certificate.lam]
        return all(exact_check(lat, y, x, mu, lam).values())


def _q_to_sympy(v: flint.fmpq) -> sympy.Rational:
    return sympy.Rational(int(v.p), int(v.q))


def plain_number(v):
    """sympy Integer -> int (so keys read ``(0, -2, -4)``); other numbers unchanged."""
    return int(v) if isinstance(v, sympy.Integer) else v


def _solution_map(lat: Lattice, x, scale) -> Mapping[tuple, tuple]:
    out = {}
    for g in lat.vectors:
        key = tuple(plain_number(-scale * v) for v in g)
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
    """Solve the McKenna-Sheldon lattice LP (docs/formulas.md section 4) in float or exactly.

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
    docs/formulas.md section 4 (objective weighting, constraints) and section 2 (PF, EM formulas).

    Examples
    --------
    >>> import exactdp
    >>> res = exactdp.lattice_lp(3, 4, 1)
    >>> round(float(res.em_ratio), 4)
    1.5129
    """
    func = "lattice_lp"
    n, k = check_size_args(func, n, k)
    check_choice(func, "method", method, ("float", "exact"))
    check_choice(func, "constraints", constraints, ("raise", "full"))
    full = constraints == "full"
    eps_x = lp_parameter(func, "epsilon", epsilon)
    delta_x = lp_parameter(func, "sensitivity", sensitivity)
    guard_size(func, n, k, method, full)
    lat = build_lattice(n, k, full)
    start = time.perf_counter()
    solve = _lattice_lp_float if method == "float" else _lattice_lp_exact
    return solve(lat, n, k, eps_x, delta_x, epsilon, sensitivity, constraints, start)


def _lattice_lp_float(
    lat: Lattice, n: int, k: int, eps_x: sympy.Expr, delta_x: sympy.Expr, epsilon: Any,
    sensitivity: Any, constraints: str, start: float,
) -> LatticeLPResult:
    """:func:`lattice_lp` with ``method="float"``: HiGHS on the PF-rescaled program."""
    func = "lattice_lp"
    eps_f = to_float(func, "epsilon", eps_x, epsilon)
    delta = to_float(func, "sensitivity", delta_x, sensitivity)
    sol = solve_float(func, lat, eps_f, epsilon)
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
    em = lattice_em_float(lat, eps_f)
    pfv = 2 * delta * sol.pf_obj
    opt = pfv * sol.scaled_opt
    emv = 2 * delta * float(cost @ em)
    viol = lattice_dp_violation(lat, list(sol.x), math.exp(eps_f))
    ok = sol.max_violation <= VIOLATION_TOLERANCE
    if not ok:
        warnings.warn(
            f"{func}: the HiGHS solution at n={n}, k={k}, epsilon={epsilon!r} violates the "
            f"constraints by {sol.max_violation:.3g} (relative to the row scale; tolerance "
            f"{VIOLATION_TOLERANCE:g}); the optimum is inaccurate. Use method='exact'.",
            RuntimeWarning,
            stacklevel=3,  # the caller of lattice_lp
        )
    head = "optimal" if ok else f"inaccurate (max_violation={sol.max_violation:.3g})"
    return LatticeLPResult(
        n=n, k=k, epsilon=eps_x, sensitivity=delta_x, method="float",
        optimum=opt, pf_value=pfv, em_value=emv,
        pf_ratio=1.0 / sol.scaled_opt, em_ratio=emv / opt,
        n_variables=len(lat.var_vec), n_constraints=len(lat.vectors) + len(lat.rows),
        solution=_solution_map(lat, [float(v) for v in sol.x], 2 * delta),
        status=f"{head}: {res.message} [constraints={constraints}]",
        full_dp_violation=float(viol), solve_seconds=elapsed, constraints=constraints,
        max_violation=sol.max_violation,
    )


def _lattice_lp_exact(
    lat: Lattice, n: int, k: int, eps_x: sympy.Expr, delta_x: sympy.Expr, epsilon: Any,
    sensitivity: Any, constraints: str, start: float,
) -> LatticeLPResult:
    """:func:`lattice_lp` with ``method="exact"``: PF's certificate, else HiGHS's support
    re-solved in rationals, else sympy's rational simplex; certified by exact checks."""
    func = "lattice_lp"
    e_eps = exact_exp_epsilon(func, eps_x, epsilon)
    delta = exact_rational(func, "sensitivity", delta_x, sensitivity)
    y = flint.fmpq(int(e_eps.q), int(e_eps.p))
    got = pf_certificate(lat, y)
    route = "pf-certificate"
    if got is None:
        route = "highs-crossover"
        got = crossover_from_highs(func, lat, y, e_eps, epsilon)
    if got is None:
        route = "sympy-simplex"
        got = sympy_simplex(lat, y)
        if not all(got[3].values()):
            raise RuntimeError(f"{func}: exact certification failed at n={n}, k={k}: {got[3]}")
    x, mu, lam, checks = got
    elapsed = time.perf_counter() - start
    two_d = 2 * delta
    zero = flint.fmpq(0)

    def value(v: list) -> sympy.Expr:  # the objective of a solution, in score units
        return _q_to_sympy(sum((c * w for c, w in zip(lat.cost, v, strict=True)), zero)) * two_d

    opt = value(x)
    pfv = value([p(y) for p in lattice_pf_polys(lat)])
    emv = value(lattice_em_exact(lat, y))
    cert = DualCertificate(
        mu=tuple(_q_to_sympy(v) for v in mu),
        lam=tuple(_q_to_sympy(v) for v in lam),
        dual_objective=_q_to_sympy(sum(mu, zero)) * two_d,
        checks=MappingProxyType(dict(checks)),
        route=route,
    )
    viol = lattice_dp_violation(lat, x, flint.fmpq(int(e_eps.p), int(e_eps.q)))
    return LatticeLPResult(
        n=n, k=k, epsilon=eps_x, sensitivity=delta, method="exact",
        optimum=opt, pf_value=pfv, em_value=emv,
        pf_ratio=pfv / opt, em_ratio=emv / opt,
        n_variables=len(lat.var_vec), n_constraints=len(lat.vectors) + len(lat.rows),
        solution=_solution_map(lat, [_q_to_sympy(v) for v in x], two_d),
        status=f"certified optimal ({route}) [constraints={constraints}]", certificate=cert,
        full_dp_violation=_q_to_sympy(viol), solve_seconds=elapsed, constraints=constraints,
        max_violation=sympy.Integer(0), _exact=(y, x),
    )
