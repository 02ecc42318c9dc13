"""Exact privacy-loss distributions: checked against direct and brute-force computations."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import exactdp
from exactdp import PermuteAndFlip, privacy_loss_distribution
from exactdp.analysis import DiscretisedPLD, neighbours


@pytest.fixture(autouse=True)
def _digits():
    """Work at 50 digits without touching the global mpmath context of other tests."""
    with mpmath.workdps(50):
        yield


def _direct_delta(p, q, eps) -> mpmath.mpf:
    """sum_r max(0, P_r - e^eps Q_r) over the outputs, in mpmath (independent route)."""
    e = mpmath.exp(mpmath.mpf(sympy.N(eps, 60)))
    return mpmath.fsum(max(mpmath.mpf(0), a - e * b) for a, b in zip(p, q, strict=True))


def _brute(pairs, eps) -> mpmath.mpf:
    """delta of the product of the pairs' distributions, enumerating every output tuple."""
    total = mpmath.mpf(0)
    e = mpmath.exp(mpmath.mpf(sympy.N(eps, 60)))
    for outs in itertools.product(*[range(len(p)) for p, _ in pairs]):
        a = mpmath.fprod(p[r] for (p, _), r in zip(pairs, outs, strict=True))
        b = mpmath.fprod(q[r] for (_, q), r in zip(pairs, outs, strict=True))
        total += max(mpmath.mpf(0), a - e * b)
    return total


def _in_ball(value: mpmath.mpf, ball) -> bool:
    mid = mpmath.mpf(ball.mid().str(45, radius=False))
    rad = mpmath.mpf(ball.rad().str(5, radius=False))
    return abs(value - mid) <= rad + mpmath.mpf(10) ** -40


def _probs(mech, scores):
    return mech.distribution(scores).evalf(45)


MECHS = [
    exactdp.ExponentialMechanism(1),
    exactdp.PermuteAndFlip(2),
    exactdp.ReportNoisyMax(1, noise="laplace"),
    exactdp.PermuteAndFlip("1/2"),
]
PAIRS = [([0, 0], [1, -1]), ([0, 1, 2], [1, 0, 3]), ([0, "1/2", 1], [1, "-1/2", 0])]


@pytest.mark.parametrize("mech", MECHS, ids=lambda m: f"{type(m).__name__}-{m.epsilon}")
@pytest.mark.parametrize("pair", PAIRS, ids=str)
def test_pld_delta_matches_direct_computation(mech, pair):
    q, q2 = pair
    pld = privacy_loss_distribution(mech, q, q2)
    p, qq = _probs(mech, q), _probs(mech, q2)
    for eps in [0, sympy.Rational(1, 3), 1, sympy.Rational(5, 2)]:
        h = pld.delta(eps)
        want = _direct_delta(p, qq, eps)
        assert abs(mpmath.mpf(float(h)) - want) < 1e-14
        assert _in_ball(want, h.ball)
        assert abs(sympy.N(h.value, 30) - sympy.Float(str(want), 30)) < 1e-25
        back = pld.reverse().delta(eps)
        assert abs(float(back) - float(_direct_delta(qq, p, eps))) < 1e-14


def test_pure_dp_delta_is_exactly_zero_at_epsilon():
    # PF at epsilon = 2 on [0, 0] vs [1, -1]: output 1 has loss exactly 2 = epsilon
    pld = privacy_loss_distribution(exactdp.PermuteAndFlip(2), [0, 0], [1, -1])
    h = pld.delta(2)
    assert h.value == 0 and h.ball == 0
    assert pld.delta("1.999").lower > 0
    assert pld.epsilon(0).lower <= 2 <= pld.epsilon(0).upper
    for mech in (exactdp.ExponentialMechanism(1), exactdp.PermuteAndFlip(1)):
        nbrs, _ = neighbours(mech, [0, 1, 1])
        for nb in nbrs:
            for a, b in (([0, 1, 1], nb), (nb, [0, 1, 1])):
                d = privacy_loss_distribution(mech, a, b).delta(1)
                assert d.ball == 0 and d.value == 0


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("mech", MECHS[:3], ids=lambda m: type(m).__name__)
def test_self_composition_matches_brute_force_product(mech, k):
    q, q2 = [0, 1, 2], [1, 0, 3]
    pld = privacy_loss_distribution(mech, q, q2)
    comp = pld.self_compose(k)
    pair = (_probs(mech, q), _probs(mech, q2))
    for eps in [0, Fraction(1, 2), 2]:
        h = comp.delta(eps)
        assert h.algorithm == "exact"
        assert abs(mpmath.mpf(float(h)) - _brute([pair] * k, eps)) < 1e-14
    assert abs(sympy.N(comp.delta(1).value, 30) - sympy.Float(
        str(_brute([pair] * k, 1)), 30)) < 1e-25


