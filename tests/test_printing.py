"""The printing core (exactdp/printing.py): exact decimals, arrays, the distributions' and
results' ``_repr_latex_`` through one printer; ``exactdp.latex`` holds the table printers."""

from __future__ import annotations

import importlib.util
import re
from fractions import Fraction

import mpmath
import pytest
import sympy

import exactdp
from exactdp import printing
from exactdp.printing import format_number


def test_decimals_are_exact_and_rounded():
    assert printing.latex_decimal(Fraction(1, 3)) == "0.333333"
    assert printing.latex_decimal(Fraction(2, 3), 4) == "0.6667"
    assert printing.latex_decimal(sympy.Rational(1, 10**8)) == r"1.0 \times 10^{-8}"
    assert printing.latex_decimal(sympy.oo) == r"\infty"
    # 1 - 10^-30 rounds to 1 at 6 digits but is < 1 at 40 (no float in between)
    assert printing.latex_decimal(1 - sympy.Rational(1, 10**30), 40).startswith("0.99999999")


def test_format_number_refuses_floats_and_bad_dps():
    assert printing.format_number(sympy.Rational(1, 3), 4) == "0.3333"
    with pytest.raises(TypeError, match=r"^format_number: value must be exact .*, got 0\.5$"):
        printing.format_number(0.5)
    with pytest.raises(ValueError, match=r"^format_number: dps must be an integer in 1\.\.1000"):
        printing.format_number(sympy.Integer(1), 0)


def test_array_and_math():
    tex = printing.latex_array(["a", "b"], [["1", "2"], ["3", "4"]], "lr")
    assert tex == r"\begin{array}{lr} a & b \\ \hline 1 & 2 \\ 3 & 4 \end{array}"
    assert printing.latex_math("x") == "$x$"
    assert printing.latex_math("x", display=True) == r"$\displaystyle x$"
    with pytest.raises(ValueError, match="latex_array"):
        printing.latex_array(["a", "b"], [["1"]])


def test_distribution_latex_is_the_closed_form():
    # PF on (0, -1) at epsilon = 2 log 2: x = exp(-epsilon/2) = 1/2, P_0 = 1 - x/2 = 3/4
    d = exactdp.PermuteAndFlip(2 * sympy.log(2)).distribution([0, -1])
    tex = d._repr_latex_()
    assert tex == (r"$\displaystyle \begin{aligned}\Pr[\mathrm{PF}(q) = 0] &= \frac{3}{4} \\ "
                   r"\Pr[\mathrm{PF}(q) = 1] &= \frac{1}{4}\end{aligned}$")
    gumbel = exactdp.ReportNoisyMax(1, noise="gumbel").distribution([0, 0])
    assert r"\Pr[\mathrm{RNM-Gumbel}(q) = 0] &= \frac{1}{2}" in gumbel._repr_latex_()


def test_the_public_latex_path_holds_the_table_printers():
    import exactdp.io.latex as io_latex
    import exactdp.latex as public

    for name in public.__all__:
        home = io_latex if name in ("LATEX_PACKAGES", "latex_document", "probability_table",
                                    "table") else printing
        assert getattr(public, name) is getattr(home, name)
    # the tables are io/latex's, the number printers printing's
    assert public.probability_table is io_latex.probability_table
    assert public.table is io_latex.table
    for name in ("format_number", "Math", "scores_latex", "distribution_latex"):
        assert getattr(public, name) is getattr(printing, name)
    assert public.format_number(sympy.Rational(1, 3), 4) == "0.3333"


def test_topk_and_pld_results_print_through_the_core():
    d = exactdp.TopK(exactdp.ExponentialMechanism(2 * sympy.log(2)), 2).distribution([0, 0])
    # two tied outputs: each ordered pair has probability 1/2
    tex = d._repr_latex_()
    assert tex == (r"$\displaystyle \begin{array}{ll} (r_1, \dots, r_k) & \Pr \\ \hline "
                   r"(0, 1) & \frac{1}{2} \\ (1, 0) & \frac{1}{2} \end{array}$")


def test_accountant_check_prints_exact_decimals_and_escaped_claims():
    import mpmath

    res = exactdp.check_accountant(exactdp.PermuteAndFlip(1), [0, 0], 2, [1])
    tex = res._repr_latex_()
    assert tex.startswith(r"$\begin{array}{llrrrl} \varepsilon & \text{claim}")
    if importlib.util.find_spec("dp_accounting") is not None:  # its row needs the extra
        assert r"\mathrm{dp\_accounting}" in tex  # escaped: no bare underscore in math mode
    names = re.findall(r"\\mathrm\{([^}]*)\}", tex)
    assert "basic" in names and all("_" not in n.replace(r"\_", "") for n in names)
    row = next(r for r in res.rows if r.claim == "basic")
    lb = row.lower_bound
    with mpmath.workdps(30):
        expected = mpmath.nstr(mpmath.mpf(lb.numerator) / lb.denominator, 4)
        ub = row.upper_bound
        upper = mpmath.nstr(mpmath.mpf(ub.numerator) / ub.denominator, 4)
    assert rf"1 & \mathrm{{basic}} & 1.0 & {expected} & {upper} & \text{{confirmed}}" in tex


