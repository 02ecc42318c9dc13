"""exactdp.analysis.loss: privacy_loss against quadrature, float brute force and docs/formulas.md
section 7; bad input; huge score gaps."""

import math

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import exactdp
from exactdp import ExponentialMechanism
from exactdp.analysis.check import check_dp
from exactdp.analysis.loss import privacy_loss
from exactdp.exact import UndecidedSignError, sign
from exactdp.mechanisms.custom import (
    mechanism_from_function,
)
from exactdp.programs import library as programs_library
from exactdp.programs import program

from .test_outputs import overlap

EPS = sympy.Symbol("epsilon", positive=True)
R = sympy.Rational
TENTH = R(1, 10)


# ----------------------------------------------------------------- privacy_loss: known values
@pytest.mark.parametrize("eps", [TENTH, R(3, 2), EPS])
def test_rnm_exponential_loss_is_exactly_epsilon(eps):
    m = exactdp.ReportNoisyMax(eps, noise="exponential")
    loss = privacy_loss(m, [1, 1, 1, 1, 1], [0, 2, 2, 2, 2])
    assert loss.value == eps
    assert loss.output == 0 and loss.direction == 1
    assert loss.ratios[0] == sympy.exp(eps)


def test_rnm_laplace_section7_values_against_quadrature():
    m = exactdp.ReportNoisyMax(TENTH, noise="laplace")
    a = privacy_loss(m, [1, 1, 1, 1, 1], [2, 0, 0, 0, 0])
    b = privacy_loss(m, [1, 1, 1, 1, 1], [0, 2, 2, 2, 2])
    assert a.output == 0 and b.output == 0
    assert abs(float(a) - 0.0926959) < 5e-8
    assert abs(float(b) - 0.0946149) < 5e-8
    # independent route: the noisy-max integral by mpmath quadrature, scale b = 20
    mpmath.mp.dps = 30
    scale = mpmath.mpf(20)
    f = lambda t: mpmath.exp(-abs(t) / scale) / (2 * scale)  # noqa: E731
    F = lambda t: (  # noqa: E731
        1 - mpmath.exp(-t / scale) / 2 if t >= 0 else mpmath.exp(t / scale) / 2
    )
    p0 = mpmath.quad(lambda y: f(y - 2) * F(y) ** 4, [-mpmath.inf, 0, 2, mpmath.inf])
    assert abs(p0 - mpmath.mpf("0.2194256121")) < 1e-10
    assert abs(mpmath.log(p0 / mpmath.mpf("0.2")) - mpmath.mpf(float(a))) < 1e-12


def test_loss_matches_float_brute_force_and_is_symmetric():
    q, q2 = [3, 1, 0, 0, -2], [2, 2, 1, -1, -1]
    for m in (exactdp.PermuteAndFlip(2), exactdp.ExponentialMechanism(2)):
        loss = privacy_loss(m, q, q2)
        back = privacy_loss(m, q2, q)
        assert loss.value == back.value and loss.direction == -back.direction
        p = np.array([float(v) for v in m.distribution(q).probabilities])
        p2 = np.array([float(v) for v in m.distribution(q2).probabilities])
        assert abs(float(loss) - np.max(np.abs(np.log(p / p2)))) < 1e-12


def test_section7_pf_em_numbers_enter_the_loss():
    # docs/formulas.md section 7: q = (3,1,0,0,-2), eps = 2; the shift by +1 gives loss 0 exactly.
    for m in (exactdp.PermuteAndFlip(2), exactdp.ExponentialMechanism(2)):
        assert privacy_loss(m, [3, 1, 0, 0, -2], [4, 2, 1, 1, -1]).value == 0


def test_infinite_loss_when_supports_differ():
    def point_mass(q):
        top = max(q)
        first = next(i for i, v in enumerate(q) if v == top)
        return [1 if i == first else 0 for i in range(len(q))]

    m = mechanism_from_function(point_mass)
    loss = privacy_loss(m, [0, 0], [0, 1])
    assert loss.value is sympy.oo and math.isinf(float(loss))
    assert loss.output in (0, 1)
    assert not check_dp(m, [0, 0], epsilon=5).holds