def test_compose_of_different_pairs_matches_brute_force():
    em, pf = exactdp.ExponentialMechanism(1), exactdp.PermuteAndFlip(2)
    a = privacy_loss_distribution(em, [0, 1, 2], [1, 0, 3])
    b = privacy_loss_distribution(pf, [0, 0], [1, -1])
    c = a.compose(b).compose(a)
    pairs = [(_probs(em, [0, 1, 2]), _probs(em, [1, 0, 3])), (_probs(pf, [0, 0]),
                                                             _probs(pf, [1, -1]))]
    for eps in [0, 1, 3]:
        assert abs(mpmath.mpf(float(c.delta(eps))) - _brute([pairs[0], pairs[1], pairs[0]],
                                                            eps)) < 1e-14


def test_exact_merging_of_equal_losses():
    # EM: a loss is linear in the count of each output, so 10 copies of a 3-atom pair with
    # losses in {-a, a} (outputs 1 and 2 share a ratio) collapse to 11 atoms
    pld = privacy_loss_distribution(exactdp.ExponentialMechanism(1), [0, "1/2", 1],
                                    [1, "-1/2", 0])
    assert len(pld) == 2
    comp = pld.self_compose(10)
    assert len(comp) == 11
    losses = sorted(float(sympy.N(comp.atom_masses(i)[0])) for i in range(len(comp)))
    assert all(b - a > 1e-3 for a, b in zip(losses, losses[1:], strict=False))
    total = sum(sympy.N(comp.atom_masses(i)[1], 30) for i in range(len(comp)))
    assert abs(total - 1) < 1e-25


@pytest.mark.parametrize("mech, q, q2", [
    (exactdp.PermuteAndFlip(1), [0, 1, 2], [1, 0, 3]),
    (exactdp.ReportNoisyMax(1, noise="laplace"), [0, 1, 2], [1, 0, 1]),
    (exactdp.ExponentialMechanism(1), [3, 1, 0], [2, 2, 0]),
])
def test_lattice_bounds_bracket_exact_enumeration(mech, q, q2):
    """The lattice's certified lower and upper bounds bracket the exactly counted delta."""
    pld = privacy_loss_distribution(mech, q, q2)
    exact = pld.self_compose(20)
    grid = pld.self_compose(20, max_support=50)
    assert isinstance(grid, DiscretisedPLD) and grid.k == 20
    for eps in [0, 1, 3, "5.5"]:
        g, ex = grid.delta(eps), exact.delta(eps)
        assert g.algorithm == "grid" and g.certified and g.value is None
        assert ex.algorithm == "exact" and ex.value is not None
        assert g.lower <= ex.lower and ex.upper <= g.upper
        assert g.upper - g.lower <= max(Fraction(1, 1000) * g.lower, Fraction(1, 10**12))
    lo_eps = grid.epsilon(Fraction(1, 10))
    ex_eps = exact.epsilon(Fraction(1, 10), dps=25)
    assert lo_eps.lower <= ex_eps.upper and ex_eps.lower <= lo_eps.upper
    assert lo_eps.upper - lo_eps.lower <= Fraction(1, 1000) * lo_eps.lower


