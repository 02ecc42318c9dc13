"""The limit of a density ratio at a cell end where both densities vanish.

At the edge of the support of one-sided noise (exponential noise: the released maximum
``v`` of scores ``a_i + E_i`` never falls below ``max a_i``) both densities of a pattern
may be 0 at a rational cell end ``e`` while both are positive inside the cell. Their
ratio's limit there is decided exactly from the orders of vanishing: an exponential
polynomial ``f(v) = sum_k p_k(v) exp(lam (k_k v + w_k))`` that is not identically zero
has at ``e`` a zero of finite order ``m`` (at most ``N - 1`` with ``N = sum_k (deg p_k +
1)``: the ``N`` functions ``v**j exp(c v)`` form a fundamental system of a linear ODE of
order ``N``, so a solution vanishing to order ``N`` is identically zero), and ``f(v) =
f^(m)(e) (v - e)**m / m! + O((v - e)**(m+1))`` (Taylor). For ``g`` of order ``n``:

- ``m < n``: ``f / g -> oo`` (the log ratio ``+oo``, not attained);
- ``m > n``: ``f / g -> 0`` (``-oo``, not attained);
- ``m = n``: ``f / g -> f^(m)(e) / g^(m)(e)``, a finite exact limit, not attained (both
  densities are 0 at ``e`` itself).

The derivatives are exact (:func:`~exactdp.programs.release_sup.derivative`) and a value
``f^(j)(e)`` is 0 exactly when its exponential sum's coefficients cancel exponent by
exponent (Lindemann and Weierstrass).

References
----------
E. A. Coddington, *An Introduction to Ordinary Differential Equations*, Prentice-Hall
1961, chapter 2 (constant-coefficient linear equations: the solutions ``v**j exp(c v)``
and uniqueness given ``N`` initial values). A. Baker, *Transcendental Number Theory*,
1975, Theorem 1.4 (Lindemann-Weierstrass).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import Any

import sympy

from ..exact.piecewise_exp import value_expr
from ..exact.signs import compare
from .release_sup import Terms, derivative, exact_at
from .run_canon import canonical


def vanishing_order(f: Terms, lam: Fraction, at: Fraction, func: str
                    ) -> tuple[int, sympy.Expr]:
    """``(m, f^(m)(at))``: the order of the zero of ``f`` at ``at`` and the first nonzero
    derivative there (exact; at most ``N - 1`` derivatives, module docstring)."""
    bound = sum(len(p) for p in f.values())
    g = f
    for m in range(bound):
        value = exact_at(g, at, lam)
        if value != 0:
            return m, value
        g = derivative(g, lam)
    raise ValueError(f"{func}: a density vanishes to order {bound} at the value {at}: "
                     "it is identically zero there (an inconsistent cell)")


def edge_limit(f: Terms, g: Terms, lam: Fraction, at: Fraction, side: int, func: str,
               label: str = "the pattern"
               ) -> tuple[int, tuple[sympy.Expr, sympy.Expr] | None, str]:
    """The limit of ``ln f / g`` as ``v -> at`` from the cell's side (``side`` +1: the
    cell lies above ``at``), where ``f(at) = g(at) = 0``: ``(+1 or -1, None, where)`` for
    ``+-oo``, else ``(0, (A, B), where)`` with ``A / B`` the limit of the ratio, both
    positive exact expressions; ``where`` names the limit (``label`` the pattern's).
    """
    where = f"{label} as the value -> {at} from {'above' if side > 0 else 'below'}"
    m, fm = vanishing_order(f, lam, at, func)
    n, gn = vanishing_order(g, lam, at, func)
    if m != n:
        return (1 if m < n else -1), None, where
    # both densities are positive inside the cell, so f^(m)(at) and g^(m)(at) share the
    # sign of side**m
    if compare(sympy.expand(fm), sympy.Integer(0)) < 0:
        fm, gn = -fm, -gn
    return 0, (fm, gn), where


def attained_ends(cands: list[Any], runs: tuple[Any, Any], label: str,
                  point: Callable[[Fraction, Any], sympy.Expr]) -> list[Any]:
    """Mark attained a finite cell end reached from one side only (the cell on its other
    side has both densities 0, or a constant ratio) where the densities at the end itself,
    ``point(end, runs[0])`` and ``point(end, runs[1])``, equal the limit pair exactly: the
    output with that value attains the limit (exponential noise: the support's edge ``v =
    max a_i``, where the densities are right-continuous). ``cands`` are
    :class:`~exactdp.programs.release_loss.Candidate`."""
    seen: dict[Fraction, int] = {}
    for c in cands:
        if c.at is not None:
            seen[c.at] = seen.get(c.at, 0) + 1
    out = list(cands)
    for i, c in enumerate(cands):
        if c.at is None or c.attained or seen[c.at] != 1 or c.exact is None:
            continue
        f, g = point(c.at, runs[0]), point(c.at, runs[1])
        if _equal(f, c.exact[0]) and _equal(g, c.exact[1]):
            out[i] = replace(c, attained=True, witness=f"{label} with the value {c.at}")
    return out


def _equal(a: sympy.Expr, b: sympy.Expr) -> bool:
    """``a == b`` exactly: the same expression (sympy's canonical sums, the usual case:
    no subtraction to build), else their difference expanded to 0."""
    return a == b or sympy.expand(a - b) == 0


def continuous_ends(cands: list[Any], label: str) -> list[Any]:
    """Mark a cell end attained where both densities are continuous across it (the limits
    from both sides equal, exactly): the output with that value attains the limit.
    ``cands`` are :class:`~exactdp.programs.release_select.Candidate`.

    The limits are :func:`~exactdp.programs.release_sup.exact_at`'s canonical sums
    ``sum c exp(x)`` (one term per exponent, no zero coefficient), so two are equal in
    value exactly when they are the same expression: the ``exp`` of distinct rationals are
    linearly independent over the rationals (Lindemann-Weierstrass).

    Parameters
    ----------
    cands : list of Candidate
        The candidates of the loss; those with a finite cell end ``at`` and an exact
        limit pair ``exact`` are read.
    label : str
        The pattern's words, in an attained candidate's witness.

    Returns
    -------
    list of Candidate
        ``cands`` in the same order, the two candidates of each end where the limits
        from both sides are equal replaced by attained ones (no enclosure).
    """
    ends: dict[Fraction, list[int]] = {}
    for i, c in enumerate(cands):
        if c.at is not None:
            ends.setdefault(c.at, []).append(i)
    out = list(cands)
    for at, (*idx,) in ends.items():
        if len(idx) != 2:
            continue
        (f1, g1), (f2, g2) = (cands[i].exact for i in idx)
        if f1 == f2 and g1 == g2:
            for i in idx:
                out[i] = replace(cands[i], enclosure=None, infinite=0, attained=True,
                                 witness=f"{label} with the value {at}", tighten=None,
                                 log=None)
    return out


#: :func:`point_density` by the renumbered runs (:func:`~exactdp.programs.run_canon.
#: canonical`, strict: the same event) and the value (at most 4096, then cleared).
_POINTS: dict[tuple, sympy.Expr] = {}


def point_density(runs: list[Any], v: Fraction, func: str, unit: sympy.Expr,
                  density: Callable[[list, tuple, str], tuple[Any, dict]]) -> sympy.Expr:
    """The density of the runs at the released value ``v``, exactly (``density``: the
    loss's, :func:`~exactdp.programs.release_loss.loss_supremum`; ``unit`` its noise unit),
    for :func:`attained_ends`; shared by runs equal up to a renumbering of their noises (a
    suite row's neighbours meet one pattern under many permutations).

    Parameters
    ----------
    runs : list of Run
        The runs of one pattern on one input.
    v : Fraction
        The released value.
    func : str
        The calling function, named in a refusal.
    unit : sympy.Expr
        The noise unit, the symbol of the density's exact expression.
    density : callable
        ``density(runs, values, func)`` returning a pair whose second item is the
        density's exact value at ``values``.

    Returns
    -------
    sympy.Expr
        The exact density of ``runs`` at ``v``.
    """
    keys = [canonical(r, strict=True) for r in runs]
    if any(k is None for k in keys):
        return value_expr(density(runs, (v,), func)[1], unit)
    memo = (tuple(k[1] for k in keys), v, unit)  # type: ignore[index]
    if memo not in _POINTS:
        if len(_POINTS) > 4096:
            _POINTS.clear()
        _POINTS[memo] = value_expr(density(runs, (v,), func)[1], unit)
    return _POINTS[memo]
