"""Accountants' claimed privacy curves for the k-fold composition of an epsilon-DP mechanism.

Each claim maps ``(epsilon0, k, epsilon)`` to the delta an accountant guarantees for the
k-fold composition of a mechanism it believes to be ``epsilon0``-DP (or ``epsilon0``-bounded
range, or ``epsilon0**2/8``-zCDP). To refute a claim soundly we need an *upper* bound of the
claimed delta, so every formula is evaluated in python-flint ``arb`` balls and the upper end
of the ball is returned; an infimum over a free parameter is replaced by its value at one
chosen parameter (which can only increase it). The float accountants (``dp_accounting``) are
labelled ``certified=False``.

Formulas (each derived and tested against brute force in
``tests/analysis/test_accountants.py``):

- ``basic``: delta = 0 for ``epsilon >= k*epsilon0`` (Dwork, McSherry, Nissim & Smith 2006).
- ``kov``: the optimal composition of pure DP (Kairouz, Oh & Viswanath, ICML 2015, Thm 3.3),
  the k-fold randomized-response pair's hockey stick
  ``sum_m C(k, m) max(0, e^(m e0) - e^eps e^((k-m) e0)) / (1 + e^e0)^k``; every epsilon0-DP pair is
  a post-processing of randomized response, so this is the tight curve for every epsilon.
- ``drv``: advanced composition (Dwork, Rothblum & Vadhan, FOCS 2010, Thm III.3; Dwork & Roth
  2014, Thm 3.20): ``eps = sqrt(2k ln(1/d)) e0 + k e0 (e^e0 - 1)``, solved for ``d``.
- ``zcdp``: ``rho = k e0^2/8`` (EM is ``e0^2/8``-zCDP: Cesar & Rogers 2021), converted by
  Canonne, Kamath & Steinke (NeurIPS 2020, Prop. 12 / Cor. 13):
  ``delta = inf_{a>1} exp((a-1)(a rho - eps)) / (a-1) * (1 - 1/a)^a``.
- ``zcdp_bun_steinke``: the same rho converted by Bun & Steinke (TCC 2016, Prop. 1.3):
  ``delta = exp(-(eps - rho)^2 / (4 rho))`` for ``eps >= rho``.
- ``bounded_range``: optimal non-adaptive composition of ``e0``-bounded-range mechanisms
  (Dong, Durfee & Rogers, ICML 2020): ``max_{t in [0, e0]}`` of the hockey stick of the k-fold
  binary pair with losses ``t`` and ``t - e0`` (P-mass ``(e^e0 - e^t)/(e^e0 - 1)`` on loss t).
  The maximum is bounded above by interval branch and bound over t.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import flint
import sympy

from .._validate import argument_error, choices_text
from ..exact.arb import flint_prec, to_arb
from ..exact.signs import sign as exact_sign
from ._balls import arb_lower_fraction

#: The claims :func:`claimed_delta` knows (``dp_accounting`` ones need the accounting extra).
CLAIMS = ("basic", "kov", "drv", "zcdp", "zcdp_bun_steinke", "bounded_range",
          "dp_accounting")

_BITS = 192


@dataclass(frozen=True)
class ClaimedDelta:
    """An upper bound of the delta an accountant claims at one epsilon.

    Attributes
    ----------
    claim : str
    upper : Fraction
        Exact upper bound of the claimed delta (at most 1).
    certified : bool
        True if ``upper`` is proved to be >= the claim's delta (ball arithmetic).
    caveat : str
    """

    claim: str
    upper: Fraction
    certified: bool
    caveat: str

    def __float__(self) -> float:
        return float(self.upper)


def _upper(b: flint.arb) -> Fraction:
    return min(Fraction(1), -arb_lower_fraction(-b))


def _pos_upper(t: flint.arb) -> flint.arb:
    """Upper end of ``max(0, t)`` as an exact arb."""
    hi = t.upper()
    return hi if hi > 0 else flint.arb(0)


def claimed_delta(claim: str, epsilon0: sympy.Expr, k: int, epsilon: sympy.Expr) -> ClaimedDelta:
    """The delta claimed by ``claim`` for the k-fold composition, at ``epsilon``.

    Parameters
    ----------
    claim : str
        One of :data:`CLAIMS` except ``dp_accounting`` (see
        :func:`exactdp.analysis.composition.dp_accounting_delta`).
    epsilon0 : sympy.Expr
        Per-round privacy parameter (> 0).
    k : int
        Number of rounds.
    epsilon : sympy.Expr
        Where the curve is read (>= 0).

    Raises
    ------
    ValueError
        For an unknown claim.
    """
    funcs = {"kov": _kov, "drv": _drv, "zcdp": _zcdp_cks,
             "zcdp_bun_steinke": _zcdp_bs, "bounded_range": _bounded_range}
    if claim not in funcs and claim != "basic":
        raise argument_error("claimed_delta", "claim", choices_text(sorted([*funcs, "basic"])),
                             claim)
    if claim == "basic":  # exact comparison of epsilon with k*epsilon0
        if exact_sign(epsilon - int(k) * epsilon0) >= 0:
            return ClaimedDelta(claim, Fraction(0), True, "basic composition: (k*eps0, 0)-DP")
        return ClaimedDelta(claim, Fraction(1), True,
                            "basic composition claims nothing below k*eps0")
    with flint_prec(_BITS):
        value, caveat = funcs[claim](to_arb(epsilon0, _BITS), int(k), to_arb(epsilon, _BITS))
        if claim == "kov":
            value = _kov_exact_zeros(epsilon0, int(k), epsilon, value)
    return ClaimedDelta(claim, _upper(value), True, caveat)


def _kov_exact_zeros(e0: sympy.Expr, k: int, eps: sympy.Expr, value: flint.arb) -> flint.arb:
    """0 exactly when no term of the KOV sum is positive: ``(2m - k) e0 <= eps`` for all m."""
    if exact_sign(k * e0 - eps) <= 0:
        return flint.arb(0)
    return value


def _kov(e0, k, eps):
    ee, et = e0.exp(), eps.exp()
    total = flint.arb(0)
    for m in range(k + 1):
        total += math.comb(k, m) * _pos_upper(ee**m - et * ee ** (k - m))
    return total / (1 + ee) ** k, "optimal composition of pure DP (Kairouz-Oh-Viswanath)"


def _drv(e0, k, eps):
    shift = k * e0 * (e0.exp() - 1)
    if not eps > shift:
        return flint.arb(1), "advanced composition claims nothing at this epsilon"
    z = (eps - shift) / e0
    return (-(z * z) / (2 * k)).exp(), "advanced composition (Dwork-Rothblum-Vadhan)"


def _rho(e0, k):
    return k * e0 * e0 / 8


def _zcdp_bs(e0, k, eps):
    rho = _rho(e0, k)
    if not eps > rho:
        return flint.arb(1), "zCDP (Bun-Steinke) claims nothing at eps <= rho"
    return (-((eps - rho) ** 2) / (4 * rho)).exp(), "rho = k*eps0^2/8 zCDP, Bun-Steinke conversion"


def _cks_at(alpha: flint.arb, rho, eps):
    am1 = alpha - 1
    return (am1 * (alpha * rho - eps)).exp() / am1 * (1 - 1 / alpha) ** alpha


def _zcdp_cks(e0, k, eps):
    rho = _rho(e0, k)
    r, e = float(rho.mid()), float(eps.mid())

    def f(a: float) -> float:
        return (a - 1) * (a * r - e) - math.log(a - 1) + a * math.log(1 - 1 / a)

    lo, hi = math.log(1e-9), math.log(max(1e6, 10 * (e / r + 1)))
    for _ in range(200):  # golden-section search on log(alpha - 1); any alpha is an upper bound
        m1, m2 = lo + (hi - lo) * 0.382, lo + (hi - lo) * 0.618
        if f(1 + math.exp(m1)) < f(1 + math.exp(m2)):
            hi = m2
        else:
            lo = m1
    a = Fraction(1 + math.exp((lo + hi) / 2)).limit_denominator(10**12)
    alpha = flint.arb(flint.fmpq(a.numerator, a.denominator))
    return _cks_at(alpha, rho, eps), (
        f"rho = k*eps0^2/8 zCDP, Canonne-Kamath-Steinke conversion at alpha = {float(a):.6g}")


def _br_p(t, e0):
    ee = e0.exp()
    return (ee - t.exp()) / (ee - 1)


def _br_bound(a, b, e0, k, eps):
    """Upper bound of the k-fold binary BR pair's hockey stick over ``t in [a, b]``.

    With ``p(t)`` the P-mass of loss ``t`` (decreasing in t) and ``gain_i(t) = 1 - e^(eps - kt +
    i e0)`` (increasing in t), each term ``C(k,i) p^(k-i) (1-p)^i gain_i^+`` is at most its
    value with ``p(a)`` in the first factor and ``t = b`` in the others.
    """
    pa, qb = _pos_upper(_br_p(a, e0)), _pos_upper(1 - _br_p(b, e0))
    pow_p, pow_q = [flint.arb(1)], [flint.arb(1)]
    for _ in range(k):
        pow_p.append(pow_p[-1] * pa)
        pow_q.append(pow_q[-1] * qb)
    total = flint.arb(0)
    base = (eps - k * b).exp()
    step = e0.exp()
    for i in range(k + 1):
        gain = _pos_upper(1 - base)
        base *= step
        if gain == 0:
            break
        total += math.comb(k, i) * pow_p[k - i] * pow_q[i] * gain
    return total.upper()


def _bounded_range(e0, k, eps, rounds: int = 20, alive: int = 256):
    pieces = max(64, 4 * k)
    width = e0 / pieces
    cells = [(i * width, (i + 1) * width) for i in range(pieces)]
    best = flint.arb(0)  # a proved lower bound of the maximum (a point value)
    settled = flint.arb(0)  # largest upper bound over cells dropped from the search
    for _ in range(rounds):
        uppers = [_br_bound(a, b, e0, k, eps) for a, b in cells]
        order = sorted(range(len(cells)), key=lambda j: -uppers[j].mid())
        for j in order[:4]:
            a, b = cells[j]
            point = _br_bound((a + b) / 2, (a + b) / 2, e0, k, eps)  # a ball around the value
            lower = point - 2 * point.rad()
            best = lower if lower > best else best
        keep: list[tuple[flint.arb, flint.arb]] = []
        for j in order:
            if uppers[j] > best * (1 + flint.arb(2) ** -12) and len(keep) < alive:
                keep.append(cells[j])
            elif uppers[j] > settled:
                settled = uppers[j]
        if not keep:
            break
        cells = [h for a, b in keep for h in ((a, (a + b) / 2), ((a + b) / 2, b))]
    else:
        for a, b in cells:
            u = _br_bound(a, b, e0, k, eps)
            settled = u if u > settled else settled
    return flint.arb(settled), ("optimal non-adaptive bounded-range composition "
                                "(Dong-Durfee-Rogers); maximum over t bounded by branch and "
                                "bound on monotone factors")
