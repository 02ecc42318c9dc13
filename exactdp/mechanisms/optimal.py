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
tests prove them identical. ``optimal_mechanism`` wraps both in an output distribution.

References
----------
R. McKenna and D. Sheldon, "Permute-and-Flip: A new mechanism for differentially private
selection", NeurIPS 2020, section 5 (optimality) and Prop. 1 (the probabilities).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence, Sized
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import ClassVar

import flint
import mpmath
import numpy as np
import sympy

from .._validate import MAX_DPS, argument_error, check_choice, check_int, check_nonempty
from ..cost import as_caller, check_exact_n, refuse
from ..distribution import OutputDistribution
from ..exact import compare, is_zero
from ..numeric.pf import pf_arb, pf_float, pf_mp
from ..printing import format_number
from ..result import Result, brief
from ..scores import ScoreVector, as_scores
from ..xform import (
    DENSE_DEGREE_LIMIT,
    coin,
    generators_for,
    group_equal,
)
from ._sampling import shuffle_and_flip
from .base import Mechanism, X, monotonic_flag
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
    pf_ring_probabilities,
)
from .rational_form import RationalForm
from .registry import register

_X = sympy.Symbol("x")


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
            "use method='float', 'mpmath' or 'arb' (numeric, O(n)), or rational scores "
            "(then the closed form is polynomial)",
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
    """

    name: ClassVar[str] = "OPT"
    regular: ClassVar[bool] = True  # McKenna & Sheldon (2020), Def. 3
    epsilon: sympy.Expr = epsilon_parameter()
    sensitivity: sympy.Expr = sensitivity_parameter()
    monotonic: bool = monotonic_parameter()
    optimize: str = optimize_parameter()

    def _exact(self, sv: ScoreVector) -> Sequence[sympy.Expr]:
        if sv.is_rational:
            L, G = sv.integer_gaps()
            if max(G) <= DENSE_DEGREE_LIMIT:
                return pf_closed_form_exprs(self, L, G, "optimal_mechanism")
            return self._rational_form(sv).substituted()
        labels, distinct = group_equal(sv.gaps_exact, lambda g, h: is_zero(g - h))
        _check_states(labels, "optimal_mechanism")
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
            return pf_closed_form(self, L, G, "optimal_mechanism")
        # huge gaps: the recursion with one symbolic coin per distinct gap
        _check_states(G, "optimal_mechanism")
        distinct = sorted(set(G))
        label = {g: j for j, g in enumerate(distinct)}
        sol = _section5_generic(tuple(sorted(label[g] for g in G)),
                                {label[g]: X**g for g in distinct}, {})
        forms = tuple(sol[label[g]] for g in G)
        return RationalForm(X, forms, self.x_value(L), L, G)

    def _mp(self, sv: ScoreVector, dps: int) -> list[mpmath.mpf]:
        return pf_mp(self.scaled_gaps_mp(sv, dps), dps)

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

    def certified(self, sv: ScoreVector, prec: int) -> list[flint.arb]:
        """Certified balls of the probabilities (python-flint arb), relative accuracy 2^-prec."""
        rate = self.rate
        if sv.is_rational and rate.is_Rational:
            d: list[Fraction] | list[flint.arb] = [
                Fraction(int(r.p), int(r.q)) for r in (rate * g for g in sv.gaps_exact)]
        else:
            # to prec bits after the point (a gap of 1e50 carries 50 more digits)
            d = self.scaled_gaps_arb(sv, int(prec * 0.30103) + 1, "optimal_mechanism")
        return pf_arb(d, prec)


METHODS = ("exact", "float", "mpmath", "arb")


@dataclass(frozen=True, eq=False)
class OptimalDistribution(OutputDistribution, Result):
    """An :class:`OutputDistribution` of the optimal regular mechanism, with ``method``.

    ``values`` is the result of the chosen method: exact sympy expressions, a float64
    array, mpmath numbers (``dps`` digits) or arb balls (``radii`` their certified radii).

    The result protocol (:class:`exactdp.result.Result`): no headline number (``evalf`` is
    the distribution's, a tuple of probabilities), ``certified`` / ``caveat`` by ``method``.
    """

    headline = None

    method: str = "exact"
    dps: int = 30

    @property
    def certified(self) -> bool:
        """True for exact values (``"exact"``) and proved balls (``"arb"``)."""
        return self.method in ("exact", "arb")

    @property
    def caveat(self) -> str | None:
        """Why ``values`` are not certified (None when they are)."""
        if self.certified:
            return None
        return f"method={self.method!r}: rounded numbers without a proved error bound"

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

    @cached_property
    def values(self):
        """The probabilities by the chosen method."""
        if self.method == "exact":
            return self.probabilities
        if self.method == "float":
            return self.to_numpy()
        if self.method == "mpmath":
            return self.evalf(self.dps)
        mech = self.mechanism
        if mech.epsilon_limit is not None:  # epsilon = 0 or oo: exact, as every view
            return tuple(mech.evaluate("balls", self.scores, self.dps))
        return tuple(mech.certified(mech.oriented(self.scores), int(self.dps * 3.33) + 4))

    def repr_parts(self) -> list[str]:
        try:
            shown = [format_number(v, 4) for v in self.evalf(10)[:5]]
        except ValueError:  # a symbolic epsilon
            shown = ["symbolic"]
        tail = ", ..." if self.n > 5 else ""
        return [f"n={self.n}", f"epsilon={brief(self.mechanism.epsilon)}",
                f"method={self.method}", f"probabilities=({', '.join(shown)}{tail})",
                f"optimal={self.optimal}"]

    @property
    def radii(self) -> tuple[float, ...]:
        """Certified radii of the balls (method "arb" only)."""
        if self.method != "arb":
            raise ValueError("radii: only method='arb' has certified balls")
        return tuple(float(b.rad()) for b in self.values)


def _check_dps_cost(method: str, n: int, dps: int) -> None:
    """Refuse a precision beyond MAX_DPS, or a certified run of estimated cost
    ``3e-8 * n^2 * dps`` seconds above two minutes (pf_arb's product tree; measured
    0.5 s at n = 200, dps = 400)."""
    if dps > MAX_DPS:
        raise refuse("optimal_mechanism", f"method={method!r} at dps = {dps}",
                     f"{dps} digits", f"dps <= {MAX_DPS}",
                     "use a smaller dps or method='float'")
    secs = 3e-8 * n * n * dps
    if method == "arb" and secs > 120:
        raise refuse("optimal_mechanism", f"method='arb' for n = {n} at dps = {dps}",
                     f"about {secs:.3g} s", "120 s",
                     "use a smaller dps, method='mpmath' (O(n) per digit) or method='float'")


def optimal_mechanism(
    scores: object,
    epsilon: object,
    sensitivity: object = 1,
    monotonic: bool | None = None,
    method: str = "exact",
    dps: int = 30,
    *,
    optimize: str = "max",
) -> OptimalDistribution:
    """Solve the section-5 equations: the optimal regular epsilon-DP selection distribution.

    Tight privacy constraints ``P_r(q) = exp(-eps (q* - q_r)/(c Delta)) P_r(q^(r))`` for the
    non-maximizers (``q^(r)``: entry r raised to the maximum) and the equal split
    ``(1 - sum of the others)/n*`` on the maximizers (docs/formulas.md section 4).

    Parameters
    ----------
    scores : sequence of numbers, shape (n,)
    epsilon : number or positive Symbol
    sensitivity : number, default 1
    monotonic : bool, default False
        A monotonic score function: ``c = 1`` instead of 2.
    method : {"exact", "float", "mpmath", "arb"}
        ``exact``: sympy expressions; for rational scores the solution's closed form,
        polynomials in ``x = exp(-eps/(c Delta L))`` (identical to PF's ``rational_form()``)
        by a product tree over the distinct gaps, polynomial time (n = 50 with 50 distinct
        gaps: about a second on a loaded 2-core machine; docs/benchmarks.md); for
        irrational scores the recursion (exponential in the number of distinct gaps, refused
        beyond
        :data:`MAX_RECURSION_STATES` states). ``float``: float64, O(n), one run of the
        permute-and-flip engine; ``mpmath``: ``dps`` digits; ``arb``: arb balls of
        relative radius about ``10^-dps``.
    dps : int
        Digits for ``mpmath`` and ``arb`` (at most ``MAX_DPS``).
    optimize : {"max", "min"}, keyword only
        Select the maximum, or the minimum (the equations on ``-q``). ``epsilon`` may be 0
        (uniform) or ``oo`` (uniform on the maximizers), exactly in every method.

    Returns
    -------
    OptimalDistribution
        With ``.values`` (by the method), every view of an output distribution, and
        ``optimal`` / ``optimality``: where this solution is the true optimum.

    Raises
    ------
    ValueError
        Bad scores, epsilon, sensitivity, unknown method; symbolic epsilon with a numeric
        method; a ``dps`` above ``MAX_DPS`` or an ``arb`` run estimated above two minutes;
        a recursion beyond ``MAX_RECURSION_STATES`` states (each message gives the estimate
        and the cheaper route).

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
    either. The result's ``optimal`` is True for ``epsilon >= ln((3 + sqrt 5)/2)``, else
    None (not known), never a guess.

    Cost. The notes' "O(n log n) by sorting the scores" counts arithmetic steps: the float
    route is O(n log n) (measured scaling exponent 0.89 for n = 10^4..10^6). The exact
    output for n distinct gaps holds about n^4 bits (polynomials of degree ~ the sum of the
    gaps, coefficients of ~ n bits), so no exact route is O(n log n) in bit operations
    (measured exponent 3.4 for n = 50..200; docs/lp.md).

    References
    ----------
    McKenna & Sheldon (2020), section 5; the notes, section 5.2.

    Examples
    --------
    >>> from exactdp import optimal_mechanism
    >>> d = optimal_mechanism([0, -1], 1)
    >>> [round(float(p), 6) for p in d.probabilities]
    [0.696735, 0.303265]
    """
    check_choice("optimal_mechanism", "method", method, METHODS)
    dps = check_int("optimal_mechanism", "dps", dps, 1)
    flag = monotonic_flag(monotonic, "optimal_mechanism")
    mech = OptimalRegularMechanism(epsilon, sensitivity, flag, optimize=optimize)
    if method != "exact":
        mech._float_rate()  # numeric methods need a numeric epsilon
    cheaper = ("use method='float' (float64, O(n)) or method='mpmath' (dps digits)"
               if method in ("exact", "arb") else "use method='float' (float64, O(n))")
    if method == "exact" and isinstance(scores, Sized):  # before converting n scores
        check_exact_n("optimal_mechanism", len(scores), cheaper)
    sv = as_scores(scores, func="optimal_mechanism")
    if method in ("mpmath", "arb"):
        _check_dps_cost(method, sv.n, dps)
    if method == "mpmath" and mech.epsilon_limit is None:
        mech._gap_digits(mech.oriented(sv), dps, "optimal_mechanism")  # refuses huge gaps
    dist = OptimalDistribution(mech, sv, method, dps)
    with as_caller("optimal_mechanism", cheaper):
        if method == "exact" and sv.is_rational and mech.epsilon_limit is None:
            dist.rational_form()  # the flint closed form now (errors surface here)
        else:
            dist.values  # noqa: B018  (compute now, so errors surface here)
    return dist
