"""The base-2 exponential mechanism (Ilvento, CCS 2020).

``Pr[r] ∝ 2^(-eta (q* - q_r) / (c Delta))``: the exponential mechanism written in base 2 so
that, for rational ``eta`` and scores, it can be sampled exactly with integer arithmetic. It
is ``eta ln 2``-DP; as a distribution it is the exponential mechanism at
``epsilon = eta ln 2``, and every view here is computed by that mechanism's formulas
(softmax, :mod:`exactdp.mechanisms.exponential`).

This module is also the worked example of docs/architecture.md ("How to add a mechanism"):
one class with declared parameters and hooks, registered by ``@register``, and no other
file of the package touched.

References
----------
C. Ilvento, "Implementing the Exponential Mechanism with Base-2 Differential Privacy",
ACM CCS 2020, section 4 (the base-2 mechanism, ``eta ln 2``-DP).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import mpmath
import numpy as np
import sympy

from .._validate import argument_error
from ..numbers import exact_epsilon_or_limit
from ..numeric.pf import em_float, em_mp
from ..rational_form import RationalForm
from ..scores import ScoreVector
from ._sampling import noisy_argmax
from .base import Mechanism
from .exponential import softmax_balls, softmax_exact, softmax_rational_form
from .parameters import monotonic_parameter, optimize_parameter, parameter, sensitivity_parameter
from .registry import register


def _eta(func: str, name: str, value: object) -> sympy.Expr:
    """``eta >= 0`` exactly (0 and oo the limits, a positive Symbol allowed)."""
    try:
        return exact_epsilon_or_limit(value, func)
    except ValueError as exc:
        raise argument_error(func, name, ">= 0 (0 and oo are the exact limits)",
                             value) from exc


@register("em-base2", label="EM-base2")
@dataclass(frozen=True)
class Base2ExponentialMechanism(Mechanism):
    """The base-2 exponential mechanism: ``Pr[r] ∝ 2^(-eta (q* - q_r) / (c Delta))``.

    It is ``eta ln 2``-DP (``epsilon`` is that level); c = 2, or 1 for monotonic score
    functions.

    Parameters
    ----------
    eta : number or positive sympy Symbol
        The base-2 privacy parameter, >= 0 (0: uniform; oo: uniform on the maximizers).
    sensitivity : number, default 1
        Sensitivity ``Delta`` of the score function, > 0.
    monotonic : bool, default False
        A monotonic score function: ``c = 1`` instead of 2.
    optimize : {"max", "min"}, keyword only, default "max"

    Examples
    --------
    >>> from exactdp.mechanisms.base2_exponential import Base2ExponentialMechanism
    >>> m = Base2ExponentialMechanism(2)
    >>> m.epsilon
    2*log(2)
    >>> m.distribution([0, -1]).probabilities
    (2/3, 1/3)

    References
    ----------
    C. Ilvento, ACM CCS 2020, section 4.
    """

    name: ClassVar[str] = "EM-base2"
    regular: ClassVar[bool] = True  # McKenna & Sheldon (2020), Def. 3
    eta: sympy.Expr = parameter(_eta, ">= 0 (0 and oo are the exact limits)", symbolic=True)
    sensitivity: sympy.Expr = sensitivity_parameter()
    monotonic: bool = monotonic_parameter()
    optimize: str = optimize_parameter()

    @property
    def epsilon(self) -> sympy.Expr:
        """The privacy level ``eta ln 2``."""
        return self.eta * sympy.log(2)

    @classmethod
    def from_epsilon(cls, epsilon: object, **parameters) -> Base2ExponentialMechanism:
        """The mechanism that is ``epsilon``-DP: ``eta = epsilon / ln 2``."""
        eps = exact_epsilon_or_limit(epsilon, cls.__name__)
        if eps == sympy.oo:
            return cls(eps, **parameters)
        # log(8) / log(2) -> 3 by exact rewriting (logs of integers expanded)
        return cls(sympy.cancel(sympy.expand_log(eps, force=True) / sympy.log(2)), **parameters)

    # ------------------------------------------------------------------ hooks
    def _exact(self, sv: ScoreVector) -> tuple[sympy.Expr, ...]:
        return softmax_exact(self, sv)

    def _rational_form(self, sv: ScoreVector) -> RationalForm:
        return softmax_rational_form(self, sv)

    def _mp(self, sv: ScoreVector, dps: int) -> list[mpmath.mpf]:
        return em_mp(self.scaled_gaps_mp(sv, dps), dps)

    def _float(self, sv: ScoreVector) -> np.ndarray:
        return em_float(self.scaled_gaps_float(sv))

    def _balls(self, sv: ScoreVector, dps: int) -> list:
        return softmax_balls(self, sv, dps)

    def _sample(self, sv: ScoreVector, size: int, rng: np.random.Generator) -> np.ndarray:
        """The Gumbel-max trick on the scaled gaps (the same law as Ilvento's exact
        integer sampler)."""
        return noisy_argmax(self.scaled_gaps_float(sv), size, rng.gumbel)
