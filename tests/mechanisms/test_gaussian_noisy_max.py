"""GaussianNoisyMax: report-noisy-max with Gaussian noise, a class of its own."""

from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy

import exactdp
from exactdp import GaussianNoisyMax, ReportNoisyMax


def test_two_items_closed_form():
    # Pr[argmax = 0] for q = (0, -d): Pr[Z_0 - Z_1 > -d] = Phi(d / (sigma sqrt 2))
    d = GaussianNoisyMax(2).distribution([0, -1])
    with mpmath.workdps(30):
        p0, p1 = d.evalf(30)
        expected = mpmath.ncdf(mpmath.mpf(1) / (2 * mpmath.sqrt(2)))
        assert abs(p0 - expected) < mpmath.mpf(10) ** -25
        assert abs(p0 + p1 - 1) < mpmath.mpf(10) ** -25


def test_sensitivity_default_and_repr():
    g = GaussianNoisyMax(1)
    assert g.sensitivity == 1 and g.epsilon is None and g.noise == "gaussian"
    assert repr(g) == "GaussianNoisyMax(sigma=1, sensitivity=1, monotonic=False)"
    assert g.with_epsilon(1).epsilon == 1 and g.with_epsilon(1).sigma == 1


@pytest.mark.parametrize("sigma", [0, -1, None, "nan", "abc"])
def test_bad_sigma(sigma):
    with pytest.raises(ValueError, match="sigma"):
        GaussianNoisyMax(sigma)


def test_report_noisy_max_has_no_gaussian_noise():
    with pytest.raises(ValueError, match="noise must be one of 'exponential', 'gumbel'"):
        ReportNoisyMax(1, noise="gaussian")


def test_sampler_matches_probabilities():
    rng = np.random.default_rng(7)
    d = GaussianNoisyMax(1).distribution([0, -1])
    draws = d.sample(20_000, rng)
    p0 = float(d.evalf(15)[0])
    # binomial standard error ~ 0.003; 5 sigma
    assert abs(np.mean(draws == 0) - p0) < 0.016


def test_gaussian_beyond_24_items_is_not_certified():
    # the per-item ball route is rigorous up to 24 items; beyond, the trapezoid bound is not
    m = exactdp.GaussianNoisyMax(1)
    assert m.distribution(list(range(24))).balls_certified == (True, None)
    ok, caveat = m.distribution(list(range(25))).balls_certified
    assert not ok and "24 items" in caveat


def test_gaps_in_sigma_exact_and_float_by_binary_value():
    """(q* - q_r)/sigma in exact rationals; a float score enters by its exact binary value."""
    m = exactdp.GaussianNoisyMax(2)
    sv = exactdp.ScoreVector.from_input([1, 0, "-1/2"])
    assert m.gaps_in_sigma(sv) == [0, sympy.Rational(1, 2), sympy.Rational(3, 4)]
    fl = exactdp.ScoreVector.from_input(np.array([0.1, 0.0]))
    want = Fraction(0.1) / 2  # 0.1's exact binary value
    assert m.gaps_in_sigma(fl) == [0, sympy.Rational(want.numerator, want.denominator)]


def test_gaussian_errors_name_the_public_class():
    """No internal names (ReportNoisyMax(noise=...), gaussian_mp) and no method= advice
    (evalf has no method argument) in the messages a GaussianNoisyMax user sees."""
    dist = GaussianNoisyMax(1).distribution([0, 1])
    with pytest.raises(ValueError, match=r"^GaussianNoisyMax: no closed form exists; use "
                                         r"\.evalf\(dps\) .* or \.to_numpy\(\)$"):
        _ = dist.probabilities
    with pytest.raises(ValueError) as info:
        GaussianNoisyMax(1).distribution([1, 0, 2]).evalf(dps=10000)
    text = str(info.value)
    # the refusal names the method the user called (evalf), not an internal route
    assert text.startswith("evalf: the certified quadrature for n = 3 items at dps = 10000")
    assert "use a smaller dps (about " in text and ".to_numpy()" in text
    assert "method=" not in text and "gaussian_mp" not in text
    with pytest.raises(ValueError, match=r"^GaussianNoisyMax: epsilon must be > 0, got -1$"):
        GaussianNoisyMax(1, epsilon=-1)


def test_tiny_sigma_refuses_beyond_the_printable_exponent():
    """sigma = 10^-5000 puts the runner-up at z ~ 10^5000: its probability, about
    exp(-z^2/4), has a decimal exponent of 10^10000 digits; evalf refused in < 2 s (it
    hung). At sigma = 10^-1000 it still answers: the loser's probability is below
    10^-(10^1999) and the two tied leaders get 1/2 each to 15 digits."""
    import time

    import mpmath
    import pytest
    import sympy

    from exactdp import GaussianNoisyMax

    t0 = time.process_time()
    with pytest.raises(ValueError, match=r"^evalf: .*z \~ 10\^5000 sigma.*to_numpy"):
        GaussianNoisyMax(sympy.Rational(1, 10**5000)).distribution([0, 1, 1]).evalf(15)
    assert time.process_time() - t0 < 2.0
    v = GaussianNoisyMax(sympy.Rational(1, 10**1000)).distribution([0, 1, 1]).evalf(15)
    assert v[1] == v[2] and abs(v[1] - mpmath.mpf(1) / 2) < 1e-15
    assert 0 < v[0] < mpmath.mpf(10) ** -(10**1999)
