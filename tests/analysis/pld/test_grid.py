"""exactdp.analysis.pld.grid: the certified two-sided lattice, against hand-computed curves."""

from __future__ import annotations

from fractions import Fraction

import flint
import mpmath
import pytest
import sympy

import exactdp
from exactdp.analysis import DiscretisedPLD
from exactdp.analysis.pld import grid as G


def test_atoms_on_lattice_residuals_by_hand():
    """Losses 0, 1/2 and 0.3 on the lattice h = 1/4: indices 0, 2 and 1 with residuals 0, 0
    and 0.05, so every loss lies in [o + j h + 0, o + j h + 0.05]."""
    with G.flint_prec(128):
        losses = [flint.arb(0), flint.arb(1) / 2, flint.arb(3) / 10]
        masses = [flint.arb(1) / 2, flint.arb(1) / 4, flint.arb(1) / 4]
        piece = G.atoms_on_lattice(losses, masses, flint.arb(0), flint.arb(1) / 4)
    assert len(piece.masses) == 3 and piece.masses[1] == flint.arb(1) / 4
    assert piece.r_lo == 0 and abs(float(piece.r_hi.mid()) - 0.05) < 1e-30


def test_fixed_point_product_rounds_outward():
    """Masses (1/3, 2/3) squared: the lower polynomial is below (1/9, 4/9, 4/9) and the upper
    above it, each by at most 2 units of 2^-F."""
    with G.flint_prec(128):
        third = flint.arb(1) / 3
        one = G._fixed([third, 2 * third])
    lo, hi, shift, slack = G._product(one, one)
    want = [Fraction(1, 9), Fraction(4, 9), Fraction(4, 9)]
    scale = Fraction(1, 2**G.FIXED_BITS)
    for a, b, w in zip(lo.coeffs(), hi.coeffs(), want, strict=True):
        assert int(a) * scale <= w <= int(b) * scale
        assert (int(b) - int(a)) * scale <= 4 * scale
    assert shift == 0 and slack == 0


@pytest.mark.parametrize("k", [1, 5, 40])
def test_randomized_response_lattice_is_the_kov_curve(k):
    """Randomized response (losses +-e0) lies on one lattice of step 2 e0, so the bounds
    close to the ball width and equal the optimal-composition (KOV) sum by hand."""
    import math

    rr = exactdp.privacy_loss_distribution(exactdp.ExponentialMechanism(2), [1, 0], [0, 1],
                                           allow_non_neighbour=True)
    grid = DiscretisedPLD(((rr, k),), "rr")
    e0 = 1.0  # EM(2) on [1,0] vs [0,1]: P = (e/(1+e), 1/(1+e)), loss +-1
    for eps in ("0", "0.5", "2"):
        h = grid.delta(eps, rtol=1e-6)
        want = 0.0
        p = math.e / (1 + math.e)
        for m in range(k + 1):
            loss = (2 * m - k) * e0
            if loss > float(Fraction(eps)):
                want += math.comb(k, m) * p**m * (1 - p) ** (k - m) * (
                    1 - math.exp(float(Fraction(eps)) - loss))
        assert float(h.lower) - 1e-12 <= want <= float(h.upper) + 1e-12
        assert h.upper - h.lower < Fraction(1, 10**12)
    with mpmath.workdps(30):
        res = grid.epsilon("0.1")
        assert res.lower <= res.upper and float(grid.delta(res.upper).lower) <= 0.1 + 1e-12


def test_exact_step_is_the_gcd_of_the_commensurable_steps():
    """EM(1) pairs: [2,0,-1] -> [1,1,-1] has step 1/2, [0,1/3,1] -> [1,-2/3,1/3] step 1/6
    and [0,1/2,1] -> [1,-1/2,0] step 1 (losses by hand: (q_r - q'_r)/2 + ln(Z'/Z)); PF's
    losses lie on no exact step, nor does a Laplace part."""
    em = exactdp.ExponentialMechanism(1)
    pld = exactdp.privacy_loss_distribution(em, [2, 0, -1], [1, 1, -1])
    third = exactdp.privacy_loss_distribution(em, [0, "1/3", 1], [1, "-2/3", "1/3"])
    half = exactdp.privacy_loss_distribution(em, [0, "1/2", 1], [1, "-1/2", 0])
    pf = exactdp.privacy_loss_distribution(exactdp.PermuteAndFlip(1), [-1, 2, 1], [0, 1, 2])
    assert G.exact_step(((pld, 3), (third, 2))) == sympy.Rational(1, 6)
    assert G.exact_step(((pld, 3), (half, 1))) == sympy.Rational(1, 2)
    assert G.exact_step(((pld, 3), (pf, 1))) is None
    assert G.exact_step(((pld, 3), (exactdp.laplace_privacy_loss_distribution(1), 1))) is None
    # the step is used while its lattice is small, not for PF (no exact step)
    assert DiscretisedPLD(((pld, 3), (third, 2)), "mixed").exact_step_fits() == \
        sympy.Rational(1, 6)
    assert DiscretisedPLD(((pld, 3), (pf, 1)), "mixed").exact_step_fits() is None
    # on it the bounds meet to working precision
    h = DiscretisedPLD(((pld, 3), (third, 2)), "mixed").delta(1)
    assert h.upper - h.lower <= Fraction(1, 10**15) * h.lower
