"""Certified high-precision series route of Laplace report-noisy-max (large n).

Used by :func:`exactdp.numeric.laplace.laplace_mp` above the closed form's size limit: the
integrand's ``log Pi`` is expanded as a series on sub-intervals and integrated by Gauss-Legendre
rules with a checked error. Convention and references: :mod:`exactdp.numeric.laplace`.
"""

from __future__ import annotations

import math
from functools import lru_cache

import mpmath
import numpy as np
from flint import arb, arb_poly

from ...exact.arb import flint_prec
from ..gaps import LN2
from .pieces import group_gaps

_SER_W = 0.5  # numeric sub-interval: at most this wide ...
_SER_L = 2.0  # ... and log Pi changes by at most this on it


@lru_cache(maxsize=16)
def _gl_rule(q: int, prec: int) -> tuple[tuple[arb, arb], ...]:
    """Gauss-Legendre nodes and weights on [-1, 1] as arb balls at ``prec`` bits."""
    with flint_prec(prec):
        return tuple(arb.legendre_p_root(q, k, weight=True) for k in range(q))


def _exact_diff(a: mpmath.mpf, b: mpmath.mpf) -> arb:
    """``a - b`` for two mpf values as an exact arb (no rounding)."""
    if a == b:
        return arb(0)
    (sa, ma, ea, _), (sb, mb, eb, _) = a._mpf_, b._mpf_  # mpf.man_exp drops the sign
    ma, mb, ea, eb = (-int(ma) if sa else int(ma)), (-int(mb) if sb else int(mb)), int(ea), int(eb)
    e = min(ea, eb)
    num = (ma << (ea - e)) - (mb << (eb - e))
    return arb(num) * arb(2) ** e


def _arb_to_mpf(b: arb) -> mpmath.mpf:
    """The midpoint of an arb ball as an exact mpf."""
    mantissa, exp = b.mid().man_exp()
    man = int(mantissa)
    with mpmath.workprec(max(53, man.bit_length() + 8)):
        return mpmath.mpf((man, int(exp)))


