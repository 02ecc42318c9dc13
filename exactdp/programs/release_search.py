"""A certified lower bound on the loss of a pattern with several released values.

When a pattern releases several values whose density does not factorise (the sparse
vector releasing noisy answers with ``c >= 2``: a mixture over the threshold noise; prefix
sums), the log density ratio ``L(o) = ln f_a(o) - ln f_a'(o)`` is a function of several
real variables. Every rational output ``o`` gives a lower bound ``|L(o)|`` on the
supremum, exactly (the densities are exact closed forms at rational values,
:func:`~exactdp.programs.release_density.run_density`), attained at ``o``.

:func:`best_point` searches for a good ``o``: a coordinate search over a grid of each
value (the values the outputs take with every noise at 0 on either input, and those moved
by multiples of the largest noise scale), started from those noise-free outputs, scored
by 64-bit arb balls (a screen: the chosen point's value is recomputed exactly by the
caller). Its cost is linear in the number of values and grid points
(:func:`search_cost`); the pattern's upper bound comes from
:mod:`exactdp.programs.release_bound`, and the two meet exactly where the bound is
attained (then the loss is exact), else they form a certified bracket.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

import flint

from ..exact.arb import flint_prec
from .release_density import affine
from .release_sup import Terms, ball, simplest
from .runs import Run

#: Grid offsets around each anchor, in units of the largest noise scale.
OFFSETS = (Fraction(-4), Fraction(-2), Fraction(-1), Fraction(-1, 2), Fraction(1, 2),
           Fraction(1), Fraction(2), Fraction(4))
#: Sweeps of the coordinate search from each start.
SWEEPS = 2
#: Working precision (bits) of the screen.
SCREEN_PREC = 64

#: ``(e, W) -> q``: ``sum q lam**e exp(lam W)`` (a density value).
Density = Callable[[tuple[Fraction, ...]], dict]


def value_arb(value: dict, lam: Fraction) -> flint.arb:
    """``sum q lam**e exp(lam W)`` as an arb ball at the current precision."""
    la = flint.arb(flint.fmpq(lam.numerator, lam.denominator))
    total = flint.arb(0)
    for (e, w), q in value.items():
        wq, qq = Fraction(w), Fraction(q)
        total += (flint.arb(flint.fmpq(qq.numerator, qq.denominator)) * la**e
                  * (la * flint.arb(flint.fmpq(wq.numerator, wq.denominator))).exp())
    return total


def grid(runs: Sequence[Run], others: Sequence[Run], scale: Fraction) -> list[Fraction]:
    """The grid of one released value: the noise-free values of every released value on
    either input, and each moved by :data:`OFFSETS` times ``scale``."""
    anchors = {affine(r)[1] for run in (*runs, *others) for r in run.released}
    return sorted({a + t * scale for a in anchors for t in (Fraction(0), *OFFSETS)})


def starts(runs: Sequence[Run], others: Sequence[Run]) -> list[tuple[Fraction, ...]]:
    """The noise-free outputs of the runs on both inputs (the search's starts)."""
    out = {tuple(affine(r)[1] for r in run.released) for run in (*runs, *others)}
    return sorted(out)


def search_cost(k: int, points: int, nstarts: int) -> int:
    """The number of density pairs the search evaluates."""
    return nstarts * SWEEPS * k * points


def best_point(log_ratio: Callable[[tuple[Fraction, ...]], flint.arb | None],
               pts: list[Fraction], begin: list[tuple[Fraction, ...]],
               target: float | None = None
               ) -> tuple[tuple[Fraction, ...], flint.arb] | None:
    """The point of largest ``|log_ratio|`` found by the coordinate search (None: every
    point has a zero density); it stops at a point within ``1e-12`` (relative) of
    ``target`` (the pattern's upper bound: no point can do better)."""
    best: tuple[tuple[Fraction, ...], flint.arb] | None = None

    def score(o: tuple[Fraction, ...]) -> flint.arb | None:
        v = log_ratio(o)
        return None if v is None else abs(v)

    def done(v: flint.arb | None) -> bool:
        return target is not None and v is not None and float(v.mid()) >= target * (
            1 - 1e-12)

    with flint_prec(SCREEN_PREC):
        for o in begin:
            cur, val = o, score(o)
            for _ in range(0 if done(val) else SWEEPS):
                for j in range(len(o)):
                    for x in pts:
                        cand = (*cur[:j], x, *cur[j + 1:])
                        s = score(cand)
                        if s is not None and (val is None or s.mid() > val.mid()):
                            cur, val = cand, s
                            if done(val):
                                break
                    if done(val):
                        break
                if done(val):
                    break
            if val is not None and (best is None or val.mid() > best[1].mid()):
                best = (cur, val)
            if done(val):
                break
    return best


def screen_cells(pieces: list) -> tuple[Fraction, Terms, Terms, Fraction] | None:
    """The rational point of largest ``|ln f - ln g|`` found on the cells ``pieces`` (``(f,
    g, lam, lo, hi, ...)`` of :mod:`exactdp.programs.release_loss`) by a screen in 64-bit arb:
    :func:`screen_points`, then 30 golden-section steps around the best; with its cell's
    ``f, g, lam`` (None: no cell where both densities are positive)."""
    best: tuple[float, Fraction, Terms, Terms, Fraction] | None = None
    with flint_prec(SCREEN_PREC):
        for f, g, lam, lo, hi, *_ in pieces:
            if not f or not g:
                continue

            def score(x: Fraction, f: Terms = f, g: Terms = g, lam: Fraction = lam) -> float:
                q = flint.arb(flint.fmpq(x.numerator, x.denominator))
                v = abs(ball(f, q, lam).log() - ball(g, q, lam).log())
                return float(v.mid()) if v.is_finite() else -1.0

            pts = screen_points(lo, hi, lam)
            s0, x0 = max((score(x), x) for x in pts)
            i = pts.index(x0)
            a = pts[i - 1] if i > 0 else x0
            b = pts[i + 1] if i + 1 < len(pts) else x0
            for _ in range(30):
                if b <= a:
                    break
                c1, c2 = a + (b - a) * Fraction(382, 1000), a + (b - a) * Fraction(618, 1000)
                if score(c1) >= score(c2):
                    b = c2
                else:
                    a = c1
            x1 = simplest(a, b)
            cand = max((s0, x0), (score(x1), x1))
            if best is None or cand[0] > best[0]:
                best = (cand[0], cand[1], f, g, lam)
    return None if best is None else best[1:]


def screen_points(lo: Fraction | None, hi: Fraction | None, lam: Fraction) -> list[Fraction]:
    """Rational points of a cell ``(lo, hi)``: 16 inside a finite one; steps of ``2**j / 4``
    noise scales ``1 / lam`` (j < 12) out of a half-infinite one."""
    if lo is not None and hi is not None:
        return [lo + (hi - lo) * Fraction(k, 17) for k in range(1, 17)]
    base = lo if lo is not None else hi if hi is not None else Fraction(0)
    steps = [Fraction(2**j, 4) / lam for j in range(12)]
    pts = [base + t for t in steps] if lo is not None else [base - t for t in steps]
    if lo is None and hi is None:
        pts += [base + t for t in steps]
    return sorted(pts)
