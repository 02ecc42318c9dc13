"""exactdp.mechanisms.base: what every mechanism gets from the base class, each checked against
an independent route (a direct formula, negated scores, sympy limits of the closed forms,
sampling): the base measure of EM, optimize="min", the exact limits epsilon = 0 and
epsilon = oo; exact sums to 1, symmetry, shift invariance and the monotonic flag."""

import warnings
from fractions import Fraction

import flint
import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import exactdp
from exactdp import (
    ExponentialMechanism,
    PermuteAndFlip,
    ReportNoisyMax,
    TopK,
    goodness_of_fit,
)
from exactdp.exact import mpf_to_arb
from tests.mechanisms import BY_EPSILON

EPS = sympy.Symbol("epsilon", positive=True)
Q = (3, 1, 0, 0, -2)
MU = (1, 2, 0, Fraction(1, 3), 5)


# ------------------------------------------------------------------ base measure
def test_base_measure_direct_formula():
    d = ExponentialMechanism(2, base_measure=MU).distribution(Q)
    # Pr[r] = mu_r exp(eps q_r / 2) / sum, eps = 2 (McSherry & Talwar 2007)
    w = [sympy.Rational(m) * sympy.exp(sympy.Integer(q)) for m, q in zip(MU, Q, strict=True)]
    expected = [v / sum(w) for v in w]
    assert all(sympy.simplify(a - b) == 0
               for a, b in zip(d.probabilities, expected, strict=True))
    assert d.probabilities[2] == 0
    ref = np.array([float(sympy.N(v, 30)) for v in expected])
    assert np.allclose(d.to_numpy(), ref, rtol=1e-13, atol=0)
    with mpmath.workdps(40):
        for v, e in zip(d.evalf(30), expected, strict=True):
            assert abs(v - mpmath.mpf(sympy.N(e, 50))) <= mpmath.mpf(10) ** -29 * max(v, 1e-300)
    x, forms = d.rational_form()
    for f, m, q in zip(forms, MU, Q, strict=True):  # mu_r x^(q* - q_r) / sum
        den = sum(sympy.Rational(mm) * x ** (3 - qq) for mm, qq in zip(MU, Q, strict=True))
        assert sympy.cancel(f - sympy.Rational(m) * x ** (3 - q) / den) == 0


def test_base_measure_sampling():
    d = ExponentialMechanism(2, base_measure=MU).distribution(Q)
    draws = d.sample(20_000, rng=3)
    assert not np.any(draws == 2)  # measure 0: never drawn
    res = goodness_of_fit(d.sample, d, 20_000, rng=5)
    assert res.verdict == "consistent", res


def test_base_measure_huge_gap_no_nan():
    # the diffprivlib report: utilities [0, -2000] with a measure gave NaN
    d = ExponentialMechanism(1, base_measure=[1, 2]).distribution([0, -2000])
    p = d.to_numpy()
    assert np.all(np.isfinite(p)) and p[0] == 1.0
    with mpmath.workdps(30):
        ref = 2 * mpmath.exp(-1000) / (1 + 2 * mpmath.exp(-1000))
        assert mpmath.almosteq(d.evalf(20)[1], ref, rel_eps=mpmath.mpf(10) ** -18)


def test_base_measure_analyzer():
    mech = ExponentialMechanism(1, base_measure=MU)
    res = exactdp.check_dp(mech, Q)
    assert res.holds and res.loss <= 1
    # EM with a measure is still eps-DP: the loss of one pair is exact and at most eps
    loss = exactdp.privacy_loss(mech, Q, (2, 2, 1, -1, -1)).value
    assert 0 < float(loss) <= 1


@pytest.mark.parametrize(
    "measure, message",
    [([1, -1, 1, 1, 1], r"base_measure\[1\] must be >= 0"), ([0] * 5, "0 everywhere"),
     ([1, float("nan"), 1, 1, 1], "finite"), ("ab", "sequence"), ([1, 2],
                                                          r"len\(base_measure\) must be 5")],
)
def test_base_measure_errors(measure, message):
    with pytest.raises(ValueError, match=message):
        ExponentialMechanism(1, base_measure=measure).distribution(Q)


