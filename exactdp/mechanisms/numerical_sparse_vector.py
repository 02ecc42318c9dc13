"""The numerical sparse vector technique (NumSVT) of Wang et al., PLDI 2019, exactly.

It releases, for each query above a noisy threshold, a freshly noised copy of the answer:
the distribution, densities, CDFs and sampler are the closed forms of
:mod:`exactdp.mechanisms.sparse_vector_release` (the "fresh" case); the exact privacy loss
is the program engine's, on the library's program ``numerical_svt``
(:func:`~exactdp.mechanisms.sparse_vector_release_engine.fresh_loss`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import sympy

from .._validate import argument_error
from ..cost import as_caller, check_seconds, fmt_size, refuse
from ..distribution import LossSupremum
from ..scores import ScoreVector, as_scores
from .base import Mechanism
from .parameters import parameter, sensitivity_parameter
from .registry import register
from .sparse_vector import (
    MAX_SEQUENCES,
    QueryAnswers,
    check_rational_offsets,
    exact_seconds,
    group_sizes,
    svt_cutoff,
    svt_epsilon,
    svt_threshold,
)
from .sparse_vector_integral import sequence_count
from .sparse_vector_release import SparseVectorRelease, numerical_svt
from .sparse_vector_release_engine import fresh_loss


@register("numerical-svt", label="NumSVT", example={"threshold": 0})
@dataclass(frozen=True)
class NumericalSparseVector(QueryAnswers, Mechanism):
    """The numerical sparse vector technique (Wang et al., PLDI 2019): noisy answers of the
    queries above a noisy threshold.

    With ``D`` the sensitivity: a threshold noise ``rho ~ Lap(3D/eps)``; for each query in
    turn a comparison noise ``nu_i ~ Lap(6cD/eps)``; if ``a_i + nu_i >= T + rho`` it
    releases ``a_i + eta_i`` with a fresh ``eta_i ~ Lap(3cD/eps)``, else ``False`` (the
    paper writes 0); it stops after the ``c``-th release (the remaining entries ``None``).

    Wang et al. prove it epsilon-DP (PLDI 2019, one of the algorithms verified there by
    shadow execution; the budget splits as threshold ``eps/3``, comparisons ``eps/3``,
    released values ``eps/3``). exactdp's
    exact loss on a pair is ``max over patterns of |ln P_a / P_a'| + (eps / (3cD))
    sum_released |a_i - a'_i|``, attained (:func:`exactdp.privacy_loss`: computed by the
    program engine on the library's ``numerical_svt``; the derivation is in
    :mod:`exactdp.programs.release_separable`).

    Parameters
    ----------
    epsilon : number or positive sympy Symbol
        The privacy level, > 0 and finite.
    threshold : number
        The threshold ``T``, a finite real number (rational for the exact route).
    c : int, default 1
        Stop after this many releases (``c`` larger than the number of queries never stops).
    sensitivity : number, default 1
        ``D``: every query answer moves by at most this between neighbours.

    Raises
    ------
    ValueError
        A one-line error naming the argument: epsilon not > 0 and finite, a non-finite
        threshold, ``c < 1``.

    Examples
    --------
    >>> from exactdp import NumericalSparseVector
    >>> mech = NumericalSparseVector(1, 0)
    >>> d = mech.distribution([0])
    >>> d.outputs
    ((True,), (False,))
    >>> d.probabilities
    (1/2, 1/2)
    >>> d.density((2,))
    exp(-2/3)/12
    >>> import exactdp
    >>> loss = exactdp.privacy_loss(mech, [0, 0], [1, 1])
    >>> bool(loss.value <= 1), loss.attained
    (True, True)

    References
    ----------
    Y. Wang, Z. Ding, G. Wang, D. Kifer and D. Zhang, "Proving differential privacy with
    shadow execution", PLDI 2019 (NumSVT). DP-Sniper's suite runs it at 10 queries, c = 1.
    """

    output_kind: ClassVar[str] = "release"
    epsilon: sympy.Expr = parameter(svt_epsilon, "> 0 and finite", symbolic=True)
    threshold: sympy.Expr = parameter(svt_threshold, "a finite real number")
    c: int = parameter(svt_cutoff, "a positive integer", default=1, exact=False)
    sensitivity: sympy.Expr = sensitivity_parameter()

    @property
    def capabilities(self) -> frozenset[str]:
        """``"density"`` (the loss as a supremum of densities) and the sampler."""
        return frozenset({"density", "sample"})

    def capabilities_on(self, sv: ScoreVector) -> frozenset[str]:
        """:attr:`capabilities`; no sampler for a symbolic epsilon."""
        return frozenset({"density"}) if self.epsilon.free_symbols else self.capabilities

    def distribution(self, scores: object) -> SparseVectorRelease:  # type: ignore[override]
        """The distribution on the query answers ``scores``: the exact answer-pattern
        probabilities, ``density(output)`` and the sampler.

        Raises
        ------
        ValueError
            Invalid answers; irrational answers or threshold; too many queries for the
            exact route (the cost model).
        """
        func = "NumericalSparseVector.distribution"
        sv = as_scores(scores, "scores", func)
        count = sequence_count(sv.n, self.c)
        cheaper = "use fewer queries, or sample the algorithm (distribution(...).sample)"
        if count > MAX_SEQUENCES:
            raise refuse(func, f"the exact distribution of {sv.n} queries",
                         f"{fmt_size(count)} answer patterns", f"{MAX_SEQUENCES}", cheaper)
        check_seconds(func, f"the exact distribution of {sv.n} queries",
                      exact_seconds(count, group_sizes(sv.exact)), cheaper)
        check_rational_offsets(func, sv, self.threshold)
        return SparseVectorRelease(self, sv, numerical_svt(self.c), self.threshold)

    def _loss_supremum(self, sv: ScoreVector, sv2: ScoreVector) -> LossSupremum:
        func = "privacy_loss"
        if sv.n != sv2.n:
            raise argument_error(func, "neighbour", f"a vector of {sv.n} query answers", sv2.n)
        with as_caller(func):  # the class's checks: the cost model, rational answers
            self.distribution(sv.raw), self.distribution(sv2.raw)
        return fresh_loss(func, self.epsilon, self.threshold, self.c, self.sensitivity, sv,
                          sv2)
