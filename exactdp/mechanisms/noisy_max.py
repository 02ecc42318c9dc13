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
- Gaussian noise (standard deviation sigma, not set by epsilon):
  :class:`~exactdp.mechanisms.gaussian_noisy_max.GaussianNoisyMax`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import flint
import mpmath
import numpy as np
import sympy

from .._validate import argument_error, choices_text
from ..cost import (
    LAPLACE_FLOAT_SECONDS,
    VIEW_SECONDS_LIMIT,
    check_seconds,
    laplace_analysis_seconds,
    laplace_balls_seconds,
    laplace_general_seconds,
    laplace_mp_seconds,
    laplace_sympy_seconds,
    refuse,
)
from ..distribution import Distribution, LossSupremum
from ..exact.arb import dps_to_prec, flint_prec, to_arb
from ..exact.enclosure import enclose
from ..numeric.laplace.closed_form import (
    laplace_exact,
    laplace_exact_general,
    laplace_exact_polys,
)
from ..numeric.laplace.float64 import laplace_float
from ..numeric.laplace.mp import laplace_mp
from ..numeric.laplace.pieces import ScalarOps, expand
from ..numeric.pf import em_float, em_mp, pf_float
from ..rational_form import RationalForm
from ..scores import ScoreVector, as_scores
from ..xform import DENSE_DEGREE_LIMIT, generators_for, leave_one_out, shared_exprs, weighted_sum
from ._sampling import NoiseDraw, noisy_argmax
from .base import Mechanism, X
from .exponential import softmax_balls, softmax_exact, softmax_rational_form
from .noisy_max_value import ValueDistribution, engine_route
from .parameters import (
    epsilon_parameter,
    monotonic_parameter,
    optimize_parameter,
    parameter,
    sensitivity_parameter,
)
from .permute_flip import pf_balls, pf_numeric
from .registry import register

NOISES = ("exponential", "gumbel", "laplace")
#: What report-noisy-max releases: the index of the noisy maximum, or its value.
OUTPUTS = ("index", "value")


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


def _noise(func: str, name: str, value: object) -> str:
    if not isinstance(value, str) or value.lower() not in NOISES:
        raise argument_error(func, name, choices_text(NOISES), value)
    return value.lower()


def _output(func: str, name: str, value: object) -> str:
    if not isinstance(value, str) or value.lower() not in OUTPUTS:
        raise argument_error(func, name, choices_text(OUTPUTS), value)
    return value.lower()


@register("rnm-gumbel-value", label="RNM-Gumbel-value", noise="gumbel", output="value")
@register("rnm-exp-value", label="RNM4 (RNM-Exp-value)", noise="exponential", output="value")
@register("rnm-laplace-value", label="RNM3 (RNM-Laplace-value)", noise="laplace",
          output="value")
