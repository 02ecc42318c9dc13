r"""The one numeric engine for permute-and-flip (PF) and exponential-mechanism (EM) probabilities.

Every function here is a pure function of the *scaled gaps*

.. math::  d_r = \varepsilon (q^* - q_r) / (c \Delta) \ge 0,

(the maximizers have ``d_r = 0``; ``d_r = +inf`` means coin probability 0), with coins
``p_r = exp(-d_r)``. PF's output probabilities are (docs/formulas.md section 2,
stable integral form)

.. math::  \Pr_r = p_r \int_0^1 \prod_{s \ne r} (1 - t p_s)\, dt ,

and EM's are ``p_r / sum_s p_s``. The alternating subset sum is never evaluated in floating
point.

Method (``pf_float``, ``pf_mp``)
--------------------------------
Write ``F(t) = prod_s (1 - t p_s)``, ``S = sum_s p_s >= 1`` and ``h_r = F / (1 - t p_r)``.

1. **Truncation.** ``log h_r`` is concave with slope ``-(S - p_r)`` at 0, so
   ``h_r(t) <= exp(-(S - p_r) t)``; and ``log(1 - x) >= -x/(1 - x)`` gives
   ``h_r(t) >= exp(-2 t (S - p_r))`` on ``[0, 1/2]``, so ``I_r = int_0^1 h_r >= 0.316/(S - p_r)``
   when ``S - p_r >= 1``. Hence integrating only over ``[0, t_max]``, ``t_max = min(1, C/S)``,
   leaves a relative error ``<= e^{1 - C}/0.316``; ``C = b ln 2 + 2.5`` makes it ``<= 2^-b``
   (``b = 60`` in float64). In ``tau = t/t_max`` the integrand is
   ``g(tau) = prod_s (1 - tau u_s)`` with ``u_s = t_max p_s`` and
   ``Lambda = sum_s u_s = min(S, C)``: its scale is at least ``1/C`` whatever n and epsilon
   are (with many ``p_s`` near 1 the original integrand has width ``~1/n``; here it does not).
2. **Few large coins.** Outputs with ``u_s > 1/8`` form the set A; ``|A| <= 8 C`` (<= 350 in
   float64) because ``sum u_s <= C``. Their factors are evaluated directly, grouped by equal
   ``d`` (``(1 - tau u)^m``), as ``(1 - tau) + tau (1 - u)`` for ``tau > 1/2`` with
   ``1 - u = (1 - t_max) + t_max * (-expm1(-d))`` so that factors near 0 keep full relative
   accuracy.
3. **Many small coins, by moments.** For the others (``u_s <= 1/8``)
   ``sum log(1 - tau u_s) = -sum_j tau^j M_j / j`` with power sums ``M_j = sum u_s^j``; the
   tail after ``J`` terms is at most ``Lambda u_max^J / ((J+1)(1 - u_max))`` (absolute error in
   ``log g``, i.e. relative error in g), and J is the least integer making it ``<= 2^-b``.
   Items are split at ``u = 2^-12`` so that the bulk needs only ~5 terms; each costs ``J``
   multiply-adds (no transcendental function).
4. **Quadrature.** ``g`` now costs ``O(|A| + J)`` per point, independent of n, so it is
   integrated with composite Gauss-Legendre on panels graded geometrically towards both ends
   of ``[0, 1]`` (``[0, 2^-8], [2^-8, 2^-7], ..., [1/2, 3/4], ..., [1 - 2^-8, 1]``).
   Why that converges: ``g`` is a polynomial whose roots ``1/u_s`` lie in ``[1, inf)``; on a
   panel of length ``h`` at distance ``delta`` from 0 and ``delta'`` from 1, the Bernstein
   ellipse with ``rho = 3`` stays within ``~h`` of the panel, ``|log g(z) - log g(x)| <=
   h |(log g)'| + O(h^2 ...)``, ``|(log g)'(x)| <= Lambda/(1 - x)`` and the grading keeps
   ``h <= min(delta, 1 - x)``: ``max |g|`` on the ellipse is at most ``e^{O(1)}`` times the
   panel's share of the integral times ``e^{O(h Lambda)}`` where ``g`` is already
   ``<= e^{-Lambda x}``, so the Gauss-Legendre bound ``(64/15) M rho^{-2N}/(rho^2 - 1)``
   with ``N = 24`` nodes per panel is far below ``2^-52`` relative. The engine also checks
   this a posteriori: every integral is computed with two rules (24 and 16 nodes per
   panel) and a ``RuntimeError`` is raised if they disagree by more than ``1e-13``
   relative (never a silently wrong number).
5. **Back to every output.** For ``r`` in A, ``I_r/t_max = sum_k w_k g(tau_k) / (1 - tau_k
   u_r)`` on the same nodes. For the others ``1/(1 - tau u_r) = sum_j (tau u_r)^j`` gives
   ``I_r/t_max = sum_{j <= J'} u_r^j mu_j`` with moments ``mu_j = int_0^1 tau^j g``; since
   ``mu_j <= mu_0 <= I_r/t_max`` the relative tail is ``<= u_r^{J'+1}/(1 - u_r) <= 2^-b``.
   Finally ``Pr_r = p_r * (t_max * I_r/t_max)`` with ``p_r = exp(-d_r)`` correctly rounded,
   so tiny probabilities (1e-200) keep full relative accuracy; only values below the
   float64 normal range (``< 2.2e-308``, i.e. ``d_r > ~700``) lose relative accuracy by
   underflow (their absolute error is below ``5e-324``).

Cost: one ``exp`` per output plus ``~5-20`` multiply-adds, plus ``O((|A| + J) * 400)`` for the
quadrature: ``O(n)`` with a small constant (no sort). Equal ``d`` give bit-identical results
because every output is a fixed function of its own ``d_r`` and of shared sums.
Rounding: every sum is of positive terms (no cancellation), so the relative error of each
probability is a small multiple of the unit roundoff times ``log n``.

``pf_mp`` runs the same scheme in python-flint ``arb`` arithmetic at ``b = 3.33 dps + 24 +
2 log2 n`` bits (balls track the rounding; the truncations are bounded as above; the
quadrature uses more nodes and is checked against a second rule, its order raised until the
two agree to ``dps + 2`` digits). ``pf_arb`` is rigorous by another route (see there).

References
----------
R. McKenna and D. Sheldon, "Permute-and-Flip: A new mechanism for differentially private
selection", NeurIPS 2020, Algorithm 1 and Prop. 1 (the probabilities).
Z. Ding, D. Kifer, S. M. Saghaian et al., "The permute-and-flip mechanism is identical to
report-noisy-max with exponential noise", arXiv:2105.07260 (2021), Thm 1 (the integral form).
L. N. Trefethen, *Approximation Theory and Approximation Practice*, SIAM 2013, Thm 19.3
(Gauss-Legendre error on a Bernstein ellipse).
F. Johansson, "Arb: efficient arbitrary-precision midpoint-radius interval arithmetic",
IEEE Trans. Computers 66 (2017) (ball arithmetic used by ``pf_arb`` and ``pf_mp``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache

import flint
import mpmath
import numpy as np

from ..exact.arb import flint_prec

__all__ = ["em_float", "em_mp", "pf_arb", "pf_float", "pf_mp"]

_BITS_FLOAT = 60
_THETA = 0.125  # coins with u > _THETA are "large" (set A)
_LEVEL = 2.0**-12  # split of the small coins: below it few series terms suffice
_GRADING = 8  # panels graded down to 2^-_GRADING at both ends
_N_HI, _N_LO = 24, 16  # Gauss-Legendre nodes per panel (answer, check)
_CHECK_TOL = 1e-13


# ----------------------------------------------------------------------------- shared helpers
def _trunc_const(bits: int) -> float:
    """``C`` with ``e^{1-C}/0.316 <= 2^-bits`` (truncation of the t-integral at ``C/S``)."""
    return bits * math.log(2.0) + 2.5


def _series_terms(umax: float, lam: float, bits: int) -> int:
    """Least J with ``lam * umax^J / ((J+1)(1-umax)) <= 2^-bits`` (log-series tail)."""
    if umax <= 0.0 or lam <= 0.0:
        return 0
    tol = 2.0**-bits
    J = 1
    while lam * umax**J / ((J + 1) * (1.0 - umax)) > tol:
        J += 1
    return J


def _horner_terms(umax: float, bits: int) -> int:
    """Least J' with ``umax^(J'+1)/(1-umax) <= 2^-bits`` (geometric-series tail)."""
    if umax <= 0.0:
        return 0
    tol = 2.0**-bits
    J = 0
    while umax ** (J + 1) / (1.0 - umax) > tol:
        J += 1
    return J


@lru_cache(maxsize=8)
def _panel_edges(grading: int) -> tuple[float, ...]:
    """Panel edges of ``[0, 1]``, geometrically graded towards 0 and towards 1 (exact dyadics)."""
    left = [0.0] + [2.0 ** -k for k in range(grading, 0, -1)]  # 0, 2^-g, ..., 1/2
    right = [1.0 - 2.0 ** -k for k in range(2, grading + 1)] + [1.0]  # 3/4, ..., 1
    return tuple(left + right)


@lru_cache(maxsize=8)
def _float_rule(nodes: int, grading: int) -> tuple[np.ndarray, np.ndarray]:
    """Composite Gauss-Legendre rule on the graded panels: ``(tau, w)``, float64."""
    x, w = np.polynomial.legendre.leggauss(nodes)
    edges = _panel_edges(grading)
    taus, ws = [], []
    for a, b in zip(edges[:-1], edges[1:], strict=True):
        h = 0.5 * (b - a)
        taus.append(a + h * (x + 1.0))
        ws.append(h * w)
    return np.concatenate(taus), np.concatenate(ws)


def _fail_nonneg(func: str, where: str, value: object) -> ValueError:
    return ValueError(f"{func}: d{where} must be a non-negative real number, got {value!r}")


# ----------------------------------------------------------------------------- float64
def _gap_array(d: object, func: str) -> np.ndarray:
    """Validate the scaled gaps: 1-D, real, no NaN, >= 0, at least one exact 0."""
    arr = np.asarray(d)
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise ValueError(f"{func}: d must be a 1-D array of real numbers, got dtype {arr.dtype}")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{func}: d must be a non-empty 1-D array, got shape {arr.shape}")
    m = arr.min()
    if not m == 0.0:  # also catches NaN (min propagates it) and negatives
        bad = np.flatnonzero(np.isnan(arr) | (arr < 0))
        if bad.size:
            i = int(bad[0])
            raise _fail_nonneg(func, f"[{i}]", float(arr[i]))
        raise ValueError(
            f"{func}: d must contain a 0 (the maximizers have gap 0), smallest gap is {m!r}"
        )
    return arr


def em_float(d: object) -> np.ndarray:
    """Exponential-mechanism probabilities in float64 (softmax of ``-d``).

    Parameters
    ----------
    d : array_like of float, shape (n,)
        Scaled gaps ``d_r = eps (q* - q_r)/(c Delta) >= 0`` with at least one 0; ``+inf``
        allowed.

    Returns
    -------
    numpy.ndarray of float64, shape (n,)
        ``exp(-d_r) / sum_s exp(-d_s)`` in input order. Because ``min d = 0`` the
        denominator is in ``[1, n]`` (log-sum-exp shift already done), so every entry is
        accurate to a few ulps relative (below ``2.2e-308`` only absolutely).

    Raises
    ------
    ValueError
        If ``d`` is not a non-empty 1-D real array, has a NaN or negative entry, or no 0.

    References
    ----------
    F. McSherry and K. Talwar, "Mechanism design via differential privacy", FOCS 2007.
    """
    arr = _gap_array(d, "em_float")
    with np.errstate(under="ignore"):
        w = np.exp(-arr)
    return w / w.sum()


def _log_factors(tau: np.ndarray, uA: np.ndarray, qA: np.ndarray) -> np.ndarray:
    """``1 - tau*u`` for each large coin (rows) at each node (columns), relative-accurate."""
    t = tau[None, :]
    near = (1.0 - t) + t * qA[:, None]
    far = 1.0 - t * uA[:, None]
    return np.where(t > 0.5, near, far)


def _integrals_float(
    tau: np.ndarray,
    w: np.ndarray,
    mom: list[float],
    uA: np.ndarray,
    qA: np.ndarray,
    mA: np.ndarray,
    jmax: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Moments ``mu_j = int tau^j g`` (j <= jmax) and ``int g/(1 - tau u_a)`` for a in A."""
    # log g from the small coins: -sum_j M_j tau^j / j, by Horner
    lg = np.zeros_like(tau)
    for j in range(len(mom) - 1, 0, -1):
        lg += mom[j] / j
        lg *= tau
    lg = -lg
    fac = None
    if uA.size:
        fac = _log_factors(tau, uA, qA)
        lg += mA @ np.log(fac)
    wg = w * np.exp(lg)
    mu = np.empty(jmax + 1)
    acc = wg.copy()
    for j in range(jmax + 1):
        mu[j] = acc.sum()
        acc *= tau
    IA = (wg[None, :] / fac).sum(axis=1) if fac is not None else np.empty(0)
    return mu, IA