# ------------------------------------------------------------------ optimize="min"
MECHS = {
    "EM": lambda **kw: ExponentialMechanism(1, **kw),
    "PF": lambda **kw: PermuteAndFlip(1, **kw),
    "RNM-exp": lambda **kw: ReportNoisyMax(1, noise="exponential", **kw),
    "RNM-gumbel": lambda **kw: ReportNoisyMax(1, noise="gumbel", **kw),
    "RNM-laplace": lambda **kw: ReportNoisyMax(1, noise="laplace", **kw),
}


@pytest.mark.parametrize("name", sorted(MECHS))
def test_minimize_equals_negated_scores(name):
    q = (2, 0, 1, 1, "1/2")
    neg = tuple(-sympy.Rational(v) for v in q)
    dmin = MECHS[name](optimize="min").distribution(q)
    dneg = MECHS[name]().distribution(neg)
    assert dmin.probabilities == dneg.probabilities
    assert np.array_equal(dmin.to_numpy(), dneg.to_numpy())
    assert dmin.evalf(25) == dneg.evalf(25)
    assert np.array_equal(dmin.sample(50, rng=4), dneg.sample(50, rng=4))
    # the error of output r is q_r - min q
    err = sum((sympy.Rational(v) - 0) * p for v, p in zip(q, dmin.probabilities, strict=True))
    assert sympy.simplify(dmin.expected_error() - err) == 0
    assert dmin.n == 5 and dmin.scores.exact[0] == 2  # the user's scores are kept


def test_minimize_topk_and_errors():
    a = TopK(PermuteAndFlip(1, optimize="min"), 2).distribution([0, 1, 2])
    b = TopK(PermuteAndFlip(1), 2).distribution([0, -1, -2])
    assert a.probabilities == b.probabilities
    c = TopK(ReportNoisyMax(1, optimize="min"), 2).distribution([0, 1, 3])
    d = TopK(ReportNoisyMax(1), 2).distribution([0, -1, -3])
    assert c.probabilities == d.probabilities
    with pytest.raises(ValueError, match="optimize must be 'max' or 'min'"):
        PermuteAndFlip(1, optimize="argmin")


# ------------------------------------------------------------------ epsilon 0 and oo
ZEROS = [0, 0.0, "0", Fraction(0), sympy.Integer(0)]
INFS = [sympy.oo, float("inf"), "oo", "inf"]
LIMIT_MECHS = {
    "EM": ExponentialMechanism,
    "PF": PermuteAndFlip,
    "RNM-exp": lambda e: ReportNoisyMax(e),
    "RNM-laplace": lambda e: ReportNoisyMax(e, noise="laplace"),
}
QT = (3, 1, 3, -1)


@pytest.mark.parametrize("name", sorted(LIMIT_MECHS))
def test_limits_equal_limits_of_closed_forms(name):
    sym = LIMIT_MECHS[name](EPS).distribution(QT).probabilities
    at0 = [sympy.limit(p, EPS, 0, "+") for p in sym]
    atoo = [sympy.limit(p, EPS, sympy.oo) for p in sym]
    assert at0 == [sympy.Rational(1, 4)] * 4
    assert atoo == [sympy.Rational(1, 2), 0, sympy.Rational(1, 2), 0]
    for z in ZEROS:
        d = LIMIT_MECHS[name](z).distribution(QT)
        assert list(d.probabilities) == at0 and d.mechanism.epsilon == 0
    for inf in INFS:
        d = LIMIT_MECHS[name](inf).distribution(QT)
        assert list(d.probabilities) == atoo and d.mechanism.epsilon == sympy.oo
        assert np.array_equal(d.to_numpy(), [0.5, 0, 0.5, 0])
        assert [float(v) for v in d.evalf(20)] == [0.5, 0, 0.5, 0]
        assert set(d.sample(200, rng=1).tolist()) == {0, 2}
        assert d.expected_error() == 0
        with pytest.raises(ValueError, match="no rational form"):
            d.rational_form()