def test_symbolic_epsilon_loss_and_max():
    m = exactdp.PermuteAndFlip(EPS, monotonic=True)
    loss = privacy_loss(m, [0, 0], [0, 1])
    assert loss.value == EPS and loss.output == 0


# ----------------------------------------------------------------- bad input
def test_bad_neighbours_raise():
    m = exactdp.PermuteAndFlip(1)
    with pytest.raises(ValueError, match=r"privacy_loss: len\(neighbour\) must be 2"):
        privacy_loss(m, [0, 1], [0, 1, 2])
    with pytest.raises(ValueError, match="exceeds the sensitivity"):
        privacy_loss(m, [0, 0], [0, 2])
    assert privacy_loss(m, [0, 0], [0, 2], allow_non_neighbour=True).value > 0
    mono = exactdp.PermuteAndFlip(1, monotonic=True)
    with pytest.raises(ValueError, match="monotone"):
        privacy_loss(mono, [0, 0], [1, -1])
    big = exactdp.ExponentialMechanism(1, sensitivity=2)
    assert privacy_loss(big, [0, 0], [2, -2]).output is not None


def test_probabilities_not_summing_to_one_raise_before_any_loss():
    m = mechanism_from_function(lambda q: [R(1, 2)] * len(q), name="halves")
    with pytest.raises(ValueError, match="do not sum to 1"):
        privacy_loss(m, [0, 0, 0], [1, 1, 1])
    neg = mechanism_from_function(lambda q: [R(3, 2), R(-1, 2)])
    with pytest.raises(ValueError, match="negative"):
        privacy_loss(neg, [0, 0], [1, 1])


# ----------------------------------------------------------------- properties
small = st.lists(st.integers(-3, 3), min_size=2, max_size=4)


@settings(max_examples=25, deadline=None)
@given(small, st.data())
def test_pf_equals_rnm_exp_loss_and_respects_epsilon(q, data):
    s = data.draw(st.lists(st.integers(-1, 1), min_size=len(q), max_size=len(q)))
    q2 = [a + b for a, b in zip(q, s, strict=True)]
    pf = privacy_loss(exactdp.PermuteAndFlip(1), q, q2)
    rnm = privacy_loss(exactdp.ReportNoisyMax(1), q, q2)
    assert pf.value == rnm.value
    assert float(pf) <= 1 + 1e-15
    em = privacy_loss(exactdp.ExponentialMechanism(1), q, q2)
    assert float(em) <= 1 + 1e-15


# ----------------------------------------------------------------- huge score gaps (sparse)
HUGE = 10**300


def _timed(func, *args, **kwargs):
    import time

    t = time.process_time()
    out = func(*args, **kwargs)
    return out, time.process_time() - t


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("gap", [HUGE, -1e300, 10**7], ids=["1e300-int", "1e300-float", "1e7"])
def test_huge_gap_loss_is_exact_and_fast(gap):
    """The tester's pair: PF(1), (0, -g) vs (1, -g). Output 1 has ratio exactly e^{1/2}.

    (Before the sparse engine: 1e300 exhausted memory, 1e7 ran for minutes.)
    """
    g = abs(gap) if isinstance(gap, int) else gap
    lo = -g if isinstance(g, int) else gap
    res, seconds = _timed(privacy_loss, exactdp.PermuteAndFlip(1), [0, lo], [1, lo])
    assert res.value == R(1, 2) and res.output == 1 and res.direction == 1
    assert res.ratios[1] == sympy.exp(R(1, 2))
    assert float(res.ratios[0]) == 1.0  # (1 - p/2)/(1 - p e^{-1/2}/2), p = e^{-g/2}
    assert seconds < 3


def test_huge_gap_with_log_epsilon_raises_clearly():
    with pytest.raises(ValueError, match="privacy_loss: epsilon = log"):
        privacy_loss(exactdp.PermuteAndFlip(sympy.log(2)), [0, -HUGE], [1, -HUGE])

S, R, Z, E = sympy.sqrt, sympy.Rational, sympy.Integer, sympy.exp