def test_math_text_escapes_for_latex_and_mathjax_alike():
    # inside math, \_ prints an underscore in LaTeX and in MathJax (\text{a\_b} shows a
    # backslash in the notebook: the bounded\_range case)
    assert printing.math_text("bounded_range") == r"\mathrm{bounded\_range}"
    assert printing.math_text("a b&{c}") == r"\mathrm{a\ b\&\{c\}}"
    assert printing.math_text("(1)->(2)") == r"\mathrm{(1)}\to\mathrm{(2)}"
    # sympy's oo (and inf) is the symbol infinity, not two upright letters; words are kept
    assert printing.math_text("in (0, oo)") == r"\mathrm{in\ (0,\ }\infty\mathrm{)}"
    assert printing.math_text("-inf, info, zoo") == r"\mathrm{-}\infty\mathrm{,\ info,\ zoo}"


def test_prose_latex_prints_intervals_and_infinities_as_math():
    # a release loss's witness in words (programs.release_loss, release_max_poly)
    assert printing.prose_latex("the pattern REAL with the value in (-oo, 1/2)") == (
        r"the pattern REAL with the value in $(-\infty, \frac{1}{2})$")
    assert printing.prose_latex("(REAL, None) as the value -> -oo") == (
        r"(REAL, None) as the value $\to -\infty$")
    assert printing.prose_latex("with the values (3, -7/4, 0.5)") == (
        r"with the values $(3, -\frac{7}{4}, 0.5)$")
    assert printing.prose_latex("in [1e-3, inf] (certified)") == (
        r"in $[1 \times 10^{-3}, \infty]$ (certified)")
    # text without a number interval or an infinity is latex_escape's
    for text in ("exhaustive vertices {-1,0,1}^n", "too good: (1,2) vs (2,1)", "x_1 & 50%"):
        assert printing.prose_latex(text) == printing.latex_escape(text)


@pytest.mark.parametrize("log_v", [-500000, -(10**5) * 7, 2 * 10**6, -(10**14)])
def test_format_number_mantissa_right_at_any_exponent(log_v):
    """Regression (fresh-user test): at epsilon = 1e6 the table printed PF's x/2 as
    exp(-500001.0), the rounding applied to the exponent (30% off). The mantissa and the
    decimal exponent now come out right; checked through log10 at 80 digits."""
    value = sympy.exp(sympy.Integer(log_v)) / 2
    with mpmath.workdps(80):
        L = (mpmath.mpf(log_v) - mpmath.ln2) / mpmath.ln10
        k = int(mpmath.floor(L))
        mant = mpmath.nstr(mpmath.power(10, L - k), 6)
    sign = "+" if k >= 0 else "-"
    assert format_number(value, 6) == f"{mant}e{sign}{abs(k)}"
    assert format_number(-value, 6) == f"-{mant}e{sign}{abs(k)}"


def test_format_number_beyond_1e15_prints_the_whole_exponent():
    """exp(-1e300)/2 prints m e k with k in all its digits and m right (it printed
    exp(-1.0e+300): the 1/2 lost); only beyond 10**(10**4000), where Python cannot print
    k, the text is exp(ln v). Reference: log10 by Python's decimal."""
    import decimal

    for d, dps in ((10**300, 6), (3 * 10**16, 20), (10**3000, 12)):
        with decimal.localcontext() as ctx:
            ctx.prec = len(str(d)) + dps + 20
            log10 = -decimal.Decimal(d) / decimal.Decimal(10).ln() - decimal.Decimal(2).log10()
            k = int(log10.to_integral_value(rounding=decimal.ROUND_FLOOR))
            m = decimal.Decimal(10) ** (log10 - k)
        shown = format_number(sympy.exp(-sympy.Integer(d)) / 2, dps)
        shown_m, shown_k = shown.split("e")
        assert int(shown_k) == k
        assert abs(decimal.Decimal(shown_m) / m - 1) < decimal.Decimal(10) ** (1 - dps)
    with mpmath.workdps(30):
        tiny = mpmath.exp(-mpmath.mpf(10) ** 4010)
    assert format_number(tiny, 6) == "exp(-1.0e+4010)"


