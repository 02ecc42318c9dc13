"""What a distribution's repr leads with: the most likely output decided by balls and exact
signs, told in words; checked against probabilities known by hand (symmetry, closed forms)."""

from __future__ import annotations

import sympy

from exactdp import (
    ExponentialMechanism,
    GaussianNoisyMax,
    PermuteAndFlip,
    ReportNoisyMax,
    SparseVector,
    TopK,
)
from exactdp.answer import (
    ANSWER_CHARS,
    CALL_CHARS,
    REPR_OUTPUTS,
    TABLE_OUTPUTS,
    Answer,
    answer_line,
    answer_rows,
    cheap,
    lead_repr,
    most_likely,
    notebook_latex,
    ranked,
    shipped_answer,
    shipped_html,
    shipped_latex,
    shipped_repr,
    shipped_rows,
)
from exactdp.result import REPR_LIMIT

R = sympy.Rational


def test_most_likely_decides_ties_exactly_and_by_balls():
    assert most_likely([R(1, 4), R(1, 2), R(1, 4)]) == ((1,), True)
    assert most_likely([R(1, 3)] * 3) == ((0, 1, 2), True)
    # equal values in different forms: proved equal by exact algebra, not by balls
    a = sympy.exp(-1) / (1 + sympy.exp(-1))
    b = 1 / (1 + sympy.E)
    assert most_likely([a, b, R(1, 10)]) == ((0, 1), True)
    # differing at the 30th digit: the balls overlap, the exact sign decides
    tiny = R(1, 10**30)
    assert most_likely([R(1, 2) - tiny, R(1, 2) + tiny]) == ((1,), True)


def test_ranked_says_why_when_symbolic():
    e = sympy.Symbol("epsilon", positive=True)
    a = ranked(2, (1 / (1 + sympy.exp(e)), 1 - 1 / (1 + sympy.exp(e))))
    assert a.top == () and a.why == "symbolic in epsilon"


def test_answer_line_tells_the_answer_in_words():
    assert answer_line(ranked(2, (R(1, 3), R(2, 3))), "outputs", str) == (
        "2 outputs, most likely 1 at 0.666667 (exact: 2/3)")
    assert answer_line(ranked(3, (R(1, 3),) * 3), "outputs", str) == (
        "3 outputs, most likely 0 and 2 more tied, each at 0.333333 (exact: 1/3)")
    assert answer_line(Answer(5, None, why="refused: x"), "outputs", str) == (
        "5 outputs, probabilities refused: x")
    assert answer_line(Answer(1, (R(1),), (0,)), "patterns", str).startswith("1 pattern,")


def test_shipped_answer_against_closed_forms():
    # EM on (0, 0, 1): exp(eps q_r / 2) normalised, 1 / (1 + 2 e^(-1/2)) for the top output
    a = shipped_answer(ExponentialMechanism(1).distribution([0, 0, 1]))
    top = 1 / (1 + 2 * sympy.exp(R(-1, 2)))
    assert a.count == 3 and a.top == (2,) and sympy.simplify(a.probabilities[2] - top) == 0
    # report-noisy-max with Laplace noise on equal scores: 1/2 each, by symmetry
    a = shipped_answer(ReportNoisyMax(1, noise="laplace").distribution([5, 5]))
    assert a.top == (0, 1) and a.separated and sympy.simplify(a.probabilities[0] - R(1, 2)) == 0
    # no closed form: said, not computed
    a = shipped_answer(GaussianNoisyMax(1).distribution([1, 0]))
    assert a.probabilities is None and "closed form" in a.why
    # past the outputs a repr computes: not computed, unless already computed
    d = ExponentialMechanism(1).distribution(list(range(REPR_OUTPUTS + 1)))
    assert shipped_answer(d).probabilities is None
    tuple(d.probabilities)
    assert shipped_answer(d).top == (REPR_OUTPUTS,)


def test_shipped_reprs_lead_with_the_answer():
    pf = repr(PermuteAndFlip(1).distribution([3, 1, 0]))
    assert pf.startswith("OutputDistribution(3 outputs, most likely 0 at 0.731857 (exact: ")
    assert pf.endswith(", n=3)") and len(pf) <= REPR_LIMIT
    top = repr(TopK(PermuteAndFlip(1), 2).distribution([3, 1, 0]))
    assert top.startswith("TopKDistribution(6 outputs, most likely (0, 1) at ")
    svt = repr(SparseVector(1, 0).distribution([3, 1, 0]))
    assert svt.startswith("SparseVectorDistribution(4 outputs, most likely (T, -, -) at ")
    release = repr(SparseVector(1, 0, variant=3).distribution([3, 1, 0]))
    assert release.startswith("SparseVectorRelease(4 patterns, most likely (T, -, -) at ")
    d = PermuteAndFlip(1).distribution([3, 1, 0])
    assert shipped_repr(d, "D", "M", "n=3").startswith("D(3 outputs, most likely 0 at ")


def test_lead_repr_cuts_the_call_to_the_limit():
    text = lead_repr("D", "2 outputs", "M(" + "x" * 500 + ")", "n=2")
    assert len(text) <= REPR_LIMIT and text.startswith("D(2 outputs; M(xxx") and text.endswith(
        ", n=2)")
    # a long answer is cut first (its exact part dropped, then "..."), leaving the call
    # CALL_CHARS; the same cut for the shipped distributions and the programs'
    long = "3 outputs, most likely " + "y" * 150 + " at 0.5 (exact: 1/2)"
    text = lead_repr("D", long, "M(" + "x" * 500 + ")", "n=2")
    answer, call = text[2:].split("; ")
    assert len(text) <= REPR_LIMIT and answer.endswith("y...") and "exact" not in answer
    assert len(call) >= CALL_CHARS and call.endswith("...), n=2)")
    assert lead_repr("D", long, "M()", "n=2") == f"D({long[:ANSWER_CHARS - 3]}...; M(), n=2)"