# ---------------------------------------------------------------- hole 1: nsimplify
def _em_two_item_loss_mp(a, d, dps=60):
    """EM (eps = 1, c = 2), q = (0, -(a + d)), q' = (0, -(a + 1 + d)): the largest |log ratio|.

    P_1 = w / (1 + w), w = exp(-(a + d)/2); P'_1 = w' / (1 + w'), w' = w exp(-1/2).
    """
    with mpmath.workdps(dps):
        w = mpmath.exp(-(a + d) / 2)
        w2 = w * mpmath.exp(-mpmath.mpf(1) / 2)
        l1 = mpmath.log((w / (1 + w)) / (w2 / (1 + w2)))
        l0 = mpmath.log((1 / (1 + w)) / (1 / (1 + w2)))
        return max(abs(l0), abs(l1))


def test_issue_example_irrational_perturbation_is_not_rounded_away():
    d = S(2) * Z(10) ** -20
    m = ExponentialMechanism(1)
    L0 = exactdp.privacy_loss(m, (0, -1), (0, -2)).value
    Ld = exactdp.privacy_loss(m, (0, -(1 + d)), (0, -(2 + d))).value
    assert sign(Ld - L0) == 1
    with mpmath.workdps(60):
        ref = _em_two_item_loss_mp(1, mpmath.sqrt(2) * mpmath.mpf(10) ** -20) - \
            _em_two_item_loss_mp(1, 0)
        assert 7.6e-22 < ref < 7.8e-22  # the issue's "about 7.7e-22"
        got = mpmath.mpf(sympy.N(Ld - L0, 40))
        assert abs(got - ref) < ref * mpmath.mpf(10) ** -15
    res = exactdp.check_dp(m, (0, -(1 + d)), (0, -(2 + d)), epsilon=L0)
    assert not res.holds and sign(res.loss - L0) == 1


@settings(max_examples=12, deadline=None)
@given(
    a=st.fractions(min_value=0, max_value=3, max_denominator=4),
    c=st.integers(1, 9),
    k=st.integers(15, 40),
    root=st.sampled_from([2, 3, 5, 7]),
)
def test_property_perturbed_gap_changes_the_loss(a, c, k, root):
    # loss on q = (0, -(a + d)), q' = (0, -(a + 1 + d)) for EM at eps = 1. With
    # x = log((1 + w')/(1 + w)) < 0 (w' < w), output 1 has loss 1/2 + x and output 0 has
    # -x; d/dd of 1/2 + x is (w/(1+w) - w'/(1+w'))/2 > 0, so if output 1 attains the
    # loss it grows with d, and if output 0 does it shrinks (independent of the analyzer).
    a = R(a.numerator, a.denominator)
    d = c * S(root) * Z(10) ** (-k)
    m = ExponentialMechanism(1)
    w = E(-a / 2)
    x = sympy.log((1 + w * E(-R(1, 2))) / (1 + w))
    expected = 1 if sign(R(1, 2) + x - (-x)) > 0 else -1
    # the independent route at 120 digits: the perturbation d >= 10^-40 moves the loss by
    # about d/4, far above 10^-100, so the mpmath difference has the predicted sign
    with mpmath.workdps(120):
        d_mp = c * mpmath.sqrt(root) * mpmath.mpf(10) ** (-k)
        a_mp = mpmath.mpf(a.p) / a.q
        ref = _em_two_item_loss_mp(a_mp, d_mp, 120) - _em_two_item_loss_mp(a_mp, 0, 120)
        assert (1 if ref > 0 else -1) == expected
    try:
        L0 = exactdp.privacy_loss(m, (0, -a), (0, -(a + 1))).value
        Ld = exactdp.privacy_loss(m, (0, -(a + d)), (0, -(a + 1 + d))).value
        got = sign(Ld - L0)
    except UndecidedSignError as exc:  # an honest refusal is allowed, and it says so
        assert "\n" not in str(exc) and "not proved zero" in str(exc), str(exc)
        return
    assert got == expected


# ---------------------------------------------------------------- hole 6: broad catches
def test_a_bug_in_a_user_function_is_not_swallowed():
    def buggy(q):
        raise TypeError("bug in user code")

    with pytest.raises(TypeError, match="bug in user code"):
        exactdp.privacy_loss(exactdp.mechanism_from_function(buggy), [0, 0], [0, 1])


