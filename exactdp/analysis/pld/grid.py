"""Certified lower-bound PLDs on a loss grid (optimistic discretisation, rigorous rounding).

A :class:`DiscretisedPLD` holds exact non-negative lower bounds ``m_j`` of the P-mass of the
losses in ``[j*step, (j+1)*step)`` (losses rounded *down* onto the grid) and a lower bound of
the mass at infinite loss. Since ``delta(eps) = E_P[(1 - e^(eps - L))_+] + P(L = oo)`` increases
in every loss and in every mass, and the loss of a composition is the sum of the losses, every
delta computed here is a certified lower bound of the true delta of the composed pair.
Composition convolves the mass vectors with python-flint ``arb_poly`` products (rigorous
balls); after each product the coefficients are replaced by the exact lower ends of their
balls (clipped at 0), so the stored masses stay exact lower bounds.

References
----------
A. Koskela, J. Jalko & A. Honkela, "Computing tight differential privacy guarantees using FFT",
AISTATS 2020; S. Meiser & E. Mohammadi, CCS 2018 (optimistic/pessimistic discretisation).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import flint

from ..._validate import argument_error, check_int
from ...exact.arb import dps_to_prec, flint_prec, to_arb
from .results import (
    EpsilonResult,
    HockeyStick,
    bisect_epsilon,
    check_epsilon,
    power_by_squaring,
)

_CAVEAT = ("certified lower bound: losses rounded down onto a grid of step {step} "
           "(optimistic discretisation), masses rounded down")


def _clip(c: flint.arb) -> flint.arb:
    """The exact lower end of a ball, or 0 if that is negative (masses are >= 0)."""
    lo = c.lower()
    return lo if lo > 0 else _ZERO


_ZERO = flint.arb(0)


def _arb_fraction(f: Fraction) -> flint.arb:
    return flint.arb(flint.fmpq(f.numerator, f.denominator))


@dataclass(frozen=True, eq=False)
class DiscretisedPLD:
    """A lower-bound PLD on the grid ``step * (offset + j)``.

    Attributes
    ----------
    step : Fraction
        Grid step (a power of two).
    offset : int
        Grid index of ``masses[0]``.
    masses : tuple of flint.arb
        Exact (radius 0) non-negative lower bounds of the P-mass at each grid point.
    p_inf : Fraction
        Lower bound of the P-mass at infinite loss.
    k : int
        Number of composed copies.
    description : str
    """

    step: Fraction
    offset: int
    masses: tuple
    p_inf: Fraction
    k: int
    description: str

    @classmethod
    def from_points(cls, step: Fraction, index: list[int], masses: list[Fraction],
                    p_inf: Fraction, k: int, description: str) -> DiscretisedPLD:
        """Collect point masses at grid indices into a vector (lower bounds add)."""
        lo = min(index) if index else 0
        hi = max(index) if index else 0
        vec = [Fraction(0)] * (hi - lo + 1)
        for j, m in zip(index, masses, strict=True):
            vec[j - lo] += m
        return cls(Fraction(step), lo, tuple(_arb_fraction(m) for m in vec), Fraction(p_inf), k,
                   description)

    @property
    def caveat(self) -> str:
        return _CAVEAT.format(step=self.step)

    def compose(self, other: DiscretisedPLD, bits: int = 192) -> DiscretisedPLD:
        """Convolution of the two lower-bound PLDs (same step required)."""
        if not isinstance(other, DiscretisedPLD) or other.step != self.step:
            raise argument_error("compose", "other", f"a DiscretisedPLD with step {self.step}",
                                 other)
        with flint_prec(bits):
            prod = (flint.arb_poly(list(self.masses)) * flint.arb_poly(list(other.masses)))
            masses = tuple(_clip(c) for c in prod.coeffs())
        p_inf = 1 - (1 - self.p_inf) * (1 - other.p_inf)
        return DiscretisedPLD(self.step, self.offset + other.offset, masses, p_inf,
                              self.k + other.k, f"({self.description}) o ({other.description})")

    def self_compose(self, k: int, bits: int = 192) -> DiscretisedPLD:
        """The k-fold composition by repeated squaring (each product rounded down)."""
        k = check_int("self_compose", "k", k, 1)
        out = power_by_squaring(self, k, lambda a, b: a.compose(b, bits))
        return DiscretisedPLD(out.step, out.offset, out.masses, out.p_inf, out.k,
                              f"{k}-fold composition of ({self.description})")

    def _hockey_sum(self, e: flint.arb, undecided: bool) -> flint.arb:
        """``p_inf + sum_j m_j (1 - e * exp(-h (offset + j)))`` over the grid points
        certified above ``log e``; with ``undecided``, a point whose term straddles 0 adds
        the ball ``[0, m * upper]`` (call inside ``flint_prec``)."""
        h = _arb_fraction(self.step)
        total = _arb_fraction(self.p_inf)
        for j, m in enumerate(self.masses):
            if m > 0:
                t = 1 - e * (-(h * (self.offset + j))).exp()
                if t > 0:
                    total += m * t
                elif undecided and not t < 0 and not t == 0:
                    hi = t.upper()
                    if hi > 0:
                        total += m * flint.arb(hi / 2, hi / 2)
        return total

    def delta_ball(self, epsilon: flint.arb, bits: int) -> flint.arb:
        """A ball containing the lower-bound curve at every point of ``epsilon``."""
        with flint_prec(bits):
            return self._hockey_sum(epsilon.exp(), undecided=True)

    def delta(self, epsilon: object, dps: int = 30) -> HockeyStick:
        """A certified lower bound of ``delta(epsilon)`` of the composed pair.

        Only grid points certified above epsilon contribute, each by the lower end of its
        ball, so ``HockeyStick.lower`` is a proved lower bound.
        """
        eps = check_epsilon(epsilon, "delta")
        bits = dps_to_prec(dps)
        with flint_prec(bits):
            total = self._hockey_sum(to_arb(eps, bits).exp(), undecided=False)
            lower = flint.arb(total.lower())
        return HockeyStick(eps, lower, "grid", True, self.caveat, self.k)

    def max_loss(self, bits: int = 128) -> flint.arb:
        last = max((j for j, m in enumerate(self.masses) if m > 0), default=0)
        with flint_prec(bits):
            return _arb_fraction(self.step * (self.offset + last))

    def epsilon(self, delta: object, dps: int = 30) -> EpsilonResult:
        """Epsilon of the lower-bound curve at ``delta``: its ``lower`` bounds the true one."""
        return bisect_epsilon(self, delta, dps, self.caveat)

    def __len__(self) -> int:
        return sum(1 for m in self.masses if m > 0)

    def __repr__(self) -> str:
        return (f"DiscretisedPLD(k={self.k}, step={self.step}, points={len(self)}, "
                f"{self.description})")