def test_limits_numeric_views_and_sampling():
    d = PermuteAndFlip(0).distribution(QT)
    assert np.array_equal(d.to_numpy(), [0.25] * 4)
    assert all(b.contains(0.25) and b.rad() == 0 for b in d.evalf_balls(20))
    assert goodness_of_fit(d.sample, d, 8000, rng=2).verdict == "consistent"
    assert d.expected_error() == sympy.Rational(2 + 0 + 4 + 0, 4)
    # a base measure: mu / sum(mu) at 0, the positive-measure maximizers at oo
    em = ExponentialMechanism(0, base_measure=[0, 1, 2, 1]).distribution(QT)
    quarter, half = sympy.Rational(1, 4), sympy.Rational(1, 2)
    assert em.probabilities == (0, quarter, half, quarter)
    em = ExponentialMechanism("oo", base_measure=[0, 1, 2, 1]).distribution(QT)
    assert em.probabilities == (0, 0, 1, 0)


def test_limits_in_the_analyzer():
    for m in (PermuteAndFlip(0), ExponentialMechanism(0), ReportNoisyMax(0, noise="laplace")):
        assert exactdp.privacy_loss(m, [0, 1, 1], [1, 0, 1]).value == 0
        assert exactdp.check_dp(m, [0, 1, 1]).holds
    for m in (PermuteAndFlip("oo"), ExponentialMechanism("oo"), ReportNoisyMax("oo")):
        # the argmax moves from {1, 2} to {0, 2}: infinite loss
        assert exactdp.privacy_loss(m, [0, 1, 1], [1, 0, 1]).value == sympy.oo
        # the argmax stays {0}: loss 0
        assert exactdp.privacy_loss(m, [3, 0, 0], [2, 1, 0]).value == 0


def test_limits_topk():
    d = TopK(ReportNoisyMax(0, noise="laplace"), 2).distribution([0, 1, 2])
    assert d.probabilities == (sympy.Rational(1, 6),) * 6
    d = TopK(ReportNoisyMax("oo"), 2).distribution([0, 2, 2])
    assert dict(zip(d.outputs, d.probabilities, strict=True)) == {
        (0, 1): 0, (0, 2): 0, (1, 0): 0, (1, 2): sympy.Rational(1, 2),
        (2, 0): 0, (2, 1): sympy.Rational(1, 2)}


@pytest.mark.parametrize("bad", [-1, "-1/2", "-oo", float("-inf"), float("nan"), True])
def test_bad_epsilon(bad):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="epsilon"):
            PermuteAndFlip(bad)


def test_base_measure_topk_peels_the_restricted_measure():
    """Peeling EM with a measure: Pr[(a, b)] = w_a / sum w * w_b / sum_{s != a} w_s,
    w_r = mu_r 2**q_r at eps = 2 log 2 (direct formula)."""
    mu, q = (1, 2, 0, 3), (0, -1, -2, -3)
    d = TopK(ExponentialMechanism("2*log(2)", base_measure=mu), 2).distribution(q)
    w = [Fraction(m) * Fraction(2) ** v for m, v in zip(mu, q, strict=True)]
    for (a, b), p in zip(d.outputs, d.probabilities, strict=True):
        expected = w[a] / sum(w) * w[b] / (sum(w) - w[a])
        assert p == sympy.Rational(expected.numerator, expected.denominator)
    with pytest.raises(ValueError, match="base measure is 0 on every output left"):
        top = TopK(ExponentialMechanism(1, base_measure=[1, 0, 0]), 2)
        _ = top.distribution([0, 1, 2]).probabilities


def test_optimal_mechanism_options():
    """The optimal regular mechanism is PF (docs/formulas.md section 4): minimize and the limits in
    every view, against PF on -q and the exact limits."""
    q = (0, 1, 1, 3)
    pf = PermuteAndFlip(1).distribution([-v for v in q])

    def views(d):
        return {"exact": [float(v) for v in d.probabilities], "float": list(d.to_numpy()),
                "mpmath": [float(v) for v in d.evalf(30)],
                "arb": [float(v.mid()) for v in d.evalf_balls(30)]}

    opt = exactdp.OptimalRegularMechanism
    for got in views(opt(1, optimize="min").distribution(q)).values():
        assert np.allclose(got, pf.to_numpy(), rtol=1e-12, atol=0)
    for zero in views(opt(0).distribution(q)).values():
        assert zero == [0.25] * 4
    for inf in views(opt("oo", optimize="min").distribution(q)).values():
        assert inf == [1, 0, 0, 0]


