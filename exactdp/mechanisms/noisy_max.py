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

import warnings
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

import flint
import mpmath
import numpy as np
import sympy

from .._validate import argument_error, choices_text
from ..numeric.laplace.closed_form import (
    laplace_exact,
    laplace_exact_general,
    laplace_exact_polys,
)
from ..numeric.laplace.float64 import laplace_float
from ..numeric.laplace.mp import laplace_mp
from ..numeric.pf import em_float, em_mp, pf_float, pf_mp
from ..scores import ScoreVector
from ..xform import DENSE_DEGREE_LIMIT, generators_for, leave_one_out, shared_exprs, weighted_sum
from ._sampling import noisy_argmax
from .base import Mechanism, RationalForm, X
from .exponential import softmax_balls, softmax_exact, softmax_rational_form
from .gaussian_noisy_max import GaussianNoisyMax
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


@lru_cache(maxsize=4096)
def _laplace_pairs(gaps: tuple[int, ...]) -> dict:
    """``gap -> (A, B)`` of :func:`laplace_exact_polys` for a sorted gap multiset (cached:
    a neighbour search meets the same multiset, permuted, many times)."""
    return dict(zip(gaps, laplace_exact_polys(gaps), strict=True))


@dataclass(frozen=True)
class ReportNoisyMax(Mechanism):
    """Report-noisy-max with exponential, Gumbel, Laplace or Gaussian noise.

    Parameters
    ----------
    epsilon : number or positive Symbol
        Privacy parameter; the noise scale is ``b = c*sensitivity/epsilon`` (c = 2, or 1
        for monotonic scores). Not used with Gaussian noise (give ``sigma``).

        .. deprecated:: 0.2
           ``noise="gaussian"`` with ``sigma``: use :class:`GaussianNoisyMax`.
    sensitivity : number, default 1
    monotonic : bool, default False
        Whether the score function is monotonic (c = 1); ``monotone=`` (keyword) is its
        deprecated spelling.
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

    def __post_init__(self, monotone: bool | None = None) -> None:
        if not isinstance(self.noise, str) or self.noise.lower() not in NOISES:
            raise argument_error("ReportNoisyMax", "noise", choices_text(NOISES), self.noise)
        object.__setattr__(self, "noise", self.noise.lower())
        if self.noise == "gaussian":
            warnings.warn(
                "ReportNoisyMax(noise='gaussian', sigma=...) is deprecated; use "
                "GaussianNoisyMax(sigma, sensitivity=1)",
                DeprecationWarning,
                stacklevel=3,
            )
            if self.sigma is None:
                raise argument_error("ReportNoisyMax", "sigma", "a number > 0 for "
                                     "noise='gaussian'", None)
            self._merge_monotonic(monotone)
            g = GaussianNoisyMax(self.sigma, self.sensitivity, self.monotonic, self.epsilon,
                                 optimize=self.optimize)
            for attr in ("sigma", "sensitivity", "monotonic", "epsilon"):
                object.__setattr__(self, attr, getattr(g, attr))
            object.__setattr__(self, "_gaussian", g)
            return
        if self.sigma is not None:
            raise argument_error("ReportNoisyMax", "sigma", f"None for noise={self.noise!r} "
                                 "(sigma applies to Gaussian noise only)", self.sigma)
        if self.epsilon is None:
            raise argument_error("ReportNoisyMax", "epsilon",
                                 f"a number >= 0 for noise={self.noise!r} (0 and oo are the exact "
                                 "limits)", None)
        super().__post_init__(monotone)

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
            return shared_exprs(gens, rnm_exponential_ring(gens))
        if self.noise == "laplace":
            if sv.is_rational:
                L, G = sv.integer_gaps()
                return tuple(laplace_exact(G, self.rate / L))
            return tuple(laplace_exact_general([self.rate * g for g in sv.gaps_exact]))
        return self._gaussian._exact(sv)

    def _rational_form(self, sv: ScoreVector) -> RationalForm:
        if self.noise == "gumbel":
            return softmax_rational_form(self, sv)
        if self.noise == "exponential":
            L, G = sv.integer_gaps()
            gens = generators_for(G, None, self.rate / L, x=X)
            ring = rnm_exponential_ring(gens)
            if isinstance(gens.one, flint.fmpz_poly):  # dense: keep flint, sympy on demand
                polys: dict[int, object] = {}
                for j, p in zip(gens.index, ring, strict=True):
                    polys.setdefault(j, flint.fmpq_poly(p))
                return RationalForm(X, None, self.x_value(L), L, G,
                                    polys=tuple(polys[j] for j in gens.index))
            return RationalForm(X, shared_exprs(gens, ring), self.x_value(L), L, G)
        if self.noise == "gaussian":
            return self._gaussian._rational_form(sv)
        raise ValueError(
            "ReportNoisyMax(noise='laplace'): the probabilities are not rational in "
            "x = exp(-epsilon/(c*sensitivity*L)) (they contain terms such as "
            "epsilon*exp(-epsilon)); use .probabilities for the closed form"
        )

    def _numeric_xform(self, sv: ScoreVector) -> RationalForm | None:
        """RNM-Laplace at a numeric rational epsilon: ``A_r(x) + lam B_r(x)`` is a polynomial
        in ``x = exp(-lam)`` with rational coefficients, valid at *this* epsilon only (so it
        is not a ``rational_form``, whose forms hold for every epsilon). The analyzer's
        x-form engine reads it directly (flint polynomials, no sympy). None otherwise
        (other noises, irrational scores, a symbolic epsilon or epsilon = 0 / oo)."""
        if self.noise != "laplace" or self.epsilon_limit is not None:
            return None
        sv = self.oriented(sv)  # optimize="min": the scores the mechanism maximizes
        if not sv.is_rational or self.epsilon.free_symbols:
            return None
        L, G = sv.integer_gaps()
        lam = self.rate / L
        if not lam.is_Rational or max(G) > DENSE_DEGREE_LIMIT:
            return None
        q = flint.fmpq(int(lam.p), int(lam.q))
        pairs = _laplace_pairs(tuple(sorted(G)))
        per_gap = {g: a + b * q for g, (a, b) in pairs.items()}
        return RationalForm(X, None, sympy.exp(-lam), L, G, polys=tuple(per_gap[g] for g in G))

    def _mp(self, sv: ScoreVector, dps: int) -> list[mpmath.mpf]:
        if self.noise == "gaussian":
            return self._gaussian._mp(sv, dps)
        d = self.scaled_gaps_mp(sv, dps)
        if self.noise == "exponential":
            return pf_mp(d, dps)
        if self.noise == "gumbel":
            return em_mp(d, dps)
        return laplace_mp(d, dps)

    def _balls(self, sv: ScoreVector, dps: int) -> list:
        if self.noise == "exponential":
            return pf_balls(self, sv, dps)  # Thm 6.1: RNM-Exp = PF
        if self.noise == "gumbel":
            return softmax_balls(self, sv, dps)  # RNM-Gumbel = EM
        if self.noise != "gaussian":
            return super()._balls(sv, dps)
        return self._gaussian._balls(sv, dps)

    def _balls_certified(self, sv: ScoreVector) -> tuple[bool, str | None]:
        if self.noise != "gaussian":
            return True, None
        return self._gaussian._balls_certified(sv)

    def _float(self, sv: ScoreVector) -> np.ndarray:
        if self.noise == "gaussian":
            return self._gaussian._float(sv)
        d = self.scaled_gaps_float(sv)
        if self.noise == "exponential":
            return pf_float(d, overwrite_d=True)
        if self.noise == "gumbel":
            return em_float(d, overwrite_d=True)
        return laplace_float(d)

    def _float_grouped(self, d: np.ndarray, counts: np.ndarray) -> np.ndarray | None:
        if self.noise == "exponential":  # Thm 6.1: RNM-Exp = PF
            return pf_float(d, counts, overwrite_d=True)
        if self.noise == "gumbel":  # RNM-Gumbel = EM
            return em_float(d, counts, overwrite_d=True)
        return None

    def _sample(self, sv: ScoreVector, size: int, rng: np.random.Generator) -> np.ndarray:
        if self.noise == "gaussian":
            return self._gaussian._sample(sv, size, rng)
        d = self.scaled_gaps_float(sv)
        draw = {
            "exponential": rng.standard_exponential,
            "gumbel": rng.gumbel,
            "laplace": rng.laplace,
        }[self.noise]
        return noisy_argmax(d, size, draw)
