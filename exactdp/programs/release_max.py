"""The released noisy maximum: a pattern whose runs are the winners of one ``argmax``,
each releasing the winner's noisy value, read as the density of ``max_j (a_j + Z_j)``.

A pattern is recognised (:func:`max_form`) when its runs are exactly one per winner ``w``
over the same ``n >= 2`` noises of one law (Laplace or exponential) and one scale ``b``,
each releasing ``a_w + Z_w`` under the ``n - 1`` comparisons ``a_w + Z_w > a_j + Z_j``
(``>=`` for ties) and nothing else: what ``values[argmax(values)]`` traces to. The
pattern's density is then

    ``f(v) = sum_w f_w(v - a_w) prod_{j != w} F_j(v - a_j) = d/dv prod_j F_j(v - a_j)``

(the output is the value only: summed over the winner), piecewise exponential-polynomial
between the offsets ``a_j``. Instead of the engine's cells of exponential sums (whose
exponents do not merge: 60 s CPU at 20 distinct offsets) the densities of both inputs are
polynomials with integer coefficients in ``u = exp((v - s)/b)`` and the transcendental
``x = exp(-1/(b L))`` on the common lattice ``1/L`` of the offsets
(:mod:`~exactdp.programs.release_max_poly`):

- exact candidates at the piece ends and limits (ratios of polynomials in x, compared by
  the sign of a polynomial at x: exact zero test, arb signs; at a support edge of
  exponential noise the orders of vanishing decide: a finite limit, or ``oo``);
- certified balls at the interior critical points: the real roots in ``u`` of the
  squarefree factors of ``P_u Q - P Q_u`` (flint's complex root isolation at the ball of
  x; a root box meeting the real axis holds a real root when its mirror image meets no
  other box);
- exponential noise with different maxima ``max a_j != max a'_j``: the values between the
  two have positive probability under one input only, an infinite loss attained.

References
----------
W. Feller, *An Introduction to Probability Theory and Its Applications*, vol. II, Wiley
1971, section I.6 (the maximum of independent variables). Y. Wang, Z. Ding, G. Wang, D.
Kifer, D. Zhang, "Proving differential privacy with shadow execution", PLDI 2019 (the
noisy-max variants returning the value). A. Baker, *Transcendental Number Theory*, 1975,
Theorem 1.4 (Lindemann-Weierstrass: ``x`` is transcendental).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import flint
import sympy

from ..cost import check_seconds
from ..exact.arb import arb_to_interval, flint_prec
from ..exact.signs import UndecidedSignError
from ..progress import start_line
from .release_max_poly import Exact, Lattice, Search, coeffs_in_u, scan_pieces
from .runs import Run

#: Precisions (bits) tried in turn to isolate the critical points and decide comparisons.
PRECISIONS = (128, 256, 512, 1024, 2048, 4096)
#: The cheaper route a refused released maximum names.
MAX_CHEAPER = "use scores with a smaller common denominator or span, or fewer scores"
#: The laws of a released maximum read here.
LAWS = ("laplace", "exponential")


@dataclass(frozen=True)
class MaxForm:
    """A pattern releasing ``max_j (a_j + Z_j)`` (module docstring).

    Attributes
    ----------
    law : str
        ``"laplace"`` or ``"exponential"``.
    scale : sympy.Expr
        The noises' common scale ``b``.
    offsets : tuple of Fraction
        ``a_j``, in the order of the draws.
    """

    law: str
    scale: sympy.Expr
    offsets: tuple[Fraction, ...]


@dataclass(frozen=True)
class MaxLoss:
    """The supremum of ``|ln f/f'|`` over a released maximum: ``infinite`` (+1 / -1: the
    first / second input's density is the larger), an exact ``(f, f')`` pair of positive
    expressions with its ``value`` (``|ln f/f'|``), or a signed ball ``enclosure`` of ``ln
    f/f'`` at a critical point (with ``tighten``: a narrower one). The fields of the release
    engine's candidate (:class:`~exactdp.programs.release_loss.Candidate`)."""

    infinite: int
    attained: bool
    witness: str
    exact: tuple[sympy.Expr, sympy.Expr] | None = None
    value: sympy.Expr | None = None
    enclosure: flint.arb | None = None
    tighten: Callable[[], flint.arb] | None = None

    def log(self, direction: int) -> sympy.Expr:
        """``|ln f/f'|`` given its sign (the engine's candidate's ``log``)."""
        assert self.value is not None
        return self.value


def _fraction(x: sympy.Expr) -> Fraction:
    return Fraction(int(x.p), int(x.q))


@lru_cache(maxsize=4096)
def max_run(run: Run) -> tuple[int, MaxForm] | None:
    """``(winner, form)`` of a run releasing the winner's value of one argmax (module
    docstring), or None (cached: the engine's estimate and the pattern read each run)."""
    draws, n = run.draws, len(run.draws)
    if len(run.released) != 1 or run.weight != 1 or n < 2 or len(run.constraints) != n - 1:
        return None
    law, scale = draws[0].law, draws[0].scale
    rel = run.released[0]
    if law not in LAWS or len(rel.coefficients) != 1 or rel.coefficients[0][1] != 1 or any(
            d.law != law or (d.scale is not scale and d.scale != scale) for d in draws):
        return None
    w = rel.coefficients[0][0]
    offsets = {w: _fraction(rel.constant)}
    for c in run.constraints:  # k (a_w + Z_w - a_j - Z_j) > 0, k > 0
        if c.relation not in (">", ">=") or len(c.expr.coefficients) != 2:
            return None
        (i, ci), (j, cj) = c.expr.coefficients
        if w not in (i, j):
            return None
        k, other, j = (ci, cj, j) if i == w else (cj, ci, i)
        kp, kq = int(k.p), int(k.q)
        if kp <= 0 or (int(other.p), int(other.q)) != (-kp, kq) or j in offsets:
            return None
        b = c.expr.constant
        offsets[j] = offsets[w] - Fraction(int(b.p) * kq, int(b.q) * kp)
    return w, MaxForm(law, scale, tuple(offsets[i] for i in range(n)))


def max_form(runs: Sequence[Run]) -> MaxForm | None:
    """The :class:`MaxForm` of a pattern's runs, or None when they are not the winners of
    one argmax each releasing its value (module docstring).

    Examples
    --------
    >>> from exactdp.programs import library_release as L
    >>> d = L.noisy_max_value_exponential(epsilon=1).distribution([0, 1, 1])
    >>> max_form(d.runs[d.keys[0]])
    MaxForm(law='exponential', scale=2, offsets=(Fraction(0, 1), Fraction(1, 1), Fraction(1, 1)))
    """
    found = [max_run(r) for r in runs]
    if not found or any(f is None for f in found):
        return None
    forms = {f[1] for f in found if f is not None}
    winners = sorted(f[0] for f in found if f is not None)
    if len(forms) != 1 or winners != list(range(len(runs[0].draws))) or any(
            r.draws != runs[0].draws for r in runs):
        return None
    return forms.pop()


def max_pattern(runs: Sequence[Run], other: Sequence[Run], label: str, func: str
                ) -> MaxLoss | None:
    """:func:`max_loss` of a pattern's runs on two inputs, or None when they are not a
    released maximum (:func:`max_form`)."""
    form, form2 = max_form(runs), max_form(other)
    if form is None or form2 is None:
        return None
    return max_loss(form, form2, label, func)


def max_seconds(n: int, distinct: int, span: int, law: str = "laplace") -> float:
    """Estimated seconds of :func:`max_loss` on ``n`` offsets (``distinct`` of them
    distinct) spanning ``span`` lattice steps: the pieces' densities and their
    comparisons, ``distinct^5`` work units (``4.8e-8`` s each for Laplace noise, ``8e-9``
    for exponential noise), and the squarefree factors of polynomials of degree ``d =
    span * n`` in x, ``distinct^1.5 * d^1.37`` (``1e-8`` / ``3e-9`` s). Fitted on the CPU
    of ``privacy_loss`` against one moved score (docs/benchmarks.md): ``0..n-1``, Laplace
    n = 20 / 30 / 40: 0.16 / 0.99 / 4.4 s (0.18 / 1.2 / 5.0 estimated); ``k^2/7 + 1/(k + 2)``,
    k < n: n = 8 / 9 / 10 (span 16720 / 22092 / 310080): 4.1 / 7.2 / 196 s (2.4 / 5.0 /
    250 estimated); exponential noise 0.57 s at n = 40 (0.83), 1.9 s at 9 irregular
    (1.5). A pair translated as a whole (every score moved by one) runs the whole precision
    ladder and its factors are larger: 20 scores spanning 476 steps 4.7 s for 0.4 s
    estimated.

    Parameters
    ----------
    n : int
        The number of offsets (scores, one noise each).
    distinct : int
        How many of the offsets are distinct.
    span : int
        The offsets' span (max minus min), in steps of their common lattice ``1/L``.
    law : str, default "laplace"
        The noises' law, ``"laplace"`` or ``"exponential"`` (:data:`LAWS`).

    Returns
    -------
    float
        The estimated CPU seconds of :func:`max_loss`.
    """
    a, b = (4.8e-8, 1e-8) if law == "laplace" else (8e-9, 3e-9)
    d = float(min(span * n + 1, 10**150))  # 300-digit spans: no overflow
    return a * float(distinct) ** 5 + b * float(distinct) ** 1.5 * d ** 1.37


def form_seconds(form: MaxForm) -> float:
    """The estimated seconds of :func:`max_loss` of ``form`` against a neighbour:
    :func:`max_seconds` on the lattice and span of this input's own offsets (a
    neighbour's widen them by a step or so; :func:`max_loss` prices the pair by
    :func:`pair_seconds`).

    Examples
    --------
    >>> offsets = tuple(Fraction(k) for k in range(40))
    >>> round(form_seconds(MaxForm("laplace", sympy.Integer(2), offsets)), 2)
    4.98
    """
    n = len(form.offsets)
    L = math.lcm(*[v.denominator for v in form.offsets])
    span = int((max(form.offsets) - min(form.offsets)) * L)
    return max_seconds(n, len(set(form.offsets)), span, form.law)


#: A pair whose offsets all move by one shift (``q' = q + c``) costs up to this many times
#: :func:`form_seconds`: its critical values meet the end values, so every precision of
#: :data:`PRECISIONS` is tried, and its derivative's factors are larger (measured 12x at 20
#: scores spanning 476 steps, 21x at 40 spanning 976 steps: 203 s CPU); the factor is the
#: steps per score up to this (``0..39`` moved by one: 4.1 s CPU, 5.6 s estimated, where
#: 25x refused it at 141 s).
TRANSLATED = 25.0


def pair_seconds(form: MaxForm, other: MaxForm) -> float:
    """The estimated seconds of :func:`max_loss` on the pair: :func:`max_seconds` on the
    common lattice and span of both inputs' offsets (the one :func:`max_loss` computes on:
    ``(0, 1) * 30`` against ``10^-6`` everywhere spans 10^6 steps, one step for either
    input alone), with the distinct offsets of both, times :data:`TRANSLATED` for a
    translated pair (the price both :func:`max_loss` and the loss's own check before its
    bar state).

    Parameters
    ----------
    form : MaxForm
        The released maximum on the first input.
    other : MaxForm
        The released maximum on the second input (the neighbour).

    Returns
    -------
    float
        The estimated CPU seconds of :func:`max_loss` on ``form`` against ``other``.
    """
    offsets = (*form.offsets, *other.offsets)
    L = math.lcm(*[v.denominator for v in offsets])
    span = int((max(offsets) - min(offsets)) * L)
    n = len(form.offsets)
    one = max_seconds(n, len(set(offsets)), span, form.law)
    shifts = {b - a for a, b in zip(form.offsets, other.offsets, strict=False)}
    if len(shifts) == 1 and shifts != {0}:  # the slowdown grows with the steps per score:
        return one * min(TRANSLATED, max(1.0, span / n))  # about 1x for 0..n-1 moved by 1
    return one


# ------------------------------------------------------------------ critical points
def _vanishes_at(cs: list[flint.fmpz_poly], m: int | None) -> bool:
    """Whether ``g(u, x)`` (``cs`` its coefficients in u) is identically 0 at ``u =
    x^(-m)`` (None: at u = 0)."""
    if m is None:
        return not cs or cs[0] == 0
    top = len(cs) - 1
    total = flint.fmpz_poly()
    for k, c in enumerate(cs):
        total += c * flint.fmpz_poly([0] * (m * (top - k)) + [1])
    return total == 0


def _real_roots(cs: list[flint.fmpz_poly], lo_m: int | None, hi_m: int | None, lat: Lattice,
                prec: int) -> list[flint.arb] | None:
    """Balls of the real roots of the squarefree ``g(u, x)`` (``cs`` its coefficients in
    u; at the transcendental x) in the open u-range ``(lo, hi)``, ``lo = x^(-lo_m)``
    (None: 0), ``hi = x^(-hi_m)`` (None: oo); None if ``prec`` bits do not decide (module
    docstring: the mirror test)."""
    xb = lat.x_at(prec)
    with flint_prec(prec):
        poly = flint.acb_poly([flint.acb(c(xb)) for c in cs])
        try:
            roots = poly.roots(tol=flint.arb(2) ** (-(prec // 2)), maxprec=4 * prec)
        except ValueError:
            return None
        lo_b = flint.arb(0) if lo_m is None else xb ** (-lo_m)
        hi_b = None if hi_m is None else xb ** (-hi_m)
        out = []
        for i, z in enumerate(roots):
            if not z.imag.contains(0):
                continue  # not real
            mirror = flint.acb(z.real, flint.arb(0, z.imag.abs_upper()))
            if any(mirror.overlaps(w) for j, w in enumerate(roots) if j != i):
                return None
            re = z.real
            if not re > lo_b:
                if re < lo_b or _vanishes_at(cs, lo_m):
                    continue  # outside, or the root is the end point (a candidate already)
                return None
            if hi_b is not None and not re < hi_b:
                if re > hi_b or _vanishes_at(cs, hi_m):
                    continue
                return None
            out.append(re)
        return out


def _short(x: Any) -> str:
    return f"{float(sympy.Float(x)):.12g}"


def _factors(search: Search) -> list[list[list[flint.fmpz_poly]]]:
    """Per piece, the squarefree factors of ``P_u Q - P Q_u`` that involve u, as their
    coefficients in u (computed once, read at every precision)."""
    out = []
    for P, P2, *_ in search.pieces:
        D = P.derivative(0) * P2 - P * P2.derivative(0)
        out.append([coeffs_in_u(g) for g, _mult in D.factor_squarefree()[1]
                    if g.degrees()[0] != 0])
    return out


Critical = list[tuple[flint.arb, str, int]]


def _critical(search: Search, factors: list, prec: int, only: frozenset[int] | None = None
              ) -> Critical | None:
    """The signed log ratios at the interior critical points of every piece (of the pieces
    ``only``), as balls, with their witnesses and pieces (None: undecided at ``prec``)."""
    lat = search.lattice
    out = []
    for idx, (_P, _P2, s, lo, hi, cs1, cs2) in enumerate(search.pieces):
        if only is not None and idx not in only:
            continue
        lo_m = None if lo is None else 0
        hi_m = 0 if lo is None else (None if hi is None else hi - lo)
        for cs in factors[idx]:
            roots = _real_roots(cs, lo_m, hi_m, lat, prec)
            if roots is None:
                return None
            xb = lat.x_at(prec)
            with flint_prec(prec):
                p1 = flint.arb_poly([c(xb) for c in cs1])
                p2 = flint.arb_poly([c(xb) for c in cs2])
                rr = flint.arb(lat.r.numerator) / lat.r.denominator
                for u in roots:
                    ratio = p1(u) / p2(u)
                    if not ratio > 0:
                        return None
                    lo_v, hi_v = arb_to_interval((u.log() / rr + s) / lat.L)
                    out.append((ratio.log(), f"{search.label} with the value at "
                                f"[{_short(lo_v)}, {_short(hi_v)}] (a critical point of the "
                                "log density ratio)", idx))
    return out


def _decide(search: Search, factors: list, best: Exact, prec: int,
            only: frozenset[int] | None = None
            ) -> tuple[flint.arb, str, frozenset[int]] | Exact | None:
    """The supremum at ``prec`` bits: ``best`` when no critical value exceeds it, else the
    signed hull of the critical values above it (the largest lies between their largest
    lower and upper ends), its witness and the pieces holding them; None when undecided."""
    crit = _critical(search, factors, prec, only)
    if crit is None:
        return None
    lat = search.lattice
    with flint_prec(prec):
        xb = lat.x_at(prec)
        eb = (best.A(xb) / best.B(xb)).log()
        if any(not (abs(c) > eb or abs(c) < eb) for c, _, _ in crit):
            return None
        bigger = [t for t in crit if abs(t[0]) > eb]
        if not bigger:
            return best
        lo_end = max((abs(t[0]).lower() for t in bigger), key=lambda b: b.mid())
        hi_end = max((abs(t[0]).upper() for t in bigger), key=lambda b: b.mid())
        pick, where, _ = max(bigger, key=lambda t: abs(t[0]).mid())
        direction = 1 if pick > 0 else -1
        return direction * lo_end.union(hi_end), where, frozenset(t[2] for t in bigger)


def _support(form: MaxForm, other: MaxForm, label: str) -> MaxLoss | None:
    """Exponential noise with different maxima: an infinite loss on the values between
    them (probability 0 under the input of the larger maximum), attained."""
    top, top2 = max(form.offsets), max(other.offsets)
    if form.law != "exponential" or top == top2:
        return None
    lo, hi = sorted((top, top2))
    return MaxLoss(1 if top < top2 else -1, True, f"{label} with the value in ({lo}, {hi}) "
                   "(probability 0 under one input only)")


def max_loss(form: MaxForm, other: MaxForm, label: str, func: str) -> MaxLoss:
    """The exact ``sup_v |ln f(v) / f'(v)|`` of two released maxima of one law and scale
    (the module docstring says how).

    Raises
    ------
    ValueError
        An irrational scale (a rational epsilon is needed), different laws, scales or
        lengths, or a pair past the cost model (:func:`pair_seconds`).
    UndecidedSignError
        A critical value not told from the largest exact candidate at 4096 bits.
    """
    if (form.law, form.scale, len(form.offsets)) != (other.law, other.scale,
                                                     len(other.offsets)):
        raise ValueError(f"{func}: the two inputs' maxima differ in law, scale or length")
    if not form.scale.is_Rational:
        raise ValueError(f"{func}: the loss of a release program needs a rational epsilon "
                         f"(a rational noise rate); the noise rate here is {1 / form.scale}")
    found = _support(form, other, label)
    if found is not None:
        return found
    lat = Lattice(form.law, 1 / _fraction(form.scale), form.offsets, other.offsets)
    n = len(form.offsets)
    seconds = pair_seconds(form, other)
    check_seconds(func, f"the exact density cells of {n} scores spanning {lat.span} steps "
                  f"of 1/{lat.L} (polynomials of degree about {lat.span * n} in x)", seconds,
                  MAX_CHEAPER)
    start_line(func, None, seconds)  # one step, not a loop: no bar (60 scores: 36 s silent)
    search = Search(lat, label)
    scan_pieces(search)
    best = search.best()
    if best.B == 0:
        return MaxLoss(best.direction, False, best.where)
    factors = _factors(search)
    for prec in PRECISIONS:
        got = _decide(search, factors, best, prec)
        if got is None:
            continue
        if isinstance(got, Exact):
            return _exact(lat, got)
        ball, where, pieces = got

        def tighter(prec: int = prec, ball: flint.arb = ball, pieces: frozenset[int] = pieces
                    ) -> flint.arb:  # the pieces of the largest critical values only
            again = _decide(search, factors, best, 2 * prec, pieces)
            return again[0] if isinstance(again, tuple) else ball

        return MaxLoss(0, True, where, enclosure=ball, tighten=tighter)
    raise UndecidedSignError(f"{func}: a critical value of the log density ratio could not "
                             f"be told from the largest end point value at {PRECISIONS[-1]} "
                             "bits")


def _exact(lat: Lattice, c: Exact) -> MaxLoss:
    big, small = lat.at_x(c.A), lat.at_x(c.B)
    pair = (big, small) if c.direction >= 0 else (small, big)
    value = lat.value(c) if c.direction else sympy.Integer(0)
    return MaxLoss(0, c.attained, c.where, pair, value)

