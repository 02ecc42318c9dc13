"""Released values coupled only through the least of them (SVT3 with ``c >= 2``): the exact
supremum of the log density ratio over several released values, on a few lines.

A run of this shape (:func:`min_coupled`) releases ``k >= 2`` values ``v_m = c_m + z_m``,
each ``z_m`` a Laplace noise of scale ``b_m`` used by no other released value and by one
comparison only, ``v_m >= kappa_m + rho`` (or ``>``), with one shared noise ``rho`` for
every ``m``; every noise of the run is Laplace. Conditioning on the released values
(``z_m = v_m - c_m``, Jacobian 1) leaves the comparisons ``rho <= v_m - kappa_m``, that is
``rho <= s(v) = min_m (v_m - kappa_m)``, and the density factorises as

.. math:: f(v) = \\prod_m \\frac{e^{-|v_m - c_m| / b_m}}{2 b_m} \\, H(s(v)),

``H(s)`` the integral of the other noises' densities over the rest of the run's event with
``rho <= s`` (continuous and positive: every law is Laplace). For two inputs with the same
``kappa`` and ``b`` the log ratio is ``L(v) = sum_m phi_m(v_m) + psi(s(v))`` with
``phi_m(w) = (|w - c'_m| - |w - c_m|) / b_m``: a clamped ramp, monotone, constant for
``w >= W_m = max(c_m, c'_m)``. On the region where ``m*`` attains the minimum, for fixed
``s`` each other ``v_m`` ranges over ``[s + kappa_m, oo)``, where the supremum (and the
infimum) of the monotone ``phi_m`` is at ``s + kappa_m`` or at any ``w >= W_m``. So
``sup L`` and ``sup -L`` are their suprema over the union of the *lines*

.. math:: v_m = t + \\kappa_m \\ (m \\in S), \\qquad v_m = W_m \\ (m \\notin S),

over the nonempty sets ``S`` of free coordinates (``2**k - 1`` lines; ``k = 2``: the
diagonal and one line with each value fixed): a point with ``s + kappa_m > W_m`` for
some fixed ``m`` gives the value of the line where ``m`` is free. Every point of a line is
an output, so each line's supremum is at most the pattern's: the two are equal. On a line
the densities are one-variable exponential sums on cells
(:mod:`exactdp.programs.release_cells`), and the supremum is the one-value pattern's
problem: the cells' ends, their limits at infinity and the interior critical points
(:mod:`exactdp.programs.release_sup`), exact. ``L`` is continuous, so a value at a finite
point of a line is attained (the essential supremum over a neighbourhood of it).

References
----------
M. Lyu, D. Su and N. Li, "Understanding the Sparse Vector Technique for Differential
Privacy", PVLDB 10(6), 2017 (Algorithm 3). The change of variables for densities: W.
Feller, *An Introduction to Probability Theory and Its Applications II*, 1971, section I.2.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from .release_cells import VPoly, cells
from .release_density import affine
from .release_sup import simplest
from .runs import Run


@dataclass(frozen=True)
class MinCoupled:
    """A run of the shape of the module docstring.

    Attributes
    ----------
    centres : tuple of Fraction
        ``c_m``: each released value's constant.
    offsets : tuple of Fraction
        ``kappa_m``: the comparison ``v_m - rho - kappa_m >= 0`` of each released value.
    scales : tuple of Fraction
        ``b_m``: the scale of each released value's noise.
    """

    centres: tuple[Fraction, ...]
    offsets: tuple[Fraction, ...]
    scales: tuple[Fraction, ...]


def _scale(run: Run, i: int) -> Fraction | None:
    d = run.draws[i] if 0 <= i < len(run.draws) else None
    if d is None or d.index != i or d.law != "laplace" or not d.scale.is_Rational:
        return None
    return Fraction(int(d.scale.p), int(d.scale.q))


def min_coupled(run: Run) -> MinCoupled | None:
    """The :class:`MinCoupled` of ``run``, or None when it is not of that shape.

    Examples
    --------
    >>> from exactdp.programs import library_release as L
    >>> from exactdp.programs.runs import REAL
    >>> d = L.svt3(epsilon=1, threshold=1, c=2).distribution([3, 1])
    >>> m = min_coupled(d.runs[d.keys[d.outputs.index((REAL, REAL))]][0])
    >>> [str(x) for x in m.centres], [str(x) for x in m.offsets], [str(x) for x in m.scales]
    (['3', '1'], ['1', '1'], ['4', '4'])
    """
    if run.weight != 1 or len(run.released) < 2 or any(
            d.law != "laplace" for d in run.draws):
        return None
    noises, centres = [], []
    for lin in run.released:
        coef, const = affine(lin)
        if len(coef) != 1 or next(iter(coef.values())) != 1:
            return None
        noises.append(next(iter(coef)))
        centres.append(const)
    if len(set(noises)) != len(noises):
        return None
    offsets: dict[int, Fraction] = {}
    shared: set[int] = set()
    for con in run.constraints:
        coef, const = affine(con.expr)
        mine = [i for i in coef if i in noises]
        if not mine:
            continue
        rest = [i for i in coef if i not in noises]
        if con.relation not in (">=", ">") or len(mine) != 1 or len(rest) != 1 or (
                coef[mine[0]] != 1 or coef[rest[0]] != -1 or mine[0] in offsets):
            return None
        shared.add(rest[0])
        # c_m + z_m - rho - kappa_m = z_m - rho + const
        offsets[mine[0]] = centres[noises.index(mine[0])] - const
    if len(shared) != 1 or set(offsets) != set(noises):
        return None
    scales = [_scale(run, i) for i in noises]
    if any(s is None for s in scales):
        return None
    return MinCoupled(tuple(centres), tuple(offsets[i] for i in noises),
                      tuple(s for s in scales if s is not None))


def lines(p: MinCoupled, o: MinCoupled) -> list[tuple[tuple[Fraction, Fraction], ...]]:
    """The lines of the module docstring, each as ``(slope, constant)`` per released value
    (``v_m = slope t + constant``), the diagonal first; ``t`` is the first free value."""
    k = len(p.centres)
    far = [max(a, b) for a, b in zip(p.centres, o.centres, strict=True)]
    out = []
    for size in range(k, 0, -1):
        for free in itertools.combinations(range(k), size):
            base = p.offsets[free[0]]
            out.append(tuple((Fraction(1), p.offsets[m] - base) if m in free
                             else (Fraction(0), far[m]) for m in range(k)))
    return out


def _line_text(line: tuple[tuple[Fraction, Fraction], ...]) -> str:
    def one(slope: Fraction, const: Fraction) -> str:
        if not slope:
            return str(const)
        return "v" if not const else f"v {'+' if const > 0 else '-'} {abs(const)}"

    return "(" + ", ".join(one(*x) for x in line) + ")"


def _at(line: tuple[tuple[Fraction, Fraction], ...], t: Fraction) -> str:
    return "(" + ", ".join(str(a * t + b) for a, b in line) + ")"


def _witness(c: Any, line: tuple[tuple[Fraction, Fraction], ...], cell: Any, label: str
             ) -> Any:
    """A line's candidate with its output named: the values at a finite end or at a point
    of a cell of constant ratio (attained: the densities are continuous), else the line
    and the text of the one-value route."""
    at = c.at
    if at is None and c.attained and c.exact is not None and "(a constant ratio)" in c.witness:
        lo, hi = cell.lo, cell.hi
        if lo is not None and hi is not None:
            at = simplest(lo + (hi - lo) / 4, hi - (hi - lo) / 4)
        else:
            at = Fraction(math.floor(lo)) + 1 if lo is not None else (
                Fraction(math.ceil(hi)) - 1 if hi is not None else Fraction(0))
    if at is not None:
        return replace(c, attained=True, witness=f"{label} with the values {_at(line, at)}",
                       at=None)
    where = c.witness[len(label):]
    for old, new in (("the value in", "v in"), ("the value at", "v at"),
                     ("the value ->", "v ->"), ("the value", "v =")):
        where = where.replace(old, new)
    return replace(c, witness=f"{label} on the values {_line_text(line)}{where}", at=None)


def min_candidates(runs_p: Sequence[Run], runs_q: Sequence[Run], label: str, func: str,
                   tools: Any) -> list[Any] | None:
    """The candidates of the pattern's supremum on the lines of :func:`lines` (every cell
    end, limit and interior critical point: exact), or None when the runs are not one
    :class:`MinCoupled` each with equal offsets and scales.

    Raises
    ------
    ValueError
        A critical point that was not isolated (the caller keeps its bracket).
    """
    if len(runs_p) != 1 or len(runs_q) != 1:
        return None
    p, o = min_coupled(runs_p[0]), min_coupled(runs_q[0])
    if p is None or o is None or (p.offsets, p.scales) != (o.offsets, o.scales):
        return None
    out: list[Any] = []
    for line in lines(p, o):
        holder: dict[str, Any] = {}

        def compute(v: VPoly, line: tuple = line, holder: dict = holder) -> tuple[dict, dict]:
            vals = tuple(v * a + b if a else b for a, b in line)
            holder["unit"], f = tools.density(list(runs_p), vals, func)
            return f, tools.density(list(runs_q), vals, func)[1]

        for cell in cells(compute, func):
            lam = tools.lam(holder["unit"], func)
            f, g = (tools.terms(r, lam) for r in cell.result)
            out += [_witness(c, line, cell, label)
                    for c in tools.cell(f, g, lam, cell.lo, cell.hi, label, func, "all")]
    return out