def test_format_number_keeps_a_precise_mpf_of_ordinary_size():
    """An mpf of 3300 bits and size 0.6 printed with 100 digits: every digit (its binary
    exponent -3300 once sent it to the huge-value route, which rounded it to 53 bits)."""
    with mpmath.workdps(1005):
        v = 1 / (1 + mpmath.exp(-1) + mpmath.exp(-mpmath.mpf(3) / 2))
        ref = mpmath.nstr(v, 100)
    assert format_number(v, 100) == ref
    assert printing._scientific(v, 100) == "6." + ref[3:] + "e-1"


def test_format_number_of_a_cancelled_difference_is_right_or_refuses():
    import pytest
    import sympy

    from exactdp.printing import format_number

    tiny = sympy.Rational(1, 10**300)
    diff = sympy.exp(-tiny) / 2 - sympy.exp(-3 * tiny) / 2  # = tiny (1 - 2 tiny + ...)
    assert format_number(diff) == "1.0e-300"
    with pytest.raises(ValueError, match="cannot evaluate"):
        t = sympy.Rational(1, 10**30)  # a zero that evalf cannot tell from a tiny number
        format_number(sympy.sin(t) ** 2 + sympy.cos(t) ** 2 - 1)


def test_value_repr_prints_huge_numbers_in_decimals_without_evaluating():
    """value_repr: exact repr up to REPR_DIGITS digits; beyond, decimals with an exponent
    (Python refuses str(10**5000)), inside tuples and expressions too, and an exp of a huge
    argument is shown, not evaluated (format_number on it took 114 s)."""
    import time

    from exactdp.printing import REPR_DIGITS, value_repr

    assert value_repr(sympy.Rational(1, 3)) == "1/3"
    assert value_repr(10**REPR_DIGITS - 1) == str(10**REPR_DIGITS - 1)  # exact at the limit
    assert value_repr(sympy.Integer(10) ** 5000) == "1.0e+5000"
    assert value_repr(-3 * 10**5000) == "-3.0e+5000"
    assert value_repr(sympy.Rational(1, 7 * 10**5000)) == "1.42857142857e-5001"
    assert value_repr((0, sympy.Integer(10) ** 5000)) == "(0, 1.0e+5000)"
    assert value_repr([sympy.Integer(2) ** 20000]) == f"[{format_number(2**20000, 12)}]"
    t0 = time.process_time()
    shown = value_repr(sympy.exp(-sympy.Integer(10) ** 5000 / 2))
    assert shown == "exp(-5.0e+4999)" and time.process_time() - t0 < 2
    assert value_repr(sympy.log(3) * 10**5000) == "1.0e+5000*log(3)"


def test_html_table_escapes_and_has_one_row_per_pair():
    from exactdp.printing import html_table

    page = html_table("A<B", [("x & y", "1 < 2"), ("", "note")])
    assert page.startswith("<table><caption") and page.endswith("</table>")
    assert "<b>A&lt;B</b>" in page and ">x &amp; y</th>" in page and ">1 &lt; 2</td>" in page
    assert page.count("<tr>") == 2


def test_a_sequence_display_names_its_outputs_and_hides_the_impossible():
    """A program returning 2 when x > 0 fails and x > 5 holds: a run that cannot happen,
    kept in outputs with probability exactly 0 (P = 1/2, 1/2, 0 for outputs 0, 1, 2 of
    q + Lap(1) at q = 0); the display shows outputs 0 and 1 and says one is not shown."""
    from exactdp.programs import laplace, program
    from exactdp.programs.library import svt1

    @program()
    def impossible(q, epsilon):
        x = q[0] + laplace(1 / epsilon)
        if x > 0:
            return 1
        if x > 5:
            return 2
        return 0

    d = impossible(epsilon=1).distribution([0])
    assert d.outputs == (0, 1, 2) and d.probabilities == (sympy.Rational(1, 2),) * 2 + (0,)
    tex = d._repr_latex_()
    assert r"= \text{2}" not in tex and r"\text{(1 output of probability 0 not shown)}" in tex
    assert tex.count(r"\frac{1}{2}") == 2
    # a sparse vector names its outputs, not their indices
    tex = svt1(epsilon=1, threshold=1).distribution([0, 1])._repr_latex_()
    assert r"= \text{(T, -)}" in tex and r"= \text{(F, F)}" in tex
    # a selection keeps its indices
    assert "= 1]" in exactdp.PermuteAndFlip(1).distribution([0, 1])._repr_latex_()
    assert printing.output_text((False,)) == "(F,)"
    assert printing.output_text((True, None, 3)) == "(T, -, 3)"


def _balanced(tex: str) -> bool:
    depth = 0
    for ch in tex:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0 and tex.count(r"\left") == tex.count(r"\right")


