"""Utility of selection mechanisms: error tails, stochastic dominance, worst-case error.

The error of output r is ``q* - q_r``. Mechanism A stochastically dominates B on q when
``Pr[q* - q_A >= t] <= Pr[q* - q_B >= t]`` for every ``t >= 0`` (Thm 5.2 of the notes;
McKenna & Sheldon 2020, Thm 3 for PF over EM); then ``E[err_A] <= E[err_B]``.
For rational scores both tails are rational functions of ``x = exp(-eps/(c Delta L))``,
so dominance for *every* epsilon is a positivity question on ``(0, 1)``, decided exactly
by :func:`exactdp.exact.unit_interval.sign_on_unit_interval`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cmp_to_key

import flint
import mpmath
import numpy as np
import sympy

from .._validate import argument_error, check_dps, check_int
from ..cost import WORST_CASE_SECONDS_LIMIT, fmt_size, refuse, worst_case_seconds
from ..exact import compare, sign
from ..exact.unit_interval import sign_on_unit_interval, verify_sign_analysis
from ..result import Result, brief
from ..rng import as_generator
from ..scores import as_scores
from .engines.xform import canonical_pair


def _thresholds(gaps) -> list:
    """Distinct positive gaps, ascending (ordered and deduplicated by exact comparison)."""
    out: list = []
    for g in sorted({g for g in gaps if g != 0}, key=cmp_to_key(compare)):
        if not out or compare(g, out[-1]) != 0:
            out.append(g)
    return out


def error_tails(dist) -> tuple[tuple[sympy.Expr, sympy.Expr], ...]:
    """Exact error tails ``(t, Pr[q* - q_M >= t])`` at every distinct positive gap t.

    Between consecutive gaps the tail is constant, and it is 1 at ``t = 0``.

    Examples
    --------
    >>> import exactdp
    >>> exactdp.error_tails(exactdp.PermuteAndFlip("log(2)").distribution([0, -1]))
    ((1, sqrt(2)/4),)
    """
    gaps = dist.scores.gaps_exact
    probs = dist.probabilities
    return tuple(
        (t, sympy.Add(*[p for g, p in zip(gaps, probs, strict=True) if compare(g, t) >= 0]))
        for t in _thresholds(gaps)
    )


@dataclass(frozen=True)
class DominanceResult(Result):
    """Whether A's error tails lie below B's at every threshold, with the margins.

    The result protocol (:class:`exactdp.result.Result`): a verdict (``holds``), no headline
    number.
    """

    headline = None

    holds: bool
    margins: tuple  # (t, tail_B - tail_A) exact
    witness: sympy.Expr | None  # a threshold where A's tail exceeds B's
    certified: bool = True  # every margin's sign decided by exactdp.exact.sign
    caveat: str | None = None

    def repr_parts(self) -> list[str]:
        return [f"thresholds={len(self.margins)}", f"witness={brief(self.witness)}"]


def check_dominance(dist_a, dist_b) -> DominanceResult:
    """Exact check that A stochastically dominates B on one score vector (numeric epsilon).

    Parameters
    ----------
    dist_a, dist_b : OutputDistribution
        On the same scores.

    Returns
    -------
    DominanceResult
        ``certified`` is True: every margin's sign is decided by
        :func:`exactdp.exact.sign` (exact algebra or rigorous balls).

    Raises
    ------
    ValueError
        If the score vectors differ, or a distribution is not over the n indices (output
        kind ``"selection"``: the error ``q* - q_r`` is of an index).
    UndecidedSignError
        If the sign of a margin cannot be decided.

    Examples
    --------
    >>> import exactdp
    >>> q = [0, -1, -2]
    >>> pf, em = exactdp.PermuteAndFlip(1), exactdp.ExponentialMechanism(1)
    >>> r = exactdp.check_dominance(pf.distribution(q), em.distribution(q))
    >>> r.holds
    True
    """
    for name, d in (("dist_a", dist_a), ("dist_b", dist_b)):
        kind = d.mechanism.output_kind
        if kind != "selection":
            raise argument_error("check_dominance", f"{name}.mechanism.output_kind", "'selection' "
                                 "(the error q* - q_r is of an output index)", kind)
    if dist_a.scores.exact != dist_b.scores.exact:
        raise argument_error("check_dominance", "dist_b", "a distribution on the same scores as "
                             "dist_a", dist_b.scores.exact)
    ta, tb = error_tails(dist_a), error_tails(dist_b)
    margins = tuple((t, sympy.expand(b - a)) for (t, a), (_, b) in zip(ta, tb, strict=True))
    witness = next((t for t, m in margins if sign(m) < 0), None)
    return DominanceResult(witness is None, margins, witness)


@dataclass(frozen=True)
class DominanceCertificate(Result):
    """Dominance for every epsilon > 0: per threshold, the sign of ``tail_B - tail_A``.

    ``numerators[i]`` is the numerator polynomial in x of the i-th margin (its denominator
    is positive on (0, 1)), ``analyses[i]`` its exact sign pattern on (0, 1).
    The result protocol (:class:`exactdp.result.Result`): a verdict for every epsilon
    (``holds``), no headline number; ``summary()`` prints the polynomials.
    """

    headline = None

    scores: tuple
    x: sympy.Symbol
    thresholds: tuple
    numerators: tuple
    analyses: tuple
    certified: bool = True  # exact real-root isolation; re-check with verify()
    caveat: str | None = None
    #: True iff every margin is >= 0 on all of (0, 1), i.e. for every epsilon.
    holds: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "holds", all(a.nonnegative for a in self.analyses))

    def repr_parts(self) -> list[str]:
        failing = sum(1 for a in self.analyses if not a.nonnegative)
        return [f"scores={brief(self.scores)}", f"thresholds={len(self.thresholds)}",
                f"failing={failing}", "for every epsilon > 0"]

    def verify(self) -> bool:
        """Re-verify every sign analysis by an independent route (Sturm counting)."""
        return all(verify_sign_analysis(a) for a in self.analyses)


def certify_dominance(mech_a, mech_b, scores) -> DominanceCertificate:
    """Prove ``Pr[err_A >= t] <= Pr[err_B >= t]`` for all t and *all* epsilon > 0.

    Uses the rational forms of both mechanisms (rational scores; PF, EM, RNM-Exp,
    RNM-Gumbel): each margin is a rational function of x in (0, 1); its denominator's sign
    and its numerator's sign pattern are decided exactly by real-root isolation.

    Raises
    ------
    ValueError
        Irrational scores, or a mechanism without a rational form, or different ``c``,
        sensitivity or epsilon between the two mechanisms.

    Examples
    --------
    >>> import sympy
    >>> import exactdp
    >>> eps = sympy.Symbol("epsilon", positive=True)
    >>> pf, em = exactdp.PermuteAndFlip(eps), exactdp.ExponentialMechanism(eps)
    >>> c = exactdp.certify_dominance(pf, em, [0, -1, -2])
    >>> c.holds
    True
    """
    sv = as_scores(scores, func="certify_dominance")
    da, db = mech_a.distribution(sv), mech_b.distribution(sv)
    ra, rb = da.rational_form(), db.rational_form()
    if ra.value != rb.value:
        raise argument_error("certify_dominance", "mech_b", "a mechanism with the epsilon, c and "
                             "Delta of mech_a", mech_b)
    x = ra.x
    gaps = ra.gaps
    thresholds, nums, analyses = [], [], []
    for t in _thresholds(gaps):
        num, den = _margin(ra, rb, t)
        den_sign = sign_on_unit_interval(sympy.Poly(den, x), x)
        if den_sign.constant_sign is None or den_sign.roots:
            raise ValueError("certify_dominance: a denominator changes sign on (0, 1)")
        if den_sign.constant_sign < 0:
            num = -num
        thresholds.append(sympy.Rational(t, ra.L))
        nums.append(sympy.Poly(num, x))
        analyses.append(sign_on_unit_interval(sympy.Poly(num, x), x))
    return DominanceCertificate(sv.exact, x, tuple(thresholds), tuple(nums), tuple(analyses))


def _margin(ra, rb, t) -> tuple[sympy.Expr, sympy.Expr]:
    """Numerator and denominator of ``Pr_B[err >= t] - Pr_A[err >= t]``, cancelled, in the
    normal form of ``sympy.fraction(sympy.cancel(...))``: from the flint polynomials of the
    two forms when both have them (the sums of the tails over a common denominator, their
    gcd divided out, then :func:`~.engines.xform.canonical_pair`: the form ``cancel``
    gives a quotient of coprime polynomials), else by sympy."""
    if ra.polys is None or rb.polys is None:
        ta = sympy.Add(*[f for g, f in zip(ra.gaps, ra.forms, strict=True) if g >= t])
        tb = sympy.Add(*[f for g, f in zip(rb.gaps, rb.forms, strict=True) if g >= t])
        return sympy.fraction(sympy.cancel(sympy.together(tb - ta)))
    one = flint.fmpq_poly([1])
    tails = []
    for rf in (ra, rb):
        tail = flint.fmpq_poly([0])
        for g, poly in zip(rf.gaps, rf.polys, strict=True):
            if g >= t:
                tail += poly
        tails.append((tail, one if rf.denominator is None else rf.denominator))
    (A, Da), (B, Db) = tails
    num, den = B * Da - A * Db, Da * Db
    if num == 0:
        return sympy.Integer(0), sympy.Integer(1)
    common = num.gcd(den)
    num, den = canonical_pair(num // common, den // common)
    x = ra.x
    return (sympy.Poly([int(c) for c in reversed(num.coeffs())], x).as_expr(),
            sympy.Poly([int(c) for c in reversed(den.coeffs())], x).as_expr())


@dataclass(frozen=True)
class WorstCaseError(Result):
    """Supremum over the gap g of the expected error on ``q = (0, -g, ..., -g)``.

    ``error`` is the expected error at the located gap (mpmath, ``dps`` digits), not a
    proved supremum: the result protocol's ``value`` and ``ball`` are None, ``evalf``
    refuses, ``float()`` is ``error`` rounded to float64.
    """

    headline = "error"
    repr_fields = ("n", "gap")

    n: int
    gap: float
    error: mpmath.mpf
    precision: str
    certified: bool = False
    caveat: str | None = (
        "the maximizing gap is located by a float64 scan and Brent's method, not proved"
    )

    def __float__(self) -> float:
        return float(self.error)


def worst_case_error(mechanism, n: int, dps: int = 30) -> WorstCaseError:
    """Worst expected error over the family ``q = (0, -g, ..., -g)`` (n outputs), sup over g.

    This family is the worst case for regular mechanisms with a single best output (the
    notes, section 5.4; McKenna & Sheldon 2020, section 4). The maximizing gap is located
    by a coarse scan and bounded Brent on the float64 path (relative precision about 1e-9 in
    g); the value at that gap is then evaluated with mpmath at ``dps`` digits, so its error
    is second order in the location error (about 1e-15 relative).

    Raises
    ------
    ValueError
        If n < 2, or the mechanism's epsilon is symbolic, or 0 (the mechanism is then
        uniform: the error ``g (n - 1) / n`` grows without bound in ``g``).
    exactdp.TooCostly
        If :func:`exactdp.cost.worst_case_seconds` exceeds
        :data:`exactdp.cost.WORST_CASE_SECONDS_LIMIT` (checked before any work).

    Examples
    --------
    >>> import exactdp
    >>> w = exactdp.worst_case_error(exactdp.PermuteAndFlip(1), 2, dps=15)
    >>> round(float(w.error), 6)
    0.367879
    """
    from scipy.optimize import minimize_scalar
    n = check_int("worst_case_error", "n", n, 2)
    dps = check_dps("worst_case_error", dps)
    if mechanism.epsilon == 0:
        raise ValueError("worst_case_error: at epsilon 0 the mechanism is uniform and its "
                         "error g*(n-1)/n is unbounded (the supremum is oo); use epsilon > 0")
    seconds = worst_case_seconds(n, dps)
    if seconds > WORST_CASE_SECONDS_LIMIT:
        most = int(WORST_CASE_SECONDS_LIMIT / worst_case_seconds(1, dps))
        raise refuse(
            "worst_case_error", f"the worst-case scan over n = {n} outputs at dps = {dps}",
            f"about {fmt_size(seconds)} s", f"{WORST_CASE_SECONDS_LIMIT:.0f} s",
            f"use a smaller n (at most {most} at dps = {dps}) or a smaller dps; at one gap g, "
            "mechanism.distribution([0] + [-g] * (n - 1)).expected_error(method='float') is "
            "the float64 route")
    rate = float(sympy.N(mechanism.epsilon / (mechanism.c * mechanism.sensitivity), 20))

    def err(u: float) -> float:
        g = u / rate
        q = np.full(n, -g)
        q[0] = 0.0
        p = mechanism.distribution(q).to_numpy()
        return g * float(p[1:].sum())

    grid = np.geomspace(1e-3, 1e3, 121)
    vals = [err(u) for u in grid]
    i = int(np.argmax(vals))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    res = minimize_scalar(lambda u: -err(u), bounds=(lo, hi), method="bounded",
                          options={"xatol": 1e-12 * hi})
    g = sympy.Rational(*float(res.x / rate).as_integer_ratio())
    q = [sympy.Integer(0)] + [-g] * (n - 1)
    value = mechanism.distribution(q).expected_error(method="mpmath", dps=dps)
    return WorstCaseError(n, float(g), value,
                          f"value to about 1e-15 relative (gap located to ~1e-9); dps={dps}")


@dataclass(frozen=True)
class ErrorRatioStudy(Result):
    """``E[err_B]/E[err_A]`` over random score vectors drawn from a stated distribution.

    The headline is ``ratio_of_means``, ``sum E[err_B] / sum E[err_A]`` over the drawn
    vectors: a float64 estimate, not proved (the result protocol's ``value`` and ``ball``
    are None, ``evalf`` refuses, ``float()`` is the estimate itself).
    """

    headline = "ratio_of_means"
    repr_fields = ("mean_ratio", "min_ratio", "max_ratio", "trials", "description")

    description: str
    trials: int
    mean_ratio: float
    ratio_of_means: float
    max_ratio: float
    min_ratio: float
    certified: bool = False
    caveat: str | None = "a float64 average over randomly drawn score vectors"


def error_ratio_study(
    mech_a, mech_b, n: int, draw: Callable[[np.random.Generator, int], np.ndarray],
    description: str, trials: int = 200, rng=None,
) -> ErrorRatioStudy:
    """Average the expected-error ratio B/A over score vectors ``draw(rng, n)``.

    Each vector's expected errors are computed exactly in float64 (no sampling of the
    mechanisms); only the score vectors are random. Vectors where A's error is 0 are skipped.

    Examples
    --------
    >>> import exactdp
    >>> draw = lambda rng, n: rng.integers(0, 5, n)
    >>> pf, em = exactdp.PermuteAndFlip(1), exactdp.ExponentialMechanism(1)
    >>> s = exactdp.error_ratio_study(pf, em, 4, draw, "uniform", trials=20, rng=0)
    >>> float(s.mean_ratio) > 1
    True
    """
    gen = as_generator(rng, "error_ratio_study")
    ratios, ea_all, eb_all = [], [], []
    for _ in range(int(trials)):
        q = np.asarray(draw(gen, n), dtype=float)
        ea = mech_a.distribution(q).expected_error(method="float")
        eb = mech_b.distribution(q).expected_error(method="float")
        if ea > 0:
            ratios.append(eb / ea)
            ea_all.append(ea)
            eb_all.append(eb)
    if not ratios:
        raise ValueError("error_ratio_study: every drawn vector had zero error")
    r = np.array(ratios)
    return ErrorRatioStudy(description, len(r), float(r.mean()),
                           float(np.sum(eb_all) / np.sum(ea_all)), float(r.max()),
                           float(r.min()))
