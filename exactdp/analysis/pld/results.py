"""Results shared by the exact and the grid privacy-loss distributions.

``HockeyStick`` (a value of the privacy curve ``delta(epsilon)``), ``EpsilonResult`` (its
inverse) and the certified bisection that computes the inverse from rigorous balls.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import flint
import sympy

from ..._validate import argument_error
from ...exact.arb import dps_to_prec, flint_prec, to_arb
from ...exact.signs import UndecidedSignError
from ...numbers import exact_number
from ...result import (
    Result,
    ball_digits,
    ball_text,
    brief,
    certified_text,
    interval_ball,
    number_text,
)
from ...result_text import bracket_text, stated_text
from .._balls import arb_lower_fraction

# ----------------------------------------------------------------------------- results
#: ``2^-TINY_BITS``: the coarsest bound ``lower`` / ``upper`` report for a delta closer to
#: 0 or 1 (exact Fractions of such ball ends would have as many digits as the exponent).
TINY_BITS = 10000


@dataclass(frozen=True)
class HockeyStick(Result):
    """``delta(epsilon)`` of a (composed) pair: the hockey-stick divergence.

    Every PLD's ``delta`` returns this type. ``lower <= delta <= upper`` always holds (both
    certified); ``value`` is the exact value when the composition was counted exactly.

    Attributes
    ----------
    epsilon : sympy.Expr
        The queried epsilon (exact).
    ball : flint.arb
        A rigorous enclosure of ``delta``: around the exact value (``algorithm="exact"`` or
        ``"closed form"``), or the interval ``[lower, upper]`` of a lattice (``"grid"``).
    algorithm : {"exact", "closed form", "grid"}
        ``"exact"``: every output sequence counted (``value`` is the exact number);
        ``"closed form"``: a closed-form privacy curve (Laplace, Gaussian), ``value`` its
        sympy expression; ``"grid"``: losses shifted down and up on a lattice, certified
        ``lower`` and ``upper``, no ``value``.
    certified : bool
        True: the bounds are proved (never a float guess).
    caveat : str
        What the number is and is not.
    k : int
        Number of composed copies.

    Notes
    -----
    The result protocol (:class:`exactdp.result.Result`): ``value`` is the exact delta
    (``algorithm="exact"``; None for a grid bound), ``lower`` / ``upper`` exact Fractions
    from ``ball``; ``evalf(dps)`` is right to ``dps`` digits at any ``dps`` when exact.
    """

    headline_label = "delta"
    repr_fields = ("epsilon", "k", "algorithm")

    epsilon: sympy.Expr
    ball: flint.arb
    algorithm: str
    certified: bool
    caveat: str
    k: int
    _exact: Callable[[], sympy.Expr] | None = field(default=None, repr=False, compare=False)

    @property
    def lower(self) -> Fraction:
        """A certified lower bound on delta (exact Fraction, >= 0; ``1 - 2^-TINY_BITS``
        when the ball lies above it: a Fraction of its end would have ~1e80 digits)."""
        if self.ball.lower() <= 0:
            return Fraction(0)
        near_one = 1 - Fraction(1, 2**TINY_BITS)
        if self.ball.lower() >= flint.arb(near_one.numerator) / near_one.denominator:
            return near_one
        return max(Fraction(0), arb_lower_fraction(self.ball))

    @property
    def upper(self) -> Fraction:
        """A certified upper bound on delta (exact Fraction, <= 1; ``2^-TINY_BITS`` when the
        ball lies below it: ``delta(1)`` at ``sigma=1e300`` is below ``1e-10^76``)."""
        if self.ball.upper() <= flint.arb(2) ** -TINY_BITS:
            return Fraction(1, 2**TINY_BITS)
        return min(Fraction(1), -arb_lower_fraction(-self.ball))

    @property
    def value(self) -> sympy.Expr | None:
        """The exact delta ``P(S) - e^eps Q(S)`` (a sympy expression; None for a grid bound,
        which has no exact value)."""
        return None if self._exact is None else self._exact()

    def headline_text(self) -> str:
        if self.algorithm == "grid":  # ends rounded outward: the text contains the bounds
            return f"{bracket_text(self.lower, self.upper)} (certified lattice bounds)"
        # the algorithm is its own repr field: the number beside it reads as decimals (a
        # delta of 1 - 1.68e-63 as itself, never as a rounded "1.0 (exact)")
        digits = ball_digits(self.ball)
        if self._exact is not None:
            # the ball's radius is absolute: a tiny delta has no right digit in it, while the
            # exact value gives SHOW_DPS significant digits at any size (5.0e-301)
            try:  # labelled (rounded) unless it shows the value: algorithm='exact' is beside
                return stated_text(number_text(self.value), self.value)
            except ValueError:
                pass
        if digits < 2:  # a wide ball is a bracket: its ends clipped to [0, 1] (where every
            # delta lies), rounded outward
            return f"{bracket_text(self.lower, self.upper)} (certified bracket)"
        return certified_text(self.ball)


@dataclass(frozen=True)
class EpsilonResult(Result):
    """Smallest epsilon with ``delta(epsilon) <= delta``, enclosed in ``[lower, upper]``.

    ``lower`` and ``upper`` are exact dyadic Fractions with ``upper - lower`` below
    ``10**-dps`` (times ``max(1, |epsilon|)``); ``upper is None`` means no finite epsilon works
    (the mass at infinite loss exceeds ``delta``). For a grid PLD the interval encloses the
    epsilon of the lower-bound curve, so ``lower`` is a certified lower bound of the true one.

    The result protocol (:class:`exactdp.result.Result`): epsilon has no exact value
    (``value`` is None); ``ball`` is ``[lower, upper]``, ``evalf(dps)`` its midpoint when
    the interval is that narrow, ``float()`` the midpoint (``inf`` when ``upper`` is None).
    """

    headline = None
    repr_fields = ("delta",)

    delta: sympy.Expr
    lower: Fraction
    upper: Fraction | None
    certified: bool
    caveat: str

    def __float__(self) -> float:
        return math.inf if self.upper is None else float((self.lower + self.upper) / 2)

    def enclosure(self) -> flint.arb | None:
        return None if self.upper is None else interval_ball(self.lower, self.upper)

    def repr_parts(self) -> list[str]:
        if self.upper is None:
            return ["epsilon=oo (no finite epsilon)", f"delta={brief(self.delta)}"]
        ball = interval_ball(self.lower, self.upper)
        # the ends rounded outward: the printed bracket contains [lower, upper]
        return [f"epsilon={ball_text(ball)} in {bracket_text(self.lower, self.upper, 10)}",
                f"delta={brief(self.delta)}"]



def power_by_squaring(base: Any, k: int, compose: Callable[[Any, Any], Any]) -> Any:
    """``base`` composed with itself ``k >= 1`` times, by repeated squaring: about
    ``2 log2(k)`` calls of ``compose(a, b)`` (an associative product)."""
    out, j = None, k
    while j:
        if j & 1:
            out = base if out is None else compose(out, base)
        j >>= 1
        if j:
            base = compose(base, base)
    return out


def check_epsilon(value: object, func: str) -> sympy.Expr:
    """``value`` as an exact finite epsilon >= 0.

    Raises
    ------
    ValueError
        If it is not an exact finite number >= 0.
    """
    eps = exact_number(value, "epsilon", func=func)
    if eps.free_symbols or not eps.is_finite:
        raise argument_error(func, "epsilon", "a finite number", value)
    if eps.is_negative:
        raise argument_error(func, "epsilon", ">= 0", value)
    return eps


def check_delta(value: object, func: str) -> sympy.Expr:
    """``value`` as an exact delta in [0, 1].

    Raises
    ------
    ValueError
        If it is not an exact number in [0, 1].
    """
    d = exact_number(value, "delta", func=func)
    if d.free_symbols or not (d >= 0 and d <= 1):
        raise argument_error(func, "delta", "a number in [0, 1]", value)
    return d


def bisect_epsilon(pld, delta: object, dps: int, caveat: str, guess=None) -> EpsilonResult:
    """Certified inverse of a non-increasing privacy curve (exact and grid PLDs).

    ``pld`` has ``delta_ball(eps_ball, bits)``, ``max_loss(bits)`` and ``p_inf``. Since delta is
    non-increasing in epsilon, ``delta(lo) > delta >= delta(hi)`` proves that the smallest
    epsilon with ``delta(epsilon) <= delta`` lies in ``[lo, hi]``. ``guess`` (a callable giving
    an arb ball for the answer at given bits, or None) is tried first: two certified
    evaluations around it; otherwise bisection on exact dyadic points.

    Raises
    ------
    UndecidedSignError
        If the balls cannot separate delta from the target near the answer.
    """
    target = check_delta(delta, "epsilon")
    bits = dps_to_prec(dps) + 32
    if to_arb(pld.p_inf, bits) > to_arb(target, bits):
        return EpsilonResult(target, Fraction(0), None, True,
                             caveat + "; the mass at infinite loss exceeds delta")
    with flint_prec(bits):
        hi_ball = pld.max_loss(bits)
        hi = max(Fraction(0), arb_lower_fraction(hi_ball.upper()) + 1)
    lo = Fraction(0)

    def above(point: Fraction) -> bool | None:  # delta(point) > target ?
        for b in (bits, 2 * bits, 4 * bits):
            with flint_prec(b):
                d = pld.delta_ball(flint.arb(flint.fmpq(point.numerator, point.denominator)), b)
                diff = d - to_arb(target, b)
            if diff > 0:
                return True
            if diff <= 0:
                return False
        return None

    if above(lo) is False:
        return EpsilonResult(target, Fraction(0), Fraction(0), True, caveat)
    tol = Fraction(1, 10**dps)
    if guess is not None:
        g = guess(bits)
        if g is not None and g.is_finite():
            with flint_prec(bits):
                glo, ghi = arb_lower_fraction(g), -arb_lower_fraction(-g)
            width = tol * max(Fraction(1), abs(glo)) / 4
            a, b = max(Fraction(0), glo - width), ghi + width
            if b - a <= tol * max(Fraction(1), a) and above(a) is True and above(b) is False:
                return EpsilonResult(target, a, b, True, caveat)
    while hi - lo > tol * max(Fraction(1), lo):
        mid = (lo + hi) / 2
        verdict = above(mid)
        if verdict is None:  # delta(mid) is the target up to the balls: bracket it
            a, b = max(lo, mid - tol / 4), min(hi, mid + tol / 4)
            if above(a) is True and above(b) is False:
                return EpsilonResult(target, a, b, True, caveat)
            raise UndecidedSignError(
                f"epsilon: cannot separate delta({float(mid)}) from delta = {target}")
        if verdict:
            lo = mid
        else:
            hi = mid
    return EpsilonResult(target, lo, hi, True, caveat)


