"""exactdp/result.py: one result protocol over every result type; reprs; notebook display."""

from __future__ import annotations

import pathlib
import re
import warnings
from fractions import Fraction

import flint
import mpmath
import pytest
import sympy

import exactdp
from exactdp.result import (
    REPR_LIMIT,
    Result,
    brief,
    interval_ball,
    number_text,
    set_text,
)

from .result_examples import SETUP, SOURCES, build

ROOT = pathlib.Path(__file__).resolve().parents[1]

#: The result types named by the protocol (docs/architecture.md, "The result protocol").
RESULT_TYPES = ("PrivacyLoss", "DPCheck", "DPCertificate", "ZCDPCheck", "BoundedRange",
                "Divergence", "SupremumResult", "HockeyStick", "EpsilonResult",
                "AccountantCheck", "RegularityCheck", "DominanceResult",
                "DominanceCertificate", "SensitivityResult", "WorstCaseError",
                "LatticeLPResult", "PFOptimalityRegion", "OptimalDistribution",
                "GoodnessOfFit", "SweepResult", "ProofResult", "SuiteRow", "LossSupremum",
                "ErrorRatioStudy", "CompositionBound", "LaplaceDPCertificate")


@pytest.fixture(scope="module")
def results() -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {name: build(name) for name in RESULT_TYPES}


def test_every_result_type_has_an_example():
    assert set(SOURCES) == set(RESULT_TYPES)


@pytest.mark.parametrize("name", RESULT_TYPES)
def test_protocol_members_with_their_types(results, name):
    r = results[name]
    assert type(r).__name__ == name and isinstance(r, Result)
    assert r.value is None or isinstance(r.value, sympy.Expr)
    assert r.ball is None or isinstance(r.ball, flint.arb)
    for bound in (r.lower, r.upper):
        assert bound is None or isinstance(bound, (Fraction, sympy.Rational)) or bound in (
            sympy.oo, -sympy.oo)
    assert isinstance(r.certified, bool)
    assert r.certified or isinstance(r.caveat, str)
    assert r.holds is None or isinstance(r.holds, bool)
    assert isinstance(r.summary(), str) and r.summary().count("\n") >= 1


@pytest.mark.parametrize("name", RESULT_TYPES)
def test_bounds_enclose_the_value_and_float_is_inside(results, name):
    r = results[name]
    if r.value is not None and r.value.is_finite:
        exact = sympy.N(r.value, 40)  # sympy's own evaluation, an independent route
        lo, hi = sympy.Rational(r.lower), sympy.Rational(r.upper)
        if r.value.is_Rational:
            assert lo == hi == r.value
        else:
            assert lo <= exact <= hi and hi - lo < abs(exact) * sympy.Rational(1, 10**15)
        assert float(r) == pytest.approx(float(exact), rel=1e-15, abs=1e-300)
    elif r.ball is not None:
        assert Fraction(r.lower) <= Fraction(r.upper)
        assert float(r.lower) <= float(r) <= float(r.upper)


@pytest.mark.parametrize("name", RESULT_TYPES)
def test_short_repr_leads_with_the_answer(results, name):
    text = repr(results[name])
    assert len(text) <= REPR_LIMIT, text
    assert text.startswith(name + "(")
    assert "Poly(" not in text and "UnitIntervalSign" not in text and "CRootOf" not in text


#: A decimal in a repr (``0.404016``, ``1.0e+300``, ``-2.5e-7``).
_DECIMAL = re.compile(r"(?<![\w.])-?\d+\.\d+(?:e[+-]\d+)?")


@pytest.mark.parametrize("name", RESULT_TYPES)
def test_no_rounded_value_beside_the_word_exact(results, name):
    """The developers' standard: a repr that says ``exact`` (``algorithm='exact'``,
    ``method='exact'``) shows each decimal with its exact form, labelled ``(rounded)`` or
    as a certified enclosure, or as the exact value itself."""
    text = repr(results[name])
    if "'exact'" not in text:
        return
    for m in _DECIMAL.finditer(text):
        after = text[m.end():]
        shown = after.startswith((" (exact: ", " (rounded)", " (certified")) or (
            after.startswith(" in [") or text[:m.start()].endswith(("[", ", ")) and
            "]" in after.split(",")[0])
        assert shown, (text, m.group())