# ------------------------------------------------------------------ properties of every mechanism


def test_single_output_and_all_ties():
    for make in BY_EPSILON.values():
        assert make(1).distribution([5]).probabilities == (1,)
        probs = make(EPS).distribution([2, 2, 2, 2]).probabilities
        assert all(sympy.simplify(p - sympy.Rational(1, 4)) == 0 for p in probs)


scores_st = st.lists(st.integers(-5, 5), min_size=1, max_size=6)


@settings(max_examples=25, deadline=None)
@given(scores_st, st.sampled_from(sorted(BY_EPSILON)))
def test_probabilities_sum_to_exactly_one_for_symbolic_epsilon(q, key):
    probs = BY_EPSILON[key](EPS).distribution(q).probabilities
    assert sympy.simplify(sympy.Add(*probs) - 1) == 0


@settings(max_examples=25, deadline=None)
@given(scores_st, st.randoms(use_true_random=False), st.sampled_from(sorted(BY_EPSILON)))
def test_symmetry_under_permutation(q, rnd, key):
    perm = list(range(len(q)))
    rnd.shuffle(perm)
    mech = BY_EPSILON[key](1)
    _, a = mech.distribution(q).rational_form()
    _, b = mech.distribution([q[i] for i in perm]).rational_form()
    assert all(sympy.simplify(b[j] - a[perm[j]]) == 0 for j in range(len(q)))


@settings(max_examples=25, deadline=None)
@given(scores_st, st.fractions(-10, 10, max_denominator=7), st.sampled_from(sorted(BY_EPSILON)))
def test_shift_invariance(q, shift, key):
    mech = BY_EPSILON[key](EPS)
    a = mech.distribution(q).probabilities
    b = mech.distribution([v + shift for v in q]).probabilities
    assert a == b


@settings(max_examples=20, deadline=None)
@given(scores_st, st.sampled_from(sorted(BY_EPSILON)))
def test_monotone_flag_halves_the_denominator(q, key):
    a = BY_EPSILON[key](EPS, True).distribution(q).probabilities
    b = BY_EPSILON[key](2 * EPS).distribution(q).probabilities
    assert all(sympy.simplify(u - v) == 0 for u, v in zip(a, b, strict=False))


def test_monotonic_keyword_is_the_monotone_flag():
    # issue 13's signature: ExponentialMechanism(epsilon, sensitivity=1, monotonic=False,
    # base_measure=None).
    em = exactdp.ExponentialMechanism(1, sensitivity=1, monotonic=True, base_measure=None)
    assert em.monotonic and em.c == 1
    assert em == exactdp.ExponentialMechanism(1, 1, True)
    # monotonic EM on (0, -1): x = e^{-1}, Pr[0] = 1/(1 + e^{-1})
    p0 = em.distribution([0, -1]).probabilities[0]
    assert sympy.simplify(p0 - 1 / (1 + sympy.exp(-1))) == 0
    assert not exactdp.PermuteAndFlip(1).monotonic
    assert exactdp.PermuteAndFlip(1, monotonic=True).c == 1
    assert exactdp.ReportNoisyMax(1, noise="laplace", monotonic=True).monotonic
    assert exactdp.GaussianNoisyMax(1, monotonic=True).monotonic
    with pytest.raises(TypeError, match="monotone"):
        exactdp.PermuteAndFlip(1, monotone=True)  # the old spelling is gone
    with pytest.raises(ValueError, match="monotonic must be"):
        exactdp.PermuteAndFlip(1, monotonic="yes")