@register("rnm-laplace", label="RNM-Laplace", noise="laplace")  # (registered bottom-up)
@register("rnm-gumbel", label="RNM-Gumbel", noise="gumbel")
@register("rnm-exp", label="RNM-Exp", noise="exponential")
@dataclass(frozen=True)
class ReportNoisyMax(Mechanism):
    """Report-noisy-max with exponential, Gumbel or Laplace noise of scale
    ``b = c*sensitivity/epsilon``.

    Gaussian noise, set by its standard deviation rather than by epsilon, is
    :class:`~exactdp.mechanisms.gaussian_noisy_max.GaussianNoisyMax`.

    Parameters
    ----------
    epsilon : number or positive Symbol
        Privacy parameter, >= 0 (0 and oo are the exact limits); the noise scale is
        ``b = c*sensitivity/epsilon`` (c = 2, or 1 for monotonic scores).
    sensitivity : number, default 1
    monotonic : bool, default False
        Whether the score function is monotonic (c = 1).
    noise : {"exponential", "gumbel", "laplace"}
        Exponential noise has mean b (rate ``epsilon/(c*Delta)``); Gumbel(0, b);
        Laplace(0, b).
    optimize : {"max", "min"}, keyword only, default "max"
    output : {"index", "value"}, keyword only, default "index"
        ``"index"``: the selection ``argmax_r q_r + Z_r`` (exact probabilities).
        ``"value"``: the noisy maximum itself, ``V = max_r (q_r + Z_r)`` (the DP-testing
        suite's RNM3 with Laplace noise and RNM4 with exponential noise, both *not*
        epsilon-DP: V moves with the scores). Output kind ``"release"``, capabilities
        ``"density"`` and ``"sample"``: ``distribution(q)`` is a
        :class:`~exactdp.mechanisms.noisy_max_value.ValueDistribution` (the release
        protocol: exact piecewise density and CDF, a sampler), and :func:`exactdp.privacy_loss`
        is the exact ``sup_v |ln f_q(v)/f_q'(v)|``.
        The suite's ``ReportNoisyMax(0.1, noise="laplace")`` has scale
        ``b = 2/epsilon = 20`` (c = 2, sensitivity 1): the tools' Laplace(2/eps) and
        exponential(2/eps) noise on 5 queries.

    Raises
    ------
    ValueError
        Unknown noise or output (the message lists the supported ones), bad epsilon or
        sensitivity; ``output="value"`` with ``optimize="min"``.

    References
    ----------
    C. Dwork and A. Roth, The Algorithmic Foundations of DP (2014), section 3.3;
    Z. Ding et al., "The permute-and-flip mechanism is identical to report-noisy-max with
    exponential noise", arXiv:2105.07260 (2021), Thm 1.

    Examples
    --------
    >>> from exactdp import ReportNoisyMax
    >>> d = ReportNoisyMax(1, noise="laplace").distribution([0, -1])
    >>> print(d.probabilities[1])
    5*exp(-1/2)/8
    >>> round(float(d.probabilities[1]), 6)
    0.379082

    The suite's RNM3 and RNM4 on ``[1]*5`` vs ``[2]*5`` at epsilon 0.1:

    >>> rnm3 = ReportNoisyMax("0.1", noise="laplace", output="value")
    >>> import exactdp
    >>> exactdp.privacy_loss(rnm3, [1] * 5, [2] * 5).value
    1/4
    >>> rnm4 = ReportNoisyMax("0.1", noise="exponential", output="value")
    >>> exactdp.privacy_loss(rnm4, [1] * 5, [2] * 5).value
    oo
    """

    epsilon: sympy.Expr = epsilon_parameter()
    sensitivity: sympy.Expr = sensitivity_parameter()
    monotonic: bool = monotonic_parameter()
    noise: str = parameter(_noise, choices_text(NOISES), default="exponential", exact=False)
    optimize: str = optimize_parameter()
    output: str = parameter(_output, choices_text(OUTPUTS), default="index", exact=False,
                            kw_only=True)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.output == "value" and self.optimize != "max":
            raise argument_error("ReportNoisyMax", "optimize", "'max' with output='value'",
                                 self.optimize)

    @property
    def output_kind(self) -> str:
        """``"selection"`` (the index), or ``"release"`` with ``output="value"``."""
        return "release" if self.output == "value" else "selection"

    @property
    def regular(self) -> bool:
        """Regular (McKenna & Sheldon 2020, Def. 3) when it returns the index, for every
        noise; the released value is not a selection."""
        return self.output == "index"

    @property
    def capabilities(self) -> frozenset[str]:
        """Laplace noise: no rational form in x for every epsilon (the probabilities contain
        ``epsilon*exp(-epsilon)`` terms), but one at a numeric rational epsilon; the other
        noises: a rational form, and no separate numeric one. ``output="value"`` (output
        kind ``"release"``): ``"density"`` and the sampler (V is continuous)."""
        if self.output == "value":
            return self.hook_capabilities & {"density", "sample"}
        if self.noise == "laplace":
            return self.hook_capabilities - {"rational_form", "density"}
        return self.hook_capabilities - {"numeric_rational_form", "density"}

    def distribution(  # type: ignore[override]  # a release distribution for the value
            self, scores: object) -> Distribution | ValueDistribution:
        """The output distribution on ``scores``: over the n indices (``output="index"``,
        :meth:`Mechanism.distribution`), or the law of the released value
        (``output="value"``, a :class:`~exactdp.mechanisms.noisy_max_value.ValueDistribution`).
        """
        if self.output == "index":
            return super().distribution(scores)
        return ValueDistribution(self, as_scores(scores, func="ReportNoisyMax.distribution"),
                                 self.noise)

    # -------------------------------------------------------------- what the analyzer reads
    def analysis_seconds(self, vectors: Sequence[ScoreVector]) -> float:
        """Laplace noise on rational scores: the exact closed forms of the distinct gap
        multisets (:func:`exactdp.cost.laplace_analysis_seconds`; about ``n^6`` for a
        ``check_dp`` of the scores 0..n-1; at a symbolic epsilon, ``certify_dp``'s, the
        sympy closed forms too); irrational scores, the general sympy closed form of each
        distinct gap multiset (:func:`exactdp.cost.laplace_general_seconds`); 0.0 otherwise
        (the analyzer's estimates)."""
        if self.noise != "laplace" or self.output != "index":
            return 0.0
        multisets = set()  # one closed form each (cached)
        general = {}  # irrational scores: the sympy closed form of their gaps
        for v in vectors:
            if v.is_rational:
                G = v.integer_gaps()[1]
                if max(G) <= DENSE_DEGREE_LIMIT:  # beyond: sparse terms, refused by count
                    multisets.add(tuple(sorted(G)))
            else:
                general[tuple(sorted(v.gaps_exact, key=sympy.default_sort_key))] = \
                    laplace_general_seconds(v.gaps_exact)
        symbolic = bool(self.epsilon.free_symbols)  # sympy closed forms (certify_dp)
        return laplace_analysis_seconds([(len(set(G)), len(G), sum(G)) for G in multisets],
                                        symbolic) + sum(general.values())

    def pld_seconds(self, exact: Sequence[ScoreVector], screened: int) -> float | None:
        """Laplace noise (the index): the float64 views (:data:`~exactdp.cost.
        LAPLACE_FLOAT_SECONDS` each) and the sympy closed forms with their balls
        (:func:`~exactdp.cost.laplace_sympy_seconds` on rational scores,
        :func:`~exactdp.cost.laplace_general_seconds` otherwise); None otherwise (the
        other noises' exact views are products over the gaps, priced by the analyses)."""
        if self.noise != "laplace" or self.output != "index":
            return None
        seconds = LAPLACE_FLOAT_SECONDS * screened
        for v in exact:
            if v.is_rational:
                G = v.integer_gaps()[1]
                seconds += laplace_sympy_seconds(len(set(G)), len(G), sum(G))
            else:
                seconds += laplace_general_seconds(v.gaps_exact)
        return seconds

    def check_cost(self, func: str, vectors: Sequence[ScoreVector]) -> None:
        """Refuse, naming ``func``, an exact analysis of ``vectors`` whose Laplace closed
        forms would take over :data:`exactdp.cost.SECONDS_LIMIT` (:meth:`analysis_seconds`).

        Raises
        ------
        TooCostly
            With the estimate and the cheaper routes.
        """
        check_seconds(func, f"the exact RNM-Laplace closed forms of {len(vectors)} score "
                      f"vectors of n = {vectors[0].n} outputs", self.analysis_seconds(vectors),
                      ("pass the one neighbour to check (neighbour=...), " if len(vectors) > 2
                       else "") + "analyse fewer distinct scores, or compare the float64 views "
                      "(mechanism.distribution(q).to_numpy()) of the pair that matters")

    def _loss_supremum(self, sv: ScoreVector, sv2: ScoreVector) -> LossSupremum:
        return engine_route("loss")(self, self.noise, sv, sv2, "privacy_loss")

    def _absent(self, view: str) -> str:
        if self.output == "value":
            return (f"ReportNoisyMax(output='value'): no {view} view: the released value is "
                    "continuous; use .distribution(q).density(v) / .cdf((True,), 0, v) and "
                    "exactdp.privacy_loss(mechanism, q, q2)")
        if view == "rational_form" and self.noise == "laplace":
            return ("ReportNoisyMax(noise='laplace'): the probabilities are not rational in "
                    "x = exp(-epsilon/(c*sensitivity*L)) (they contain terms such as "
                    "epsilon*exp(-epsilon)); use .probabilities for the closed form")
        return super()._absent(view)

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
                return tuple(laplace_exact(G, self.rate / L, "probabilities"))
            return tuple(laplace_exact_general([self.rate * g for g in sv.gaps_exact],
                                               func="probabilities"))
        raise AssertionError(self.noise)

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
        raise AssertionError(self.noise)  # laplace: no capability, never called

    def _numeric_rational_form(self, sv: ScoreVector) -> RationalForm | None:
        """RNM-Laplace at a numeric rational epsilon: ``A_r(x) + lam B_r(x)`` is a polynomial
        in ``x = exp(-lam)`` with rational coefficients, valid at *this* epsilon only (so it
        is not a ``rational_form``, whose forms hold for every epsilon). The analyzer's
        x-form engine reads it directly (flint polynomials, no sympy). None otherwise
        (irrational scores, an irrational rate, gaps beyond DENSE_DEGREE_LIMIT). Called by
        :meth:`evaluate` (scores oriented, epsilon numeric, not 0 or oo)."""
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
        if self.noise == "laplace":  # one gap per distinct score (the series' cost)
            groups = sv.distinct_count()
            check_seconds("evalf", f"RNM-Laplace in mpmath for n = {sv.n} ({groups} distinct "
                          f"gaps) at dps = {dps}", laplace_mp_seconds(groups, dps),
                          "use .to_numpy() (float64, O(n)) or fewer distinct scores",
                          limit=VIEW_SECONDS_LIMIT)
            d, counts, inverse = self.scaled_gap_groups_mp(sv, dps)
            vals = laplace_mp(d, dps, counts=counts)
            return [vals[k] for k in inverse]
        if self.noise == "exponential":
            return pf_numeric(self, sv, dps)  # Thm 6.1: RNM-Exp = PF
        return em_mp(self.scaled_gaps_mp(sv, dps), dps)

    def _balls(self, sv: ScoreVector, dps: int) -> list:
        if self.noise == "exponential":
            return pf_balls(self, sv, dps)  # Thm 6.1: RNM-Exp = PF
        if self.noise == "gumbel":
            return softmax_balls(self, sv, dps)  # RNM-Gumbel = EM
        if self.epsilon.free_symbols:
            return super()._balls(sv, dps)  # refuses: balls need a number
        if sv.is_rational:
            return _laplace_balls(self.rate, sv, dps)
        return _laplace_balls_irrational(self, sv, dps)

    def _float(self, sv: ScoreVector) -> np.ndarray:
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
        d = self.scaled_gaps_float(sv)
        draws: dict[str, NoiseDraw] = {
            "exponential": rng.standard_exponential,
            "gumbel": rng.gumbel,
            "laplace": rng.laplace,
        }
        return noisy_argmax(d, size, draws[self.noise])