def test_a_rounded_exact_value_beside_algorithm_exact_is_labelled():
    """PF(1) on [0, 1, 2] vs [1, 0, 1] composed 3 times: delta(0) is exact (every output
    sequence counted) but too long to print: 0.404016 (rounded), the digits checked against
    sympy's own evaluation of the exact value; the lattice LP's exact em_ratio likewise."""
    pld = exactdp.privacy_loss_distribution(exactdp.PermuteAndFlip(1), [0, 1, 2], [1, 0, 1])
    h = pld.self_compose(3).delta(0)
    assert repr(h) == ("HockeyStick(delta=0.404016 (rounded), epsilon=0, k=3, "
                       "algorithm='exact', certified)")
    assert abs(sympy.N(h.value, 30) - sympy.Rational(404016, 10**6)) < sympy.Rational(5, 10**7)
    assert r"0.404016\ \mathrm{(rounded)}" in h._repr_latex_()
    assert "0.404016 (rounded)" in h._repr_html_()
    lp = exactdp.lattice_lp(4, 2, sympy.log(sympy.Rational(3, 2)), method="exact")
    assert "method='exact'" in repr(lp) and "pf_ratio=1.001 (exact: 62848/62785)" in repr(lp)
    em = sympy.N(lp.em_ratio, 30)
    assert f"em_ratio={float(em):.6g} (rounded)" in repr(lp)


def test_named_reprs():
    r = build("DPCheck")
    assert repr(r) == ("DPCheck(holds=True, loss=1, epsilon=1, witness=(3,1,0)->(2,0,1) at "
                       "output 2, certified)")
    # 1/2 - 1/(2e) = 0.31606027941427883...
    assert repr(build("HockeyStick")).startswith("HockeyStick(delta=0.31606 (exact: 1/2 - "
                                                 "exp(-1)/2), epsilon=1")
    # eps* of the (3, 4) lattice: 0.57969998... (README, an exact algebraic number)
    assert repr(build("PFOptimalityRegion")).startswith("PFOptimalityRegion(eps*=0.5797, ")
    assert repr(build("PrivacyLoss")).startswith("PrivacyLoss(loss=0.0926959, output=0")
    # RNM3 at epsilon 1/10 on [1]*5 vs [2]*5: loss 1/4 (the suite's RNM3 row, docs/suite.md)
    assert repr(build("LossSupremum")) == (
        "LossSupremum(loss=0.25 (exact: 1/4), attained=True, "
        "witness='the pattern REAL with the value in (-oo, 1) (a constant ratio)', certified)")
    study = build("ErrorRatioStudy")
    assert repr(study).startswith(f"ErrorRatioStudy(ratio_of_means={study.ratio_of_means:.6g}, ")
    assert float(study) == study.ratio_of_means and study.value is None
    # delta(1) of PF(1) composed 3 times on (0,0) vs (-1,1): 0.2579242399305714...
    bound = build("CompositionBound")
    assert repr(bound).startswith("CompositionBound(delta=0.257924 (exact: ")
    assert bound.value == bound.delta.value and bound.lower <= bound.value <= bound.upper


def test_summary_holds_the_long_parts():
    cert = build("DPCertificate")
    assert "Poly(" in cert.summary() or "x**" in cert.summary()
    lp = build("LatticeLPResult")
    assert "solution" in lp.summary() and len(lp.summary()) > len(repr(lp))


def test_evalf_is_right_to_the_digits_asked_and_N_and_mpf_agree():
    h = build("HockeyStick")  # delta(1) = 1/2 - 1/(2e), PF(2) on [0, 0] vs [1, -1]
    want = sympy.Rational(1, 2) - sympy.exp(-1) / 2
    for dps in (15, 35, 80):
        got = h.evalf(dps)
        ref = sympy.N(want, dps + 20)
        assert abs(sympy.Float(got, dps + 20) - ref) <= abs(ref) * sympy.Float(10) ** (-dps)
    # sympy.N goes through the exact value, not float: 35 digits, all right
    n35 = sympy.N(h, 35)
    assert n35._prec > 100 and abs(n35 - sympy.N(want, 50)) < sympy.Float(10) ** -34
    with mpmath.workdps(50):
        assert abs(mpmath.mpf(h) - mpmath.mpf(1) / 2 + mpmath.exp(-1) / 2) < mpmath.mpf(10) ** -49