# ------------------------------------------------------------------ the base class's helpers
def test_scaled_gaps_x_value_and_orientation_by_hand():
    """PF(epsilon = 3, sensitivity = 2): rate epsilon/(c Delta) = 3/4; scores (1/2, 0, -3/2)
    have gaps (0, 1/2, 2), scaled gaps (0, 3/8, 3/2), L = 2 and x = exp(-3/8)."""
    m = PermuteAndFlip(3, sensitivity=2)
    sv = exactdp.ScoreVector.from_input(["1/2", 0, "-3/2"])
    want = [Fraction(0), Fraction(3, 8), Fraction(3, 2)]
    assert m.scaled_gaps_float(sv).tolist() == [float(w) for w in want]
    assert m.scaled_gaps_mp(sv, 30) == [mpmath.mpf(w.numerator) / w.denominator for w in want]
    for ball_, w in zip(m.scaled_gaps_arb(sv, 30), want, strict=True):
        assert ball_.contains(flint.arb(w.numerator) / w.denominator) and ball_.rad() < 1e-30
    rf = m.distribution(sv).rational_form()
    assert rf.L == 2 and rf.gaps == (0, 1, 4)
    assert m.x_value(rf.L) == sympy.exp(-sympy.Rational(3, 8)) == rf.value
    # optimize="min" maximizes -q: gaps of -q are (2, 3/2, 0)
    assert PermuteAndFlip(1, optimize="min").oriented(sv).gaps_exact == (2, sympy.Rational(3, 2), 0)
    assert PermuteAndFlip(1).oriented(sv) is sv
    assert [PermuteAndFlip(e).epsilon_limit for e in (0, "oo", 1)] == ["zero", "infinity", None]


def test_rational_form_substituted_equals_softmax():
    """EM's x-form at q = (0, -1), eps = 1 (c = 2): (1/(1 + x), x/(1 + x)) with x = e^(-1/2),
    against the softmax written out; and a RationalForm built by hand (PF on two items,
    forms 1 - x/2 and x/2, docs/formulas.md section 2)."""
    rf = ExponentialMechanism(1).distribution([0, -1]).rational_form()
    w = sympy.exp(-sympy.Rational(1, 2))
    softmax = (1 / (1 + w), w / (1 + w))
    assert all(sympy.simplify(a - b) == 0
               for a, b in zip(rf.substituted(), softmax, strict=True))
    x = sympy.Symbol("x")
    hand = exactdp.RationalForm(x, (1 - x / 2, x / 2), sympy.Rational(1, 3), 1, (0, 1))
    assert hand.substituted() == (sympy.Rational(5, 6), sympy.Rational(1, 6))


@pytest.mark.parametrize(
    "make, scores, match",
    [
        (lambda: PermuteAndFlip(1), [float("nan"), 0],
         r"^PermuteAndFlip\.distribution: scores\[0\] must be a finite real number, got nan$"),
        (lambda: ExponentialMechanism(1), [0, float("inf")],
         r"^ExponentialMechanism\.distribution: scores\[1\] must be a finite real number, "
         r"got inf$"),
        (lambda: PermuteAndFlip(1), [],
         r"^PermuteAndFlip\.distribution: scores must be non-empty"),
        (lambda: PermuteAndFlip(1), ["0", "abc"],
         r"^PermuteAndFlip\.distribution: scores\[1\] must be a number"),
        (lambda: TopK(PermuteAndFlip(1), 1), [0, float("nan")],
         r"^TopK\.distribution: scores\[1\] must be a finite real number, got nan$"),
    ],
)
def test_distribution_bad_scores_name_mechanism_and_method(make, scores, match):
    """A bad score vector is refused in the one message style, naming the method called
    (``<Mechanism>.distribution``), the entry and the value received."""
    with pytest.raises(ValueError, match=match):
        make().distribution(scores)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: PermuteAndFlip(-1),
         r"^PermuteAndFlip: epsilon must be >= 0 .*got -1$"),
        (lambda: PermuteAndFlip(1, 0), r"^PermuteAndFlip: sensitivity must be > 0, got 0$"),
        (lambda: PermuteAndFlip(float("nan")),
         r"^PermuteAndFlip: epsilon must be a real number >= 0 or oo, got nan$"),
        (lambda: ExponentialMechanism(1, base_measure=[float("nan"), 1]),
         r"^ExponentialMechanism: base_measure\[0\] must be a finite real number, got nan$"),
    ],
)
def test_constructor_errors_name_class_and_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# ------------------------------------------------------------------ huge epsilon / gaps (issue 20)
def _decimal_mantissa_exponent(d: int, digits: int) -> tuple[str, int]:
    """``exp(-d)/2 = m * 10^e`` by Python's decimal: ``log10 = -d log10(e) - log10(2)``
    (independent of mpmath and flint); ``m`` to ``digits`` digits, ``e`` exact."""
    import decimal

    with decimal.localcontext() as ctx:
        ctx.prec = len(str(d)) + digits + 20
        log10 = -decimal.Decimal(d) / decimal.Decimal(10).ln() - decimal.Decimal(2).log10()
        e = int(log10.to_integral_value(rounding=decimal.ROUND_FLOOR))
        m = (decimal.Decimal(10) ** (log10 - e))
        ctx.prec = digits
        return str(+m), e


