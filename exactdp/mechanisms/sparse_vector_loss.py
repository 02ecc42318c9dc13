"""The exact privacy loss of the sparse vector variants that release values: Lyu-Su-Li's
Algorithm 3 (:func:`coupled_loss`) and the numerical sparse vector (:func:`fresh_loss`).

The derivation (pointwise bound, the attaining outputs, the refusal on pairs moving both
ways) is in :mod:`exactdp.mechanisms.sparse_vector_release`.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import flint
import sympy

from .._validate import argument_error
from ..distribution import LossSupremum
from ..exact import flint_prec, to_arb
from ..exact.signs import compare, sign
from ..scores import ScoreVector
from .base import Mechanism
from .sparse_vector_integral import Value
from .sparse_vector_release import (
    Output,
    Pattern,
    ReleaseScheme,
    SparseVectorRelease,
    as_fraction,
    value_ball,
    value_expr,
)


class LossBracketError(ValueError):
    """Refusal of a pair whose loss has no closed form, with the certified bracket.

    Attributes
    ----------
    lower : sympy.Expr
        A proven lower bound on the loss (0 when none was computed).
    upper : sympy.Expr
        A proven upper bound (the pointwise bound, sharpened pattern by pattern).
    output : str
        The output attaining ``lower``, in words (empty when none was computed).
    """

    def __init__(self, message: str, lower: sympy.Expr, upper: sympy.Expr,
                 output: str = "") -> None:
        super().__init__(message)
        self.lower, self.upper, self.output = lower, upper, output


def _differences(func: str, sv: ScoreVector, sv2: ScoreVector) -> list[sympy.Expr]:
    if sv.n != sv2.n:
        raise argument_error(func, "neighbour", f"a vector of {sv.n} query answers",
                             sv2.n)
    return [x - y for x, y in zip(sv.exact, sv2.exact, strict=True)]


def coupled_loss(func: str, mech: Mechanism, sv: ScoreVector, sv2: ScoreVector,
                 scheme: ReleaseScheme) -> LossSupremum:
    """The exact privacy loss of Lyu-Su-Li's Algorithm 3 on the answers ``sv`` and ``sv2``
    moving one way: ``t2 lam sum_i |a_i - a'_i|``, attained (the module docstring).

    Raises
    ------
    ValueError
        If the answers move both ways (no closed form: the pointwise bound is given).
    """
    d = _differences(func, sv, sv2)
    signs = {sign(x) for x in d}
    lam = mech.epsilon / mech.sensitivity
    total = sympy.Add(*[abs(x) for x in d])
    bound = sympy.Rational(scheme.query_rate.numerator, scheme.query_rate.denominator) * lam
    if signs <= {0}:
        return LossSupremum(sympy.Integer(0), True, 0, "every output: the two answer vectors "
                            "are equal")
    if {1, -1} <= signs:
        known = _mixed(mech, sv, sv2, scheme, d, bound)
        if isinstance(known, LossSupremum):
            return known
        text, lower, upper, where = known
        raise LossBracketError(
            f"{func}: the answers move both ways between the two vectors, so the supremum "
            "lies at an interior critical point of a transcendental function (no closed "
            f"form); it is {text}", lower, upper, where)
    lower = sv.exact if -1 in signs else sv2.exact
    m = sv.n
    shown = "(v,)" if m == 1 else f"({', '.join(['False'] * (m - 1))}, v)"
    witness = (f"the output {shown}: the first {m - 1} queries below the noisy threshold and "
               f"the last released at any value v <= {min(lower)} (the smaller answers' "
               f"minimum), {'the first input' if -1 in signs else 'the neighbour'} the "
               "more likely")
    return LossSupremum(bound * total, True, 1 if -1 in signs else -1, witness)


#: Estimated seconds of one density pair of :func:`coupled_loss_lower` per ``2**distinct``
#: (measured: m = 10 queries, 3 distinct answers, about 450 outputs, 4 s).
LOWER_SECONDS = 1e-3
#: Largest estimated seconds spent on the lower bound of a refused pair.
LOWER_SECONDS_LIMIT = 10.0


def refined_bound(d: Sequence[Fraction], c: int) -> Fraction:
    """The pointwise bound on Algorithm 3's loss, pattern by pattern, in units of ``t2
    lam``: for the direction ``e = +-d`` (``d_i = a_i - a'_i``), a query below contributes
    at most ``max(0, -e_i)`` (its CDF ratio is at most 1 on the other side) and a released
    one ``|e_i|``; the largest total over the patterns (fewer than ``c`` releases with all
    queries answered, or ``c`` releases ending at query ``p``)."""
    best = Fraction(0)
    for e in (list(d), [-x for x in d]):
        down = [max(Fraction(0), -x) for x in e]
        gain = [max(Fraction(0), x) for x in e]  # released instead of below
        best = max(best, sum(down, Fraction(0)) + sum(sorted(gain)[::-1][:c - 1], Fraction(0)))
        for p in range(c - 1, len(e)):
            top = sum(sorted(gain[:p])[::-1][:c - 1], Fraction(0))
            best = max(best, sum(down[:p + 1], Fraction(0)) + gain[p] + top)
    return best


def _mixed(mech: Mechanism, sv: ScoreVector, sv2: ScoreVector, scheme: ReleaseScheme,
           d: list[sympy.Expr], bound: sympy.Expr
           ) -> tuple[str, sympy.Expr, sympy.Expr, str] | LossSupremum:
    """The bracket "at least ... and at most ..." of a pair moving both ways (only the
    pointwise bound when the rest is not available: symbolic epsilon, irrational answers,
    too costly) as ``(text, lower, upper, output)``, or the exact loss when an output found
    attains the refined pointwise bound (:func:`refined_bound`): its two densities differ
    by exactly that factor (:func:`exp_ratio`)."""
    pointwise = bound * sympy.Add(*[abs(x) for x in d])
    plain = (f"at most {pointwise} (pointwise bound)", sympy.Integer(0), pointwise, "")
    distinct = len({*sv.exact, *sv2.exact})
    outputs = sv.n * (2 * distinct + 60)
    if bound.free_symbols or LOWER_SECONDS * outputs * 2.0**distinct > LOWER_SECONDS_LIMIT:
        return plain
    try:
        dist, dist2 = mech.distribution(sv.raw), mech.distribution(sv2.raw)
    except ValueError:  # irrational answers, or too many queries for the exact route
        return plain
    assert isinstance(dist, SparseVectorRelease) and isinstance(dist2, SparseVectorRelease)
    units = refined_bound([as_fraction(sympy.Rational(x)) for x in d], scheme.cutoff)
    upper = bound * sympy.Rational(units.numerator, units.denominator)
    low, where, at = coupled_loss_lower(dist, dist2)
    delta = exp_ratio(dist.density_value(at), dist2.density_value(at))
    if delta is not None and abs(delta) == scheme.query_rate * units:
        return LossSupremum(upper, True, 1 if delta > 0 else -1,
                            f"the output {where}, where the two densities differ by the "
                            "pointwise bound of its pattern (no output does better)")
    lower = sympy.Rational(low.numerator, low.denominator)
    text = f"at least {float(low):.6f} (at the output {where})"
    if delta is not None:
        exact = abs(delta) / scheme.query_rate
        lower = bound * sympy.Rational(exact.numerator, exact.denominator)
        text = f"at least {lower} (attained at the output {where})"
    return (f"{text} and at most {upper} (the pointwise bound of the best pattern)", lower,
            upper, where)


def exp_ratio(fa: Value, fb: Value) -> Fraction | None:
    """``delta`` if ``fa = exp(lam delta) fb`` term by term (a structural identity of the
    closed forms, so an exact proof of the ratio), else None."""
    if len(fa) != len(fb) or not fa:
        return None
    ka, kb = sorted(fa), sorted(fb)
    delta = ka[0][1] - kb[0][1]
    ok = all(x[0] == y[0] and x[1] - y[1] == delta and fa[x] == fb[y]
             for x, y in zip(ka, kb, strict=True))
    return delta if ok else None


def coupled_loss_lower(dist: SparseVectorRelease,
                       dist2: SparseVectorRelease) -> tuple[Fraction, str, Output]:
    """A rigorous lower bound on Algorithm 3's loss (6 decimals, rounded down) and the
    output attaining it: the largest ``|ln f_a(o) / f_a'(o)|`` over the outputs with one
    release (the other answered queries below) and the all-below output, the released
    value on a grid around the answers, each ratio enclosed in arb balls. Returns the bound,
    the output in words and the output."""
    m = dist.n
    tail: Pattern = (None,) * m if dist.scheme.cutoff == 1 else (False,) * m
    marks = sorted({*dist.offsets, *dist2.offsets, Fraction(0)})
    T = as_fraction(dist.threshold)
    step, scale = Fraction(1, 2), Fraction(1 / float(dist.scheme.query_rate * dist.rate))
    grid = [T + marks[0] - 4 + step * j for j in range(int((marks[-1] - marks[0]) / step) + 17)]
    grid += [T + marks[-1] + 4 + round(scale * j, 3) for j in range(1, 21)]
    outputs: list[Output] = [(False,) * m]
    outputs += [(False,) * k + (v,) + tail[k + 1:] for k in range(m) for v in grid]
    best, at = Fraction(0), outputs[0]
    with flint_prec(96):
        lam = to_arb(dist.rate, 96)
        for o in outputs:
            low = _ratio_lower(dist, dist2, o, lam)
            if low > best:
                best, at = low, o
        k = next((i for i, x in enumerate(at) if x is not None and x is not False), None)
        if k is not None:  # golden-section refinement of the released value
            v0 = at[k]
            assert isinstance(v0, Fraction)
            width = step if v0 <= T + marks[-1] + 4 else scale
            lo, hi = v0 - width, v0 + width
            for _ in range(30):
                x1 = Fraction(lo + (hi - lo) * Fraction(382, 1000)).limit_denominator(10**9)
                x2 = Fraction(lo + (hi - lo) * Fraction(618, 1000)).limit_denominator(10**9)
                o1, o2 = (at[:k] + (x1,) + at[k + 1:], at[:k] + (x2,) + at[k + 1:])
                f1, f2 = _ratio_lower(dist, dist2, o1, lam), _ratio_lower(dist, dist2, o2, lam)
                lo, hi = (x1, hi) if f2 > f1 else (lo, x2)
                for f, o in ((f1, o1), (f2, o2)):
                    if f > best:
                        best, at = f, o
    where = "(" + ", ".join(str(x) for x in at) + ")"
    return Fraction(int(best * 10**6), 10**6), where, at


def _ratio_lower(dist: SparseVectorRelease, dist2: SparseVectorRelease, o: Output,
                 lam: flint.arb) -> Fraction:
    """A rigorous lower bound on ``|ln f_a(o) / f_a'(o)|`` (arb balls, at the context
    precision)."""
    fa = value_ball(dist.density_value(o), lam)
    fb = value_ball(dist2.density_value(o), lam)
    return Fraction(float(abs((fa / fb).log()).lower())) - Fraction(1, 10**7)


def _decided_max(exprs: list[sympy.Expr], balls: list[flint.arb]) -> int:
    """Position of the largest value: by the balls, and by exact comparison where two of
    them overlap (raises UndecidedSignError if that cannot be decided)."""
    best = 0
    for i in range(1, len(exprs)):
        if balls[i] > balls[best]:
            best = i
        elif not balls[i] < balls[best] and compare(exprs[i], exprs[best]) > 0:
            best = i
    return best


def _direction(pa: Value, pb: Value, ba: flint.arb, bb: flint.arb,
               lam: sympy.Expr) -> int:
    if pa == pb:
        return 0
    if ba > bb:
        return 1
    if ba < bb:
        return -1
    return compare(value_expr(pa, lam), value_expr(pb, lam))


def fresh_loss(func: str, dist: SparseVectorRelease,
               dist2: SparseVectorRelease) -> LossSupremum:
    """The exact privacy loss of the numerical sparse vector on a pair: ``max over
    patterns of |ln P_a / P_a'| + t3 lam sum_released |a_i - a'_i|``, attained.

    Raises
    ------
    ValueError
        For a symbolic epsilon (the maximum is decided numerically).
    """
    lam = dist.rate
    if lam.free_symbols:
        raise ValueError(f"{func}: epsilon is symbolic ({dist.mechanism.epsilon}); the "
                         "maximum over patterns needs a number")
    d = [as_fraction(sympy.Rational(x)) - as_fraction(sympy.Rational(y))
         for x, y in zip(dist.scores.exact, dist2.scores.exact, strict=True)]
    t3 = dist.scheme.value_rate
    exprs, balls, dirs = [], [], []
    prec = 128
    with flint_prec(prec):
        lam_b = to_arb(lam, prec)
        for pat, pa, pb in zip(dist.outputs, dist.values, dist2.values, strict=True):
            ba, bb = value_ball(pa, lam_b), value_ball(pb, lam_b)
            direction = _direction(pa, pb, ba, bb, lam)
            spread = sum((abs(x) for x, p in zip(d, pat, strict=True) if p), Fraction(0))
            rel = sympy.Rational((t3 * spread).numerator, (t3 * spread).denominator) * lam
            num, den = (pa, pb) if direction >= 0 else (pb, pa)
            ratio = sympy.log(value_expr(num, lam) / value_expr(den, lam))
            exprs.append(rel + (ratio if direction else 0))
            lr = (ba / bb).log() if direction >= 0 else (bb / ba).log()
            rel_b = flint.arb((t3 * spread).numerator) / (t3 * spread).denominator * lam_b
            balls.append(rel_b + (lr if direction else 0))
            dirs.append(direction if direction else (1 if spread else 0))
    best = _decided_max(exprs, balls)
    pat = dist.outputs[best]
    if dirs[best] == 0:
        return LossSupremum(sympy.Integer(0), True, 0, "every output: the two answer "
                            "vectors give the same densities")
    side = "the first input" if dirs[best] > 0 else "the neighbour"
    witness = (f"the pattern {pat} with every released value beyond both answers on the "
               f"side of {side} (v_i >= max(a_i, a'_i) where {side}'s answer is the larger, "
               "v_i <= min(a_i, a'_i) where it is the smaller)")
    return LossSupremum(exprs[best], True, dirs[best], witness)
