"""Proved bounds of ``|f(t)|`` on an interval: branch and bound with ball arithmetic.

No differential-privacy concepts here. :func:`abs_bound` proves ``|f(t)| <= target`` for
every ``t`` in a closed interval ``[lo, hi]``, or finds a point where ``|f| > target``, or
says it could not decide. The proof is a finite cover of the interval by boxes, each
certified by one of two facts:

- **enclosure**: interval evaluation of ``f`` on the box (:func:`exactdp.exact.arb.to_arb`
  with a ball for ``t``; every arb operation is an inclusion function, so the ball holds
  the range of ``f`` on the box) lies strictly inside ``(-target, target)``;
- **monotonicity**: the interval evaluation of ``f'`` (exact sympy derivative) excludes 0,
  so ``f`` is monotone on the box and ``|f| <= max(|f(a)|, |f(b)|)``; the two end values are
  compared with ``target`` exactly (:func:`exactdp.exact.signs.compare`). This covers boxes
  where ``|f|`` reaches ``target`` only at an end of the interval (a supremum approached at
  a limit), which no enclosure can separate.

Boxes that neither fact certifies are bisected, up to a budget.

References
----------
R. E. Moore, R. B. Kearfott and M. J. Cloud, *Introduction to Interval Analysis*, SIAM
2009, chapters 5-6 (inclusion functions, branch and bound for global optimisation).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import flint
import sympy

from .._validate import argument_error
from .arb import flint_prec, to_arb
from .signs import UndecidedSignError, compare


@dataclass(frozen=True)
class AbsBound:
    """Result of :func:`abs_bound`.

    Attributes
    ----------
    holds : bool or None
        True: proved ``|f(t)| <= target`` on the whole interval. False: ``witness`` is a
        point where ``|f| > target`` (proved exactly). None: undecided (see ``reason``).
    witness : sympy.Rational or None
    boxes : int
        Boxes examined.
    reason : str or None
        Why undecided.
    """

    holds: bool | None
    witness: sympy.Rational | None
    boxes: int
    reason: str | None = None


def _box(a: sympy.Rational, b: sympy.Rational) -> flint.arb:
    lo = flint.arb(flint.fmpq(int(a.p), int(a.q)))
    hi = flint.arb(flint.fmpq(int(b.p), int(b.q)))
    box = lo.union(hi)
    return box.nonnegative_part() if a >= 0 else box


def _enclose(f: sympy.Expr, t: sympy.Symbol, box: flint.arb, prec: int) -> flint.arb | None:
    try:
        out = to_arb(f, prec, {t: box})
    except (ValueError, ZeroDivisionError):
        return None
    return out if out.is_finite() else None


def abs_bound(
    f: sympy.Expr,
    t: sympy.Symbol,
    lo: object,
    hi: object,
    target: sympy.Expr,
    *,
    end_values: Mapping | None = None,
    prec: int = 96,
    max_boxes: int = 3000,
    min_width: object = sympy.Rational(1, 2**40),
) -> AbsBound:
    """Prove ``|f(t)| <= target`` for all ``t`` in ``[lo, hi]`` (or refute it at a point).

    Parameters
    ----------
    f : sympy.Expr
        A real function of ``t`` alone, continuous on ``[lo, hi]`` (at an end where the
        expression is singular its value is the limit given in ``end_values``).
    t : sympy.Symbol
    lo, hi : rational numbers, ``lo < hi``
    target : sympy.Expr
        An exact real number (>= 0).
    end_values : mapping, optional
        ``{point: exact value of f there}`` for ``lo`` and ``hi`` (limits).
    prec : int
        Working precision of the balls (bits).
    max_boxes : int
        Budget of boxes.
    min_width : rational
        Boxes are not split below this width.

    Returns
    -------
    AbsBound

    References
    ----------
    Moore, Kearfott & Cloud (2009), sections 5.1 and 6.3.
    """
    low, high = sympy.Rational(lo), sympy.Rational(hi)
    if not low < high:
        raise argument_error("abs_bound", "hi", f"> lo = {low}", hi)
    ends = dict(end_values or {})
    T = to_arb(target, prec)
    df = sympy.diff(f, t)
    known: dict = {}

    def end_ok(x: sympy.Rational) -> bool:
        if x not in known:
            v = ends[x] if x in ends else f.subs(t, x)
            try:
                known[x] = v.is_finite is not False and compare(sympy.Abs(v), target) <= 0
            except (UndecidedSignError, ValueError):
                known[x] = False
        return known[x]

    stack: list[tuple[sympy.Rational, sympy.Rational]] = [(low, high)]
    boxes = 0
    with flint_prec(prec):
        while stack:
            a, b = stack.pop()
            boxes += 1
            if boxes > max_boxes:
                return AbsBound(None, None, boxes, f"box budget {max_boxes} exhausted")
            box = _box(a, b)
            F = _enclose(f, t, box, prec)
            if F is not None and abs(F) < T:
                continue
            m = (a + b) / 2
            Fm = _enclose(f, t, _box(m, m), prec)
            if Fm is not None and abs(Fm) > T:  # a proved point above the target
                return AbsBound(False, m, boxes)
            D = _enclose(df, t, box, prec)
            if D is not None and (D > 0 or D < 0) and end_ok(a) and end_ok(b):
                continue
            if b - a <= min_width:
                return AbsBound(
                    None, None, boxes, f"not separated on [{a}, {b}] at width {min_width}"
                )
            m = (a + b) / 2
            stack.append((m, b))
            stack.append((a, m))
    return AbsBound(True, None, boxes)