@pytest.mark.parametrize("dps", [15, 30, 60])
def test_evalf_pf_epsilon_1e50_every_digit(dps):
    """PF(1e50) on [0, -1]: Pr[1] = exp(-5e49)/2, mantissa 2.34781720935049... and the
    exponent -21714724095162591382556445945830254114719850290184 in every digit (it was
    1.81e-...44615400... at dps = 15: the gap had been rounded to 25 digits)."""
    p = PermuteAndFlip(10**50).distribution([0, -1]).evalf(dps)[1]
    mant, e = _decimal_mantissa_exponent(5 * 10**49, dps + 5)
    assert e == -21714724095162591382556445945830254114719850290184
    assert mant.startswith("2.34781720935049")
    with mpmath.workdps(dps + 20):
        ratio = p * mpmath.mpf(10) ** (-e) / mpmath.mpf(mant)
        assert abs(ratio - 1) < mpmath.mpf(10) ** (1 - dps)


def _closed_form_two(kind: str, d: mpmath.mpf) -> list:
    """n = 2 at scaled gap d: PF = RNM-exp (1 - e^-d/2, e^-d/2), EM = RNM-Gumbel (logistic),
    RNM-Laplace (the difference of two Laplace variables: Pr = (2 + d) e^-d / 4)."""
    p = mpmath.exp(-d)
    if kind == "pf":
        return [1 - p / 2, p / 2]
    if kind == "em":
        return [1 / (1 + p), p / (1 + p)]
    return [1 - (2 + d) * p / 4, (2 + d) * p / 4]


HUGE_MECHANISMS = [
    ("pf", lambda e: PermuteAndFlip(e)),
    ("pf", lambda e: ReportNoisyMax(e)),
    ("em", lambda e: ExponentialMechanism(e)),
    ("em", lambda e: ReportNoisyMax(e, noise="gumbel")),
    ("laplace", lambda e: ReportNoisyMax(e, noise="laplace")),
    ("pf", lambda e: exactdp.OptimalRegularMechanism(e)),
]


def _huge_cases():
    for kind, make in HUGE_MECHANISMS:
        for eps in [10**50, 10**300, sympy.log(3) * 10**40]:
            yield pytest.param(kind, make, eps)


@pytest.mark.parametrize("kind, make, eps", list(_huge_cases()))
def test_evalf_and_balls_at_huge_epsilon_every_route(kind, make, eps):
    """Every route keeps dps relative digits at any epsilon: the scaled gap d = eps/2 is
    carried with as many more digits as it has before its point."""
    dist = make(eps).distribution([0, -1])
    for dps in (15, 30, 60):
        vals = dist.evalf(dps)
        balls = dist.evalf_balls(dps)
        wp = dps + 350
        with mpmath.workdps(wp):
            d = mpmath.mpf(sympy.N(sympy.sympify(eps) / 2, wp))
            ref = _closed_form_two(kind, d)
            for v, b, r in zip(vals, balls, ref, strict=True):
                assert abs(v / r - 1) < mpmath.mpf(10) ** (1 - dps), (dps, v, r)
                assert mpf_to_arb(r) in b or b.overlaps(mpf_to_arb(r))
                assert b.rad() < abs(b.mid()) * flint.arb(10) ** (2 - dps)


def _rnm_exp_integral(p: list, r: int) -> mpmath.mpf:
    """PF = RNM-exp: ``Pr[r] = p_r int_0^1 prod_{s != r} (1 - t p_s) dt`` (Ding et al. 2021),
    the product expanded and integrated term by term."""
    coeffs = [mpmath.mpf(1)]
    for s, q in enumerate(p):
        if s != r:
            coeffs = [a - b * q for a, b in zip(coeffs + [0], [0] + coeffs, strict=True)]
    return p[r] * mpmath.fsum(c / (k + 1) for k, c in enumerate(coeffs))


