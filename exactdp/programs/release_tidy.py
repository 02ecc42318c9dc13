"""Ratios of exponential sums in closed form: a loss's ``ln f/g`` tidied, and compared.

A loss's ratio ``f / g`` of exponential sums ``sum c exp(a)`` (rational ``c``, ``a``) is
simplified by :func:`tidy_ratio` with ``sympy.simplify`` (0.1 s each) up to a degree
(:data:`SIMPLIFY_DEGREE`), its loss written ``r + ln k`` where the sums are a shift of each
other (:func:`log_ratio`), and two products of such sums compared exactly, term by term
(:func:`compare_sums`: Lindemann-Weierstrass decides the sign).

A search over pairs (the suite's rows) needs most losses only as numbers to compare with
exactly; inside :func:`quick` the ratio is instead reduced as a rational function of ``x =
exp(1/L)`` (``L`` the lcm of the exponents' denominators): ``f = x^m P(x)``, ``g = x^m
Q(x)``, divided by the exact ``gcd(P, Q)`` (flint ``fmpq_poly``), ``Q`` made monic. The same
value, exactly; the pair the search names gets the simplified form afterwards
(:func:`quick_sources` gives back ``(f, g)``, :func:`tidy_loss`), so what a row shows is
what ``tidy_ratio`` gives.

References
----------
F. Lindemann (1882), K. Weierstrass (1885) (A. Baker, *Transcendental Number Theory*,
1975, Theorem 1.4: the ``exp`` of distinct rationals are linearly independent over the
algebraic numbers).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from fractions import Fraction

import flint
import sympy

from ..exact.signs import exp_sum_terms, scaled_sign

#: Largest degree (in ``exp(1/L)``) of a ratio of exponential sums that :func:`tidy_ratio`
#: hands to ``sympy.simplify``: its polynomial gcd grows with the degree (minutes at 10**5).
SIMPLIFY_DEGREE = 2_000
#: Most exponential terms (numerator and denominator together) of a ratio handed to
#: ``sympy.simplify``: its time grows steeply with them (adaptive SVT at 10 queries, 32
#: terms of degree 258: over a minute; the suite's largest at its settings, 13 terms of
#: degree 160: 0.1 s). Larger ratios are reduced by flint's gcd instead (the same value).
SIMPLIFY_TERMS = 16
#: Largest degree of a ratio handed to ``sympy.simplify`` whatever its terms (the suite's
#: largest, 160, stays simplified): its heuristic gcd grows with the degree (GapSVT at
#: c = 2 on 16 answers, 12 terms of degree 396: 35 s; flint's gcd the same value in
#: milliseconds).
QUICK_DEGREE = 200
#: Whether ratios are reduced quickly (:func:`quick`) rather than simplified.
QUICK: ContextVar[bool] = ContextVar("quick_ratio", default=False)
#: The ratios ``(f, g)`` each quick form was made from (at most 4096 forms, then cleared).
_SOURCES: dict[sympy.Expr, set[tuple[sympy.Expr, sympy.Expr]]] = {}


@contextmanager
def quick() -> Iterator[None]:
    """Reduce the ratios of losses quickly inside the block (:func:`quick_ratio`)."""
    token = QUICK.set(True)
    try:
        yield
    finally:
        QUICK.reset(token)


def _terms(e: sympy.Expr) -> dict[Fraction, Fraction] | None:
    t = exp_sum_terms(e, None)
    if not t:
        return None
    return {Fraction(int(a.p), int(a.q)): Fraction(int(c.p), int(c.q)) for a, c in t.items()}


def _sum(poly: flint.fmpq_poly, lcm: int) -> sympy.Expr:
    return sympy.Add(*[sympy.Rational(int(c.p), int(c.q)) * sympy.exp(sympy.Rational(k, lcm))
                       for k, c in enumerate(poly.coeffs()) if c != 0])


def quick_ratio(f: sympy.Expr, g: sympy.Expr) -> sympy.Expr | None:
    """``f / g`` reduced as a rational function of ``exp(1/L)`` (see the module), exactly;
    None where ``f`` or ``g`` is not a sum ``sum c exp(a)`` of rationals ``c, a``."""
    tf, tg = _terms(f), _terms(g)
    if tf is None or tg is None:
        return None
    lcm = math.lcm(1, *(a.denominator for a in (*tf, *tg)))
    low = min((*tf, *tg))

    def poly(t: dict[Fraction, Fraction]) -> flint.fmpq_poly:
        out = [Fraction(0)] * (int((max(t) - low) * lcm) + 1)
        for a, c in t.items():
            out[int((a - low) * lcm)] += c
        return flint.fmpq_poly([flint.fmpq(c.numerator, c.denominator) for c in out])

    p, q = poly(tf), poly(tg)
    common = p.gcd(q)
    p, q = p // common, q // common
    lead = q.coeffs()[-1]
    p, q = p / lead, q / lead
    out = _sum(p, lcm) if q.degree() == 0 else _sum(p, lcm) / _sum(q, lcm)
    if len(_SOURCES) > 4096:
        _SOURCES.clear()
    _SOURCES.setdefault(out, set()).add((f, g))
    return out


def quick_sources(ratio: sympy.Expr) -> frozenset[tuple[sympy.Expr, sympy.Expr]]:
    """The ratios ``(f, g)`` a quick form was made from (empty: not a quick form)."""
    return frozenset(_SOURCES.get(ratio, ()))


def ratio_degree(f: sympy.Expr, g: sympy.Expr) -> int | None:
    """The degree of ``f / g`` as a rational function of ``x = exp(1/L)``, ``L`` the lcm of
    the denominators of the exponents: ``L (max - min)`` over the exponents and 0 (None: an
    exponent that is not a rational number)."""
    args = [a.args[0] for a in (f.atoms(sympy.exp) | g.atoms(sympy.exp))]
    if not all(isinstance(a, sympy.Rational) for a in args):
        return None
    q = math.lcm(1, *(int(a.q) for a in args))
    return int(q * (max([0, *args]) - min([0, *args])))


def tidy_ratio(f: sympy.Expr, g: sympy.Expr) -> sympy.Expr:
    """``f / g``, simplified when its degree (:func:`ratio_degree`) is at most
    :data:`SIMPLIFY_DEGREE`, else left as the exact quotient (same value, never a hang);
    inside :func:`~exactdp.programs.release_tidy.quick` (a search over pairs) reduced as a
    rational function instead (:func:`~exactdp.programs.release_tidy.quick_ratio`, the
    same value; :func:`tidy_loss` then gives the simplified form of the pair named)."""
    degree = ratio_degree(f, g)
    if degree is None or degree > SIMPLIFY_DEGREE:
        return f / g
    if QUICK.get() and (fast := quick_ratio(f, g)) is not None:
        return fast
    return _simplified(f, g)


@functools.lru_cache(maxsize=256)
def _simplified(f: sympy.Expr, g: sympy.Expr) -> sympy.Expr:
    """``sympy.simplify(f / g)``, memoised on ``(f, g)`` (sympy expressions are immutable
    and hashed by structure, and ``sympy.simplify`` is deterministic, so a repeat returns
    the same expression): a search over pairs meets one ratio again and again
    (noisy_top_k_gap's suite row: 4 of its 6 ratios, 0.15 s of simplify each). Past
    :data:`SIMPLIFY_TERMS` terms or :data:`QUICK_DEGREE`, the quotient reduced as a
    rational function of ``exp(1/L)`` (:func:`~exactdp.programs.release_tidy.quick_ratio`:
    exact, 0.02 s where simplify ran for minutes)."""
    tf, tg = exp_sum_terms(f, None), exp_sum_terms(g, None)
    if tf is not None and tg is not None and (len(tf) + len(tg) > SIMPLIFY_TERMS or (
            ratio_degree(f, g) or 0) > QUICK_DEGREE):
        if (fast := quick_ratio(f, g)) is not None:
            return fast
    return sympy.simplify(f / g)


def tidy_loss(loss: sympy.Expr) -> sympy.Expr | None:
    """The loss ``ln(r)`` of a ratio ``r`` reduced by :func:`~exactdp.programs.
    release_tidy.quick_ratio`, as :func:`log_ratio` gives it outside the quick block (the
    simplified ratio), or ``loss`` itself where it is not such a loss; None where the quick
    form came from several ratios whose simplified forms differ (the caller computes the
    loss again outside the block)."""
    if loss.func is not sympy.log or not (sources := quick_sources(loss.args[0])):
        return loss
    forms = {_simplified(f, g) for f, g in sources}
    return sympy.log(forms.pop()) if len(forms) == 1 else None


def _fraction_terms(e: sympy.Expr) -> dict[Fraction, Fraction] | None:
    t = exp_sum_terms(e, None)
    return None if t is None else {Fraction(int(a.p), int(a.q)): Fraction(int(c.p), int(c.q))
                                   for a, c in t.items()}


def _product(sums: list[dict[Fraction, Fraction]]) -> dict[Fraction, Fraction]:
    out = {Fraction(0): Fraction(1)}
    for f in sums:
        step: dict[Fraction, Fraction] = {}
        for a, c in out.items():
            for b, d in f.items():
                step[a + b] = step.get(a + b, Fraction(0)) + c * d
        out = step
    return out


def compare_sums(left: tuple[sympy.Expr, ...], right: tuple[sympy.Expr, ...]) -> int | None:
    """The sign of ``prod(left) - prod(right)``, each factor an exponential sum ``sum c
    exp(a)`` (rational ``c``, ``a``), exactly: the products are multiplied out term by term
    in fractions (where ``sympy.expand`` of the products took seconds at exponents near
    1e300), equal exponents merged; no term left: 0 (an identity); else the sign of the sum
    scaled by its largest exponential, a ball. None: not of that form, or undecided."""
    sums = [_fraction_terms(e) for e in (*left, *right)]
    if any(t is None for t in sums):
        return None
    diff = _product(sums[: len(left)])  # type: ignore[arg-type]
    for a, c in _product(sums[len(left):]).items():  # type: ignore[arg-type]
        diff[a] = diff.get(a, Fraction(0)) - c
    return scaled_sign({a: c for a, c in diff.items() if c})


def log_ratio(big: sympy.Expr, small: sympy.Expr) -> sympy.Expr:
    """``ln(big / small)`` of two positive exponential sums, as ``r + ln k`` when ``big =
    k exp(r) small`` exactly (then a rational ``r`` when ``k = 1``), else
    ``ln(tidy_ratio(big, small))``.

    Decided by exact algebra: two sums ``sum c_a exp(a)`` with rational ``a`` are equal
    iff their coefficients agree exponent by exponent (the ``exp(a)`` of distinct
    rationals are linearly independent over the algebraic numbers: Lindemann-Weierstrass),
    so ``r`` and ``k`` can only be the ratio of the leading terms.
    """
    f, g = exp_sum_terms(big, None), exp_sum_terms(small, None)
    if f and g:
        r = max(f) - max(g)
        k = f[max(f)] / g[max(g)]
        if k > 0 and len(f) == len(g) and all(f.get(a + r) == k * c for a, c in g.items()):
            return r + sympy.log(k)
    return sympy.log(tidy_ratio(big, small))
