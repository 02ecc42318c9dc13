"""The ball engine: certified (not exact) analysis of mechanisms without exact probabilities.

Every probability is a python-flint ``arb`` ball from ``dist.evalf_balls(dps)`` (for
RNM-Gaussian the radius is the quadrature's error bound,
:func:`exactdp.numeric.gaussian.gaussian_mp`). Losses, ranges and divergences are enclosed in
certified intervals; a yes/no answer is given only when the interval is on one side, otherwise
the work is repeated at the next precision of :data:`BALL_DPS` and :class:`BallUndecided`
(an :class:`~exactdp.exact.signs.UndecidedSignError`, and a ValueError for older callers) is
raised at the last one. The engine's ``certified`` is True only when every distribution says
its ball radii are proved (``balls_certified``); otherwise results carry its ``caveat``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import flint
import sympy

from ...exact.arb import arb_mid_to_float, dps_to_prec, flint_prec, to_arb
from ...exact.signs import UndecidedSignError
from ..common import ratios_with_limits

#: Working precisions (decimal digits) of the ball engine, tried in turn until a
#: comparison is decided.
BALL_DPS = (30, 60, 120)


class BallUndecided(UndecidedSignError, ValueError):
    """A comparison of the ball engine stayed undecided at the highest working precision.

    Examples
    --------
    >>> from exactdp import BallUndecided, UndecidedSignError
    >>> issubclass(BallUndecided, UndecidedSignError)
    True
    >>> str(BallUndecided("compare: undecided"))
    'compare: undecided'
    """


@contextmanager
def arb_prec(dps: int):
    """flint precision for ``dps`` digits (:func:`exactdp.exact.arb.flint_prec`)."""
    with flint_prec(dps_to_prec(dps)):
        yield


def arb_float(x: flint.arb, dps: int | None = None) -> sympy.Float:
    """The midpoint of a ball as a sympy Float, sign kept (``dps=None``: every bit)."""
    return arb_mid_to_float(x, dps)


class BallEngine:
    """Certified numeric engine for distributions without exact probabilities.

    Each probability is a python-flint ``arb`` ball from ``dist.evalf_balls(dps)`` (for
    RNM-Gaussian the radius is the quadrature's error bound). A comparison is decided when
    the balls of the two sides separate; otherwise it is repeated at the next precision of
    :data:`BALL_DPS`, and a :class:`BallUndecided` (a ValueError) is raised at the last one:
    the engine never guesses. Exact ties (equal probabilities) can therefore never be
    decided. Probabilities are handles ``("p", i, r)``; ratios are small expression trees
    evaluated at the working precision of each attempt.
    """

    kind = "ball"
    #: A sequence mechanism's outputs, which ``probs[i][r]`` indexes (as ``XEngine.outputs``)
    outputs: tuple | None = None

    def __init__(self, dists: Sequence, func: str, name: str, levels: Sequence[int] = ()):
        self.dists = list(dists)
        self.func = func
        self.name = name
        self.levels = tuple(levels) or BALL_DPS
        self._cache: dict[int, list[tuple[flint.arb, ...]]] = {}
        self.certified, self.caveat = True, None
        for d in self.dists:  # are the radii of evalf_balls proved? (see evalf_balls)
            ok, why = d.balls_certified
            if not ok:
                self.certified, self.caveat = False, why
                break
        first = self.balls(self.levels[0])
        self.probs = [[("p", i, r) for r in range(len(b))] for i, b in enumerate(first)]

    # -- balls
    def balls(self, dps: int) -> list[tuple[flint.arb, ...]]:
        """Per vector, the raw probability balls at ``dps`` digits (cached)."""
        if dps not in self._cache:
            out = []
            for d in self.dists:
                bs = tuple(d.evalf_balls(dps))
                for r, b in enumerate(bs):
                    if not isinstance(b, flint.arb) or not b.is_finite():
                        raise ValueError(
                            f"{self.func}: evalf_balls({dps}) of {self.name} gave {b!r} for "
                            f"output {r}; finite python-flint arb balls are required"
                        )
                out.append(bs)
            self._cache[dps] = out
        return self._cache[dps]

    def _ev(self, h, dps: int) -> flint.arb:
        tag = h[0]
        if tag == "p":
            return self.balls(dps)[h[1]][h[2]].nonnegative_part()
        if tag == "div":
            return self._ev(h[1], dps) / self._ev(h[2], dps)
        if tag == "inv":
            return 1 / self._ev(h[1], dps)
        raise AssertionError(tag)  # pragma: no cover

    def _decide(self, diff: Callable[[int], flint.arb], what: str) -> int:
        for dps in self.levels:
            with arb_prec(dps):
                d = diff(dps)
                if d > 0:
                    return 1
                if d < 0:
                    return -1
                if d.is_exact() and d.is_zero():
                    return 0
        raise BallUndecided(
            f"{self.func}: {what} is undecided at dps={self.levels[-1]} (the certified balls "
            f"of {self.name} still overlap); the two sides are equal or closer than "
            f"10^-{self.levels[-1]}"
        )

    # -- the engine interface
    def is_zero(self, p) -> bool:
        for dps in self.levels:
            with arb_prec(dps):
                b = self.balls(dps)[p[1]][p[2]]
                if b.is_exact() and b.is_zero():
                    return True
                if b > 0:
                    return False
        raise BallUndecided(
            f"{self.func}: whether probability {p[2]} of {self.name} is 0 is undecided at "
            f"dps={self.levels[-1]}"
        )

    def cmp_prob(self, a, b) -> int:
        return self._decide(lambda d: self._ev(a, d) - self._ev(b, d), "a probability comparison")

    def ratio(self, a, b):
        return ("div", a, b)

    def inv(self, R):
        return ("inv", R)

    def div(self, R1, R2):
        return ("div", R1, R2)

    def cmp(self, R1, R2) -> int:
        return self._decide(lambda d: self._ev(R1, d) - self._ev(R2, d), "a ratio comparison")

    def cmp_one(self, R) -> int:
        return self._decide(lambda d: self._ev(R, d) - 1, "a ratio against 1")

    def cmp_exp(self, R, claim: sympy.Expr) -> int:
        def diff(d: int) -> flint.arb:
            return self._ev(R, d) - to_arb(claim, flint.ctx.prec).exp()

        return self._decide(diff, f"a ratio against exp({claim})")

    def to_sympy(self, R) -> sympy.Expr:
        dps = self.levels[0]
        with arb_prec(dps):
            return arb_float(self._ev(R, dps), dps)

    def prob_sympy(self, p) -> sympy.Expr:
        return self.to_sympy(p)

    def check_normalised(self, i: int, func: str, name: str, scores) -> None:
        dps = self.levels[0]
        with arb_prec(dps):
            bs = self.balls(dps)[i]
            total = sum(bs, flint.arb(0))
            if not total.contains(1):
                raise ValueError(
                    f"{func}: the probabilities of {name} on {scores} do not sum to 1 (their "
                    f"certified sum is {total.str(10, radius=True)}); not a probability "
                    "distribution"
                )
            for r, b in enumerate(bs):
                if b < 0:
                    raise ValueError(f"{func}: probability {r} of {name} on {scores} is negative")

    # -- certified enclosures used by the analyzer's ball routes
    def log_ratios(self, i: int, j: int, dps: int) -> list | None:
        """Per output ``ln(P_r(i) / P_r(j))`` at ``dps`` (call inside ``_arb_prec(dps)``).

        Entries: an arb ball; ``None`` when both probabilities are exactly 0; ``+oo`` or
        ``-oo`` (sympy) when exactly one of them is exactly 0. Returns None when some ball
        cannot yet be told from 0 (more precision needed).
        """
        out: list = []
        for a, b in zip(self.balls(dps)[i], self.balls(dps)[j], strict=True):
            za = a.is_exact() and a.is_zero()
            zb = b.is_exact() and b.is_zero()
            pa, pb = a > 0, b > 0
            if za and zb:
                out.append(None)
            elif za and pb:
                out.append(-sympy.oo)
            elif zb and pa:
                out.append(sympy.oo)
            elif pa and pb:
                out.append(a.log() - b.log())
            else:
                return None
        return out


@dataclass(frozen=True)
class Iv:
    """A certified interval ``[lo, hi]`` of exact arb end points (or an exact infinity)."""

    lo: flint.arb | None
    hi: flint.arb | None
    infinite: bool = False

    @property
    def ends(self) -> tuple[flint.arb, flint.arb]:
        """``(lo, hi)`` of a finite interval (an infinite one has none)."""
        if self.lo is None or self.hi is None:
            raise ValueError("Iv: an infinite interval has no finite end points")
        return self.lo, self.hi

    def better_lo(self, other: Iv) -> bool:
        if self.infinite or other.infinite:
            return self.infinite and not other.infinite
        return bool(self.ends[0] > other.ends[0])

    def narrow(self, dps: int) -> bool:
        if self.infinite:
            return True
        lo, hi = self.ends
        return bool(hi - lo <= flint.arb(10) ** (-(2 * dps // 3)) * (1 + abs(hi)))

    def value(self, dps: int) -> sympy.Expr:
        if self.infinite:
            return sympy.oo
        lo, hi = self.ends
        return arb_float((lo + hi) / 2, dps)

    def sympy(self) -> tuple:
        if self.infinite:
            return (sympy.oo, sympy.oo)
        lo, hi = self.ends
        return (arb_float(lo), arb_float(hi))


def iv_max(ivs: Sequence[Iv]) -> Iv:
    """Enclosure of the maximum of quantities enclosed by ``ivs`` (non-empty)."""
    if any(v.infinite for v in ivs):
        return Iv(None, None, True)
    lo = max((v.ends[0] for v in ivs), key=ArbKey)
    hi = max((v.ends[1] for v in ivs), key=ArbKey)
    return Iv(lo, hi)


class ArbKey:
    """Sort key for exact arb numbers (comparisons of exact values are decided)."""

    def __init__(self, x: flint.arb):
        self.x = x

    def __lt__(self, other: ArbKey) -> bool:
        return bool(self.x < other.x)


def _abs_iv(L: flint.arb) -> Iv:
    return Iv(L.abs_lower(), L.abs_upper())


def ball_pair_loss(engine: BallEngine, i: int, j: int, dps: int):
    """``(loss interval, per-output intervals, log-ratio balls)`` or None if undecided."""
    logs = engine.log_ratios(i, j, dps)
    if logs is None:
        return None
    per: dict[int, Iv] = {}
    for r, L in enumerate(logs):
        if L is None:
            continue
        per[r] = Iv(None, None, True) if isinstance(L, sympy.Basic) else _abs_iv(L)
    if not per:
        zero = flint.arb(0)
        return Iv(zero, zero), per, logs
    return iv_max(list(per.values())), per, logs


def ball_output(per: dict[int, Iv], total: Iv) -> tuple[int | None, tuple[int, ...]]:
    """The output with the best certified lower bound (None when no output has a loss), and
    every output that may attain."""
    best: int | None = None
    for r, iv in per.items():
        if best is None or iv.better_lo(per[best]):
            best = r
    if total.infinite:
        cands = tuple(r for r, iv in per.items() if iv.infinite)
    else:
        cands = tuple(r for r, iv in per.items() if iv.ends[1] >= total.ends[0])
    return best, cands


def ball_ratios(engine: BallEngine, i: int, j: int, dps: int) -> tuple:
    """The per-output ratios ``P_r(i) / P_r(j)`` from the balls at ``dps`` digits."""
    balls = engine.balls(dps)
    return ratios_with_limits(
        balls[i], balls[j], lambda a: a.is_exact() and a.is_zero(),
        lambda a, b: arb_float(a.nonnegative_part() / b.nonnegative_part(), dps),
    )


def raise_undecided(func: str, engine: BallEngine, what: str) -> BallUndecided:
    """The :class:`BallUndecided` (for the caller to raise) saying ``what`` is undecided at
    the engine's top precision.
    """
    return BallUndecided(
        f"{func}: {what} undecided at dps={engine.levels[-1]}: the certified probability "
        f"balls of {engine.name} are too wide (a probability cannot be told from 0)"
    )
