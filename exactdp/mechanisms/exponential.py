"""The exponential mechanism (McSherry & Talwar, FOCS 2007).

``Pr[EM(q) = r] = mu_r p_r / sum_s mu_s p_s`` with ``p_r = exp(epsilon*(q_r - q*)/(c*Delta))``
and base measure ``mu`` (counting measure ``mu = 1`` by default): the softmax (Boltzmann
distribution) of the scores at temperature ``T = c*Delta/epsilon``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar, cast

import flint
import mpmath
import numpy as np
import sympy

from .._validate import argument_error, check_nonempty
from ..cost import check_seconds, em_mp_seconds
from ..exact import compare, dps_to_prec, flint_prec, sign, to_arb
from ..numbers import FloatTracker, exact_number
from ..numeric.gaps import coin
from ..numeric.pf import em_float, em_mp
from ..numeric.pf.inputs import exp_neg
from ..progress import progress_bar
from ..rational_form import RationalForm
from ..scores import ScoreVector
from ._sampling import noisy_argmax
from .base import Mechanism, X
from .parameters import (
    epsilon_parameter,
    monotonic_parameter,
    optimize_parameter,
    parameter,
    sensitivity_parameter,
)
from .registry import register


def softmax_balls(mech: Mechanism, sv: ScoreVector, dps: int, measure=None) -> list:
    """EM (= RNM-Gumbel) probabilities as rigorous arb balls with about ``dps`` digits.

    ``w_r = mu_r exp(-d_r)`` from rigorous balls of the scaled gaps ``d_r`` (and of the base
    measure, :func:`exactdp.exact.to_arb`), then ``w_r / sum_s w_s``: every operation is
    arb arithmetic, so each ball is proved.
    """
    d = mech.scaled_gaps_arb(sv, dps)
    prec = dps_to_prec(dps) + 2 * max(len(d), 1).bit_length()
    with flint_prec(prec):
        w = [exp_neg(x) for x in d]  # more working bits for large d: relative accuracy
        if measure is not None:
            w = [to_arb(m, prec + 20) * x for m, x in zip(measure, w, strict=True)]
        total = sum(w[1:], w[0])
        return [x / total for x in w]


def softmax_exact(mech: Mechanism, sv: ScoreVector, measure=None) -> tuple[sympy.Expr, ...]:
    """Exact ``mu_r p_r / sum_s mu_s p_s`` with ``p_r = exp(-rate*(q* - q_r))``
    (maximizers: 1; ``mu = 1`` when ``measure`` is None)."""
    rate = mech.rate
    if sv.is_rational:
        L, G = sv.integer_gaps()
        lam = rate / L
        weights = [coin(g, lam) for g in G]
    else:
        weights = [coin(g, rate) for g in sv.gaps_exact]
    if measure is not None:
        weights = [m * w for m, w in zip(measure, weights, strict=True)]
    total = sympy.Add(*weights)
    return tuple(w / total for w in weights)


#: Flint numerators are attached to EM's rational form up to this many coefficients.
_POLYS_LIMIT = 10**7


def softmax_rational_form(mech: Mechanism, sv: ScoreVector, measure=None) -> RationalForm:
    """``mu_r x**G_r / sum_s mu_s x**G_s`` (a rational function of x)."""
    L, G = sv.integer_gaps()
    if measure is not None or len(G) * (max(G) + 1) > _POLYS_LIMIT:
        mu = measure if measure is not None else (1,) * len(G)
        total = sympy.Add(*[m * X**g for m, g in zip(mu, G, strict=True)])
        forms = tuple(m * X**g / total for m, g in zip(mu, G, strict=True))
        return RationalForm(X, forms, mech.x_value(L), L, G)
    # the sympy forms are built from the polynomials on first use
    counts: dict[int, int] = {}
    for g in G:
        counts[g] = counts.get(g, 0) + 1
    mono, den = _softmax_polys(tuple(sorted(counts.items())))
    return RationalForm(X, None, mech.x_value(L), L, G,
                        polys=tuple(mono[g] for g in G), denominator=den)


@lru_cache(maxsize=256)
def _softmax_polys(key: tuple[tuple[int, int], ...]) -> tuple[dict, flint.fmpq_poly]:
    """``({g: x^g}, sum_g m_g x^g)`` for the gap multiset ``key`` (``(gap, count)`` pairs):
    cached, so the neighbours of a search with one multiset share the very polynomials (the
    analyzer then evaluates and checks them once)."""
    mono = {g: flint.fmpq_poly([0] * g + [1]) for g, _ in key}
    den = flint.fmpq_poly([0] * (key[-1][0] + 1))
    for g, m in key:
        den[g] = m
    return mono, den


def check_measure(measure: object, func: str = "ExponentialMechanism") -> tuple | None:
    """Validate a base measure: exact numbers >= 0, not all 0 (None: the counting measure).

    Raises
    ------
    ValueError
        Not a sequence, empty, a negative / NaN / infinite / non-numeric entry (the
        message names the position), or every entry 0.
    """
    if measure is None:
        return None
    if isinstance(measure, (str, bytes, dict, set)) or not hasattr(measure, "__len__"):
        raise argument_error(func, "base_measure", "a sequence of numbers", measure)
    items = list(np.asarray(measure, dtype=object).ravel()) if isinstance(
        measure, np.ndarray) else list(cast("Iterable[object]", measure))  # has __len__
    check_nonempty(func, "base_measure", items)
    tracker = FloatTracker()
    mu = tuple(exact_number(v, "base_measure", i, tracker=tracker, func=func)
               for i, v in enumerate(items))
    tracker.warn("base_measure")
    signs = [sign(m) for m in mu]  # exact (exactdp.exact.sign), or UndecidedSignError
    for i, sg in enumerate(signs):
        if sg < 0:
            raise argument_error(func, f"base_measure[{i}]", ">= 0", items[i])
    mu = tuple(sympy.Integer(0) if sg == 0 else m for m, sg in zip(mu, signs, strict=True))
    if all(sg == 0 for sg in signs):
        raise argument_error(func, "base_measure", "> 0 somewhere (it is 0 everywhere, so no "
                             "output can be selected)", measure)
    return mu


def _shifted_gaps(d: list, mu, log) -> list:
    """``d_r - ln mu_r`` shifted to minimum 0 (``inf`` where ``mu_r = 0``)."""
    out = [d_r - log(m) if m != 0 else math.inf for d_r, m in zip(d, mu, strict=True)]
    low = min(out)
    return [v - low for v in out]


@register("em", label="EM")
@dataclass(frozen=True)
class ExponentialMechanism(Mechanism):
    """The exponential mechanism: ``Pr[r] ∝ exp(epsilon * q_r / (c * sensitivity))``.

    c = 2, or 1 for monotonic score functions. Sampled by the Gumbel-max trick
    (report-noisy-max with Gumbel noise is the same distribution).

    Parameters
    ----------
    epsilon : number or positive sympy Symbol
        Privacy parameter, >= 0 (0 and oo are the exact limits, see
        :class:`~exactdp.mechanisms.base.Mechanism`).
    sensitivity : number, default 1
        Sensitivity ``Delta`` of the score function, > 0.
    monotonic : bool, default False
        A monotonic score function: ``c = 1`` instead of 2.
    base_measure : sequence of numbers, shape (n,), optional
        The base measure ``mu`` of McSherry & Talwar's definition:
        ``Pr[r] ∝ mu_r exp(epsilon q_r / (c Delta))``. Exact numbers >= 0, not all 0;
        outputs of measure 0 have probability 0. At epsilon = 0 the distribution is
        ``mu / sum(mu)``; at epsilon = oo it is ``mu`` restricted to the maximizers of
        positive measure. None (default) is the counting measure.
    optimize : {"max", "min"}, keyword only, default "max"
        Select the maximum, or the minimum (the mechanism runs on ``-q``).

    Raises
    ------
    ValueError
        As :class:`~exactdp.mechanisms.base.Mechanism`; a negative, NaN, non-numeric or
        all-zero base measure; a base measure whose length differs from the scores'
        (raised by ``distribution``).

    References
    ----------
    F. McSherry and K. Talwar, "Mechanism design via differential privacy", FOCS 2007,
    section 2 (the base measure mu). McKenna & Sheldon (2020), section 2 (notation), and
    the notes' section 4 (softmax).

    Examples
    --------
    >>> from exactdp import ExponentialMechanism
    >>> d = ExponentialMechanism(epsilon=2).distribution([1, 0])
    >>> d.probabilities
    (1/(exp(-1) + 1), exp(-1)/(exp(-1) + 1))
    >>> float(d.probabilities[0])
    0.7310585786300049
    """

    regular: ClassVar[bool] = True  # McKenna & Sheldon (2020), Def. 3
    epsilon: sympy.Expr = epsilon_parameter()
    sensitivity: sympy.Expr = sensitivity_parameter()
    monotonic: bool = monotonic_parameter()
    base_measure: tuple[sympy.Expr, ...] | None = parameter(
        lambda func, name, value: check_measure(value, func),
        "None or a sequence of exact numbers >= 0, not all 0", default=None)
    optimize: str = optimize_parameter()

    def distribution(self, scores: object):
        dist = super().distribution(scores)
        if self.base_measure is not None and len(self.base_measure) != dist.n:
            raise argument_error("ExponentialMechanism", "len(base_measure)",
                                 f"{dist.n} (= len(scores))", len(self.base_measure))
        return dist

    def _limit_probabilities(self, sv: ScoreVector):
        if self.base_measure is None or self.epsilon_limit is None:
            return super()._limit_probabilities(sv)
        mu = self.base_measure
        if self.epsilon_limit == "infinity":  # the maximizers among the outputs with mu > 0
            support = [i for i in range(sv.n) if mu[i] != 0]
            gaps = sv.gaps_exact
            low = support[0]
            for i in support[1:]:
                if compare(gaps[i], gaps[low]) < 0:
                    low = i
            mu = tuple(m if m != 0 and compare(gaps[i], gaps[low]) == 0 else sympy.Integer(0)
                       for i, m in enumerate(mu))
        total = sympy.Add(*mu)
        return tuple(m / total for m in mu)

    def loss_outputs(self, sv: ScoreVector, neighbour: ScoreVector) -> tuple[int, ...] | None:
        """The first outputs of largest and of smallest ``d_r = q'_r - q_r`` (oriented
        scores, outputs of measure > 0), chosen by integer comparisons: the privacy loss
        of the pair is attained at one of them, the earliest output attaining it included.

        Proof: with ``k = epsilon/(c Delta) > 0`` and ``mu_r > 0``,
        ``ln(P_r(q)/P_r(q')) = C - k d_r`` with ``C = ln(Z(q')/Z(q))`` common to every r
        (McSherry & Talwar 2007, section 2; docs/formulas.md section 1), an affine function
        of ``d_r`` with slope ``-k != 0``. Its absolute value is convex in ``d_r``, so its
        maximum over the outputs is attained at the largest or the smallest ``d_r``, and at
        no ``d_r`` strictly between (a convex function attaining its maximum inside a
        segment is constant on it, which slope ``-k`` excludes). Outputs with equal
        ``d_r`` have equal ratios, so the earliest output attaining the loss is the first
        output of extreme ``d_r``; outputs of measure 0 have probability 0 on both sides
        and no loss. With rational scores ``d_r`` orders as ``G_r L' - G'_r L`` (integer
        gaps ``G = L (q* - q)``; the tops' shift is common). None (every output) at the
        epsilon limits or for irrational scores."""
        if self.epsilon_limit is not None or not (sv.is_rational and neighbour.is_rational):
            return None
        L, G = self.oriented(sv).integer_gaps()
        L2, G2 = self.oriented(neighbour).integer_gaps()
        mu = self.base_measure
        outs = [r for r in range(len(G)) if mu is None or mu[r] != 0]
        key = [g * L2 - g2 * L for g, g2 in zip(G, G2, strict=True)]
        first_max = max(outs, key=key.__getitem__)  # max and min return the first extreme
        first_min = min(outs, key=key.__getitem__)
        return (first_max,) if first_max == first_min else tuple(sorted((first_max, first_min)))

    def _exact(self, sv: ScoreVector) -> tuple[sympy.Expr, ...]:
        return softmax_exact(self, sv, self.base_measure)

    def _rational_form(self, sv: ScoreVector) -> RationalForm:
        return softmax_rational_form(self, sv, self.base_measure)

    def _mp(self, sv: ScoreVector, dps: int) -> list[mpmath.mpf]:
        seconds = em_mp_seconds(sv.n, dps)  # priced, and announced, before the n gaps
        check_seconds("evalf", f"the exponential mechanism in mpmath for n = {sv.n} at "
                      f"dps = {dps}", seconds, "use .to_numpy() (float64) or a smaller dps")
        with progress_bar(None, "evalf", seconds=seconds, unit="step"):
            d = self.scaled_gaps_mp(sv, dps)
            if self.base_measure is not None:
                with mpmath.workdps(dps + 20):
                    mu = [mpmath.mpf(sympy.N(m, dps + 20)) for m in self.base_measure]
                    d = _shifted_gaps(d, mu, mpmath.log)
                    d = [mpmath.inf if v == math.inf else v for v in d]
            return em_mp(d, dps)

    def _float_gaps(self, sv: ScoreVector) -> np.ndarray:
        d = self.scaled_gaps_float(sv)
        if self.base_measure is None:
            return d
        # ln mu in float64 from a 20-digit value (a measure below the float range is fine)
        logs = [float(sympy.N(sympy.log(m), 20)) if m != 0 else None for m in self.base_measure]
        out = [math.inf if lg is None else float(v) - lg for v, lg in zip(d, logs, strict=True)]
        low = min(out)
        return np.array([v - low for v in out])

    def _balls(self, sv: ScoreVector, dps: int) -> list:
        return softmax_balls(self, sv, dps, self.base_measure)

    def _float(self, sv: ScoreVector) -> np.ndarray:
        return em_float(self._float_gaps(sv), overwrite_d=self.base_measure is None)

    def _float_grouped(self, d: np.ndarray, counts: np.ndarray) -> np.ndarray | None:
        return em_float(d, counts, overwrite_d=True) if self.base_measure is None else None

    def _sample(self, sv: ScoreVector, size: int, rng: np.random.Generator) -> np.ndarray:
        return noisy_argmax(self._float_gaps(sv), size, rng.gumbel)
