"""exactdp.analysis.pld.additive: Laplace and Gaussian PLDs against independent routes."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

import exactdp
from exactdp.analysis import DiscretisedPLD


def _laplace_numeric(b: float, eps: float) -> float:
    """delta(eps) = int_{p > e^eps q} (p(x) - e^eps q(x)) dx for Lap(0, b) vs Lap(1, b)
    (quadrature; the region is x < (1 - eps b)/2, read off the loss (|x-1| - |x|)/b)."""
    if eps * b >= 1:
        return 0.0
    p = lambda x: mpmath.exp(-abs(x) / b) / (2 * b)  # noqa: E731
    q = lambda x: mpmath.exp(-abs(x - 1) / b) / (2 * b)  # noqa: E731
    f = lambda x: p(x) - mpmath.exp(eps) * q(x)  # noqa: E731
    return float(mpmath.quad(f, [-mpmath.inf, 0, (1 - eps * b) / 2]))


def _gauss_numeric(s: float, eps: float) -> float:
    p = lambda x: mpmath.npdf(x, 0, s)  # noqa: E731
    q = lambda x: mpmath.npdf(x, 1, s)  # noqa: E731
    f = lambda x: max(0, p(x) - mpmath.exp(eps) * q(x))  # noqa: E731
    cut = 0.5 - eps * s * s  # p > e^eps q  <=>  x < 1/2 - eps sigma^2
    return float(mpmath.quad(f, [-mpmath.inf, cut]))


@pytest.mark.parametrize("b, eps", [(1, 0), (1, "0.5"), (2, "0.1"), ("1/2", 3)])
def test_laplace_closed_form_against_quadrature(b, eps):
    lap = exactdp.laplace_privacy_loss_distribution(b)
    h = lap.delta(eps)
    want = _laplace_numeric(float(Fraction(str(b))), float(Fraction(str(eps))))
    assert float(h.lower) - 1e-12 <= want <= float(h.upper) + 1e-12
    assert h.algorithm == "closed form" and abs(float(h.value) - want) < 1e-12


@pytest.mark.parametrize("sigma, eps", [(1, 0), (1, 1), (2, "0.3")])
def test_gaussian_closed_form_against_quadrature(sigma, eps):
    g = exactdp.gaussian_privacy_loss_distribution(sigma)
    h = g.delta(eps)
    want = _gauss_numeric(float(sigma), float(Fraction(str(eps))))
    assert float(h.lower) - 1e-12 <= want <= float(h.upper) + 1e-12


def test_gaussian_self_compose_is_exact_and_the_lattice_brackets_it():
    g = exactdp.gaussian_privacy_loss_distribution(2)
    g3 = g.self_compose(3)
    # three Gaussians of sigma 2 = one of sigma 2/sqrt(3)
    import sympy

    same = exactdp.gaussian_privacy_loss_distribution(2 / sympy.sqrt(3))
    assert abs(float(g3.delta("0.2")) - float(same.delta("0.2"))) < 1e-12
    lattice = DiscretisedPLD(((g, 3),), "lattice").delta("0.2", rtol=1e-2)
    exact = g3.delta("0.2")
    assert lattice.lower <= exact.lower and exact.upper <= lattice.upper


def test_laplace_lattice_brackets_closed_form_and_two_fold():
    lap = exactdp.laplace_privacy_loss_distribution(1)
    one = DiscretisedPLD(((lap, 1),), "lap").delta("0.5")
    assert one.lower <= lap.delta("0.5").lower and lap.delta("0.5").upper <= one.upper
    # two Laplace copies against a quadrature of the convolved loss density (mpmath)
    two = DiscretisedPLD(((lap, 2),), "lap2").delta(1, rtol=1e-3)
    # P-law of L: atoms 1 (1/2), -1 (e^-1/2), density e^(-(1-t)/2)/4 on (-1, 1)
    dens = lambda t: mpmath.exp(-(1 - t) / 2) / 4  # noqa: E731
    atoms = [(1, 0.5), (-1, mpmath.exp(-1) / 2)]
    gain = lambda s: max(0, 1 - mpmath.exp(1 - s))  # noqa: E731
    total = sum(m1 * m2 * gain(a1 + a2) for a1, m1 in atoms for a2, m2 in atoms)
    total += 2 * sum(m * mpmath.quad(lambda t, a=a: dens(t) * gain(a + t), [-1, 1])
                     for a, m in atoms)
    total += mpmath.quad(lambda s, t: dens(s) * dens(t) * gain(s + t), [-1, 1], [-1, 1])
    assert float(two.lower) - 1e-9 <= float(total) <= float(two.upper) + 1e-9


def test_heterogeneous_compose_pipeline():
    """PF then Laplace: compose against the sum over the PF atoms of shifted Laplace curves."""
    pf = exactdp.privacy_loss_distribution(exactdp.PermuteAndFlip(1), [0, 1], [1, 0])
    lap = exactdp.laplace_privacy_loss_distribution(1)
    both = exactdp.compose(pf, lap)
    assert isinstance(both, DiscretisedPLD) and both.k == 2
    h = both.delta("0.5")
    # delta_{A o B}(eps) = sum_a P_A(a) [ (1 - e^(eps-a)) if B... ]: by the P-law of the sum
    want = 0.0
    dens = lambda t: mpmath.exp(-(1 - t) / 2) / 4  # noqa: E731
    gain = lambda s: max(0, 1 - mpmath.exp(0.5 - s))  # noqa: E731
    for i in range(len(pf)):
        loss, pm, _ = pf.atom_masses(i)
        a, m = float(loss.evalf(30)), float(pm.evalf(30))
        want += m * (0.5 * gain(a + 1) + mpmath.exp(-1) / 2 * gain(a - 1)
                     + mpmath.quad(lambda t, a=a: dens(t) * gain(a + t), [-1, 1]))
    assert float(h.lower) - 1e-9 <= float(want) <= float(h.upper) + 1e-9
    many = both.self_compose(10)
    assert many.k == 20 and many.delta(2).lower > 0


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="laplace_privacy_loss_distribution: scale must be"):
        exactdp.laplace_privacy_loss_distribution(0)
    with pytest.raises(ValueError, match="gaussian_privacy_loss_distribution: sigma must be"):
        exactdp.gaussian_privacy_loss_distribution(-1)
    with pytest.raises(ValueError, match="compose: plds\\[1\\] must be"):
        exactdp.compose(exactdp.laplace_privacy_loss_distribution(1), 3)
    with pytest.raises(ValueError, match="compose: plds must be"):
        exactdp.compose()
    with pytest.raises(ValueError, match="self_compose: k must be a positive integer"):
        exactdp.gaussian_privacy_loss_distribution(1).self_compose(0)
    with pytest.raises(ValueError, match="delta: rtol must be"):
        exactdp.gaussian_privacy_loss_distribution(1).delta(1, rtol=1)


def test_additive_plds_describe_themselves_and_their_loss_range():
    """Laplace(b) on a count of sensitivity D: the loss lies in [-D/b, D/b], so epsilon0 = D/b
    and the span 2 D/b; the Gaussian's lattice covers mu +- 12 a with a = D/sigma."""
    import sympy

    import exactdp

    lap = exactdp.laplace_privacy_loss_distribution(2, sensitivity=1)
    assert lap.epsilon0 == sympy.Rational(1, 2)
    assert lap.loss_span() == 1.0 and lap.lattice_losses() is None
    assert lap.description == "Laplace(scale=2, sensitivity=1)"
    gau = exactdp.gaussian_privacy_loss_distribution(2, sensitivity=1)
    assert gau.description == "Gaussian(sigma=2, sensitivity=1)"
    assert gau.loss_span() == 12.0 and gau.lattice_losses() is None


