"""The exact probability of one run of a program (the integrator half of issue 33).

A :class:`~exactdp.programs.runs.Run` is a set of independent noises and linear comparisons
between them; its probability is the product-law measure of the set where every comparison
holds, times :attr:`Run.weight`. :func:`run_probability` computes it exactly for the *exact
class* (:mod:`exactdp.programs.integrate_plan`: every component of the comparison graph is
a star, or a tree of Laplace and exponential draws, integrated leaf first by
:mod:`exactdp.programs.integrate_tree`) and refuses everything else, before any
integral, with a one-line ``ValueError`` naming the comparison's ``file:line``.

Each star is integrated leaves first (:mod:`exactdp.programs.integrate_stars`). Given the
centre's value ``z``, each leaf's comparisons confine it to an interval with ends affine
in ``z``, so its probability is a difference of CDF values; for Laplace and exponential
noise the CDF is piecewise exponential, so between the sorted breakpoints (where an end
crosses 0, or two ends cross) the product of the leaves' factors times the centre's
density is a finite sum ``sum q exp(lam (r z + w))``, integrated in closed form
(:func:`exactdp.exact.piecewise_exp.integrate_piece`). The sparse vector's stars (a
Laplace centre, Laplace leaves of one rate each compared once with slope 1) go through the
cached :func:`exactdp.mechanisms.sparse_vector_integral.segment_integral`, the routine
:class:`~exactdp.SparseVector` uses.

- **Discrete Laplace** (``P(k) = (1 - p)/(1 + p) p^|k|`` on the integers, ``p =
  exp(-1/b)``): the same with sums for integrals (piecewise geometric series over integer
  breakpoints, :func:`exactdp.exact.piecewise_exp.sum_piece`): rational in ``p``.
- **Gumbel** (CDF ``exp(-exp(-z/b))``), argmax stars only: with ``u = exp(-z/b)``,
  ``int f(z) prod_j F(z + k_j) dz = int_0^oo exp(-u (1 + sum_j exp(-k_j/b))) du = 1 / (1 +
  sum_j exp(-k_j/b))``, the softmax (Gumbel-max trick; Yellott 1977); a leaf bounded on
  both sides or from below expands by inclusion-exclusion.

Strict and non-strict comparisons, ``==`` and ``!=``: see
:mod:`exactdp.programs.integrate_plan` (continuous noise: ``==`` has probability 0, ``!=``
probability 1; discrete noise: integer rounding of each bound, ``!=`` by
inclusion-exclusion).

References
----------
J. I. Yellott, "The relationship between Luce's choice axiom, Thurstone's theory of
comparative judgment, and the double exponential distribution", J. Math. Psych. 15, 1977
(argmax of Gumbel-perturbed values is the softmax). M. Lyu, D. Su and N. Li, PVLDB 10(6),
2017 (the sparse vector integrals).

Units. When every rate ``1/b`` is a positive rational multiple ``t * lam`` of one unit
``lam`` (``epsilon`` for scales such as ``4*c/epsilon``; 1 for numeric scales), the
arithmetic is on Fractions and the result is ``num / den`` with ``num, den`` sums ``sum q
lam**e exp(lam W)`` (:func:`run_terms`; ``den`` is 1 for Laplace and exponential noise).
Otherwise the same formulas run on sympy numbers, with the signs of the rates decided by
:func:`exactdp.exact.signs.sign` (undecided: a ``ValueError``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import sympy

from .._validate import argument_error
from ..exact.piecewise_exp import ONE, Value, reduce_fraction, times, value_expr
from .integrate_cost import star_work
from .integrate_plan import Plan, Tree, plan
from .integrate_stars import Frac, Units, frac_sum, star_frac, svt_groups, units
from .integrate_tree import tree_terms, tree_value
from .runs import Run


@dataclass(frozen=True)
class RunTerms:
    """A run's probability *before* its weight, ``num / den`` with ``num = sum q lam**e
    exp(lam W)`` (``{(e, W): q}``, Fractions) and ``den`` likewise (``{(0, 0): 1}`` for
    Laplace and exponential noise; discrete Laplace and Gumbel noise have denominators).

    Attributes
    ----------
    unit : sympy.Expr
        ``lam``: every rate ``1/b`` of the run is a positive rational multiple of it.
    numerator, denominator : dict
        ``{(e, W): q}`` with ``e`` a non-negative int, ``W`` and ``q`` Fractions.
    """

    unit: sympy.Expr
    numerator: Value
    denominator: Value

    @property
    def rational_in_x(self) -> bool:
        """Whether no ``lam**e`` factor with ``e > 0`` survives: then the value is a
        rational function of ``x = exp(-lam / L)``, ``L`` the common denominator of the
        ``W`` (a polynomial over a power of ``x`` when the denominator is 1)."""
        return all(e == 0 for e, _ in (*self.numerator, *self.denominator))

    def expr(self) -> sympy.Expr:
        """The value as a sympy expression."""
        num = value_expr(self.numerator, self.unit)
        return num if self.denominator == ONE else num / value_expr(self.denominator, self.unit)


def check_run(run: Run) -> Plan:
    """Check ``run`` against the exact class (:func:`exactdp.programs.integrate_plan.plan`);
    no integral is done. Raises the one-line ``ValueError`` of a refused run."""
    return _plan(run)


#: Plans made by the structural cache (:mod:`exactdp.programs.structure`: a traced run's
#: plan with its offsets moved), read before planning; the oldest go first past
#: :data:`MAX_SUPPLIED` (then the run is planned again: the same plan).
#: Keyed by the run's ``id`` (hashing a run hashes its sympy numbers), the run kept with it.
_SUPPLIED: OrderedDict[int, tuple[Run, Plan | Callable[[], Plan]]] = OrderedDict()
MAX_SUPPLIED = 8192


def supply_plan(run: Run, p: Plan | Callable[[], Plan]) -> None:
    """Record ``p`` as ``run``'s plan (what :func:`~exactdp.programs.integrate_plan.plan`
    gives on it: tested), so that integrating ``run`` does not plan it again; ``p`` may be
    a function making the plan, called the first time the plan is read (most runs of a
    search over pairs are never integrated).

    Parameters
    ----------
    run : Run
        The run whose plan is recorded (kept by identity, the oldest dropped past
        ``MAX_SUPPLIED``).
    p : Plan or callable returning Plan
        Its plan, or a function of no arguments making it on first read.

    Returns
    -------
    None
    """
    _SUPPLIED[id(run)] = (run, p)
    if len(_SUPPLIED) > MAX_SUPPLIED:
        _SUPPLIED.popitem(last=False)


def supplied_plan(run: Run) -> Plan | None:
    """The plan :func:`supply_plan` recorded for this very ``run`` object, or None."""
    entry = _SUPPLIED.get(id(run))
    if entry is None or entry[0] is not run:
        return None
    p = entry[1]
    if not isinstance(p, Plan):  # made now, once
        p = p()
        _SUPPLIED[id(run)] = (run, p)
    return p


@lru_cache(maxsize=4096)
def _plan(run: Run) -> Plan:
    """:func:`~exactdp.programs.integrate_plan.plan`, cached per run: the cost estimate and
    the integral of a run read the same plan (a refusal is not cached: it raises)."""
    p = supplied_plan(run)
    return plan(run) if p is None else p


ALGORITHMS = ("auto", "general")


def _integrate(run: Run, algorithm: str) -> tuple[Units, Frac]:
    if algorithm not in ALGORITHMS:
        raise argument_error("run_probability", "algorithm", f"one of {ALGORITHMS}", algorithm)
    p = _plan(run)
    u = units(run)
    laws = [d.law for d in run.draws]
    parts: list[tuple[int, Frac]] = []
    single = False  # one alternative of one star: star_frac's fraction is in lowest terms
    try:
        for sgn, stars in p.alternatives:
            single = len(p.alternatives) == 1 and len(stars) == 1
            num, den = ONE, ONE
            for star in stars:
                if isinstance(star, Tree):
                    if not u.exact:
                        raise ValueError(f"{run.draws[star.nodes[0][0]].line}: a tree of "
                                         "comparisons needs noise scales that are rational "
                                         "multiples of one unit")
                    n2, d2 = tree_value(star, laws, u.rates), ONE
                else:
                    n2, d2 = star_frac(star, laws, u, algorithm == "auto")
                num = n2 if num is ONE else times(num, n2)
                if not num:
                    break
                if d2 != ONE:
                    den = times(den, d2)
            if num:
                parts.append((sgn, (num, den)))
    except ArithmeticError as err:  # a divergent integral: not a valid run of the laws
        raise ValueError(f"run_probability: {err}") from None
    if not parts:
        return u, ({}, ONE)
    num, den = frac_sum(parts)
    return u, (num, den) if den == ONE or single and sgn == 1 else reduce_fraction(num, den)


def run_terms(run: Run, algorithm: str = "auto") -> RunTerms | None:
    """The exact probability of ``run`` *without* its weight, as ``num / den`` of sums
    ``sum q lam**e exp(lam W)`` (:class:`RunTerms`); None when the rates ``1/b`` are not
    rational multiples of one unit. ``algorithm`` as in :func:`run_probability`.

    Raises
    ------
    ValueError
        The run is outside the exact class (one line naming the comparison's line).
    """
    u, (num, den) = _integrate(run, algorithm)
    if not u.exact:
        return None
    return RunTerms(u.unit, dict(num), dict(den))


def run_probability(run: Run, algorithm: str = "auto") -> sympy.Expr:
    """The exact probability that every comparison of ``run`` holds under independent
    draws, times ``run.weight``.

    Parameters
    ----------
    run : Run
    algorithm : {"auto", "general"}
        ``"auto"``: the sparse vector's stars through its cached integral
        (:func:`~exactdp.mechanisms.sparse_vector_integral.segment_integral`), the others
        by the general piecewise integral; ``"general"``: every star by the general one
        (the routes agree exactly: tested).

    Returns
    -------
    sympy.Expr
        ``weight * num / den`` (:class:`RunTerms`); 0 for a run that cannot happen.

    Raises
    ------
    ValueError
        The run is outside the exact class, or malformed: one line naming the ``file:line``
        of the comparison or draw and why, raised before any integral.

    Examples
    --------
    >>> import sympy
    >>> from exactdp.programs.runs import Constraint, Draw, Linear, Run
    >>> eps = sympy.Symbol("epsilon", positive=True)
    >>> d = (Draw(0, "laplace", 1 / eps, "f.py:1"), Draw(1, "laplace", 1 / eps, "f.py:2"))
    >>> c = Constraint(Linear(sympy.Integer(0), ((0, sympy.Integer(1)), (1, sympy.Integer(-1)))),
    ...                ">", "f.py:3")
    >>> run_probability(Run(d, (c,), sympy.Integer(1), 0))
    1/2
    """
    u, (num, den) = _integrate(run, algorithm)
    if not num:
        return sympy.Integer(0)
    value = RunTerms(u.unit, num, den).expr()
    return sympy.sympify(run.weight) * value


def runs_probability(runs: Sequence[Run]) -> sympy.Expr:
    """The exact sum of the runs' probabilities (:func:`run_probability`), as one closed
    form over the runs of weight 1, one unit and no denominator, plus the others.

    Parameters
    ----------
    runs : sequence of Run
        The runs whose probabilities are summed.

    Returns
    -------
    sympy.Expr
        The exact total probability (``0`` for no runs).

    Examples
    --------
    >>> from exactdp.programs.library_release import svt3
    >>> from exactdp.scores import as_scores
    >>> runs_probability(svt3(epsilon=1, threshold=1).trace(as_scores([0, 1])).runs)
    1
    """
    total: Value = {}
    unit = None
    rest = []
    for run in runs:
        terms = run_terms(run) if run.weight == 1 else None
        if terms is None or terms.denominator != {(0, Fraction(0)): Fraction(1)} or (
                unit is not None and terms.unit != unit):
            rest.append(run_probability(run))
            continue
        unit = terms.unit
        for key, q in terms.numerator.items():
            total[key] = total.get(key, 0) + q
    total = {k: q for k, q in total.items() if q}
    head = value_expr(total, unit) if unit is not None else sympy.Integer(0)
    return sympy.Add(head, *rest)


@lru_cache(maxsize=4096)  # a release row prices each run twice: integrals, then the loss
def run_cost(run: Run) -> float:
    """A rough cost of :func:`run_probability` on ``run``, in seconds (one 2-core x86-64
    core, as :mod:`exactdp.cost`): per star, the products of terms made while multiplying
    its leaves' factors and the terms integrated, estimated by
    :func:`~exactdp.programs.integrate_cost.star_work` (sums of integer or commensurable
    offsets merge: polynomially many terms where the product of the factors' sizes is
    exponential), with :data:`PRODUCT_SECONDS` and :data:`TERM_SECONDS` per unit (the
    sparse vector's stars through its integer-keyed integral, the others on Fractions,
    discrete Laplace stars with their denominators), times the inclusion-exclusion factor
    of ``!=`` comparisons (discrete) and bounded-below Gumbel leaves; a tree (a ``topk``
    chain) by :func:`~exactdp.programs.integrate_tree.tree_terms`, calibrated on top-3 to
    top-5 chains of 5 to 9 distinct answers (an over-estimate by at most about 2 there);
    sympy rates (scales with no common rational unit) cost 100 times more. Measured
    against the CPU time in ``docs/benchmarks.md``. Checks the run first.

    Raises
    ------
    ValueError
        As :func:`run_probability`, for a run outside the exact class (no integral done).
    """
    p = _plan(run)
    u = units(run)
    laws = [d.law for d in run.draws]
    total = 1e-5
    for _, stars in p.alternatives:
        for star in stars:
            if isinstance(star, Tree):  # topk chains: 1-2.5 us a unit, 2 ms a run (sympy)
                total += 2e-3 + 1.5e-6 * tree_terms(star)
                continue
            if star.kind == "gumbel":
                below = sum(any(b.lower for b in bs) for _, bs in star.leaves)
                total += 2e-5 * (len(star.leaves) + 1) * 2.0 ** below
                continue
            route = ("svt" if u.exact and svt_groups(star, laws, u) is not None
                     else star.kind)
            work = star_work(star, laws, u)
            total += (PRODUCT_SECONDS[route] * work.products + TERM_SECONDS[route] * work.terms
                      + 2e-6 * len(star.leaves))
    return total * (1 if u.exact else 100)


#: Runs whose costs :func:`runs_cost` samples first.
COST_SAMPLE = 64


def runs_cost(runs: Sequence[Run], limit: float) -> float:
    """``sum(run_cost(r) for r in runs)``; with more than :data:`COST_SAMPLE` runs, first
    the mean over a sample spread along them times their number, returned as it is when
    past twice ``limit`` (the caller refuses it; the exact sum would confirm it at about a
    millisecond a run: 2.5 s for the 3,360 tree runs of a top-3 of 16 answers).

    Examples
    --------
    >>> runs_cost([], 120.0)
    0
    """
    if len(runs) > COST_SAMPLE:
        step = len(runs) / COST_SAMPLE
        mean = sum(run_cost(runs[int(i * step)]) for i in range(COST_SAMPLE)) / COST_SAMPLE
        if mean * len(runs) > 2 * limit:
            return mean * len(runs)
    return sum(run_cost(r) for r in runs)


#: Seconds per product of two terms while a star's leaves are multiplied
#: (:attr:`~exactdp.programs.integrate_cost.StarWork.products`), by route: ``"svt"`` the
#: sparse vector's integer-keyed integral, ``"continuous"`` Fractions, ``"discrete"``
#: integer Laurent polynomials per rate (:mod:`exactdp.exact.laurent`; the term count
#: over-counts their work: estimate / CPU 1.1-6 on AboveThreshold, 10-75 on an argmax of
#: 8-15 answers, ``docs/benchmarks.md``).
PRODUCT_SECONDS = {"svt": 6e-7, "continuous": 1.5e-5, "discrete": 6e-6}
#: Seconds per term of a star's integrand (its integral on the piece, and the sums after).
TERM_SECONDS = {"svt": 2e-6, "continuous": 1e-5, "discrete": 6e-6}