def test_results_without_an_exact_value_refuse_N_and_too_many_digits():
    eps = build("EpsilonResult")
    with pytest.raises(sympy.SympifyError, match="no exact value"):
        sympy.N(eps, 35)
    assert eps.ball is not None and eps.evalf(10) == pytest.approx(float(eps), rel=1e-9)
    with pytest.raises(ValueError, match="correct digits"):
        eps.evalf(200)  # the interval is about 1e-30 wide
    gauss = exactdp.privacy_loss(exactdp.GaussianNoisyMax(1), [0, 0], [1, 0])
    assert gauss.engine == "ball" and gauss.value is None and gauss.loss.is_Float
    assert gauss.ball is not None and gauss.lower < gauss.upper
    with pytest.raises(ValueError, match="correct digits"):
        gauss.evalf(200)
    sup = exactdp.sup_privacy_loss(exactdp.ReportNoisyMax(sympy.Rational(1, 2), noise="laplace"),
                                   lambda g: ((0, -g - 2), (-1, -g - 1)))
    assert sup.value is None and sup.lower == sympy.Rational(1, 2)  # the limit, exact
    with pytest.raises(ValueError, match="not proved"):
        float(sup)


def test_verdicts_and_float_headlines():
    fit = build("GoodnessOfFit")
    assert fit.holds == (fit.verdict == "consistent") and not fit.certified
    assert fit.value is None and float(fit) == fit.p_value
    wce = build("WorstCaseError")
    assert wce.value is None and float(wce) == float(wce.error)
    with pytest.raises(ValueError):
        wce.evalf(10)
    with pytest.raises(ValueError, match="absent or not proved"):
        float(build("RegularityCheck"))


def test_brief_and_number_text():
    assert number_text(sympy.Rational(1, 3)) == "0.333333 (exact: 1/3)"
    assert number_text(sympy.Integer(7)) == "7"
    assert number_text(sympy.oo) == "inf"
    assert brief(tuple(range(10))) == "(0, 1, 2, 3, 4, 5, ...)"
    b = interval_ball(Fraction(1, 4), Fraction(1, 2))
    assert b.lower() <= 0.25 and b.upper() >= 0.5


def test_sets_print_as_sets_with_their_brackets():
    half_open = sympy.Interval(0, 1, right_open=True)
    assert set_text(sympy.Interval.open(0, sympy.oo)) == "(0, oo)"
    assert set_text(sympy.Interval(sympy.Rational(1, 3), 2)) == "[1/3, 2]"
    assert set_text(sympy.Union(half_open, sympy.Interval.open(2, sympy.log(30)))) == (
        "[0, 1) U (2, log(30))")
    assert set_text(sympy.FiniteSet(1, sympy.Rational(1, 3))) == "{1/3, 1}"
    assert set_text(sympy.EmptySet) == "{}"
    assert brief(half_open) == number_text(half_open) == "[0, 1)"


def test_a_failing_certificate_prints_its_failing_epsilons():
    from exactdp.mechanisms.custom import WRONG_VARIANTS
    eps = sympy.Symbol("e", positive=True)
    c = exactdp.certify_dp(WRONG_VARIANTS["pf_coins_eps_over_delta"](eps), [0, 0, -1])
    assert c.holds is False
    assert c.failing_epsilon_intervals == sympy.Interval.open(0, sympy.oo)
    assert "holds=False" in repr(c) and "fails for epsilon in (0, oo)" in repr(c)
    assert "fails for epsilon in (0, oo)" in c.summary().splitlines()[0]
    assert r"(0,\ }\infty\mathrm{)" in c._repr_latex_()  # oo is the symbol, not two letters


# ---------------------------------------------------------------------------- notebook
@pytest.mark.parametrize("name", RESULT_TYPES)
def test_latex_display_is_compact_and_escaped(results, name):
    r = results[name]
    tex = r._repr_latex_()
    assert tex.startswith("$") and tex.endswith("$") and len(tex) < 3000
    assert "\\text{bounded\\_range}" not in tex and "\\texttt" not in tex