def test_an_object_that_is_not_a_mechanism_is_refused_at_the_door():
    class Mech:  # duck-typed: wrap a function with mechanism_from_function instead
        epsilon, sensitivity = Z(1), 1

        def distribution(self, q):
            return None

    with pytest.raises(ValueError, match="mechanism must be an exactdp Mechanism"):
        exactdp.privacy_loss(Mech(), [0, 0], [0, 1])


# ---------------------------------------------------------- the ball engine (issue 20)
def _gaussian_reference():
    """RNM with N(0, 1) noise on [1, 0] vs [0, 0]: P_0 = Phi(1/sqrt 2) against 1/2, so the
    loss is max(ln 2 Phi(d), -ln 2 Phi(-d)) = -ln(2 Phi(-1/sqrt 2)) = 0.73501112983708...
    at output 1 (mpmath at 50 digits)."""
    with mpmath.workdps(50):
        d = 1 / mpmath.sqrt(2)
        values = -mpmath.log(2 * mpmath.ncdf(-d)), 2 * mpmath.ncdf(d), 2 * mpmath.ncdf(-d)
        return [sympy.Float(mpmath.nstr(v, 45), 45) for v in values]


def test_ball_privacy_loss_against_the_normal_cdf():
    from exactdp.mechanisms.gaussian_noisy_max import GaussianNoisyMax

    loss, r0, r1 = _gaussian_reference()
    res = privacy_loss(GaussianNoisyMax(sigma=1), [1, 0], [0, 0])
    assert res.engine == "ball" and res.certified and res.dps == 30
    assert res.output == 1 and res.direction == -1 and res.candidates == (1,)
    assert res.scores == (1, 0) and res.neighbour == (0, 0)
    lo, hi = res.interval
    assert lo <= loss <= hi and hi - lo < 1e-25
    assert res.value is None and abs(res.loss - loss) < 1e-28
    assert abs(res.ratios[0] - r0) < 1e-28 and abs(res.ratios[1] - r1) < 1e-28
    same = privacy_loss(GaussianNoisyMax(sigma=1), [1, 0], [1, 0])  # loss 0, enclosed
    assert same.interval[0] == 0 and same.loss < 1e-30 and same.candidates == (0, 1)


def _crossing(q, eps):
    """P(top) = a(x) = 3/4 - x/4 + x(1 - x)(1/2 - x), x = e^-eps; a fair coin on ties."""
    x = sympy.exp(-eps)
    if q[0] == q[1]:
        return [sympy.Rational(1, 2), sympy.Rational(1, 2)]
    a = sympy.Rational(3, 4) - x / 4 + x * (1 - x) * (sympy.Rational(1, 2) - x)
    return [a, 1 - a] if q[0] > q[1] else [1 - a, a]


def test_symbolic_epsilon_loss_is_the_max_of_the_outputs_that_may_win():
    """Against the coin, output 0 has ratio 2a and output 1 has 1/(2(1 - a)); which is larger
    depends on epsilon, so the loss is their Max (checked at eps = 1 and 3 by hand)."""
    from exactdp.mechanisms.custom import mechanism_from_function

    eps = sympy.Symbol("epsilon", positive=True)
    res = privacy_loss(mechanism_from_function(_crossing, epsilon=eps), [1, 0], [0, 0])
    assert isinstance(res.value, sympy.Max) and res.output is None and res.direction == 0
    assert res.candidates == (0, 1)
    for e in (1, 3):
        a = _crossing([1, 0], sympy.Integer(e))[0]
        expect = max(sympy.N(sympy.log(2 * a), 30), sympy.N(-sympy.log(2 * (1 - a)), 30))
        assert abs(sympy.N(res.value.subs(eps, e), 30) - expect) < 1e-25


def test_two_infinite_ratios_report_the_first_output():
    """[1, 0, 0] puts no mass on outputs 1 and 2, the tie [0, 0, 0] a third on each: the loss
    is oo, attained first at output 1 (as numpy.argmax reports the first maximiser)."""
    from exactdp.mechanisms.custom import mechanism_from_function

    third = sympy.Rational(1, 3)

    def fn(q, eps):
        return [1, 0, 0] if q[0] > q[1] else [third, third, third]

    res = privacy_loss(mechanism_from_function(fn, epsilon=1), [1, 0, 0], [0, 0, 0])
    assert res.value is sympy.oo and res.output == 1 and res.direction == -1
    assert res.candidates == (1,)