def test_lattice_matches_enumeration_at_k_1000():
    """EM(1) [3,1,0] -> [2,2,0] at k = 1000: the lattice bounds (C(1002, 2) = 501 501 count
    vectors, too many to count exactly) against a float enumeration of the trinomial sum."""
    import math

    pld = privacy_loss_distribution(exactdp.ExponentialMechanism(1), [3, 1, 0], [2, 2, 0])
    h = pld.self_compose(1000).delta("96.3")
    assert h.algorithm == "grid" and h.upper / h.lower - 1 <= Fraction(1, 1000)
    losses, pm, _ = pld._balls(128)
    lv = [float(b.mid()) for b in losses]
    lp = [math.log(float(b.mid())) for b in pm]
    k, total = 1000, 0.0
    for a in range(k + 1):
        for b in range(k + 1 - a):
            c = k - a - b
            loss = a * lv[0] + b * lv[1] + c * lv[2]
            if loss > 96.3:
                logm = (math.lgamma(k + 1) - math.lgamma(a + 1) - math.lgamma(b + 1)
                        - math.lgamma(c + 1) + a * lp[0] + b * lp[1] + c * lp[2])
                total += math.exp(logm) * (1 - math.exp(96.3 - loss))
    assert float(h.lower) - 1e-9 <= total <= float(h.upper) + 1e-9
    assert abs(total - 0.4714) < 1e-4


def test_beyond_k_times_largest_loss_is_the_mass_at_infinity():
    pf = exactdp.PermuteAndFlip(2)
    pld = privacy_loss_distribution(pf, [0, 0], [1, -1])
    grid = pld.self_compose(1000, max_support=10)
    top = 1000 * float(pld.max_loss())
    h = grid.delta(math.ceil(top) + 1)
    assert h.algorithm == "exact" and h.value == grid.p_inf
    assert h.lower == h.upper == Fraction(str(sympy.nsimplify(grid.p_inf))) or (
        h.lower <= h.upper)


def test_tolerance_and_epsilon_errors_name_the_argument():
    pld = privacy_loss_distribution(exactdp.ExponentialMechanism(1), [3, 1, 0], [2, 2, 0])
    grid = pld.self_compose(1000)
    for bad in (0, 1, -1e-3, 2.0, float("nan")):
        with pytest.raises(ValueError, match="delta: rtol must be a real number in"):
            grid.delta(1, rtol=bad)
        with pytest.raises(ValueError, match="delta: rtol must be a real number in"):
            pld.delta(1, rtol=bad)
    with pytest.raises(ValueError, match="epsilon: atol must be a real number in"):
        grid.epsilon("0.1", atol=0)
    with pytest.raises(ValueError, match="delta: epsilon"):
        grid.delta(float("nan"))
    with pytest.raises(ValueError, match="self_compose: k must be a positive integer"):
        grid.self_compose(0)


def test_lattice_cost_refusal_is_fast_and_names_a_coarser_tolerance():
    import time

    pld = privacy_loss_distribution(exactdp.ReportNoisyMax(1, noise="laplace"), [0, 1, 2],
                                    [1, 0, 1])
    grid = pld.self_compose(10**5)
    start = time.process_time()
    with pytest.raises(ValueError, match="delta: .*lattice points.*rtol"):
        grid.delta(10**4, rtol=1e-9)
    assert time.process_time() - start < 2


def test_epsilon_inverts_delta():
    pld = privacy_loss_distribution(exactdp.ExponentialMechanism(2), [0, 1, 2], [1, 0, 3])
    comp = pld.self_compose(5)
    res = comp.epsilon(Fraction(1, 100), dps=20)
    assert res.certified and res.upper - res.lower < Fraction(1, 10**19) * max(1, res.lower)
    assert comp.delta(res.lower).lower >= Fraction(1, 100) or abs(
        float(comp.delta(res.lower)) - 0.01) < 1e-18
    assert float(comp.delta(res.upper)) <= 0.01 + 1e-18


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(-2, 2), min_size=2, max_size=3),
       st.lists(st.sampled_from([-1, 0, 1]), min_size=3, max_size=3),
       st.sampled_from(["1/2", 1, 2]), st.sampled_from([0, "0.3", 1, 2]))
def test_property_em_pld_matches_direct(q, move, eps0, eps):
    mech = exactdp.ExponentialMechanism(eps0)
    q2 = [a + s for a, s in zip(q, move, strict=False)]
    h = privacy_loss_distribution(mech, q, q2).delta(eps)
    want = _direct_delta(_probs(mech, q), _probs(mech, q2), sympy.Rational(str(eps)))
    assert abs(mpmath.mpf(float(h)) - want) < 1e-14


