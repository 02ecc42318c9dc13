"""Exact output probabilities of the sparse vector technique: piecewise exponential integrals.

Every quantity here is a function of ``lam = epsilon / sensitivity`` and of the rational
offsets ``s_i = a_i - T`` (query answer minus threshold). A noise of scale
``sensitivity / (t * epsilon)`` has *rate* ``t * lam`` with ``t`` rational.

Given the threshold noise ``rho``, the answers are independent: query ``i`` is ``True``
(``a_i + nu_i >= T + rho``) with probability ``1 - F(rho - s_i)`` and ``False`` with
``F(rho - s_i)``, where ``F`` is the CDF of the query noise ``nu_i`` (Laplace of rate
``t2 * lam``: ``F(z) = e^(t2 lam z) / 2`` for ``z < 0``, ``1 - e^(-t2 lam z) / 2`` for
``z >= 0``; with no query noise, the indicator ``z > 0``). So the probability of an answer
sequence is the integral over ``rho`` of the Laplace density of ``rho`` times a product of
such factors. Between the sorted breakpoints ``{0} U {s_i}`` every factor is a sum of terms
``q * exp(lam * (r * rho + w))`` with rationals ``q, r, w``, so the integral is done term by
term in closed form:

- ``r != 0``: ``q / (r lam) * [exp(lam (r u + w)) - exp(lam (r l + w))]`` (an infinite end
  contributes 0: the integrand decays there);
- ``r == 0``: ``q * (u - l) * exp(lam w)``.

A probability is held as a mapping ``{(e, W): q}`` meaning ``sum q * lam**e * exp(lam * W)``
with ``q, W`` rational and ``e`` a small non-negative integer (Fractions throughout: no
float enters). Lyu-Su-Li's Algorithm 2 draws the threshold noise afresh after every
``True``: its probabilities are products of one such integral per segment.

References
----------
M. Lyu, D. Su and N. Li, "Understanding the Sparse Vector Technique for Differential
Privacy", PVLDB 10(6), 2017 (Algorithms 1-6).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb

#: A function of rho on one interval: ``{(r, w): q}`` = ``sum q exp(lam (r rho + w))``.
Piece = dict[tuple[Fraction, Fraction], Fraction]
#: An exact value: ``{(e, W): q}`` = ``sum q lam**e exp(lam W)``.
Value = dict[tuple[int, Fraction], Fraction]

_ONE: Piece = {(Fraction(0), Fraction(0)): Fraction(1)}
_HALF = Fraction(1, 2)


@dataclass(frozen=True)
class Scheme:
    """The noise of one sparse vector variant, as rates in units of ``lam = eps/Delta``.

    Attributes
    ----------
    threshold_rate : Fraction
        ``t1``: the threshold noise is Laplace of scale ``Delta / (t1 epsilon)``.
    query_rate : Fraction or None
        ``t2``: the query noise is Laplace of scale ``Delta / (t2 epsilon)``; None: no
        query noise (Algorithm 5).
    cutoff : int or None
        Stop after this many ``True`` answers (None: never stop).
    fresh_threshold : bool
        Draw the threshold noise afresh after every ``True`` (Algorithm 2).
    """

    threshold_rate: Fraction
    query_rate: Fraction | None
    cutoff: int | None
    fresh_threshold: bool = False


def _mul(a: Piece, b: Piece) -> Piece:
    out: Piece = {}
    for (r1, w1), q1 in a.items():
        for (r2, w2), q2 in b.items():
            key = (r1 + r2, w1 + w2)
            v = out.get(key, Fraction(0)) + q1 * q2
            if v:
                out[key] = v
            else:
                out.pop(key, None)
    return out


def _factor(above: bool, s: Fraction, left: bool, rate: Fraction | None) -> Piece:
    """The probability of one answer as a function of rho on an interval lying left
    (``left``: rho < s) or right of the query's breakpoint ``s``."""
    if rate is None:  # no query noise: True iff rho <= s
        return dict(_ONE) if above == left else {}
    if left:  # F(rho - s) = exp(t2 lam (rho - s)) / 2
        small = {(rate, -rate * s): _HALF}
        return {**_ONE, (rate, -rate * s): -_HALF} if above else small
    large = {(-rate, rate * s): _HALF}  # 1 - F(rho - s) = exp(-t2 lam (rho - s)) / 2
    return large if above else {**_ONE, (-rate, rate * s): -_HALF}


def _add(out: Value, key: tuple[int, Fraction], q: Fraction) -> None:
    v = out.get(key, Fraction(0)) + q
    if v:
        out[key] = v
    else:
        out.pop(key, None)


