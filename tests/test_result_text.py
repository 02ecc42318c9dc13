"""exactdp/result_text.py: decimals that never read as a rounded exact value; summary fields."""

from __future__ import annotations

import mpmath
import sympy

from exactdp.result import number_text
from exactdp.result_text import (
    bracket_text,
    bracket_witness,
    decimal_text,
    field_text,
    longer_than,
    stated_text,
    supremum_parts,
)


def test_decimals_near_one_show_the_distance_to_one():
    """A number within 1e-6 of +-1 prints as ``1 - d`` (d exact, then rounded), never a
    rounded 1; the others as format_number does. Values checked by their closed forms."""
    # 1 - e^-200 = 1 - 1.3838965267367376e-87 (e^-200 by mpmath at 30 digits)
    assert mpmath.nstr(mpmath.exp(-200), 5) == "1.3839e-87"
    assert decimal_text(1 - sympy.exp(-200)) == "1 - 1.3839e-87"
    assert decimal_text(1 + sympy.exp(-30)) == "1 + 9.35762e-14"
    assert decimal_text(-1 + sympy.exp(-50)) == "-1 + 1.92875e-22"
    assert decimal_text(sympy.Rational(9999999, 10000000)) == "1 - 1.0e-7"
    assert decimal_text(sympy.Rational(999999, 1000000)) == "0.999999"  # 6 digits suffice
    assert decimal_text(1) == "1" and decimal_text(sympy.Rational(1, 3)) == "0.333333"
    assert number_text(1 - sympy.exp(-200)) == "1 - 1.3839e-87 (exact: 1 - exp(-200))"


def test_summary_fields_long_expressions_as_decimals_unless_full():
    long = sum(sympy.exp(-k) / (k + 1) for k in range(200))  # more than 400 nodes
    text = field_text(long)
    assert text.startswith(number_text(long)[:6]) and "certified ball" in text
    assert "summary(full=True)" in text and len(text) < 300
    assert field_text(long, full=True) == sympy.sstr(long)
    assert field_text(sympy.sqrt(2)) == "sqrt(2)" and field_text("note") == "note"


def test_longer_than_counts_nodes_without_printing():
    assert not longer_than(sympy.sqrt(2), 10) and longer_than(sum(sympy.symbols("a:30")), 20)
    assert not longer_than("a long string that is no expression", 3)


def test_a_small_nonzero_number_is_not_shown_as_0():
    # log(1 + 5e-31) = 5e-31 - 1.25e-61 + ...: a float evaluation cancels to 0
    value = sympy.log(sympy.Rational(10**31 + 5, 10**31))
    assert decimal_text(value) == "5.0e-31"
    assert decimal_text(-value) == "-5.0e-31"
    assert decimal_text(sympy.Integer(0)) == "0"


def test_bracket_text_rounds_each_end_outward():
    from fractions import Fraction as F

    # ends 0.97280848... and 1 + 4e-11: to nearest they read 0.972808 / 1.00000 (and at 3
    # digits 0.973, above the lower end); outward they contain the bracket
    assert bracket_text(F(97280848, 10**8), F(10**11 + 4, 10**11)) == "[0.972808, 1.00001]"
    assert bracket_text(F(-1, 3), F(2, 3), 3) == "[-0.334, 0.667]"
    assert bracket_text(F(1, 4), F(1, 2)) == "[0.250000, 0.500000]"  # exact ends stay
    assert bracket_text(F(1, 10**9), F(123456789012)) == "[1.00000e-9, 1.23457e+11]"
    assert bracket_text(sympy.Float("0.4"), sympy.oo) == "[0.400000, oo]"  # binary 0.4000...2
    assert bracket_text(0, sympy.Float(0.7), 2) == "[0, 0.70]"  # binary 0.69999...96
    for lo, hi in [(F(2, 7), F(3, 7)), (F(-22, 7), F(-3, 1000)), (F(1, 3 * 10**8), F(5))]:
        a, b = bracket_text(lo, hi, 4)[1:-1].split(", ")
        assert F(a) <= lo and hi <= F(b)  # outward, and within one unit of the 4th digit
        assert F(b) - F(a) < (hi - lo) + F(1, 10**3) * (abs(lo) + abs(hi))


def test_bracket_witness_keeps_the_witness_of_a_release_loss_text():
    text = ("a certified bracket [0.972808, 1] (width 0.027): at least the pattern (False, "
            "REAL) with the values (1, 17); at most 1 by a translation of the noises")
    assert bracket_witness(text) == "the pattern (False, REAL) with the values (1, 17)"
    assert bracket_witness("the value v > 2") == "the value v > 2"


