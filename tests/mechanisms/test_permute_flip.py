"""exactdp.mechanisms.permute_flip: exact PF (and RNM-Exp, its equal by Thm 6.1) by the x-form
polynomials against a literal enumeration of the algorithm over all orders and the subset sum."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp import PermuteAndFlip, ReportNoisyMax
from tests.mechanisms import BY_EPSILON

EPS = sympy.Symbol("epsilon", positive=True)
MECHS = BY_EPSILON


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


def test_monotone_uses_c_equal_1():
    q = [0, -1, -3]
    a = PermuteAndFlip(1, monotonic=True).distribution(q).probabilities
    b = PermuteAndFlip(2).distribution(q).probabilities
    assert all(sympy.simplify(u - v) == 0 for u, v in zip(a, b, strict=False))
    assert PermuteAndFlip(1, monotonic=True).scale == 1
    assert PermuteAndFlip(1).scale == 2


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
@given(scores_st, st.sampled_from(["PF", "RNM-Exp"]))
def test_polynomial_forms_sum_to_one_identically(q, key):
    x, forms = MECHS[key](1).distribution(q).rational_form()
    assert sympy.expand(sympy.Add(*forms)) == 1


def test_pf_closed_form_against_the_section5_recursion_and_two_items():
    from exactdp.mechanisms.optimal import section5_exact
    from exactdp.mechanisms.permute_flip import pf_closed_form, pf_closed_form_exprs

    # flint polynomials in x vs the section-5 recursion (an independent route, Thm 5.1)
    form = pf_closed_form(PermuteAndFlip(1), 1, (0, 1, 2, 1), "test")
    want = section5_exact([0, 1, 2, 1])
    for poly, ref in zip(form.polys, want, strict=True):
        coeffs = [sympy.Rational(int(c.p), int(c.q)) for c in poly.coeffs()]
        assert coeffs == ref.all_coeffs()[::-1]
    # sympy expressions: two items, gap 1, eps = 2 (rate 1): (1 - e^-1/2, e^-1/2) by hand
    exprs = pf_closed_form_exprs(PermuteAndFlip(2), 1, (0, 1), "test")
    hand = (1 - sympy.exp(-1) / 2, sympy.exp(-1) / 2)
    assert all(sympy.simplify(a - b) == 0 for a, b in zip(exprs, hand, strict=True))


@pytest.mark.parametrize("epsilon", [sympy.Rational(3, 2), sympy.log(3)])
def test_evalf_balls_on_tied_scores_contain_the_mpmath_values(epsilon):
    """evalf_balls encloses one ball per distinct gap (integer scores: the rate once, times
    each gap): on 300 scores with 10 distinct values every ball meets evalf(45)'s value
    (the independent mpmath quadrature) and has 30 correct digits."""
    import flint
    import mpmath
    import numpy as np

    from exactdp import PermuteAndFlip

    q = np.array([(3 * i) % 10 for i in range(300)])
    d = PermuteAndFlip(epsilon).distribution(q)
    balls = d.evalf_balls(30)
    ref = d.evalf(45)
    from exactdp.exact.arb import flint_prec

    with mpmath.workdps(45), flint_prec(200):
        for b, v in zip(balls, ref, strict=True):
            ref_ball = flint.arb(mpmath.nstr(v, 45), mpmath.nstr(abs(v) * 1e-43, 5))
            assert b.overlaps(ref_ball)  # both enclose the probability
            assert b.rel_accuracy_bits() >= 99
            assert abs(mpmath.mpf(b.mid().str(45, radius=False)) / v - 1) < 1e-30


def test_evalf_is_priced_before_the_mpmath_gaps_and_announced_when_long(capsys):
    """evalf(30) on 10**6 scores refused only after 8 s of mpmath gaps; 2e5 scores ran 20 s
    silently. The estimate now comes first: a refusal past the limit within a CPU second, a
    start line (stderr is not a terminal here) past LINE_SECONDS."""
    import time

    import numpy as np

    from exactdp.cost import SECONDS_LIMIT, TooCostly, pf_mp_seconds
    from exactdp.progress import LINE_SECONDS

    assert pf_mp_seconds(10**6, 30) > SECONDS_LIMIT
    d = PermuteAndFlip(1).distribution(np.arange(10**6))
    start = time.process_time()
    with pytest.raises(TooCostly) as err:
        d.evalf(30)
    assert time.process_time() - start < 1.0
    assert err.value.func == "evalf" and err.value.estimate == "about 225 s"
    assert ".to_numpy()" in str(err.value)
    n = 30_000  # estimated above LINE_SECONDS, about 1 s CPU
    assert LINE_SECONDS < pf_mp_seconds(n, 30) < SECONDS_LIMIT
    d = PermuteAndFlip(1).distribution(np.arange(n))
    probs = d.evalf(30)
    assert np.allclose(np.array(probs, dtype=float), d.to_numpy(), rtol=1e-12, atol=1e-300)
    with mpmath.workdps(30):
        assert abs(mpmath.fsum(probs) - 1) < mpmath.mpf(10) ** -25
    line = f"evalf: started, about {pf_mp_seconds(n, 30):.0f} s CPU estimated\n"
    assert capsys.readouterr().err == line