def _integrate(pieces: Sequence[Piece], cuts: Sequence[Fraction], rate: Fraction) -> Value:
    """``integral over rho`` of the Laplace(rate t1) density of rho times the piecewise
    function ``pieces`` (``pieces[j]`` on ``[cuts[j-1], cuts[j]]``, ``cuts`` sorted, the
    first piece from -oo and the last to +oo)."""
    out: Value = {}
    for j, piece in enumerate(pieces):
        lo = cuts[j - 1] if j > 0 else None
        hi = cuts[j] if j < len(cuts) else None
        right_of_zero = lo is not None and lo >= 0
        dr = -rate if right_of_zero else rate  # the density (t1 lam / 2) exp(-+ t1 lam rho)
        for (r, w), q in piece.items():
            r2, q2 = r + dr, q * rate / 2
            if r2 == 0:  # lam * q2 * (hi - lo) * exp(lam w)
                if lo is None or hi is None:
                    raise ArithmeticError("sparse vector: an integrand does not decay")
                _add(out, (1, w), q2 * (hi - lo))
                continue
            if (lo is None and r2 < 0) or (hi is None and r2 > 0):
                raise ArithmeticError("sparse vector: an integrand does not decay")
            if hi is not None:
                _add(out, (0, r2 * hi + w), q2 / r2)
            if lo is not None:
                _add(out, (0, r2 * lo + w), -q2 / r2)
    return out


def _times(a: Value, b: Value) -> Value:
    out: Value = {}
    for (e1, w1), q1 in a.items():
        for (e2, w2), q2 in b.items():
            _add(out, (e1 + e2, w1 + w2), q1 * q2)
    return out


def answer_sequences(m: int, cutoff: int | None) -> Iterator[tuple[bool | None, ...]]:
    """The answer sequences of length ``m`` in the documented order: that of
    ``itertools.product((True, False), repeat=m)`` with every entry after the
    ``cutoff``-th ``True`` replaced by ``None`` and repeats dropped."""
    def walk(prefix: tuple, trues: int):
        if len(prefix) == m:
            yield prefix
            return
        if cutoff is not None and trues == cutoff:
            yield prefix + (None,) * (m - len(prefix))
            return
        yield from walk(prefix + (True,), trues + 1)
        yield from walk(prefix + (False,), trues)
    yield from walk((), 0)


def sequence_count(m: int, cutoff: int | None) -> int:
    """Number of answer sequences of length ``m`` (``2**m`` when no cut-off is reached)."""
    if cutoff is None or cutoff >= m:
        return 2**m
    # sequences with fewer than c Trues over all m, plus those whose c-th True is at i
    fewer = sum(comb(m, j) for j in range(cutoff))
    return fewer + sum(comb(i, cutoff - 1) for i in range(cutoff - 1, m))


def sequence_probabilities(offsets: Sequence[Fraction], scheme: Scheme) -> list[Value]:
    """The exact probability of every answer sequence (in :func:`answer_sequences` order)
    for the offsets ``s_i = a_i - T``, as :data:`Value` mappings.

    A depth-first walk over the sequences shares the products of their common prefixes.
    """
    m = len(offsets)
    cuts = sorted({Fraction(0), *offsets})
    # interval j is [cuts[j-1], cuts[j]]; it lies left of s iff its right end is <= s
    left = [[j < len(cuts) and cuts[j] <= s for j in range(len(cuts) + 1)] for s in offsets]
    t1, t2 = scheme.threshold_rate, scheme.query_rate
    out: list[Value] = []

    def step(i: int, pieces: list[Piece], done: Value, trues: int) -> None:
        if i == m or (scheme.cutoff is not None and trues == scheme.cutoff):
            out.append(_times(done, _integrate(pieces, cuts, t1)))
            return
        s = offsets[i]
        for above in (True, False):
            nxt = [_mul(p, _factor(above, s, left[i][j], t2)) for j, p in enumerate(pieces)]
            if above and scheme.fresh_threshold:
                seg = _times(done, _integrate(nxt, cuts, t1))
                fresh = [dict(_ONE) for _ in range(len(cuts) + 1)]
                if i + 1 == m or trues + 1 == scheme.cutoff:
                    out.append(seg)
                    continue
                step(i + 1, fresh, seg, trues + 1)
            else:
                step(i + 1, nxt, done, trues + int(above))

    step(0, [dict(_ONE) for _ in range(len(cuts) + 1)], {(0, Fraction(0)): Fraction(1)}, 0)
    return out
