"""exactdp.exact.arb: rigorous enclosures, the precision context and signed conversions."""

from __future__ import annotations

from fractions import Fraction

import flint
import mpmath
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.exact import (
    arb_mid_to_float,
    arb_mid_to_mpf,
    arb_to_interval,
    as_exact,
    ball,
    dps_to_prec,
    flint_dps,
    flint_prec,
    float_to_arb,
    mpf_to_arb,
    to_arb,
)

S, E, R = sympy.sqrt, sympy.exp, sympy.Rational


def test_flint_prec_restores_on_exit_and_on_error():
    before = flint.ctx.prec
    with flint_prec(300):
        assert flint.ctx.prec == 300
        with flint_prec(80):
            assert flint.ctx.prec == 80
        assert flint.ctx.prec == 300
    assert flint.ctx.prec == before
    with pytest.raises(KeyError), flint_prec(500):
        raise KeyError
    assert flint.ctx.prec == before
    with pytest.raises(ValueError, match="bits"):
        with flint_prec(0):
            pass


def test_dps_to_prec():
    assert dps_to_prec(30) == 100 + 64  # ceil(30 log2 10) = ceil(99.66) = 100


@pytest.mark.parametrize(
    "expr, reference",
    [
        (S(2), "1.41421356237309504880168872420969807856967187537694807317667973799"),
        (sympy.pi, "3.14159265358979323846264338327950288419716939937510582097494459230"),
        (E(-R(1, 2)) / (1 + E(-R(1, 2))), None),
        (sympy.log(3) - sympy.erf(R(1, 3)) + sympy.erfc(2), None),
        (sympy.cbrt(5) * sympy.Min(S(2), R(3, 2)) - sympy.Max(1, sympy.cos(1)), None),
    ],
)
def test_to_arb_encloses_a_reference(expr, reference):
    # reference: 60-digit published constants, else mpmath at 80 digits (independent code)
    with mpmath.workdps(80):
        ref = mpmath.mpf(reference) if reference else mpmath.mpf(sympy.N(expr, 80))
        b = to_arb(expr, 150)
        lo, hi = (mpmath.mpf(v._mpf_) for v in arb_to_interval(b))
        assert lo <= ref <= hi
        assert hi - lo < mpmath.mpf(2) ** -140 * max(1, abs(ref))


def test_to_arb_crootof_is_rigorous():
    x = sympy.Symbol("x")
    r = sympy.CRootOf(x**3 - 2, 0)
    b = to_arb(r, 200)
    assert (b**3 - 2).contains(0) and b.rad() < flint.arb(2) ** -190


def test_to_arb_huge_and_tiny():
    b = to_arb(E(-(10**6)), 64)
    assert b > 0 and b < flint.arb(2) ** -1_400_000
    assert to_arb(sympy.Integer(10) ** 5000, 64) > flint.arb(10) ** 4999


@pytest.mark.parametrize(
    "bad, match",
    [
        (sympy.Symbol("t"), "free symbols"),
        (sympy.Float(0.5), "float"),
        (0.5, "exact number"),
        (sympy.log(1 - S(2), evaluate=False), "not proved positive"),
        (sympy.Integer(-8) ** R(1, 3), "non-negative"),
        (sympy.I, "unsupported"),
        (sympy.zeta(3), "unsupported"),
    ],
)
def test_to_arb_refuses(bad, match):
    with pytest.raises(ValueError, match=match):
        to_arb(bad, 64)


@given(st.integers(-(10**30), 10**30), st.integers(-200, 200))
def test_mpf_arb_round_trip_keeps_sign(man, exp):
    with mpmath.workprec(200):
        v = mpmath.ldexp(man, exp)
    b = mpf_to_arb(v)
    assert b.is_exact()
    assert arb_mid_to_mpf(b) == v
    f = arb_mid_to_float(b)
    r = sympy.Rational(f)
    assert Fraction(int(r.p), int(r.q)) == Fraction(man) * Fraction(2) ** exp
    assert float_to_arb(f) == b


def test_negative_numbers_keep_their_sign():
    # the regression behind issue 8, hole 5: mpf.man_exp drops the sign
    assert mpf_to_arb(mpmath.mpf("-0.75")) == flint.arb(-0.75)
    assert arb_mid_to_mpf(flint.arb(-3)) == -3
    assert float(arb_mid_to_float(flint.arb(-3), 10)) == -3.0


