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
from functools import lru_cache
from math import comb, gcd, lcm

from ..exact.piecewise_exp import Value


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


def translation_bound(scheme: Scheme, moves: Sequence[Fraction]) -> Fraction | None:
    """An upper bound on the privacy loss between two answer vectors whose answers differ
    by ``moves`` (``a'_i - a_i``), in units of ``lam``: the best translation of the noises.

    Shift every threshold noise by ``t`` and query noise ``i`` by ``t - moves_i``: each
    comparison ``a_i + nu_i >= T + rho`` keeps its value, so the translation maps the event
    of every answer sequence on ``a`` onto its event on ``a'``, and a Laplace density of
    rate ``r lam`` changes by at most ``exp(r lam |shift|)``. Hence for every sequence
    ``|ln P_a(o) / P_a'(o)| <= lam g(t)`` with ``g(t) = k t1 |t| + t2 sum_i |t - moves_i|``
    (``k`` threshold draws that meet a comparison: 1, or up to ``c`` with a fresh threshold
    after every ``True``). ``g`` is convex and piecewise linear, so its minimum is at one of
    its breakpoints ``{0} U {moves_i}``. Without query noise (Algorithm 5) only ``t =
    moves_i`` for every ``i`` keeps the comparisons: None (no bound) unless the moves are
    equal. This is the coupling ("randomness alignment") argument of LightDP (Zhang and
    Kifer, POPL 2017) and of Lyu, Su and Li's proofs (PVLDB 2017, Theorem 2), applied to one
    pair of inputs.

    Examples
    --------
    >>> s = Scheme(Fraction(1, 2), Fraction(1, 2), None)  # Algorithm 6
    >>> translation_bound(s, [Fraction(1)] * 4 + [Fraction(-1)] * 4)
    Fraction(4, 1)
    >>> translation_bound(s, [Fraction(1)] * 8)
    Fraction(1, 2)
    """
    moves = [Fraction(d) for d in moves]
    draws = 1
    if scheme.fresh_threshold:
        draws = len(moves) if scheme.cutoff is None else min(scheme.cutoff, len(moves))
    if scheme.query_rate is None:
        if len(set(moves)) > 1:
            return None
        return draws * scheme.threshold_rate * abs(moves[0]) if moves else Fraction(0)
    t2 = scheme.query_rate
    return min(draws * scheme.threshold_rate * abs(t) + t2 * sum(abs(t - d) for d in moves)
               for t in {Fraction(0), *moves})


@lru_cache(maxsize=4096)
def _group_terms(T2: int, h: int, left: bool, t: int, f: int,
                 noisy: bool) -> tuple[tuple[int, int, int], ...]:
    """``(R, Wn, coef)``: the answers of one group (``t`` Trues, ``f`` Falses, scaled
    offset ``h``) on an interval left or right of its breakpoint, times ``2**(t + f)``."""
    if not noisy:  # True iff rho <= s
        return ((0, 0, 1),) if (f == 0 if left else t == 0) else ()
    a, b = (t, f) if left else (f, t)  # (1 - w/2)**a (w/2)**b = 2**-(a+b) w**b (2-w)**a
    sigma = 1 if left else -1
    step_r, step_w = sigma * T2, -sigma * T2 * h
    return tuple(((b + k) * step_r, (b + k) * step_w, comb(a, k) * 2 ** (a - k) * (-1) ** k)
                 for k in range(a + 1))