def test_supremum_parts_lead_with_the_bracket_and_cut_the_witness(monkeypatch):
    # the repr showed witness='a certified bracket [0.972808, 1] (...' beside the bracket
    from exactdp.distribution import LossSupremum
    from exactdp.programs import library_release as LR
    from exactdp.programs import release_chain

    # GapSVT at c = 2 with the plane's exact route off: the search's certified bracket (the
    # route gives 0.458749..., approached; SVT3's bracket here is exact too: release_min)
    monkeypatch.setattr(release_chain, "two_candidates", lambda *args: None)
    m = LR.gap_svt(epsilon=1, threshold=1, c=2)
    sup = m.distribution((1, 1, 0, 0)).loss_supremum((0, 0, 1, 1))
    lo, hi = sup.interval
    text = repr(sup)
    assert text == ("LossSupremum(loss=[0.458748, 0.500000] (certified bracket), attained=False, "
                    "witness='the pattern (False, False, REAL, REAL) with the values (32, 32)', "
                    "certified)")
    assert supremum_parts(sup)[0] == "attained=False"
    # the printed ends contain the certified ones (exact binary end points)
    assert sympy.Rational("0.458748") <= lo and hi <= sympy.Rational("0.500001")
    # a long witness is cut with ... inside its quotes; the status stays
    long = LossSupremum(sympy.Rational(1, 4), True, 1, "the value " + "v" * 400)
    text = repr(long)
    assert len(text) <= 200 and text.startswith("LossSupremum(loss=0.25 (exact: 1/4), ")
    assert text.endswith("vvv...', certified)")


def test_a_gap_to_one_beyond_the_ball_precision_prints_as_one_minus():
    """``1/(exp(-500000) + 1)`` (the exponential mechanism at scores ``[10**6, 0]``): its
    distance to 1, about ``10**-217148``, cancels in every ball up to 65536 bits; put
    over one fraction it is enclosed and prints as ``1 - ...``, its digits those of
    ``exp(-500000)/(1 + exp(-500000))`` from mpmath at 30 digits (independent route)."""
    tiny = sympy.exp(-500000)
    with mpmath.workdps(30):
        e = mpmath.exp(-500000)
        want = "1 - " + mpmath.nstr(e / (1 + e), 6)
    assert decimal_text(1 / (tiny + 1)) == want
    text = number_text(1 / (tiny + 1))
    assert text.startswith(want + " (exact: ")


def test_offset_text_separates_decimals_that_tie():
    """``1/(1 + x)`` with ``x = exp(-10**-300 / 2)``: ``1/2 + (1 - x)/(2(1 + x))``, about
    ``10**-300 / 8`` (Taylor, an independent route); exactly ``0.5``: the decimals alone;
    a value not enclosed apart from the decimals (equal by another form): None."""
    from exactdp.result_text import offset_text

    x = sympy.exp(-sympy.Rational(1, 2 * 10**300))
    assert offset_text(1 / (1 + x), "0.5") == "0.5 + 1.25e-301"
    assert offset_text(x / (1 + x), "0.5") == "0.5 - 1.25e-301"
    assert offset_text(sympy.Rational(1, 2), "0.5") == "0.5"
    assert offset_text(sympy.sin(1) ** 2 + sympy.cos(1) ** 2 - sympy.Rational(1, 2),
                       "0.5") is None


def test_untie_shows_the_offsets_of_decimals_that_tie_but_differ():
    """``1/(1 + x)`` and ``x/(1 + x)`` at ``x = exp(-10**-300 / 2)`` both print ``0.5``; their
    offsets are ``+-10**-300 / 8`` (Taylor, an independent route); a true tie (equal exact
    values) and a lone text keep their decimals."""
    from exactdp.result_text import untie

    x = sympy.exp(-sympy.Rational(1, 2 * 10**300))
    half = sympy.Rational(1, 2)
    assert untie(["0.5", "0.5", "0.25"], [1 / (1 + x), x / (1 + x), half / 2]) == [
        "0.5 + 1.25e-301", "0.5 - 1.25e-301", "0.25"]
    assert untie(["0.5", "0.5"], [half, half]) == ["0.5", "0.5"]
    with mpmath.workdps(30):  # the Taylor offset to 15 digits
        want = mpmath.nstr(mpmath.mpf(10) ** -300 / 8, 15)
    assert untie(["0.5", "0.5"], [1 / (1 + x), half], 15)[0] == "0.5 + " + want


def test_a_short_decimal_the_value_is_not_shows_its_offset():
    """``1/2 + 10**-300/8`` agrees with ``0.5`` to 300 digits: ``0.5 + 1.25e-301`` (the
    offset is the exact rational, an independent route); ``1/2 + 3e-8`` is an ordinary
    rounding at 6 digits: ``0.5``; exactly ``1/4``: ``0.25``."""
    half = sympy.Rational(1, 2)
    assert decimal_text(half + sympy.Rational(1, 8 * 10**300)) == "0.5 + 1.25e-301"
    assert decimal_text(half / 2 - sympy.Rational(1, 10**40)) == "0.25 - 1.0e-40"
    assert decimal_text(half + sympy.Rational(3, 10**8)) == "0.5"
    assert decimal_text(half / 2) == "0.25"
    assert decimal_text(sympy.Rational(3, 10**8) + sympy.Rational(1, 10**400)) == (
        "3.0e-8 + 1.0e-400")
    # a float's exact binary value (an input 1e-9) is 1e-9 + 6.2e-26: printed as Python does
    assert decimal_text(sympy.Rational(1e-9)) == "1.0e-9"