def test_bad_input():
    mech = exactdp.ExponentialMechanism(1)
    with pytest.raises(ValueError, match=r"privacy_loss_distribution: len\(neighbour\) must be 2"):
        privacy_loss_distribution(mech, [0, 1], [0, 1, 2])
    pld = privacy_loss_distribution(mech, [0, 1], [1, 0])
    with pytest.raises(ValueError, match=r"^delta: epsilon must be >= 0, got -1$"):
        pld.delta(-1)
    with pytest.raises(ValueError, match=r"^delta: epsilon must be finite, got 'nan'$"):
        pld.delta("nan")
    with pytest.raises(ValueError, match=r"^delta: epsilon must be a finite real number, "
                                         r"got nan$"):
        pld.delta(float("nan"))
    with pytest.raises(ValueError, match="self_compose: k must be a positive integer"):
        pld.self_compose(0)
    with pytest.raises(ValueError, match="delta"):
        pld.epsilon(2)
    with pytest.raises(ValueError, match="symbolic"):
        privacy_loss_distribution(exactdp.ExponentialMechanism(sympy.Symbol("e", positive=True)),
                                  [0, 1], [1, 0])


def test_extreme_inputs_are_exact_or_refused():
    from exactdp.exact import UndecidedSignError

    # epsilon 1e-12: delta(0) of PF on [0, 1] vs [1, 0] is the TV distance 1 - exp(-eps/2)
    tiny = privacy_loss_distribution(exactdp.PermuteAndFlip("1e-12"), [0, 1], [1, 0])
    want = -mpmath.expm1(-mpmath.mpf("5e-13"))
    assert _in_ball(want, tiny.delta(0).ball)
    # epsilon 1e6: delta(0) is 1 - exp(-5e5) and the largest loss is 5e5 + ln 2
    huge = privacy_loss_distribution(exactdp.PermuteAndFlip(10**6), [0, 1], [1, 0])
    assert _in_ball(1 - mpmath.exp(-500000), huge.delta(0).ball)
    assert huge.delta(500001).value == 0 and huge.delta(500000).lower > 0
    # scores 1e300: the x-form is too large; balls and exact algebra decide, or it refuses
    big = privacy_loss_distribution(exactdp.ExponentialMechanism(1), [0, 10**300],
                                    [1, 10**300 - 1])
    assert big.delta(1).value == 0
    with pytest.raises(UndecidedSignError):
        big.delta(0)  # one loss is about exp(-5e299) > 0: no ball separates it from 0


def test_mechanism_without_closed_form_is_refused_clearly():
    with pytest.raises(ValueError, match="exact closed-form"):
        privacy_loss_distribution(exactdp.GaussianNoisyMax(1), [0, 1], [1, 0])


@pytest.mark.parametrize("k", [1, 7, 40])
def test_epsilon_closed_form_agrees_with_bisection(k):
    from exactdp.analysis.pld.results import bisect_epsilon

    comp = privacy_loss_distribution(exactdp.PermuteAndFlip(1), [-1, 2, 1],
                                     [0, 1, 2]).self_compose(k)
    for target in ["1/10", "1e-6", 0]:
        fast, slow = comp.epsilon(target, dps=25), bisect_epsilon(comp, target, 25, "bisection")
        assert fast.lower <= slow.upper and slow.lower <= fast.upper
        assert fast.upper - fast.lower <= Fraction(1, 10**25) * max(1, fast.lower)
        # the defining property, checked at the ends of the interval
        assert comp.delta(fast.upper).lower <= Fraction(str(target)) or float(
            comp.delta(fast.upper)) <= float(Fraction(str(target))) + 1e-28
        assert float(comp.delta(fast.lower)) >= float(Fraction(str(target))) - 1e-28


@settings(max_examples=10, deadline=None)
@given(st.lists(st.integers(-2, 2), min_size=2, max_size=3),
       st.lists(st.sampled_from([-1, 0, 1]), min_size=3, max_size=3),
       st.sampled_from([exactdp.PermuteAndFlip(1), exactdp.ExponentialMechanism(2),
                        exactdp.ReportNoisyMax(1, noise="exponential")]),
       st.sampled_from([0, "1/2", 2]))
