r"""The section-5 equations solved exactly, and PF's polynomials by its own integral.

For integer gaps ``G_r = (q* - q_r) L >= 0`` every probability of a regular mechanism that
meets the greedy section-5 equations (docs/formulas.md section 4) is a polynomial in
``x = exp(-epsilon/(c * sensitivity * L))`` with rational coefficients:

- ``P_r(q) = x^{G_r} P_r(q^{(r)})`` for a non-maximizer r, where ``q^{(r)}`` raises entry r
  to the maximum (its gap becomes 0);
- ``P_r(q) = (1 - sum_{s : G_s > 0} P_s(q)) / n*`` for the ``n*`` maximizers.

``section5_exact`` runs that recursion (memoised on the sorted multiset of gaps; a symmetric
mechanism gives equal gaps equal probabilities). ``pf_polynomials`` gives permute-and-flip's
polynomials by its own coins (Poisson-binomial route). The two are independent routes; the
tests prove them identical. :class:`OptimalRegularMechanism` is the mechanism whose
distribution they are (an :class:`OptimalDistribution`).

References
----------
R. McKenna and D. Sheldon, "Permute-and-Flip: A new mechanism for differentially private
selection", NeurIPS 2020, section 5 (optimality) and Prop. 1 (the probabilities).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import ClassVar

import flint
import mpmath
import numpy as np
import sympy

from .._validate import argument_error, check_int, check_nonempty
from ..cost import refuse
from ..distribution import OutputDistribution
from ..exact import compare, is_zero
from ..numeric.pf import pf_float
from ..printing import format_number
from ..rational_form import RationalForm
from ..result import Result, brief
from ..scores import ScoreVector, as_scores
from ..xform import (
    DENSE_DEGREE_LIMIT,
    coin,
    generators_for,
    group_equal,
)
from ._sampling import shuffle_and_flip
from .base import Mechanism, X
from .parameters import (
    epsilon_parameter,
    monotonic_parameter,
    optimize_parameter,
    sensitivity_parameter,
)
from .permute_flip import (
    pf_balls,
    pf_closed_form,
    pf_closed_form_exprs,
    pf_numeric,
    pf_ring_probabilities,
)
from .registry import register

_X = sympy.Symbol("x")
#: The caller named in the refusals of the exact routes.
_FUNC = "OptimalRegularMechanism.distribution"


def _int_gaps(G: Sequence[int], func: str) -> tuple[int, ...]:
    """Validate integer gaps: non-empty, ints (not bool), >= 0, at least one 0."""
    what = "a sequence of non-negative integers"
    if isinstance(G, (str, bytes)):
        raise argument_error(func, "G", what, G)
    try:
        items = list(G)
    except TypeError:
        raise argument_error(func, "G", what, G) from None
    check_nonempty(func, "G", items)
    out = tuple(check_int(func, f"G[{i}]", g, 0) for i, g in enumerate(items))
    if 0 not in out:
        raise argument_error(func, "G", "a sequence containing a 0 (the maximizers)", out)
    return out


def _monomial(g: int) -> flint.fmpq_poly:
    return flint.fmpq_poly([0] * g + [1])


def _to_sympy(poly: flint.fmpq_poly, x: sympy.Symbol) -> sympy.Poly:
    coeffs = [sympy.Rational(int(c.p), int(c.q)) for c in poly.coeffs()]
    if not coeffs:
        coeffs = [sympy.Integer(0)]
    return sympy.Poly.from_list(coeffs[::-1], x, domain=sympy.QQ)


@lru_cache(maxsize=4096)
def _section5_state(state: tuple[int, ...]) -> dict[int, flint.fmpq_poly]:
    """Probability of one output with each gap value, for a sorted multiset of gaps."""
    counts = Counter(state)
    nstar = counts[0]
    sol: dict[int, flint.fmpq_poly] = {}
    rest = flint.fmpq_poly([1])
    for g, m in counts.items():
        if g == 0:
            continue
        raised = list(state)
        raised[raised.index(g)] = 0  # raise one output with gap g to the maximum
        sol[g] = _monomial(g) * _section5_state(tuple(sorted(raised)))[0]
        rest -= m * sol[g]
    sol[0] = rest / nstar
    return sol


def section5_exact(G: Sequence[int], x: sympy.Symbol | None = None) -> tuple[sympy.Poly, ...]:
    """The greedy solution of the section-5 equations as exact polynomials in ``x``.

    Parameters
    ----------
    G : sequence of int, length n
        Integer gaps ``G_r = (q* - q_r) L >= 0`` with at least one 0.
    x : sympy.Symbol, optional
        Generator of the polynomials (default ``Symbol("x")``); it stands for
        ``exp(-epsilon/(c * sensitivity * L))``.

    Returns
    -------
    tuple of sympy.Poly, length n
        ``P_r`` in input order, rational coefficients, computed by the recursion
        ``P_r(G) = x^{G_r} P_r(G with G_r := 0)`` (non-maximizers) and the equal split
        ``(1 - sum of the others)/n*`` on the maximizers, memoised on the sorted multiset
        of gaps (``prod_g (m_g + 1)`` states for multiplicities ``m_g``). PF's formula is
        not used.

    Raises
    ------
    ValueError
        If ``G`` is empty, has a negative or non-integer entry, or no 0.

    References
    ----------
    McKenna & Sheldon (2020), section 5; docs/formulas.md section 4.

    Examples
    --------
    >>> [str(p.as_expr()) for p in section5_exact([0, 1, 2])]
    ['x**3/3 - x**2/2 - x/2 + 1', '-x**3/6 + x/2', '-x**3/6 + x**2/2']
    """
    gaps = _int_gaps(G, "section5_exact")
    x = _X if x is None else x
    sol = _section5_state(tuple(sorted(gaps)))
    cache = {g: _to_sympy(sol[g], x) for g in set(gaps)}
    return tuple(cache[g] for g in gaps)


def pf_polynomials(G: Sequence[int], x: sympy.Symbol | None = None) -> tuple[sympy.Poly, ...]:
    """Permute-and-flip probabilities for integer gaps, exactly, as ``sympy.Poly`` in x.

    Parameters
    ----------
    G : sequence of int, length n
        Integer gaps ``G_r = (q* - q_r) L >= 0`` with at least one 0.
    x : sympy.Symbol, optional
        Generator (default ``Symbol("x")``), standing for ``exp(-epsilon/(c Delta L))``.

    Returns
    -------
    tuple of sympy.Poly, length n
        PF's probabilities in input order, computed by permute-and-flip's own coins (the
        Poisson-binomial route of :mod:`exactdp.mechanisms.permute_flip`): the same
        polynomials as ``PermuteAndFlip(...).distribution(q).rational_form()``.

    Raises
    ------
    ValueError
        If ``G`` is empty, has a negative or non-integer entry, or no 0.

    References
    ----------
    McKenna & Sheldon (2020), Prop. 1; docs/formulas.md section 2 (integer scores).

    Examples
    --------
    >>> [str(p.as_expr()) for p in pf_polynomials([0, 1, 2])]
    ['x**3/3 - x**2/2 - x/2 + 1', '-x**3/6 + x/2', '-x**3/6 + x**2/2']
    """
    polys = pf_ring_probabilities(
        generators_for(_int_gaps(G, "pf_polynomials"), None, sympy.Integer(1))
    )
    return tuple(_to_sympy(flint.fmpq_poly(p), _X if x is None else x) for p in polys)


def _section5_generic(state: tuple[int, ...], coins: dict, memo: dict) -> dict:
    """The section-5 recursion with arbitrary exact coins (irrational scores).

    ``state`` is the sorted multiset of distinct-gap labels (label 0 = the maximum, coin 1);
    ``coins[label]`` is the sympy coin ``exp(-rate * gap)``.
    """
    if state in memo:
        return memo[state]
    counts = Counter(state)
    sol: dict = {}
    rest = sympy.Integer(1)
    for g, m in counts.items():
        if g == 0:
            continue
        raised = list(state)
        raised[raised.index(g)] = 0
        sol[g] = sympy.expand(coins[g] * _section5_generic(tuple(sorted(raised)), coins, memo)[0])
        rest -= m * sol[g]
    sol[0] = sympy.expand(rest / counts[0])
    memo[state] = sol
    return sol


#: Most states of the section-5 recursion (``prod_g (m_g + 1)`` for multiplicities
#: ``m_g`` of the distinct gaps) used for irrational or astronomically large gaps.
MAX_RECURSION_STATES = 2**16

#: ``ln((3 + sqrt 5)/2)``: at and above it PF (= the section-5 solution) attains the
#: optimum of McKenna & Sheldon's lattice LP (their section 5; ``e^(eps/2)`` >= golden ratio).
PF_OPTIMAL_EPSILON = sympy.log((3 + sympy.sqrt(5)) / 2)


def _recursion_states(labels: Sequence) -> int:
    return math.prod(m + 1 for m in Counter(labels).values())


def _check_states(labels: Sequence, func: str) -> None:
    states = _recursion_states(labels)
    if states > MAX_RECURSION_STATES:
        raise refuse(
            func, f"the section-5 recursion over {len(set(labels))} distinct irrational or "
            "huge gaps", f"{states:.3g} states", f"{MAX_RECURSION_STATES}",
            "use .to_numpy(), .evalf(dps) or .evalf_balls(dps) (numeric, O(n)), or rational "
            "scores (then the closed form is polynomial)",
        )


@register("optimal", label="Optimal")
@dataclass(frozen=True)
class OptimalRegularMechanism(Mechanism):
    """The optimal regular mechanism: the greedy solution of the section-5 equations.

    For rational scores the exact probabilities are the solution's closed form: the
    recursion ``P_r(q) = x^{G_r} P_r(q^(r))`` with the equal split on the maximizers is
    solved by permute-and-flip's polynomials (``section5_exact`` equals them identically;
    ``tests/mechanisms/test_optimal.py`` checks this for every gap multiset with n <= 6,
    gaps <= 3, and ``proofs/`` proves it), computed by the product tree of
    :func:`exactdp.xform.pf_polynomials_tree` in polynomial time. For irrational scores (and
    gaps beyond :data:`exactdp.xform.DENSE_DEGREE_LIMIT`) the recursion itself is run over
    one symbolic coin per distinct gap (``prod_g (m_g + 1)`` states, at most
    :data:`MAX_RECURSION_STATES`). The numeric views use the one permute-and-flip engine.

    Tight privacy constraints ``P_r(q) = exp(-eps (q* - q_r)/(c Delta)) P_r(q^(r))`` for the
    non-maximizers (``q^(r)``: entry r raised to the maximum) and the equal split
    ``(1 - sum of the others)/n*`` on the maximizers (docs/formulas.md section 4). Its
    :meth:`distribution` is an :class:`OptimalDistribution`: every view of an output
    distribution (exact ``probabilities`` and ``rational_form()``, ``evalf(dps)``,
    ``evalf_balls(dps)``, ``to_numpy()``, ``sample``), and ``optimal`` / ``optimality``:
    where this solution is the true optimum.

    Parameters
    ----------
    epsilon : number or positive Symbol
        0 (uniform) and ``oo`` (uniform on the maximizers) are exact limits in every view.
    sensitivity : number, default 1
    monotonic : bool, default False
        A monotonic score function: ``c = 1`` instead of 2.
    optimize : {"max", "min"}, keyword only
        Select the maximum, or the minimum (the equations on ``-q``).

    Notes
    -----
    Where the solution is optimal. The section-5 solution is permute-and-flip (the greedy
    equations are PF's identities). McKenna & Sheldon (2020, section 5) report PF optimal on
    their lattice LP over regular epsilon-DP mechanisms for ``epsilon >= ln((3 + sqrt 5)/2)
    ~ 0.9624``; ``exactdp.pf_optimality_region(n, k)`` computes the exact region of a lattice,
    ``[eps*, oo)`` with ``eps*`` below that threshold (for n >= 4 the root of
    ``x + ... + x^k = 1``, ``x = e^-eps``, tending to ``ln 2``; docs/lp.md). Below ``eps*``
    the LP optimum is smaller than PF's error (by about 1% at most in the cases measured),
    but that optimum is itself not epsilon-DP for all neighbours (docs/lp.md), so the
    greedy solution is not shown to be beaten by an epsilon-DP regular mechanism there
    either. The distribution's ``optimal`` is True for ``epsilon >= ln((3 + sqrt 5)/2)``,
    else None (not known), never a guess.

    Cost. The notes' "O(n log n) by sorting the scores" counts arithmetic steps: the float
    view is O(n log n) (one sort and PF's O(n) float engine; measured scaling exponent 0.89
    for n = 10^4..10^6). The exact output for n distinct gaps holds about n^4 bits
    (polynomials of degree ~ the sum of the gaps, coefficients of ~ n bits), so no exact
    route is O(n log n) in bit operations (measured exponent 3.4 for n = 50..200;
    docs/lp.md). n = 50 with 50 distinct gaps takes about a second (docs/benchmarks.md).

    References
    ----------
    McKenna & Sheldon (2020), section 5; the notes, section 5.2; docs/formulas.md section 4.

    Examples
    --------
    >>> from exactdp import OptimalRegularMechanism
    >>> d = OptimalRegularMechanism(1).distribution([0, -1])
    >>> sum(d.probabilities) == 1
    True
    >>> [round(float(p), 6) for p in d.probabilities]
    [0.696735, 0.303265]
    >>> d.optimal  # epsilon = 1 >= ln((3 + sqrt 5)/2): the optimum of the lattice LP
    True
    """

    regular: ClassVar[bool] = True  # McKenna & Sheldon (2020), Def. 3
    epsilon: sympy.Expr = epsilon_parameter()
    sensitivity: sympy.Expr = sensitivity_parameter()
    monotonic: bool = monotonic_parameter()
    optimize: str = optimize_parameter()

    def distribution(self, scores: object) -> OptimalDistribution:
        """The exact output distribution on ``scores``, with where it is optimal.

        Raises
        ------
        ValueError
            For invalid scores (see :class:`~exactdp.scores.ScoreVector`).
        """
        return OptimalDistribution(self, as_scores(scores, func=_FUNC))

    def _exact(self, sv: ScoreVector) -> Sequence[sympy.Expr]:
        if sv.is_rational:
            L, G = sv.integer_gaps()
            if max(G) <= DENSE_DEGREE_LIMIT:
                return pf_closed_form_exprs(self, L, G, _FUNC)
            return self._rational_form(sv).substituted()
        labels, distinct = group_equal(sv.gaps_exact, lambda g, h: is_zero(g - h))
        _check_states(labels, _FUNC)
        zero = next(j for j, h in enumerate(distinct) if h == 0)
        relabel = {zero: 0}
        for j in range(len(distinct)):
            relabel.setdefault(j, len(relabel))
        coins = {relabel[j]: coin(h, self.rate) for j, h in enumerate(distinct)}
        lab = [relabel[j] for j in labels]
        sol = _section5_generic(tuple(sorted(lab)), coins, {})
        return tuple(sol[j] for j in lab)

    def _rational_form(self, sv: ScoreVector) -> RationalForm:
        L, G = sv.integer_gaps()
        if max(G) <= DENSE_DEGREE_LIMIT:  # the closed form, by the product tree
            return pf_closed_form(self, L, G, _FUNC)
        # huge gaps: the recursion with one symbolic coin per distinct gap
        _check_states(G, _FUNC)
        distinct = sorted(set(G))
        label = {g: j for j, g in enumerate(distinct)}
        sol = _section5_generic(tuple(sorted(label[g] for g in G)),
                                {label[g]: X**g for g in distinct}, {})
        forms = tuple(sol[label[g]] for g in G)
        return RationalForm(X, forms, self.x_value(L), L, G)

    def _mp(self, sv: ScoreVector, dps: int) -> list[mpmath.mpf]:
        """PF's numeric route (the solution is PF's distribution): the cheaper of the mpmath
        quadrature and the rigorous balls' midpoints (:func:`.permute_flip.pf_numeric`;
        five scores at 15 digits: ~1 ms instead of the quadrature's 10-20 ms)."""
        return pf_numeric(self, sv, dps)

    def _balls(self, sv: ScoreVector, dps: int) -> list:
        """Rigorous balls by the permute-and-flip engine on rigorous gap balls (the
        solution is PF's distribution), never through the exact coins ``exp(-eps q)``
        (at epsilon = 1e40 log 3 a coin is a power with an astronomical exponent)."""
        return pf_balls(self, sv, dps)

    def _float(self, sv: ScoreVector):
        return pf_float(self.scaled_gaps_float(sv), overwrite_d=True)

    def _float_grouped(self, d: np.ndarray, counts: np.ndarray) -> np.ndarray:
        return pf_float(d, counts, overwrite_d=True)

    def _sample(self, sv: ScoreVector, size: int, rng):
        return shuffle_and_flip(np.exp(-self.scaled_gaps_float(sv)), size, rng)


