"""mpmath views of the PF / EM engine: ``em_mp`` and ``pf_mp`` (arb arithmetic inside).

``pf_mp`` runs the scheme of :mod:`exactdp.numeric.pf` in python-flint ball arithmetic.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import flint
import mpmath

from ...cost import check_seconds, pf_mp_seconds
from ...exact.arb import flint_prec
from .inputs import arb_to_mpf, check_dps, exact_groups, exp_neg, sequence_length
from .scheme import GRADING, N_HI, THETA, horner_terms, panel_edges, series_terms, trunc_const


def em_mp(d: Sequence, dps: int = 30) -> list[mpmath.mpf]:
    """Exponential-mechanism probabilities as mpmath numbers correct to ``dps`` digits.

    Parameters
    ----------
    d : sequence, length n
        Scaled gaps (int, Fraction, float, mpf, arb or str; ``inf`` allowed), >= 0, with
        at least one exact 0.
    dps : int
        Significant decimal digits wanted.

    Returns
    -------
    list of mpmath.mpf
        ``exp(-d_r)/sum_s exp(-d_s)``, computed in ball arithmetic at ``dps + 10`` digits
        plus ``log10 n``, rounded to ``dps`` digits.

    Raises
    ------
    ValueError
        Bad gaps (see ``pf_float``) or ``dps`` not a positive integer.

    References
    ----------
    McSherry & Talwar (2007).
    """
    dps = check_dps(dps, "em_mp")
    n = sequence_length(d, "em_mp")
    bits = int(dps * 3.33) + 40 + 2 * n.bit_length()
    with flint_prec(bits):
        groups, index, n = exact_groups(d, "em_mp")
        w = [flint.arb(0) if v is None else exp_neg(v) for v, _ in groups]
        S = sum((m * wg for wg, (_, m) in zip(w, groups, strict=True)), flint.arb(0))
        vals = [wg / S for wg in w]
    return _in_input_order(vals, index, dps)


def _in_input_order(values: list, index: list[int], dps: int) -> list[mpmath.mpf]:
    """One ball per group -> one mpf per input (rounded to ``dps`` digits), input order."""
    with mpmath.workdps(dps):
        conv = [arb_to_mpf(v) for v in values]
    return [conv[g] for g in index]


@lru_cache(maxsize=16)
def _arb_rule(nodes: int, grading: int, bits: int) -> tuple[list, list]:
    """Composite Gauss-Legendre rule at ``bits`` bits (python-flint roots and weights)."""
    with flint_prec(bits):
        xw = [flint.arb.legendre_p_root(nodes, k, weight=True) for k in range(nodes)]
        taus, ws = [], []
        for a, b in zip(panel_edges(grading)[:-1], panel_edges(grading)[1:], strict=True):
            A, B = flint.arb(a), flint.arb(b)
            h = (B - A) / 2
            for x, w in xw:
                taus.append(A + h * (x + 1))
                ws.append(h * w)
    return taus, ws


def _integrals_arb(rule, mom, large, jmax):
    taus, ws = rule
    mu = [flint.arb(0)] * (jmax + 1)
    IA = [flint.arb(0)] * len(large)
    half = flint.arb(0.5)
    for tau, w in zip(taus, ws, strict=True):
        lg = flint.arb(0)
        for j in range(len(mom) - 1, 0, -1):
            lg = (lg + mom[j] / j) * tau
        lg = -lg
        facs = []
        for u, q, m in large:
            f = (1 - tau) + tau * q if tau > half else 1 - tau * u
            facs.append(f)
            lg += m * f.log()
        wg = w * lg.exp()
        acc = wg
        for j in range(jmax + 1):
            mu[j] += acc
            acc *= tau
        for k, f in enumerate(facs):
            IA[k] += wg / f
    return mu, IA


def pf_mp(d: Sequence, dps: int = 30) -> list[mpmath.mpf]:
    """Permute-and-flip probabilities as mpmath numbers correct to ``dps`` digits.

    Parameters
    ----------
    d : sequence, length n
        Scaled gaps (int, Fraction, float, mpf, arb or str; ``inf`` allowed), >= 0, with
        at least one exact 0.
    dps : int
        Significant decimal digits wanted (default 30).

    Returns
    -------
    list of mpmath.mpf
        PF probabilities in input order, rounded to ``dps`` digits. Same scheme as
        ``pf_float`` (:mod:`exactdp.numeric.pf`) run in ball arithmetic at
        ``3.33 dps + 24 + 2 log2 n`` bits; the quadrature order is raised until a second
        rule agrees to ``dps + 2`` digits. Cost ``O(n)`` ball operations (grouped by equal gaps).

    Raises
    ------
    ValueError
        Bad gaps or ``dps`` not a positive integer.
    RuntimeError
        If the quadrature does not converge (not observed).

    References
    ----------
    McKenna & Sheldon (2020), Prop. 1; Ding et al. (2021), Thm 1.
    """
    dps = check_dps(dps, "pf_mp")
    n = sequence_length(d, "pf_mp")
    check_seconds("pf_mp", f"permute-and-flip in mpmath for n = {n} at dps = {dps}",
                  pf_mp_seconds(n, dps), "use .to_numpy() (float64) or a smaller dps")
    bits = int(dps * 3.33) + 24 + 2 * n.bit_length()
    with flint_prec(bits + 20):
        groups, index, n = exact_groups(d, "pf_mp")
        if n == 1:
            return [mpmath.mpf(1)]
        probs = _pf_groups_arb(groups, bits, dps)
    return _in_input_order(probs, index, dps)


def _pf_groups_arb(groups: list, bits: int, dps: int) -> list:
    """The fast scheme in arb arithmetic: one probability per group."""
    zero = flint.arb(0)
    p = [zero if v is None else exp_neg(v) for v, _ in groups]
    S = sum((m * pg for pg, (_, m) in zip(p, groups, strict=True)), zero)
    C = trunc_const(bits)
    tmax = flint.arb(1) if S <= C else flint.arb(C) / S
    u = [tmax * pg for pg in p]
    uf = [float(x.mid()) for x in u]
    large_idx = [k for k, x in enumerate(uf) if x > THETA]
    large = []
    for k in large_idx:
        v = groups[k][0]
        q = (1 - tmax) + tmax * (-(-v).expm1())
        large.append((u[k], q, groups[k][1]))
    small = [k for k, x in enumerate(uf) if x <= THETA and groups[k][0] is not None]
    lam = sum(uf[k] * groups[k][1] for k in small)
    # upper bounds of the u's as floats (tiny ones may underflow: bound them by 1e-300)
    ub = {k: min(max(uf[k] * 1.000001, 1e-300), THETA) for k in small}
    # power sums, per-group number of terms
    terms = {k: series_terms(ub[k], max(lam, 1e-300), bits) for k in small}
    jm = max(terms.values(), default=0)
    mom = [zero] * (jm + 1)
    for k in small:
        m, pw = groups[k][1], u[k]
        for j in range(1, terms[k] + 1):
            mom[j] += m * pw
            pw *= u[k]
    hterms = {k: horner_terms(ub[k], bits) for k in small}
    hmax = max(hterms.values(), default=0)
    tol = 10.0 ** -(dps + 2)
    nodes = max(N_HI, int(0.35 * bits) + 10)
    grading = max(GRADING, math.ceil(math.log2(C)) + 2)
    for _ in range(4):
        mu, IA = _integrals_arb(_arb_rule(nodes, grading, bits + 20), mom, large, hmax)
        mu_c, IA_c = _integrals_arb(_arb_rule(nodes - 8, grading, bits + 20), mom, large, hmax)
        err = max(
            [abs(float(((mu[0] - mu_c[0]) / mu[0]).mid()))]
            + [abs(float(((a - b) / a).mid())) for a, b in zip(IA, IA_c, strict=True)]
        )
        if err <= tol:
            break
        nodes = int(nodes * 1.5)
    else:
        raise RuntimeError(f"pf_mp: quadrature check failed (relative difference {err:.3g})")
    out = [zero] * len(groups)
    for pos, k in enumerate(large_idx):
        out[k] = p[k] * tmax * IA[pos]
    for k in small:
        h = mu[hterms[k]]
        for j in range(hterms[k] - 1, -1, -1):
            h = h * u[k] + mu[j]
        out[k] = p[k] * tmax * h
    return out

