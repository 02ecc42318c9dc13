"""The exact privacy loss of Lyu-Su-Li's Algorithm 3 (:func:`coupled_loss`), the sparse
vector variant that releases the compared values.

The derivation (pointwise bound, the attaining outputs) is in
:mod:`exactdp.mechanisms.sparse_vector_release`; Algorithm 3 on answers moving both ways,
and the numerical sparse vector on every pair, are answered by the program engine
(:mod:`~exactdp.mechanisms.sparse_vector_release_engine`).
"""

from __future__ import annotations

import sympy

from .._validate import argument_error
from ..distribution import LossSupremum
from ..exact.signs import sign
from ..scores import ScoreVector
from .base import Mechanism
from .sparse_vector_release import ReleaseScheme
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