class _SeriesPlan:
    """Float-side decisions of the series engine: pieces, window, grid (no arb inside).

    Pieces are numbered by the distinct gaps ``u_0 = 0 < u_1 < ...``: piece k is
    ``y in [-u_k, -u_{k-1}]`` (piece 0 is ``[0, oo)``), offset ``h = y + u_k``. Every
    decision here only has to be approximately right (a margin of 100 is kept in the
    window test); what must be exact is recomputed in ball arithmetic.
    """

    def __init__(self, w: np.ndarray, c: np.ndarray, log_delta: float) -> None:
        self.w = w  # w[k] = u_k - u_{k-1} (float, may be inf), w[0] = 0
        self.c = c
        self.n = int(c.sum())
        self.p = c.size
        self.N = np.concatenate(([0], np.cumsum(c[:-1])))
        self.log_delta = log_delta
        self.Z = -log_delta + math.log(self.n) + 10.0  # items further away: factor 1
        self.thr = log_delta - math.log(2.0 * self.n) - math.log(100.0)
        self._near: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def near(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Offsets ``u_i - u_k <= Z`` (i >= k) and their counts."""
        got = self._near.get(k)
        if got is None:
            offs = [0.0]
            tot = 0.0
            i = k + 1
            while i < self.p:
                tot += self.w[i]
                if not tot <= self.Z:
                    break
                offs.append(tot)
                i += 1
            got = (np.array(offs), self.c[k : k + len(offs)].astype(np.float64))
            self._near[k] = got
        return got

    def log_high(self, k: int, h: float) -> float:
        off, cc = self.near(k)
        return float(np.sum(cc * np.log1p(-np.exp(-(h + off)) / 2)))

    def slope(self, k: int, h: float) -> float:
        off, cc = self.near(k)
        return float(self.N[k] + np.sum(cc / (2.0 * np.exp(h + off) - 1.0)))

    def t1(self, k: int) -> float:
        off, cc = self.near(k)
        return float(np.sum(cc * np.exp(-off)))

    def hstar(self, k: int) -> float:
        """Beyond ``h*`` the high product is 1 within ``delta`` on piece k."""
        return math.log(2.0 * self.t1(k)) - self.log_delta + 1.0

    def cond(self, k: int, h: float, E: float) -> bool:
        """Window test at ``y = -u_k + h``: R >= 2 and log Pi - y <= thr."""
        if self.slope(k, h) < 2.0:
            return False
        phi = self.N[k] * (h - LN2) - E - h + self.log_high(k, h)
        return not phi > self.thr

    def walk(self, k: int, h0: float, h1: float) -> list[float]:
        """Points h0 < ... < h1: each step <= _SER_W and log Pi changes by <= _SER_L."""
        pts = [h0]
        h = h0
        while True:
            s = min(_SER_W, _SER_L / max(self.slope(k, h), 1e-300))
            if h + s >= h1 - 0.05 * s:
                break
            h += s
            pts.append(h)
        pts.append(h1)
        return pts


def _series_engine(u_mp: list, cnt: list[int], dps: int, q: int, extra_bits: int) -> list:
    """Probabilities of the distinct gaps ``u_mp`` (ascending, ``u_mp[0] = 0``) as arb/mpf.

    See :func:`laplace_mp` (large-n route) for the method and its error analysis.
    Returns one value per distinct gap: an arb ball, or an mpf for items so far behind that
    ``e^{-d}`` is computed by mpmath. Steps: the window (:func:`_window`), the log-series
    tables (:func:`_log_series`), the integration intervals (:func:`_intervals`), the
    moments on each (:func:`_moments`), the sweeps (:func:`_sweeps`), then the items at a
    breakpoint (:func:`_at_breakpoints`) and those behind the window (:func:`_far_items`).
    """
    p = len(u_mp)
    n = sum(cnt)
    log_delta = -(dps + 6) * math.log(10.0)
    M = int(math.ceil((dps + 6) * math.log2(10.0) + math.log2(4.0 * n))) + 2
    with mpmath.workprec(64):
        wf = np.array([0.0] + [float(u_mp[k] - u_mp[k - 1]) for k in range(1, p)])
    plan = _SeriesPlan(wf, np.array(cnt, dtype=np.int64), log_delta)
    prec = int((dps + 6) * 3.33) + 40 + extra_bits
    with flint_prec(prec):
        W = [arb(0)] + [_exact_diff(u_mp[k], u_mp[k - 1]) for k in range(1, p)]
        D, cut = _window(plan, W)
        exact_left = cut is None
        if cut is None:  # the window reaches the all-low piece: its integral is exact
            cut = (p - 1, 0.0, None)
        polys = _log_series(plan, W, cnt, cut[0], M)
        ln2 = arb.log(arb(2))
        ivs, bp_pos = _intervals(plan, W, cut)
        rule = _gl_rule(q, prec)
        Qm = [_moments(iv, rule, polys, plan.N, D, M, ln2) for iv in ivs]
        left = (-n * ln2 - D[p - 1]).exp() / n if exact_left else arb(0)
        K_at, A_at = _sweeps(ivs, Qm, M, left)
        coefB = [arb(0)] + [1 / arb(2) ** m for m in range(1, M + 1)]
        out: list = [None] * p
        _at_breakpoints(out, bp_pos, K_at, A_at, coefB, M)
        _far_items(out, u_mp, cut, K_at[0], coefB, M, log_delta, prec)
        return out


def _window(plan: _SeriesPlan, W: list) -> tuple[list, tuple | None]:
    """``D_k`` (exact) and the cut of the window: ``(k, h_lo or None, g or None)``, None
    when the window reaches the all-low piece (float decisions, see :class:`_SeriesPlan`).

    ``E_k = D_k - u_k = sum_{i<k} c_i (u_k - u_i) - u_k`` (>= 0), ``D_k`` likewise; entries
    past the cut's piece are left at 0 (never read).
    """
    p, N = plan.p, plan.N
    D = [arb(0)] * p
    E = [arb(0)] * p
    Ef = [0.0] * p
    for k in range(p):
        if k:
            D[k] = D[k - 1] + int(N[k]) * W[k]
            E[k] = E[k - 1] + int(N[k] - 1) * W[k]
            Ef[k] = float(_arb_to_mpf(E[k]))
        if plan.cond(k, 0.0, Ef[k]):
            return D, _cut_in_piece(plan, k, Ef)
    return D, None


def _cut_in_piece(plan: _SeriesPlan, k: int, Ef: list[float]) -> tuple:
    """The cut inside piece k (whose left end passes the window test): a right-anchored
    flat cut ``(k, None, g)`` or, by bisection, ``(k, h_lo, None)``."""
    wf, N = plan.w, plan.N
    if k == 0:  # cut inside piece 0: bisect on [0, y_R]
        hz = plan.hstar(0)
    else:
        hz = min(float(wf[k]), plan.hstar(k))
        if hz < wf[k] and plan.cond(k, hz, Ef[k]):
            # cut inside the flat zone: -(N_k - 1) g - N_k ln2 - E_{k-1} <= thr
            g = (-int(N[k]) * LN2 - Ef[k - 1] - plan.thr) / (int(N[k]) - 1)
            g = min(max(g, 0.0) + 1.0, float(wf[k]) - hz)
            return (k, None, g)
    lo, hi = 0.0, hz
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if plan.cond(k, mid, Ef[k]):
            lo = mid
        else:
            hi = mid
    if k:  # any smaller h also passes the test; keep clear of the breakpoint
        lo = min(lo, 0.999 * float(wf[k]))
    return (k, lo, None)


def _log_series(plan: _SeriesPlan, W: list, cnt: list[int], kc: int, M: int) -> list:
    """Per piece k <= kc, the polynomial ``sum_m T_{k,m} z^m / (m 2^m)`` of ``-log`` of the
    high product (tables ``T_{k,m}``, built from piece kc leftwards)."""
    off_c, _ = plan.near(kc)
    Tk = [arb(0)] * (M + 1)
    acc_off = arb(0)
    for j in range(len(off_c)):
        i = kc + j
        if j:
            acc_off = acc_off + W[i]
        x = (-acc_off).exp()
        v = arb(cnt[i])
        for m in range(M + 1):
            Tk[m] += v
            v *= x
    T: list = [None] * (kc + 1)
    T[kc] = Tk
    for k in range(kc - 1, -1, -1):
        x = (-W[k + 1]).exp()
        prev = T[k + 1]
        row = [arb(0)] * (M + 1)
        v = arb(1)
        for m in range(M + 1):
            row[m] = cnt[k] + v * prev[m]
            v *= x
        T[k] = row
    inv = [arb(0)] + [1 / (arb(m) * arb(2) ** m) for m in range(1, M + 1)]
    return [
        arb_poly([arb(0)] + [T[k][m] * inv[m] for m in range(1, M + 1)]) for k in range(kc + 1)
    ]


def _intervals(plan: _SeriesPlan, W: list, cut: tuple) -> tuple[list, dict[int, int]]:
    """The integration intervals, left to right, and ``bp_pos``.

    Each interval is ``(kind, k, ha, width)``: offsets from ``-u_k`` (arb); ``ha`` is None
    for a flat cut. ``bp_pos[k]`` is the index of the first interval of piece k when it
    starts at the breakpoint ``-u_k`` (-1 otherwise).
    """
    kc, wf = cut[0], plan.w
    ivs: list = []
    bp_pos: dict[int, int] = {}

    def add_numeric(k: int, h0: float, h1f: float, h1_exact: arb | None) -> None:
        pts = plan.walk(k, h0, h1f)
        ha = [arb(h) for h in pts]
        if h1_exact is not None:
            ha[-1] = h1_exact
        for a, b in zip(ha[:-1], ha[1:], strict=True):
            ivs.append(("num", k, a, b - a))

    for k in range(kc, -1, -1):
        if k == kc:
            if cut[2] is not None:  # right-anchored flat cut
                ivs.append(("flat", k, None, arb(cut[2])))
                continue
            h0 = cut[1]
        else:
            h0 = 0.0
        bp_pos[k] = len(ivs) if h0 == 0.0 else -1
        if k == 0:
            add_numeric(0, h0, max(plan.hstar(0), h0 + 1.0), None)
            continue
        hs = plan.hstar(k)
        if hs < wf[k] and h0 < hs:
            add_numeric(k, h0, hs, None)
            ivs.append(("flat", k, arb(hs), W[k] - arb(hs)))
        elif h0 >= hs:
            ivs.append(("flat", k, arb(h0), W[k] - arb(h0)))
        else:
            add_numeric(k, h0, float(wf[k]), W[k])
    return ivs, bp_pos


def _moments(iv: tuple, rule: tuple, polys: list, N: np.ndarray, D: list, M: int,
             ln2: arb) -> list:
    """``int Pi(h) e^{-m t} dt`` over one interval for m = 0..M: Gauss-Legendre on a
    numeric interval, closed form on a flat one."""
    kind, k, ha, width = iv
    row = [arb(0)] * (M + 1)
    Nk = int(N[k])
    if kind == "num":
        half = width / 2
        poly = polys[k]
        for x, wgt in rule:
            t = half * (x + 1)
            h = ha + t
            lp = Nk * (h - ln2) - D[k] - poly((-h).exp())
            v = half * wgt * lp.exp()
            r = (-t).exp()
            for m in range(M + 1):
                row[m] += v
                v *= r
        return row
    # flat: Pi = exp(N_k (h - ln2) - D_k) exactly up to delta
    lpb = -Nk * ln2 - D[k - 1]  # log Pi at the right end (h = W_k)
    lpa = lpb - Nk * width
    pa = lpa.exp()
    pb = lpb.exp()
    for m in range(M + 1):
        lam = Nk - m
        if lam < 0:
            row[m] = pa * (-(lam * width).expm1()) / (-lam)
        elif lam == 0:
            row[m] = pa * width
        else:
            row[m] = pb * (-m * width).exp() * (-(-lam * width).expm1()) / lam
    return row


def _sweeps(ivs: list, Qm: list, M: int, A: arb) -> tuple[dict[int, list], dict[int, arb]]:
    """``K_m`` at the left end of every interval (right to left; beyond ``y_R`` ``Pi = 1``)
    and the accumulated ``A`` (left to right, starting from ``A``, the exact left part)."""
    K = [arb(0)] + [1 / arb(m) for m in range(1, M + 1)]  # tail beyond y_R: Pi = 1
    K_at: dict[int, list] = {}
    for J in range(len(ivs) - 1, -1, -1):
        r = (-ivs[J][3]).exp()
        v = arb(1)
        row = Qm[J]
        newK = [arb(0)] * (M + 1)
        for m in range(M + 1):
            newK[m] = row[m] + v * K[m]
            v *= r
        K = newK
        K_at[J] = K
    A_at: dict[int, arb] = {}
    for J in range(len(ivs)):
        A_at[J] = A
        A = A + Qm[J][0]
    return K_at, A_at


def _at_breakpoints(out: list, bp_pos: dict[int, int], K_at: dict, A_at: dict,
                    coefB: list, M: int) -> None:
    """Items whose breakpoint ``-u_k`` starts an interval: ``A + sum_m 2^-m K_m`` there."""
    for k, J in bp_pos.items():
        if J < 0:
            continue
        KJ = K_at[J]
        B = sum((coefB[m] * KJ[m] for m in range(1, M + 1)), arb(0))
        out[k] = A_at[J] + B


def _far_items(out: list, u_mp: list, cut: tuple, K0: list, coefB: list, M: int,
               log_delta: float, prec: int) -> None:
    """Items behind the window (``-d < y_lo``):
    ``Pr = sum_m 2^-m e^{-m (d + y_lo)} K_m(y_lo)``; mpmath for ``e^{-dist} < delta``."""
    kc = cut[0]
    if cut[2] is not None:  # y_lo = -u_{kc-1} - g
        anchor, offset = kc - 1, -arb(cut[2])
    else:  # y_lo = -u_kc + h_lo
        anchor, offset = kc, arb(cut[1])
    bpoly = arb_poly([arb(0)] + [coefB[m] * K0[m] for m in range(1, M + 1)])
    big = -log_delta + 5.0
    for k in range(kc, len(out)):
        if out[k] is not None:
            continue
        dist = _exact_diff(u_mp[k], u_mp[anchor]) + offset  # d_k + y_lo > 0
        if float(_arb_to_mpf(dist)) < big:
            out[k] = bpoly((-dist).exp())
        else:  # e^{-dist} < delta: only m = 1 matters (relative error < delta)
            with mpmath.workprec(prec):
                off_mp = _arb_to_mpf(offset)
            extra_mp = max(0, int(mpmath.mag(u_mp[k])))
            with mpmath.workprec(prec + extra_mp):  # e^{-dm}: dm to prec + mag bits
                dm = u_mp[k] - u_mp[anchor] + off_mp
                e_dm = mpmath.exp(-dm)
            with mpmath.workprec(prec):
                out[k] = _arb_to_mpf(K0[1] / 2) * e_dm


def series_checked(fin: list, dps: int, counts: list[int] | None = None) -> list[mpmath.mpf]:
    """Large-n route of :func:`laplace_mp`: two Gauss-Legendre rules must agree
    (``counts[i]`` items share the gap ``fin[i]``; default one each)."""
    u, cnt, idx = group_gaps(fin)
    if counts is not None:
        cnt = [0] * len(u)
        for k, m in zip(idx, counts, strict=True):
            cnt[k] += m
    n = sum(cnt)
    extra = 24 + n.bit_length()
    q = (dps + 1) // 2 + 16
    tol = mpmath.mpf(10) ** (-(dps + 2))
    for _attempt in range(4):
        runs = []
        ok_balls = True
        for qq in (q, q + 8):
            vals = _series_engine(u, cnt, dps, qq, extra)
            mids = []
            for v in vals:
                if isinstance(v, arb):
                    lim = arb(10) ** (-(dps + 3)) * v.mid()
                    if not (v.is_finite() and v > 0 and v.rad() < lim):
                        ok_balls = False
                    v = _arb_to_mpf(v)
                mids.append(v)
            runs.append(mids)
            if not ok_balls:
                break
        if not ok_balls:
            extra *= 4  # huge gaps: e^{-(huge)} needs the argument to many bits
            continue
        with mpmath.workdps(dps + 10):
            worst = max(abs(a - b) / b for a, b in zip(runs[0], runs[1], strict=True))
        if worst < tol:
            return [runs[1][i] for i in idx]
        q = q + 8 + q // 2
    raise RuntimeError(
        f"laplace_mp: the series route could not certify {dps} digits "
        f"(n = {n}); use laplace_mp(d, dps, method='closed')"
    )