def test_privacy_loss_of_a_density_mechanism_is_its_exact_supremum():
    # RNM3 (Laplace noise, value released), eps = 0.1, b = 20: left of every score the two
    # densities are 5 e^{5(v - q)/b}/(32 b), so the ratio is e^{5/b} on v <= 1: loss 1/4
    m = exactdp.ReportNoisyMax("0.1", noise="laplace", output="value")
    loss = exactdp.privacy_loss(m, [1] * 5, [2] * 5)
    assert loss.value == sympy.Rational(1, 4) and loss.engine == "density"
    assert loss.attained and loss.ratios == ()
    assert loss.output == "the pattern REAL with the value in (-oo, 1) (a constant ratio)"
    assert "loss=0.25" in repr(loss) and loss.lower == loss.upper == sympy.Rational(1, 4)
    # RNM4 (exponential noise): V >= 1 on [1]^5, V >= 2 on [2]^5: oo, the event V in [1, 2)
    m4 = exactdp.ReportNoisyMax("0.1", noise="exponential", output="value")
    inf = exactdp.privacy_loss(m4, [1] * 5, [2] * 5)
    assert inf.value == sympy.oo
    assert inf.output.endswith("the value in (1, 2) (probability 0 under one input only)")
    # an interior critical point: an enclosure, value None, certified
    crit = exactdp.privacy_loss(exactdp.ReportNoisyMax(1, noise="laplace", output="value"),
                                [0, 0, 1, 0, 0], [0, -1, 1, 0, 1])
    assert crit.value is None and crit.certified and crit.ball is not None
    assert float(crit) == pytest.approx(0.2880628428293379, rel=1e-14)  # dense grid: 0.2880628
    assert crit.interval[0] <= crit.loss <= crit.interval[1]
    # a not attained supremum: the limit approached comes along
    lim = exactdp.privacy_loss(exactdp.ReportNoisyMax(1, noise="exponential", output="value"),
                               [0, 0], [0, -1])
    assert lim.value == sympy.oo and lim.attained is False
    assert lim.approaching == (("the pattern REAL as the value -> 0", sympy.oo),)


def test_a_bracketed_release_loss_repr_says_bracket_with_the_witness_in_output(monkeypatch):
    # the repr said "[0.973, 1.00] (certified ball)" (a lower end rounded above the
    # certified 0.97280...) and put the bracket's text in output
    from exactdp.programs import library_release as LR
    from exactdp.programs import release_chain

    # GapSVT at c = 2 with the plane's exact route off: the search's certified bracket (SVT3's
    # bracket on this pair, [0.972808, 1.00001], is exact too: release_min)
    monkeypatch.setattr(release_chain, "two_candidates", lambda *args: None)
    q, q2 = (1, 1, 0, 0), (0, 0, 1, 1)
    loss = exactdp.privacy_loss(LR.gap_svt(epsilon=1, threshold=1, c=2), q, q2)
    lo, hi = loss.interval
    assert loss.output.startswith("a certified bracket [")  # the field keeps the whole text
    text = repr(loss)
    assert text.startswith("PrivacyLoss(loss=[0.458748, 0.500000] (certified bracket), "
                           "output='the pattern (False, False, REAL, REAL) with the values")
    assert "ball" not in text and "a certified bracket" not in text and len(text) <= 200
    # the printed ends contain the certified ones
    assert sympy.Rational("0.458748") <= lo and hi <= sympy.Rational("0.500001")
    assert "(certified bracket)" in loss._repr_html_() and "bracket" in loss._repr_latex_()


def test_the_analyses_without_a_density_route_refuse_continuous_outputs():
    m = exactdp.ReportNoisyMax("0.1", noise="laplace", output="value")
    for f in (exactdp.certify_dp, exactdp.bounded_range, exactdp.privacy_loss_distribution):
        name = f.__name__
        label = r"RNM3 \(RNM-Laplace-value\)"  # the registry label
        with pytest.raises(ValueError, match=rf"^{name}: {label} releases real values"):
            f(m, [1] * 5, [2] * 5)


