"""Permute-and-flip (McKenna & Sheldon, NeurIPS 2020).

Exact routes: the coins (Poisson-binomial, ``pf_ring_probabilities``, for irrational or
astronomically large gaps) and, for integer gaps, the product tree of
:func:`exactdp.xform.pf_polynomials_tree` (the same polynomials, computed from
``prod_g (1 - t x^g)^{m_g}`` with fast multiplication). The coin route: output r is
returned iff its coin shows heads and it comes first among the heads in the random order,
so with K the number of heads among the others (a Poisson-binomial variable),

.. math::  \\Pr[PF(q) = r] = p_r \\sum_k \\Pr[K = k] / (k + 1),
           \\qquad \\sum_k \\Pr[K=k] t^k = \\prod_{s \\ne r} (1 - p_s + p_s t),

with ``p_r = exp(epsilon*(q_r - q*)/(c*Delta))``. For rational scores every ``p_r`` is a
power of ``x = exp(-epsilon/(c*Delta*L))`` and the probabilities are polynomials in x with
rational coefficients, computed exactly with python-flint. The numeric views use the one
stable engine :mod:`exactdp.numeric.pf` (integral form, no cancellation); the
alternating subset sum is never evaluated in floating point.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import ClassVar

import mpmath
import numpy as np
import sympy

from ..cost import check_seconds, pf_arb_seconds, pf_mp_seconds
from ..exact import dps_to_prec
from ..exact.arb import arb_mid_to_mpf
from ..lazy_expr import deferred_poly_expr
from ..lazy_probabilities import LazyProbabilities
from ..numeric.pf import pf_arb, pf_float_owned, pf_mp
from ..progress import progress_bar
from ..rational_form import RationalForm
from ..scores import ScoreVector
from ..xform import (
    DENSE_DEGREE_LIMIT,
    Atoms,
    generators_for,
    leave_one_out,
    pf_polynomials_lazy,
    pf_polynomials_tree,
    shared_exprs,
    weighted_sum,
)
from ._sampling import shuffle_and_flip
from .base import Mechanism, X
from .parameters import (
    epsilon_parameter,
    monotonic_parameter,
    optimize_parameter,
    sensitivity_parameter,
)
from .registry import register


def pf_balls(mech: Mechanism, sv: ScoreVector, dps: int, func: str = "evalf_balls") -> list:
    """PF (= RNM-Exp) probabilities as rigorous arb balls with about ``dps`` digits.

    The scaled gaps are enclosed from their exact values, and
    :func:`~exactdp.numeric.pf.pf_arb` evaluates the positive integral form in ball
    arithmetic (every step rigorous; its docstring gives the argument).
    """
    prec = dps_to_prec(dps)
    groups = sv.distinct_count()
    check_seconds(
        func, f"permute-and-flip balls for n = {sv.n} ({groups} distinct gaps) "
        f"at {prec} bits", pf_arb_seconds(groups, sv.n, prec),
        "use .evalf(dps) (mpmath, cost linear in n) or .to_numpy() (float64)")
    balls, counts, inverse = mech.scaled_gap_groups_arb(sv, dps, func)
    probs = pf_arb(balls, prec, counts)
    return [probs[k] for k in inverse]


def pf_numeric(mech: Mechanism, sv: ScoreVector, dps: int) -> list[mpmath.mpf]:
    """PF (= RNM-Exp) probabilities to ``dps`` digits by the cheaper of two routes: the
    mpmath quadrature :func:`~exactdp.numeric.pf.pf_mp` (linear in n, but its rule grows
    with dps: three scores at dps 1000 took 54 s) or the midpoints of the rigorous balls of
    :func:`pf_balls` at ``dps + 5`` digits (product tree, cheap for small n at any dps),
    chosen by their cost estimates (:mod:`exactdp.cost`). Float scores keep the mpmath
    route (the balls read exact gaps)."""
    prec = dps_to_prec(dps + 5)
    if sv.kind != "float" and (pf_arb_seconds(sv.distinct_count(), sv.n, prec)
                               < pf_mp_seconds(sv.n, dps)):
        balls = pf_balls(mech, sv, dps + 5, "evalf")
        need = dps_to_prec(dps + 2)
        if all(b.is_zero() or b.rel_accuracy_bits() >= need for b in balls):
            with mpmath.workdps(dps + 10):
                return [+arb_mid_to_mpf(b) for b in balls]
    seconds = pf_mp_seconds(sv.n, dps)  # priced before the n mpmath gaps (8 s at n = 1e6)
    check_seconds("pf_mp", f"permute-and-flip in mpmath for n = {sv.n} at dps = {dps}",
                  seconds, "use .to_numpy() (float64) or a smaller dps")
    with progress_bar(None, "evalf", seconds=seconds, unit="step"):
        return pf_mp(mech.scaled_gaps_mp(sv, dps), dps)


def pf_ring_probabilities(gens) -> list:
    """PF probabilities as ring elements, one per output, by the Poisson-binomial route."""
    n = len(gens.index)
    weights = [Fraction(1, k + 1) for k in range(n)]
    loo = leave_one_out(gens, lambda p: (gens.one - p, p), divide_top=True)
    per_gap = {j: weighted_sum(q, weights) * gens.coins[j] for j, q in loo.items()}
    return [per_gap[j] for j in gens.index]


def pf_closed_form(mech: Mechanism, L: int, G: tuple[int, ...], func: str) -> RationalForm:
    """PF's closed form for integer gaps ``G`` (``max(G) <= DENSE_DEGREE_LIMIT``): one flint
    polynomial in ``x = exp(-epsilon/(c Delta L))`` per output, by the product tree of
    :func:`exactdp.xform.pf_polynomials_tree` (``func`` names the caller in its refusals)."""
    per_gap = pf_polynomials_tree(G, func)
    return RationalForm(X, None, mech.x_value(L), L, G, polys=tuple(per_gap[g] for g in G))


def pf_closed_form_exprs(
    mech: Mechanism, L: int, G: tuple[int, ...], func: str
) -> LazyProbabilities:
    """The same closed form as exact sympy expressions in the coins ``exp(-rate g / L)``,
    each built on first access: the work shared by every output (the product tree) is done,
    and any refusal raised, here; each distinct gap's polynomial (its Horner step) and its
    ~10^3-10^4 sympy terms when an output with that gap is first read
    (:func:`~exactdp.lazy_expr.deferred_poly_expr`: not when the expression is first
    handed out, but when anything of it is first read)."""
    poly = pf_polynomials_lazy(G, func)
    atoms = _coin_atoms(mech.rate / L)
    if len(atoms.rationals) > _MAX_SHARED_RATIONALS:
        atoms.rationals.clear()

    def build(g: int) -> sympy.Expr:
        return deferred_poly_expr(poly(g), atoms)

    return LazyProbabilities(G, build)


#: Reduced coefficients kept for reuse by the distributions of one rate (about 9,000 at
#: n = 20, scores 0..100); beyond this many they are dropped and rebuilt.
_MAX_SHARED_RATIONALS = 10**6


@lru_cache(maxsize=16)
def _coin_atoms(lam: sympy.Expr) -> Atoms:
    """``Atoms.coins(lam)``, shared by every distribution with the coin rate ``lam``: the
    atoms ``exp(-k lam)`` and the reduced coefficients it keeps are immutable sympy numbers,
    so a second distribution (a neighbour, another epsilon's scores) builds none of them
    again (issue 36)."""
    return Atoms.coins(lam)


@register("pf", label="PF")
@dataclass(frozen=True)
class PermuteAndFlip(Mechanism):
    """Permute-and-flip: shuffle the range, return the first output whose coin is heads.

    Coin of output r: ``p_r = exp(epsilon * (q_r - q*) / (c * sensitivity))``, c = 2, or 1
    for monotonic score functions. It is epsilon-DP, optimal among regular mechanisms for
    ``eps >= ln((3 + sqrt 5)/2)`` on the lattice (McKenna & Sheldon 2020, Thm 2 and section
    5), and identical in distribution to report-noisy-max with exponential noise (Ding et
    al. 2021, arXiv:2105.07260, Thm 1).

    Parameters
    ----------
    epsilon : number or positive sympy Symbol
        Privacy parameter, >= 0 (0 and oo are the exact limits).
    sensitivity : number, default 1
        Sensitivity ``Delta`` of the score function, > 0.
    monotonic : bool, default False
        A monotonic score function: ``c = 1`` instead of 2.
    optimize : {"max", "min"}, keyword only, default "max"

    Examples
    --------
    >>> from exactdp import PermuteAndFlip
    >>> x, forms = PermuteAndFlip(1).distribution([0, -1, -2]).rational_form()
    >>> forms[1]
    -x**3/6 + x/2

    References
    ----------
    R. McKenna and D. Sheldon, "Permute-and-Flip: A new mechanism for differentially
    private selection", NeurIPS 2020, Algorithm 1 and Prop. 1.
    """

    regular: ClassVar[bool] = True  # McKenna & Sheldon (2020), Def. 3
    product_tree: ClassVar[bool] = True
    epsilon: sympy.Expr = epsilon_parameter()
    sensitivity: sympy.Expr = sensitivity_parameter()
    monotonic: bool = monotonic_parameter()
    optimize: str = optimize_parameter()

    def _exact(self, sv: ScoreVector) -> Sequence[sympy.Expr]:
        if sv.is_rational:
            L, G = sv.integer_gaps()
            if max(G) <= DENSE_DEGREE_LIMIT:
                return pf_closed_form_exprs(self, L, G, "probabilities")
            gens = generators_for(G, None, self.rate / L)
        else:
            gens = generators_for(None, sv.gaps_exact, self.rate)
        return shared_exprs(gens, pf_ring_probabilities(gens))

    def _rational_form(self, sv: ScoreVector) -> RationalForm:
        L, G = sv.integer_gaps()
        if max(G) <= DENSE_DEGREE_LIMIT:
            return pf_closed_form(self, L, G, "rational_form")
        gens = generators_for(G, None, self.rate / L, x=X)
        forms = shared_exprs(gens, pf_ring_probabilities(gens))
        return RationalForm(X, forms, self.x_value(L), L, G)

    def _mp(self, sv: ScoreVector, dps: int) -> list[mpmath.mpf]:
        return pf_numeric(self, sv, dps)

    def _balls(self, sv: ScoreVector, dps: int) -> list:
        """Rigorous balls: :func:`~exactdp.numeric.pf.pf_arb` on rigorous gap balls."""
        return pf_balls(self, sv, dps)

    def _float(self, sv: ScoreVector) -> np.ndarray:
        # the scaled gaps are a new valid array (scores checked finite, one exact 0)
        return pf_float_owned(self.scaled_gaps_float(sv))

    def _float_grouped(self, d: np.ndarray, counts: np.ndarray) -> np.ndarray:
        return pf_float_owned(d, counts)

    def _sample(self, sv: ScoreVector, size: int, rng: np.random.Generator) -> np.ndarray:
        p = np.exp(-self.scaled_gaps_float(sv))
        return shuffle_and_flip(p, size, rng)
