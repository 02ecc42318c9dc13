"""Certified two-sided privacy curves of compositions on a loss lattice.

A :class:`DiscretisedPLD` is a composition ``pld_1^k_1 o pld_2^k_2 o ...`` of privacy-loss
distributions (exact pair PLDs, :class:`LaplacePLD`, :class:`GaussianPLD`) that is too large to
count exactly. ``delta(eps, rtol, atol)`` encloses its privacy curve between a certified
``lower`` and ``upper`` bound and refines the lattice until they are ``rtol`` apart.

Method (rigorous version of the optimistic / pessimistic discretisation of Meiser &
Mohammadi 2018 and Koskela, Jalko & Honkela 2020):

- each component is put on the lattice ``o + j*h`` (``o`` its smallest loss, ``h`` a common
  step): every unit of P-mass at lattice index ``j`` has its true loss in
  ``[o + j*h + r_lo, o + j*h + r_hi]`` (a finite atom ``l`` goes to the nearest index, its
  residual ``l - o - j*h`` enclosed in a ball; a continuous part puts the mass of the cell
  ``[o + j*h, o + (j+1)*h)`` at ``j``, residual in ``[0, h]``). Tails of an unbounded loss
  are balls ``[0, tail]`` on the last lattice point (and in the mass at infinity);
- ``delta(eps) = p_inf + E_P[(1 - e^(eps - L))_+]`` increases in every loss and every mass and
  the loss of a composition is the sum of the losses, so the lattice masses composed with the
  offset ``sum k_i (o_i + r_lo_i)`` give a certified lower bound, with ``sum k_i (o_i + r_hi_i)``
  an upper bound: the two curves differ by the shift ``sum k_i (r_hi_i - r_lo_i)``;
- the step ``h`` is chosen so that the finite atoms lie (nearly) on the lattice: many pairs
  have losses at rational multiples of one step (EM on integer scores: ``1/2``), then the
  spread is the width of the balls (about ``k * 2^-120``) and the bounds coincide to working
  precision on a short lattice;
- the masses are convolved with python-flint ``arb_poly`` products (repeated squaring):
  rigorous balls, no floating-point FFT; the sum over the lattice at ``eps`` is two
  ``arb_poly`` evaluations at ``e^-h``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np
import sympy

from ..._validate import argument_error, check_int, check_real
from ...cost import fmt_size, refuse
from ...exact.arb import flint_prec, to_arb
from .._balls import arb_lower_fraction
from .results import (
    EpsilonResult,
    HockeyStick,
    bisect_epsilon,
    check_delta,
    check_epsilon,
    power_by_squaring,
)

#: Working precision (bits) of the lattice masses and sums.
GRID_BITS = 128
#: Longest composed lattice (points) a delta or epsilon call builds (about 30 s of arb_poly
#: products on one core, ``docs/benchmarks.md``).
MAX_GRID_POINTS = 4 * 10**6
#: Seconds per composed lattice point (arb_poly squaring chain at GRID_BITS, 2-core x86-64).
SECONDS_PER_POINT = 8e-6
#: Lattice-step candidates tried per component (``h = d_max / n`` for ``n <= this``).
MAX_STEP_CANDIDATES = 20_000
#: Fixed-point bits of the lattice masses: each mass ``m`` is kept as the integers
#: ``floor(m 2^F)`` (lower) and ``ceil(m 2^F)`` (upper), multiplied exactly (flint
#: ``fmpz_poly``) and rescaled by ``2^-F`` rounding down / up after every product.
FIXED_BITS = 80
#: Upper masses below ``2^(FIXED_BITS - TRIM_BITS)`` units (of ``2^-F``, whatever ``F``) are
#: dropped from the polynomials and carried as "slack": mass at an unknown loss, which adds
#: between 0 and itself to
#: delta (0 to the lower bound, all of it to the upper). The composed masses concentrate on
#: a few standard deviations of the loss, so this keeps the polynomials short.
TRIM_BITS = 64
#: The exact-step lattice (:meth:`DiscretisedPLD._enclose_exact_step`) refines its fixed-point
#: bits until ``upper - lower <= EXACT_STEP_RTOL * lower``: 2^-50, below 1e-15.
EXACT_STEP_RTOL = Fraction(1, 2**50)
#: Most fixed-point bits the exact-step lattice uses (a delta near 2^-3900).
MAX_FIXED_BITS = 4096


#: Total loss spread of the first lattice tried; each refinement scales it by the ratio of
#: the wanted gap to the gap found (the gap is about linear in the spread).
_FIRST_SPREAD = 0.25
#: Largest estimated time (seconds) of the first lattice: a longer one is replaced by a
#: coarser one (4 times the spread per step), whose gap predicts the lattice the tolerance
#: needs, so that a refusal comes before any long lattice is built (k = 1e4 at rtol 1e-6
#: was refused after a first lattice of 7 s).
FIRST_LATTICE_SECONDS = 0.4

#: Most points of a lattice on the exact step (:func:`exact_step`) taken as the first
#: lattice (the lattice the first-lattice time budget allows).
EXACT_STEP_POINTS = int(FIRST_LATTICE_SECONDS / SECONDS_PER_POINT)


def _next_spread(spread: float, lower: float, gap: float, rtol: float, atol: float) -> float:
    """The spread the next lattice aims at (the gap is about linear in it); from a coarse
    first lattice whose lower bound is still 0 only a step down by 4 (no extrapolation)."""
    wanted = spread * max(rtol * lower, atol) / gap / 2
    if lower == 0 and spread > _FIRST_SPREAD:
        return max(wanted, spread / 4)
    return wanted


def check_tolerances(func: str, rtol: object, atol: object) -> tuple[float, float]:
    """``rtol`` and ``atol`` as floats in (0, 1) (one-line ValueError naming the argument)."""
    return (check_real(func, "rtol", rtol, 0, 1, low_open=True, high_open=True),
            check_real(func, "atol", atol, 0, 1, low_open=True, high_open=True))


class LatticeComponent:
    """Base of the PLDs that only the lattice composes (Laplace, Gaussian): they provide
    ``lattice(h, bits)``, ``lattice_losses()``, ``lattice_step()``, ``loss_span()``,
    ``max_loss(bits)``, ``k``, ``p_inf``, ``bounded`` and ``description``."""

    def lattice_step(self) -> sympy.Expr | None:
        """No exact lattice step: the loss has a continuous part."""
        return None


def exact_step(parts) -> sympy.Expr | None:
    """An exact step ``h`` with every component's finite losses on ``o_i + h Z``, or None.

    Each component's ``lattice_step()`` (the pair PLD's commensurable step, e.g. EM on
    rational scores: ``rate/N``); their ratios must be rational, and ``h`` is the step times
    the gcd of the ratios (the gcd of rationals ``a_i/b_i``: ``gcd(a_i)/lcm(b_i)``). On it
    every residual is the width of a ball, so the lower and upper curves coincide to working
    precision.
    """
    steps = [comp.lattice_step() for comp, _ in parts]
    if not steps or any(h is None for h in steps):
        return None
    ratios = [sympy.cancel(h / steps[0]) for h in steps]
    if not all(r.is_Rational and r > 0 for r in ratios):
        return None
    g = sympy.Rational(math.gcd(*(int(r.p) for r in ratios)),
                       math.lcm(*(int(r.q) for r in ratios)))
    return steps[0] * g


@dataclass(frozen=True)
class LatticePiece:
    """One component on the lattice ``offset + j*h``: masses and the residual interval."""

    offset: flint.arb
    masses: list
    r_lo: flint.arb
    r_hi: flint.arb
    p_inf: flint.arb


def _point(x: flint.arb, side: str) -> flint.arb:
    return flint.arb(x.lower() if side == "lo" else x.upper())


def atoms_on_lattice(losses: list, masses: list, p_inf: flint.arb, h: flint.arb) -> LatticePiece:
    """Finite atoms (balls of loss and P-mass) at their nearest lattice index."""
    lf = [float(b.mid()) for b in losses]
    ref = int(np.argmin(lf))
    o = losses[ref]
    hf = float(h.mid())
    idx = [max(0, round((v - lf[ref]) / hf)) for v in lf]
    vec = [flint.arb(0)] * (max(idx) + 1)
    r_lo, r_hi = flint.arb(0), flint.arb(0)
    for loss, mass, j in zip(losses, masses, idx, strict=True):
        vec[j] = vec[j] + mass
        r = loss - o - j * h
        lo, hi = _point(r, "lo"), _point(r, "hi")
        r_lo = lo if lo < r_lo else r_lo
        r_hi = hi if hi > r_hi else r_hi
    return LatticePiece(o, vec, r_lo, r_hi, p_inf)


def best_step(parts: list, target: float) -> tuple[float, tuple | None]:
    """Largest lattice step whose spread ``sum_i k_i (r_hi_i - r_lo_i)`` stays below ``target``.

    A float search (it only chooses the lattice; the spread used later is certified): the
    candidates are ``d / n`` for each discrete component's loss span ``d`` and powers of two.
    Returns the step and, for ``d / n``, ``(component index, n)`` so that the step can be
    rebuilt as a ball of the exact ``d / n``.
    """
    cont = sum(k for comp, k in parts if comp.lattice_losses() is None)
    # candidates as arrays (value, component, n), sorted by decreasing value, ties in the
    # order listed (stable): powers of two first, then each component's span / n
    h_parts = [2.0 ** -np.arange(-4, 60)]
    src_parts = [np.full(64, -1)]
    n_all = np.arange(1, MAX_STEP_CANDIDATES + 1)
    n_parts = [np.zeros(64, dtype=np.int64)]
    discrete = []
    for i, (comp, k) in enumerate(parts):
        losses = comp.lattice_losses()
        if losses is None:
            continue
        d = np.array(losses)
        discrete.append((d, k))
        span = float(d.max() - d.min())
        if span > 0:
            h_parts.append(span / n_all)
            src_parts.append(np.full(n_all.size, i))
            n_parts.append(n_all)
    order = np.argsort(-np.concatenate(h_parts), kind="stable")
    h = np.concatenate(h_parts)[order]
    src, ns = np.concatenate(src_parts)[order], np.concatenate(n_parts)[order]
    spread = cont * h
    for d, k in discrete:
        diff = (d - d.min())[None, :]
        r = diff - np.round(diff / h[:, None]) * h[:, None]
        spread = spread + k * (np.maximum(r.max(axis=1), 0) - np.minimum(r.min(axis=1), 0)
                               + 1e-30)
    ok = np.nonzero(spread <= target)[0]
    j = int(ok[0]) if ok.size else -1
    return float(h[j]), (None if src[j] < 0 else (int(src[j]), int(ns[j])))


def _step_ball(parts: tuple, step: tuple[float, object], bits: int) -> flint.arb:
    """The lattice step as a ball: of the exact step (:func:`exact_step`), exact for a power
    of two or a small rational, else the ball of ``span / n`` of the component it came
    from."""
    h_float, source = step
    if isinstance(source, sympy.Expr):
        return to_arb(source, bits)
    exact = Fraction(h_float)
    if isinstance(source, tuple):
        guess = exact.limit_denominator(10**6)
        if abs(guess - exact) <= exact * Fraction(1, 10**13):
            exact = guess
        else:
            comp, _ = parts[source[0]]
            losses = comp.lattice_ball_span(bits)
            return losses / source[1]
    return flint.arb(flint.fmpq(exact.numerator, exact.denominator))


@dataclass(frozen=True, eq=False)
class DiscretisedPLD:
    """A composition of PLDs whose privacy curve is enclosed on a loss lattice.

    Attributes
    ----------
    parts : tuple of (PLD, int)
        Components and how many copies of each (exact pair PLDs, Laplace, Gaussian).
    description : str
    """

    parts: tuple
    description: str

    @property
    def k(self) -> int:
        """Total number of composed copies."""
        return sum(k * comp.k for comp, k in self.parts)

    @property
    def p_inf(self) -> sympy.Expr:
        """Exact P-mass at infinite loss of the composition."""
        keep = sympy.Integer(1)
        for comp, k in self.parts:
            keep *= (1 - comp.p_inf) ** k
        return sympy.expand(1 - keep)

    def compose(self, other) -> DiscretisedPLD:
        """The composition with another PLD (components are collected, nothing is computed)."""
        return DiscretisedPLD(_merge(self.parts + _parts(other)),
                              f"({self.description}) o ({other.description})")

    def self_compose(self, k: int) -> DiscretisedPLD:
        """The k-fold composition (lazy: the lattice is built when delta is asked)."""
        k = check_int("self_compose", "k", k, 1)
        return DiscretisedPLD(tuple((c, n * k) for c, n in self.parts),
                              f"{k}-fold composition of ({self.description})")

    def max_loss(self, bits: int = 128) -> flint.arb:
        """A ball around the largest finite loss of the composition."""
        with flint_prec(bits):
            return sum((k * comp.max_loss(bits) for comp, k in self.parts), flint.arb(0))

    # ------------------------------------------------------------------ the lattice
    def _points(self, h: float) -> int:
        return int(sum(k * comp.loss_span() for comp, k in self.parts) / h) + 1

    def exact_step_fits(self) -> sympy.Expr | None:
        """The exact lattice step (:func:`exact_step`) when its lattice has at most
        :data:`EXACT_STEP_POINTS` points, else None."""
        h = exact_step(self.parts)
        if h is None or self._points(float(h)) > EXACT_STEP_POINTS:
            return None
        return h

    def _first_spread(self) -> tuple[float, tuple[float, object]]:
        """The spread of the first lattice and its step: :data:`_FIRST_SPREAD`, or a coarser
        one (times 4 per step) when that lattice would take more than
        :data:`FIRST_LATTICE_SECONDS`; :data:`_FIRST_SPREAD` again when no coarser one is
        short enough (then :meth:`_check_cost` refuses it, or it is built as it was)."""
        exact = self.exact_step_fits()
        if exact is not None:
            return _FIRST_SPREAD, (float(exact), exact)
        first = best_step(list(self.parts), _FIRST_SPREAD)
        target, step = _FIRST_SPREAD, first
        for i in range(7):
            if self._points(step[0]) * SECONDS_PER_POINT <= FIRST_LATTICE_SECONDS:
                return target, step
            if i < 6:
                target *= 4
                step = best_step(list(self.parts), target)
        return _FIRST_SPREAD, first

    def _check_cost(self, func: str, h: float, rtol: float, atol: float, gap: float | None):
        points = self._points(h)
        if points <= MAX_GRID_POINTS:
            return
        if gap is None:  # the first, coarsest lattice: its size does not depend on rtol
            fit = max(1, int(self.k * math.sqrt(MAX_GRID_POINTS / points)))
            cheaper = (f"even the coarsest lattice is too long: compose at most about {fit} "
                       "copies (the lattice grows like k^2 at a fixed spread), or ask a coarser "
                       "tolerance (rtol)")
        elif rtol * points / MAX_GRID_POINTS * 2 < 0.5:  # the gap ~ linear in the spread
            cheaper = (f"ask a coarser tolerance: rtol = "
                       f"{rtol * points / MAX_GRID_POINTS * 2:.1g} fits")
        else:
            cheaper = "ask a coarser tolerance (rtol), or compose fewer copies"
        raise refuse(func, f"the certified lattice for {self.k} copies at rtol={rtol:g}, "
                     f"atol={atol:g}",
                     f"{fmt_size(points)} lattice points (about "
                     f"{fmt_size(points * SECONDS_PER_POINT)} s)",
                     f"{fmt_size(MAX_GRID_POINTS)} points", cheaper)

    def _build(self, step: tuple, bits: int, fixed: int = FIXED_BITS):
        """(h ball, composed masses (lower, upper fmpz_poly), offset_lo, offset_hi, p_inf
        ball, slack ball, fixed-point bits)."""
        with flint_prec(bits):
            h = _step_ball(self.parts, step, bits)
            pieces = [(comp.lattice(h, bits), k) for comp, k in self.parts]
            poly, off_lo, off_hi, keep = None, flint.arb(0), flint.arb(0), flint.arb(1)

            def product(a: tuple, b: tuple) -> tuple:
                return _product(a, b, fixed)

            for piece, k in pieces:
                power = power_by_squaring(_fixed(piece.masses, fixed), k, product)
                poly = power if poly is None else product(poly, power)
                off_lo += k * (piece.offset + piece.r_lo)
                off_hi += k * (piece.offset + piece.r_hi)
                keep *= (1 - piece.p_inf) ** k
            assert poly is not None, "a composition has at least one part"
            lo, hi, shift, slack = poly
            scale = flint.arb(2) ** -fixed
            return (h, (lo, hi), off_lo + shift * h, off_hi + shift * h, 1 - keep,
                    flint.arb(slack) * scale, fixed)

    def _enclose(self, eps: sympy.Expr, rtol: float, atol: float, func: str):
        """Refine the lattice until ``upper - lower <= max(rtol * lower, atol)``."""
        bits = GRID_BITS
        target, step = self._first_spread()
        if isinstance(step[1], sympy.Expr):
            found = self._enclose_exact_step(eps, step, max(rtol, atol))
            if found is not None:
                return found
            step = best_step(list(self.parts), target)
        gap = None
        for i in range(8):
            step = step if i == 0 else best_step(list(self.parts), target)
            h = step[0]
            self._check_cost(func, h, rtol, atol, gap)
            lower, upper = self._bounds(self._build(step, bits), eps, bits)
            gap = float(upper - lower)
            if gap <= max(rtol * float(lower), atol):
                return lower, upper, h
            target = _next_spread(max(target, 1e-300), float(lower), gap, rtol, atol)
        raise refuse(func, f"the certified lattice at rtol={rtol:g}, atol={atol:g}",
                     f"a gap of {gap:.3g} after 8 refinements", f"rtol={rtol:g}",
                     "ask a coarser tolerance (rtol)")

    @staticmethod
    def _bounds(grid, eps: sympy.Expr, bits: int) -> tuple[Fraction, Fraction]:
        """Certified (lower, upper) of delta at ``eps`` on a built lattice."""
        with flint_prec(bits):
            e = to_arb(eps, bits)
            lo = _curve(grid, e, "lo", bits)
            hi = _curve(grid, e, "hi", bits)
            return max(Fraction(0), arb_lower_fraction(lo)), min(
                Fraction(1), -arb_lower_fraction(-hi))

    def _enclose_exact_step(self, eps: sympy.Expr, step: tuple, tol: float):
        """(lower, upper, h) on the exact step (:func:`exact_step`), or None.

        Every residual is a ball's width there, so the gap is the fixed-point rounding and
        the trimmed tail (absolute, ``2^-F``): ``F`` grows until ``upper - lower`` is within
        :data:`EXACT_STEP_RTOL` of ``lower`` (the 53-bit ends of an exact count's ball are
        about ``2^-52`` apart), at most :data:`MAX_FIXED_BITS`; there, the bounds if their
        gap is below ``tol`` (a delta below ``2^-4000``), else None.
        """
        fixed = FIXED_BITS
        while True:
            bits = max(GRID_BITS, fixed + 64)
            lower, upper = self._bounds(self._build(step, bits, fixed), eps, bits)
            if upper - lower <= EXACT_STEP_RTOL * lower:
                return lower, upper, step[0]
            if fixed >= MAX_FIXED_BITS:
                return (lower, upper, step[0]) if upper - lower <= tol else None
            short = (math.log2(float(upper - lower)) - math.log2(float(lower))
                     if lower > 0 else fixed)
            fixed = min(MAX_FIXED_BITS, fixed + max(16, int(short) + 64))

    # ------------------------------------------------------------------ numbers
    def delta(self, epsilon: object, rtol: float = 1e-3, atol: float = 1e-12) -> HockeyStick:
        """Certified ``lower <= delta(epsilon) <= upper`` of the composition.

        Parameters
        ----------
        epsilon : number
            Exact input, >= 0.
        rtol, atol : float
            The lattice is refined until ``upper - lower <= max(rtol * lower, atol)``.

        Returns
        -------
        HockeyStick
            ``algorithm="grid"`` (both bounds certified, no exact value) or ``"exact"``
            beyond k times the largest finite loss (delta is the mass at infinite loss).

        Raises
        ------
        ValueError
            Bad epsilon or tolerance; or the lattice the tolerance needs exceeds the cost
            model (the message names a coarser tolerance).
        """
        eps = check_epsilon(epsilon, "delta")
        rtol, atol = check_tolerances("delta", rtol, atol)
        bits = GRID_BITS
        with flint_prec(bits):
            beyond = all(comp.bounded for comp, _ in self.parts) and (
                to_arb(eps, bits) >= self.max_loss(bits))
        if beyond:
            p_inf = self.p_inf
            return HockeyStick(eps, to_arb(p_inf, bits), "exact", True,
                               "exact: epsilon is beyond k times the largest finite loss, so "
                               "delta is the mass at infinite loss", self.k, lambda: p_inf)
        lower, upper, h = self._enclose(eps, rtol, atol, "delta")
        with flint_prec(bits):
            ball = flint.arb(flint.fmpq(lower.numerator, lower.denominator)).union(
                flint.arb(flint.fmpq(upper.numerator, upper.denominator)))
        return HockeyStick(eps, ball, "grid", True,
                           f"certified enclosure on a loss lattice of step {h:.6g}: losses "
                           "shifted down (lower) and up (upper)", self.k)

    def epsilon(self, delta: object, rtol: float = 1e-3, atol: float = 1e-12) -> EpsilonResult:
        """Certified ``[lower, upper]`` around the least epsilon with ``delta(epsilon) <= delta``.

        ``lower`` is the epsilon of the lower-bound curve, ``upper`` that of the upper-bound
        curve; the lattice is refined until ``upper - lower <= max(rtol * lower, atol)``.
        """
        target = check_delta(delta, "epsilon")
        rtol, atol = check_tolerances("epsilon", rtol, atol)
        bits = GRID_BITS
        spread_target, step = self._first_spread()
        gap = None
        for i in range(8):
            step = step if i == 0 else best_step(list(self.parts), spread_target)
            h = step[0]
            self._check_cost("epsilon", h, rtol, atol, gap)
            grid = self._build(step, bits)
            dps = max(6, int(-math.log10(min(rtol, atol * 10) / 10)) + 1)
            lo = bisect_epsilon(_Curve(self, grid, "lo"), target, dps, "")
            hi = bisect_epsilon(_Curve(self, grid, "hi"), target, dps, "")
            if hi.upper is None:
                return EpsilonResult(target, lo.lower, None, True, "certified lattice: the "
                                     "mass at infinite loss may exceed delta")
            gap = float(hi.upper - lo.lower)
            if gap <= max(rtol * float(lo.lower), atol):
                return EpsilonResult(target, lo.lower, hi.upper, True,
                                     f"certified enclosure on a loss lattice of step {h:.6g}")
            spread_target = _next_spread(spread_target, float(lo.lower), gap, rtol, atol)
        raise refuse("epsilon", f"the certified lattice at rtol={rtol:g}", f"a gap of {gap:.3g}",
                     f"rtol={rtol:g}", "ask a coarser tolerance (rtol)")

    def __repr__(self) -> str:
        return f"DiscretisedPLD(k={self.k}, {self.description})"




def _fixed(masses: list, fixed: int = FIXED_BITS) -> tuple:
    """(lower, upper, shift, slack) fixed-point integer polynomials of arb masses, in units
    of ``2^-fixed``."""
    scale = flint.arb(2) ** fixed
    lo, hi = [], []
    for m in masses:
        b = m * scale
        lo.append(max(0, int(b.lower().floor().unique_fmpz())))
        hi.append(max(0, int(b.upper().ceil().unique_fmpz())))
    return _trim(lo, hi, 0, 0)


def _trim(lo: list, hi: list, shift: int, slack: int) -> tuple:
    """Drop upper coefficients below the trim level (into ``slack``), cut zero ends."""
    level = 1 << (FIXED_BITS - TRIM_BITS)
    keep = [v >= level for v in hi]
    if not any(keep):
        return flint.fmpz_poly([0]), flint.fmpz_poly([0]), shift, slack + sum(hi)
    first = keep.index(True)
    last = len(keep) - 1 - keep[::-1].index(True)
    dropped = sum(v for v, k in zip(hi, keep, strict=True) if not k)
    lo_kept = [v if k else 0 for v, k in zip(lo[first:last + 1], keep[first:last + 1],
                                               strict=True)]
    return (flint.fmpz_poly(lo_kept), flint.fmpz_poly(hi[first:last + 1]), shift + first,
            slack + dropped)


def _product(a: tuple, b: tuple, fixed: int = FIXED_BITS) -> tuple:
    """Product of two fixed-point lattice PLDs, rounded down (lower) and up (upper).

    The slack of a product bounds the mass the dropped coefficients carry,
    ``s_a M_b + s_b M_a + s_a s_b`` (``M`` the total upper masses, units ``2^-F``,
    ``F = fixed``)."""
    la, ha, ja, sa = a
    lb, hb, jb, sb = b
    lo = [int(c) >> fixed for c in (la * lb).coeffs()]
    hi = [-((-int(c)) >> fixed) for c in (ha * hb).coeffs()]
    lo += [0] * (len(hi) - len(lo))
    ma, mb = int(ha(1)), int(hb(1))
    slack = -((-(sa * mb + sb * ma + sa * sb)) >> fixed)
    return _trim(lo, hi, ja + jb, slack)


class _Curve:
    """The lower or upper lattice curve, as :func:`bisect_epsilon` reads a PLD."""

    def __init__(self, pld: DiscretisedPLD, grid, side: str) -> None:
        self.grid, self.side, self.pld = grid, side, pld
        self.p_inf = pld.p_inf

    def delta_ball(self, epsilon: flint.arb, bits: int) -> flint.arb:
        return _curve(self.grid, epsilon, self.side, max(bits, GRID_BITS))

    def max_loss(self, bits: int) -> flint.arb:
        return self.pld.max_loss(bits) + 1


def _curve(grid, eps: flint.arb, side: str, bits: int) -> flint.arb:
    """A ball containing ``p_inf + sum_j m_j (1 - e^(eps - L_j))_+`` with
    ``L_j = offset + j*h`` (``offset`` the lower or the upper one) for every point of the
    balls (call inside ``flint_prec``)."""
    h, polys, off_lo, off_hi, p_inf, slack, fixed = grid
    base = off_lo if side == "lo" else off_hi
    poly = polys[0] if side == "lo" else polys[1]
    scale = flint.arb(2) ** -fixed
    coeffs = [int(c) for c in poly.coeffs()]
    n = len(coeffs)
    # first index whose loss is certainly above eps, and first that may be
    start = (eps - base) / h
    j_cert = max(0, int(math.floor(float(start.upper().mid()))) - 1)
    while j_cert < n and not (base + j_cert * h) > eps:
        j_cert += 1
    while j_cert > 0 and (base + (j_cert - 1) * h) > eps:
        j_cert -= 1
    j_maybe = j_cert
    while j_maybe > 0 and not (base + (j_maybe - 1) * h) < eps:
        j_maybe -= 1
    total = p_inf
    for j in range(j_maybe, min(j_cert, n)):
        t = coeffs[j] * scale * (1 - (eps - base - j * h).exp())
        total += positive_part(t)
    if j_cert < n:
        tail = flint.arb_poly(coeffs[j_cert:])
        x = (-h).exp()
        total += scale * (sum(coeffs[j_cert:]) - (eps - base - j_cert * h).exp() * tail(x))
    return total + slack if side == "hi" else total


def positive_part(t: flint.arb) -> flint.arb:
    """A ball containing ``max(0, v)`` for every ``v`` in the ball ``t``."""
    if t > 0:
        return t
    if t < 0 or t == 0:
        return flint.arb(0)
    hi = t.upper()
    return flint.arb(hi / 2, hi / 2) if hi > 0 else flint.arb(0)


def _parts(pld) -> tuple:
    if isinstance(pld, DiscretisedPLD):
        return pld.parts
    return ((pld, 1),)


def _merge(parts: tuple) -> tuple:
    out: dict[int, list] = {}
    for comp, k in parts:
        out.setdefault(id(comp), [comp, 0])[1] += k
    return tuple((c, k) for c, k in out.values())


def composition(plds: tuple, description: str | None = None) -> DiscretisedPLD:
    """The lazy lattice composition of the given PLDs (see :func:`exactdp.compose`)."""
    parts: tuple = ()
    for p in plds:
        parts += _parts(p)
    return DiscretisedPLD(_merge(parts), description or " o ".join(
        f"({p.description})" for p in plds))


def _bad(func: str, name: str, what: str, value: object) -> ValueError:
    return argument_error(func, name, what, value)