def test_stated_text_labels_decimals_that_are_not_the_exact_value():
    """Beside the word exact a decimal is the value itself (0.5, 10**300 as 1.0e+300), shows
    its exact form, or says it is rounded (1/3 as 0.333333; 1 - 1.68e-63 in its offset
    form); a float or symbolic value is left as it is."""
    third = sympy.Rational(1, 3)
    assert stated_text(number_text(third), third) == "0.333333 (exact: 1/3)"
    assert stated_text("0.333333", third) == "0.333333 (rounded)"
    assert stated_text("0.5", sympy.Rational(1, 2)) == "0.5"
    assert stated_text("1.0e+300", sympy.Integer(10) ** 300) == "1.0e+300"
    assert stated_text("1.0e+300", sympy.Integer(10) ** 300 - 1) == "1.0e+300 (rounded)"
    near = 1 - sympy.exp(-144)
    assert number_text(near).startswith("1 - 2.89464e-63 (exact: ")
    assert stated_text("1 - 2.89464e-63", near) == "1 - 2.89464e-63 (rounded)"
    assert stated_text("0.1", 0.1) == "0.1" and stated_text("oo", sympy.oo) == "oo"
    eps = sympy.Symbol("epsilon", positive=True)
    assert stated_text("epsilon/2", eps / 2) == "epsilon/2"


def _em_at_tiny_epsilon(scores, dps):
    """The exponential mechanism's probabilities at epsilon = 1e-300 by a softmax in mpmath
    at ``dps`` digits (the independent route) and as the library's exact forms."""
    eps = sympy.Rational(1, 10**300)
    weights = [sympy.exp(eps * s / 2) for s in scores]
    exact = [w / sum(weights) for w in weights]
    with mpmath.workdps(dps):
        e = mpmath.mpf(10) ** -300
        ws = [mpmath.exp(e * s / 2) for s in scores]
        return exact, [w / mpmath.fsum(ws) for w in ws]


def test_untie_offsets_near_tied_thirds_from_their_common_value():
    """EM on (3, 1, 0) at epsilon = 1e-300: all three probabilities print
    ``0.3333...`` at 25 digits; each shows as ``1/3`` plus its offset, every digit of the
    offset right (a softmax at 400 digits, an independent route), the three offsets apart."""
    from exactdp.result_text import untie

    exact, ref = _em_at_tiny_epsilon([3, 1, 0], 400)
    texts = ["0." + "3" * 25] * 3
    got = untie(texts, exact, 25)
    with mpmath.workdps(400):
        want = [("+ " if v > mpmath.mpf(1) / 3 else "- ")
                + mpmath.nstr(abs(v - mpmath.mpf(1) / 3), 25) for v in ref]
    assert got == ["1/3 " + w for w in want]
    assert len(set(got)) == 3


def test_offsets_print_every_digit_from_the_ball():
    """A 25-digit offset comes from a ball of 28 digits, not from a 53-bit midpoint:
    ``1/(1 + x) - 1/2 = tanh(h/2)/2`` at ``x = exp(-h)`` (closed form, in mpmath) and
    ``1/3 + 10**-40/3`` off ``0.333...`` (25 threes) by ``10**-25/3 + 10**-40/3``."""
    from exactdp.result_text import offset_text

    h = sympy.Rational(1, 2 * 10**300)
    with mpmath.workdps(400):
        want = mpmath.nstr(mpmath.tanh(mpmath.mpf(h.p) / h.q / 2) / 2, 25)
    assert offset_text(1 / (1 + sympy.exp(-h)), "0.5", 25) == "0.5 + " + want
    third = sympy.Rational(1, 3) + sympy.Rational(1, 3 * 10**40)
    with mpmath.workdps(80):
        want = mpmath.nstr(mpmath.mpf(10) ** -25 / 3 + mpmath.mpf(10) ** -40 / 3, 25)
    assert offset_text(third, "0." + "3" * 25, 25) == "0." + "3" * 25 + " + " + want
    assert want.startswith("3.33333333333333666666666")


def test_cut_text_drops_the_exact_part_and_closes_what_it_opened():
    import warnings

    import exactdp
    from exactdp.result_text import cut_text

    assert cut_text("1.0e-9 (exact: 4835703278458517/4835703278458516901121)", 20) == "1.0e-9"
    assert cut_text("f(a, [b, c, d, e])", 10) == "f(a, [b...])"
    assert cut_text("short", 10) == "short"
    # the exact form dropped up to its own closing parenthesis: the fields after it stay
    long = "R(loss=1.5 (exact: " + "log(x" * 60 + ")" * 60 + "), output=1, certified)"
    assert cut_text(long, 200) == "R(loss=1.5, output=1, certified)"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = repr(exactdp.lattice_lp(3, 4, 1e-9))
    assert "epsilon=1.0e-9," in text and text.count("(") == text.count(")"), text


def test_close_brackets_closes_what_a_cut_left_open_innermost_first():
    from exactdp.result_text import close_brackets

    assert close_brackets("(a, [b...") == "(a, [b...])"
    assert close_brackets("{x: (1, 2)...") == "{x: (1, 2)...}"
    assert close_brackets("plain...") == "plain..."
