"""Float64 routes of the PF / EM engine: ``em_float`` (softmax) and ``pf_float`` (O(n)).

The method and its error analysis are in :mod:`exactdp.numeric.pf`.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

import flint
import numpy as np

from ..._validate import argument_error
from ...exact.arb import flint_prec
from .scheme import (
    fail_nonneg,
    horner_terms,
    panel_edges,
    power_schedule,
    quad_plan,
    series_terms,
    trunc_const,
)

_BITS_FLOAT = 60
_LEVEL = 2.0**-12  # split of the small coins: below it few series terms suffice
#: Coins with ``u > _THETA_FLOAT`` are the large ones (set A, factors at every node); the
#: others go into the moment series, ~63 terms at ``u = 1/2`` (as matrix products, so the
#: series length costs little while every large coin costs a row of logarithms).
_THETA_FLOAT = 0.125
#: The quadrature's a priori relative error bound is ``2^-_QUAD_BITS`` (far below the
#: rounding errors, ~1e-15).
_QUAD_BITS = 56
#: Rules are planned for ``Lambda`` in the buckets ``(2^((k-1)/_STEPS), 2^(k/_STEPS)]``.
_STEPS = 6
#: The longest series at ``b = 60`` (``u <= 1/2``, ``Lambda <= C``): powers of the nodes kept.
_JMAX = max(series_terms(0.5, trunc_const(_BITS_FLOAT) + 0.1, _BITS_FLOAT),
            horner_terms(0.5, _BITS_FLOAT))
#: Up to this many distinct gaps the small coins' powers are one matrix (at most
#: ``_JMAX + 1`` rows; ~21 rows at ``u <= 1/8``).
_DENSE = 4096
_NEG_RECIP = -1.0 / np.arange(1.0, _JMAX + 1.0)  # -1/j, j = 1.._JMAX
_EMPTY = np.empty(0)
#: what ``ndarray.sum`` / ``.max`` / ``.min`` / ``.prod`` call, without their Python layer
_ADD, _MAX, _MIN, _PROD = np.add.reduce, np.maximum.reduce, np.minimum.reduce, np.multiply.reduce


@lru_cache(maxsize=32)
def _legendre(nodes: int) -> tuple[tuple, tuple]:
    """Gauss-Legendre nodes and weights on ``[-1, 1]`` as 100-bit arb balls (python-flint;
    numpy's ``leggauss`` is off by ~3e-15 in the moments at 20 nodes)."""
    with flint_prec(100):
        xw = [flint.arb.legendre_p_root(nodes, k, weight=True) for k in range(nodes)]
    return tuple(x for x, _ in xw), tuple(w for _, w in xw)


class _Rule:
    """A composite Gauss-Legendre rule on ``[0, 1]`` with what the route needs of it:
    nodes ``tau`` (increasing), weights ``w``, ``powers[j] = tau**j`` (``j <= _JMAX``,
    repeated products), ``half``: the nodes ``tau <= 1/2`` are ``tau[:half]``, and
    ``tiles(c)``: ``tau`` and ``1 - tau`` repeated for ``c`` large coins."""

    __slots__ = ("_tiles", "half", "powers", "tau", "w")

    def __init__(self, grading: int, nodes: tuple[int, ...]):
        edges = panel_edges(grading)
        pairs = []
        with flint_prec(100):  # nodes and weights rounded once, from 100-bit balls
            for a, b, count in zip(edges[:-1], edges[1:], nodes, strict=True):
                h = (flint.arb(b) - flint.arb(a)) / 2
                for x, wx in zip(*_legendre(count), strict=True):
                    pairs.append((float((a + h * (x + 1)).mid()), float((h * wx).mid())))
        pairs.sort()
        self.tau = tau = np.array([t for t, _ in pairs])
        self.w = np.array([wt for _, wt in pairs])
        powers = np.empty((_JMAX + 1, tau.size))
        powers[0] = 1.0
        for j in range(1, _JMAX + 1):
            np.multiply(powers[j - 1], tau, out=powers[j])
        self.powers = powers
        self.half = int(np.searchsorted(tau, 0.5, side="right"))
        self._tiles = (_EMPTY, _EMPTY)

    def tiles(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        """``(tau, 1 - tau)`` repeated at least ``count`` times (flat: the large coins'
        table is ``(coins, nodes)``, so that its products are contiguous arrays of one
        shape; numpy's broadcasting loops cost ~2 us more per call). Grown on demand and
        replaced whole, never written into (safe to share between threads)."""
        tiles = self._tiles
        if tiles[0].size < count * self.tau.size:
            rep = np.tile(self.tau, max(count, 64, 2 * tiles[0].size // self.tau.size))
            tiles = self._tiles = (rep, 1.0 - rep)
        return tiles


@lru_cache(maxsize=64)
def _float_rule(k: int) -> _Rule:
    """The rule for ``Lambda`` in ``(2^((k-1)/_STEPS), 2^(k/_STEPS)]``: the fewest nodes
    whose a priori bound (:func:`~.scheme.quad_plan`) is ``2^-_QUAD_BITS`` relative."""
    return _Rule(*quad_plan(2.0 ** ((k - 1) / _STEPS), 2.0 ** (k / _STEPS), _QUAD_BITS))


def _bucket(lam: float) -> int:
    """The bucket ``k`` of ``Lambda`` (rounded up by 1e-12 relative: its own rounding
    error is far smaller)."""
    return max(0, math.ceil(_STEPS * math.log2(lam * (1.0 + 1e-12))))


@lru_cache(maxsize=1024)
def _dense_terms(e: int, k: int) -> tuple[int, int]:
    """``(J, J')``: the series lengths (:func:`~.scheme.series_terms`,
    :func:`~.scheme.horner_terms`) for every ``u_max <= 2^(e/4)`` and ``Lambda`` in bucket
    ``k`` (both tails grow with ``u_max`` and ``Lambda``)."""
    umax = 2.0 ** (max(e, -4000) / 4)
    return (series_terms(umax, 2.0 ** (k / _STEPS), _BITS_FLOAT),
            horner_terms(umax, _BITS_FLOAT))


class _Plan(NamedTuple):
    """What one call of the dense route needs for ``Lambda`` in bucket ``k`` and
    ``u_max <= 2^(e/4)``: the rule; ``top``, the rows ``u^e`` (``e = 1..top``, ``top =
    max(J, J' + 1)`` for the series lengths of :func:`_dense_terms`) filled by ``ops``
    (:func:`~.scheme.power_schedule`, rows in its order of exponents ``e_r``);
    ``log_rows[r] = -tau^(e_r) / e_r`` (``log g`` of the small coins is ``moments @
    log_rows``) and ``mu_rows[r] = tau^(e_r - 1)`` (the moments of step 5 that multiply
    row r). Terms past ``J`` or ``J'`` are true terms of the series: they only shrink the
    tails."""

    rule: _Rule
    top: int
    ops: tuple[tuple[int, int, int, int], ...]
    log_rows: np.ndarray
    mu_rows: np.ndarray


@lru_cache(maxsize=1024)
def _plan(k: int, e: int | None) -> _Plan:
    """The :class:`_Plan` for bucket ``k`` (:func:`_float_rule`) and ``u_max <= 2^(e/4)``
    (``e = None``: no small coin, one row of zeros)."""
    rule = _float_rule(k)
    J, H = (0, 0) if e is None else _dense_terms(e, k)
    top = max(J, H + 1)
    ops, exps = power_schedule(top)
    pows = rule.powers  # tau^0..tau^_JMAX; top <= _JMAX + 1
    if top > _JMAX:
        pows = np.vstack([pows, pows[-1] * rule.tau])
    ex = np.array(exps)
    log_rows = np.divide(pows[ex], -ex[:, None].astype(np.float64))
    return _Plan(rule, top, ops, log_rows, pows[ex - 1])


#: Rows of the longest dense plan: ``u_max <= 1/8`` (``e = -12``), ``Lambda <= C``.
_J_DENSE, _H_DENSE = _dense_terms(-12, _bucket(trunc_const(_BITS_FLOAT)))
_TOP_DENSE = max(_J_DENSE, _H_DENSE + 1)


def _power_block(block: np.ndarray, plan: _Plan) -> np.ndarray:
    """Rows ``u^(e_r)`` in the plan's order (:func:`~.scheme.power_schedule`), filled
    below ``block[0] = u``: one flat multiplication per block of rows, no broadcasting."""
    out = block[:plan.top]
    if plan.top > block.shape[0]:  # never with the plans of _TOP_DENSE; kept correct
        out = np.empty((plan.top, block.shape[1]))
        out[0] = block[0]
    mul = np.multiply
    for i, j, m, o in plan.ops:
        mul(out[i:i + m], out[j:j + m], out=out[o:o + m])
    return out


def _gap_array(d: object, func: str) -> np.ndarray:
    """Validate the scaled gaps: 1-D, real, no NaN, >= 0, at least one exact 0."""
    arr = np.asarray(d)
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise argument_error(func, "d.dtype", "a real dtype (a 1-D array of real numbers)",
                             arr.dtype)
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if arr.ndim != 1 or arr.size == 0:
        raise argument_error(func, "d.shape", "(n,) with n >= 1 (a non-empty 1-D array)",
                             arr.shape)
    m = _MIN(arr)
    if not m == 0.0:  # also catches NaN (min propagates it) and negatives
        bad = np.flatnonzero(np.isnan(arr) | (arr < 0))
        if bad.size:
            i = int(bad[0])
            raise fail_nonneg(func, f"[{i}]", float(arr[i]))
        raise argument_error(func, "min(d)", "0 (d must contain a 0: the maximizers have gap 0)",
                             m)
    return arr


def _count_array(counts: object, size: int, func: str) -> np.ndarray | None:
    """Validate the multiplicities: ``None``, or positive integers, one per distinct gap;
    returned as float64 (the weights of the sums)."""
    if counts is None:
        return None
    c = np.asarray(counts)
    if c.dtype == bool or c.dtype.kind not in "iu" or c.shape != (size,):
        raise argument_error(func, "counts", f"an integer array of shape ({size},) (one "
                             "multiplicity per gap)", counts)
    if int(c.min()) < 1:
        raise argument_error(func, "counts", "positive (every gap occurs at least once)",
                             int(c.min()))
    return c.astype(np.float64)


def _wsum(x: np.ndarray, m: np.ndarray | None) -> float:
    """``sum_i m_i x_i`` (``m = None``: every multiplicity 1; ``np.add.reduce`` is what
    ``x.sum()`` calls, without its Python layer)."""
    return float(_ADD(x)) if m is None else float(np.dot(m, x))


def em_float(d: object, counts: object = None, *, overwrite_d: bool = False) -> np.ndarray:
    """Exponential-mechanism probabilities in float64 (softmax of ``-d``).

    Parameters
    ----------
    d : array_like of float, shape (k,)
        Scaled gaps ``d_r = eps (q* - q_r)/(c Delta) >= 0`` with at least one 0; ``+inf``
        allowed.
    counts : array_like of int, shape (k,), optional
        Multiplicities: ``d[i]`` stands for ``counts[i]`` outputs with that gap (the
        distinct gaps of a longer vector). Default: every gap once.
    overwrite_d : bool, default False
        Allow the result to be computed in ``d``'s memory (when ``d`` is already a
        contiguous float64 array the caller no longer needs).

    Returns
    -------
    numpy.ndarray of float64, shape (k,)
        ``exp(-d_r) / sum_s exp(-d_s)`` (the sum over all outputs, each gap counted with its
        multiplicity) in input order. Because ``min d = 0`` the denominator is in ``[1, n]``
        (log-sum-exp shift already done), so every entry is accurate to a few ulps relative
        (below ``2.2e-308`` only absolutely).

    Raises
    ------
    ValueError
        If ``d`` is not a non-empty 1-D real array, has a NaN or negative entry, or no 0;
        if ``counts`` is not one positive integer per gap.

    References
    ----------
    F. McSherry and K. Talwar, "Mechanism design via differential privacy", FOCS 2007.
    """
    arr = _gap_array(d, "em_float")
    m = _count_array(counts, arr.size, "em_float")
    w = np.negative(arr, out=arr if overwrite_d else None)
    with np.errstate(under="ignore"):
        np.exp(w, out=w)
    w /= _wsum(w, m)
    return w


def _factors(rule: _Rule, qA: np.ndarray) -> np.ndarray:
    """``1 - tau*u`` for each large coin (rows) at each node (columns) as
    ``(1 - tau) + tau q`` with ``q = 1 - u`` (relative-accurate: two non-negative terms,
    ``q`` itself accurate); three numpy calls on flat arrays of one shape."""
    nodes = rule.tau.size
    size = qA.size * nodes
    tau, one_minus = rule.tiles(qA.size)
    out = qA.repeat(nodes)  # the method: np.repeat adds ~0.5 us of Python
    out *= tau[:size]
    out += one_minus[:size]
    return out.reshape(qA.size, nodes)


def _integrals_float(
    rule: _Rule,
    lg: np.ndarray,
    qA: np.ndarray,
    mA: np.ndarray | None,
    mu_rows: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Moments ``mu_j = int tau^j g`` (the rows ``tau^j`` of ``mu_rows``) and
    ``int g/(1 - tau u_a)`` for a in A, from ``lg``: ``log g`` of the small coins at the
    nodes (overwritten)."""
    fac = None
    if qA.size:
        fac = _factors(rule, qA)
        if mA is not None:
            lg += mA @ np.log(fac)
    np.exp(lg, out=lg)
    if fac is not None and mA is None:
        # each factor once: their product (|A| < 8 C roundings, no logarithm; the factors
        # are in (0, 1], so a product below the float64 range is a g that underflows)
        lg *= _PROD(fac, axis=0)
    wg = np.multiply(lg, rule.w, out=lg)
    mu = mu_rows @ wg
    if fac is None:
        return mu, _EMPTY
    # each coin's row summed alone (numpy's pairwise sum of one row: equal coins get
    # bit-identical integrals, which a BLAS product need not give)
    IA = _ADD(np.divide(wg, fac, out=fac), axis=1)
    return mu, IA


def _small_coin_moments(ub: np.ndarray, m: np.ndarray | None, work: np.ndarray, bits: int):
    """Power sums ``sum_r m_r u_r^j`` of the small coins ``ub`` (large ones zeroed) at two
    levels: every coin up to ``_LEVEL`` to the series length at that level, the few above
    it further. Returns ``(moments, i1, pw1, H0, H1)``: the moments from ``j = 1``, the
    indices of the coins above the level and their powers ``pw1[j - 1] = u^j`` up to both
    series lengths (None when there are none) and the Horner lengths at both levels.
    ``work`` (length k) is overwritten."""
    umax = float(ub.max())
    lam = _wsum(ub, m)
    u0 = min(umax, _LEVEL)
    J0 = series_terms(u0, lam, bits)
    H0 = horner_terms(u0, bits)
    mom: list[float] = []
    if J0:
        mom.append(lam)
        if J0 > 1:
            pw = work
            np.multiply(ub, ub, out=pw)
            mom.append(_wsum(pw, m))
            for _ in range(3, J0 + 1):
                pw *= ub
                mom.append(_wsum(pw, m))
    i1 = pw1 = None
    H1 = H0
    if umax > _LEVEL:
        i1 = np.flatnonzero(ub > _LEVEL)
        u1 = ub[i1]
        m1 = None if m is None else m[i1]
        J1 = series_terms(umax, _wsum(u1, m1), bits)
        H1 = horner_terms(umax, bits)
        pw1 = _power_rows(u1, max(J1, H1))
        if J1 > J0:
            rows = pw1[J0:J1]
            sums = rows.sum(axis=1) if m1 is None else rows @ m1
            mom.extend(sums.tolist())
    return mom, i1, pw1, H0, H1


def _power_rows(u: np.ndarray, top: int) -> np.ndarray:
    """Rows ``u**j``, ``j = 1..top`` (shape ``(top, u.size)``: row ``j - 1`` is ``u**j``),
    by doubling: ``u**(b+1..2b)`` are ``u**(1..b)`` times ``u**b``, so each entry is a
    product of at most ``log2(top) + 1`` correctly rounded factors (relative error a few
    ulps); one numpy call per doubling, no temporaries."""
    out = np.empty((top, u.size))
    if top:
        out[0] = u
    b = 1
    while b < top:
        hi = min(2 * b, top)
        np.multiply(out[:hi - b], out[b - 1], out=out[b:hi])
        b = hi
    return out


def pf_float(d: object, counts: object = None, *, overwrite_d: bool = False) -> np.ndarray:
    """Permute-and-flip probabilities in float64, O(n), stable for every epsilon.

    Parameters
    ----------
    d : array_like of float, shape (k,)
        Scaled gaps ``d_r = eps (q* - q_r)/(c Delta) >= 0`` with at least one exact 0
        (the maximizers); ``+inf`` allowed (coin probability 0).
    counts : array_like of int, shape (k,), optional
        Multiplicities: ``d[i]`` stands for ``counts[i]`` outputs with that gap (the
        distinct gaps of a longer vector, whose probabilities are then gathered by the
        caller). Default: every gap once.
    overwrite_d : bool, default False
        Allow ``d``'s memory to be used as work space and for the result (when ``d`` is a
        contiguous float64 array the caller no longer needs). The engine then allocates
        one more array of length k.

    Returns
    -------
    numpy.ndarray of float64, shape (k,)
        ``Pr_r = p_r int_0^1 prod_{s != r} (1 - t p_s) dt`` in input order (the product over
        all outputs, each gap with its multiplicity); finite, non-negative, summing (with
        the multiplicities) to 1 within ``~1e-15``; each entry within ``~1e-14`` relative
        of the exact value (entries below ``2.2e-308`` only absolutely). Equal gaps give
        identical entries. Method and error analysis: :mod:`exactdp.numeric.pf`.

    Raises
    ------
    ValueError
        If ``d`` is not a non-empty 1-D real array, has a NaN or negative entry, or no 0;
        if ``counts`` is not one positive integer per gap.
    RuntimeError
        If the probabilities do not sum to 1 within ``1e-12`` (never observed; guards the
        a priori quadrature bound and the series truncations).

    References
    ----------
    McKenna & Sheldon (2020), Prop. 1; Ding et al. (2021), Thm 1 (integral form);
    Trefethen (2013), Thm 19.3 (quadrature error).
    """
    a = _gap_array(d, "pf_float")
    m = _count_array(counts, a.size, "pf_float")
    n = a.size if m is None else int(m.sum())
    if n == 1:
        return np.ones(1)
    with np.errstate(under="ignore"):  # underflow to 0 is harmless at every step
        return _pf_float(a, m, overwrite_d)


def pf_float_owned(d: np.ndarray, counts: np.ndarray | None = None) -> np.ndarray:
    """:func:`pf_float` with ``overwrite_d=True`` on gaps the caller built, skipping the
    validation (a mechanism's scaled gaps, already checked as scores; ~2 us of the call
    at n = 10^3).

    Parameters
    ----------
    d : numpy.ndarray of float64, shape (k,)
        A new C-contiguous array the caller gives away (overwritten), meeting
        :func:`pf_float`'s contract: non-empty, no NaN, entries ``>= 0`` with at least one
        exact 0, ``+inf`` allowed.
    counts : numpy.ndarray of int, shape (k,), optional
        Positive multiplicities, one per gap.

    Returns
    -------
    numpy.ndarray of float64, shape (k,)
        As :func:`pf_float`. An input outside the contract is not refused here; a NaN
        ends in the sum check's RuntimeError.
    """
    m = None if counts is None else counts.astype(np.float64)
    if (d.size if m is None else int(m.sum())) == 1:
        return np.ones(1)
    with np.errstate(under="ignore"):  # underflow to 0 is harmless at every step
        return _pf_float(d, m, True)


def _pf_float(a: np.ndarray, m: np.ndarray | None, overwrite_d: bool) -> np.ndarray:
    """:func:`pf_float` on validated gaps and multiplicities, called with underflow
    ignored (one ``errstate`` per call: the context costs as much as a small ufunc)."""
    bits = _BITS_FLOAT
    # Work arrays of length k: ``work`` (``-d``, then the result) and ``ub`` (the coins;
    # with few gaps row 0 of the powers' matrix, allocated at once for the longest plan).
    dense = a.size <= _DENSE
    block = np.empty((_TOP_DENSE, a.size)) if dense else None
    work = np.negative(a, out=a if overwrite_d else None)
    ub = np.exp(work, out=None if block is None else block[0])  # p = exp(-d)
    S = _wsum(ub, m)
    C = trunc_const(bits)
    tmax = 1.0 if S <= C else C / S
    if tmax != 1.0:
        ub *= tmax  # u = t_max p

    # large coins (set A), one row each (fewer than 8 C of them: sum u <= C)
    iA = (ub > _THETA_FLOAT).nonzero()[0]
    uA = ub[iA]
    mA = None if m is None else m[iA]
    qA = np.expm1(work[iA])  # 1 - u = (1 - t_max) + t_max (1 - p)
    qA *= -tmax
    qA += 1.0 - tmax

    lam = tmax * S  # Lambda = sum of every u, in [1, C]
    ub[iA] = 0.0
    k = _bucket(lam)
    if block is not None:
        # few gaps: one matrix of powers u^j of every small coin gives the power sums and,
        # after the quadrature, the series of step 5 as one product
        umax = float(_MAX(ub))
        plan = _plan(k, None if umax == 0.0 else math.ceil(4.0 * math.log2(umax)))
        pw = _power_block(block, plan)  # rows u^e, e = 1..top (in the plan's order)
        mom1 = _ADD(pw, axis=1) if m is None else pw @ m
        # log g of the small coins: -sum_j M_j tau^j / j (positive terms), one product
        lg = np.matmul(mom1, plan.log_rows)
        mu, IA = _integrals_float(plan.rule, lg, qA, mA, plan.mu_rows)
        # sum_j mu_j u^(j+1): step 5 times u, t_max p_r I_r / t_max (0 on A)
        h = np.einsum("i,ij->j", mu, pw, out=work)  # not BLAS: its blocks sum columns
        # in different orders, and tied gaps must give bit-identical probabilities
    else:
        # many gaps: power sums and Horner at two levels (few terms for the bulk)
        rule = _float_rule(k)
        mom, i1, pw1, H0, H1 = _small_coin_moments(ub, m, work, bits)
        J = len(mom)
        lg = ((np.asarray(mom) * _NEG_RECIP[:J]) @ rule.powers[1:J + 1] if J
              else np.zeros(rule.tau.size))
        mu, IA = _integrals_float(rule, lg, qA, mA, rule.powers[:H1 + 1])
        h = work
        if H0:
            np.multiply(ub, mu[H0], out=h)
            h += mu[H0 - 1]
            for j in range(H0 - 2, -1, -1):
                h *= ub
                h += mu[j]
        else:
            h.fill(mu[0])
        if i1 is not None and pw1 is not None and H1 > H0:
            h[i1] += np.einsum("i,ij->j", mu[H0 + 1:H1 + 1], pw1[H0:H1])  # ties: as above
        h *= ub  # t_max p_r for the small coins (0 on A)
    if iA.size:
        h[iA] = IA * uA
    total = _wsum(h, m)
    if not abs(total - 1.0) <= 1e-12:
        raise RuntimeError(f"pf_float: probabilities sum to {total!r}, not 1 (internal error)")
    return h
