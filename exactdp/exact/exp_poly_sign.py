"""The sign of an exponential polynomial on ``(0, oo)``: its zeros isolated, exactly or certified.

``f(t) = sum_k p_k(t) exp(w_k t)`` (:class:`~exactdp.exact.exp_poly.ExpPoly`) not
identically zero has at most ``N(f) - 1`` real zeros with multiplicity, ``N(f) = sum_k
(deg p_k + 1)`` (Polya and Szego, Part V, problem 75: divide by ``exp(w_1 t)`` and
differentiate ``deg p_1 + 1`` times; the first term dies, the others keep their degrees,
and Rolle's theorem loses at most one zero per derivative).

:func:`sign_on_positive_reals` isolates the zeros along the same induction, one derivative
at a time: with ``phi = exp(-w t) f`` (same zeros and signs as ``f``), ``phi' = exp(-w t)
(f' - w f)``, and ``D_w f = f' - w f`` is again an exponential polynomial with ``N(D_w f) =
N(f) - 1`` when ``w`` is the rate of a term of ``f`` of least degree. Between two
consecutive sign changes of ``D_w f``, ``phi`` is strictly monotone, so ``f`` has at most
one zero there, decided by its signs at the ends (exact or certified:
:func:`~exactdp.exact.exp_poly.sign_at_point`; near ``0+`` by the Taylor coefficients,
near ``oo`` by the leading term). One term is the base case: a polynomial, whose positive
roots sympy isolates exactly (Vincent-Collins-Akritas).

Around an extremum of ``phi`` where ``f`` has the sign that could give two zeros, the
extremum's interval is bisected until the mean value enclosure of ``f`` over it excludes
0 (no zero) or a point of the other sign splits it (two zeros). If both keep containing 0
down to a relative width ``2**-UNDECIDED_BITS``, the zero is tangential or two zeros are
that close: a multiple common root of every ``p_k`` (their gcd) is then the exact
tangential zero (at an algebraic ``r != 0``, ``f(r) = f'(r) = 0`` iff ``(t - r)^2``
divides every ``p_k``, by Lindemann-Weierstrass); otherwise the interval is reported
*undecided*, never guessed.

References
----------
G. Polya and G. Szego, *Problems and Theorems in Analysis II*, Springer 1976, Part V,
problem 75. G. E. Collins and A. G. Akritas, "Polynomial real root isolation using
Descartes' rule of signs", SYMSAC 1976.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import flint
import sympy

from .._validate import argument_error
from .arb import flint_prec
from .exp_poly import (
    ExpPoly,
    Terms,
    fmpq_of,
    fraction_of,
    mean_value_enclosure,
    shifted_derivative,
    sign_at_infinity_of,
    sign_at_point,
    sign_near_zero_of,
    sign_of,
)
from .signs import UndecidedSignError

#: Relative width (bits) below which an interval around a tangential zero is undecided.
UNDECIDED_BITS = 60
#: Relative width (bits) to which the reported zeros of the top-level function are refined.
ROOT_BITS = 50


@dataclass(frozen=True)
class Root:
    """A zero of an exponential polynomial on ``(0, oo)``.

    Attributes
    ----------
    lo, hi : Fraction
        The zero lies in ``[lo, hi]`` (``lo == hi``: the exact rational zero ``lo``; else
        in the open ``(lo, hi)``), and it is the only zero there unless ``kind ==
        "undecided"``.
    kind : str
        ``"exact"`` (a rational zero), ``"isolated"`` (exactly one zero in ``(lo, hi)``),
        ``"algebraic"`` (a tangential zero, exactly the one root of ``polynomial`` in
        ``[lo, hi]``: a multiple common root of every ``p_k``) or ``"undecided"`` (``f``
        and its derivative's enclosures both contain 0 on ``[lo, hi]``: zero, one or two
        zeros, say a tangential zero at a transcendental point).
    left, right : int
        The sign of the function just left of ``lo`` and just right of ``hi``.
    polynomial : tuple of Fraction or None
        For ``"algebraic"``: the coefficients (constant first) of a squarefree polynomial
        whose only root in ``[lo, hi]`` is the zero.
    """

    lo: Fraction
    hi: Fraction
    kind: str
    left: int
    right: int
    polynomial: tuple[Fraction, ...] | None = None

    @property
    def exact(self) -> Fraction | None:
        """The exact rational zero, or None."""
        return self.lo if self.kind == "exact" else None

    def ball(self, prec: int = 128) -> flint.arb:
        """An arb ball containing ``[lo, hi]`` (hence the zero)."""
        with flint_prec(prec):
            lo, hi = flint.arb(fmpq_of(self.lo)), flint.arb(fmpq_of(self.hi))
            return lo.union(hi)

    def __str__(self) -> str:
        if self.kind == "exact":
            return str(self.lo)
        mid = f"{float(self.lo + self.hi) / 2:.12g}"
        return f"~{mid}" if self.kind != "undecided" else f"~{mid} (undecided)"


#: An end of an interval of ``(0, oo)``: an exact rational (0 included), a :class:`Root`,
#: or None for ``oo``.
End = Fraction | Root | None


@dataclass(frozen=True)
class PositiveRealsSign:
    """The sign chart of an exponential polynomial on ``(0, oo)``.

    Attributes
    ----------
    function : ExpPoly
    roots : tuple of Root
        Left to right, disjoint; between consecutive roots the sign is constant and
        non-zero.
    first : int
        The sign on ``(0, delta)`` (0 for the zero function).

    Examples
    --------
    >>> from fractions import Fraction
    >>> f = ExpPoly.from_terms({(0, Fraction(0)): Fraction(1), (0, Fraction(-1)): Fraction(-2)})
    >>> chart = sign_on_positive_reals(f)     # 1 - 2 exp(-t): negative below log 2
    >>> chart.first, len(chart.roots), chart.nonnegative
    (-1, 1, False)
    >>> float(chart.roots[0].lo) < 0.6931471805599453 < float(chart.roots[0].hi)
    True
    """

    function: ExpPoly
    roots: tuple[Root, ...]
    first: int
    algorithm: str = field(default="polya-szego")

    @property
    def is_zero(self) -> bool:
        """True iff the function is identically 0."""
        return self.function.is_zero

    @property
    def undecided(self) -> tuple[Root, ...]:
        """The undecided intervals (empty when every zero is isolated)."""
        return tuple(r for r in self.roots if r.kind == "undecided")

    @property
    def gap_signs(self) -> tuple[int, ...]:
        """The sign on each of the ``len(roots) + 1`` open gaps between 0, the roots, oo."""
        return (self.first, *(r.right for r in self.roots))

    @property
    def nonnegative(self) -> bool:
        """True iff ``f >= 0`` on all of ``(0, oo)`` is proved."""
        return not self.undecided and all(s >= 0 for s in self.gap_signs)

    @property
    def decided(self) -> bool:
        """True when no undecided interval meets a gap where the sign matters."""
        return not self.undecided

    def negative_intervals(self) -> tuple[tuple[End, End], ...]:
        """The open intervals where ``f < 0`` is proved, as ``(start, end)`` ends (maximal
        runs of negative gaps, split at tangential zeros). Undecided intervals are not in
        them: read :attr:`undecided`."""
        out: list[tuple[End, End]] = []
        start: End = Fraction(0) if self.first < 0 else None
        neg = self.first < 0
        for r in self.roots:
            if neg:
                out.append((start, r))
            neg = r.right < 0 and r.kind != "undecided"
            start = r
        if neg:
            out.append((start, None))
        return tuple(out)


def sign_on_positive_reals(f: ExpPoly) -> PositiveRealsSign:
    """Isolate the zeros of ``f`` on ``(0, oo)`` and give its sign between them.

    Parameters
    ----------
    f : ExpPoly

    Returns
    -------
    PositiveRealsSign
        ``roots`` (exact, isolated to a relative width ``2**-ROOT_BITS``, or undecided),
        ``first`` (the sign near ``0+``), ``negative_intervals()``, ``nonnegative``. The
        zero function gives no roots and ``first = 0``.

    Raises
    ------
    ValueError
        If ``f`` is not an :class:`ExpPoly`.
    UndecidedSignError
        Only if a sign at a rational point needs more than
        :data:`exactdp.exact.exp_poly.MAX_PREC` bits.

    Notes
    -----
    Polya-Szego V.75 induction (module docstring): the number of roots found (with
    multiplicity, an undecided interval counting as at most two) never exceeds
    :attr:`ExpPoly.zero_bound`.
    """
    if not isinstance(f, ExpPoly):
        raise argument_error("sign_on_positive_reals", "f", "an ExpPoly", f)
    if f.is_zero:
        return PositiveRealsSign(f, (), 0, "zero")
    terms = f.flint_terms
    events = _chart(terms)
    roots = tuple(_refine_root(terms, ev, ROOT_BITS) for ev in events)
    return PositiveRealsSign(f, tuple(_to_root(ev) for ev in roots), sign_near_zero_of(terms))


@dataclass
class _Ev:
    """A zero event of a chart: ``kind`` "exact" (lo == hi), "iso", "alg" or "und"
    (:class:`Root`'s kinds), with the signs on each side."""

    kind: str
    lo: flint.fmpq
    hi: flint.fmpq
    left: int
    right: int
    poly: tuple[Fraction, ...] | None = None


def _to_root(ev: _Ev) -> Root:
    kind = {"exact": "exact", "iso": "isolated", "und": "undecided", "alg": "algebraic"}[ev.kind]
    return Root(fraction_of(ev.lo), fraction_of(ev.hi), kind, ev.left, ev.right, ev.poly)


def _narrow(lo: flint.fmpq, hi: flint.fmpq, bits: int) -> bool:
    scale = max(abs(lo), abs(hi), flint.fmpq(1))
    return (hi - lo) <= scale / flint.fmpq(2) ** bits


def _refine_root(terms: Terms, ev: _Ev, bits: int) -> _Ev:
    """Bisect an isolated sign-changing zero to relative width ``2**-bits``."""
    if ev.kind != "iso" or ev.left == ev.right:
        return ev
    lo, hi = ev.lo, ev.hi
    while not _narrow(lo, hi, bits):
        m = (lo + hi) / 2
        s = sign_at_point(terms, m)
        if s == 0:
            return _Ev("exact", m, m, ev.left, ev.right)
        if s == ev.left:
            lo = m
        else:
            hi = m
    return _Ev("iso", lo, hi, ev.left, ev.right)


def _chart(terms: Terms) -> list[_Ev]:
    """The zero events of a non-zero ``f`` on ``(0, oo)``, left to right, with the sign on
    each side (induction on ``N(f)``)."""
    if len(terms) == 1:
        return _poly_chart(terms[0][1])
    k = min(range(len(terms)), key=lambda i: terms[i][1].degree())
    w = terms[k][0]
    h = shifted_derivative(terms, w)
    h_events = _chart(h)
    h_first = sign_near_zero_of(h)
    return _rolle(terms, h, h_events, h_first)


def _poly_chart(p: flint.fmpq_poly) -> list[_Ev]:
    """Roots of a polynomial on ``(0, oo)``: exact rational isolation (sympy's
    ``Poly.intervals`` and ``refine_root``, Vincent-Collins-Akritas) with ends that are
    positive and not roots, and exact signs between them."""
    if p.degree() <= 0:
        return []
    signs = [sign_of(c) for c in p.coeffs() if c != 0]
    if all(x == signs[0] for x in signs):
        return []  # Descartes' rule of signs: no positive root
    if p.degree() == 1:
        r = -p[0] / p[1]
        if r <= 0:
            return []
        return [_Ev("exact", r, r, sign_of(p(r / 2)), sign_of(p(r + 1)))]
    t = sympy.Dummy("t")
    poly = sympy.Poly([sympy.Rational(int(c.p), int(c.q)) for c in reversed(p.coeffs())], t,
                      domain="QQ")
    events = []
    for (a, b), _mult in poly.intervals(inf=0):
        if b <= 0:
            continue  # the root 0
        while a != b and (a <= 0 or poly.eval(a) == 0 or poly.eval(b) == 0):
            a, b = poly.refine_root(a, b, eps=(b - a) / 4)
        lo, hi = flint.fmpq(int(a.p), int(a.q)), flint.fmpq(int(b.p), int(b.q))
        events.append(_Ev("exact" if lo == hi else "iso", lo, hi, 0, 0))
    events.sort(key=lambda ev: ev.lo)
    signs = [sign_of(p(x)) for x in _gap_points(events)]
    for i, ev in enumerate(events):
        ev.left, ev.right = signs[i], signs[i + 1]
    return events


def _gap_points(events: list[_Ev]) -> list[flint.fmpq]:
    if not events:
        return [flint.fmpq(1)]
    pts = [events[0].lo / 2]
    for a, b in zip(events, events[1:], strict=False):
        pts.append((a.hi + b.lo) / 2)
    pts.append(events[-1].hi + 1)
    return pts


def _refine_h(h: Terms, ev: _Ev) -> _Ev:
    """One bisection step of a sign-changing event of ``h`` (iso): the half holding the
    zero (or the exact zero at the midpoint)."""
    m = (ev.lo + ev.hi) / 2
    s = sign_at_point(h, m)
    if s == 0:
        return _Ev("exact", m, m, ev.left, ev.right)
    if s == ev.left:
        return _Ev("iso", m, ev.hi, ev.left, ev.right)
    return _Ev("iso", ev.lo, m, ev.left, ev.right)


def _rolle(g: Terms, h: Terms, h_events: list[_Ev], h_first: int) -> list[_Ev]:
    """The zero events of ``g`` from those of ``h = D_w g`` (``phi = exp(-w t) g`` is
    strictly monotone wherever ``h`` keeps one sign)."""
    dg = shifted_derivative(g, flint.fmpq(0))
    # turning events of h: where its sign changes, or undecided
    turning = [ev for ev in h_events if not (ev.kind != "und" and ev.left == ev.right)]
    out: list[_Ev] = []
    # region boundary on the left: (point or None for 0, sign of g there)
    a: flint.fmpq | None = None
    s_a = sign_near_zero_of(g)
    direction = h_first
    for T in turning:
        if T.kind == "iso":
            T = _settle_ends(g, h, T)
        if T.kind == "exact":
            c = T.lo
            sc = sign_at_point(g, c)
            out.extend(_region(g, a, s_a, c, sc, direction))
            if sc == 0:
                out.append(_Ev("exact", c, c, -T.left, -T.left))
            a, s_a, direction = c, sc, T.right
            continue
        lo, hi = T.lo, T.hi
        s_lo, s_hi = sign_at_point(g, lo), sign_at_point(g, hi)
        out.extend(_region(g, a, s_a, lo, s_lo, direction))
        if T.kind == "iso":
            out.extend(_turn(g, dg, h, T, s_lo, s_hi))
        else:
            out.extend(_undecided(g, dg, T, s_lo, s_hi, direction))
        a, s_a, direction = hi, s_hi, T.right
    out.extend(_region(g, a, s_a, None, sign_at_infinity_of(g), direction))
    return out


def _settle_ends(g: Terms, h: Terms, T: _Ev) -> _Ev:
    """Shrink a sign-changing event of ``h`` until ``g`` is non-zero at both ends."""
    for _ in range(200):
        if T.kind != "iso":
            return T
        if sign_at_point(g, T.lo) != 0 and sign_at_point(g, T.hi) != 0:
            return T
        T = _refine_h(h, T)
    raise UndecidedSignError("exp_poly: could not separate a zero of f from a critical point")


def _region(g: Terms, a: flint.fmpq | None, s_a: int, b: flint.fmpq | None, s_b: int,
            direction: int) -> list[_Ev]:
    """Zero events of ``g`` strictly inside a region where ``phi`` is strictly monotone
    (``direction`` the sign of ``phi'``), from ``a`` (None: 0, ``s_a`` the sign at 0+) to
    ``b`` (None: oo, ``s_b`` the sign at oo): one zero iff the end signs differ. An
    infinite end is replaced by a rational point of the same sign (halving towards 0,
    doubling towards oo: the signs near 0+ and near oo are attained)."""
    if s_a == 0 or s_b == 0 or s_a == s_b:
        return []
    lo, hi = a, b
    if lo is None and hi is None:
        x = flint.fmpq(1)
        s = sign_at_point(g, x)
        if s == 0:
            return [_Ev("exact", x, x, s_a, s_b)]
        lo, hi = (x, None) if s == s_a else (None, x)
    if lo is None:
        assert hi is not None
        x = hi / 2
        while True:
            s = sign_at_point(g, x)
            if s == 0:
                return [_Ev("exact", x, x, s_a, s_b)]
            if s == s_a:
                lo = x
                break
            hi, x = x, x / 2
    if hi is None:
        x = 2 * lo
        while True:
            s = sign_at_point(g, x)
            if s == 0:
                return [_Ev("exact", x, x, s_a, s_b)]
            if s == s_b:
                hi = x
                break
            lo, x = x, 2 * x
    return [_Ev("iso", lo, hi, s_a, s_b)]


def _turn(g: Terms, dg: Terms, h: Terms, T: _Ev, s_lo: int, s_hi: int) -> list[_Ev]:
    """Zeros of ``g`` across one sign change of ``h`` in ``(T.lo, T.hi)``: ``phi`` has one
    strict extremum there (a maximum when ``h`` goes from + to -)."""
    if s_lo != s_hi:
        return [_Ev("iso", T.lo, T.hi, s_lo, s_hi)]
    s = s_lo
    is_max = T.left > 0
    if (is_max and s > 0) or (not is_max and s < 0):
        return []  # the extremum is on the far side of 0
    lo, hi = T.lo, T.hi
    while True:
        enc = mean_value_enclosure(g, dg, lo, hi)
        if enc > 0 or enc < 0:
            return []
        if _narrow(lo, hi, UNDECIDED_BITS):
            return [_tangency(g, lo, hi, s) or _Ev("und", lo, hi, s, s)]
        m = (lo + hi) / 2
        sg = sign_at_point(g, m)
        sh = sign_at_point(h, m)
        if sh == 0:  # the extremum exactly at m
            if sg == 0:
                return [_Ev("exact", m, m, s, s)]
            if sg == s:
                return []
            return [_Ev("iso", lo, m, s, -s), _Ev("iso", m, hi, -s, s)]
        if sg == -s:
            return [_Ev("iso", lo, m, s, -s), _Ev("iso", m, hi, -s, s)]
        if sg == 0:  # g vanishes at m, off the extremum: a simple zero at m, another beyond
            if sh == T.left:  # m left of the extremum: the other zero is in (m, hi)
                return [_Ev("exact", m, m, s, -s), _Ev("iso", m, hi, -s, s)]
            return [_Ev("iso", lo, m, s, -s), _Ev("exact", m, m, -s, s)]
        if sh == T.left:
            lo = m
        else:
            hi = m


def _tangency(g: Terms, lo: flint.fmpq, hi: flint.fmpq, s: int) -> _Ev | None:
    """An exact tangential zero in ``[lo, hi]``, or None. At an algebraic ``r != 0``,
    ``g(r) = g'(r) = 0`` iff ``(t - r)^2`` divides every ``p_k`` (Lindemann-Weierstrass),
    i.e. ``r`` is a multiple root of ``G = gcd(p_k)``: decided when exactly one such root
    lies in ``[lo, hi]`` (rational: the exact point; else its isolating interval and
    polynomial)."""
    G = g[0][1]
    for _, p in g[1:]:
        G = G.gcd(p)
    if G.degree() < 2:
        return None
    D = G.gcd(G.derivative())  # its roots are the multiple roots of G
    if D.degree() < 1:
        return None
    t = sympy.Dummy("t")
    S = sympy.Poly([sympy.Rational(int(c.p), int(c.q)) for c in reversed(D.coeffs())], t,
                   domain="QQ").sqf_part()
    a0, b0 = sympy.Rational(int(lo.p), int(lo.q)), sympy.Rational(int(hi.p), int(hi.q))
    found = S.intervals(inf=a0, sup=b0)
    if len(found) != 1:
        return None
    (a, b), _ = found[0]
    qa, qb = flint.fmpq(int(a.p), int(a.q)), flint.fmpq(int(b.p), int(b.q))
    if qa == qb:
        return _Ev("exact", qa, qb, s, s)
    coeffs = tuple(Fraction(int(c.p), int(c.q)) for c in reversed(S.all_coeffs()))
    return _Ev("alg", qa, qb, s, s, coeffs)


def _undecided(g: Terms, dg: Terms, T: _Ev, s_lo: int, s_hi: int,
               direction: int) -> list[_Ev]:
    """``g`` on an interval where ``h``'s zeros are undecided: no zero if the enclosures of
    ``g`` on 16 pieces all exclude 0 with one sign, else undecided."""
    lo, hi = T.lo, T.hi
    pieces = 16
    step = (hi - lo) / pieces
    signs = set()
    for i in range(pieces):
        enc = mean_value_enclosure(g, dg, lo + i * step, lo + (i + 1) * step)
        if enc > 0:
            signs.add(1)
        elif enc < 0:
            signs.add(-1)
        else:
            signs.add(0)
    if signs == {1} or signs == {-1}:
        return []
    left = s_lo if s_lo != 0 else -direction
    right = s_hi if s_hi != 0 else T.right
    return [_Ev("und", lo, hi, left, right)]
