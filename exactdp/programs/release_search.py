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
               pts: list[Fraction], begin: list[tuple[Fraction, ...]]
               ) -> tuple[tuple[Fraction, ...], flint.arb] | None:
    """The point of largest ``|log_ratio|`` found by the coordinate search (None: every
    point has a zero density)."""
    best: tuple[tuple[Fraction, ...], flint.arb] | None = None

    def score(o: tuple[Fraction, ...]) -> flint.arb | None:
        v = log_ratio(o)
        return None if v is None else abs(v)

    with flint_prec(SCREEN_PREC):
        for o in begin:
            cur, val = o, score(o)
            for _ in range(SWEEPS):
                for j in range(len(o)):
                    for x in pts:
                        cand = (*cur[:j], x, *cur[j + 1:])
                        s = score(cand)
                        if s is not None and (val is None or s.mid() > val.mid()):
                            cur, val = cand, s
            if val is not None and (best is None or val.mid() > best[1].mid()):
                best = (cur, val)
    return best
