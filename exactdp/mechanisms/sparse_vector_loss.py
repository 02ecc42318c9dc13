"""The exact privacy loss of the sparse vector variants that release values: Lyu-Su-Li's
Algorithm 3 (:func:`coupled_loss`) and the numerical sparse vector (:func:`fresh_loss`).

The derivation (pointwise bound, the attaining outputs) is in
:mod:`exactdp.mechanisms.sparse_vector_release`; Algorithm 3 on answers moving both ways is
answered by the program engine
(:mod:`~exactdp.mechanisms.sparse_vector_release_engine`).
"""

from __future__ import annotations

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
    ReleaseScheme,
    SparseVectorRelease,
    as_fraction,
    value_ball,
    value_expr,
)
from .sparse_vector_release_engine import mixed_loss


def _differences(func: str, sv: ScoreVector, sv2: ScoreVector) -> list[sympy.Expr]:
    if sv.n != sv2.n:
        raise argument_error(func, "neighbour", f"a vector of {sv.n} query answers",
                             sv2.n)
    return [x - y for x, y in zip(sv.exact, sv2.exact, strict=True)]


def coupled_loss(func: str, mech: Mechanism, sv: ScoreVector, sv2: ScoreVector,
                 scheme: ReleaseScheme, threshold: sympy.Expr) -> LossSupremum:
    """The exact privacy loss of Lyu-Su-Li's Algorithm 3 on the answers ``sv`` and ``sv2``:
    moving one way, ``t2 lam sum_i |a_i - a'_i|``, attained (the derivation is in
    :mod:`exactdp.mechanisms.sparse_vector_release`); moving both ways, the program
    engine's (:func:`~exactdp.mechanisms.sparse_vector_release_engine.mixed_loss`: exact,
    or a certified bracket labelled as such).

    Raises
    ------
    ValueError
        Answer vectors of different lengths; the engine's one-line refusals on pairs
        moving both ways (a symbolic epsilon, the cost model).
    """
    d = _differences(func, sv, sv2)
    signs = {sign(x) for x in d}
    lam = mech.epsilon / mech.sensitivity
    total = sympy.Add(*[abs(x) for x in d])
    bound = sympy.Rational(scheme.query_rate.numerator, scheme.query_rate.denominator) * lam
    if signs <= {0}:
        return LossSupremum(sympy.Integer(0), True, 0, "every output: the two answer vectors "
                            "are equal")
    if {1, -1} <= signs:  # no closed form in general: the engine's exact supremum
        return mixed_loss(func, mech.epsilon, threshold, scheme.cutoff,
                          mech.sensitivity, sv, sv2)
    lower = sv.exact if -1 in signs else sv2.exact
    m = sv.n
    shown = "(v,)" if m == 1 else f"({', '.join(['False'] * (m - 1))}, v)"
    witness = (f"the output {shown}: the first {m - 1} queries below the noisy threshold and "
               f"the last released at any value v <= {min(lower)} (the smaller answers' "
               f"minimum), {'the first input' if -1 in signs else 'the neighbour'} the "
               "more likely")
    return LossSupremum(bound * total, True, 1 if -1 in signs else -1, witness)


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