# ---------------------------------------------------------- mutation survivors (issue 20)
def test_argument_errors_name_the_argument_and_privacy_loss():
    m = exactdp.PermuteAndFlip(1)
    with pytest.raises(ValueError, match=r"^privacy_loss: scores\[1\] must be a number"):
        privacy_loss(m, [0, "a"], [0, 1])
    with pytest.raises(ValueError, match=r"^privacy_loss: neighbour\[1\] must be a number"):
        privacy_loss(m, [0, 1], [0, "a"])


def test_ball_privacy_loss_direction_is_plus_one_when_the_first_vector_is_more_likely():
    """The pair of test_ball_privacy_loss_against_the_normal_cdf reversed: output 1 has
    ratio (1/2) / Phi(-1/sqrt 2) > 1, so the same loss is attained with direction +1."""
    from exactdp.mechanisms.gaussian_noisy_max import GaussianNoisyMax

    loss, _, _ = _gaussian_reference()
    res = privacy_loss(GaussianNoisyMax(sigma=1), [0, 0], [1, 0])
    assert res.engine == "ball" and res.output == 1 and res.direction == 1
    assert abs(res.loss - loss) < 1e-28


def test_ball_privacy_loss_raises_the_precision_while_a_ball_contains_zero():
    """Balls of radius 1 at 30 digits (every probability ball contains 0) are undecided
    there; the loss is found at the next level, 60 digits, with its value from mpmath."""
    import flint

    from exactdp.mechanisms.gaussian_noisy_max import GaussianNoisyMax

    class Blurred(GaussianNoisyMax):
        def _balls(self, sv, dps):
            balls = super()._balls(sv, dps)
            return [b + flint.arb(0, 1) for b in balls] if dps == 30 else balls

    loss, _, _ = _gaussian_reference()
    res = privacy_loss(Blurred(sigma=1), [1, 0], [0, 0])
    assert res.dps == 60 and res.output == 1 and res.direction == -1
    assert abs(res.loss - loss) < 1e-40


def test_a_zero_loss_has_direction_zero():
    """docs/formulas.md section 7: shifting every score by +1 leaves PF's distribution
    unchanged, so every ratio is 1, the loss 0, and no direction is favoured."""
    res = privacy_loss(exactdp.PermuteAndFlip(2), [3, 1, 0, 0, -2], [4, 2, 1, 1, -1])
    assert res.value == 0 and res.direction == 0 and all(r == 1 for r in res.ratios)


def test_a_closed_form_beyond_the_exponent_limit_is_refused_naming_the_route_that_answers():
    """PF(1) on (0, -g) vs (1, -g) with g = 10^305: the coins exp(-g/2) have exponents of
    305 digits (limit 300, exactdp.cost); check_dp answers the same pair exactly (loss 1/2,
    as at g = 10^300 above)."""
    pf = exactdp.PermuteAndFlip(1)
    pair = ([0, -(10**305)], [1, -(10**305)])
    with pytest.raises(ValueError, match=r"^privacy_loss: an exact closed form holding "
                                         r"exp\(-d\) with d ~ 10\^304 ") as info:
        privacy_loss(pf, *pair)
    assert str(info.value).endswith(
        "compare the float64 views (mechanism.distribution(q).to_numpy()) or evalf_balls of "
        "the pair, or use a smaller epsilon")
    res = check_dp(pf, *pair, epsilon=R(1, 2))
    assert res.holds and res.loss == R(1, 2)


def test_ball_loss_has_the_digits_of_its_working_precision():
    """The ball engine's loss is a sympy Float of dps = 30 significant digits (103 bits),
    not the full midpoint of the enclosure."""
    from exactdp.mechanisms.gaussian_noisy_max import GaussianNoisyMax

    res = privacy_loss(GaussianNoisyMax(sigma=1), [1, 0], [0, 0])
    assert res.dps == 30 and res.loss._prec == sympy.Float(1, 30)._prec


