"""``certify_dp`` for Laplace forms: every epsilon when the probabilities carry powers of epsilon.

With Laplace noise (report-noisy-max, the sparse vector family where the threshold and
query rates meet) an output probability is ``sum_k p_k(epsilon) exp(w_k epsilon)`` with
polynomials ``p_k`` (rational coefficients) and rational ``w_k``: not a rational function of
one ``x = exp(-epsilon/N)``, so the x-form certificate of :mod:`exactdp.analysis.certify`
does not apply. The privacy condition ``P_o(a) <= e^eps P_o(b)`` is
``f(eps) = exp(eps) P_o(b) - P_o(a) >= 0``, again such an exponential polynomial, whose
sign on ``(0, oo)`` :func:`exactdp.exact.exp_poly.sign_on_positive_reals` decides exactly
(Polya-Szego zero isolation; signs exact or certified by arb balls).

References
----------
G. Polya and G. Szego, *Problems and Theorems in Analysis II*, Part V, problem 75.
G. Barthe et al., "Deciding differential privacy for programs with finite inputs and
outputs" (DiPC), LICS 2020: the same question decided through Mathematica.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property, lru_cache

import sympy

from .._validate import argument_error
from ..cost import check_seconds
from ..exact.arb import to_arb
from ..exact.exp_poly import ExpPoly
from ..exact.exp_poly_sign import End, PositiveRealsSign, Root, sign_on_positive_reals
from ..exact.signs import UndecidedSignError, sign
from ..mechanisms.base import Mechanism
from ..numbers import exact_epsilon
from ..result import Result, brief
from ..result_text import cut_text
from ..scores import ScoreVector
from .common import EPSILON, distribution_of, exact_probabilities_of, mechanism_name, score_vector
from .outputs import output_union, probabilities_over


def needs_laplace_forms(mech: Mechanism, vectors: Sequence[ScoreVector]) -> bool:
    """True when the certificate must go through exponential polynomials in epsilon: some
    vector has no declared form rational in ``x`` (capability ``"rational_form"``), every
    vector has exact probabilities, and they parse as exponential polynomials of which one
    keeps a power of epsilon (a ``epsilon^j exp(w epsilon)`` term, ``j >= 1``, decided on
    the exact closed form). Pure sums of exponentials stay on the x-form route."""
    caps = [mech.capabilities_on(v) for v in vectors]
    if all("rational_form" in c for c in caps) or not all("exact" in c for c in caps):
        return False
    try:
        forms = [_forms(mech, tuple(v.exact)) for v in vectors]
    except ValueError:
        return False  # not of this shape: the x-form route decides (or refuses)
    return any(len(cs) > 1 for fs in forms for f in fs for _, cs in f.terms)


def _forms(mech: Mechanism, vector: tuple) -> tuple[ExpPoly, ...]:
    """The exact probabilities on ``vector`` as exponential polynomials in epsilon
    (cached for hashable mechanisms: a sweep over pairs meets each vector many times)."""
    try:
        hash(mech)
    except TypeError:
        return _parse_forms(mech, vector)
    return _cached_forms(mech, vector)


@lru_cache(maxsize=512)
def _cached_forms(mech: Mechanism, vector: tuple) -> tuple[ExpPoly, ...]:
    return _parse_forms(mech, vector)


def forms_cache_clear() -> None:
    """Empty the cache of parsed forms (benchmarks time cold runs)."""
    _cached_forms.cache_clear()


def _parse_forms(mech: Mechanism, vector: tuple) -> tuple[ExpPoly, ...]:
    sv = score_vector(vector, "scores", "certify_dp")
    probs = exact_probabilities_of(distribution_of(mech, sv), "certify_dp", mech)
    try:
        return tuple(ExpPoly.from_sympy(p, EPSILON) for p in probs)
    except ValueError as exc:
        raise ValueError(
            f"certify_dp: the probabilities of {mechanism_name(mech)} on {list(vector)} are "
            f"neither rational in exp(-epsilon/N) nor exponential polynomials in epsilon "
            f"({exc}); use check_dp at a numeric epsilon") from None


# ============================================================================== results
@dataclass(frozen=True)
class EpsilonInterval:
    """An open interval of epsilon, ends exact or certified.

    Attributes
    ----------
    lower, upper : Fraction, sympy.Expr, Root or None
        An exact number (a rational, or a closed form such as ``2 log(3/2)`` from the
        x-form certificate), a :class:`~exactdp.exact.exp_poly.Root` (a zero isolated in a
        tiny rational interval), or None for ``oo`` (upper only).
    """

    lower: End | sympy.Expr
    upper: End | sympy.Expr

    def __str__(self) -> str:
        upper = "oo" if self.upper is None else str(self.upper)
        return f"({self.lower}, {upper})"


@dataclass(frozen=True)
class LaplaceCondition:
    """One condition ``Pr[M(a) = o] <= e^eps Pr[M(b) = o]`` for every epsilon > 0.

    Attributes
    ----------
    pair : int
        Index of the neighbour.
    output : int
    direction : str
        ``"q->q'"`` (a = scores, b = neighbour) or ``"q'->q"``.
    function : ExpPoly
        ``f(eps) = exp(eps) P_o(b) - P_o(a)``.
    analysis : PositiveRealsSign
        The sign chart of ``f`` on ``(0, oo)``.
    holds : bool
        ``f >= 0`` on ``(0, oo)`` (proved).
    """

    pair: int
    output: int
    direction: str
    function: ExpPoly
    analysis: PositiveRealsSign
    holds: bool

    @property
    def failing_epsilons(self) -> tuple[EpsilonInterval, ...]:
        """Where ``f < 0``: the epsilons at which this condition fails."""
        return tuple(EpsilonInterval(a, b) for a, b in self.analysis.negative_intervals())


class ConditionsVerdict:
    """The verdict of a certificate over its ``conditions``: ``holds`` is set to whether
    every condition holds (for every epsilon > 0), and the certificate is truthy iff so.
    Shared by :class:`LaplaceDPCertificate` and :class:`~exactdp.analysis.certify.
    DPCertificate` (frozen dataclasses with fields ``conditions`` and ``holds``)."""

    conditions: tuple
    holds: bool

    def __post_init__(self) -> None:
        object.__setattr__(self, "holds", all(c.holds for c in self.conditions))

    def __bool__(self) -> bool:
        return self.holds


@dataclass(frozen=True)
class LaplaceDPCertificate(ConditionsVerdict, Result):
    """Exact certificate of the epsilon-DP bound for every epsilon > 0, for probabilities
    that are exponential polynomials in epsilon (Laplace noise).

    The counterpart of :class:`~exactdp.analysis.certify.DPCertificate` (same ``holds``,
    ``failing``, ``holds_at``, ``verify``, ``failing_epsilons``); its forms are
    :class:`~exactdp.exact.exp_poly.ExpPoly` in epsilon instead of polynomials in ``x``.

    Attributes
    ----------
    scores : tuple
    neighbours : tuple of tuple
    forms : tuple
        Per vector (scores first, then the neighbours), per output, an ExpPoly in epsilon.
    conditions : tuple of LaplaceCondition
    mechanism : Mechanism
        At the symbolic epsilon.
    holds : bool
        Every condition holds for every epsilon > 0.
    outputs : tuple or None
        As :attr:`exactdp.analysis.certify.DPCertificate.outputs`: set for a mechanism
        releasing a sequence whose vectors reach different outputs (the union, an output
        a vector does not reach having the form 0 there).

    Examples
    --------
    Lyu-Su-Li's Algorithm 6 on DiPC's witness pair (threshold 0): not epsilon-DP for any
    epsilon below one isolated zero, about 6.977 (DiPC's witness is 67/92):

    >>> import sympy, exactdp
    >>> eps = sympy.Symbol("epsilon", positive=True)
    >>> cert = exactdp.certify_dp(exactdp.SparseVector(eps, 0, 1, 6), [-1, -1, 0], [0, 0, -1])
    >>> cert.holds, [str(iv) for iv in cert.failing_epsilons]
    (False, ['(0, ~6.97702255167)'])
    >>> cert.holds_at(sympy.Rational(67, 92)), cert.holds_at(7), cert.verify()
    (False, True, True)
    """

    headline = None

    scores: tuple
    neighbours: tuple
    forms: tuple
    conditions: tuple
    mechanism: Mechanism = field(repr=False)
    epsilon: sympy.Symbol = EPSILON
    certified: bool = True
    caveat: str | None = None
    outputs: tuple | None = field(default=None, repr=False)
    holds: bool = field(init=False, default=False)

    def repr_parts(self) -> list[str]:
        parts = [f"scores={brief(self.scores)}", f"neighbours={len(self.neighbours)}",
                 f"conditions={len(self.conditions)}", f"failing={len(self.failing)}",
                 "forms=exp-polynomials in epsilon"]
        if not self.holds:
            parts.append("fails for epsilon in "
                         + cut_text(" U ".join(str(i) for i in self.failing_epsilons), 60))
        return parts

    @property
    def failing(self) -> tuple[LaplaceCondition, ...]:
        """The conditions that fail for some epsilon."""
        return tuple(c for c in self.conditions if not c.holds)

    @cached_property
    def failing_epsilons(self) -> tuple[EpsilonInterval, ...]:
        """The set of epsilon > 0 where some condition fails, as open intervals (their
        union; overlapping ones are merged where rational bounds prove the overlap).
        Empty when the certificate holds."""
        return union_intervals(iv for c in self.failing for iv in c.failing_epsilons)

    def holds_at(self, epsilon: object) -> bool:
        """True iff every condition holds at this epsilon (exact signs).

        Raises
        ------
        ValueError
            If epsilon is not a finite number > 0.
        """
        e = exact_epsilon(epsilon, "LaplaceDPCertificate.holds_at")
        if e.free_symbols:
            raise argument_error("LaplaceDPCertificate.holds_at", "epsilon",
                                 "a number, not a symbol", epsilon)
        for c in self.conditions:
            if c.holds:
                continue
            s = (c.function.sign_at(Fraction(int(e.p), int(e.q))) if e.is_Rational
                 else sign(c.function.to_sympy(EPSILON).subs(EPSILON, e)))
            if s < 0:
                return False
        return True

    def verify(self) -> bool:
        """Re-verify by independent routes: each condition rebuilt from the forms; each
        sign chart checked at a rational point of every gap and at the ends of every
        isolated zero (exact zero tests and arb balls); the forms of each vector sum to 1
        exactly; the forms against the mechanism's own probabilities at epsilon = 1/3 and
        2 (arb balls at 200 bits)."""
        for c in self.conditions:
            a, b = (0, c.pair + 1) if c.direction == "q->q'" else (c.pair + 1, 0)
            f = self.forms[b][c.output].times_exp(1) - self.forms[a][c.output]
            if f != c.function or not _chart_ok(c.analysis) or c.analysis.nonnegative != c.holds:
                return False
        one = ExpPoly(((Fraction(0), (Fraction(1),)),))
        for forms in self.forms:
            total = forms[0]
            for f in forms[1:]:
                total = total + f
            if total != one:
                return False
        vectors = (self.scores,) + self.neighbours
        for e in (Fraction(1, 3), Fraction(2)):
            mech = self.mechanism.with_epsilon(sympy.Rational(e.numerator, e.denominator))
            for vec, forms in zip(vectors, self.forms, strict=True):
                sv = score_vector(vec, "scores", "LaplaceDPCertificate.verify")
                dist = distribution_of(mech, sv)
                probs = (dist.probabilities if self.outputs is None
                         else probabilities_over(self.outputs, dist, sympy.Integer(0)))
                if probs is None:  # an output the certificate does not have
                    return False
                for p, f in zip(probs, forms, strict=True):
                    if not (to_arb(p, 200) - f.ball(e, 200)).contains(0):
                        return False
        return True


def _lower_bound(e: End) -> Fraction:
    if e is None:
        return Fraction(10) ** 100
    return e.lo if isinstance(e, Root) else e


def _upper_of(e: End) -> Fraction:
    if e is None:
        return Fraction(10) ** 100
    return e.hi if isinstance(e, Root) else e


def _cmp_end(x: End, y: End) -> int | None:
    """1 if ``x >= y``, -1 if ``x < y`` (proved by rational bounds), None if not proved."""
    if x == y:
        return 0
    if x is None:
        return 1
    if y is None:
        return -1
    if _lower_bound(x) >= _upper_of(y):
        return 1
    if _lower_bound(y) >= _upper_of(x):
        return -1
    return None


def union_intervals(intervals) -> tuple[EpsilonInterval, ...]:
    """Merge open intervals sorted by their lower ends where the overlap and the order of
    the upper ends are proved; keep the others apart (their union is the same set)."""
    out: list[EpsilonInterval] = []
    for iv in sorted(intervals, key=lambda iv: _lower_bound(iv.lower)):
        if out and (out[-1].upper is None
                    or _upper_of(iv.lower) < _lower_bound(out[-1].upper)):
            c = _cmp_end(out[-1].upper, iv.upper)
            if c is not None:
                if c < 0:
                    out[-1] = EpsilonInterval(out[-1].lower, iv.upper)
                continue
        out.append(iv)
    return tuple(out)


def _chart_ok(chart: PositiveRealsSign) -> bool:
    """Independent spot checks of a sign chart: the sign at a rational point of every gap,
    the sign changes at the ends of every isolated zero, at most ``N - 1`` zeros."""
    f = chart.function
    if f.is_zero:
        return chart.first == 0 and not chart.roots
    if len(chart.roots) > f.zero_bound:
        return False
    roots = chart.roots
    points: list[tuple[Fraction, int]] = []
    if roots:
        points.append((roots[0].lo / 2, chart.first))
        for r, nxt in zip(roots, roots[1:], strict=False):
            if nxt.lo > r.hi:
                points.append(((r.hi + nxt.lo) / 2, r.right))
        points.append((roots[-1].hi + 1, roots[-1].right))
        exact = {r.lo for r in roots if r.kind == "exact"}
        for r in roots:
            if r.kind == "isolated" and r.left != r.right:  # ends shared with an exact
                points += [(p, s) for p, s in ((r.lo, r.left), (r.hi, r.right))  # zero: 0
                           if p not in exact]
    else:
        points.append((Fraction(1), chart.first))
    return all(p <= 0 or f.sign_at(p) == s for p, s in points if s != 0)


# ============================================================================== certify
def laplace_certify_seconds(forms: Sequence[Sequence[ExpPoly]]) -> float:
    """Estimated seconds of the sign analyses of :func:`certify_dp_laplace`: ``2e-5 N^2``
    per condition, ``N`` the Polya-Szego count of its exponential polynomial (about the
    terms of the two forms it compares: the induction has ``N`` levels of ``N`` terms).
    Measured: random ones with ``N`` up to 12, 3 ms each; RNM-Laplace on 6 items (``N``
    about 27), 12 conditions in 0.13 s."""
    total = 0.0
    for other in forms[1:]:
        for a, b in zip(forms[0], other, strict=True):
            n = a.zero_bound + b.zero_bound + 2
            total += 2 * 2e-5 * n * n
    return total


def certify_dp_laplace(mech: Mechanism, q: ScoreVector,
                       nbrs: Sequence[ScoreVector]) -> LaplaceDPCertificate:
    """The every-epsilon certificate for exponential-polynomial probabilities (what
    :func:`exactdp.certify_dp` returns for Laplace noise).

    Parameters
    ----------
    mech : Mechanism
        At a symbolic epsilon (``EPSILON``).
    q : ScoreVector
    nbrs : sequence of ScoreVector
        Already validated neighbours.

    Returns
    -------
    LaplaceDPCertificate

    Raises
    ------
    ValueError
        Probabilities of another shape (one line, with the sub-expression).
    UndecidedSignError
        When no condition fails but one has an undecided (tangential) zero: the interval
        is in the message.
    """
    forms = [_forms(mech, tuple(v.exact)) for v in (q, *nbrs)]
    # a sequence mechanism's vectors may reach different outputs: by output value
    union = (output_union([distribution_of(mech, v).outputs for v in (q, *nbrs)])
             if mech.output_kind == "sequence" else None)
    if union is not None:
        forms = [tuple(union.align(i, f, ExpPoly(()))) for i, f in enumerate(forms)]
    check_seconds("certify_dp", f"the sign analyses of {2 * len(nbrs) * len(forms[0])} "
                  "exponential polynomials in epsilon", laplace_certify_seconds(forms),
                  "pass the one neighbour to certify (neighbour=...), or use check_dp at a "
                  "numeric epsilon")
    conditions = []
    undecided = []
    for j in range(1, len(nbrs) + 1):
        for r in range(len(forms[0])):
            for direction, (a, b) in (("q->q'", (0, j)), ("q'->q", (j, 0))):
                f = forms[b][r].times_exp(1) - forms[a][r]
                chart = sign_on_positive_reals(f)
                if chart.undecided:
                    undecided.append((j - 1, r, direction, chart.undecided))
                cond = LaplaceCondition(j - 1, r, direction, f, chart, chart.nonnegative)
                conditions.append(cond)
    if undecided and all(c.holds or c.analysis.undecided for c in conditions):
        j, r, direction, roots = undecided[0]
        raise UndecidedSignError(
            f"certify_dp: the condition on neighbour {j}, output {r} ({direction}) has an "
            f"undecided zero (tangential?) in epsilon in [{roots[0].lo}, {roots[0].hi}]")
    caveat = None
    if undecided:
        caveat = (f"{len(undecided)} condition(s) have undecided zeros; the failing set "
                  "omits those intervals")
    return LaplaceDPCertificate(
        q.values, tuple(v.values for v in nbrs),
        tuple(tuple(f) for f in forms), tuple(conditions), mech, caveat=caveat,
        outputs=None if union is None else union.outputs)
