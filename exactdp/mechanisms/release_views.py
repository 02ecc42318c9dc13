"""What the distributions of output kind ``"release"`` share beside the protocol
(:class:`~exactdp.distribution.ReleaseDistribution`): the nominal base the audit recognises,
and ``evalf`` / ``to_numpy`` of pattern probabilities from their rigorous enclosures."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import flint
import mpmath
import numpy as np

from ..distribution import OutputLaw
from ..exact import arb_mid_to_mpf


class ReleasedValues(OutputLaw):
    """The base of the classes that follow
    :class:`~exactdp.distribution.ReleaseDistribution`: what
    :func:`exactdp.audit.goodness_of_fit` audits as a release sampler. Besides the protocol
    each gives ``to_numpy()`` (the pattern probabilities in float64), ``split(draws)`` (the
    draws of its ``sample`` as pattern positions and released values) and
    ``cdf_float(pattern, i, v)`` (the conditional CDF in float64, for the
    Kolmogorov-Smirnov test)."""

    __slots__ = ()
    if TYPE_CHECKING:
        @property
        def outputs(self) -> tuple[Any, ...]: ...
        @property
        def n(self) -> int: ...
        def to_numpy(self) -> np.ndarray: ...
        def split(self, draws: Any) -> tuple[np.ndarray, np.ndarray]: ...
        def cdf_float(self, pattern: Any, i: int, v: np.ndarray) -> np.ndarray: ...

    def loss_seconds(self, func: str) -> float:
        """Estimated seconds of one exact density supremum against a neighbour (what
        :func:`exactdp.check_dp` multiplies by the neighbour count): 0.02 s at 5 values,
        growing as ``n**3`` (measured about 0.011 s on a pair of 5 scores); a program
        prices its own runs (:meth:`exactdp.programs.release.ProgramRelease.loss_seconds`).
        ``func`` names the caller should the estimate itself be refused."""
        return 0.02 * (self.n / 5) ** 3


class BallViews:
    """``evalf`` and ``to_numpy`` of a distribution from its ``evalf_balls`` (the rigorous
    enclosures): the pattern probabilities of the sparse vector variants that release
    values (:class:`~exactdp.mechanisms.sparse_vector_release.SparseVectorRelease`)."""

    if TYPE_CHECKING:  # defined by the distribution
        def evalf_balls(self, dps: int = 30) -> tuple[flint.arb, ...]: ...

    def evalf(self, dps: int = 30) -> tuple[mpmath.mpf, ...]:
        """Probabilities as mpmath numbers correct to ``dps`` significant digits, in
        ``outputs`` order (the midpoints of :meth:`evalf_balls`)."""
        balls = self.evalf_balls(dps)
        with mpmath.workdps(dps):
            return tuple(+arb_mid_to_mpf(b) for b in balls)

    def to_numpy(self) -> np.ndarray:
        """Probabilities as float64, in ``outputs`` order."""
        out = np.array([float(v) for v in self.evalf(20)])
        out.setflags(write=False)
        return out