def test_property_two_fold_composition_is_the_product(q, move, mech, eps):
    q2 = [a + s for a, s in zip(q, move, strict=False)]
    got = privacy_loss_distribution(mech, q, q2).self_compose(2).delta(eps)
    pair = (_probs(mech, q), _probs(mech, q2))
    assert abs(mpmath.mpf(float(got)) - _brute([pair, pair], sympy.Rational(str(eps)))) < 1e-14


def test_latex_and_repr():
    pld = privacy_loss_distribution(exactdp.PermuteAndFlip(2), [0, 0], [1, -1])
    tex = pld._repr_latex_()
    assert tex.startswith("$\\begin{array}") and "\\frac{1}{2}" in tex
    assert "k=1" in repr(pld) and "atoms=2" in repr(pld)
    h = pld.delta(1)
    tex = h._repr_latex_()  # exact and in decimals: 1/2 - 1/(2e) = 0.3160602794...
    assert "\\frac{1}{2} - \\frac{1}{2 e} \\approx 0.31606" in tex and len(tex) < 400
    # the interval's ends rounded outward (it printed "[2, 2]", ends rounded to nearest)
    assert "epsilon=2.0 in [1.999999999, 2.000000001]" in repr(pld.epsilon(0))


def test_pld_checks_the_neighbour_like_privacy_loss():
    with pytest.raises(ValueError, match="exceeds the sensitivity"):
        exactdp.privacy_loss_distribution(PermuteAndFlip(2), [0, 0], [5, -5])
    pld = exactdp.privacy_loss_distribution(
        PermuteAndFlip(2), [0, 0], [5, -5], allow_non_neighbour=True)
    # P = (1/2, 1/2); Q = (1 - e^-10/2, e^-10/2): delta(0) = sum max(0, P - Q) = 1/2 - e^-10/2
    assert sympy.simplify(pld.delta(0).value - (sympy.Rational(1, 2)
                                                    - sympy.exp(-10) / 2)) == 0


def test_self_compose_refuses_astronomical_k_quickly():
    import time
    pld = exactdp.privacy_loss_distribution(PermuteAndFlip(2), [0, 0], [1, -1])
    t = time.process_time()
    with pytest.raises(ValueError, match="beyond the limit"):
        pld.self_compose(10**9)
    with pytest.raises(ValueError, match=r"^check_accountant: .*\(limit 1e\+05 copies\)"):
        exactdp.check_accountant(PermuteAndFlip(2), [0, 0], 10**9, [8])
    assert time.process_time() - t < 10


def test_pld_structure_max_loss_delta_ball_and_grid():
    """PF(eps = 2) on the neighbours (0, 0) and (1, 0): P = (1/2, 1/2), Q = (1 - p/2, p/2)
    with p = e^-1 (docs/formulas.md section 2), so the losses are ln(1/(2 - p)) and
    ln(1/p) = 1, and delta(eps) = (1 - e^(eps - 1))/2 for 0 <= eps <= 1 (by hand)."""
    import flint

    pld = privacy_loss_distribution(PermuteAndFlip(2), [0, 0], [1, 0])
    assert isinstance(pld, exactdp.PrivacyLossDistribution)
    assert pld.support_terms == 2
    # k copies of a two-outcome pair: the count vectors (a, k - a), k + 1 of them
    assert pld.self_compose(3).support_terms == 4
    assert _in_ball(mpmath.mpf(1), pld.max_loss())
    for eps in ("0.5", "0.25"):
        want = (1 - mpmath.exp(mpmath.mpf(eps) - 1)) / 2
        assert _in_ball(want, pld.delta_ball(flint.arb(eps), 120))
    # two copies on the lattice (the two losses are not on one lattice: the bounds bracket)
    grid = DiscretisedPLD(((pld, 2),), "two copies")
    assert isinstance(grid, DiscretisedPLD)
    h, ex = grid.delta("1/2"), pld.self_compose(2).delta("1/2")
    assert h.lower <= ex.lower and ex.upper <= h.upper