def pf_float(d: object) -> np.ndarray:
    """Permute-and-flip probabilities in float64, O(n), stable for every epsilon.

    Parameters
    ----------
    d : array_like of float, shape (n,)
        Scaled gaps ``d_r = eps (q* - q_r)/(c Delta) >= 0`` with at least one exact 0
        (the maximizers); ``+inf`` allowed (coin probability 0).

    Returns
    -------
    numpy.ndarray of float64, shape (n,)
        ``Pr_r = p_r int_0^1 prod_{s != r} (1 - t p_s) dt`` in input order; finite,
        non-negative, summing to 1 within ``~1e-15``; each entry within ``~1e-14``
        relative of the exact value (entries below ``2.2e-308`` only absolutely). Equal
        gaps give identical entries. Method and error analysis: module docstring.

    Raises
    ------
    ValueError
        If ``d`` is not a non-empty 1-D real array, has a NaN or negative entry, or no 0.
    RuntimeError
        If the a-posteriori quadrature check fails (never observed; guards the analysis).

    References
    ----------
    McKenna & Sheldon (2020), Prop. 1; Ding et al. (2021), Thm 1 (integral form);
    Trefethen (2013), Thm 19.3 (quadrature error).
    """
    a = _gap_array(d, "pf_float")
    n = a.size
    if n == 1:
        return np.ones(1)
    bits = _BITS_FLOAT
    with np.errstate(under="ignore"):
        p = np.exp(-a)
    S = float(p.sum())
    C = _trunc_const(bits)
    tmax = 1.0 if S <= C else C / S
    u = p if tmax == 1.0 else p * tmax

    # large coins (set A), grouped by equal gap
    iA = np.flatnonzero(u > _THETA)
    dA, invA, mA = np.unique(a[iA], return_inverse=True, return_counts=True)
    with np.errstate(under="ignore"):
        uA = tmax * np.exp(-dA)
        qA = (1.0 - tmax) + tmax * (-np.expm1(-dA))

    # small coins: power sums, two levels
    ub = u.copy()
    ub[iA] = 0.0
    umax = float(ub.max())
    lam = float(ub.sum())
    u0 = min(umax, _LEVEL)
    J0 = _series_terms(u0, lam, bits)
    H0 = _horner_terms(u0, bits)
    mom = [0.0]
    if J0:
        pw = ub.copy()
        with np.errstate(under="ignore"):
            for j in range(1, J0 + 1):
                if j > 1:
                    pw *= ub
                mom.append(float(pw.sum()))
    i1 = u1 = None
    H1 = H0
    if umax > _LEVEL:
        i1 = np.flatnonzero(ub > _LEVEL)
        u1 = ub[i1]
        J1 = _series_terms(umax, float(u1.sum()), bits)
        H1 = _horner_terms(umax, bits)
        pw1 = u1 ** J0 if J0 else np.ones_like(u1)
        for _ in range(J0 + 1, J1 + 1):
            pw1 = pw1 * u1
            mom.append(float(pw1.sum()))

    # quadrature (two rules, answer and check)
    mu, IA = _integrals_float(*_float_rule(_N_HI, _GRADING), mom, uA, qA, mA, H1)
    mu_c, IA_c = _integrals_float(*_float_rule(_N_LO, _GRADING), mom, uA, qA, mA, H1)
    err = max(
        abs(mu[0] - mu_c[0]) / mu[0],
        float(np.max(np.abs(IA - IA_c) / IA)) if IA.size else 0.0,
    )
    if not err <= _CHECK_TOL:
        raise RuntimeError(f"pf_float: quadrature check failed (relative difference {err:.3g})")

    # back to every output: Horner in u_r for the small coins
    h = np.full(n, mu[H0])
    for j in range(H0 - 1, -1, -1):
        h *= ub
        h += mu[j]
    if i1 is not None and H1 > H0:
        e = np.full(u1.size, mu[H1])
        for j in range(H1 - 1, H0, -1):
            e = e * u1 + mu[j]
        h[i1] += e * u1 ** (H0 + 1)
    if iA.size:
        h[iA] = IA[invA]
    h *= tmax
    h *= p
    total = float(h.sum())
    if not abs(total - 1.0) <= 1e-12:
        raise RuntimeError(f"pf_float: probabilities sum to {total!r}, not 1 (internal error)")
    return h