def _laplace_balls_irrational(mech: Mechanism, sv: ScoreVector, dps: int) -> list:
    """RNM-Laplace balls on irrational scores: the piecewise closed form
    (:func:`exactdp.numeric.laplace.pieces.expand`) in arb on rigorous balls of the distinct
    scaled gaps, at a precision doubled until every ball has ``dps`` relative digits (the
    expansion loses up to about ``0.48 n`` digits). Cost ``O(groups^2 n)`` ball operations,
    not the geometric number of terms of the sympy closed form (nine sqrt gaps: 100 s)."""
    values, counts, inverse = sv.distinct_gaps()
    n, groups = sv.n, len(values)  # cost: exactdp.cost.laplace_balls_seconds
    digits = dps + 10 + (n + 1) // 2
    check_seconds("evalf_balls", f"RNM-Laplace balls for n = {n} ({groups} distinct "
                  f"irrational gaps) at dps = {dps}", laplace_balls_seconds(groups, n, digits),
                  "use .evalf(dps) (the series route, certified digits, linear in n) or "
                  ".to_numpy()", limit=VIEW_SECONDS_LIMIT)
    zero = next(k for k, v in enumerate(values) if v == 0)
    target = dps_to_prec(dps) + 2
    vals: list = []
    for _ in range(6):
        prec = int(digits * 3.33) + 16
        balls, _, _ = mech.scaled_gap_groups_arb(sv, digits + 5, "evalf_balls")
        rest = sorted((k for k in range(groups) if k != zero), key=lambda k: balls[k].mid())
        # the order must be proved: every gap > 0 and consecutive balls disjoint (distinct
        # exact values are separated by a fine enough ball)
        proved = all(balls[k] > 0 for k in rest) and all(
            balls[b] > balls[a] for a, b in zip(rest, rest[1:], strict=False))
        if proved:
            order = [zero, *rest]
            pos = {k: i for i, k in enumerate(order)}
            with flint_prec(prec):
                u = [flint.arb(0)] + [balls[k] for k in rest]
                ops = ScalarOps(lambda t: (-t).exp(), lambda t: t.expm1(), flint.arb(1),
                                flint.arb(1) / 2)
                by_group = expand(u, [counts[k] for k in order], [pos[k] for k in range(groups)
                                                                  for _ in range(counts[k])],
                                  ops)
            first = {}
            at = 0
            for k in range(groups):  # expand's items are grouped: one result per group
                first[k] = by_group[at]
                at += counts[k]
            vals = [first[k] for k in inverse]
            if all(v > 0 and v.rel_accuracy_bits() >= target for v in vals):
                return vals
        digits *= 2
    if not vals:
        raise refuse("evalf_balls", "RNM-Laplace balls that order the irrational gaps",
                     f"more than {digits} digits", "6 doublings",
                     "use .evalf(dps) or .to_numpy()")
    return vals  # rigorous, only wider than asked