def test_tied_largest_ratios_report_the_first_output():
    """P = (1/6, 1/6, 2/3) against the uniform (1/3, 1/3, 1/3): every output has
    |ln ratio| = ln 2, so the loss is ln 2 attained first at output 0 (numpy.argmax of the
    float |log ratios|, the first maximiser), where P < P' (direction -1)."""
    third, sixth = R(1, 3), R(1, 6)

    def fn(q, eps):
        return [sixth, sixth, 4 * sixth] if q[0] > q[1] else [third, third, third]

    m = mechanism_from_function(fn, epsilon=1)
    res = privacy_loss(m, [1, 0, 0], [0, 0, 0])
    logs = np.abs(np.log(np.array([1 / 6, 1 / 6, 2 / 3]) / (1 / 3)))
    assert res.value == sympy.log(2) and res.output == int(np.argmax(logs)) == 0
    assert res.direction == -1 and res.candidates == (0,)
    assert check_dp(m, [1, 0, 0], [0, 0, 0]).witness.output == 0


def test_privacy_loss_names_a_sequence_output_by_itself():
    """A sparse vector's loss names its output as the answers (the label), and the label is
    the output whose exact log ratio is the loss (checked against the two distributions)."""
    import exactdp

    svt = exactdp.SparseVector(sympy.Rational(1, 2), 1, c=2)
    q, q2 = [2, 0, 1, 3], [1, 1, 2, 2]
    loss = privacy_loss(svt, q, q2)
    d, d2 = svt.distribution(q), svt.distribution(q2)
    assert loss.label == d.outputs[loss.output]
    r = dict(zip(d.outputs, d.probabilities, strict=True))[loss.label]
    r2 = dict(zip(d2.outputs, d2.probabilities, strict=True))[loss.label]
    assert sympy.simplify(abs(sympy.log(r / r2)) - loss.value) == 0
    assert f"output={loss.label}" in repr(loss)
    em = privacy_loss(exactdp.ExponentialMechanism(1), [0, 0], [1, -1])
    assert em.label is None and f"output={em.output}" in repr(em)


def test_an_infinite_ball_loss_points_to_the_vector_where_the_output_is_possible():
    """Mutation seed 11: a Gaussian RNM whose balls on [1, 0] are exactly (1, 0) (output 1
    impossible there; on [0, 0] each output has 1/2 by symmetry): the loss is oo at output
    1, direction +1 from [0, 0] to [1, 0] and -1 back (PrivacyLoss's docstring)."""
    import flint

    from exactdp.mechanisms.gaussian_noisy_max import GaussianNoisyMax

    class Degenerate(GaussianNoisyMax):
        def _balls(self, sv, dps):
            if tuple(sv.values) == (1, 0):
                return [flint.arb(1), flint.arb(0)]
            return super()._balls(sv, dps)

    there = privacy_loss(Degenerate(sigma=1), [0, 0], [1, 0])
    back = privacy_loss(Degenerate(sigma=1), [1, 0], [0, 0])
    assert there.engine == back.engine == "ball"
    assert there.loss == back.loss == sympy.oo and there.output == back.output == 1
    assert (there.direction, back.direction) == (1, -1)


# ------------------------------------------------- vectors reaching different output sets
@program(adjacency="one", domain=(0, 1))
def reveal(q, epsilon):
    """Decided without noise: (False,) on q = (0,), (True,) on (1,)."""
    return q[0] == 1


def test_an_output_decided_without_noise_has_an_infinite_loss_with_its_witness():
    """Each vector's one output has probability 1 there and 0 on the other: the loss is
    infinite (Dwork and Roth, Def. 2.4), witnessed by the output itself."""
    m = reveal(epsilon=1)
    loss = privacy_loss(m, [1], [0])
    assert loss.value is sympy.oo and loss.direction == 1
    assert loss.label is True and loss.output == 0
    assert loss.ratios == (sympy.oo, 0)  # over the union (True, False)
    back = privacy_loss(m, [0], [1])
    assert back.value is sympy.oo and back.label is False
    assert "output=False" in repr(back)


def test_incorrect_randomized_response_at_epsilon_one_against_its_probabilities():
    """DiPC's incorrect randomized response flips each bit with probability
    (1 - epsilon)/2 = 0 at epsilon = 1: by hand each vector's output is itself with
    probability 1, so two vectors differing in one bit have disjoint outputs and an
    infinite loss; at epsilon 1/2 the flip probability is 1/4 and the loss ln 3."""
    L = programs_library
    m = L.randomized_response_incorrect(epsilon=1)
    for v in ([0], [1], [0, 1], [1, 1]):
        d = m.distribution(v)
        assert d.outputs == (tuple(v),) and tuple(d.probabilities) == (1,)
    loss = privacy_loss(m, [0, 1], [1, 1])
    assert loss.value is sympy.oo and loss.label == (0, 1)
    assert loss.ratios == (sympy.oo, 0)  # union ((0, 1), (1, 1))
    half = privacy_loss(L.randomized_response_incorrect(epsilon=R(1, 2)), [0], [1])
    assert sympy.simplify(half.value - sympy.log(3)) == 0


