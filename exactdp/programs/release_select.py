"""Choosing the privacy loss's supremum among a release's candidates: each candidate is a
signed log density ratio at an output or a limit (exact, as a pair of positive exponential
sums, or an arb ball), compared by balls first, then exactly (sums of exponentials of
rationals: Lindemann-Weierstrass decides their signs, :func:`~exactdp.programs.release_tidy.
compare_sums`); a maximum the balls and the exact comparisons cannot separate is a certified
bracket whose ends are rounded outward from each ball.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import flint
import sympy

from ..distribution import LossSupremum
from ..exact import arb_to_interval, flint_prec, to_arb
from ..exact.signs import compare
from .release_sup import prec
from .release_tidy import compare_sums, log_ratio


@dataclass(frozen=True)
class Candidate:
    """One candidate for the supremum: the signed log ratio ``ln f / f'`` (exact, as the
    pair ``(f, f')`` of positive exponential sums, or an arb ball), or an infinite one
    (``infinite`` = +1 / -1)."""

    exact: tuple[sympy.Expr, sympy.Expr] | None
    enclosure: flint.arb | None
    infinite: int
    attained: bool
    witness: str
    at: Fraction | None = None  # a finite cell end: the limit there, of the pair ``exact``
    tighten: Callable[[], flint.arb] | None = None  # a much narrower enclosure
    log: Callable[[int], sympy.Expr] | None = None  # ``|ln f/f'|`` given its sign, closed


def log_sign(c: Candidate) -> int:
    """The sign of ``ln f/g`` of an exact candidate: its ball's where that excludes 0, else
    of ``f - g`` (an exponential sum: exact zero test)."""
    with flint_prec(prec()):
        ball = signed_ball(c)
    if ball > 0 or ball < 0:
        return 1 if ball > 0 else -1
    pair = c.exact
    assert pair is not None
    s = compare_sums(pair[:1], pair[1:])
    return s if s is not None else compare(sympy.expand(pair[0]), sympy.expand(pair[1]))


def kept(c: Candidate, sign: int) -> bool:
    """Whether ``c`` counts in the direction ``sign`` of a directional supremum (0: every
    candidate; else its log ratio not of the opposite sign, an infinite one of that sign)."""
    if not sign or c.infinite:
        return not sign or c.infinite == sign
    with flint_prec(prec()):
        return not sign * signed_ball(c) < 0 if c.exact is None else log_sign(c) * sign >= 0


def larger(a: Candidate, b: Candidate) -> int:
    """The sign of ``|ln a0/a1| - |ln b0/b1|`` of two exact candidates, exact: ``A D - B
    C`` for the ratios ``A/B = max/min`` of each pair (exponential sums:
    Lindemann-Weierstrass)."""
    assert a.exact is not None and b.exact is not None
    A, B = a.exact if log_sign(a) >= 0 else a.exact[::-1]
    C, D = b.exact if log_sign(b) >= 0 else b.exact[::-1]
    s = compare_sums((A, D), (B, C))  # term by term: expand(A * D) took seconds at 1e300
    return s if s is not None else compare(sympy.expand(A * D), sympy.expand(B * C))


def signed_ball(c: Candidate) -> flint.arb:
    if c.enclosure is not None:
        return c.enclosure
    assert c.exact is not None
    return _exact_ball(c.exact[0], c.exact[1], prec(), flint.ctx.prec)


@lru_cache(maxsize=4096)
def _exact_ball(f: sympy.Expr, g: sympy.Expr, bits: int, working: int) -> flint.arb:
    """``ln f - ln g`` enclosed (``to_arb`` at ``bits``, the logs at the working precision
    ``working``, the current one), cached: a pair's search reads each candidate's ball
    about three times (the lead, the floor's test, the selection)."""
    return to_arb(f, bits).log() - to_arb(g, bits).log()


def abs_ball(c: Candidate) -> flint.arb:
    return abs(signed_ball(c))


def select(cands: list[Candidate]) -> tuple[LossSupremum, Candidate | None]:
    """The supremum over the candidates (exact, or a certified interval), and the
    candidate attaining it (None: infinite)."""
    inf = [c for c in cands if c.infinite]
    if inf:
        best = max(inf, key=lambda c: c.attained)
        return LossSupremum(sympy.oo, best.attained, best.infinite, best.witness,
                            () if best.attained else ((best.witness, sympy.oo),)), None
    with flint_prec(prec()):
        balls = [abs_ball(c) for c in cands]
        for _ in range(2):  # tighten the critical values that overlap the top candidate
            top = max(range(len(cands)), key=lambda i: balls[i].lower())
            rivals = [i for i in range(len(cands))
                      if i != top and balls[i].upper() >= balls[top].lower()]
            loose = [i for i in (top, *rivals) if cands[i].tighten is not None]
            if not loose:
                break
            for i in loose:
                cands[i] = Candidate(None, cands[i].tighten(), 0, cands[i].attained,  # type: ignore[misc]
                                     cands[i].witness)
                balls[i] = abs_ball(cands[i])
    exact_rivals = all(cands[i].exact is not None for i in [top, *rivals])
    if exact_rivals:
        for i in rivals:
            c = larger(cands[i], cands[top])
            if c > 0 or (c == 0 and cands[i].attained and not cands[top].attained):
                top = i
        best = cands[top]
        assert best.exact is not None
        direction = log_sign(best)
        big, small = best.exact if direction >= 0 else best.exact[::-1]
        value = log_ratio(big, small) if best.log is None else best.log(direction)
        return LossSupremum(value, best.attained, direction, best.witness,
                            () if best.attained else ((best.witness, value),)), best
    best = cands[top]
    with flint_prec(prec()):
        lo, hi = hull_ends([balls[i] for i in (top, *rivals)])
        signed = signed_ball(best)
    direction = 1 if signed > 0 else -1
    bracket = "" if not rivals else " (a certified bracket: rivals not separated)"
    return LossSupremum((lo + hi) / 2, best.attained, direction, best.witness + bracket,
                        interval=(lo, hi)), best


def hull_ends(balls: list[flint.arb]) -> tuple[sympy.Float, sympy.Float]:
    """The least lower end and the greatest upper end of ``balls``, each rounded outward
    from its own ball (:func:`~exactdp.exact.arb_to_interval`): the ``union`` of two balls
    keeps a radius of 30 bits, so its ends sit about ``2**-30`` times the width outside
    the exact ends (``[2/5, 9/20]`` read ``[0.4 - 5e-11, 0.45 + 5e-11]``)."""
    ends = [arb_to_interval(b) for b in balls]
    # |ln f/f'| >= 0: a ball straddling 0 (a pair of equal laws) has no negative loss
    return max(min(e[0] for e in ends), sympy.Float(0)), max(e[1] for e in ends)
