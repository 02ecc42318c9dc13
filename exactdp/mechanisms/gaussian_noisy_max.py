"""Report-noisy-max with Gaussian noise: ``argmax_r q_r + Z_r``, ``Z_r ~ N(0, sigma^2)`` i.i.d.

``Pr[M(q) = r] = integral phi_sigma(y - q_r) prod_{s != r} Phi_sigma(y - q_s) dy`` has no
closed form; the probabilities are computed by mpmath quadrature with a proved error bound
(:func:`exactdp.numeric.gaussian.gaussian_mp_bounds`), so the analyzer works on certified
balls (:mod:`exactdp.analysis.engines.ball`). The noise is set by ``sigma``, not by epsilon:
the mechanism is not epsilon-DP for any finite epsilon and is analysed through its privacy
loss on given pairs, Renyi divergences and zCDP.

References
----------
C. Dwork and A. Roth, The Algorithmic Foundations of DP (2014), section 3.3 (report noisy
max) and Appendix A (the Gaussian mechanism); M. Bun and T. Steinke, "Concentrated
differential privacy", TCC 2016 (zCDP).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import mpmath
import numpy as np
import sympy

from .._validate import argument_error
from ..numbers import FloatTracker, exact_epsilon, exact_number, exact_sensitivity
from ..numeric.gaussian import (
    gaussian_bounds_proved,
    gaussian_float,
    gaussian_mp,
    gaussian_mp_bounds,
)
from ..scores import ScoreVector
from ._sampling import noisy_argmax
from .base import Mechanism, RationalForm, ball

__all__ = ["GaussianNoisyMax"]


@dataclass(frozen=True, init=False)
class GaussianNoisyMax(Mechanism):
    """Report-noisy-max with Gaussian noise of standard deviation ``sigma``.

    Parameters
    ----------
    sigma : number
        Standard deviation of the noise, > 0 (same units as the scores). Exact input; a
        float is converted by its exact binary value with an ExactConversionWarning.
    sensitivity : number, default 1
        Sensitivity ``Delta`` of the score function, > 0.
    monotonic : bool, default False
        Whether the score function is monotonic (all scores move in one direction between
        neighbours); it restricts the neighbour search. ``monotone=`` (keyword) is its
        deprecated spelling.
    epsilon : number, optional
        An epsilon to check against (``check_dp`` uses it when none is given there); it does
        not set the noise.
    optimize : {"max", "min"}, keyword only, default "max"
        Report the noisy maximum, or the noisy minimum (the scores are negated).

    Raises
    ------
    ValueError
        If sigma or sensitivity is not a positive finite number, epsilon is invalid, or
        ``monotonic`` is not a bool.

    Examples
    --------
    >>> import exactdp
    >>> d = exactdp.GaussianNoisyMax(1).distribution([0, 0])
    >>> [float(p) for p in d.evalf(15)]
    [0.5, 0.5]
    """

    sigma: object = None
    noise: ClassVar[str] = "gaussian"

    def __init__(self, sigma: object, sensitivity: object = 1, monotonic: bool | None = None,
                 epsilon: object = None, *, optimize: str = "max",
                 monotone: bool | None = None) -> None:
        object.__setattr__(self, "sigma", sigma)
        object.__setattr__(self, "monotonic", monotonic)
        object.__setattr__(self, "optimize", optimize)
        object.__setattr__(self, "sensitivity", sensitivity)
        object.__setattr__(self, "epsilon", epsilon)
        object.__setattr__(self, "name", "RNM")
        self.__post_init__(monotone)

    def __post_init__(self, monotone: bool | None = None) -> None:
        self._merge_monotonic(monotone)
        self._check_optimize()
        func = "GaussianNoisyMax"
        if self.sigma is None:
            raise argument_error(func, "sigma", "a number > 0", None)
        tracker = FloatTracker()
        sigma = exact_number(self.sigma, "sigma", allow_symbols=False, tracker=tracker,
                             func=func)
        tracker.warn("sigma")
        if not sigma.is_positive:
            raise argument_error(func, "sigma", "> 0", self.sigma)
        object.__setattr__(self, "sigma", sigma)
        object.__setattr__(self, "sensitivity", exact_sensitivity(self.sensitivity, func))
        if self.epsilon is not None:
            object.__setattr__(self, "epsilon", exact_epsilon(self.epsilon, func))

    def __repr__(self) -> str:
        extra = "" if self.epsilon is None else f", epsilon={self.epsilon}"
        extra += "" if self.optimize == "max" else f", optimize={self.optimize!r}"
        return (f"GaussianNoisyMax(sigma={self.sigma}, sensitivity={self.sensitivity}, "
                f"monotonic={self.monotonic}{extra})")

    # ------------------------------------------------------------------ helpers
    def gaps_in_sigma(self, sv: ScoreVector) -> list[sympy.Expr]:
        """Exact gaps ``(q* - q_r)/sigma``; the engine reads them at the digits it needs (an
        error delta in z moves a probability by about z^2 delta / 4, relatively)."""
        if sv.kind == "float":  # floats by their exact binary values (no warning: numeric view)
            q = [sympy.Rational(*float(v).as_integer_ratio()) for v in sv.raw]
            top = max(q)
            return [(top - v) / self.sigma for v in q]
        return [g / self.sigma for g in sv.gaps_exact]

    # ------------------------------------------------------------------ views
    def _exact(self, sv: ScoreVector) -> tuple[sympy.Expr, ...]:
        raise ValueError(
            f"{type(self).__name__}: no closed form exists; use .evalf(dps) "
            "(mpmath quadrature with an error bound) or .to_numpy()"
        )

    def _rational_form(self, sv: ScoreVector) -> RationalForm:
        raise ValueError(
            f"{type(self).__name__}: no closed form exists, so there is no "
            "rational form; use .evalf(dps) (quadrature with an error bound)"
        )

    def _mp(self, sv: ScoreVector, dps: int) -> list[mpmath.mpf]:
        return list(gaussian_mp(self.gaps_in_sigma(sv), dps, func=type(self).__name__)[0])

    def _balls(self, sv: ScoreVector, dps: int) -> list:
        vals, bounds = gaussian_mp_bounds(self.gaps_in_sigma(sv), dps + 5,
                                          func=type(self).__name__)
        return [ball(v, b, dps) for v, b in zip(vals, bounds, strict=True)]

    def _balls_certified(self, sv: ScoreVector) -> tuple[bool, str | None]:
        if gaussian_bounds_proved(self.gaps_in_sigma(sv)):
            return True, None
        return False, (
            "RNM-Gaussian with more than 24 items: the shared-grid trapezoid error bound is "
            "carefully argued, not proved"
        )

    def _float(self, sv: ScoreVector) -> np.ndarray:
        return gaussian_float(sv.gaps_float / float(sympy.N(self.sigma, 20)))

    def _sample(self, sv: ScoreVector, size: int, rng: np.random.Generator) -> np.ndarray:
        z = sv.gaps_float / float(sympy.N(self.sigma, 20))
        return noisy_argmax(z, size, rng.standard_normal)