def test_cut_latex_cuts_at_a_top_level_term_and_keeps_groups_closed():
    from exactdp.printing import cut_latex

    x = sympy.Symbol("x")
    e = sum(sympy.exp(-sympy.Rational(k, 7)) / (k + 3) for k in range(1, 12))
    full = sympy.latex(e)
    assert len(full) > 120 and cut_latex(e, 1000) == full
    cut = cut_latex(e, 120)
    assert cut.endswith(r" + \dots") and len(cut) <= 120 and _balanced(cut)
    assert full.startswith(cut[: -len(r" + \dots")])  # whole leading terms of the full text
    assert full[len(cut) - len(r" + \dots"):].startswith((" + ", " - "))
    # a log of a ratio (a loss) is cut inside: its numerator and denominator
    ratio = sympy.log((e + x) / (e - x))
    inner = cut_latex(ratio, 160)
    assert inner.startswith(r"\log{\left(\frac{") and _balanced(inner) and r"\dots" in inner
    # no boundary at all: the size in words, never LaTeX source cut mid-group
    huge = sympy.exp(-sympy.Rational(10**300, 3))
    assert cut_latex(huge, 40) == r"\dots\ \mathrm{(" + f"{len(sympy.latex(huge)):,}" + \
        r"\ characters)}"


def test_a_value_printed_again_is_evaluated_once():
    """The report prints each value in three formats: the second print reuses the first
    evaluation (a cache hit) and gives the same digits, mpmath's of the closed form."""
    from exactdp.printing import _evalf_mpf

    v = sympy.exp(-sympy.Rational(7, 3)) / 3
    first = format_number(v, 9)
    hits = _evalf_mpf.cache_info().hits
    assert format_number(v, 9) == first
    assert _evalf_mpf.cache_info().hits == hits + 1
    with mpmath.workdps(30):
        assert float(first) == pytest.approx(float(mpmath.exp(-mpmath.mpf(7) / 3) / 3), rel=1e-8)


def test_latex_number_of_a_decimal_with_its_offset():
    """A near-tie or tiny gap printed beside its short decimal (``5.0e-301 - 5.0e-601``)
    reads term by term in LaTeX (it raised on the two exponents before)."""
    from exactdp.printing import latex_number

    assert latex_number("1.5e-07") == r"1.5 \times 10^{-7}"
    assert latex_number("5.0e-301 - 5.0e-601") == (r"5.0 \times 10^{-301} - "
                                                   r"5.0 \times 10^{-601}")
    assert latex_number("0.5 + 1.25e-301") == r"0.5 + 1.25 \times 10^{-301}"
    assert latex_number("inf") == r"\infty"


def test_a_caption_shows_a_score_whose_decimals_round_as_its_fraction():
    """1/3 prints as 1/3 (its decimals 0.333333 would be rounded, unmarked); 1/2 and -2 keep
    their decimals (they are the values); an integer past Python's str limit still prints."""
    from exactdp.printing import scores_latex

    q = scores_latex([sympy.Rational(1, 3), sympy.Rational(-1, 2), sympy.Integer(-2),
                      sympy.Rational(-2, 7)])
    assert q.text == "(1/3, -0.5, -2, -2/7)"
    assert q.latex == r"(\frac{1}{3}, -0.5, -2, -\frac{2}{7})"
    assert scores_latex([sympy.Integer(10) ** 5000]).text == "(1.0e+5000)"


@pytest.mark.parametrize("value, dps, text", [
    (sympy.Rational(25000078, 100), 6, "250001"),       # was "250001.0": a 7th digit, wrong
    (sympy.Rational(-25000078, 100), 6, "-250001"),
    (sympy.Rational(25000078, 100), 7, "250000.8"),
    (sympy.Rational(1000004, 10), 6, "100000"),
    (sympy.Integer(123456), 3, "1.23e+5"),               # was "123000"
    (sympy.Rational(2469, 2), 3, "1.23e+3"),             # was "1230"
    (sympy.Rational(100000, 3), 6, "33333.3"),
])
def test_fixed_text_shows_only_correct_digits(value, dps, text):
    """Every digit shown is one of the value's first ``dps`` significant digits (checked
    against mpmath at 30 digits)."""
    assert format_number(value, dps) == text
    shown = sympy.Rational(text.replace("e+", "e"))
    assert abs(shown - value) <= sympy.Rational(1, 2) * 10 ** (sympy.floor(
        sympy.log(abs(value), 10)) - dps + 1)


@pytest.mark.parametrize("bad, kind", [
    (None, TypeError), ([1], TypeError), ("(", TypeError), ("abc", ValueError),
    (sympy.Symbol("x"), ValueError), (sympy.zoo, ValueError), (sympy.I, ValueError),
    (1 + sympy.I, ValueError)])
def test_a_value_that_is_not_a_real_number_is_a_one_line_error(bad, kind):
    """Before: sympy's and mpmath's own errors (``'NoneType' object has no attribute
    'evalf'``, ``cannot create mpf from mpc``), naming neither the function nor the value."""
    with pytest.raises(kind, match=r"^format_number: value must be a real number") as info:
        format_number(bad)
    assert "\n" not in str(info.value)