@pytest.mark.parametrize("gap", [10**35, sympy.Rational(10**35, 3), sympy.sqrt(2) * 10**35])
def test_evalf_gap_1e35_em_and_pf(gap):
    """EM(7/3, sensitivity 3/2) and PF on [0, -1, -gap]: Pr[2] ~ exp(-7/9 * 1e35) to every
    one of dps = 30..100 digits (it was right to about 7 digits at dps = 30)."""
    scores = [0, -1, -gap]
    em = ExponentialMechanism(sympy.Rational(7, 3), sensitivity=sympy.Rational(3, 2))
    pf = PermuteAndFlip(sympy.Rational(7, 3), sensitivity=sympy.Rational(3, 2))
    for dps in (30, 60, 100):
        with mpmath.workdps(dps + 80):
            rate = mpmath.mpf(7) / 9
            p = [mpmath.mpf(1), mpmath.exp(-rate),
                 mpmath.exp(-rate * mpmath.mpf(sympy.N(gap, dps + 80)))]
            em_ref = [w / mpmath.fsum(p) for w in p]
            pf_ref = [_rnm_exp_integral(p, r) for r in range(3)]
        for dist, ref in ((em.distribution(scores), em_ref), (pf.distribution(scores), pf_ref)):
            for v, r in zip(dist.evalf(dps), ref, strict=True):
                assert abs(v / r - 1) < mpmath.mpf(10) ** (1 - dps), (dps, v, r)


@pytest.mark.parametrize("method", ["evalf", "evalf_balls"])
@pytest.mark.parametrize("make", [PermuteAndFlip, ExponentialMechanism,
                                  lambda e: ReportNoisyMax(e, noise="laplace")])
def test_gap_beyond_the_printable_range_refused_fast(method, make):
    """epsilon = 1e5000: exp(-d) lies below 10^(-10^4999), whose decimal exponent has more
    digits than Python prints; refused at once, naming the method (it ran 102 s and then
    leaked Python's int-str error); to_numpy still answers (1, 0)."""
    import time

    dist = make(10**5000).distribution([0, -1])
    t0 = time.process_time()
    if method == "evalf_balls" and make not in (PermuteAndFlip, ExponentialMechanism):
        # RNM-Laplace's closed form in balls answers at once: Pr[0] = 1 - (2 + d) e^-d / 4
        # and Pr[1] = (2 + d) e^-d / 4 with d = 5e4999, far below 10^-1000
        top, low = dist.evalf_balls(15)
        assert top.contains(1) and low > 0 and low < flint.arb(10) ** -1000
    else:
        with pytest.raises(exactdp.cost.TooCostly, match=rf"^{method}: .*10\^5000"):
            getattr(dist, method)(15)
    assert time.process_time() - t0 < 2
    assert dist.to_numpy().tolist() == [1.0, 0.0]


def test_scaled_gap_groups_regroup_to_the_scaled_gaps():
    """scaled_gap_groups_mp / _arb give one value per distinct score whose gather is
    scaled_gaps_mp / the exact rate * gap (ball contains it), with the multiplicities."""
    import flint
    import mpmath
    import numpy as np
    import sympy

    from exactdp import PermuteAndFlip
    from exactdp.exact.arb import flint_prec
    from exactdp.scores import as_scores

    mech = PermuteAndFlip(sympy.log(3))
    for scores in (np.array([4, 1, 4, 0, 1]), [sympy.Rational(1, 3), 2, 2], [0.5, 0.25, 0.5]):
        sv = as_scores(scores)
        vals, counts, inv = mech.scaled_gap_groups_mp(sv, 30)
        ref = mech.scaled_gaps_mp(sv, 30)
        with mpmath.workdps(30):
            tol = mpmath.mpf(10) ** -28
            assert all(abs(vals[k] - r) < tol for k, r in zip(inv, ref, strict=True))
        assert sorted(counts) == sorted(np.unique(sv.floats, return_counts=True)[1].tolist())
        assert sv.distinct_count() == len(vals) == len(counts)
        balls, counts_b, inv_b = mech.scaled_gap_groups_arb(sv, 30)
        assert sorted(counts_b) == sorted(counts)
        with flint_prec(200), mpmath.workdps(50):
            for k, r in zip(inv_b, mech.scaled_gaps_mp(sv, 50), strict=True):
                assert balls[k].overlaps(flint.arb(mpmath.nstr(r, 50), "1e-45"))
                assert balls[k].rel_accuracy_bits() >= 99 or balls[k].is_zero()