@dataclass(frozen=True, eq=False)
class OptimalDistribution(OutputDistribution, Result):
    """The :class:`OutputDistribution` of :class:`OptimalRegularMechanism`, with where the
    solution is the true optimum (``optimal``, ``optimality``).

    The result protocol (:class:`exactdp.result.Result`): no headline number (``evalf`` is
    the distribution's, a tuple of probabilities), certified (exact probabilities).
    """

    headline = None
    _repr_html_ = Result._html  # its summary (optimal, status), not the distribution's table

    @cached_property
    def optimal(self) -> bool | None:
        """Whether this section-5 solution is known to be the optimum (see ``optimality``).

        True when ``epsilon >= ln((3 + sqrt 5)/2)`` (decided exactly), None below it or for a
        symbolic epsilon (then it depends on the lattice: ``pf_optimality_region(n, k)``).
        """
        eps = self.mechanism.epsilon
        if eps.free_symbols:
            return None
        return True if compare(eps, PF_OPTIMAL_EPSILON) >= 0 else None

    @property
    def optimality(self) -> str:
        """One line: where this solution (= permute-and-flip) is the true optimum."""
        if self.optimal:
            return ("optimal: epsilon >= ln((3 + sqrt 5)/2) ~ 0.9624, where permute-and-flip "
                    "(this solution) attains the optimum of McKenna & Sheldon's lattice LP "
                    "over regular epsilon-DP mechanisms (their section 5)")
        return ("not guaranteed: below ln((3 + sqrt 5)/2) ~ 0.9624 (or for a symbolic "
                "epsilon) the lattice LP can beat this solution; pf_optimality_region(n, k) "
                "gives the exact region [eps*, oo) for a lattice (eps* -> ln 2 for n >= 4), "
                "and there the LP's better optimum is itself not epsilon-DP (docs/lp.md)")

    def repr_parts(self) -> list[str]:
        try:
            shown = [format_number(v, 4) for v in self.evalf(10)[:5]]
        except ValueError:  # a symbolic epsilon
            shown = ["symbolic"]
        tail = ", ..." if self.n > 5 else ""
        return [f"n={self.n}", f"epsilon={brief(self.mechanism.epsilon)}",
                f"probabilities=({', '.join(shown)}{tail})", f"optimal={self.optimal}"]
