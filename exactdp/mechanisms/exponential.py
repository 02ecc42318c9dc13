"""The exponential mechanism (McSherry & Talwar, FOCS 2007).

``Pr[EM(q) = r] = p_r / sum_s p_s`` with ``p_r = exp(epsilon*(q_r - q*)/(c*Delta))``: the
softmax (Boltzmann distribution) of the scores at temperature ``T = c*Delta/epsilon``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mpmath
import numpy as np
import sympy

from ..exact import dps_to_prec, flint_prec
from ..scores import ScoreVector
from ..xform import coin
from ._sampling import noisy_argmax
from .base import Mechanism, RationalForm, X

__all__ = ["ExponentialMechanism", "softmax_balls", "softmax_exact"]


def softmax_balls(mech: Mechanism, sv: ScoreVector, dps: int) -> list:
    """EM (= RNM-Gumbel) probabilities as rigorous arb balls with about ``dps`` digits.

    ``w_r = exp(-d_r)`` from rigorous balls of the scaled gaps ``d_r``, then
    ``w_r / sum_s w_s``: every operation is arb arithmetic, so each ball is proved.
    """
    d = mech.scaled_gaps_arb(sv, dps)
    with flint_prec(dps_to_prec(dps) + 2 * max(len(d), 1).bit_length()):
        w = [(-x).exp() for x in d]
        total = sum(w[1:], w[0])
        return [x / total for x in w]


def softmax_exact(mech: Mechanism, sv: ScoreVector) -> tuple[sympy.Expr, ...]:
    """Exact ``p_r / sum_s p_s`` with ``p_r = exp(-rate*(q* - q_r))`` (maximizers: 1)."""
    rate = mech.rate
    if sv.is_rational:
        L, G = sv.integer_gaps()
        lam = rate / L
        weights = [coin(g, lam) for g in G]
    else:
        weights = [coin(g, rate) for g in sv.gaps_exact]
    total = sympy.Add(*weights)
    return tuple(w / total for w in weights)


def softmax_rational_form(mech: Mechanism, sv: ScoreVector) -> RationalForm:
    """``x**G_r / sum_s x**G_s`` (a rational function of x)."""
    L, G = sv.integer_gaps()
    total = sympy.Add(*[X**g for g in G])
    return RationalForm(X, tuple(X**g / total for g in G), mech.x_value(L), L, G)


@dataclass(frozen=True)
class ExponentialMechanism(Mechanism):
    """The exponential mechanism: ``Pr[r] ∝ exp(epsilon * q_r / (c * sensitivity))``.

    c = 2, or 1 for monotone score functions. Sampled by the Gumbel-max trick
    (report-noisy-max with Gumbel noise is the same distribution).

    Parameters
    ----------
    epsilon, sensitivity, monotone
        See :class:`~exactdp.mechanisms.base.Mechanism`.

    References
    ----------
    F. McSherry and K. Talwar, "Mechanism design via differential privacy", FOCS 2007.
    McKenna & Sheldon (2020), section 2 (notation), and the notes' section 4 (softmax).
    """

    name: str = field(default="EM", init=False, repr=False)

    def _exact(self, sv: ScoreVector) -> tuple[sympy.Expr, ...]:
        return softmax_exact(self, sv)

    def _rational_form(self, sv: ScoreVector) -> RationalForm:
        return softmax_rational_form(self, sv)

    def _mp(self, sv: ScoreVector, dps: int) -> list[mpmath.mpf]:
        from ..numeric.pf_engine import em_mp

        return em_mp(self.scaled_gaps_mp(sv, dps), dps)

    def _balls(self, sv: ScoreVector, dps: int) -> list:
        return softmax_balls(self, sv, dps)

    def _float(self, sv: ScoreVector) -> np.ndarray:
        from ..numeric.pf_engine import em_float

        return em_float(self.scaled_gaps_float(sv))

    def _sample(self, sv: ScoreVector, size: int, rng: np.random.Generator) -> np.ndarray:
        return noisy_argmax(self.scaled_gaps_float(sv), size, rng.gumbel)
