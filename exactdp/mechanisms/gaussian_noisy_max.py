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

import math
from dataclasses import dataclass
from typing import ClassVar

import mpmath
import numpy as np
import sympy

from .._validate import argument_error
from ..cost import MAX_GAP_DIGITS, refuse
from ..numbers import FloatTracker, exact_epsilon, exact_number
from ..numeric.gaussian import (
    check_gaussian_cost,
    gaussian_bounds_proved,
    gaussian_float,
    gaussian_mp,
    gaussian_mp_bounds,
)
from ..printing import value_repr
from ..scores import ScoreVector
from ._sampling import noisy_argmax
from .base import Mechanism, ball
from .parameters import (
    monotonic_parameter,
    optimize_parameter,
    parameter,
    sensitivity_parameter,
)
from .registry import register


def _sigma(func: str, name: str, value: object) -> sympy.Expr:
    tracker = FloatTracker()
    sigma = exact_number(value, name, allow_symbols=False, tracker=tracker, func=func)
    tracker.warn(name)
    if not sigma.is_positive:
        raise argument_error(func, name, "> 0", value)
    return sigma


def _check_level(func: str, name: str, value: object) -> sympy.Expr | None:
    return None if value is None else exact_epsilon(value, func)


@register("gaussian", label="RNM-Gaussian", example={"sigma": 2})
@dataclass(frozen=True, repr=False)
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
        neighbours); it restricts the neighbour search.
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

    name: ClassVar[str] = "RNM"
    regular: ClassVar[bool] = True  # McKenna & Sheldon (2020), Def. 3
    noise: ClassVar[str] = "gaussian"
    sigma: sympy.Expr = parameter(_sigma, "a number > 0", symbolic=False)
    sensitivity: sympy.Expr = sensitivity_parameter()
    monotonic: bool = monotonic_parameter()
    epsilon: sympy.Expr | None = parameter(_check_level, "None or a number > 0", default=None)
    optimize: str = optimize_parameter()

    def __repr__(self) -> str:  # the check level and optimize only when given
        extra = "" if self.epsilon is None else f", epsilon={value_repr(self.epsilon)}"
        extra += "" if self.optimize == "max" else f", optimize={self.optimize!r}"
        return (f"GaussianNoisyMax(sigma={value_repr(self.sigma)}, "
                f"sensitivity={value_repr(self.sensitivity)}, monotonic={self.monotonic}{extra})")

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
    def _absent(self, view: str) -> str:
        if view == "exact":
            return (f"{type(self).__name__}: no closed form exists; use .evalf(dps) "
                    "(mpmath quadrature with an error bound) or .to_numpy()")
        if view in ("rational_form", "numeric_rational_form"):
            return (f"{type(self).__name__}: no closed form exists, so there is no "
                    "rational form; use .evalf(dps) (quadrature with an error bound)")
        return super()._absent(view)

    def _check_cost(self, sv: ScoreVector, dps: int) -> None:
        """Refuse before the exact gaps are formed (n sympy divisions) when the quadrature
        would exceed its limit (:func:`exactdp.numeric.gaussian.check_gaussian_cost`)."""
        gaps = sv.gaps_float
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            z = np.where(gaps == 0, 0.0, gaps / float(sympy.N(self.sigma, 20)))
        top = float(gaps.max())
        if top > 0:  # the probabilities are about exp(-z^2/4): z^2 must have few digits
            with mpmath.workdps(15):  # one number each (the gaps in mpmath only if inf)
                g = mpmath.mpf(top) if math.isfinite(top) else max(sv.gaps_mp(15))
                zmax = g / mpmath.mpf(sympy.N(self.sigma, 15))
                digits = int(2 * mpmath.log10(zmax)) if zmax > 1 else 0
            if digits > MAX_GAP_DIGITS:
                raise refuse(
                    type(self).__name__, f"{dps} digits of probabilities near "
                    f"exp(-z^2/4) at a gap of z ~ 10^{digits // 2} sigma",
                    f"a probability below 10^(-10^{digits - 1})",
                    f"z^2 below 10^{MAX_GAP_DIGITS}",
                    "use .to_numpy() (float64: such probabilities are 0) or a larger sigma")
        finite = np.isfinite(z)
        check_gaussian_cost(int(np.count_nonzero(finite)),
                            int(np.count_nonzero(finite & (z > 40))), dps, type(self).__name__)

    def _mp(self, sv: ScoreVector, dps: int) -> list[mpmath.mpf]:
        self._check_cost(sv, dps)
        return list(gaussian_mp(self.gaps_in_sigma(sv), dps, func=type(self).__name__)[0])

    def _balls(self, sv: ScoreVector, dps: int) -> list:
        self._check_cost(sv, dps + 5)
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
