"""Exact output distributions of EM, PF and RNM (exponential, Gumbel): values and routes.

Routes compared: the x-form polynomials (PF by its coins, RNM-Exp by its noise integral),
a literal enumeration of permute-and-flip's algorithm over all orders, the subset sum,
mpmath quadrature of the defining RNM integrals, and known numbers from docs/formulas.md section 7.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp import ExponentialMechanism, PermuteAndFlip, ReportNoisyMax
from tests.reference import EM_Q31002_EPS2, PF_Q31002_EPS2, Q31002

EPS = sympy.Symbol("epsilon", positive=True)
MECHS = {
    "EM": lambda e, m=False: ExponentialMechanism(e, monotone=m),
    "PF": lambda e, m=False: PermuteAndFlip(e, monotone=m),
    "RNM-Exp": lambda e, m=False: ReportNoisyMax(e, monotone=m, noise="exponential"),
    "RNM-Gumbel": lambda e, m=False: ReportNoisyMax(e, monotone=m, noise="gumbel"),
}


def as_float(exprs):
    return [float(sympy.N(e, 30)) for e in exprs]


# --------------------------------------------------------------------------- known values
def test_math_md_section7_pf_and_em():
    q = Q31002
    pf = as_float(PermuteAndFlip(2).distribution(q).probabilities)
    em = as_float(ExponentialMechanism(2).distribution(q).probabilities)
    assert pf == pytest.approx(PF_Q31002_EPS2, abs=1e-6)
    assert em == pytest.approx(EM_Q31002_EPS2, abs=1e-6)


def test_pf_polynomials_for_0_m1_m2():
    x, forms = PermuteAndFlip(1).distribution([0, -1, -2]).rational_form()
    expected = (
        1 - x / 2 - x**2 / 2 + x**3 / 3,
        x / 2 - x**3 / 6,
        x**2 / 2 - x**3 / 6,
    )
    assert all(sympy.expand(f - e) == 0 for f, e in zip(forms, expected, strict=False))


def test_rational_form_value_and_L():
    rf = PermuteAndFlip(EPS, sensitivity=3).distribution(["1/2", 0, "-1/3"]).rational_form()
    assert rf.L == 6
    assert rf.gaps == (0, 3, 5)
    assert rf.value == sympy.exp(-EPS / 36)
    x, forms = rf
    assert x.is_positive and forms == rf.forms


def test_two_items_loss_probabilities():
    # docs/formulas.md section 2: gap g, p = e^{-g/b}: PF loses w.p. p/2; EM w.p. p/(1+p).
    g = sympy.Rational(3, 2)
    p = sympy.exp(-EPS * g / 2)
    pf = PermuteAndFlip(EPS).distribution([g, 0]).probabilities
    em = ExponentialMechanism(EPS).distribution([g, 0]).probabilities
    assert sympy.simplify(pf[1] - p / 2) == 0
    assert sympy.simplify(em[1] - p / (1 + p)) == 0


def test_monotone_uses_c_equal_1():
    q = [0, -1, -3]
    a = PermuteAndFlip(1, monotone=True).distribution(q).probabilities
    b = PermuteAndFlip(2).distribution(q).probabilities
    assert all(sympy.simplify(u - v) == 0 for u, v in zip(a, b, strict=False))
    assert PermuteAndFlip(1, monotone=True).scale == 1
    assert PermuteAndFlip(1).scale == 2


def test_single_output_and_all_ties():
    for make in MECHS.values():
        assert make(1).distribution([5]).probabilities == (1,)
        probs = make(EPS).distribution([2, 2, 2, 2]).probabilities
        assert all(sympy.simplify(p - sympy.Rational(1, 4)) == 0 for p in probs)


# --------------------------------------------------------------------------- routes
def pf_by_enumeration(p: list[Fraction]) -> list[Fraction]:
    """Run permute-and-flip over every order exactly: the algorithm as written."""
    n = len(p)
    out = [Fraction(0)] * n
    orders = list(itertools.permutations(range(n)))
    for order in orders:
        tails = Fraction(1)
        for r in order:
            out[r] += tails * p[r] / len(orders)
            tails *= 1 - p[r]
    return out


def pf_by_subset_sum(p: list[Fraction]) -> list[Fraction]:
    n = len(p)
    out = []
    for r in range(n):
        others = [s for s in range(n) if s != r]
        total = Fraction(0)
        for mask in itertools.product([0, 1], repeat=len(others)):
            w = Fraction(1)
            for s, m in zip(others, mask, strict=False):
                w *= p[s] if m else 1 - p[s]
            total += w / (sum(mask) + 1)
        out.append(p[r] * total)
    return out


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.integers(-4, 4), min_size=1, max_size=5),
    st.fractions(Fraction(1, 9), Fraction(19, 20), max_denominator=20),
)
def test_pf_and_rnm_exp_forms_match_the_algorithm_exactly(q, xval):
    x0 = Fraction(xval.numerator, xval.denominator)
    if x0 >= 1:
        x0 = Fraction(1, 2)
    top = max(q)
    p = [x0 ** (top - v) for v in q]
    truth = pf_by_enumeration(p)
    assert truth == pf_by_subset_sum(p)
    for mech in (PermuteAndFlip(1), ReportNoisyMax(1)):
        x, forms = mech.distribution(q).rational_form()
        vals = [sympy.Rational(f.subs(x, sympy.Rational(x0.numerator, x0.denominator)))
                for f in forms]
        assert vals == [sympy.Rational(t.numerator, t.denominator) for t in truth]


def rnm_quad(noise: str, q, b, r):
    """The defining integral of RNM by mpmath quadrature, split at the scores."""
    mpmath.mp.dps = 30
    b = mpmath.mpf(b)
    qs = [mpmath.mpf(v) for v in q]
    if noise == "exponential":
        pdf = lambda z: mpmath.exp(-z / b) / b if z >= 0 else mpmath.mpf(0)  # noqa: E731
        cdf = lambda z: -mpmath.expm1(-z / b) if z >= 0 else mpmath.mpf(0)  # noqa: E731
    else:
        pdf = lambda z: mpmath.exp(-z / b - mpmath.exp(-z / b)) / b  # noqa: E731
        cdf = lambda z: mpmath.exp(-mpmath.exp(-z / b))  # noqa: E731

    def f(y):
        val = pdf(y - qs[r])
        for s, v in enumerate(qs):
            if s != r:
                val *= cdf(y - v)
        return val

    pts = sorted(set(qs))
    lo = pts[0] - 60 * b if noise == "gumbel" else pts[0]
    return mpmath.quad(f, [lo, *pts, pts[-1] + 80 * b, mpmath.inf])


@pytest.mark.parametrize("noise", ["exponential", "gumbel"])
@pytest.mark.parametrize("q", [(0, -1, -2), (3, 1, 0, 0, -2), ("1/2", 0, "-7/3")])
def test_rnm_closed_forms_match_quadrature_of_the_definition(noise, q):
    eps = sympy.Rational(3, 2)
    mech = ReportNoisyMax(eps, noise=noise)
    exact = mech.distribution(q).probabilities
    b = sympy.N(mech.scale, 40)
    qn = [sympy.N(sympy.sympify(v, rational=True), 40) for v in q]
    for r, e in enumerate(exact):
        assert abs(rnm_quad(noise, qn, b, r) - mpmath.mpf(sympy.N(e, 40))) < 1e-20


def test_rnm_gumbel_equals_em_exactly():
    q = ["1/3", 2, 0, 2]
    a = ReportNoisyMax(EPS, noise="gumbel").distribution(q).probabilities
    b = ExponentialMechanism(EPS).distribution(q).probabilities
    assert all(sympy.simplify(u - v) == 0 for u, v in zip(a, b, strict=False))


def test_irrational_scores_are_exact():
    q = ["sqrt(2)", 0, 1, 0]
    pf = PermuteAndFlip(1).distribution(q).probabilities
    rnm = ReportNoisyMax(1).distribution(q).probabilities
    assert sympy.simplify(sum(pf) - 1) == 0
    assert all(abs(sympy.N(u - v, 30)) < 1e-28 for u, v in zip(pf, rnm, strict=False))
    # against the enumeration of the algorithm at 40 digits
    with mpmath.workdps(40):
        qs = [mpmath.sqrt(2), 0, 1, 0]
        p = [mpmath.exp((v - max(qs)) / 2) for v in qs]
        n = len(p)
        enum = [mpmath.mpf(0)] * n
        for order in itertools.permutations(range(n)):
            tails = mpmath.mpf(1)
            for r in order:
                enum[r] += tails * p[r] / math.factorial(n)
                tails *= 1 - p[r]
        for a, b in zip(pf, enum, strict=True):
            assert abs(mpmath.mpf(sympy.N(a, 40)) - b) < 1e-30


# --------------------------------------------------------------------------- properties
scores_st = st.lists(st.integers(-5, 5), min_size=1, max_size=6)


@settings(max_examples=25, deadline=None)
@given(scores_st, st.sampled_from(sorted(MECHS)))
def test_probabilities_sum_to_exactly_one_for_symbolic_epsilon(q, key):
    probs = MECHS[key](EPS).distribution(q).probabilities
    assert sympy.simplify(sympy.Add(*probs) - 1) == 0


@settings(max_examples=25, deadline=None)
@given(scores_st, st.sampled_from(["PF", "RNM-Exp"]))
def test_polynomial_forms_sum_to_one_identically(q, key):
    x, forms = MECHS[key](1).distribution(q).rational_form()
    assert sympy.expand(sympy.Add(*forms)) == 1


@settings(max_examples=25, deadline=None)
@given(scores_st, st.randoms(use_true_random=False), st.sampled_from(sorted(MECHS)))
def test_symmetry_under_permutation(q, rnd, key):
    perm = list(range(len(q)))
    rnd.shuffle(perm)
    mech = MECHS[key](1)
    _, a = mech.distribution(q).rational_form()
    _, b = mech.distribution([q[i] for i in perm]).rational_form()
    assert all(sympy.simplify(b[j] - a[perm[j]]) == 0 for j in range(len(q)))


@settings(max_examples=25, deadline=None)
@given(scores_st, st.fractions(-10, 10, max_denominator=7), st.sampled_from(sorted(MECHS)))
def test_shift_invariance(q, shift, key):
    mech = MECHS[key](EPS)
    a = mech.distribution(q).probabilities
    b = mech.distribution([v + shift for v in q]).probabilities
    assert a == b


@settings(max_examples=20, deadline=None)
@given(scores_st, st.sampled_from(sorted(MECHS)))
def test_monotone_flag_halves_the_denominator(q, key):
    a = MECHS[key](EPS, True).distribution(q).probabilities
    b = MECHS[key](2 * EPS).distribution(q).probabilities
    assert all(sympy.simplify(u - v) == 0 for u, v in zip(a, b, strict=False))


def test_unknown_noise_lists_supported():
    with pytest.raises(ValueError, match="exponential, gumbel"):
        ReportNoisyMax(1, noise="cauchy")
    with pytest.raises(ValueError, match="sigma"), pytest.warns(DeprecationWarning):
        ReportNoisyMax(noise="gaussian")