@settings(max_examples=30)
@given(st.integers(-(10**20), 10**20), st.integers(0, 10**20), st.integers(-80, 10))
def test_ball_contains_its_interval(m, r, e):
    with mpmath.workprec(400):  # m, r, m +- r are exact dyadic numbers at 400 bits
        mid, rad = mpmath.ldexp(m, e), mpmath.ldexp(r, e)
        hi, lo = mid + rad, mid - rad
    b = ball(mid, rad)
    for point in (mid, hi, lo):
        assert b.contains(mpf_to_arb(point))


def test_mpf_to_arb_infinities_and_nan():
    assert mpf_to_arb(mpmath.inf) > 0 and not mpf_to_arb(mpmath.inf).is_finite()
    with pytest.raises(ValueError, match="NaN"):
        mpf_to_arb(mpmath.nan)


def test_as_exact_keeps_exact_numbers_and_refuses_floats():
    assert as_exact(3, "f") == 3 and isinstance(as_exact(3, "f"), sympy.Integer)
    assert as_exact(Fraction(-2, 6), "f") == R(-1, 3)
    assert as_exact(S(2), "f") is S(2)
    for bad, match in ((0.5, r"myfunc: value must be an exact number .*not float, got 0\.5"),
                       (sympy.Float(0.5) + S(2), r"myfunc: value must be exact \(no float"),
                       (True, "myfunc: value must be a number, not a bool, got True")):
        with pytest.raises(ValueError, match=match):
            as_exact(bad, "myfunc")


def test_flint_dps_sets_the_bits_of_the_digits_and_restores():
    before = flint.ctx.prec
    with flint_dps(30):
        assert flint.ctx.prec == dps_to_prec(30) >= 100  # 30 digits need 99.7 bits
    assert flint.ctx.prec == before


# ------------------------------------------------------------- mutants that lived (issue 20)
def _contains(b: flint.arb, value: str) -> bool:
    """Whether the ball ``b`` contains the decimal ``value`` (from mpmath at 60 digits)."""
    with flint_prec(400):
        return b.overlaps(flint.arb(value))


def test_cos_min_max_against_mpmath():
    with mpmath.workdps(60):
        cos1, r2 = mpmath.nstr(mpmath.cos(1), 55), mpmath.nstr(mpmath.sqrt(2), 55)
    b = to_arb(sympy.cos(1), 128)
    assert _contains(b, cos1) and b.rad() < flint.arb("1e-35")
    assert _contains(to_arb(sympy.Max(1, sympy.sqrt(2)), 128), r2)
    assert to_arb(sympy.Min(1, sympy.sqrt(2)), 128) == 1


def test_crootof_ball_is_tight_and_contains_the_root():
    """The real root of x^5 - x - 1 (1.1673039782614...; mpmath findroot at 80 digits)
    enclosed to within 2**(2 - prec)."""
    xs = sympy.Symbol("xs")
    root = sympy.CRootOf(xs**5 - xs - 1, 0)
    with mpmath.workdps(80):
        ref = mpmath.nstr(mpmath.findroot(lambda v: v**5 - v - 1, 1.17), 75)
    for prec in (64, 200):
        b = to_arb(root, prec)
        assert _contains(b, ref)
        with flint_prec(400):
            assert b.rad() <= flint.arb(2) ** (2 - prec)


def test_square_root_of_an_exact_zero_ball():
    t = sympy.Symbol("t", nonnegative=True)
    assert to_arb(sympy.sqrt(t), 64, {t: flint.arb(0)}) == 0
    assert to_arb(t ** R(1, 3), 64, {t: flint.arb(8)}).overlaps(flint.arb(2))


def test_ball_of_an_arb_midpoint():
    b = ball(flint.arb(3), 1)
    assert b.overlaps(flint.arb(2)) and b.overlaps(flint.arb(4))
    assert not b.overlaps(flint.arb(5)) and not b.overlaps(flint.arb(1))


def test_conversion_errors_name_the_function_and_argument():
    with pytest.raises(ValueError, match=r"^float_to_arb: x must be a sympy Float"):
        float_to_arb(sympy.Integer(1))
    with pytest.raises(ValueError, match=r"^mpf_to_arb: x must be an mpmath mpf"):
        mpf_to_arb(1.5)


