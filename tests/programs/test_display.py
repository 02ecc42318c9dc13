"""A program's distribution shows the answer first: the number of outputs, the most likely
one with its probability (exact or certified decimals), in at most 200 characters."""

from __future__ import annotations

import sympy

import exactdp.answer
import exactdp.programs.display as D
from exactdp.answer import most_likely
from exactdp.programs import REAL, ProgramMechanism
from exactdp.programs import library as L
from exactdp.programs import library_release as LR
from exactdp.programs.display import (
    answer,
    answer_text,
    display_rows,
    distribution_html,
    distribution_latex,
    distribution_repr,
)

R = sympy.Rational


def test_the_repr_leads_with_the_most_likely_output_and_its_exact_probability():
    # svt1 on (1, 0, 2) with threshold 1: the first answer is above iff nu_1 >= rho, two
    # independent symmetric noises: probability exactly 1/2, the largest of the four
    # (the other three sum to 1/2 and each is positive)
    d = L.svt1(epsilon=R(1, 2), threshold=1).distribution([1, 0, 2])
    text = repr(d)
    assert text == ("ProgramDistribution(4 outputs, most likely (T, -, -) at 0.5 (exact: 1/2); "
                    "svt1(epsilon=1/2, threshold=1, c=1), n=3)")
    a = answer(d)
    assert a.count == 4 and a.top == (0,) and a.separated and a.why is None
    assert d.probabilities[0] == R(1, 2) and all(0 < p for p in d.evalf(20)[1:])


def test_equal_probabilities_are_told_as_ties():
    # report-noisy-max on three equal answers: 1/3 each, by symmetry
    d = L.noisy_max_laplace(epsilon=1).distribution([0, 0, 0])
    assert answer(d).top == (0, 1, 2)
    assert answer_text(d, "outputs") == ("3 outputs, most likely 0 and 2 more tied, each at "
                                         "0.333333 (exact: 1/3)")


def test_a_long_probability_shows_certified_decimals_never_beside_the_word_exact():
    d = L.noisy_max_laplace(epsilon=R(1, 2)).distribution(list(range(6)))
    text = repr(d)
    assert text.startswith("ProgramDistribution(6 outputs, most likely 5 at 0.")
    assert "exact" not in text and len(text) <= 200
    # the decimals are those of the exact probability (mpmath at 30 digits)
    shown = text.split(" at ")[1].split(";")[0]
    assert abs(sympy.N(d.probabilities[5], 30) - sympy.Float(shown, 30)) < 5e-7


def test_a_symbolic_epsilon_has_no_ranking():
    eps = sympy.Symbol("eps", positive=True)
    d = L.noisy_max_laplace(epsilon=eps).distribution([0, 1])
    assert repr(d) == ("ProgramDistribution(2 outputs, probabilities symbolic in epsilon; "
                       "noisy_max_laplace(epsilon=eps), n=2)")


def test_many_answers_are_not_traced_by_the_repr(monkeypatch):
    def refuse(self, sv):
        raise AssertionError("the repr traced the program")

    d = L.noisy_max_laplace(epsilon=R(1, 2)).distribution(list(range(400)))
    monkeypatch.setattr(ProgramMechanism, "trace", refuse)
    assert repr(d) == ("ProgramDistribution(probabilities not computed yet (.probabilities "
                       "computes them); noisy_max_laplace(epsilon=1/2), n=400)")


def test_a_costly_distribution_says_its_estimate_instead(monkeypatch):
    d = L.svt1(epsilon=1, threshold=0).distribution([0, 1])
    monkeypatch.setattr(D, "_seconds", lambda dist: 5.0)
    assert answer_text(d, "outputs") == ("3 outputs, probabilities not computed here (about "
                                         "5 s: .probabilities computes them)")
    monkeypatch.setattr(D, "_seconds", lambda dist: 1e9)
    assert answer_text(d, "outputs").startswith("3 outputs, probabilities refused (about 1e+09")
    assert "probabilities" not in d.__dict__


def test_undecided_maxima_are_told_as_not_separated(monkeypatch):
    monkeypatch.setattr(exactdp.answer, "sign_or_none", lambda e: None)
    d = L.noisy_max_laplace(epsilon=1).distribution([0, 0])
    probs = (sympy.exp(-1), sympy.exp(-1) * (1 + sympy.Rational(1, 10**30)))
    assert most_likely(probs) == ((0, 1), False)
    assert answer(d).top == (0, 1)  # proved equal (1/2 each): tied, not undecided


def test_the_program_call_is_cut_first_and_the_repr_stays_short():
    @__import__("exactdp.programs", fromlist=["program"]).program(sensitivity=1)
    def long_named_program_with_many_parameters(q, epsilon, a1, a2, a3, a4, a5, a6, a7, a8):
        return q[0] + LR.laplace(1 / epsilon) > a1

    m = long_named_program_with_many_parameters(
        epsilon=R(1, 3), **{f"a{i}": R(10**12 + i, 7) for i in range(1, 9)})
    text = distribution_repr(m.distribution([1]), "outputs")
    assert len(text) <= 200 and text.startswith("ProgramDistribution(2 outputs, most likely")
    assert text.endswith(", n=1)")


