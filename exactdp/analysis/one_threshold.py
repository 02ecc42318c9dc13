"""The exact privacy loss of one pair of a sparse vector variant with one threshold noise,
from its one-threshold closed forms instead of the program engine's runs.

:func:`exactdp.privacy_loss` on :class:`~exactdp.mechanisms.sparse_vector.SparseVector`
reads the probabilities from the program engine
(:mod:`exactdp.mechanisms.sparse_vector_engine`): one run per answer sequence, 1024 runs
for Algorithms 5 and 6 at ten queries (1.2 s CPU for the first vector of a length, the
tree's trace). :func:`one_threshold_loss` reads the same probabilities from
:func:`~exactdp.mechanisms.sparse_vector_integral.sequence_probabilities` (the threshold
noise integrated once per count vector: milliseconds; the route
:meth:`~exactdp.mechanisms.sparse_vector_distribution.SparseVectorDistribution.
loss_upper_bound` already encloses the loss with) and hands them, as polynomials in ``x =
exp(-lam/L)``, to the same x-form engine and the same candidate search as
:func:`exactdp.privacy_loss` (:func:`~exactdp.analysis.loss.pair_candidates`,
:func:`~exactdp.analysis.loss.max_candidates`: arb balls screen the outputs, exact
polynomial signs decide the rest; exact ties keep the first output). So the loss, its
sympy form and the output named are the ones :func:`exactdp.privacy_loss` gives (tested
against the program engine's route on every variant).

At a rational ``lam`` a closed form ``sum q lam**e exp(lam W)`` is ``sum_W c_W
exp(lam W)`` with rational ``c_W`` (:func:`collapse`), a polynomial in ``x`` over a power
of ``x`` once ``L`` clears the denominators of the ``W``.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from math import lcm
from typing import Any

import flint
import sympy

from ..mechanisms.sparse_vector_integral import Value, sequence_probabilities
from ..scores import ScoreVector
from ..xform import DENSE_DEGREE_LIMIT
from .common import as_mechanism, score_vector
from .engines.xform import XEngine
from .loss import PrivacyLoss, max_candidates, pair_candidates, value_of
from .neighbourhood import check_pair

#: A closed form at one rational ``lam``: ``{W: c}`` meaning ``sum c exp(lam W)``, every
#: ``c`` nonzero.
Form = dict[Fraction, Fraction]


def collapse(v: Value, lam: Fraction) -> Form:
    """The closed form ``v`` (``{(e, W): q}``: ``sum q lam**e exp(lam W)``) at the rational
    ``lam``, the terms of equal ``W`` merged and zeros dropped."""
    out: Form = {}
    for (e, w), q in v.items():
        out[w] = out.get(w, Fraction(0)) + q * lam**e
    return {w: c for w, c in out.items() if c}


def _scheme(dist: Any) -> Any:
    """The distribution's noise scheme when its threshold noise is drawn once before every
    comparison (Algorithm 2 stopping at the first True included), else None."""
    scheme = dist.scheme
    if scheme is not None and scheme.fresh_threshold and scheme.cutoff == 1:
        scheme = replace(scheme, fresh_threshold=False)  # never redrawn before a comparison
    return None if scheme is None or scheme.fresh_threshold else scheme


def _engine(values: list[list[Value]], lam: Fraction) -> XEngine | None:
    """The x-form engine over these closed forms (one list per vector), ``x = exp(-lam /
    L)``; None above :data:`exactdp.xform.DENSE_DEGREE_LIMIT`. Equal closed forms share
    one ``(num, den)`` pair (the candidate search counts them once)."""
    forms: dict[int, Form] = {}
    for vs in values:
        for v in vs:
            if id(v) not in forms:
                forms[id(v)] = collapse(v, lam)
    ws = [w for f in forms.values() for w in f]
    if not ws:
        return None
    L = lcm(*(w.denominator for w in ws))
    # exp(lam W) = x**(-L W) = x**(b - L W) / x**b, b = max(L max W, 0): powers >= 0
    b, low = max(int(L * max(ws)), 0), int(L * min(ws))
    if b - low > DENSE_DEGREE_LIMIT:
        return None
    den = flint.fmpq_poly([0] * b + [1])
    pairs: dict[int, tuple] = {}
    for key, f in forms.items():
        coeffs = [flint.fmpq(0)] * (b - low + 1)
        for w, c in f.items():
            coeffs[b - int(L * w)] += flint.fmpq(c.numerator, c.denominator)
        pairs[key] = (flint.fmpq_poly(coeffs), den)
    eng = XEngine(sympy.Rational(lam.numerator, lam.denominator), L,
                  [[pairs[id(v)] for v in vs] for vs in values])
    eng.canonical_sympy = False  # as privacy_loss's engine for answer sequences
    return eng


def one_threshold_loss(mechanism: object, scores: object, neighbour: object
                       ) -> PrivacyLoss | None:
    """The exact privacy loss of one pair of a sparse vector variant from its one-threshold
    closed forms (see the module docstring): the value, output and label
    :func:`exactdp.privacy_loss` gives, without the program engine's runs (``ratios``
    left empty). None where the route does not apply: no noise scheme, a threshold drawn
    afresh before a comparison (Algorithm 2 with ``c > 1``), a symbolic or irrational
    ``lam`` or threshold, irrational answers, or a degree in ``x`` above
    :data:`exactdp.xform.DENSE_DEGREE_LIMIT`.

    Parameters
    ----------
    mechanism : SparseVector
        Read through its distribution's ``scheme``, ``threshold`` and ``outputs`` and its
        ``rate`` (``lam = epsilon / sensitivity``).
    scores, neighbour : sequence of numbers
        The pair.

    Raises
    ------
    ValueError
        As :func:`exactdp.privacy_loss`: different lengths, not neighbours.

    Examples
    --------
    >>> from exactdp import SparseVector
    >>> from exactdp.analysis.one_threshold import one_threshold_loss
    >>> r = one_threshold_loss(SparseVector(epsilon=1, threshold=0, variant=5), [0, 0],
    ...                        [1, -1])
    >>> r.loss, r.label
    (oo, (True, False))
    """
    func = "one_threshold_loss"
    q = score_vector(scores, "scores", func)
    q2 = score_vector(neighbour, "neighbour", func)
    mech: Any = as_mechanism(mechanism, func)
    check_pair(mech, q, q2, func, False)
    dist = mech.distribution(q)
    scheme, lam, T = _scheme(dist), mech.rate, dist.threshold
    if (scheme is None or T is None or not (lam.is_Rational and T.is_Rational)
            or not (q.is_rational and q2.is_rational)):
        return None
    t = Fraction(int(T.p), int(T.q))
    values = [sequence_probabilities([Fraction(int(a.p), int(a.q)) - t for a in sv.exact],
                                     scheme) for sv in (q, q2)]
    engine = _engine(values, Fraction(int(lam.p), int(lam.q)))
    if engine is None:
        return None
    return _loss(engine, dist.outputs, q, q2)


def _loss(engine: XEngine, outputs: tuple, q: ScoreVector, q2: ScoreVector) -> PrivacyLoss:
    """:func:`exactdp.privacy_loss`'s result from the engine's candidates, ``ratios``
    empty (the candidate search of :mod:`exactdp.analysis.loss`)."""
    best = max_candidates(engine, pair_candidates(engine, 0, 1))
    if not best:
        return PrivacyLoss(sympy.Integer(0), None, (), q.values, q2.values, 0, (), engine.kind)
    if len(best) == 1:
        c = best[0]
        value = value_of(engine, c)
        return PrivacyLoss(value, c[1], (), q.values, q2.values, c[3] if value != 0 else 0,
                           (c[1],), engine.kind, label=outputs[c[1]],
                           labelled=True)
    return PrivacyLoss(sympy.Max(*[value_of(engine, c) for c in best]), None, (), q.values,
                       q2.values, 0, tuple(sorted({c[1] for c in best})), engine.kind)
