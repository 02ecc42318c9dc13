"""Ratios of exponential sums in closed form (exactdp.programs.release_tidy): the quick
reduced form, the same value as the quotient (checked exactly against ``sympy.simplify`` of
``f/g - form`` and by 50-digit numbers), common factors cancelled (a known factorisation);
the tidied ratio and loss, and the exact comparison of products (against expanded
products enclosed by arb)."""

from __future__ import annotations

import sympy

from exactdp.exact import to_arb
from exactdp.programs import release_tidy as TD
from exactdp.programs.release_tidy import QUICK, quick, quick_ratio, quick_sources

e, r = sympy.exp, sympy.Rational


def test_a_common_factor_cancels_and_the_value_is_the_quotient():
    x = e(r(1, 20))
    f = sympy.expand((3 + 2 * x) * (1 + x**3))  # (3 + 2x)(1 + x^3)
    g = sympy.expand((5 - x**2) * (1 + x**3))
    out = quick_ratio(f, g)
    assert out.equals((3 + 2 * x) / (5 - x**2))  # sympy's own decision
    assert abs(sympy.N(out - f / g, 50)) < sympy.Float("1e-45")
    assert (f, g) in quick_sources(out)


def test_a_monomial_denominator_and_a_non_sum_refused():
    f = 2 + 3 * e(r(1, 10))
    out = quick_ratio(f, 4 * e(r(3, 40)))
    assert sympy.simplify(out - f / (4 * e(r(3, 40)))) == 0
    assert quick_ratio(sympy.sqrt(2) + e(1), 1 + e(2)) is None  # an irrational coefficient
    assert quick_sources(sympy.Integer(5)) == frozenset()


def test_quick_is_set_inside_the_block_only():
    assert not QUICK.get()
    with quick():
        assert QUICK.get()
    assert not QUICK.get()


def test_ratio_degree_counts_the_generator_exp_1_over_lcm() -> None:
    # exponents -1/5, -8/5 and 0: L = 5, span 8/5 -> degree 8; -3/80 and -39/40: L = 80
    e = sympy.exp
    r = sympy.Rational
    assert TD.ratio_degree(1 - e(r(-1, 5)), e(r(-8, 5))) == 8
    assert TD.ratio_degree(e(r(-3, 80)), 1 + e(r(-39, 40))) == 78
    assert TD.ratio_degree(e(sympy.Symbol("x")), sympy.Integer(1)) is None


def test_tidy_ratio_leaves_a_high_degree_quotient_unsimplified_but_equal() -> None:
    # the adaptive-SVT witness at 2 queries: exponents over 38800 (degree ~ 1.6e5), where
    # sympy.simplify ran for minutes; the quotient is kept as it stands
    e = sympy.exp
    r = sympy.Rational
    f = 2 * e(r(-28749, 19400)) / 315 + e(r(-24869, 38800)) / 350
    g = e(r(-58953, 38800)) / 300 + e(r(-6581, 9700)) / 300
    assert TD.ratio_degree(f, g) > TD.SIMPLIFY_DEGREE
    out = TD.tidy_ratio(f, g)
    assert out == f / g
    small = TD.tidy_ratio(e(r(1, 5)) * (1 + e(r(1, 5))), 1 + e(r(1, 5)))
    assert small == e(r(1, 5))


def test_tidy_ratio_of_many_terms_is_reduced_by_gcd_not_simplify() -> None:
    # the adaptive-SVT (10 queries) witness: 8 over 24 terms, degree 258 in exp(1/80), where
    # sympy.simplify ran past a minute; the flint-reduced quotient has the same value
    import time

    f = sympy.sympify(
        "-1381*exp(-3/5)/1021020 - 1203*exp(-1)/1478048 - 10827*exp(-7/5)/206926720"
        " - exp(-14/5)/10321920 + 487*exp(-8/5)/113541120 + 953*exp(-6/5)/3440640"
        " + 247*exp(-2/5)/430080 + 1207*exp(-4/5)/860160")
    g = sympy.sympify(
        "-15689*exp(-7/10)/9801792 - 67843*exp(-11/10)/53209728 - 67843*exp(-9/8)/53209728"
        " - 15689*exp(-29/40)/49008960 - exp(-19/20)/2560 - exp(-11/20)/7680"
        " - exp(-121/80)/7168 - exp(-119/80)/35840 - 437*exp(-69/40)/113541120"
        " - 29*exp(-129/40)/245104640 - 29*exp(-113/40)/908328960"
        " + 103*exp(-14/5)/1930199040 + exp(-17/10)/122880 + 31753*exp(-3/2)/1655413760"
        " + 31753*exp(-61/40)/331082752 + 1969*exp(-13/10)/20643840"
        " + 199*exp(-37/40)/2580480 + exp(-61/80)/10560 + 1969*exp(-53/40)/10321920"
        " + exp(-59/80)/2112 + exp(-91/80)/1152 + exp(-89/80)/1152 + 101*exp(-1/2)/143360"
        " + 443*exp(-9/10)/258048")
    assert TD.ratio_degree(f, g) == 258 <= TD.SIMPLIFY_DEGREE
    start = time.process_time()
    out = TD.tidy_ratio(f, g)
    assert time.process_time() - start < 5  # CPU seconds; simplify: over 60
    # the same value: the difference is 0 as an identity of exponential sums (exact
    # terms), and at 50 digits
    p, q = sympy.fraction(out)
    assert TD.compare_sums((p, g), (f, q)) == 0  # p g = f q, term by term
    assert abs(sympy.N(out - f / g, 50)) < sympy.Float("1e-45")
    fifth = sympy.exp(sympy.Rational(1, 5))
    small = TD.tidy_ratio(fifth + 1, 2 + 2 * fifth)
    assert small == sympy.Rational(1, 2)  # few terms: simplified as before