@lru_cache(maxsize=8192)
def segment_integral(t1: Fraction, t2: Fraction | None,
                     groups: tuple[tuple[Fraction, int, int], ...]) -> Value:
    """The integral over ``rho ~ Lap(rate t1 lam)`` of the probability that the queries of
    each group ``(s, t, f)`` (offset ``s``) give ``t`` Trues and ``f`` Falses.

    On an interval left of ``s`` the answers of a group contribute ``(1 - u/2)**t
    (u/2)**f`` with ``u = exp(t2 lam (rho - s))``; right of it ``(u'/2)**t (1 - u'/2)**f``
    with ``u' = 1/u``: the binomial coefficients give the integrand directly. A term
    ``exp(lam (r rho + w))`` is held as the integers ``(r * Lr, w * S)`` (``Lr`` the
    denominator of the rates, ``S = Lr`` times that of the offsets) with an integer
    coefficient, so Fractions appear only in the result. The value depends on the groups
    alone (not on the other queries of a vector), so it is cached across score vectors
    (the neighbours of a search share most of them).
    """
    cuts = sorted({Fraction(0), *(s for s, _, _ in groups)})
    noisy = t2 is not None
    ds = lcm(*(c.denominator for c in cuts))
    Lr = lcm(t1.denominator, 1 if t2 is None else t2.denominator)
    S = Lr * ds
    T1 = int(t1 * Lr)
    T2 = 0 if t2 is None else int(t2 * Lr)
    ch = [int(c * ds) for c in cuts]
    hs = [(int(s * ds), t, f) for s, t, f in groups]  # the offsets on the integer grid
    d = sum(t + f for _, t, f in groups) if noisy else 0
    K = t1 / 2 ** (d + 1)
    # (e, W * S, divisor) -> integer numerator: the coefficient is K * numerator / divisor
    acc: dict[tuple[int, int, int], int] = {}
    for j in range(len(cuts) + 1):
        terms: dict[tuple[int, int], int] = {(0, 0): 1}
        for h, t, f in hs:
            fac = _group_terms(T2, h, j < len(cuts) and ch[j] <= h, t, f, noisy)
            nxt: dict[tuple[int, int], int] = {}
            for (r1, w1), q1 in terms.items():
                for r2, w2, q2 in fac:
                    k = (r1 + r2, w1 + w2)
                    nxt[k] = nxt.get(k, 0) + q1 * q2
            terms = {k: q for k, q in nxt.items() if q}
            if not terms:
                break
        lo = ch[j - 1] if j > 0 else None
        hi = ch[j] if j < len(cuts) else None
        dR = -T1 if (lo is not None and cuts[j - 1] >= 0) else T1
        for (R, Wn), q in terms.items():
            R2 = R + dR
            if R2 == 0:  # lam * q2 * (hi - lo) * exp(lam w)
                if lo is None or hi is None:
                    raise ArithmeticError("sparse vector: an integrand does not decay")
                k1 = (1, Wn, ds)
                acc[k1] = acc.get(k1, 0) + q * (hi - lo)
                continue
            if (lo is None and R2 < 0) or (hi is None and R2 > 0):
                raise ArithmeticError("sparse vector: an integrand does not decay")
            # q2 / r2 = K q Lr / R2
            if hi is not None:
                k0 = (0, R2 * hi + Wn, R2)
                acc[k0] = acc.get(k0, 0) + q * Lr
            if lo is not None:
                k0 = (0, R2 * lo + Wn, R2)
                acc[k0] = acc.get(k0, 0) - q * Lr
    total: dict[tuple[int, int], tuple[int, int]] = {}  # (e, W * S) -> (num, den), ints
    for (e, w, div), q in acc.items():
        if q:
            n0, d0 = total.get((e, w), (0, 1))
            n, d = n0 * div + q * d0, d0 * div
            g = gcd(n, d)
            total[(e, w)] = (n // g, d // g)
    kn, kd = K.numerator, K.denominator
    return {(e, Fraction(w, S)): Fraction(kn * n, kd * d) for (e, w), (n, d) in total.items()
            if n}


class _Segments:
    """The integrals of one vector's offsets per count vector ``(t_0, f_0, t_1, f_1,
    ...)`` (Trues and Falses per distinct offset): :func:`segment_integral` of the groups
    that answered."""

    def __init__(self, offsets: Sequence[Fraction], scheme: Scheme):
        self.groups = sorted(set(offsets))
        self.t1, self.t2 = scheme.threshold_rate, scheme.query_rate
        self._values: dict[tuple[int, ...], Value] = {}

    def value(self, counts: tuple[int, ...]) -> Value:
        """The integral for ``counts`` (cached)."""
        hit = self._values.get(counts)
        if hit is None:
            key = tuple((s, counts[2 * g], counts[2 * g + 1])
                        for g, s in enumerate(self.groups) if counts[2 * g] + counts[2 * g + 1])
            hit = self._values[counts] = segment_integral(self.t1, self.t2, key)
        return hit


def sequence_probabilities(offsets: Sequence[Fraction], scheme: Scheme) -> list[Value]:
    """The exact probability of every answer sequence (in :func:`answer_sequences` order)
    for the offsets ``s_i = a_i - T``, as :data:`Value` mappings, for one threshold noise
    drawn once (Algorithm 3's answer patterns; the discrete variants, Algorithm 2's fresh
    threshold included, are computed by the program engine:
    :mod:`exactdp.mechanisms.sparse_vector_engine`).

    Given ``rho`` the integrand of a sequence depends only on how many ``True`` and
    ``False`` answers it gives to the queries of each distinct offset (the factors
    commute), so each count vector is integrated once (:class:`_Segments`) and sequences
    with equal counts share one :data:`Value` object. The walk over the sequences (level
    by level, in their order; a count vector held as one integer) only counts.

    Raises
    ------
    ValueError
        For a scheme that redraws the threshold noise.
    """
    if scheme.fresh_threshold:
        raise ValueError("sequence_probabilities: a threshold noise drawn afresh (Algorithm "
                         "2) is the program engine's (exactdp.mechanisms.sparse_vector_engine)")
    m = len(offsets)
    seg = _Segments(offsets, scheme)
    index = {s: g for g, s in enumerate(seg.groups)}
    width = 2 * len(seg.groups)
    # a count vector (t_0, f_0, t_1, ...) as one integer in base m + 1 (each count <= m):
    # a True of group g adds (m + 1)**(2 g), a False (m + 1)**(2 g + 1)
    units = [((m + 1) ** (2 * index[s]), (m + 1) ** (2 * index[s] + 1)) for s in offsets]
    level = [(0, 0)]  # (count vector, Trues) of the prefixes, in answer_sequences order
    for above, below in units:
        nxt: list[tuple[int, int]] = []
        for key, trues in level:
            if scheme.cutoff is not None and trues == scheme.cutoff:
                nxt.append((key, trues))  # stopped: its sequence is complete
            else:
                nxt += ((key + above, trues + 1), (key + below, trues))
        level = nxt
    leaves: dict[int, Value] = {}
    one: Value = {(0, Fraction(0)): Fraction(1)}
    out: list[Value] = []
    for key, _ in level:
        hit = leaves.get(key)
        if hit is None:
            counts = tuple(key // (m + 1) ** j % (m + 1) for j in range(width))
            hit = leaves[key] = one if key == 0 else seg.value(counts)
        out.append(hit)
    return out
