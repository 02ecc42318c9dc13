"""The supremum of ``ln f(v) - ln g(v)`` over one cell, for exponential polynomials f, g.

On a cell (:mod:`exactdp.programs.release_cells`) a density is ``f(v) = sum_k p_k(v)
exp(lam (k_k v + w_k))`` with rational ``lam``, ``k_k``, ``w_k`` and polynomials ``p_k``
with rational coefficients (:class:`Terms`). The supremum of the log ratio ``L = ln f - ln
g`` over an open cell ``(a, b)`` is the largest of its limits at the ends (exact: the
closed forms at a rational end; at an infinite end the ratio of the leading terms, or
``+-oo`` when they differ) and its values at the interior zeros of ``D = f' g - f g'``.

Every sign is exact or certified. ``D`` is identically zero exactly when every polynomial
of its merged terms is zero: ``exp(lam w)`` for distinct rationals ``lam w`` are linearly
independent over the algebraic numbers (Lindemann and Weierstrass). Its zeros are isolated
by bisection with arb enclosures (:func:`zeros`): a piece where ``D``'s enclosure excludes 0
has none; one where ``D'``'s excludes 0 has at most one, present iff the signs at its ends
differ. On an infinite side, past a point ``M`` where the leading term provably dominates
the others (each ``|p(v)| exp(-lam d v) / v**e`` is decreasing past ``max(1, e/(lam d))``,
so one check at ``M`` holds for all ``v >= M``), ``D`` has no zero. A piece that stays
undecided down to a relative width ``2**-UNDECIDED_BITS`` (a tangential zero, or two
zeros that close) is refused, never guessed. The value at a zero is a certified arb
interval refined to a width at most ``max(1e-6 |L|, 1e-12)`` (issue 34).

References
----------
F. Lindemann (1882), K. Weierstrass (1885) (A. Baker, *Transcendental Number Theory*,
1975, Theorem 1.4). R. E. Moore, R. B. Kearfott and M. J. Cloud, *Introduction to
Interval Analysis*, SIAM 2009, chapter 8 (interval root isolation: an enclosure of the
derivative excluding 0 proves monotonicity). F. Johansson, "Arb", IEEE Trans. Computers
66(8), 2017.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from fractions import Fraction
from typing import Any

import flint
import sympy

from ..exact.arb import flint_prec
from ..exact.piecewise_exp import value_expr
from .release_taylor import Terms, cached_by_id, fraction_ball, interval, taylor_ball

PREC = 192
#: Bits added to :data:`PREC` for the answers at hand (:func:`magnitude`).
_EXTRA_BITS: ContextVar[int] = ContextVar("release_extra_bits", default=0)
UNDECIDED_BITS = 80
#: A piece this narrow (relative) is checked for an exact rational zero inside.
SMALL_BITS = 24
#: Most bisection steps of one cell.
MAX_STEPS = 20_000


def prec() -> int:
    """The working precision: :data:`PREC` plus the bits of the answers' magnitude.

    A term ``exp(lam (k v + w))`` with ``|w|`` near ``2**m`` needs ``w`` to ``2**-PREC``
    absolute accuracy, so ``PREC + m`` bits (a score of 1e300 adds about 1000).
    """
    return PREC + _EXTRA_BITS.get()


@contextmanager
def magnitude(values: Iterable[Any]) -> Iterator[None]:
    """Raise :func:`prec` inside the block by the bit length of the largest ``|value|``."""
    bits = max((math.ceil(abs(Fraction(v))).bit_length() for v in values), default=0)
    token = _EXTRA_BITS.set(bits + 8 if bits > 8 else 0)
    try:
        yield
    finally:
        _EXTRA_BITS.reset(token)


def _trim(c: list[Fraction]) -> tuple[Fraction, ...]:
    while c and c[-1] == 0:
        c.pop()
    return tuple(c)


def _padd(a: tuple[Fraction, ...], b: tuple[Fraction, ...], s: int = 1) -> tuple[Fraction, ...]:
    n = max(len(a), len(b))
    zero = Fraction(0)
    return _trim([(a[i] if i < len(a) else zero) + s * (b[i] if i < len(b) else zero)
                  for i in range(n)])


def add(f: Terms, g: Terms, s: int = 1) -> Terms:
    out = dict(f)
    for k, p in g.items():
        q = _padd(out.get(k, ()), p, s)
        if q:
            out[k] = q
        else:
            out.pop(k, None)
    return out


def _iadd(out: Terms, key: tuple[Fraction, Fraction], p: tuple[Fraction, ...]) -> None:
    """``out = add(out, {key: p})`` in place (the same keys in the same order: a key whose
    sum vanishes leaves, and comes back last), without copying ``out`` per term."""
    q = _padd(out.get(key, ()), p)
    if q:
        out[key] = q
    else:
        out.pop(key, None)


def mul(f: Terms, g: Terms) -> Terms:
    """``f g`` (:func:`~exactdp.programs.release_products.cross` does it in flint's exact
    rationals where speed matters)."""
    out: Terms = {}
    for (k1, w1), p1 in f.items():
        for (k2, w2), p2 in g.items():
            _iadd(out, (k1 + k2, w1 + w2), _pmul(p1, p2))
    return out


def _pmul(a: tuple[Fraction, ...], b: tuple[Fraction, ...]) -> tuple[Fraction, ...]:
    out = [Fraction(0)] * max(0, len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return _trim(out)


def derivative(f: Terms, lam: Fraction) -> Terms:
    """``f'``: ``(p' + lam k p) exp(lam (k v + w))``."""
    out: Terms = {}
    for (k, w), p in f.items():
        dp = tuple(i * a for i, a in enumerate(p))[1:]
        _iadd(out, (k, w), _padd(dp, tuple(lam * k * a for a in p)))
    return out


def negate_v(f: Terms) -> Terms:
    """``f(-v)``."""
    return {(-k, w): tuple(a if i % 2 == 0 else -a for i, a in enumerate(p))
            for (k, w), p in f.items()}


#: Compiled terms (arb coefficients at one precision), by ``id`` of the terms: the critical
#: point search evaluates the same few exponential sums thousands of times.
_COMPILED: dict[tuple[int, Fraction, int], tuple[Terms, list]] = {}


def _compiled(f: Terms, lam: Fraction) -> list:
    def build() -> list:
        la, fb = fraction_ball(lam), fraction_ball
        return [(la * fb(k), la * fb(w), [fb(a) for a in reversed(p)]) for (k, w), p in f.items()]

    return cached_by_id(_COMPILED, f, lam, build)


def ball(f: Terms, v: flint.arb, lam: Fraction) -> flint.arb:
    """An enclosure of ``f`` over the ball ``v``."""
    total = flint.arb(0)
    for lk, lw, coeffs in _compiled(f, lam):
        poly = flint.arb(0)
        for a in coeffs:
            poly = poly * v + a
        total += poly * (lk * v + lw).exp()
    return total


def exact_at(f: Terms, v: Fraction, lam: Fraction) -> sympy.Expr:
    """``f(v)`` as an exact sympy expression (the terms of one exponent summed first, as
    sympy's ``Add`` would, and assembled in bulk by :func:`~exactdp.exact.piecewise_exp.
    value_expr`: the same expression, built with fewer sympy operations)."""
    if not f:
        return value_expr({}, sympy.Integer(1))
    sums = _integer_sums(f, v)
    lk, lw, den, deg = _scales(f)
    m = v.denominator
    scale, out_den = lk * lw * m, den * m**deg  # exponent e / scale, value s / out_den
    return value_expr({(0, lam * Fraction(e, scale)): Fraction(c, out_den)
                       for e, c in sums.items() if c}, sympy.Integer(1))


def _scales(f: Terms) -> tuple[int, int, int, int]:
    """The common denominators of ``f``'s slopes, offsets and coefficients, and its degree."""
    lk = math.lcm(*(k.denominator for k, _ in f))
    lw = math.lcm(*(w.denominator for _, w in f))
    den = math.lcm(*(a.denominator for p in f.values() for a in p))
    return lk, lw, den, max(len(p) for p in f.values()) - 1


def _integer_sums(f: Terms, r: Fraction) -> dict[int, int]:
    """``f(r)`` grouped by exponent in integers (:func:`_scales`): ``{(k r + w) lk lw m:
    sum p(r) den m**deg}`` over the terms whose ``p(r)`` is not 0, for ``r = n / m``, in the
    order of each exponent's first such term (no Fraction per term: a derivative of a
    density ratio has thousands)."""
    lk, lw, den, deg = _scales(f)
    n, m = r.numerator, r.denominator
    powers = [n**i * m ** (deg - i) for i in range(deg + 1)]
    sk, sw = n * lw, lk * m  # k r + w = (K n lw + W lk m) / (lk lw m)
    groups: dict[int, int] = {}
    for (k, w), p in f.items():
        val = 0
        for i, a in enumerate(p):
            val += a.numerator * (den // a.denominator) * powers[i]
        if val:
            e = k.numerator * (lk // k.denominator) * sk + w.numerator * (lw // w.denominator) * sw
            groups[e] = groups.get(e, 0) + val
    return groups


def _leading_terms(f: Terms) -> tuple[Fraction, int, dict[Fraction, Fraction]] | None:
    """``(k, d, {w: c})``: ``f(v) ~ v**d exp(lam k v) sum_w c exp(lam w)`` as ``v -> +oo``
    (None: f is 0)."""
    groups: dict[Fraction, dict[Fraction, tuple[Fraction, ...]]] = {}
    for (k, w), p in f.items():  # one pass (a derivative's thousands of terms)
        groups.setdefault(k, {})[w] = p
    for k in sorted(groups, reverse=True):
        group = groups[k]
        for d in range(max(len(p) for p in group.values()) - 1, -1, -1):
            cs = {w: p[d] for w, p in group.items() if d < len(p) and p[d]}
            if cs:
                return k, d, cs
    return None


def leading(f: Terms, lam: Fraction) -> tuple[Fraction, int, sympy.Expr] | None:
    """``(k, d, C)``: ``f(v) ~ C v**d exp(lam k v)`` as ``v -> +oo`` (None: f is 0)."""
    found = _leading_terms(f)
    if found is None:
        return None
    k, d, cs = found
    return k, d, sympy.Add(*[sympy.Rational(c.numerator, c.denominator)
                             * sympy.exp(sympy.Rational(lam * w)) for w, c in cs.items()])


def leading_ball(f: Terms, lam: Fraction) -> tuple[Fraction, int, flint.arb] | None:
    """:func:`leading` with ``C`` enclosed at the working precision instead (a ball of
    the same sum, formed without sympy).

    Parameters
    ----------
    f : Terms
        An exponential polynomial ``sum_k p_k(v) exp(lam (k_k v + w_k))``.
    lam : Fraction
        Its rate unit ``lam``.

    Returns
    -------
    tuple of (Fraction, int, flint.arb) or None
        ``(k, d, C)`` with ``f(v) ~ C v**d exp(lam k v)`` as ``v -> +oo``: the largest
        slope ``k``, the degree ``d`` of its polynomial, ``C`` enclosed at the current
        precision; None when ``f`` is 0.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from exactdp.programs.release_sup import leading_ball
    >>> k, d, c = leading_ball({(F(1), F(0)): (F(0), F(2)), (F(1), F(1)): (F(0), F(1))}, F(1))
    >>> k, d, round(float(c.mid()), 9)  # 2 + e
    (Fraction(1, 1), 1, 4.718281828)
    """
    found = _leading_terms(f)
    if found is None:
        return None
    k, d, cs = found
    return k, d, sum((fraction_ball(c) * _weight(lam, w, flint.ctx.prec) for w, c in cs.items()),
                     flint.arb(0))


def _sign_at(f: Terms, v: Fraction, lam: Fraction) -> int:
    """The sign of ``f(v)`` (0 when undecided at the working precision: the caller treats
    the point as a possible zero)."""
    b = ball(f, fraction_ball(v), lam)
    return 1 if b > 0 else -1 if b < 0 else 0


@functools.lru_cache(maxsize=65_536)
def _weight(lam: Fraction, w: Fraction, bits: int) -> flint.arb:
    """``exp(lam w)`` enclosed at the working precision ``bits`` (the current one)."""
    return (fraction_ball(lam) * fraction_ball(w)).exp()


def tail_start(f: Terms, lam: Fraction) -> Fraction:
    """``M >= 1`` with no zero of ``f`` on ``[M, oo)``: the leading term dominates there.

    Raises
    ------
    ValueError
        No such ``M`` up to ``2**40`` (never expected: the other terms decay).
    """
    k0, d0, _ = _leading_terms(f)  # type: ignore[misc]
    top = {w: p for (k, w), p in f.items() if k == k0}
    fb = fraction_ball

    def weight(w: Fraction) -> flint.arb:  # each ball made once (the same balls as term
        return _weight(lam, w, flint.ctx.prec)  # by term: D repeats f's and g's exponents)

    c0 = sum((fb(p[d0]) * weight(w) for w, p in top.items() if d0 < len(p)),
             flint.arb(0)).abs_lower()
    rest = [(Fraction(0), j - d0, sum((abs(fb(p[j])) * weight(w)
                                       for w, p in top.items() if j < len(p)), flint.arb(0)))
            for j in range(d0)]
    for (k, w), p in f.items():
        if k != k0:
            size = sum((abs(fb(a)) for a in p), flint.arb(0)) * weight(w)
            rest += [(lam * (k0 - k), len(p) - 1 - d0, size)]
    m = Fraction(1)
    for delta, e, _ in rest:
        if delta > 0 and e > 0:
            m = max(m, Fraction(e) / delta + 1)
    deltas = list(dict.fromkeys(t[0] for t in rest))  # each distinct rate gap and degree
    degrees = list(dict.fromkeys(t[1] for t in rest))  # once (hashed here, not per step)
    at_d, at_e = {x: i for i, x in enumerate(deltas)}, {x: i for i, x in enumerate(degrees)}
    where = [(at_d[delta], at_e[e], size) for delta, e, size in rest]
    while m < 2**40:
        M = fraction_ball(m)
        decay = [(-fraction_ball(delta) * M).exp() for delta in deltas]
        power = [M ** e for e in degrees]
        total = sum((size * decay[i] * power[j] for i, j, size in where), flint.arb(0))
        if total < c0:
            return m
        m *= 2
    raise ValueError("the leading term of the log ratio's derivative does not dominate")


def zeros(f: Terms, lam: Fraction, a: Fraction | None, b: Fraction | None,
          func: str, max_steps: int = MAX_STEPS, spent: list[int] | None = None
          ) -> list[tuple[Fraction, Fraction]]:
    """Disjoint intervals ``(x, y)`` inside ``(a, b)``, each holding exactly one zero of
    ``f`` where it changes sign (None ends: infinite). ``f`` not identically zero. The
    bisection steps taken are added to ``spent[0]`` (a budget shared by several calls).

    Raises
    ------
    ValueError
        A piece undecided down to ``2**-UNDECIDED_BITS`` (a tangential zero?), or too many
        steps.
    """
    if b is None:
        m = tail_start(f, lam)
        b = m if a is None or m > a else a + 1
        if a is not None and b <= a:
            return []
    if a is None:
        m = -tail_start(negate_v(f), lam)
        a = m if m < b else b - 1
    df = derivative(f, lam)
    ddf = derivative(df, lam)
    out: list[tuple[Fraction, Fraction]] = []
    todo = [(a, b)]
    zones: list[tuple[Fraction, Fraction, Fraction]] = []  # exact rational zeros: done
    steps = 0
    with flint_prec(prec()):
        for r in dict.fromkeys((a, b)):  # an exact zero at an end: its zone, at once
            zone = _zone(f, lam, r, b - a, 16)  # (a high multiplicity defeats bisection)
            zones += [zone] if zone is not None else []
        while todo:
            x, y = todo.pop()
            steps += 1
            if spent is not None:
                spent[0] += 1
            if steps > max_steps:
                raise ValueError(f"{func}: the critical points of the log density ratio "
                                 f"need more than {max_steps} bisections")
            pieces = _clip(x, y, zones)
            if pieces != [(x, y)]:
                todo += pieces
                continue
            if y - x <= (abs(x) + abs(y) + 1) * Fraction(1, 2**SMALL_BITS):
                zone = _rational_zero(f, lam, x, y)
                if zone is not None:
                    zones.append(zone)
                    out.append((zone[2], zone[2]))
                    todo.append((x, y))
                    continue
            if 0 not in _centred(f, df, x, y, lam):
                continue
            if 0 not in _centred(df, ddf, x, y, lam):
                sx, sy = _sign_at(f, x, lam), _sign_at(f, y, lam)
                if sx * sy < 0:
                    out.append((x, y))
                continue
            if y - x <= (abs(x) + abs(y) + 1) * Fraction(1, 2**UNDECIDED_BITS):
                raise ValueError(f"{func}: the log density ratio has an undecided critical "
                                 f"point near {float(x):.12g} (a tangential zero of its "
                                 "derivative?)")
            mid = x + (y - x) * Fraction(89, 179)  # off the dyadic points
            if _sign_at(f, mid, lam) == 0:  # a zero at the split point itself, maybe
                out.append((mid, mid))
            todo += [(x, mid), (mid, y)]
    return out


def _centred(f: Terms, df: Terms, x: Fraction, y: Fraction, lam: Fraction) -> flint.arb:
    """An enclosure of ``f`` over ``[x, y]``: the mean value form ``f(m) + f'([x, y]) [x - m,
    y - m]`` (Moore et al. 2009, section 6.4), or the direct one if narrower; where that
    holds 0, the Taylor form (:func:`taylor_ball`), when it excludes 0."""
    box = interval(x, y)
    m = (x + y) / 2
    direct = ball(f, box, lam)
    centred = ball(f, fraction_ball(m), lam) + ball(df, box, lam) * (box - fraction_ball(m))
    best = centred if centred.rad() < direct.rad() else direct
    if 0 in best:
        taylor = taylor_ball(f, lam, x, y)
        if 0 not in taylor:
            return taylor
    return best


def _clip(x: Fraction, y: Fraction, zones: list[tuple[Fraction, Fraction, Fraction]]
          ) -> list[tuple[Fraction, Fraction]]:
    """``[x, y]`` minus the open zones (pieces of positive length)."""
    pieces = [(x, y)]
    for lo, hi, _ in zones:
        nxt = []
        for u, w in pieces:
            if hi <= u or lo >= w:
                nxt.append((u, w))
                continue
            if lo > u:
                nxt.append((u, lo))
            if hi < w:
                nxt.append((hi, w))
        pieces = nxt
    return pieces


def simplest(x: Fraction, y: Fraction) -> Fraction:
    """The rational of least denominator in ``[x, y]`` (Stern-Brocot descent)."""
    if x <= 0 <= y:
        return Fraction(0)
    if y < 0:
        return -simplest(-y, -x)
    fl = x.numerator // x.denominator
    if fl + 1 <= y or x == fl:
        return Fraction(fl if x == fl else fl + 1)
    return fl + 1 / simplest(1 / (y - fl), 1 / (x - fl))


def zero_at(f: Terms, r: Fraction, lam: Fraction) -> bool:
    """Whether ``f(r) = 0`` exactly: every group of terms with one exponent ``lam (k r +
    w)`` sums to 0 (Lindemann-Weierstrass), summed in integers (:func:`_integer_sums`)."""
    return not f or all(v == 0 for v in _integer_sums(f, r).values())


def _rational_zero(f: Terms, lam: Fraction, x: Fraction, y: Fraction
                   ) -> tuple[Fraction, Fraction, Fraction] | None:
    """A zone ``(lo, hi, r)`` around an exact rational zero ``r`` of ``f`` near ``[x, y]``
    holding no other zero: ``f^(m)`` excludes 0 on it, ``m`` the multiplicity of ``r``
    (Rolle: at most ``m`` zeros with multiplicity there, all at ``r``)."""
    w = y - x
    return _zone(f, lam, simplest(x - w, y + w), 4 * w, 8)


def _zone(f: Terms, lam: Fraction, r: Fraction, delta: Fraction, tries: int
          ) -> tuple[Fraction, Fraction, Fraction] | None:
    """``(r - d, r + d, r)`` where ``r`` is an exact zero of ``f`` of multiplicity ``m``
    and ``f^(m)`` excludes 0 on ``[r - d, r + d]`` (``d`` from ``delta``, divided by 4 up
    to ``tries`` times; its enclosure :func:`_centred`, whose Taylor form survives the
    cancelling terms of a high derivative), else None: by Rolle, ``r`` is the only zero
    there."""
    if not zero_at(f, r, lam):
        return None
    g, m = f, 0
    while zero_at(g, r, lam):
        g, m = derivative(g, lam), m + 1
        if m > 16 or not g:
            return None
    dg = derivative(g, lam)
    for _ in range(tries):
        if 0 not in _centred(g, dg, r - delta, r + delta, lam):
            return r - delta, r + delta, r
        delta /= 4
    return None


def refine(f: Terms, g: Terms, d: Terms, lam: Fraction, x: Fraction, y: Fraction,
           rel: str = "1e-6", floor: str = "1e-12") -> tuple[flint.arb, Fraction, Fraction]:
    """The log ratio ``ln f - ln g`` over the zero of ``d`` in ``(x, y)`` as an arb ball of
    width at most ``max(rel |value|, floor)`` (default ``max(1e-6 |value|, 1e-12)``), and
    the zero's final interval."""
    with flint_prec(prec()):
        sx = _sign_at(d, x, lam)
        for _ in range(800):
            box = interval(x, y)
            val = ball(f, box, lam).log() - ball(g, box, lam).log()
            if val.rad() * 2 <= max(val.mid().abs_lower() * flint.arb(rel), flint.arb(floor)):
                return val, x, y
            mid = (x + y) / 2
            s = _sign_at(d, mid, lam)
            if s == 0:
                at = fraction_ball(mid)
                return ball(f, at, lam).log() - ball(g, at, lam).log(), mid, mid
            x, y = (mid, y) if s == sx else (x, mid)
    raise ValueError("the value at a critical point could not be enclosed")  # pragma: no cover
