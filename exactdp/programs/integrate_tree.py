"""The exact probability of one tree of comparisons, integrated leaf first.

A component of a run whose comparison graph is a *tree* (no cycle; a star is the tree of
depth one, a chain such as ``topk``'s ``v_w1 >= v_w2 >= ... >= v_wk >= the rest`` is
another) of Laplace and exponential draws (:class:`~exactdp.programs.integrate_plan.Tree`)
is integrated from its leaves up: each draw ``v`` with parent ``p`` sends up its *message*

.. math:: m_v(z) = \\int_{L_v(z)}^{U_v(z)} f_v(x) \\prod_{c \\text{ child of } v} m_c(x)\\, dx,

``L_v`` the largest and ``U_v`` the smallest of the bounds that the comparisons with the
parent (and with constants) put on ``v``, affine in the parent's value ``z``. The root's
message (all its bounds constant) is the probability. Every function met is *piecewise
exponential-polynomial*: between sorted breakpoints a finite sum of ``q lam**e z**m
exp(lam (r z + w))`` (:data:`Func`), with Fraction ``r, w, q``; products stay in the
class, and the antiderivative is closed form,

.. math:: \\int z^m e^{a z} dz = e^{a z} \\sum_{j=0}^{m} (-1)^j \\frac{m!}{(m-j)!}
          \\frac{z^{m-j}}{a^{j+1}} \\quad (a \\ne 0), \\qquad \\frac{z^{m+1}}{m+1} \\quad (a = 0),

so ``m_v = G(U_v(z)) - G(L_v(z))`` with ``G`` the antiderivative of the integrand that
vanishes at ``-oo`` (continued across breakpoints), composed with the affine bounds
(binomial expansion of ``(s z + o)**m``). The result is a :data:`~exactdp.exact.piecewise_exp.Value`
``sum q lam**e exp(lam W)``. Stars keep their own engine
(:mod:`exactdp.programs.integrate_stars`); this one runs on components that are not stars.

References
----------
The antiderivative: Abramowitz and Stegun, *Handbook of Mathematical Functions*, 4.2.1 and
integration by parts. Leaf-first (variable elimination) integration over a tree: the sum-
product recursion of graphical models (e.g. Koller and Friedman, *Probabilistic Graphical
Models*, 2009, section 9.3), here with exact piecewise integrals.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from math import comb, factorial

from ..exact.piecewise_exp import Value, add_term
from .integrate_plan import Bound, Tree

#: A function of z: ``{(e, m, r, w): q}`` = ``sum q lam**e z**m exp(lam (r z + w))``.
Func = dict[tuple[int, int, Fraction, Fraction], Fraction]
#: A piecewise function: breakpoints ``b_1 < ... < b_K`` and ``K + 1`` pieces.
Piecewise = tuple[tuple[Fraction, ...], tuple[Func, ...]]

_ZERO = Fraction(0)


def func_mul(a: Func, b: Func) -> Func:
    """The product of two functions of z."""
    out: Func = {}
    for (e1, m1, r1, w1), q1 in a.items():
        for (e2, m2, r2, w2), q2 in b.items():
            add_term(out, (e1 + e2, m1 + m2, r1 + r2, w1 + w2), q1 * q2)
    return out


def antiderivative(f: Func) -> Func:
    """A function whose derivative in ``z`` is ``f`` (the closed form of the module
    docstring; ``lam**e`` loses ``j + 1`` powers for the ``z**(m - j)`` term)."""
    out: Func = {}
    for (e, m, r, w), q in f.items():
        if r == 0:
            add_term(out, (e, m + 1, r, w), q / (m + 1))
            continue
        for j in range(m + 1):
            c = q * (-1) ** j * Fraction(factorial(m), factorial(m - j)) / r ** (j + 1)
            add_term(out, (e - j - 1, m - j, r, w), c)
    return out


def compose(f: Func, s: Fraction, o: Fraction) -> Func:
    """``f(s z + o)`` as a function of z (``s = 0``: a constant)."""
    out: Func = {}
    for (e, m, r, w), q in f.items():
        for j in range(m + 1):  # (s z + o)**m = sum C(m, j) s**j o**(m - j) z**j
            c = q * comb(m, j) * s**j * o ** (m - j)
            if c:
                add_term(out, (e, j, r * s, r * o + w), c)
    return out


def constant(v: Value) -> Func:
    """The value ``sum q lam**e exp(lam W)`` as a constant function."""
    return {(e, 0, _ZERO, w): q for (e, w), q in v.items()}


def value_at(f: Func, x: Fraction) -> Value:
    """``f(x)`` as a value ``{(e, W): q}``."""
    out: Value = {}
    for (e, m, r, w), q in f.items():
        c = q * x**m
        if c:
            add_term(out, (e, r * x + w), c)
    return out


def _piece_at(breaks: tuple[Fraction, ...], x: Fraction) -> int:
    """The index of the piece holding ``x`` (``x`` not a breakpoint)."""
    return sum(1 for b in breaks if b < x)


def _test_points(breaks: list[Fraction]) -> list[Fraction]:
    if not breaks:
        return [_ZERO]
    mids = [(a + b) / 2 for a, b in zip(breaks[:-1], breaks[1:], strict=True)]
    return [breaks[0] - 1, *mids, breaks[-1] + 1]


def multiply(parts: list[Piecewise]) -> Piecewise:
    """The product of piecewise functions, on the union of their breakpoints."""
    breaks = sorted({b for bs, _ in parts for b in bs})
    pieces = []
    for t in _test_points(breaks):
        piece: Func = {(0, 0, _ZERO, _ZERO): Fraction(1)}
        for bs, ps in parts:
            piece = func_mul(piece, ps[_piece_at(bs, t)])
            if not piece:
                break
        pieces.append(piece)
    return tuple(breaks), tuple(pieces)


def density(law: str, t: Fraction) -> Piecewise:
    """The density of a Laplace or exponential draw of rate ``t * lam`` (location 0)."""
    if law == "laplace":
        return (_ZERO,), ({(1, 0, t, _ZERO): t / 2}, {(1, 0, -t, _ZERO): t / 2})
    return (_ZERO,), ({}, {(1, 0, -t, _ZERO): t})


def primitive(g: Piecewise) -> tuple[tuple[Func, ...], Value]:
    """The antiderivative ``G(x) = int_{-oo}^x g`` piece by piece, and ``G(+oo)``.

    Raises
    ------
    ArithmeticError
        ``g`` does not decay at an infinite end (not a valid integrand of the laws).
    """
    breaks, pieces = g
    if any(r <= 0 for (_, _, r, _) in pieces[0]) or any(r >= 0 for (_, _, r, _) in pieces[-1]):
        raise ArithmeticError("a tree integrand does not decay at an infinite end")
    out: list[Func] = []
    carry: Value = {}  # G at the left end of the current piece
    for i, piece in enumerate(pieces):
        a = antiderivative(piece)
        if i:
            shift: Value = dict(carry)
            for key, q in value_at(a, breaks[i - 1]).items():
                add_term(shift, key, -q)
            a = dict(a)
            for term, q in constant(shift).items():
                add_term(a, term, q)
        out.append(a)
        if i < len(breaks):
            carry = value_at(a, breaks[i])
    total: Value = {(e, w): q for (e, m, r, w), q in out[-1].items() if r == 0 and m == 0}
    return tuple(out), total


def message(g: Piecewise, bounds: tuple[Bound, ...]) -> Piecewise:
    """``int_{L(z)}^{U(z)} g(x) dx`` as a piecewise function of the parent's value ``z``
    (``L`` the largest lower bound, ``U`` the smallest upper bound, affine in ``z``)."""
    prims, total = primitive(g)
    gb = g[0]
    cuts: set[Fraction] = set()
    for i, b in enumerate(bounds):
        if b.slope:
            cuts.update((x - b.offset) / b.slope for x in gb)
        for b2 in bounds[:i]:
            if b2.slope != b.slope:
                cuts.add((b2.offset - b.offset) / (b.slope - b2.slope))
    breaks = sorted(cuts)
    lows = [b for b in bounds if b.lower]
    ups = [b for b in bounds if not b.lower]
    pieces: list[Func] = []
    for t in _test_points(breaks):
        lo = max(lows, key=lambda b: b.at(t)) if lows else None
        hi = min(ups, key=lambda b: b.at(t)) if ups else None
        if lo is not None and hi is not None and hi.at(t) <= lo.at(t):
            pieces.append({})
            continue
        f: Func = constant(total) if hi is None else compose(
            prims[_piece_at(gb, hi.at(t))], hi.slope, hi.offset)
        if lo is not None:
            f = dict(f)
            for k, q in compose(prims[_piece_at(gb, lo.at(t))], lo.slope, lo.offset).items():
                add_term(f, k, -q)
        pieces.append(f)
    return tuple(breaks), tuple(pieces)


def tree_value(tree: Tree, laws: list[str], rates: tuple[Fraction, ...]) -> Value:
    """The probability of ``tree`` (its draws' comparisons all hold), leaf first; the
    message of a subtree is cached by its shape (laws, rates and bounds), and so is the
    product of the leaf messages of a draw, so the runs of a ``topk`` that share their
    losers or their chain's tail share those integrals."""
    key: dict[int, tuple] = {}
    for v, parent, bounds in tree.nodes:  # children before parents; the root last
        key[v] = (laws[v], rates[v], tuple((b.slope, b.offset, b.lower) for b in bounds),
                  tuple(sorted((key.pop(c) for c in tree.children(v)), key=repr)))
        if parent is None:  # not cached: every run has its own root
            return total_integral(_integrand.__wrapped__(key[v]), bounds)
    raise AssertionError("a tree without a root")


def total_integral(g: Piecewise, bounds: tuple[Bound, ...]) -> Value:
    """``int g`` over the interval that the constant ``bounds`` leave (the root's)."""
    lo = max((b.offset for b in bounds if b.lower), default=None)
    hi = min((b.offset for b in bounds if not b.lower), default=None)
    if lo is not None and hi is not None and hi <= lo:
        return {}
    breaks, pieces = g
    ends = [lo, *(x for x in breaks if (lo is None or x > lo) and (hi is None or x < hi)), hi]
    out: Value = {}
    for a, b in zip(ends[:-1], ends[1:], strict=True):
        if a is None:
            t = _ZERO if b is None else b - 1
        else:
            t = a + 1 if b is None else (a + b) / 2
        piece = pieces[_piece_at(breaks, t)]
        if not piece:
            continue
        if (a is None and any(r <= 0 for (_, _, r, _) in piece)) or (
                b is None and any(r >= 0 for (_, _, r, _) in piece)):
            raise ArithmeticError("a tree integrand does not decay at an infinite end")
        prim = antiderivative(piece)
        for x, sgn in ((b, 1), (a, -1)):
            if x is not None:
                for k, q in value_at(prim, x).items():
                    add_term(out, k, sgn * q)
    return out


@lru_cache(maxsize=8192)
def _integrand(key: tuple) -> Piecewise:
    """The density of the subtree ``key = (law, rate, bounds, child keys)``'s top draw
    times its children's messages (the leaves' product cached apart)."""
    law: str
    rate: Fraction
    law, rate, _, kids = key
    leaves = tuple(k for k in kids if not k[3])
    parts = [density(law, rate), *(_message(k) for k in kids if k[3])]
    if leaves:
        parts.append(_leaf_product(leaves))
    return multiply(parts)


@lru_cache(maxsize=4096)
def _leaf_product(keys: tuple) -> Piecewise:
    return multiply([_message(k) for k in keys])


@lru_cache(maxsize=8192)
def _message(key: tuple) -> Piecewise:
    """The message of the subtree ``key`` to its parent."""
    bounds = tuple(Bound(s, o, lo, False, "") for s, o, lo in key[2])
    return message(_integrand(key), bounds)


def tree_terms(tree: Tree) -> float:
    """A rough count of the Fraction operations of :func:`tree_value` (the cost model's
    unit), from the sizes the functions reach, simulated without arithmetic: a draw's
    integrand has one piece per breakpoint of its children's messages (and of its
    density), with the product of their mean terms per piece and the sum of their
    polynomial degrees; its message has a piece per bound and integrand piece, and about
    twice the integrand's terms per piece (the antiderivative and the carried constant).
    Calibrated on ``topk`` chains (``docs/benchmarks.md``); the caches of shared subtrees
    make it an over-estimate when answers repeat."""
    size: dict[int, tuple[int, float, int]] = {}  # pieces, mean terms per piece, degree
    total = 0.0
    for v, parent, bounds in tree.nodes:
        kids = [size.pop(c) for c in tree.children(v)]
        pieces = 2 + sum(p - 1 for p, _, _ in kids)
        terms = min(math.prod(t for _, t, _ in kids), 1e12)
        degree = sum(d for _, _, d in kids)
        work = pieces * terms * (degree + 1) * (len(kids) + 3)
        if parent is None:
            return total + work
        out = (len(bounds) * (pieces - 1) + 1, 1.5 * terms * (1 + degree / 4), degree + 1)
        total += work + 2 * out[0] * out[1]
        size[v] = out
    raise AssertionError("a tree without a root")
