"""Report-noisy-max: ``argmax_r q_r + Z_r`` with i.i.d. noise ``Z_r`` of scale b.

``Pr[RNM(q) = r] = integral f_b(y - q_r) prod_{s != r} F_b(y - q_s) dy`` (f, F the noise
density and CDF). Each noise gets its exact evaluation of this integral:

- exponential noise (mean ``b = c*Delta/epsilon``): the integrand vanishes below ``q*`` and
  on ``[q*, oo)`` it is a finite sum of exponentials ``a_k e^{-(k+1)(y-q*)/b}``; each
  integrates to ``a_k b/(k+1)``. Computed from the densities, not from permute-and-flip's
  formula, so that the identity PF = RNM-Exp (Ding et al. 2021) is a check, not a tautology.
- Gumbel noise (scale b): with ``u = e^{-(y-q*)/b}`` the integral is
  ``int_0^oo p_r e^{-u sum_s p_s} du = p_r / sum_s p_s``: the softmax (Gumbel-max trick).
- Laplace noise (scale b): piecewise exp-polynomials, :mod:`exactdp.numeric.laplace`.
- Gaussian noise (standard deviation sigma): no closed form; mpmath quadrature with an
  error bound, :mod:`exactdp.numeric.gaussian`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import mpmath
import numpy as np
import sympy

from ..numbers import FloatTracker, exact_epsilon, exact_number, exact_sensitivity
from ..scores import ScoreVector
from ..xform import generators_for, leave_one_out, weighted_sum
from ._sampling import noisy_argmax
from .base import Mechanism, RationalForm, X, ball
from .exponential import softmax_balls, softmax_exact, softmax_rational_form
from .permute_flip import pf_balls

__all__ = ["ReportNoisyMax", "NOISES"]

NOISES = ("exponential", "gumbel", "laplace", "gaussian")


def rnm_exponential_ring(gens) -> list:
    """RNM-exponential probabilities as ring elements, from the noise-density integral.

    With ``w = e^{-(y - q*)/b}`` on the only piece ``[q*, oo)``:
    ``f_b(y - q_r) dy = p_r w dy/b`` and ``F_b(y - q_s) = 1 - p_s w``; expand
    ``prod_{s != r}(1 - p_s w) = sum_k a_k w^k`` and integrate
    ``int_{q*}^oo e^{-(k+1)(y-q*)/b} dy / b = 1/(k+1)``.
    """
    n = len(gens.index)
    weights = [Fraction(1, k + 1) for k in range(n)]
    loo = leave_one_out(gens, lambda p: (gens.one, -p), divide_top=False)
    per_gap = {j: weighted_sum(a, weights) * gens.coins[j] for j, a in loo.items()}
    return [per_gap[j] for j in gens.index]


@dataclass(frozen=True)
class ReportNoisyMax(Mechanism):
    """Report-noisy-max with exponential, Gumbel, Laplace or Gaussian noise.

    Parameters
    ----------
    epsilon : number or positive Symbol
        Privacy parameter; the noise scale is ``b = c*sensitivity/epsilon`` (c = 2, or 1
        for monotone scores). Not used with Gaussian noise (give ``sigma``).
    sensitivity : number, default 1
    monotone : bool, default False
    noise : {"exponential", "gumbel", "laplace", "gaussian"}
        Exponential noise has mean b (rate ``epsilon/(c*Delta)``); Gumbel(0, b);
        Laplace(0, b); Gaussian N(0, sigma^2).
    sigma : number, optional
        Standard deviation of the Gaussian noise (required for ``noise="gaussian"``).

    Raises
    ------
    ValueError
        Unknown noise (the message lists the supported ones), bad epsilon, sensitivity or
        sigma.

    References
    ----------
    C. Dwork and A. Roth, The Algorithmic Foundations of DP (2014), section 3.3;
    Z. Ding et al., "The permute-and-flip mechanism is identical to report-noisy-max with
    exponential noise", arXiv:2105.07260 (2021), Thm 1.
    """

    epsilon: object = None
    noise: str = "exponential"
    sigma: object = None
    name: str = field(default="RNM", init=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.noise, str) or self.noise.lower() not in NOISES:
            raise ValueError(
                f"ReportNoisyMax: unknown noise {self.noise!r}; supported: {', '.join(NOISES)}"
            )
        object.__setattr__(self, "noise", self.noise.lower())
        if self.noise == "gaussian":
            if self.sigma is None:
                raise ValueError("ReportNoisyMax(noise='gaussian') needs sigma > 0")
            tracker = FloatTracker()
            sigma = exact_number(self.sigma, "sigma", allow_symbols=False, tracker=tracker)
            tracker.warn("sigma")
            if not sigma.is_positive:
                raise ValueError(f"sigma must be > 0, got {self.sigma!r}")
            object.__setattr__(self, "sigma", sigma)
            object.__setattr__(self, "sensitivity", exact_sensitivity(self.sensitivity))
            if self.epsilon is not None:
                object.__setattr__(self, "epsilon", exact_epsilon(self.epsilon))
            if not isinstance(self.monotone, (bool, np.bool_)):
                raise ValueError(f"monotone must be True or False, got {self.monotone!r}")
            return
        if self.sigma is not None:
            raise ValueError(f"sigma applies to Gaussian noise only (noise={self.noise!r})")
        if self.epsilon is None:
            raise ValueError(f"ReportNoisyMax(noise={self.noise!r}) needs epsilon > 0")
        super().__post_init__()

    # ------------------------------------------------------------------ helpers
    def _gaussian_z(self, sv: ScoreVector) -> list[sympy.Expr]:
        """Exact gaps in units of sigma: the engine reads them at the digits it needs (an
        error delta in z moves a probability by about z^2 delta / 4, relatively)."""
        if sv.kind == "float":  # floats by their exact binary values (no warning: numeric view)
            q = [sympy.Rational(*float(v).as_integer_ratio()) for v in sv.raw]
            top = max(q)
            return [(top - v) / self.sigma for v in q]
        return [g / self.sigma for g in sv.gaps_exact]

    # ------------------------------------------------------------------ views
    def _exact(self, sv: ScoreVector) -> tuple[sympy.Expr, ...]:
        if self.noise == "gumbel":
            return softmax_exact(self, sv)
        if self.noise == "exponential":
            if sv.is_rational:
                L, G = sv.integer_gaps()
                gens = generators_for(G, None, self.rate / L)
            else:
                gens = generators_for(None, sv.gaps_exact, self.rate)
            return tuple(gens.to_expr(p) for p in rnm_exponential_ring(gens))
        if self.noise == "laplace":
            from ..numeric.laplace import laplace_exact, laplace_exact_general

            if sv.is_rational:
                L, G = sv.integer_gaps()
                return tuple(laplace_exact(G, self.rate / L))
            return tuple(laplace_exact_general([self.rate * g for g in sv.gaps_exact]))
        raise ValueError(
            "ReportNoisyMax(noise='gaussian'): no closed form exists; use .evalf(dps) "
            "(mpmath quadrature with an error bound) or .to_numpy()"
        )

    def _rational_form(self, sv: ScoreVector) -> RationalForm:
        if self.noise == "gumbel":
            return softmax_rational_form(self, sv)
        if self.noise == "exponential":
            L, G = sv.integer_gaps()
            gens = generators_for(G, None, self.rate / L, x=X)
            forms = tuple(gens.to_expr(p) for p in rnm_exponential_ring(gens))
            return RationalForm(X, forms, self.x_value(L), L, G)
        if self.noise == "gaussian":
            raise ValueError(
                "ReportNoisyMax(noise='gaussian'): no closed form exists, so there is no "
                "rational form; use .evalf(dps) (quadrature with an error bound)"
            )
        raise ValueError(
            "ReportNoisyMax(noise='laplace'): the probabilities are not rational in "
            "x = exp(-epsilon/(c*sensitivity*L)) (they contain terms such as "
            "epsilon*exp(-epsilon)); use .probabilities for the closed form"
        )

    def _mp(self, sv: ScoreVector, dps: int) -> list[mpmath.mpf]:
        if self.noise == "gaussian":
            from ..numeric.gaussian import gaussian_mp

            return list(gaussian_mp(self._gaussian_z(sv), dps)[0])
        d = self.scaled_gaps_mp(sv, dps)
        if self.noise == "exponential":
            from ..numeric.pf_engine import pf_mp

            return pf_mp(d, dps)
        if self.noise == "gumbel":
            from ..numeric.pf_engine import em_mp

            return em_mp(d, dps)
        from ..numeric.laplace import laplace_mp

        return laplace_mp(d, dps)

    def _balls(self, sv: ScoreVector, dps: int) -> list:
        if self.noise == "exponential":
            return pf_balls(self, sv, dps)  # Thm 6.1: RNM-Exp = PF
        if self.noise == "gumbel":
            return softmax_balls(self, sv, dps)  # RNM-Gumbel = EM
        if self.noise != "gaussian":
            return super()._balls(sv, dps)
        from ..numeric.gaussian import gaussian_mp_bounds

        vals, bounds = gaussian_mp_bounds(self._gaussian_z(sv), dps + 5)
        return [ball(v, b, dps) for v, b in zip(vals, bounds, strict=True)]

    def _balls_certified(self, sv: ScoreVector) -> tuple[bool, str | None]:
        if self.noise != "gaussian":
            return True, None
        from ..numeric.gaussian import gaussian_bounds_proved

        if gaussian_bounds_proved(self._gaussian_z(sv)):
            return True, None
        return False, (
            "RNM-Gaussian with more than 24 items: the shared-grid trapezoid error bound is "
            "carefully argued, not proved"
        )

    def _float(self, sv: ScoreVector) -> np.ndarray:
        if self.noise == "gaussian":
            from ..numeric.gaussian import gaussian_float

            return gaussian_float(sv.gaps_float / float(sympy.N(self.sigma, 20)))
        d = self.scaled_gaps_float(sv)
        if self.noise == "exponential":
            from ..numeric.pf_engine import pf_float

            return pf_float(d)
        if self.noise == "gumbel":
            from ..numeric.pf_engine import em_float

            return em_float(d)
        from ..numeric.laplace import laplace_float

        return laplace_float(d)

    def _sample(self, sv: ScoreVector, size: int, rng: np.random.Generator) -> np.ndarray:
        if self.noise == "gaussian":
            z = sv.gaps_float / float(sympy.N(self.sigma, 20))
            return noisy_argmax(z, size, rng.standard_normal)
        d = self.scaled_gaps_float(sv)
        draw = {
            "exponential": rng.standard_exponential,
            "gumbel": rng.gumbel,
            "laplace": rng.laplace,
        }[self.noise]
        return noisy_argmax(d, size, draw)