# ----------------------------------------------------------------------------- exact inputs
def _to_arb(v: object, func: str, i: int) -> tuple[object, flint.arb | None]:
    """``(key, value)`` for one gap: key groups exactly equal gaps; value None means +inf."""
    if isinstance(v, bool):
        raise _fail_nonneg(func, f"[{i}]", v)
    if isinstance(v, str):
        s = v.strip()
        if s.lower() in ("inf", "+inf", "oo", "infinity"):
            return ("inf",), None
        if _is_plain_decimal(s):
            q = Fraction(s)
            return ("q", q), _arb_from_fraction(q)
        try:
            val = flint.arb(s)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{func}: d[{i}] = {v!r} is not a number ({exc})") from None
        return ("s", s), val
    if isinstance(v, flint.arb):
        if v.is_exact() and v.is_finite():
            m, e = v.mid().man_exp()
            return ("q", Fraction(int(m)) * Fraction(2) ** int(e)), v
        if v.is_finite():
            return ("arb", v.str(radius=True, more=True)), v
        if v.mid().is_finite() is False and v.rad() == 0 and v > 0:
            return ("inf",), None
        raise _fail_nonneg(func, f"[{i}]", v)
    if isinstance(v, mpmath.mpf):
        if mpmath.isinf(v) and v > 0:
            return ("inf",), None
        if mpmath.isnan(v) or mpmath.isinf(v):
            raise _fail_nonneg(func, f"[{i}]", v)
        sign, man, exp, _ = v._mpf_
        q = Fraction(int(man) * (-1 if sign else 1)) * Fraction(2) ** int(exp)
        return ("q", q), flint.arb((int(man) * (-1 if sign else 1), int(exp)))
    if isinstance(v, (int, np.integer)):
        return ("q", Fraction(int(v))), flint.arb(int(v))
    if isinstance(v, Fraction):
        return ("q", v), _arb_from_fraction(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if math.isinf(f) and f > 0:
            return ("inf",), None
        if not math.isfinite(f):
            raise _fail_nonneg(func, f"[{i}]", v)
        q = Fraction(f)
        return ("q", q), _arb_from_fraction(q)
    raise ValueError(f"{func}: d[{i}] = {v!r} has unsupported type {type(v).__name__}")


def _arb_from_fraction(q: Fraction) -> flint.arb:
    """``q`` as a ball: exact when dyadic, else rounded with as many extra bits as the
    integer part has (so that ``exp(-q)`` keeps its relative accuracy)."""
    den = q.denominator
    if den & (den - 1) == 0:
        return flint.arb((q.numerator, -(den.bit_length() - 1)))
    extra = max(0, abs(q.numerator // den).bit_length())
    with _prec(flint.ctx.prec + extra):
        val = flint.arb(flint.fmpq(q.numerator, den))
    return val


def _exp_neg(v: flint.arb) -> flint.arb:
    """``exp(-v)`` with extra working bits for large ``v`` (relative accuracy kept)."""
    m, e = v.mid().man_exp()
    extra = max(0, int(m).bit_length() + int(e)) if m else 0
    if extra <= 8:
        return (-v).exp()
    with _prec(flint.ctx.prec + extra + 10):
        return (-v).exp()


def _is_plain_decimal(s: str) -> bool:
    try:
        Fraction(s)
    except (ValueError, ZeroDivisionError):
        return False
    return True


def _exact_groups(d: Sequence, func: str) -> tuple[list, list[int], int]:
    """Group the gaps: ``(groups, index_to_group, n)``, group = [value or None, count]."""
    try:
        items = list(d)
    except TypeError:
        raise ValueError(f"{func}: d must be a sequence of numbers, got {d!r}") from None
    if not items:
        raise ValueError(f"{func}: d must be non-empty")
    groups: list = []
    where: dict = {}
    index: list[int] = []
    has_zero = False
    for i, v in enumerate(items):
        key, val = _to_arb(v, func, i)
        if val is not None:
            if val < 0:
                raise _fail_nonneg(func, f"[{i}]", v)
            if not val >= 0:  # straddles 0: the contract says d >= 0
                val = val.nonnegative_part()
            if key == ("q", Fraction(0)):
                has_zero = True
        g = where.get(key)
        if g is None:
            g = where[key] = len(groups)
            groups.append([val, 0])
        groups[g][1] += 1
        index.append(g)
    if not has_zero:
        raise ValueError(f"{func}: d must contain an exact 0 (the maximizers have gap 0)")
    return groups, index, len(items)


def _length(d: object, func: str) -> int:
    if isinstance(d, (str, bytes)):
        raise ValueError(f"{func}: d must be a sequence of numbers, got {d!r}")
    try:
        return len(d)  # type: ignore[arg-type]
    except TypeError:
        raise ValueError(f"{func}: d must be a sequence of numbers, got {d!r}") from None


def _arb_to_mpf(a: flint.arb) -> mpmath.mpf:
    """Midpoint of ``a`` rounded to the current mpmath precision."""
    m, e = a.mid().man_exp()
    return mpmath.mpf((int(m), int(e)))


def _check_dps(dps: object, func: str) -> int:
    if isinstance(dps, bool) or not isinstance(dps, (int, np.integer)) or dps < 1:
        raise ValueError(f"{func}: dps must be a positive integer, got {dps!r}")
    return int(dps)


_prec = flint_prec  # the one flint precision context (exactdp.exact.arb)


# ----------------------------------------------------------------------------- mpmath views
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
    dps = _check_dps(dps, "em_mp")
    n = _length(d, "em_mp")
    bits = int(dps * 3.33) + 40 + 2 * n.bit_length()
    with _prec(bits):
        groups, index, n = _exact_groups(d, "em_mp")
        w = [flint.arb(0) if v is None else _exp_neg(v) for v, _ in groups]
        S = sum((m * wg for wg, (_, m) in zip(w, groups, strict=True)), flint.arb(0))
        vals = [wg / S for wg in w]
    with mpmath.workdps(dps):
        conv = [_arb_to_mpf(v) for v in vals]
    return [conv[g] for g in index]


@lru_cache(maxsize=16)
def _arb_rule(nodes: int, grading: int, bits: int) -> tuple[list, list]:
    """Composite Gauss-Legendre rule at ``bits`` bits (python-flint roots and weights)."""
    with _prec(bits):
        xw = [flint.arb.legendre_p_root(nodes, k, weight=True) for k in range(nodes)]
        taus, ws = [], []
        for a, b in zip(_panel_edges(grading)[:-1], _panel_edges(grading)[1:], strict=True):
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
        ``pf_float`` (module docstring) run in ball arithmetic at ``3.33 dps + 24 + 2 log2 n``
        bits; the quadrature order is raised until a second rule agrees to ``dps + 2``
        digits. Cost ``O(n)`` ball operations (grouped by equal gaps).

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
    dps = _check_dps(dps, "pf_mp")
    n = _length(d, "pf_mp")
    bits = int(dps * 3.33) + 24 + 2 * n.bit_length()
    with _prec(bits + 20):
        groups, index, n = _exact_groups(d, "pf_mp")
        if n == 1:
            return [mpmath.mpf(1)]
        probs = _pf_groups_arb(groups, bits, dps)
    with mpmath.workdps(dps):
        conv = [_arb_to_mpf(v) for v in probs]
    return [conv[g] for g in index]


def _pf_groups_arb(groups: list, bits: int, dps: int) -> list:
    """The fast scheme in arb arithmetic: one probability per group."""
    zero = flint.arb(0)
    p = [zero if v is None else _exp_neg(v) for v, _ in groups]
    S = sum((m * pg for pg, (_, m) in zip(p, groups, strict=True)), zero)
    C = _trunc_const(bits)
    tmax = flint.arb(1) if S <= C else flint.arb(C) / S
    u = [tmax * pg for pg in p]
    uf = [float(x.mid()) for x in u]
    large_idx = [k for k, x in enumerate(uf) if x > _THETA]
    large = []
    for k in large_idx:
        v = groups[k][0]
        q = (1 - tmax) + tmax * (-(-v).expm1())
        large.append((u[k], q, groups[k][1]))
    small = [k for k, x in enumerate(uf) if x <= _THETA and groups[k][0] is not None]
    lam = sum(uf[k] * groups[k][1] for k in small)
    # upper bounds of the u's as floats (tiny ones may underflow: bound them by 1e-300)
    ub = {k: min(max(uf[k] * 1.000001, 1e-300), _THETA) for k in small}
    # power sums, per-group number of terms
    terms = {k: _series_terms(ub[k], max(lam, 1e-300), bits) for k in small}
    jm = max(terms.values(), default=0)
    mom = [zero] * (jm + 1)
    for k in small:
        m, pw = groups[k][1], u[k]
        for j in range(1, terms[k] + 1):
            mom[j] += m * pw
            pw *= u[k]
    hterms = {k: _horner_terms(ub[k], bits) for k in small}
    hmax = max(hterms.values(), default=0)
    tol = 10.0 ** -(dps + 2)
    nodes = max(_N_HI, int(0.35 * bits) + 10)
    grading = max(_GRADING, math.ceil(math.log2(C)) + 2)
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


# ----------------------------------------------------------------------------- certified
def _integral01(poly: flint.arb_poly) -> flint.arb:
    """``int_0^1 poly(s) ds`` (sum of c_k/(k+1))."""
    return poly.integral()(flint.arb(1))


def pf_arb(d: Sequence, prec: int = 128) -> list[flint.arb]:
    """Certified enclosures of the permute-and-flip probabilities (python-flint arb balls).

    Method: with ``s = 1 - t`` the integrand is
    ``prod_{s' != r} (q_{s'} + s p_{s'})``, ``q = 1 - p = -expm1(-d) >= 0``: a polynomial in
    ``s`` with non-negative coefficients (the Poisson-binomial generating function, docs/formulas.md
    section 2), so ``int_0^1`` is the positive sum ``sum_k c_k/(k+1)`` and ball arithmetic
    loses only ``O(log n)`` bits (no cancellation). The leave-one-out products over the
    groups of equal gaps, ``(q_g + s p_g)^{m_g}``, come from a product tree (down-sweep), so
    the cost is ``O(G n log n)`` coefficient operations for ``G`` distinct gaps: intended for
    ``n`` up to a few thousand. Every operation is rigorous (arb), so each returned ball
    contains the exact probability; the working precision is raised until each ball's
    relative radius is below ``2^-prec`` (or the input balls limit it).

    Parameters
    ----------
    d : sequence, length n
        Scaled gaps as arb, mpf, int, Fraction, float (exact binary value) or str
        (``"1/3"``, ``"0.1"`` meaning 1/10, ``"inf"``); >= 0 with at least one exact 0.
    prec : int
        Target relative accuracy in bits (default 128).

    Returns
    -------
    list of flint.arb
        One ball per output, input order; ``.rad()`` is the certified error bound.

    Raises
    ------
    ValueError
        Bad gaps or ``prec`` not an integer >= 2.

    References
    ----------
    McKenna & Sheldon (2020), Prop. 1; Johansson (2017) (arb).
    """
    if isinstance(prec, bool) or not isinstance(prec, (int, np.integer)) or prec < 2:
        raise ValueError(f"pf_arb: prec must be an integer >= 2, got {prec!r}")
    prec = int(prec)
    _length(d, "pf_arb")
    raw = list(d)
    n = len(raw)
    work = prec + 2 * max(n, 1).bit_length() + 30
    inputs_exact = all(not isinstance(v, (flint.arb, str)) or _exactish(v) for v in raw)
    for _ in range(6):
        with _prec(work):
            groups, index, n = _exact_groups(raw, "pf_arb")
            probs = _pf_tree_arb(groups)
        accurate = all(
            x.is_zero() or x.rel_accuracy_bits() >= prec for x in probs
        )
        if accurate or not inputs_exact and work > 4 * prec + 200:
            break
        work *= 2
    return [probs[g] for g in index]


def _exactish(v: object) -> bool:
    if isinstance(v, flint.arb):
        return bool(v.is_exact())
    return _is_plain_decimal(v) if isinstance(v, str) else True


def _pf_tree_arb(groups: list) -> list[flint.arb]:
    zero, one = flint.arb(0), flint.arb(1)
    lin = []
    for v, _ in groups:
        if v is None:
            lin.append((zero, one))
        else:
            lin.append((_exp_neg(v), -((-v).expm1())))
    leaves = [flint.arb_poly([q, p]) ** m for (p, q), (_, m) in zip(lin, groups, strict=True)]
    memo: dict = {}

    def prod(lo: int, hi: int) -> flint.arb_poly:
        key = (lo, hi)
        if key not in memo:
            if hi - lo == 1:
                memo[key] = leaves[lo]
            else:
                mid = (lo + hi) // 2
                memo[key] = prod(lo, mid) * prod(mid, hi)
        return memo[key]

    out: list = [None] * len(groups)

    def down(lo: int, hi: int, outside: flint.arb_poly) -> None:
        if hi - lo == 1:
            p, q = lin[lo]
            m = groups[lo][1]
            rest = outside * flint.arb_poly([q, p]) ** (m - 1) if m > 1 else outside
            out[lo] = p * _integral01(rest)
            return
        mid = (lo + hi) // 2
        down(lo, mid, outside * prod(mid, hi))
        down(mid, hi, outside * prod(lo, mid))

    down(0, len(groups), flint.arb_poly([one]))
    return out
