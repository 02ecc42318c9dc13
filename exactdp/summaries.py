"""The summaries of a discrete distribution over scored outputs: expected error, its tail,
entropy and expectations, each exactly, at mpmath precision or in floats.

:class:`Summaries` is a mixin of :class:`~exactdp.distribution.OutputDistribution`: it reads
the distribution's ``probabilities``, ``evalf(dps)`` and ``to_numpy()`` (the float view,
computed once per distribution and shared by every float summary) and the mechanism's
oriented scores (``-q`` under ``optimize="min"``).

References
----------
R. McKenna and D. Sheldon, "Permute-and-Flip: A new mechanism for differentially private
selection", NeurIPS 2020, section 2 (the expected error ``E[q* - q_M(q)]``).
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, Protocol

import mpmath
import numpy as np
import sympy

from ._validate import check_choice
from .exact.signs import compare
from .numbers import exact_number
from .scores import ScoreVector


class Summarized(Protocol):
    """What the summaries read of a distribution (:class:`~exactdp.distribution.
    OutputDistribution` has it)."""

    @property
    def mechanism(self) -> Any: ...

    @property
    def scores(self) -> ScoreVector: ...

    @property
    def n(self) -> int: ...

    @property
    def probabilities(self) -> Any: ...

    @property
    def _oriented(self) -> ScoreVector: ...

    def evalf(self, dps: int = 30) -> Any: ...

    def to_numpy(self) -> np.ndarray: ...


class Summaries:
    """Expected error, error tail, entropy and expectations of a distribution over the
    outputs ``0..n-1`` of scores ``q`` (a mixin: see the module docstring)."""

    @cached_property
    def _oriented(self: Summarized) -> ScoreVector:
        """The scores the mechanism maximizes (``-q`` under ``optimize="min"``): the errors
        below are their gaps, ``q* - q_r``, or ``q_r - min q`` when minimizing."""
        return self.mechanism.oriented(self.scores)

    def expected_error(self: Summarized, method: str = "exact", dps: int = 30):
        """Expected error ``E[q* - q_M(q)]`` (McKenna & Sheldon 2020, section 2); under
        ``optimize="min"`` the error of output r is ``q_r - min q``.

        Parameters
        ----------
        method : {"exact", "mpmath", "float"}
            Which view of the probabilities to use.
        dps : int, default 30
            Correct digits of the ``"mpmath"`` route.

        Returns
        -------
        sympy.Expr, mpmath.mpf or float
            ``sum_r (q* - q_r) P_r`` in the units of the scores.

        Raises
        ------
        ValueError
            An unknown ``method`` (one line naming it).

        Examples
        --------
        >>> import exactdp
        >>> exactdp.ExponentialMechanism(2).distribution([0, -1]).expected_error()
        exp(-1)/(exp(-1) + 1)
        """
        method = check_choice("expected_error", "method", method, ("exact", "mpmath", "float"))
        if method == "exact":
            pairs = zip(self._oriented.gaps_exact, self.probabilities, strict=True)
            return sympy.Add(*[g * p for g, p in pairs])
        if method == "mpmath":
            probs = self.evalf(dps)
            with mpmath.workdps(dps + 10):
                gaps = self._oriented.gaps_mp(dps + 10)
                return mpmath.fsum(g * p for g, p in zip(gaps, probs, strict=True))
        gaps_float = self._oriented.gaps_float  # method == "float"
        p = self.to_numpy()
        mask = p > 0
        return float(np.dot(gaps_float[mask], p[mask]))

    def error_tail(self: Summarized, t: object, method: str = "exact"):
        """``Pr[q* - q_M(q) >= t]``: the error's survival function (Thm 5.2 of the notes).

        Parameters
        ----------
        t : exact number
            The error threshold, in the units of the scores.
        method : {"exact", "float"}
            The exact sum of the probabilities, or the float view's (one vectorised sum).

        Returns
        -------
        sympy.Expr or float
            The probability that the output's gap to the best score is at least ``t``.

        Raises
        ------
        ValueError
            An unknown ``method`` or a ``t`` that is not an exact number.

        Examples
        --------
        >>> import exactdp
        >>> exactdp.ExponentialMechanism(2).distribution([0, -1, -2]).error_tail(2)
        exp(-2)/(exp(-2) + exp(-1) + 1)
        """
        method = check_choice("error_tail", "method", method, ("exact", "float"))
        t = exact_number(t, "t", func="error_tail")
        idx = [i for i, g in enumerate(self._oriented.gaps_exact) if compare(g, t) >= 0]
        if method == "exact":
            return sympy.Add(*[self.probabilities[i] for i in idx])
        return float(self.to_numpy()[idx].sum()) if idx else 0.0

    def entropy(self: Summarized, method: str = "float", dps: int = 30):
        """Shannon entropy ``-sum_r P_r ln P_r`` in nats (Shannon 1948).

        Parameters
        ----------
        method : {"float", "exact", "mpmath"}
            Which view of the probabilities to use (outputs of probability 0 add nothing).
        dps : int, default 30
            Correct digits of the ``"mpmath"`` route.

        Returns
        -------
        float, sympy.Expr or mpmath.mpf

        Raises
        ------
        ValueError
            An unknown ``method``.

        Examples
        --------
        >>> import exactdp
        >>> exactdp.ExponentialMechanism(1).distribution([0, 0]).entropy("exact")
        log(2)
        """
        method = check_choice("entropy", "method", method, ("exact", "mpmath", "float"))
        if method == "exact":
            return -sympy.Add(*[p * sympy.log(p) for p in self.probabilities if p != 0])
        if method == "mpmath":
            probs = self.evalf(dps)
            with mpmath.workdps(dps + 10):
                return -mpmath.fsum(p * mpmath.log(p) for p in probs if p > 0)
        p = self.to_numpy()
        p = p[p > 0]
        return float(-np.sum(p * np.log(p)))

    def expect(self: Summarized, func, method: str = "float"):
        """``E[func(r)]`` over the output index r (scipy.stats style).

        Parameters
        ----------
        func : callable
            ``func(r)`` for an output index ``r`` in ``0..n-1`` (exact values for the
            ``"exact"`` route).
        method : {"float", "exact"}
            The float view or the exact probabilities.

        Returns
        -------
        float or sympy.Expr

        Raises
        ------
        ValueError
            An unknown ``method``.

        Examples
        --------
        >>> import exactdp
        >>> exactdp.ExponentialMechanism(1).distribution([0, 0]).expect(lambda r: r)
        0.5
        """
        method = check_choice("expect", "method", method, ("exact", "float"))
        if method == "exact":
            return sympy.Add(*[func(r) * p for r, p in enumerate(self.probabilities)])
        p = self.to_numpy()
        return float(sum(func(r) * p[r] for r in range(self.n) if p[r] > 0))
