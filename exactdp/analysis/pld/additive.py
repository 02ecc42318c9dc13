"""Privacy-loss distributions of the additive mechanisms (Laplace and Gaussian noise on a count).

The worst neighbouring pair of a count with sensitivity ``Delta`` is ``P = noise``,
``Q = Delta + noise``. Their privacy curves are closed forms, evaluated in python-flint balls
(certified) and returned as sympy expressions:

- Laplace with scale ``b``, ``e0 = Delta/b``: ``delta(eps) = 1 - exp((eps - e0)/2)`` for
  ``0 <= eps < e0`` and 0 beyond. Its loss under ``P`` has atoms ``e0`` (mass 1/2) and
  ``-e0`` (mass ``e^-e0/2``) and density in between: ``P(t1 <= L < t2) =
  (e^(-(e0 - t2)/2) - e^(-(e0 - t1)/2))/2`` (both derived from ``L(x) = (|x - Delta| - |x|)/b``).
- Gaussian with standard deviation ``sigma``, ``a = Delta/sigma``: ``L ~ N(a^2/2, a^2)`` under
  ``P`` and ``delta(eps) = Phi(a/2 - eps/a) - e^eps Phi(-a/2 - eps/a)`` (Balle & Wang, ICML
  2018, Thm 8); k copies are one Gaussian with ``a sqrt(k)``.

Composed with anything else, both go on the loss lattice of
:class:`~exactdp.analysis.pld.grid.DiscretisedPLD` (cell masses from the closed-form
distribution function of the loss, residuals in ``[0, h]``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import flint
import sympy

from ..._validate import argument_error, check_int
from ...exact.arb import flint_prec, to_arb
from ...exact.signs import UndecidedSignError, exact_zero
from ...numbers import exact_number
from .core import PrivacyLossDistribution
from .grid import (
    DiscretisedPLD,
    LatticeComponent,
    LatticePiece,
    check_tolerances,
    composition,
)
from .results import EpsilonResult, HockeyStick, bisect_epsilon, check_delta, check_epsilon

_BITS = 128
#: Largest erfc argument whose closed form sympy evaluates (0.003 s at 1e60; mpmath
#: overflows near 1e150 and sympy's evalf then retries for minutes).
ERFC_EXACT_LIMIT = 1e60
#: Standard deviations of the Gaussian loss kept on the lattice; the rest (below 2e-33 on
#: each side) is a ball ``[0, tail]`` on the first lattice point and in the mass at infinity.
GAUSSIAN_TAIL_SDS = 12


def _positive(func: str, name: str, value: object) -> sympy.Expr:
    v = exact_number(value, name, func=func)
    if v.free_symbols or not v.is_finite or not v.is_positive:
        raise argument_error(func, name, "a finite number > 0", value)
    return v


def _ball(eps: sympy.Expr, value_ball: flint.arb, algorithm: str, caveat: str, k: int,
          exact) -> HockeyStick:
    return HockeyStick(eps, value_ball, algorithm, True, caveat, k, exact)


@dataclass(frozen=True, eq=False)
class LaplacePLD(LatticeComponent):
    """The PLD of the Laplace mechanism (scale ``b``) on a count of sensitivity ``Delta``.

    Build it with :func:`laplace_privacy_loss_distribution`.

    Attributes
    ----------
    scale : sympy.Expr
    sensitivity : sympy.Expr
    """

    scale: sympy.Expr
    sensitivity: sympy.Expr

    k = 1
    p_inf = sympy.Integer(0)

    @property
    def epsilon0(self) -> sympy.Expr:
        """``Delta / b``: the largest loss (the mechanism is ``epsilon0``-DP)."""
        return self.sensitivity / self.scale

    @property
    def description(self) -> str:
        return f"Laplace(scale={self.scale}, sensitivity={self.sensitivity})"

    def delta(self, epsilon: object, rtol: float = 1e-3, atol: float = 1e-12) -> HockeyStick:
        """``delta(eps) = max(0, 1 - exp((eps - e0)/2))`` (closed form, certified ball)."""
        eps = check_epsilon(epsilon, "delta")
        check_tolerances("delta", rtol, atol)
        e0 = self.epsilon0
        with flint_prec(_BITS):
            d = to_arb(eps, _BITS) - to_arb(e0, _BITS)
            if d >= 0:
                ball, expr = flint.arb(0), sympy.Integer(0)
            elif d < 0:
                ball = -(d / 2).expm1()  # 1 - e^(d/2) without cancellation
                expr = 1 - sympy.exp((eps - e0) / 2)
            else:  # eps = e0 up to the balls: decide exactly
                if exact_zero(eps - e0):  # exact algebra, or None when undecidable
                    ball, expr = flint.arb(0), sympy.Integer(0)
                else:
                    raise UndecidedSignError(
                        "delta: cannot decide whether epsilon reaches the largest loss e0")
        return _ball(eps, ball, "closed form", "closed-form Laplace privacy curve", 1,
                     lambda: expr)

    def epsilon(self, delta: object, rtol: float = 1e-3, atol: float = 1e-12) -> EpsilonResult:
        """``max(0, e0 + 2 ln(1 - delta))`` enclosed in exact dyadic bounds."""
        target = check_delta(delta, "epsilon")
        check_tolerances("epsilon", rtol, atol)
        return bisect_epsilon(self, target, 30, "closed-form Laplace privacy curve")

    def delta_ball(self, epsilon: flint.arb, bits: int) -> flint.arb:
        with flint_prec(bits):
            d = epsilon - to_arb(self.epsilon0, bits)
            t = -(d / 2).expm1()
            return _pos(t)

    def max_loss(self, bits: int = 128) -> flint.arb:
        return to_arb(self.epsilon0, bits)

    def compose(self, other) -> DiscretisedPLD:
        """The composition with another PLD (on the loss lattice)."""
        return composition((self, other))

    def self_compose(self, k: int) -> DiscretisedPLD:
        """k copies, on the loss lattice."""
        k = check_int("self_compose", "k", k, 1)
        return DiscretisedPLD(((self, k),), f"{k}-fold composition of ({self.description})")

    # lattice interface
    bounded = True

    def lattice_losses(self) -> None:
        return None

    def loss_span(self) -> float:
        return 2 * float(self.epsilon0)

    def lattice(self, h: flint.arb, bits: int) -> LatticePiece:
        """Cells ``[-e0 + j h, -e0 + (j+1) h)`` of the density, the two atoms at their nearest
        lattice points; residuals in ``[min(0, r), max(h, r)]``."""
        with flint_prec(bits):
            e0 = to_arb(self.epsilon0, bits)
            o = -e0
            n = max(1, math.ceil(float((2 * e0 / h).mid())))
            while not o + n * h >= e0:
                n += 1
            masses = [flint.arb(0)] * (n + 1)

            def upper_tail(t: flint.arb) -> flint.arb:  # P(t <= L < e0), density part
                return (1 - (-(e0 - t) / 2).exp()) / 2

            for j in range(n):
                t1 = o + j * h
                t2 = o + (j + 1) * h if j < n - 1 else e0
                masses[j] += upper_tail(t1) - upper_tail(t2)
            masses[0] += (-e0).exp() / 2  # the atom at -e0 (residual 0)
            top = round(float((2 * e0 / h).mid()))
            r = 2 * e0 - top * h
            masses[top] += flint.arb(1) / 2
            r_lo = flint.arb(0) if r.lower() >= 0 else flint.arb(r.lower())
            r_hi = flint.arb(max(h.upper(), r.upper()))
            return LatticePiece(o, masses, r_lo, r_hi, flint.arb(0))

    def __repr__(self) -> str:
        return f"LaplacePLD(scale={self.scale}, sensitivity={self.sensitivity})"


@dataclass(frozen=True, eq=False)
class GaussianPLD(LatticeComponent):
    """The PLD of the Gaussian mechanism (standard deviation ``sigma``) on a count.

    Build it with :func:`gaussian_privacy_loss_distribution`; ``k`` copies compose exactly
    into one Gaussian with ``sensitivity * sqrt(k)``.
    """

    sigma: sympy.Expr
    sensitivity: sympy.Expr
    k: int = 1

    p_inf = sympy.Integer(0)
    bounded = False

    @property
    def a(self) -> sympy.Expr:
        """``sensitivity * sqrt(k) / sigma``: the loss is ``N(a^2/2, a^2)`` under P."""
        return self.sensitivity * sympy.sqrt(self.k) / self.sigma

    @property
    def description(self) -> str:
        head = f"Gaussian(sigma={self.sigma}, sensitivity={self.sensitivity})"
        return head if self.k == 1 else f"{self.k}-fold composition of ({head})"

    def _expr(self, eps: sympy.Expr) -> sympy.Expr:
        a = self.a
        phi = lambda x: sympy.erfc(-x / sympy.sqrt(2)) / 2  # noqa: E731
        return phi(a / 2 - eps / a) - sympy.exp(eps) * phi(-a / 2 - eps / a)

    def delta_ball(self, epsilon: flint.arb, bits: int) -> flint.arb:
        with flint_prec(bits):
            a = to_arb(self.a, bits)
            s2 = flint.arb(2).sqrt()
            first = (-(a / 2 - epsilon / a) / s2).erfc() / 2
            second = epsilon.exp() * (-(-a / 2 - epsilon / a) / s2).erfc() / 2
            return _pos(first - second)

    def delta(self, epsilon: object, rtol: float = 1e-3, atol: float = 1e-12) -> HockeyStick:
        """``Phi(a/2 - eps/a) - e^eps Phi(-a/2 - eps/a)`` (closed form, certified ball).

        Beyond erfc arguments of :data:`ERFC_EXACT_LIMIT` (sigma near ``1e300`` or
        ``1e-300``) sympy cannot evaluate the closed form: ``value`` is None there and the
        certified ball alone is the result (``[0, 4e-34856892...]`` at ``sigma=1e300``)."""
        eps = check_epsilon(epsilon, "delta")
        check_tolerances("delta", rtol, atol)
        eps_ball = to_arb(eps, _BITS)
        ball = self.delta_ball(eps_ball, _BITS)
        with flint_prec(_BITS):
            a = to_arb(self.a, _BITS)
            big = max(abs(a / 2 - eps_ball / a).upper(), abs(a / 2 + eps_ball / a).upper(),
                      key=float)
        exact = (lambda: self._expr(eps)) if float(big) <= ERFC_EXACT_LIMIT else None
        return _ball(eps, ball, "closed form", "closed-form Gaussian privacy curve", self.k,
                     exact)

    def epsilon(self, delta: object, rtol: float = 1e-3, atol: float = 1e-12) -> EpsilonResult:
        """The least epsilon with ``delta(epsilon) <= delta`` (certified bisection)."""
        target = check_delta(delta, "epsilon")
        check_tolerances("epsilon", rtol, atol)
        if target == 0:
            return EpsilonResult(target, sympy.Integer(0), None, True,
                                 "the Gaussian curve is positive at every epsilon")
        return bisect_epsilon(self, target, 30, "closed-form Gaussian privacy curve")

    def max_loss(self, bits: int = 128) -> flint.arb:
        """``a^2/2 + 40 a``: beyond it the curve is below 1e-340 (for bisection only)."""
        with flint_prec(bits):
            a = to_arb(self.a, bits)
            return a * a / 2 + 40 * a

    def compose(self, other):
        """Exact for another Gaussian of the same sigma and sensitivity; else the lattice."""
        if isinstance(other, GaussianPLD) and (other.sigma, other.sensitivity) == (
                self.sigma, self.sensitivity):
            return GaussianPLD(self.sigma, self.sensitivity, self.k + other.k)
        return composition((self, other))

    def self_compose(self, k: int) -> GaussianPLD:
        """k copies: one Gaussian with ``a sqrt(k)`` (exact)."""
        k = check_int("self_compose", "k", k, 1)
        return GaussianPLD(self.sigma, self.sensitivity, self.k * k)

    # lattice interface
    def lattice_losses(self) -> None:
        return None

    def loss_span(self) -> float:
        return 2 * GAUSSIAN_TAIL_SDS * float(self.a)

    def lattice(self, h: flint.arb, bits: int) -> LatticePiece:
        """Cells of the loss ``N(mu, a^2)`` over ``mu +- 12 a``; the tails as balls."""
        with flint_prec(bits):
            a = to_arb(self.a, bits)
            mu = a * a / 2
            o = mu - GAUSSIAN_TAIL_SDS * a
            n = max(1, math.ceil(float((2 * GAUSSIAN_TAIL_SDS * a / h).mid())))
            s2 = flint.arb(2).sqrt()

            def above(t: flint.arb) -> flint.arb:  # P(L >= t)
                return ((t - mu) / (a * s2)).erfc() / 2

            vals = [above(o + j * h) for j in range(n + 1)]
            masses = [vals[j] - vals[j + 1] for j in range(n)]
            low_tail = 1 - above(o)
            masses[0] += flint.arb(0).union(flint.arb(low_tail.upper()))
            high_tail = vals[n]
            p_inf = flint.arb(0).union(flint.arb(high_tail.upper()))
            return LatticePiece(o, masses, flint.arb(0), flint.arb(h.upper()), p_inf)

    def __repr__(self) -> str:
        return (f"GaussianPLD(sigma={self.sigma}, sensitivity={self.sensitivity}, "
                f"k={self.k})")


def _pos(t: flint.arb) -> flint.arb:
    if t > 0:
        return t
    if t < 0 or t == 0:
        return flint.arb(0)
    hi = t.upper()
    return flint.arb(0).union(flint.arb(hi)) if hi > 0 else flint.arb(0)


def laplace_privacy_loss_distribution(scale: object, sensitivity: object = 1) -> LaplacePLD:
    """The PLD of Laplace noise of scale ``scale`` on a count of sensitivity ``sensitivity``.

    Parameters
    ----------
    scale, sensitivity : number
        Exact positive numbers; the mechanism is ``sensitivity/scale``-DP.

    Returns
    -------
    LaplacePLD
        Closed-form ``delta`` / ``epsilon``; composes with pair PLDs and itself
        (:func:`exactdp.compose`, ``self_compose``) on the certified loss lattice.

    Raises
    ------
    ValueError
        If ``scale`` or ``sensitivity`` is not a finite positive number.

    Examples
    --------
    >>> import exactdp
    >>> float(exactdp.laplace_privacy_loss_distribution(1).delta(0).value)  # 1 - e^(-1/2)
    0.3934693402873666
    """
    func = "laplace_privacy_loss_distribution"
    return LaplacePLD(_positive(func, "scale", scale), _positive(func, "sensitivity", sensitivity))


def gaussian_privacy_loss_distribution(sigma: object, sensitivity: object = 1) -> GaussianPLD:
    """The PLD of Gaussian noise (standard deviation ``sigma``) on a count.

    Parameters
    ----------
    sigma, sensitivity : number
        Exact positive numbers.

    Returns
    -------
    GaussianPLD
        Closed-form ``delta`` / ``epsilon`` (Balle & Wang 2018); ``self_compose(k)`` is
        exact, composition with other PLDs uses the certified loss lattice.

    Raises
    ------
    ValueError
        If ``sigma`` or ``sensitivity`` is not a finite positive number.

    Examples
    --------
    >>> import exactdp
    >>> round(float(exactdp.gaussian_privacy_loss_distribution(1).delta(1)), 6)
    0.126937
    """
    func = "gaussian_privacy_loss_distribution"
    return GaussianPLD(_positive(func, "sigma", sigma),
                       _positive(func, "sensitivity", sensitivity))


def compose(*plds) -> object:
    """The composition of privacy-loss distributions (pair PLDs, Laplace, Gaussian, composed).

    Exact when every part is an exact pair PLD and the product fits the support limit; else
    a :class:`~exactdp.analysis.pld.grid.DiscretisedPLD` whose ``delta`` / ``epsilon`` are
    certified two-sided enclosures.

    Parameters
    ----------
    *plds : PLD
        At least one.

    Returns
    -------
    PrivacyLossDistribution, GaussianPLD or DiscretisedPLD

    Raises
    ------
    ValueError
        With no PLD, or an argument that is not a PLD.

    Examples
    --------
    >>> import exactdp
    >>> pf = exactdp.privacy_loss_distribution(exactdp.PermuteAndFlip(1), [0, 1], [1, 0])
    >>> lap = exactdp.laplace_privacy_loss_distribution(1)
    >>> h = exactdp.compose(pf, lap).delta(1)
    >>> h.lower <= h.upper
    True
    """
    kinds = (PrivacyLossDistribution, LaplacePLD, GaussianPLD, DiscretisedPLD)
    if not plds:
        raise argument_error("compose", "plds", "at least one privacy-loss distribution", ())
    for i, p in enumerate(plds):
        if not isinstance(p, kinds):
            raise argument_error("compose", f"plds[{i}]", "a privacy-loss distribution", p)
    if all(isinstance(p, PrivacyLossDistribution) for p in plds):
        out = plds[0]
        try:
            for p in plds[1:]:
                out = out.compose(p)
            return out
        except ValueError:
            pass
    if all(isinstance(p, GaussianPLD) for p in plds):
        out = plds[0]
        for p in plds[1:]:
            out = out.compose(p)
        return out
    return composition(tuple(plds))