def test_laplace_delta_at_a_huge_scale_keeps_its_relative_digits():
    """scale 10^300: e0 = 10^-300 and delta(0) = 1 - exp(-e0/2) = e0/2 - e0^2/8 + ...; it
    raised a 300-digit sympy 'not comparable' error, then printed a ball around 0."""
    from fractions import Fraction

    import exactdp

    res = exactdp.laplace_privacy_loss_distribution(10**300).delta(0)
    half = Fraction(1, 2 * 10**300)
    assert res.lower <= half <= res.upper * (1 + Fraction(1, 10**290))
    assert res.upper - res.lower < half * Fraction(1, 10**12)


def test_gaussian_delta_at_extreme_sigma_is_a_certified_ball_without_overflow():
    """delta(1) = Phi(a/2 - 1/a) - e Phi(-a/2 - 1/a), a = 1/sigma: at sigma = 1e300 below
    Phi(-1e300) < exp(-1e600/2) (Mills' ratio), at sigma = 1e-300 above
    Phi(5e299) - e Phi(-5e299) > 1 - 1e-30; sympy's erfc cannot evaluate either, so the
    certified ball alone is the result (no OverflowError, no hang)."""
    huge = exactdp.gaussian_privacy_loss_distribution("1e300").delta(1)
    assert huge.lower == 0 and 0 < huge.upper < Fraction(1, 10**3000)
    assert huge.value is None and "delta=[0, " in repr(huge)
    tiny = exactdp.gaussian_privacy_loss_distribution("1e-300").delta(1)
    assert float(tiny.ball.rad()) < 1e-30 and tiny.lower > 1 - Fraction(1, 2**52)
    assert tiny.upper <= 1
    assert tiny.value is None and "certified" in repr(tiny)