def test_functions_of_negative_arguments_against_mpmath():
    """sin, cos, erf and erfc are defined for every real argument (only log needs a
    positive one): sin(1 - sqrt 2), erf(1 - pi), erfc(1 - log 3), arguments below 0 that
    sympy keeps as they are, against mpmath at 60 digits."""
    with mpmath.workdps(60):
        cases = {
            sympy.sin(1 - S(2)): mpmath.sin(1 - mpmath.sqrt(2)),
            sympy.erf(1 - sympy.pi): mpmath.erf(1 - mpmath.pi),
            sympy.erfc(1 - sympy.log(3)): mpmath.erfc(1 - mpmath.log(3)),
        }
        cases = {expr: mpmath.nstr(ref, 55) for expr, ref in cases.items()}
    for expr, value in cases.items():
        assert expr.args[0] < 0
        b = to_arb(expr, 128)
        assert _contains(b, value) and b.rad() < flint.arb("1e-30"), expr


def test_ball_rounds_an_inexact_radius_up():
    """rad = [1/3 +- 1/10] (an arb ball, |rad| <= 13/30): the ball around 1 must reach
    1 - 43/100 and 1 + 43/100, beyond the lower end 7/30 of |rad|."""
    b = ball(mpmath.mpf(1), flint.arb(flint.fmpq(1, 3), flint.fmpq(1, 10)))
    for point in (flint.fmpq(57, 100), flint.fmpq(143, 100)):
        with flint_prec(200):
            assert b.contains(flint.arb(point))


def test_crootof_ball_from_a_cold_root_cache():
    """sympy caches the refined isolating intervals of every CRootOf: cleared first, the
    interval must be refined below 2**-prec here (the real root of x^5 - x - 3,
    1.34129353169..., from mpmath findroot at 80 digits)."""
    xs = sympy.Symbol("xs")
    sympy.CRootOf.clear_cache()
    root = sympy.CRootOf(xs**5 - xs - 3, 0)
    with mpmath.workdps(80):
        ref = mpmath.nstr(mpmath.findroot(lambda v: v**5 - v - 3, 1.34), 75)
    b = to_arb(root, 200)
    assert _contains(b, ref)
    with flint_prec(400):
        assert b.rad() <= flint.arb(2) ** -198


def test_min_max_of_a_box_are_enclosed_node_by_node():
    """Min / Max that sympy cannot fold (a symbol with a ball): Max(t, 1/2) and
    Min(t, 1/2) at t = 1/4 are 1/2 and 1/4, and over the box t in [0, 1] they enclose
    [1/2, 1] and [0, 1/2]."""
    t = sympy.Symbol("t", real=True)
    quarter = {t: flint.arb(flint.fmpq(1, 4))}
    assert to_arb(sympy.Max(t, R(1, 2)), 64, quarter) == flint.arb(flint.fmpq(1, 2))
    assert to_arb(sympy.Min(t, R(1, 2)), 64, quarter) == flint.arb(flint.fmpq(1, 4))
    box = {t: flint.arb(flint.fmpq(1, 2), flint.fmpq(1, 2))}
    hi, lo = to_arb(sympy.Max(t, R(1, 2)), 64, box), to_arb(sympy.Min(t, R(1, 2)), 64, box)
    for v in (R(1, 2), R(3, 4), 1):
        assert hi.contains(flint.arb(flint.fmpq(int(R(v).p), int(R(v).q))))
    for v in (0, R(1, 4), R(1, 2)):
        assert lo.contains(flint.arb(flint.fmpq(int(R(v).p), int(R(v).q))))


def test_ball_keeps_the_sign_of_negative_midpoints():
    b = ball(mpmath.mpf("-0.5"), mpmath.mpf(2) ** -40)
    assert b.contains(mpf_to_arb(mpmath.mpf("-0.5"))) and b < 0


def test_refusals_name_the_function_the_argument_and_the_value():
    """The one message style ``func: name must be what, got value`` (exactdp._validate)."""
    with pytest.raises(ValueError, match=r"^float_to_arb: x must be a sympy Float, got 1\.5$"):
        float_to_arb(1.5)
    with pytest.raises(ValueError, match=r"^mpf_to_arb: x must be a number, not NaN \(NaN has "
                       r"no enclosure\), got mpf\('nan'\)$"):
        mpf_to_arb(mpmath.mpf("nan"))
    x = sympy.Symbol("x")
    with pytest.raises(ValueError, match=r"^to_arb: not a real algebraic number: "
                       r"CRootOf\(x\*\*2 \+ 1, 0\)$"):
        to_arb(sympy.CRootOf(x**2 + 1, 0), 64)