def test_the_density_view_is_declared_by_its_hook_and_refused_on_discrete_outputs():
    from dataclasses import dataclass

    import sympy

    from exactdp.distribution import LossSupremum
    from exactdp.mechanisms.base import Mechanism

    pair = exactdp.as_scores([0, 1]), exactdp.as_scores([1, 0])
    with pytest.raises(ValueError, match="PermuteAndFlip: the outputs are discrete"):
        exactdp.PermuteAndFlip(1).evaluate("density", *pair)
    assert "density" not in exactdp.PermuteAndFlip(1).capabilities

    @dataclass(frozen=True)
    class Release(Mechanism):  # releases a + Lap(1): the loss is |a - a'| (attained)
        output_kind = "release"  # privacy_loss routes on the declared kind
        sensitivity = sympy.Integer(1)
        optimize = "max"

        def _loss_supremum(self, sv, sv2):
            gap = abs(sympy.Integer(sv.values[0]) - sympy.Integer(sv2.values[0]))
            return LossSupremum(gap, True, 1 if gap else 0, "every output beyond both means")

    mech = Release()
    assert "density" in mech.capabilities
    sup = mech.evaluate("density", exactdp.as_scores([0]), exactdp.as_scores([3]))
    assert isinstance(sup, LossSupremum) and sup.value == 3 and sup.attained
    loss = exactdp.privacy_loss(mech, [0], [3], allow_non_neighbour=True)  # the public route
    assert (loss.loss, loss.engine, loss.output) == (3, "density", sup.witness)


_E5000 = 10**5000


@pytest.mark.parametrize("make", [
    lambda: PermuteAndFlip(_E5000),
    lambda: ExponentialMechanism(_E5000).distribution([0, -1]),
    lambda: ReportNoisyMax(_E5000, noise="laplace"),
    lambda: exactdp.GaussianNoisyMax(1, epsilon=_E5000),
    lambda: exactdp.GaussianNoisyMax(_E5000),
    lambda: exactdp.TopK(PermuteAndFlip(_E5000), 2),
    lambda: exactdp.OptimalRegularMechanism(_E5000).distribution([0, -1]),
    lambda: exactdp.OptimalRegularMechanism(_E5000),
    lambda: PermuteAndFlip(_E5000).distribution([0, -1]).rational_form(),
    lambda: exactdp.as_scores([0, -_E5000]),
    lambda: exactdp.Witness((0, -_E5000), (1, -_E5000), 0),
])
def test_repr_at_epsilon_1e5000(make):
    """Every repr holding 10**5000 works (decimals with an exponent): it raised Python's
    int-to-str error; ordinary values keep the exact dataclass repr."""
    text = repr(make())
    assert "e+5000" in text or "e+4999" in text, text
    assert repr(PermuteAndFlip(sympy.Rational(1, 3), sensitivity=2)) == (
        "PermuteAndFlip(epsilon=1/3, sensitivity=2, monotonic=False, optimize='max')")


def test_rational_form_refuses_a_log_epsilon_with_an_astronomical_exponent():
    """x = exp(-1e5000 log(3)/2) would be expanded by sympy to 3**(-5e4999) (a hang):
    refused in rational_form at once; a moderate log epsilon keeps its exact value."""
    import time

    t0 = time.process_time()
    with pytest.raises(exactdp.cost.TooCostly, match=r"^rational_form: .*exp\(-5.0e\+4999"):
        PermuteAndFlip(sympy.log(3) * _E5000).distribution([0, -1]).rational_form()
    assert time.process_time() - t0 < 2
    rf = PermuteAndFlip(2 * sympy.log(3)).distribution([0, -1]).rational_form()
    assert rf.value == sympy.Rational(1, 3)
