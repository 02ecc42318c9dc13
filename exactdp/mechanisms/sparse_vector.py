"""The sparse vector technique (SVT): Lyu, Su and Li's Algorithms 1-6, exactly.

``SparseVector(epsilon, threshold, c=1, variant=1, sensitivity=1)`` runs on a vector of
query answers ``a = (a_1, ..., a_m)`` (the score vector; neighbouring vectors differ by at
most ``sensitivity`` in every entry, in either direction). It draws a threshold noise
``rho``, and for each query in turn answers ``True`` if ``a_i + nu_i >= T + rho`` (``nu_i``
the query noise) and ``False`` otherwise; the variants with a cut-off stop after the
``c``-th ``True`` and leave the remaining queries unanswered (``None``).

Noise scales (``D`` = sensitivity; ``eps1 = eps2 = epsilon/2`` unless said), as in the
suite of the DP-testing tools (DP-Sniper's ``dpsniper/mechanisms/sparse_vector_technique.py``):

====  =====================  ======================  ===========  ==========================
alg.  threshold noise rho    query noise nu_i        stop after   Lyu-Su-Li's privacy claim
====  =====================  ======================  ===========  ==========================
1     Lap(D/eps1)            Lap(2cD/eps2)           c Trues      epsilon-DP (Theorem 2)
2     Lap(cD/eps1), redrawn  Lap(2cD/eps2)           c Trues      epsilon-DP
      after every True
3     Lap(D/eps1)            Lap(cD/eps2); releases  c releases   not epsilon'-DP for any
                             a_i + nu_i when above                finite epsilon' (no bound
                                                                  independent of m)
4     Lap(D/eps1),           Lap(D/eps2),            c Trues      not epsilon-DP; it is
      eps1 = eps/4           eps2 = 3 eps/4                       ((1 + 6c)/4) epsilon-DP
5     Lap(D/eps1)            none                    never        not epsilon'-DP for any
                                                                  finite epsilon'
6     Lap(D/eps1)            Lap(D/eps2)             never        not epsilon'-DP for any
                                                                  finite epsilon' (no bound
                                                                  independent of m)
====  =====================  ======================  ===========  ==========================

Algorithm 3 releases the noisy answer ``a_i + nu_i`` (a continuous output): its distribution
(pattern probabilities, exact densities) and its exact privacy loss, ``(epsilon / (2 c D))
sum_i |a_i - a'_i|`` on answers moving one way (``m epsilon / (2c)`` at the worst
neighbours), are in :mod:`exactdp.mechanisms.sparse_vector_release`.

The probability of each answer sequence is an integral over ``rho`` of a product of Laplace
CDF factors, piecewise exponential in ``rho`` with breakpoints ``a_i - T``. For the discrete
variants (1, 2, 4, 5, 6) it is computed by the program engine
(:mod:`exactdp.mechanisms.sparse_vector_engine`: the programs of
:mod:`exactdp.programs.library` run symbolically, one run per decision prefix, each run's
star integrated in closed form by
:func:`~exactdp.mechanisms.sparse_vector_integral.segment_integral`) for rational answers and
threshold, with an exact or symbolic epsilon, and handed to the analyzer as flint
polynomials in ``x`` (``numeric_rational_form``; ``rational_form`` where it holds for every
epsilon, see :class:`SparseVector`); the sampler runs the program itself. Algorithm 3's
answer patterns keep their own integrals (:mod:`exactdp.mechanisms.sparse_vector_release`).

References
----------
M. Lyu, D. Su and N. Li, "Understanding the Sparse Vector Technique for Differential
Privacy", PVLDB 10(6), 2017: Algorithms 1-6 (Figure 1), Theorem 2 (Algorithm 1 is
epsilon-DP), section 4 (the privacy of Algorithms 2-6).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import prod
from typing import TYPE_CHECKING

import flint
import mpmath
import numpy as np
import sympy

from .._validate import argument_error, check_int
from ..cost import check_seconds, fmt_size, refuse
from ..distribution import LossSupremum
from ..exact import arb_mid_to_mpf
from ..numbers import exact_epsilon, exact_number
from ..rational_form import RationalForm
from ..scores import ScoreVector, as_scores
from ..xform import DENSE_DEGREE_LIMIT
from .base import Mechanism
from .parameters import parameter, sensitivity_parameter
from .registry import register
from .sparse_vector_distribution import (
    SparseVectorDistribution,
    probability_balls,
    probability_exprs,
    x_form,
)
from .sparse_vector_engine import closed_form, engine_mechanism, sample_positions
from .sparse_vector_integral import Scheme, Value, sequence_count, sequence_probabilities
from .sparse_vector_loss import coupled_loss
from .sparse_vector_release import SparseVectorRelease, as_fraction, lyu_su_li_3

#: The variants implemented (Lyu-Su-Li's algorithm numbers).
VARIANTS = (1, 2, 3, 4, 5, 6)
#: Most answer sequences a distribution enumerates (``2**12``): the exact route's work grows
#: with the sequences times the terms of their integrands.
MAX_SEQUENCES = 4096


def exact_seconds(count: int, sizes: Sequence[int]) -> float:
    """Estimated seconds of the exact probabilities of ``count`` answer sequences on a
    vector of ``m = sum(sizes)`` answers whose equal answers form groups of ``sizes``: at
    most ``prod(n + 1)`` distinct integrals (one per count vector of Trues and Falses per
    group), each with at most ``prod(n + 1)`` and about ``m^3`` terms (``m`` intervals,
    polynomials of degree about ``m`` in the shared noise, coefficients growing with ``m``),
    plus the walk over the sequences. Measured (CPU, one core): Algorithm 6, 10 distinct
    answers 3.4-6.2 s, 11 distinct 7.6 s, five pairs 0.22 s, 10 equal answers 2 ms;
    Algorithm 1 with ``c = 1`` (``m + 1`` sequences), 10 / 20 / 30 / 40 distinct answers
    0.05 / 0.47 / 3.0 / 13.8 s, with ``c = 2`` 10 / 20 distinct 0.43 / 9.1 s."""
    terms = min(prod(n + 1 for n in sizes), 10**30)
    m = sum(sizes)
    return 4e-6 * min(count, terms) * min(terms, m**3) + 2e-5 * count


def cheaper_advice(cutoff: int | None, neighbour: bool = False) -> str:
    """What runs faster than an exact analysis refused on many queries: fewer queries
    (equal answers share their integrals), a smaller cut-off when it is above 1, a
    variant with a cut-off when there is none (``m + 1`` sequences at ``c = 1``)."""
    ways = ["use fewer queries (equal answers are cheaper)"]
    if cutoff is None:
        ways.append("a variant with a cut-off c")
    elif cutoff > 1:
        ways.append("a smaller cut-off c")
    if neighbour:
        ways.append("pass the one neighbour to check (neighbour=...)")
    return ", ".join(ways[:-1]) + (" or " if len(ways) > 1 else "") + ways[-1]


def check_rational_offsets(func: str, sv: ScoreVector, threshold: sympy.Expr) -> None:
    """Refuse, by name, what the exact route cannot take: it needs rational offsets
    ``a_i - T``, so rational answers and a rational threshold (an irrational answer is
    named as such, not blamed on the threshold)."""
    why = "a rational number (the exact probabilities need rational answers and threshold)"
    for i, v in enumerate(sv.exact):
        if not v.is_Rational:
            raise argument_error(func, f"scores[{i}]", why, v)
    if not threshold.is_Rational:
        raise argument_error(func, "threshold", why, threshold)


def group_sizes(values: Sequence[object]) -> list[int]:
    """The sizes of the groups of equal answers (equal offsets ``a_i - T``)."""
    return list(Counter(values).values())




def svt_epsilon(func: str, name: str, value: object) -> sympy.Expr:
    """The ``epsilon`` parameter of the sparse vector mechanisms: > 0 and finite, or a
    positive Symbol."""
    return exact_epsilon(value, func)


def svt_threshold(func: str, name: str, value: object) -> sympy.Expr:
    """The ``threshold`` parameter: a finite exact number."""
    return exact_number(value, name, func=func)


def svt_cutoff(func: str, name: str, value: object) -> int:
    """The cut-off ``c``: a positive integer."""
    return check_int(func, name, value, 1)


class QueryAnswers:
    """A mixin of what the sparse vector mechanisms share (listed before ``Mechanism`` in
    their bases): they run on a vector of query answers that may move both ways between
    neighbours (never monotonic), are not reoriented, and every noise is Laplace of scale
    ``1 / (t * lam)``, ``lam = epsilon / sensitivity``."""

    if TYPE_CHECKING:  # the mechanism's parameter fields
        epsilon: sympy.Expr
        sensitivity: sympy.Expr

    @property
    def monotonic(self) -> bool:
        """False: the query answers may move both ways between neighbours."""
        return False

    @property
    def optimize(self) -> str:
        """``"max"`` (the answers are not reoriented)."""
        return "max"

    @property
    def rate(self) -> sympy.Expr:
        """``lam = epsilon / sensitivity``: every noise is Laplace of scale ``1 / (t lam)``
        with ``t`` rational."""
        return self.epsilon / self.sensitivity


def _variant(func: str, name: str, value: object) -> int:
    v = check_int(func, name, value)
    if v not in VARIANTS:
        raise argument_error(func, name, "one of 1..6 (Lyu-Su-Li's Algorithms)", value)
    return v


@register("svt3", label="SVT3", example={"threshold": 0}, variant=3)
@register("svt", label="SVT", example={"threshold": 0})
@dataclass(frozen=True)
class SparseVector(QueryAnswers, Mechanism):
    """The sparse vector technique, Lyu-Su-Li's Algorithm ``variant``, over answer sequences.

    Parameters
    ----------
    epsilon : number or positive sympy Symbol
        The privacy budget the algorithm is calibrated to, > 0 and finite (the claimed
        level; only some variants meet it, see below).
    threshold : number
        The threshold ``T``, a finite real number (rational for the exact probabilities).
    c : int, default 1
        The cut-off: Algorithms 1, 2, 3 and 4 stop after the ``c``-th ``True`` (``c``
        larger than the number of queries is a valid run that never stops); it also sets
        the noise scales of Algorithms 1, 2 and 3. Algorithms 5 and 6 never stop.
    variant : {1, 2, 3, 4, 5, 6}, default 1
        Lyu, Su and Li's algorithm number:

        - **1**: ``rho ~ Lap(D/eps1)``, ``nu_i ~ Lap(2cD/eps2)``, ``eps1 = eps2 = eps/2``,
          stop after ``c``. epsilon-DP (Lyu-Su-Li, Theorem 2).
        - **2**: ``rho ~ Lap(cD/eps1)`` drawn afresh after every ``True``,
          ``nu_i ~ Lap(2cD/eps2)``, stop after ``c``. epsilon-DP (Lyu-Su-Li, section 4.1:
          Dwork and Roth's version, correct).
        - **3**: ``rho ~ Lap(D/eps1)``, ``nu_i ~ Lap(cD/eps2)``, ``eps1 = eps2 = eps/2``;
          releases the noisy answer ``a_i + nu_i`` when it is above (else ``False``), stop
          after the ``c``-th release. Not epsilon'-DP for any finite epsilon' (Lyu-Su-Li,
          Figure 1 and section 4.2; the variant of Roth's 2011 lecture notes): no bound independent
          of m. At fixed m its exact loss is ``(eps / (2cD)) sum_i |a_i - a'_i|`` on
          answers moving one way (answers moving both ways: the program engine's exact
          supremum, else its certified bracket), ``m eps / (2c)`` at the worst
          neighbours (exactdp;
          :mod:`~exactdp.mechanisms.sparse_vector_release`). Output kind ``"release"``
          (registry entry ``svt3``): its distribution follows
          :class:`~exactdp.distribution.ReleaseDistribution` (pattern probabilities,
          ``density(output)``, ``cdf(pattern, i, v)``, the sampler); its privacy loss is
          :func:`exactdp.privacy_loss` (capability ``"density"``). The other variants: output
          kind ``"sequence"``.
        - **4**: ``eps1 = eps/4``, ``eps2 = 3 eps/4``, ``rho ~ Lap(D/eps1)``,
          ``nu_i ~ Lap(D/eps2)``, stop after ``c``. Not epsilon-DP: it is
          ``((1 + 6c)/4) epsilon``-DP (Lyu-Su-Li, section 4.2; Chen et al. 2015).
        - **5**: ``rho ~ Lap(D/eps1)``, no query noise, never stops. Not epsilon'-DP for any
          finite epsilon' (Lyu-Su-Li, section 4.2; Stoddard et al. 2014).
        - **6**: ``rho ~ Lap(D/eps1)``, ``nu_i ~ Lap(D/eps2)``, never stops. Not
          epsilon'-DP for any finite epsilon': its loss grows without bound in the number
          of queries (Lyu-Su-Li, section 4.2; Chen and Machanavajjhala 2015).
    sensitivity : number, default 1
        ``D``: every query answer moves by at most this between neighbours.

    Raises
    ------
    ValueError
        A one-line error naming the argument: epsilon not > 0 and finite, a non-finite
        threshold, ``c < 1``, an unknown variant.

    Notes
    -----
    Every probability is ``sum q lam**e exp(lam W)`` (``lam = epsilon / sensitivity``,
    ``e`` in {0, 1}). At a rational epsilon it is a polynomial in ``x = exp(-lam/L)``
    over a power of ``x`` (``numeric_rational_form``: the analyzer's exact route, flint
    polynomials, milliseconds at 10 queries). For *every* epsilon (``rational_form``,
    hence :func:`exactdp.certify_dp`) only where no ``e = 1`` term survives: such a term
    comes from an integrand rate ``k t2`` equal to the threshold rate ``t1`` on a bounded
    interval between the breakpoints ``a_i - T``. So Algorithm 4 (``t1/t2 = 1/3``) and
    Algorithm 5 (no query noise) are rational in ``x`` on every input; Algorithm 6
    (``t1 = t2``) only when every answer equals ``T``; Algorithm 1 (``t1 = 2c t2``) and
    Algorithm 2 (``t1 = 2 t2`` within a segment) unless ``2c`` (resp. 2) answered queries
    fall on one side of ``T``. :meth:`rational_obstruction` decides it exactly on the
    closed form and says why; ``certify_dp`` refuses with that reason elsewhere.

    ``check_dp`` with no neighbour searches the ``3**m - 1`` vertices for ``m <= 6`` and
    the heuristic set of :func:`exactdp.analysis.neighbourhood.heuristic_moves` beyond
    (``search="reduced"`` does not apply: the mechanism is not regular).

    Examples
    --------
    >>> from exactdp import SparseVector
    >>> d = SparseVector(1, 0).distribution([0])
    >>> d.outputs
    ((True,), (False,))
    >>> d.probabilities
    (1/2, 1/2)

    Algorithm 3 releases the noisy answer; its loss on ``m`` queries moved by 1 is
    ``m epsilon / (2c)``, attained:

    >>> svt3 = SparseVector(1, 0, variant=3)
    >>> svt3.distribution([0, 0]).density((False, 1))
    -exp(-1)/8 + exp(-3/2)/32 + exp(-1/2)/8
    >>> import exactdp
    >>> loss = exactdp.privacy_loss(svt3, [0, 0, 0], [1, 1, 1])
    >>> loss.value, loss.attained
    (3/2, True)

    References
    ----------
    M. Lyu, D. Su and N. Li, PVLDB 10(6), 2017, Figure 1 (Algorithms 1-6) and section 4.
    """

    epsilon: sympy.Expr = parameter(svt_epsilon, "> 0 and finite", symbolic=True)
    threshold: sympy.Expr = parameter(svt_threshold, "a finite real number")
    c: int = parameter(svt_cutoff, "a positive integer", default=1, exact=False)
    variant: int = parameter(_variant, "one of 1..6", default=1, exact=False)
    sensitivity: sympy.Expr = sensitivity_parameter()

    @property
    def output_kind(self) -> str:
        """``"release"`` for Algorithm 3 (it releases noisy answers), else ``"sequence"``."""
        return "release" if self.variant == 3 else "sequence"

    @property
    def scale(self) -> sympy.Expr:
        """The scale of the threshold noise ``rho``."""
        return 1 / (self.scheme.threshold_rate * self.rate)

    @property
    def query_scale(self) -> sympy.Expr | None:
        """The scale of each query noise ``nu_i`` (None for Algorithm 5: no query noise)."""
        t2 = self.scheme.query_rate
        return None if t2 is None else 1 / (t2 * self.rate)

    @property
    def scheme(self) -> Scheme:
        """The noise rates (in units of ``epsilon / sensitivity``) and the stopping rule."""
        c = Fraction(self.c)
        if self.variant == 1:
            return Scheme(Fraction(1, 2), 1 / (4 * c), self.c)
        if self.variant == 2:
            return Scheme(1 / (2 * c), 1 / (4 * c), self.c, fresh_threshold=True)
        if self.variant == 3:  # its answer patterns (the released values apart)
            return lyu_su_li_3(self.c).pattern_scheme
        if self.variant == 4:
            return Scheme(Fraction(1, 4), Fraction(3, 4), self.c)
        if self.variant == 5:
            return Scheme(Fraction(1, 2), None, None)
        return Scheme(Fraction(1, 2), Fraction(1, 2), None)

    @property
    def capabilities(self) -> frozenset[str]:
        """From the hooks (:data:`~exactdp.mechanisms.base.HOOKS`): exact probabilities,
        the mpmath, arb and float views, the sampler, the probabilities as polynomials in
        ``x`` at a rational epsilon (``numeric_rational_form``: what the analyzer's x-form
        engine reads) and, on the answers where they are rational in ``x`` for every
        epsilon, ``rational_form`` (:meth:`rational_obstruction`). Algorithm 3 (output
        kind ``"release"``): ``"density"`` (its loss as a supremum of densities) and the
        sampler."""
        if self.variant == 3:
            return self.hook_capabilities & {"density", "sample"}
        return self.hook_capabilities - {"density"}

    def capabilities_on(self, sv: ScoreVector) -> frozenset[str]:
        """:attr:`capabilities` on the answers ``sv``: no numeric view or sampler for a
        symbolic epsilon, no ``numeric_rational_form`` unless ``epsilon / sensitivity`` is
        rational, ``rational_form`` only without obstruction (:meth:`rational_obstruction`)."""
        caps = set(self.capabilities)
        if self.epsilon.free_symbols:
            if self.variant == 3:
                return frozenset({"density"})
            caps &= {"exact", "rational_form"}
        elif self.variant == 3:
            return self.capabilities
        elif not self.rate.is_Rational:
            caps.discard("numeric_rational_form")
        if self.rational_obstruction(sv) is not None:
            caps.discard("rational_form")
        return frozenset(caps)

    def rational_obstruction(self, sv: ScoreVector) -> str | None:
        """Why the probabilities on ``sv`` are not rational functions of one
        ``x = exp(-epsilon/N)`` for every epsilon, or None when they are.

        Each probability is ``sum q lam**e exp(lam W)`` (``lam = epsilon/sensitivity``).
        A term with ``e = 1`` comes from a piece of the integrand ``exp(k t2 lam rho)``
        whose rate cancels the threshold density's ``exp(-+t1 lam rho)`` on a bounded
        interval between the breakpoints ``{0} U {a_i - T}``: ``k t2 = +-t1`` for an
        integer ``k`` of at most the answered queries. So there are none, and the
        probabilities are polynomials in ``x`` over a power of ``x``, for Algorithm 5 (no
        query noise), Algorithm 4 (``t1/t2 = 1/3`` is no integer), every variant when
        all answers equal the threshold (no bounded interval), and Algorithm 1 with fewer
        than ``2c`` queries; Algorithms 1, 2 and 6 otherwise have them in general. Decided
        exactly on the closed form (no ``e = 1`` term left after exact cancellation).
        """
        if not (sv.is_rational and self.threshold.is_Rational):
            return "irrational answers or threshold"
        scheme = self.scheme
        if scheme.query_rate is None or scheme.threshold_rate / scheme.query_rate % 1 != 0:
            return None  # no integer k: never
        if all(v == self.threshold for v in sv.exact):
            return None
        try:
            self.check_cost("SparseVector.rational_obstruction", [sv])
        except ValueError as exc:
            return f"its closed form is not computed ({exc})"
        if not any(e for v in self.closed_form(sv) for e, _ in v):
            return None
        k = scheme.threshold_rate / scheme.query_rate
        return (f"Algorithm {self.variant}'s Laplace rates t1 = {scheme.threshold_rate} and "
                f"t2 = {scheme.query_rate} meet (t1 = {k} t2) on a bounded interval between "
                "the breakpoints a_i - T, which gives epsilon*exp(epsilon*w) terms")

    def check_cost(self, func: str, vectors: Sequence[ScoreVector]) -> None:
        """Refuse, naming ``func``, an exact analysis of these query vectors above
        :data:`MAX_SEQUENCES` answer sequences or :data:`exactdp.cost.SECONDS_LIMIT`: the
        exact distribution of each (:func:`exact_seconds`) and about 30 us of the
        analyzer's work per answer sequence of each (measured: 1.1 s for the 729 vectors
        of the exhaustive search at m = 6).

        Raises
        ------
        TooCostly
            With the estimate and the cheaper route.
        """
        n = vectors[0].n
        count = sequence_count(n, self.scheme.cutoff)
        cheaper = cheaper_advice(self.scheme.cutoff, neighbour=True)
        if count > MAX_SEQUENCES:
            raise refuse(func, f"the exact distributions of {n} queries",
                         f"{fmt_size(count)} answer sequences", f"{MAX_SEQUENCES}", cheaper)
        seconds = sum(exact_seconds(count, group_sizes(v.exact)) for v in vectors)
        check_seconds(func, f"an exact analysis of {len(vectors)} query vectors of {n} "
                      f"queries ({fmt_size(count)} answer sequences each)",
                      seconds + 3e-5 * count * len(vectors), cheaper)

    # ------------------------------------------------------------------ hooks
    def closed_form(self, sv: ScoreVector) -> tuple[Value, ...]:
        """Each answer sequence's probability on the answers ``sv`` as ``{(e, W): q}``:
        ``sum q lam**e exp(lam W)``, ``lam = epsilon / sensitivity`` (the closed form
        before it becomes a sympy expression; shared and cached: do not modify it). The
        discrete variants: by the program engine
        (:func:`~exactdp.mechanisms.sparse_vector_engine.closed_form`); Algorithm 3: its
        answer patterns' probabilities (the released values integrated out).

        Raises
        ------
        ValueError
            Irrational answers or threshold.
        """
        if not (sv.is_rational and self.threshold.is_Rational):
            raise ValueError("SparseVector: the exact probabilities need rational answers "
                             f"and a rational threshold, got threshold {self.threshold}")
        if self.variant == 3:
            T = as_fraction(self.threshold)
            return tuple(sequence_probabilities([as_fraction(a) - T for a in sv.exact],
                                                self.scheme))
        return closed_form(self.variant, self.epsilon, self.threshold, self.c,
                           self.scheme.cutoff, self.sensitivity, tuple(sv.exact))

    def _exact(self, sv: ScoreVector) -> tuple[sympy.Expr, ...]:
        return probability_exprs(self.closed_form(sv), self.rate)

    def _numeric_rational_form(self, sv: ScoreVector) -> RationalForm | None:
        lam = self.rate
        if self.epsilon.free_symbols or not lam.is_Rational:
            return None
        return x_form(self.closed_form(sv), lam, flint.fmpq(int(lam.p), int(lam.q)))

    def _rational_form(self, sv: ScoreVector) -> RationalForm:
        why = self.rational_obstruction(sv)
        if why is not None:
            raise ValueError(f"SparseVector: no rational form in x here: {why}")
        rf = x_form(self.closed_form(sv), self.rate, None)
        if rf is None:
            raise ValueError("SparseVector: no rational form in x here: its degree is above "
                             f"DENSE_DEGREE_LIMIT = {DENSE_DEGREE_LIMIT}")
        return rf

    def _balls(self, sv: ScoreVector, dps: int) -> list:
        if self.epsilon.free_symbols:
            raise ValueError(f"SparseVector: epsilon is symbolic ({self.epsilon}); numeric "
                             "views need a number")
        return list(probability_balls(self.closed_form(sv), self.rate, dps))

    def _mp(self, sv: ScoreVector, dps: int) -> list[mpmath.mpf]:
        """The midpoints of :meth:`_balls` (``dps`` correct digits)."""
        return [arb_mid_to_mpf(b) for b in self._balls(sv, dps)]

    def _float(self, sv: ScoreVector) -> np.ndarray:
        vals = self._mp(sv, 20)
        with mpmath.workdps(20):
            return np.array([float(+v) for v in vals])

    def _sample(self, sv: ScoreVector, size: int, rng: np.random.Generator) -> np.ndarray:
        """Positions in the answer sequences of runs of the algorithm itself: the library's
        program run with random draws (Algorithm 3: its answer patterns, by its release
        distribution's sampler)."""
        if self.variant == 3:
            release = SparseVectorRelease(self, sv, lyu_su_li_3(self.c), self.threshold)
            return release.sample_index(size, rng)
        mech = engine_mechanism(self.variant, self.epsilon, self.threshold, self.c,
                                self.sensitivity)
        return sample_positions(mech, sv, self.scheme.cutoff, size, rng)

    def _loss_supremum(self, sv: ScoreVector, sv2: ScoreVector) -> LossSupremum:
        """Algorithm 3's exact loss (:func:`.sparse_vector_loss.coupled_loss`)."""
        return coupled_loss("privacy_loss", self, sv, sv2, lyu_su_li_3(self.c), self.threshold)

    def distribution(  # type: ignore[override]  # a release distribution for variant 3
            self, scores: object) -> SparseVectorDistribution | SparseVectorRelease:
        """The exact distribution over answer sequences on the query answers ``scores``.

        Raises
        ------
        ValueError
            Invalid answers; irrational answers or threshold (the exact route needs
            rational offsets ``a_i - T``); more than :data:`MAX_SEQUENCES` sequences.
        """
        func = "SparseVector.distribution"
        sv = as_scores(scores, "scores", func)
        count = sequence_count(sv.n, self.scheme.cutoff)
        if count > MAX_SEQUENCES:
            raise refuse(func, f"the exact distribution of {sv.n} queries",
                         f"{fmt_size(count)} answer sequences", f"{MAX_SEQUENCES}",
                         cheaper_advice(self.scheme.cutoff))
        check_seconds(func, f"the exact distribution of {sv.n} queries",
                      exact_seconds(count, group_sizes(sv.exact)),
                      cheaper_advice(self.scheme.cutoff))
        check_rational_offsets(func, sv, self.threshold)
        if self.variant == 3:
            return SparseVectorRelease(self, sv, lyu_su_li_3(self.c), self.threshold)
        return SparseVectorDistribution(
            self, sv, self.scheme.cutoff, f"SVT{self.variant}, c={self.c}", self.scheme,
            self.threshold)