def test_real_power_of_a_ball_touching_zero_encloses_the_whole_range():
    """y**pi for y in a ball [0, u]: t -> t**pi is increasing on [0, oo), so the range is
    [0, u**pi]; the ball holds both ends (and the midpoint's power, by mpmath)."""
    y = sympy.Symbol("y", positive=True)
    base = flint.arb(0, 1).nonnegative_part()  # [0, u] with u just above 1
    assert base >= 0 and not base > 0
    b = to_arb(y**sympy.pi, 64, {y: base})
    u = mpmath.mpf(base.upper().str(30, radius=False))
    assert b.contains(0) and b.lower() <= 0
    assert b.contains(flint.arb(mpmath.nstr(u**mpmath.pi * (1 - mpmath.mpf(2) ** -40), 30)))
    assert b.contains(flint.arb(mpmath.nstr((u / 2) ** mpmath.pi, 30)))
    assert b.upper() < flint.arb(mpmath.nstr(u**mpmath.pi * (1 + mpmath.mpf(2) ** -20), 30))


def test_to_arb_exp_of_a_huge_argument_against_mpmath():
    # a score of 1e300 in a release program: exp(+-x/4) with x = 10**300 (once [+/- inf])
    x = sympy.Integer(10) ** 300
    with mpmath.workprec(1300):
        ref = mpmath.exp(mpmath.mpf(10) ** 300 / 4) / 64
        up = to_arb(sympy.exp(x / 4) / 64, 128)
        assert up.is_finite() and up.rel_accuracy_bits() > 100
        assert abs(mpmath.mpf(up.mid().str(40, radius=False)) / ref - 1) < mpmath.mpf(10) ** -30
    down = to_arb(1 - 3 * sympy.exp(-x / 4), 128)
    assert down.contains(1) and down.rad() < flint.arb(2) ** -100


def test_abs_of_a_symbol_encloses_the_absolute_value_over_its_ball():
    """Mutation seed 11: ``Abs`` with a free symbol stays unevaluated in sympy; by hand,
    |x - 1| at x = -1/2 is 3/2, and over x in [2, 4] the range [1, 3]."""
    x = sympy.Symbol("x")
    got = to_arb(sympy.Abs(x - 1), env={x: flint.arb(flint.fmpq(-1, 2))})
    assert got.is_exact() and got == flint.arb(flint.fmpq(3, 2))
    wide = to_arb(sympy.Abs(x - 1), env={x: flint.arb(3, 1)})
    assert wide.contains(flint.arb(1)) and wide.contains(flint.arb(3))
    assert wide >= 0


def test_exp_of_a_closed_argument_is_kept_across_sign_refinements(monkeypatch):
    """check_dp of RNM-Laplace on (1e300, 0, 5) took 14 s: its signs, decided at rising
    precision, evaluated exp of the same huge arguments 3500 times (181 distinct). Each
    distinct (argument, precision) is now evaluated once; the verdict is unchanged."""
    import exactdp
    from exactdp.exact import arb as A

    calls = []
    inner = A._exp_ball
    monkeypatch.setattr(A, "_exp_ball", lambda *a: calls.append(a[:2]) or inner(*a))
    monkeypatch.setattr(A, "_EXP_MEMO", {})
    e = sympy.exp(-sympy.Integer(10) ** 300)
    first = to_arb(e, 200)
    assert to_arb(e, 200) is first and len(calls) == 1
    # against mpmath at 400 digits (the argument 10**300 and its reduction need 300 and more)
    with mpmath.workdps(400):
        ref = mpmath.exp(-mpmath.mpf(10) ** 300)
        assert abs(mpmath.mpf(first.mid().str(40, radius=False)) / ref - 1) < mpmath.mpf(10) ** -35
    r = exactdp.check_dp(exactdp.ReportNoisyMax(1, noise="laplace"), [10**300, 0, 5])
    assert r.holds and r.certified and r.witness.output == 1
    assert len(calls) == len(set(calls)) < 400  # was 3500 evaluations