def test_accountant_display_prints_bounded_range_in_math():
    tex = build("AccountantCheck")._repr_latex_()
    assert "\\mathrm{bounded\\_range}" in tex


def test_rational_form_repr_and_display():
    form = exactdp.PermuteAndFlip(1).distribution([0, -1, -2]).rational_form()
    text = repr(form)
    assert len(text) <= REPR_LIMIT and "forms=" in text
    assert form._repr_latex_().startswith("$") and "x" in form._repr_latex_()


def test_a_notebook_of_every_result_type_displays_each_compactly():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    cells = [nbformat.v4.new_code_cell(f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
                                       "import warnings; warnings.simplefilter('ignore')\n"
                                       + SETUP)]
    cells += [nbformat.v4.new_code_cell(SOURCES[name]) for name in RESULT_TYPES]
    cells.append(nbformat.v4.new_code_cell(
        "exactdp.PermuteAndFlip(1).distribution([0, -1, -2]).rational_form()"))
    nb = nbformat.v4.new_notebook(cells=cells)
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT)}}).execute()
    names = (*RESULT_TYPES, "RationalForm")
    for name, cell in zip(names, nb.cells[1:], strict=True):
        data = [o["data"] for o in cell.outputs if o.get("output_type") == "execute_result"]
        assert len(data) == 1, (name, cell.outputs)
        rich = data[0].get("text/latex") or data[0].get("text/html")
        assert rich and len(rich) < 3000, (name, data[0])
        assert len(data[0]["text/plain"]) <= REPR_LIMIT, (name, data[0]["text/plain"])
        assert data[0]["text/plain"].startswith(name + "("), name


def test_a_new_result_gets_the_protocol_by_declaration():
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Ratio(Result):
        headline = "ratio"
        repr_fields = ("note",)
        ratio: sympy.Expr
        note: str = "hand-made"

    r = Ratio(sympy.sqrt(2))
    assert r.value == sympy.sqrt(2) and r.holds is None and r.certified and r.caveat is None
    # sqrt 2 = 1.41421356237309504880168872420969807856967187537694...
    assert mpmath.nstr(r.evalf(50), 50) == "1.4142135623730950488016887242096980785696718753769"
    assert r.lower < sympy.sqrt(2) < r.upper and float(r) == 2 ** 0.5
    assert repr(r) == "Ratio(ratio=1.41421 (exact: sqrt(2)), note='hand-made', certified)"
    assert "\n  ratio: sqrt(2)\n" in r.summary()
    assert "\\sqrt{2} \\approx 1.41421" in r._repr_latex_()


def test_symbolic_headlines_say_so():
    eps = sympy.Symbol("epsilon", positive=True)
    loss = exactdp.privacy_loss(exactdp.PermuteAndFlip(eps), [0, 1], [1, 0])
    assert loss.value.free_symbols and loss.ball is None
    with pytest.raises(ValueError, match="symbolic"):
        float(loss)
    with pytest.raises(ValueError, match="symbolic"):
        loss.evalf(10)
    assert "epsilon" in repr(loss) and len(repr(loss)) <= REPR_LIMIT


def test_summary_of_a_property_headline_shows_the_exact_value():
    h = build("HockeyStick")
    assert h.summary().splitlines()[1] == "  value: 1/2 - exp(-1)/2"  # delta(1), exact


def test_protocol_hooks_of_a_dp_check_and_an_epsilon_interval():
    """The hooks every repr and notebook cell is built from: a check_dp of PF(1) on [3,1,0]
    (loss exactly 1: ratio e at output 2) and an epsilon interval of a PLD."""
    r = exactdp.check_dp(exactdp.PermuteAndFlip(1), [3, 1, 0])
    assert r.headline_text() == "1"
    assert r.repr_parts() == ["epsilon=1", "witness=(3,1,0)->(2,0,1) at output 2"]
    rows = dict(r.display_rows())
    assert rows[r"\mathrm{holds}"] == r"\mathrm{yes}" and rows[r"\mathrm{loss}"] == "1"
    assert r.enclosure() is None  # an exact loss needs no enclosure
    pld = exactdp.privacy_loss_distribution(exactdp.PermuteAndFlip(1), [0, 0], [1, -1])
    e = pld.epsilon(sympy.Rational(1, 10))
    ball = e.enclosure()
    lo, hi = (flint.fmpq(f.numerator, f.denominator) for f in (e.lower, e.upper))
    assert ball.contains(flint.arb(lo)) and ball.contains(flint.arb(hi))
    # the interval brackets the inverse: delta(lower) >= 1/10 >= delta(upper)
    assert pld.delta(e.lower).upper >= sympy.Rational(1, 10) >= pld.delta(e.upper).lower