@pytest.mark.parametrize("eps", [sympy.Integer(1), EPS])
def test_overlapping_output_sets_common_loss_by_hand_and_infinite_part_witnessed(eps):
    """Laplace(1/eps) has P(L >= t) = e^(-eps t)/2 for t >= 0. On (1,): True with
    P(L >= 0) = 1/2, False 1/2. On (0,): 1 with P(L >= 1) = e^-eps/2, False 1 - e^-eps/2.
    Over the union (True, False, 1) the ratios are (oo, (1/2)/(1 - e^-eps/2), 0); the
    other way, over (False, 1, True): (2 - e^-eps, oo, 0)."""
    m = overlap(epsilon=eps)
    one, zero = m.distribution([1]), m.distribution([0])
    assert one.outputs == (True, False) and zero.outputs == (False, 1)
    loss = privacy_loss(m, [1], [0])
    assert loss.value is sympy.oo and loss.label is True
    assert loss.ratios[0] is sympy.oo and loss.ratios[2] == 0
    common = R(1, 2) / (1 - sympy.exp(-eps) / 2)
    assert sympy.simplify(loss.ratios[1] - common) == 0
    back = privacy_loss(m, [0], [1])
    assert back.value is sympy.oo
    assert back.label == 1 and type(back.label) is int  # the integer, not True
    assert back.ratios[1] is sympy.oo and back.ratios[2] == 0
    assert sympy.simplify(back.ratios[0] - (2 - sympy.exp(-eps))) == 0


def test_positive_log_is_sympys_log_of_a_positive_ratio():
    """positive_log(R) is sympy.log(R) (evaluated) on each shape a loss's ratio takes: a
    quotient of sums of exponentials (kept as log(R)), exp(a) (a), a rational, E, 1."""
    from exactdp.analysis.loss import positive_log

    e = sympy.exp
    half, third = sympy.Rational(1, 2), sympy.Rational(1, 3)
    ratios = [(2 * e(-1) + 1 + 2 * e(-half)) / (e(-1) + 2 * e(-3 * half)),
              e(half), sympy.Rational(5, 3), sympy.Rational(1, 7), sympy.E,
              sympy.Integer(1), 1 + e(-third)]
    for R in ratios:
        assert positive_log(R) == sympy.log(R)
    assert positive_log(ratios[1]) == sympy.Rational(1, 2)
    assert positive_log(sympy.Integer(1)) == 0


def test_ball_loss_repr_prints_only_certified_digits_and_a_nonnegative_bracket():
    """RNM-Gaussian on [0, 1] vs [1, 0]: the loss is ln(erfc(-x) / erfc(x)), x = 1/(2 sigma)
    (independent route: mpmath at 40 digits). The repr shows the midpoint to its certified
    digits (not ``250007.0``); a loss bracket starts at 0, not below."""
    import mpmath

    import exactdp
    with mpmath.workdps(40):
        x = mpmath.mpf(500)
        ref = mpmath.log(mpmath.erfc(-x) / mpmath.erfc(x))
        res = exactdp.privacy_loss(exactdp.GaussianNoisyMax(sigma="1e-3"), [0, 1], [1, 0])
        assert res.value is None and abs(float(res) - float(ref)) < 1e-9
        lo, hi = (mpmath.mpf(e.numerator) / e.denominator for e in (res.lower, res.upper))
        assert lo <= ref <= hi
    assert "loss=250007.48 (certified ball)" in repr(res)
    huge = exactdp.privacy_loss(exactdp.GaussianNoisyMax(sigma="1e300"), [0, 1], [1, 0])
    assert huge.lower == 0 and "loss=[0, " in repr(huge)
    assert float(huge.upper) < 1e-43  # the loss ~ 2/(sqrt(pi) sigma) * ... -> 0