def _laplace_balls(rate: sympy.Expr, sv: ScoreVector, dps: int) -> list:
    """RNM-Laplace balls on rational scores: ``A_r(x) + lam B_r(x)`` (the exact polynomials
    of :func:`laplace_exact_polys`) evaluated in arb at a ball of ``x = exp(-lam)``, never
    expanding the exact coin (``exp(-1e40 log 3)`` is a power no one can write out).
    The precision rises until every ball has ``dps`` relative digits."""
    L, G = sv.integer_gaps()
    polys = laplace_exact_polys(G)
    lam = rate / L
    target = int(math.ceil(dps * math.log2(10))) + 2
    prec = dps_to_prec(dps) + 32
    with flint_prec(64):
        size = to_arb(lam, 64).abs_upper()
    digits = int(float(size.log().mid()) / math.log(10)) + 1 if size > 1 else 0
    for _ in range(8):
        with flint_prec(prec):
            # lam to as many more digits as it has before its point (x = e^-lam relative)
            lam_b = enclose(lam, int(prec * 0.30103) + digits + 10,
                            max_prec=prec + 4 * digits + 128)
            x = (-lam_b).exp()
            out = []
            for A, B in polys:
                a = flint.arb_poly([flint.arb(c) for c in A.coeffs()])(x) if A.degree() >= 0 \
                    else flint.arb(0)
                b = flint.arb_poly([flint.arb(c) for c in B.coeffs()])(x) if B.degree() >= 0 \
                    else flint.arb(0)
                out.append(a + lam_b * b)
        if all((v.is_exact() and v.is_zero()) or v.rel_accuracy_bits() >= target for v in out):
            return out
        prec *= 2
    return out  # rigorous, only wider than asked
