"""The law of one released value as a piecewise exponential polynomial in that value.

The density of a run's released values at rational points is
:func:`~exactdp.programs.release_density.run_density`; run with the released value ``v`` as
a polynomial (:data:`~exactdp.programs.release_cells.V`), the same computation gives the
density as a function of ``v`` on each cell of :func:`~exactdp.programs.release_cells.cells`:
``sum p(v) lam**e exp(lam (k v + w))`` (``p`` a polynomial with rational coefficients, ``k``
and ``w`` rational, ``lam`` the runs' unit, a number or a symbol). For the ``i``-th released
value of a pattern the runs keep only that value (the others are integrated out with the
rest of the noises: the density of the marginal of ``R_i`` on the pattern's event), and

- its *CDF* ``Pr[R_i <= v, pattern]`` on the cell ``(lo, hi)`` is its value at ``lo`` plus
  the exact antiderivative ``A`` of the density minus ``A(lo)``: for ``c = lam k != 0``,
  ``int v**j exp(c v) dv = exp(c v) sum_{m <= j} (-1)**m j!/(j - m)! v**(j - m) / c**(m + 1)``
  (a power ``lam**(e - m - 1)``), for ``k = 0`` a polynomial; from ``-oo`` every term must
  decay (``k > 0``: ``lam > 0``), and the CDF at ``+oo`` is the pattern's probability;
- :class:`ValueLaw` turns the cells into a sympy ``Piecewise`` of ``v`` (:meth:`ValueLaw.
  expr`), or evaluates them at many points at once: numpy (:meth:`ValueLaw.floats`, one
  vectorised sum per cell) or mpmath (:meth:`ValueLaw.mp`).

No float enters the exact forms: the cells' ends, the exponents and the coefficients are
Fractions; the float and mpmath evaluations read them once.

References
----------
The antiderivative of ``v**j exp(c v)`` (repeated integration by parts): M. Abramowitz and
I. A. Stegun, *Handbook of Mathematical Functions*, 1964, 4.2.55 and 29.3; the marginal
density and the change of variables: W. Feller, *An Introduction to Probability Theory and
Its Applications II*, 1971, section I.2.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from typing import Any

import mpmath
import numpy as np
import sympy

from .._validate import argument_error
from ..cost import check_seconds
from ..exact.piecewise_exp import Value, value_expr
from ..progress import start_line
from .integrate import run_cost
from .release_cells import VPoly, cells
from .release_density import run_density
from .release_patterns import real_count
from .runs import Run

#: ``{(e, k, w): p}``: ``sum p(v) lam**e exp(lam (k v + w))``, ``p`` its coefficients (low
#: degree first, Fractions).
Terms = dict[tuple[int, Fraction, Fraction], tuple[Fraction, ...]]

_ZERO = Fraction(0)


def _trim(p: Sequence[Fraction]) -> tuple[Fraction, ...]:
    out = list(p)
    while out and out[-1] == 0:
        out.pop()
    return tuple(out)


def _iadd(out: Terms, key: tuple[int, Fraction, Fraction], p: Sequence[Fraction],
          s: int = 1) -> None:
    """``out[key] += s p`` in place (a polynomial that cancels is dropped)."""
    old = out.get(key)
    if old is None:  # the common case: a new key
        t = _trim(p if s == 1 else [s * c for c in p])
        if t:
            out[key] = t
        return
    q = list(old)
    q += [_ZERO] * (len(p) - len(q))
    for j, c in enumerate(p):
        q[j] += s * c
    t = _trim(q)
    if t:
        out[key] = t
    else:
        out.pop(key, None)


def add(a: Terms, b: Terms, s: int = 1) -> Terms:
    """``a + s b`` (terms whose polynomial cancels are dropped).

    Parameters
    ----------
    a, b : Terms
    s : int, default 1

    Returns
    -------
    Terms
        A new mapping (``a`` is not modified).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> add({(0, F(1), F(0)): (F(1),)}, {(0, F(1), F(0)): (F(1), F(2))}, -1)
    {(0, Fraction(1, 1), Fraction(0, 1)): (Fraction(0, 1), Fraction(-2, 1))}
    """
    out = dict(a)
    for key, p in b.items():
        _iadd(out, key, p, s)
    return out


def from_value(value: dict) -> Terms:
    """A density value of :func:`~exactdp.programs.release_density.run_density` computed at
    ``V`` (exponents and coefficients :class:`~exactdp.programs.release_cells.VPoly` or
    Fractions) as :data:`Terms`.

    Parameters
    ----------
    value : dict
        ``{(e, W): q}``, ``sum q lam**e exp(lam W)`` with ``W = k v + w`` and ``q`` a
        polynomial in ``v``.

    Returns
    -------
    Terms
    """
    out: Terms = {}
    for (e, w), q in value.items():
        wp = VPoly.lift(w).c
        k = wp[1] if len(wp) > 1 else _ZERO
        _iadd(out, (e, k, wp[0] if wp else _ZERO), VPoly.lift(q).c)
    return out


def primitive(f: Terms) -> Terms:
    """An antiderivative of ``f`` in ``v`` (module docstring; Abramowitz and Stegun 4.2.55).

    Parameters
    ----------
    f : Terms

    Returns
    -------
    Terms
        ``A`` with ``A' = f`` (for ``k != 0`` the terms of ``A`` decay where ``f``'s do).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> A = primitive({(0, F(2), F(0)): (F(0), F(1))})  # v exp(2 lam v)
    >>> A[(-1, F(2), F(0))], A[(-2, F(2), F(0))]  # v/(2 lam) - 1/(4 lam**2), times exp
    ((Fraction(0, 1), Fraction(1, 2)), (Fraction(-1, 4),))
    """
    out: Terms = {}
    for (e, k, w), p in f.items():
        if k == 0:
            _iadd(out, (e, k, w), (_ZERO, *(c / (j + 1) for j, c in enumerate(p))))
            continue
        for j, c in enumerate(p):
            for m in range(j + 1):  # (-1)^m j!/(j-m)! v^(j-m) / (lam k)^(m+1)
                coef = c * (-1) ** m * Fraction(math.perm(j, m)) / k ** (m + 1)
                poly = (_ZERO,) * (j - m) + (coef,)
                _iadd(out, (e - m - 1, k, w), poly)
    return out


def at(f: Terms, x: Fraction) -> Terms:
    """``f(x)`` at a rational ``x``: constant terms ``(e, 0, k x + w)``.

    Parameters
    ----------
    f : Terms
    x : Fraction

    Returns
    -------
    Terms
        Constant in ``v`` (every ``k`` 0, every polynomial of degree 0).
    """
    out: Terms = {}
    for (e, k, w), p in f.items():
        val = sum((c * x**j for j, c in enumerate(p)), _ZERO)
        if val:
            _iadd(out, (e, _ZERO, k * x + w), (val,))
    return out


def _decays(f: Terms, side: int) -> bool:
    """Whether every term of ``f`` tends to 0 as ``v -> side * oo`` (``lam > 0``)."""
    return all(k * side < 0 for (_, k, _) in f)


@dataclass(frozen=True)
class LawPiece:
    """The law on the open cell ``(lo, hi)`` (None: infinite): the density and
    ``Pr[R <= v, pattern]``."""

    lo: Fraction | None
    hi: Fraction | None
    density: Terms
    cdf: Terms


@dataclass(frozen=True)
class ValueLaw:
    """The density and CDF of one released value on its cells, with the pattern's
    probability ``mass`` (the CDF at ``+oo``): :meth:`expr`, :meth:`floats`, :meth:`mp`
    give the density (``which`` 0) or the conditional CDF ``Pr[R <= v | pattern]``
    (``which`` 1)."""

    unit: sympy.Expr
    pieces: tuple[LawPiece, ...]
    mass: Terms

    def _terms(self, piece: LawPiece, which: int) -> Terms:
        return piece.density if which == 0 else piece.cdf

    def term_expr(self, f: Terms, v: sympy.Expr) -> sympy.Expr:
        """``f`` as a sympy expression of ``v``: per slope ``k``, ``exp(lam k v)`` times a
        polynomial in ``v`` whose coefficients are exact values ``sum q lam**e exp(lam w)``
        (:func:`~exactdp.exact.piecewise_exp.value_expr`, built in bulk)."""
        lam = self.unit
        groups: dict[Fraction, dict[int, Value]] = {}
        for (e, k, w), p in f.items():
            by_power = groups.setdefault(k, {})
            for j, c in enumerate(p):
                if c:
                    val = by_power.setdefault(j, {})
                    val[(e, w)] = val.get((e, w), _ZERO) + c
        out = []
        for k in sorted(groups):
            poly = sympy.Add(*[value_expr(val, lam) * v**j
                               for j, val in sorted(groups[k].items())])
            out.append(poly if k == 0 else poly * sympy.exp(lam * _rational(k) * v))
        return sympy.Add(*out)

    def expr(self, which: int, v: sympy.Symbol) -> sympy.Expr:
        """The conditional density or CDF given the pattern (divided by :attr:`mass`) as a
        sympy ``Piecewise`` of ``v`` (``v < hi`` on each cell: at a cell end the right
        cell's form)."""
        mass = self.term_expr(self.mass, v)
        args = []
        for piece in self.pieces:
            e = self.term_expr(self._terms(piece, which), v)
            e = e if mass == 1 else e / mass
            if piece.hi is None:
                args.append((e, True))
            else:
                args.append((e, v < _rational(piece.hi)))
        return sympy.Piecewise(*args)

    def piece_at(self, x: Fraction) -> LawPiece:
        """The cell holding ``x`` (at a cell end the right one)."""
        return next(p for p in self.pieces if p.hi is None or x < p.hi)

    def floats(self, which: int, points: np.ndarray) -> np.ndarray:
        """The density or the conditional CDF in float64 at ``points`` (any shape; the CDF
        clipped to [0, 1])."""
        lam = float(self.unit)
        x = np.asarray(points, dtype=np.float64)
        flat, out = x.ravel(), np.zeros(x.size)
        mass = _float_terms(self.mass, np.zeros(1), lam)[0]
        for piece in self.pieces:
            mask = np.ones(flat.size, dtype=bool)
            if piece.lo is not None:
                mask &= flat >= float(piece.lo)
            if piece.hi is not None:
                mask &= flat < float(piece.hi)
            if mask.any():
                vals = _float_terms(self._terms(piece, which), flat[mask], lam)
                # far out on an infinite cell (0 * inf): the limit, 0 or the mass
                tail = mass if which == 1 and piece.hi is None else 0.0
                out[mask] = np.where(np.isnan(vals), tail, vals)
        out = out / mass
        if which == 1:
            out = np.clip(out, 0.0, 1.0)
        return out.reshape(x.shape)

    def mp(self, which: int, x: mpmath.mpf) -> mpmath.mpf:
        """The density or the conditional CDF in mpmath at ``x`` (working precision)."""
        lam = mpmath.mpf(sympy.N(self.unit, mpmath.mp.dps + 10))
        piece = next(p for p in self.pieces if p.hi is None or x < _mpq(p.hi))
        val = _mp_terms(self._terms(piece, which), x, lam)
        return val / _mp_terms(self.mass, mpmath.mpf(0), lam)


def _rational(x: Fraction) -> sympy.Rational:
    return sympy.Rational(x.numerator, x.denominator)


def _mpq(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _float_terms(f: Terms, x: np.ndarray, lam: float) -> np.ndarray:
    total = np.zeros(x.size)
    with np.errstate(over="ignore", invalid="ignore"):
        for (e, k, w), p in f.items():
            poly = np.polynomial.polynomial.polyval(x, [float(c) for c in p])
            total += poly * lam**e * np.exp(lam * (float(k) * x + float(w)))
    return total


def _mp_terms(f: Terms, x: mpmath.mpf, lam: mpmath.mpf) -> mpmath.mpf:
    return mpmath.fsum(mpmath.polyval([_mpq(c) for c in reversed(p)], x) * lam**e
                       * mpmath.exp(lam * (_mpq(k) * x + _mpq(w))) for (e, k, w), p in f.items())


def law_seconds(runs: Sequence[Run]) -> float:
    """Estimated seconds of :func:`runs_law`: one density of the runs per cell, at most
    one cell per comparison and draw plus one (each density about its run's integral,
    :func:`~exactdp.programs.integrate.run_cost`). Measured on the noisy maximum of 12
    irregular scores: 4.1 s estimated for 2.6 s CPU; 16: 74 s for about 60 s.

    Parameters
    ----------
    runs : sequence of Run

    Returns
    -------
    float
    """
    return sum((len(r.constraints) + len(r.draws) + 1) * run_cost(r) for r in runs)


def runs_law(runs: Sequence[Run], func: str) -> ValueLaw:
    """The law of the one released value of ``runs`` (a pattern's runs, each releasing
    it) on its cells (module docstring).

    Parameters
    ----------
    runs : sequence of Run
        Runs of one pattern, each with one released value (the same one).
    func : str
        The calling function, named in errors.

    Returns
    -------
    ValueLaw

    Raises
    ------
    ValueError
        A run with a coin beside the released value, a density that does not decay at
        an infinite end, the engine's one-line refusals (outside the exact class of
        released values, the cost model).
    """
    seconds = law_seconds(runs)
    check_seconds(func, f"the law of a released value over {len(runs)} runs", seconds,
                  "its density or CDF at rational points")
    start_line(func, None, seconds)  # a line on a pipe past LINE_SECONDS (no bar: one loop)
    if any(r.weight != 1 for r in runs):
        raise ValueError(f"{func}: a run with a coin (bernoulli) beside released values: "
                         "no piecewise law in this version")
    unit: list[sympy.Expr] = [sympy.Integer(1)]

    def density(v: VPoly) -> Terms:
        total: Terms = {}
        point: tuple[Any, ...] = (v,)  # the value as a polynomial (release_cells)
        for j, run in enumerate(runs):
            lam, val = run_density(run, point, run.draws[0].line if run.draws else func)
            if j and lam != unit[0]:
                raise ValueError(f"{func}: the runs' noise units differ ({unit[0]}, {lam}): "
                                 "no piecewise law in this version")
            unit[0] = lam
            for key, p in from_value(val).items():
                _iadd(total, key, p)
        return total

    found = cells(density, func)
    pieces: list[LawPiece] = []
    below: Terms = {}
    for cell in found:
        f, A = cell.result, primitive(cell.result)
        if cell.lo is None:
            if not _decays(f, -1):
                raise ValueError(f"{func}: the density does not decay as the value -> -oo")
            cdf = A
        else:
            cdf = add(add(below, A), at(A, cell.lo), -1)
        if cell.hi is None and not _decays(f, 1):
            raise ValueError(f"{func}: the density does not decay as the value -> +oo")
        pieces.append(LawPiece(cell.lo, cell.hi, f, cdf))
        below = at(cdf, cell.hi) if cell.hi is not None else below
    mass = add(below, at(primitive(found[-1].result), found[-1].lo), -1) \
        if found[-1].lo is not None else {}
    if not mass:
        raise ValueError(f"{func}: the pattern has probability 0: its value has no law")
    return ValueLaw(unit[0], tuple(pieces), mass)


@lru_cache(maxsize=64)
def pattern_law(dist: Any, key: Hashable, i: int, func: str) -> ValueLaw:
    """The law of the ``i``-th released value of the pattern ``key`` of a release
    program's distribution (:class:`~exactdp.programs.release.ProgramRelease`; cached).

    Parameters
    ----------
    dist : ProgramRelease
    key : hashable
        A pattern key (``dist.keys``).
    i : int
        Which released value of the pattern (in the order of its ``REAL`` placeholders).
    func : str
        The calling function, named in errors.

    Returns
    -------
    ValueLaw

    Raises
    ------
    ValueError
        ``i`` not a released value of the pattern; :func:`runs_law`'s refusals.

    Examples
    --------
    >>> import sympy
    >>> from exactdp.programs import library_release as L
    >>> d = L.laplace_mechanism(epsilon=1).distribution([0])
    >>> pattern_law(d, d.keys[0], 0, "f").expr(1, sympy.Symbol("v"))
    Piecewise((exp(v)/2, v < 0), (1 - exp(-v)/2, True))
    """
    count = real_count(dist.outputs[dist.keys.index(key)])
    if not (isinstance(i, int) and not isinstance(i, bool) and 0 <= i < count):
        raise argument_error(func, "i", f"a released value of the pattern (0..{count - 1})", i)
    runs = [replace(r, released=(r.released[i],)) for r in dist.runs[key]]
    return runs_law(runs, func)