def test_multinomial_terms_match_math_comb():
    """The incremental counts equal the products of math.comb, in the same order."""
    import math

    from exactdp.analysis.pld.core import _multinomial_terms

    for k, m in [(1, 1), (0, 3), (7, 2), (6, 3), (9, 4), (4, 5), (30, 3)]:
        got = _multinomial_terms(k, m)
        assert sum(got.values()) == m**k
        for c, v in got.items():
            want, left = 1, k
            for x in c:
                want, left = want * math.comb(left, x), left - x
            assert sum(c) == k and v == want


def test_lattice_losses_and_span_of_an_exponential_mechanism_pair():
    """EM(1) on [3,1,0] vs [2,2,0]: the losses are (q_r - q'_r)/2 + log(Z'/Z), so they differ
    by exactly 1 and 1/2 whatever the normalisers (an independent hand computation)."""
    import math

    import exactdp

    pld = exactdp.privacy_loss_distribution(exactdp.ExponentialMechanism(1), [3, 1, 0],
                                            [2, 2, 0])
    losses = sorted(pld.lattice_losses())
    assert math.isclose(losses[2] - losses[0], 1, abs_tol=1e-12)
    assert math.isclose(losses[1] - losses[0], 0.5, abs_tol=1e-12)
    assert math.isclose(pld.loss_span(), 1, abs_tol=1e-8)
    span = pld.lattice_ball_span(64)
    assert span.contains(1) and span.rad() < 1e-15


@pytest.mark.parametrize("make", [exactdp.PermuteAndFlip, exactdp.ExponentialMechanism])
def test_delta_at_score_gaps_1e300_and_1e1000_answers_or_refuses_fast(make):
    """Issue 20: delta(0) at score gaps of 1e300 raised UndecidedSignError after 6-10 s (a
    ball of 2^20 bits, then sympy's rewriting of exp(-5e299)); the sign's balls now stop
    where the cost model says and it raises in about 1 s, saying so. At gaps of 1e1000
    (17-48 s) delta refuses at once; epsilon and delta(1) still answer (exactly 0: the
    losses are -1 and about exp(-5e999) > 0, both below 1)."""
    import time

    from exactdp.cost import TooCostly
    from exactdp.exact import UndecidedSignError

    big = privacy_loss_distribution(make(1), [0, 10**300], [1, 10**300 - 1])
    t0 = time.process_time()
    with pytest.raises(UndecidedSignError, match="cost model"):
        big.delta(0)
    assert time.process_time() - t0 < 5  # ~1 s unloaded
    assert big.delta(1).value == 0
    huge = privacy_loss_distribution(make(1), [0, 10**1000], [1, 10**1000 - 1])
    t0 = time.process_time()
    with pytest.raises(TooCostly, match=r"^delta: .*10\^999.*delta_ball"):
        huge.delta(0)
    assert time.process_time() - t0 < 5  # ~1 s unloaded
    assert huge.delta(1).value == 0


def test_composition_refuses_or_answers_before_a_long_lattice():
    """Issue 20: 10^4 copies of RNM-Laplace at rtol 1e-6 built a first lattice of ~7 s
    before refusing (eps = 1000) or answering (eps = 1: 9.7 s, eps = 2000: 6.4 s). A coarse
    first lattice (cost model: FIRST_LATTICE_SECONDS) answers or predicts the refusal in
    under 2 s; the answers are certified enclosures of the same values (delta(1) ~ 1,
    delta(2000) tiny)."""
    import time

    from exactdp.cost import TooCostly

    pld = privacy_loss_distribution(exactdp.ReportNoisyMax(1, noise="laplace"), [0, 1, 2],
                                    [1, 0, 1])
    grid = pld.self_compose(10**4)
    t0 = time.process_time()
    with pytest.raises(TooCostly, match=r"^delta: .*lattice points.*rtol"):
        grid.delta(1000, rtol=1e-6)
    assert time.process_time() - t0 < 5  # the coarse lattice: ~1.2 s unloaded
    one = grid.delta(1, rtol=1e-6)
    assert one.upper - one.lower <= 1e-6 * one.lower and one.upper <= 1
    assert one.lower > 1 - 1e-6
    tail = grid.delta(2000, rtol=1e-6)
    assert tail.lower >= 0 and tail.upper < 1e-12