def test_log_ratio_is_rational_when_the_sums_are_a_shift_of_each_other():
    # noisy_top_k_gap printed log((4 e^(3/4) + 9 e)/(4 e^(1/4) + 9 e^(1/2))), which is 1/2
    e, r = sympy.exp, sympy.Rational
    big, small = 4 * e(r(3, 4)) + 9 * sympy.E, 4 * e(r(1, 4)) + 9 * e(r(1, 2))
    assert TD.log_ratio(big, small) == r(1, 2)
    assert abs(sympy.N(sympy.log(big / small), 40) - sympy.Rational(1, 2)) < 1e-38  # numeric
    assert TD.log_ratio(3 * small * e(r(-1, 4)), small) == sympy.log(3) - r(1, 4)
    other = TD.log_ratio(small + 1, small)  # not a shift: the exact quotient's log
    assert isinstance(other, sympy.log) and abs(sympy.N(other - sympy.log(1 + 1 / small))) < 1e-30
    root = TD.log_ratio(sympy.sqrt(2) * small, small)  # an irrational k: tidy_ratio simplifies
    assert sympy.expand_log(root, force=True) == sympy.log(2) / 2


def test_compare_sums_multiplies_term_by_term():
    # the sign of prod(left) - prod(right) for exponential sums, against the expanded sympy
    # difference evaluated by arb (an independent route); huge exponents stay fast
    e, r = sympy.exp, sympy.Rational
    a, b = 1 + e(r(-1, 2)), 2 - e(r(-1, 3))
    c, d = 3 * e(r(1, 4)) - 1, 1 + e(r(-1, 8))
    want = to_arb(sympy.expand(a * b - c * d), 128)
    assert TD.compare_sums((a, b), (c, d)) == (1 if want > 0 else -1)
    assert TD.compare_sums((a, b), (b, a)) == 0  # an identity: no term left
    n = sympy.Integer(10) ** 300
    big, small = 1 - e(-n) / 3, 1 - e(-n / 4) / 3  # 1 - tiny vs 1 - tinier
    assert TD.compare_sums((big,), (small,)) == 1 and TD.compare_sums((small,), (big,)) == -1
    assert TD.compare_sums((sympy.sqrt(2),), (a,)) is None  # not an exponential sum


def test_tidy_ratio_quick_inside_the_block_and_tidy_loss_restores_the_simplified_form(
        monkeypatch):
    # a fresh record of the quick forms' sources: another test in the same process may
    # have made this quick form from another ratio (tidy_loss then answers None, by design)
    from exactdp.programs import release_tidy

    monkeypatch.setattr(release_tidy, "_SOURCES", {})
    e, r = sympy.exp, sympy.Rational
    f = -20 * e(r(-1, 20)) - 4 * e(r(-3, 20)) + 10 + 15 * e(r(-1, 10))
    small = 69 * e(r(1, 10)) - 20 * e(r(1, 20))
    big = sympy.expand(f * small)
    plain = TD.tidy_ratio(big, small)
    with quick():
        fast = TD.tidy_ratio(big, small)
    assert fast != plain and abs(sympy.N(fast - plain, 50)) < sympy.Float("1e-45")
    assert TD.tidy_loss(sympy.log(fast)) == sympy.log(plain)
    assert TD.tidy_loss(sympy.log(plain)) == sympy.log(plain)  # not a quick form: itself
    assert TD.tidy_loss(sympy.Rational(1, 10)) == sympy.Rational(1, 10)


def test_a_ratio_of_high_degree_is_reduced_by_flint_not_simplify():
    """Past QUICK_DEGREE (in ``exp(1/L)``) a ratio of few terms goes to flint's gcd: GapSVT
    at c = 2 on 16 answers, 12 terms of degree 396, took 35 s in ``sympy.simplify``. The
    same value: ``(x^300 - 1) / (x^100 - 1) = x^200 + x^100 + 1`` with ``x = exp(1/8)``
    (by hand: a geometric sum)."""
    import time

    import exactdp
    from exactdp.programs import library_release as L

    assert TD.QUICK_DEGREE == 200
    e, R = sympy.exp, sympy.Rational
    f, g = e(R(301, 8)) - e(R(1, 8)), e(R(101, 8)) - e(R(1, 8))  # x (x^300 - 1), x (x^100 - 1)
    assert TD.ratio_degree(f, g) == 301 > TD.QUICK_DEGREE
    TD._simplified.cache_clear()
    assert TD._simplified(f, g) == e(25) + e(R(25, 2)) + 1
    start = time.process_time()
    loss = exactdp.privacy_loss(L.gap_svt(epsilon=1, threshold=1, c=2), [1] * 8 + [0] * 8,
                                [0] * 8 + [1] * 8)
    assert time.process_time() - start < 10  # CPU seconds: 1 s measured (21 s before)
    lo, hi = loss.interval  # a certified bracket, its ends from both routes' balls
    assert 0.8518 < float(lo) < 0.8519 and float(hi) == 1