def test_a_release_shows_its_patterns_and_a_table():
    d = LR.laplace_mechanism(epsilon=1).distribution([3])
    assert repr(d) == ("ProgramRelease(1 pattern, most likely REAL at 1; "
                       "laplace_mechanism(epsilon=1), n=1)")
    assert d.outputs == (REAL,)
    rows = display_rows(d, "patterns")
    assert rows[0] == ("answer", "1 pattern, most likely REAL at 1") and rows[-1] == ("REAL", "1")
    assert distribution_latex(d, "patterns") == d._repr_latex_()
    assert d._repr_latex_() == (r"$\displaystyle \begin{aligned}\Pr[\mathrm{laplace\_mechanism}"
                                r"(q) = \text{REAL}] &= 1\end{aligned}$")
    html = distribution_html(d, "patterns")
    assert html == d._repr_html_() and "<table>" in html and "most likely REAL" in html


def test_a_release_s_latex_typesets_its_exact_probabilities():
    r"""Before, the exact values sat in ``\mathrm{...}`` as Python text
    (``-exp(-1/2)/6 + 2*exp(-1/4)/3``); now sympy's LaTeX, and the program's name escaped.
    GapSVT on (0, 1), threshold 1: P(REAL, -) = 2/3 e^(-1/4) - 1/6 e^(-1/2) (its repr's
    exact value)."""
    d = LR.gap_svt(epsilon=1, threshold=1).distribution([0, 1])
    tex = d._repr_latex_()
    assert r"\mathrm{gap\_svt}" in tex and "exp(" not in tex and "*" not in tex
    assert (r"\Pr[\mathrm{gap\_svt}(q) = \text{(REAL, -)}] &= - \frac{1}{6 e^{\frac{1}{2}}} + "
            r"\frac{2}{3 e^{\frac{1}{4}}}") in tex
    big = LR.gap_svt(epsilon=1, threshold=1).distribution([0] * 40)  # not cheap: the table
    assert r"\mathbf{ProgramRelease}" in big._repr_latex_()


def test_the_html_table_lists_the_first_outputs():
    d = L.svt1(epsilon=R(1, 2), threshold=1).distribution([1, 0, 2])
    rows = display_rows(d, "outputs")
    assert [r[0] for r in rows] == ["answer", "program", "answers q", "(T, -, -)", "(F, T, -)",
                                    "(F, F, T)", "(F, F, F)"]
    assert rows[3][1] == "0.5 (exact: 1/2)"
    many = L.svt1(epsilon=1, threshold=0).distribution([0] * 9)  # 10 outputs
    tail = display_rows(many, "outputs")[-1]
    assert tail == ("...", "2 more outputs") and len(display_rows(many, "outputs")) == 12
    assert "<caption" in d._repr_html_() and "(T, -, -)" in d._repr_html_()


def test_an_output_of_probability_zero_is_counted_not_listed():
    from exactdp.programs import laplace, program

    @program(adjacency="one")
    def impossible(q, epsilon):
        x = q[0] + laplace(1 / epsilon)
        if x > 0:
            return (True,)
        if x > 5:  # never: x <= 0 here
            return (None,)
        return (False,)

    d = impossible(epsilon=1).distribution([0])
    assert d.probabilities == (R(1, 2), R(1, 2), 0)  # Lap(1) > 0 or not, by symmetry
    rows = display_rows(d, "outputs")
    assert [r[0] for r in rows[3:]] == ["(T,)", "(F,)", ""]
    assert rows[-1] == ("", "(1 of probability 0 not shown)")
    assert repr(d).startswith("ProgramDistribution(3 outputs, most likely (T,) and 1 more "
                              "tied, each at 0.5 (exact: 1/2);")


def test_the_most_likely_is_decided_exactly_where_the_balls_overlap():
    # 1/3 + 10**-40 and 1/3: 20-digit balls overlap; the exact sign decides
    tiny = sympy.Rational(1, 10**40)
    probs = (sympy.Rational(1, 3), sympy.Rational(1, 3) + tiny, sympy.Rational(1, 3) - tiny)
    assert most_likely(probs) == ((1,), True)
    assert most_likely((sympy.exp(-1), sympy.exp(-1), sympy.Integer(0))) == ((0, 1), True)


def test_a_near_tie_at_one_half_shows_its_offset_not_a_rounded_one_half():
    # gap_svt at q = (d,), d = 1e-300, T = 0, epsilon = 1: the pattern (REAL,) has
    # P(nu - rho >= -d) with nu ~ Lap(a = 4), rho ~ Lap(b = 2); the difference's density
    # (a e^(-|x|/a) - b e^(-|x|/b)) / (2 (a^2 - b^2)) (a closed form, independent of the
    # integrator) gives P = 1/2 + (a^2 (1 - e^(-d/a)) - b^2 (1 - e^(-d/b))) / (2 (a^2 - b^2)),
    # about 1/2 + d/12. Before: "most likely (REAL,) at 0.5" beside a gap of 8e-302.
    import mpmath

    d = LR.gap_svt(epsilon=1, threshold=0).distribution([R(1, 10**300)])
    with mpmath.workdps(700):
        x, a, b = mpmath.mpf(10) ** -300, mpmath.mpf(4), mpmath.mpf(2)
        offset = (a**2 * -mpmath.expm1(-x / a) - b**2 * -mpmath.expm1(-x / b)) / (
            2 * (a**2 - b**2))
        want = f"0.5 + {mpmath.nstr(offset, 6)}"
    assert want == "0.5 + 8.33333e-302"
    assert f"most likely (REAL,) at {want};" in repr(d)
    assert ("(F,)", "0.5 - 8.33333e-302") in display_rows(d, "patterns")