@pytest.mark.parametrize("name", RESULT_TYPES)
def test_every_result_has_a_repr_of_at_most_200_characters_and_an_html_table(results, name):
    """Built from a small real call each (tests/result_examples.py): the repr leads with the
    answer in at most 200 characters; ``_repr_html_`` is a small escaped HTML table (HTML
    exported from a notebook shows it offline)."""
    r = results[name]
    assert REPR_LIMIT == 200 and len(repr(r)) <= 200, repr(r)
    page = r._repr_html_()
    assert page.startswith("<table>") and page.endswith("</table>") and len(page) < 3000
    assert f"<b>{name}</b>" in page and "$" not in page and "\\mathrm" not in page
    rows = r.text_rows()
    assert page.count("<tr>") == len(rows) and rows[-1][0] == "status"
    if r.holds is not None:
        assert rows[0] == ("holds", "yes" if r.holds else "NO")


def test_html_rows_of_a_dp_check_hold_its_numbers():
    r = build("DPCheck")  # PF(1) on [3, 1, 0]: loss exactly 1 (test_named_reprs)
    assert r.text_rows() == [("holds", "yes"), ("loss", "1"), ("epsilon", "1"),
                             ("witness", "(3,1,0)->(2,0,1) at output 2"),
                             ("status", "certified")]
    assert "<td style=\"text-align:left\">(3,1,0)-&gt;(2,0,1) at output 2</td>" in r._repr_html_()


def test_a_long_text_field_is_cut_inside_its_quotes():
    from exactdp.result import brief

    assert brief("abc") == "'abc'"
    cut = brief("the pattern REAL with the value in (-oo, 0) (one input only)")
    assert cut == "'the pattern REAL with the value in ...'"
    assert len(cut) <= 40


def test_ball_text_shows_a_wide_ball_as_its_ends():
    """A certified bracket [0.470, 0.500] (one right digit) is printed as its ends, not as
    the rounded midpoint 0.5; a narrow ball as its right decimals."""
    import flint

    from exactdp.result import ball_text

    assert ball_text(flint.arb("0.485", "0.0149")) == "[0.470, 0.500]"
    assert ball_text(flint.arb("0.485", "0.0001")) == "0.485"


def test_certified_text_calls_a_wide_ball_a_bracket_with_outward_ends():
    """A ball with two right digits is a ball around its decimals; a wider one a bracket
    whose printed ends contain it (0.4701 prints 0.470, never the nearest 0.47 rounded
    up)."""
    import flint

    from exactdp.result import certified_text

    assert certified_text(flint.arb(0.75, 2.0**-20)) == "0.75 (certified ball)"
    # radius 1/16 is held rounded up (arb's 30-bit radius: 1/16 + 2**-33), so the ends
    # are just outside 0.4375 and 0.5625, and print outside them
    assert certified_text(flint.arb(0.5, 0.0625)) == "[0.437499, 0.562501] (certified bracket)"
    # ends 1/3 - 1/8 = 0.208333... and 1/3 + 1/8 = 0.458333...: outward, never to nearest
    third = flint.arb(1) / 3
    text = certified_text(flint.arb(third.mid(), 0.125))
    assert text == "[0.208333, 0.458334] (certified bracket)"


def test_brief_keeps_a_one_tuple_a_tuple():
    # randomized response's output (0,) printed as "(0)", the integer in parentheses
    from exactdp.result import brief

    assert brief((0,)) == "(0,)" and brief((True, None)) == "(True, None)"
    assert brief([1]) == "(1)"  # a list keeps the plain form
    assert brief(((False,),)) == "((False,),)"