def test_a_large_distribution_s_repr_decides_nothing_costly(monkeypatch):
    """SVT6 on 11 answers: 2048 outputs; deciding its capabilities integrates every run
    (6.7 s CPU): the repr says "not computed" from the count alone."""
    d = SparseVector(1, 1, variant=6).distribution(list(range(11)))

    def costly(self):
        raise AssertionError("the repr asked for the capabilities")

    monkeypatch.setattr(type(d), "capabilities", property(costly))
    assert repr(d).startswith("SparseVectorDistribution(2048 outputs, probabilities not "
                              "computed here")


def test_a_top_k_label_names_its_noise_once():
    d = TopK(ReportNoisyMax(1, noise="laplace"), 2).distribution([3, 1, 0])
    assert repr(d).endswith("; top-2 one-shot RNM-Laplace, n=3, k=2)")


def test_answer_rows_list_the_first_outputs_and_count_the_rest():
    a = ranked(3, (R(1, 2), R(1, 2), R(0)))
    rows = answer_rows(a, "outputs", lambda i: f"o{i}", [("mechanism", "M")])
    assert rows == [("answer", "3 outputs, most likely o0 and 1 more tied, each at 0.5 "
                     "(exact: 1/2)"), ("mechanism", "M"), ("o0", "0.5 (exact: 1/2)"),
                    ("o1", "0.5 (exact: 1/2)"), ("", "(1 of probability 0 not shown)")]
    many = ranked(TABLE_OUTPUTS + 2, (R(1, TABLE_OUTPUTS + 2),) * (TABLE_OUTPUTS + 2))
    tail = answer_rows(many, "outputs", str, [])
    assert len(tail) == 1 + TABLE_OUTPUTS + 1 and tail[-1] == ("...", "2 more outputs")
    # not computed: the answer row says why, no output rows
    assert answer_rows(Answer(5, None, why="refused: x"), "outputs", str, []) == [
        ("answer", "5 outputs, probabilities refused: x")]


def test_shipped_tables_show_the_answer_the_mechanism_and_the_outputs():
    # the sparse vector at q_1 = T: symmetric noises, each output 1/2
    d = SparseVector(1, threshold=1).distribution([1])
    rows = shipped_rows(d)
    assert [r[0] for r in rows] == ["answer", "mechanism", "answers q", "(T,)", "(F,)"]
    assert rows[1][1] == repr(d.mechanism) and rows[2][1] == "(1,)"
    assert rows[3][1] == rows[4][1] == "0.5 (exact: 1/2)"
    assert "<b>D</b>" in shipped_html(d, "D") and "(T,)" in shipped_html(d, "D")
    assert shipped_latex(d, "D").startswith(r"$\begin{array}{ll} \mathbf{D}")


def test_a_near_certain_answer_never_reads_as_a_rounded_one():
    """EM and PF at scores ``[10**6, 0]``: the most likely output's probability is
    ``1 - p`` with ``p`` the other output's, ``exp(-500000)/(1 + exp(-500000))`` for EM
    and ``exp(-500000)/2`` for PF (closed forms); both lines show ``1 - `` those digits."""
    for mech, other in ((ExponentialMechanism(1), "5.7418e-217148"),
                        (PermuteAndFlip(1), "2.8709e-217148")):
        text = repr(mech.distribution([10**6, 0]))
        assert f"most likely 0 at 1 - {other} (exact: " in text, text
        assert " at 1.0 " not in text


def test_cheap_and_notebook_latex_decide_from_the_count():
    """Up to REPR_OUTPUTS outputs the LaTeX display is the full table; past them the
    answer's table, without asking for any probability (the full table would raise)."""
    small = ExponentialMechanism(sympy.sympify("2*log(2)")).distribution([0, 0, 1])
    assert cheap(small) and notebook_latex(small, "D", lambda d: "T") == "$\\displaystyle T$"
    big = PermuteAndFlip(1).distribution(list(range(REPR_OUTPUTS + 1)))
    assert not cheap(big)
    text = notebook_latex(big, "D", lambda d: 1 / 0)
    assert text == shipped_latex(big, "D") and "not computed" in text.replace("\\ ", " ")
    assert len(big.probabilities) == REPR_OUTPUTS + 1  # computed now: the table is cheap
    assert cheap(big) and notebook_latex(big, "D", lambda d: "T") == "$\\displaystyle T$"


def test_a_shipped_latex_table_typesets_the_exact_value():
    """SparseVector's LaTeX showed sympy's Python text in ``\\mathrm`` (``-exp(-1/2)/6 +
    2*exp(-1/4)/3``); now sympy's LaTeX of the same value (parsed back from the repr's text:
    P(T, -) = 2/3 e^(-1/4) - 1/6 e^(-1/2) for SVT1 on (0, 1), threshold 1)."""
    import exactdp
    from exactdp.answer import exact_latex

    tex = exactdp.SparseVector(1, 1, variant=1).distribution([0, 1])._repr_latex_()
    assert "exp(" not in tex and "*" not in tex
    assert (r"\left(\text{exact: } - \frac{1}{6 e^{\frac{1}{2}}} + \frac{2}{3 e^{\frac{1}{4}}}"
            r"\right)") in tex
    assert exact_latex("0.5 (exact: 1/2)") == (r"\mathrm{0.5\ } \left(\text{exact: } "
                                               r"\frac{1}{2}\right)")
    assert exact_latex("no exact part") == r"\mathrm{no\ exact\ part}"
    assert exact_latex("x (exact: ((( )") == r"\mathrm{x\ (exact:\ (((\ )}"  # unparsable: as text
