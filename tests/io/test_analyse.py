"""``exactdp analyse PATH.py:NAME``: a user's program from the command line."""

from __future__ import annotations

import re
import textwrap

import mpmath
import pytest
import sympy

from exactdp import SparseVector
from exactdp.io.analyse import load_program, parse_params
from exactdp.io.cli import main

SOURCE = textwrap.dedent('''
    from exactdp.programs import program, laplace

    @program(sensitivity=1)
    def svt1(q, epsilon, threshold, c=1):
        rho = laplace(2 / epsilon)
        out, count = [], 0
        for a in q:
            if count == c:
                out.append(None)
            elif a + laplace(4 * c / epsilon) >= threshold + rho:
                out.append(True)
                count += 1
            else:
                out.append(False)
        return tuple(out)

    not_a_program = 3
''')


@pytest.fixture
def user_file(tmp_path):
    path = tmp_path / "my_svt.py"
    path.write_text(SOURCE)
    return path


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_errors_are_one_line(capsys, user_file, tmp_path):
    cases = [
        ((f"{user_file}:nope", "--param", "epsilon=1", "--scores", "1"), "defines no 'nope'"),
        ((f"{user_file}:not_a_program", "--param", "epsilon=1", "--scores", "1"),
         "is not a program"),
        ((f"{tmp_path}/none.py:svt1", "--param", "epsilon=1", "--scores", "1"), "no file"),
        (("my_svt:svt1", "--param", "epsilon=1", "--scores", "1"), "expected PATH.py:NAME"),
        ((f"{user_file}:svt1", "--param", "epsilon=1", "--scores", "1"),
         "missing parameter 'threshold'"),
        ((f"{user_file}:svt1", "--param", "epsilon", "--scores", "1"),
         "expected NAME=VALUE"),
        ((f"{user_file}:svt1", "--param", "epsilon=1", "--param", "threshold=1",
          "--param", "d=1", "--scores", "1"), "unknown parameter 'd'"),
    ]
    for argv, text in cases:
        code, out, err = run(capsys, "analyse", *argv)
        assert code == 2 and out == ""
        assert text in err and err.count("\n") == 1, err


def test_load_and_params(user_file):
    prog = load_program(f"{user_file}:svt1")
    assert prog.name == "svt1"
    assert parse_params(["epsilon=1/2", "c = 2"]) == {"epsilon": "1/2", "c": "2"}
    with pytest.raises(ValueError, match="given twice"):
        parse_params(["c=1", "c=2"])


def test_probabilities_and_the_loss_on_a_pair(capsys, user_file):
    code, out, err = run(capsys, "analyse", f"{user_file}:svt1", "--param", "epsilon=1/2",
                         "--param", "threshold=1", "--scores", "2,0",
                         "--neighbour-scores", "1,1")
    assert code == 0, err
    d = SparseVector(sympy.Rational(1, 2), 1).distribution([2, 0])
    for p in d.probabilities:
        assert str(p) in out
    assert "privacy loss on q' = (1, 1)" in out
    assert "verdict: within epsilon = 1/2 on this pair" in out


@pytest.mark.parametrize("fmt", ["markdown", "latex"])
def test_formats(capsys, user_file, fmt):
    code, out, err = run(capsys, "analyse", f"{user_file}:svt1", "--param", "epsilon=1/2",
                         "--param", "threshold=1", "--scores", "2", "--neighbour-scores", "1",
                         "--format", fmt)
    assert code == 0, err
    assert ("| output | probability | decimal |" in out) if fmt == "markdown" else (
        r"\begin{tabular}{lll}" in out)


LEAKY = textwrap.dedent("""
    from exactdp.programs import program, laplace

    @program(adjacency="one")
    def leaky_test(q, epsilon):
        return q[0] + laplace(1 / (10 * epsilon)) > 0
""")


@pytest.fixture
def leaky_file(tmp_path):
    path = tmp_path / "leaky.py"
    path.write_text(LEAKY)
    return path


def test_the_whole_output_is_formatted(capsys, leaky_file):
    # markdown: code spans, bold verdicts, one paragraph each, a blank line after the table
    argv = ("analyse", f"{leaky_file}:leaky_test", "--param", "epsilon=1/2", "--scores", "0")
    code, out, err = run(capsys, *argv, "--neighbour-scores", "1", "--format", "markdown")
    assert code == 1, err
    assert out.startswith("`leaky_test(epsilon=1/2)` on q = (0)\n\n| output |")
    assert "| F | `1/2` | 0.5 |\n\nprivacy loss on q' = (1): `5`" in out
    assert "at output `F`\n\n**verdict: VIOLATES** epsilon = `1/2` on this pair" in out
    # LaTeX: every part, the table and the witness included, with escaped text
    code, out, err = run(capsys, *argv, "--format", "latex")
    assert code == 1, err
    assert out.startswith(r"\texttt{leaky\_test(epsilon=1/2)} on $q = (0)$")
    assert r"(exhaustive, one score moves (adjacency 'one'): +-e\_r; vertices only" in out
    assert r"non-linearly)): $5$" in out
    assert (r"\textbf{verdict:} $\varepsilon = \frac{1}{2}$ \textbf{VIOLATED}; witness: "
            r"$q = (0)$, $q' = (1)$, output \texttt{F}") in out
    _compiles(out)


def _compiles(fragment: str) -> None:
    """The LaTeX fragment compiles in a minimal article (skipped without pdflatex)."""
    import shutil
    import subprocess
    import tempfile

    if shutil.which("pdflatex") is None:
        return
    with tempfile.TemporaryDirectory() as tmp:
        doc = f"\\documentclass{{article}}\\begin{{document}}\n{fragment}\n\\end{{document}}\n"
        with open(f"{tmp}/a.tex", "w") as fh:
            fh.write(doc)
        done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                               "a.tex"], cwd=tmp, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout[-2000:]


def test_the_exit_status_says_the_verdict(capsys, user_file, leaky_file):
    # 0: holds; 1: violated (on the pair, or over the neighbours searched); 2: usage errors
    svt = (f"{user_file}:svt1", "--param", "epsilon=1/2", "--param", "threshold=1")
    assert run(capsys, "analyse", *svt, "--scores", "2", "--neighbour-scores", "1")[0] == 0
    assert run(capsys, "analyse", *svt, "--scores", "2")[0] == 0
    leaky = (f"{leaky_file}:leaky_test", "--param", "epsilon=1/2", "--scores", "0")
    assert run(capsys, "analyse", *leaky, "--neighbour-scores", "1")[0] == 1
    code, out, _ = run(capsys, "analyse", *leaky)
    assert code == 1 and "verdict: epsilon = 1/2 VIOLATED; witness: q = (0), q' = (1)" in out
    code, out, err = run(capsys, "analyse", *leaky, "--neighbour-scores", "1,2")
    assert code == 2 and out == "" and err.count("\n") == 1
    with pytest.raises(SystemExit) as info:  # argparse's own usage error
        main(["analyse", f"{leaky_file}:leaky_test", "--format", "html", "--scores", "0"])
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        main(["analyse", "--help"])
    assert info.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Exit status: 0 when the verdict holds" in out and "1 when it is violated" in out


def test_the_neighbour_search_and_its_witness(capsys, user_file):
    code, out, err = run(capsys, "analyse", f"{user_file}:svt1", "--param", "epsilon=1/2",
                         "--param", "threshold=1", "--scores", "2,0,1")
    assert code == 0, err
    assert "largest privacy loss over 26 neighbours" in out
    assert "verdict: epsilon = 1/2 holds; witness: q = (2, 0, 1), q' = (3, 1, 0), output " \
        "(F, F, T)" in out


def test_a_program_s_own_modules_import_as_under_python(tmp_path, monkeypatch):
    # `python sub/p.py` finds sub/helper.py; so does `exactdp analyse sub/p.py:NAME`
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "threshold_helper_mod.py").write_text("T = 0\n")
    (sub / "p.py").write_text(textwrap.dedent("""
        from threshold_helper_mod import T
        from exactdp.programs import program, laplace

        @program(adjacency="one")
        def above(q, epsilon):
            return q[0] + laplace(1 / epsilon) > T
    """))
    monkeypatch.chdir(tmp_path)
    # P(0 + Lap(1) > 0) = 1/2
    assert load_program("sub/p.py:above")(epsilon=1).distribution([0]).probabilities == (
        sympy.Rational(1, 2), sympy.Rational(1, 2))


def test_a_pair_that_violates_epsilon_says_so(capsys, tmp_path):
    # a threshold test with Lap(1/(10 eps)) noise at eps = 1/2: the answer moving from 0 to 1
    # moves P(above) from 1/2 to 1 - e^-5/2, a loss of 5 > 1/2, decided exactly
    path = tmp_path / "leaky.py"
    path.write_text(textwrap.dedent("""
        from exactdp.programs import program, laplace

        @program(adjacency="one")
        def leaky(q, epsilon):
            return q[0] + laplace(1 / (10 * epsilon)) > 0
    """))
    code, out, err = run(capsys, "analyse", f"{path}:leaky", "--param", "epsilon=1/2",
                         "--scores", "0", "--neighbour-scores", "1")
    assert code == 1, err  # the exit status of a violated verdict
    assert "privacy loss on q' = (1): 5 at output" in out
    assert "verdict: VIOLATES epsilon = 1/2 on this pair" in out


GAP = '''
from exactdp.programs import program, laplace


@program(sensitivity=1, output="release")
def gap(q, epsilon, threshold):
    rho = laplace(2 / epsilon)
    v = q[0] + laplace(4 / epsilon)
    if v >= threshold + rho:
        return (v - threshold - rho,)
    return (False,)
'''


def test_a_release_program_prints_its_patterns_decimals(capsys, tmp_path):
    # P(q + Lap(8) >= T + Lap(4)) at q = T is 1/2 by symmetry: each pattern 1/2 = 0.5
    path = tmp_path / "gap_prog.py"
    path.write_text(GAP)
    code = main(["analyse", f"{path}:gap", "--param", "epsilon=1/2", "--param", "threshold=1",
                 "--scores", "1", "--neighbour-scores", "2"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.splitlines()[0] == "gap(epsilon=1/2, threshold=1) on q = (1)"
    # a 1-tuple reads as one (before: "(F)" and "(REAL)")
    assert "(F,)     1/2  (0.5)" in out and "(REAL,)  1/2  (0.5)" in out


IMPOSSIBLE = '''
from exactdp.programs import laplace, program

@program(adjacency="one")
def impossible(q, epsilon):
    x = q[0] + laplace(1 / epsilon)
    if x > 0:
        return (True,)
    if x > 5:
        return (None,)
    return (False,)
'''


def test_an_output_that_cannot_happen_is_not_a_row(capsys, tmp_path):
    # (None,) needs x <= 0 and x > 5: probability exactly 0, kept in outputs, not printed
    path = tmp_path / "impossible_prog.py"
    path.write_text(IMPOSSIBLE)
    code, out, err = run(capsys, "analyse", f"{path}:impossible", "--param", "epsilon=1",
                         "--scores", "0", "--neighbour-scores", "1")
    assert code == 0, err
    assert "(T,)  1/2  (0.5)" in out and "(F,)  1/2  (0.5)" in out
    assert "(-,)" not in out and "(1 output of probability 0 not shown)" in out


def test_a_release_program_at_1e300_prints_a_short_page(capsys, tmp_path):
    # svt34_parallel at a score of 1e300: the page held every 300-digit exponent (105,843
    # characters) and the bracketed loss ended in "compare: value must be exact"
    path = tmp_path / "svt34_prog.py"
    path.write_text("from exactdp.programs.library_release import svt34_parallel\n")
    code = main(["analyse", f"{path}:svt34_parallel", "--param", "epsilon=1",
                 "--scores", "1e300,0", "--neighbour-scores", "1e300,1"])
    out = capsys.readouterr().out
    assert code == 0 and len(out) < 10_000
    assert out.splitlines()[0] == ("svt34_parallel(epsilon=1, threshold=1, c=2) on "
                                   "q = (1.0e+300, 0)")
    loss = next(line for line in out.splitlines() if line.startswith("privacy loss"))
    assert "q' = (1.0e+300, 1): in [" in loss and "(certified)" in loss and len(loss) < 400
    # the bracket's upper end is the translation bound 1/2 (docstring: at most the sum of
    # the two parts' losses)
    assert "0.5] (certified)" in loss
    assert "verdict: within epsilon = 1 on this pair" in out


def test_a_witness_reached_on_the_neighbour_only_is_printed_by_itself(capsys, tmp_path):
    # q = (0,) reaches False only; q' = (1,) reaches None (Lap >= 0: 1/2) or False (1/2):
    # over the union (False, None) the output None has probability 0 on q and 1/2 on q',
    # an infinite loss; its index (1) is past q's one output, so it is named by itself
    path = tmp_path / "gate.py"
    path.write_text(textwrap.dedent("""
        from exactdp.programs import program, laplace

        @program(adjacency="one", domain=(0, 1))
        def gate(q, epsilon):
            if q[0] == 1 and laplace(1 / epsilon) >= 0:
                return None
            return False
    """))
    code, out, err = run(capsys, "analyse", f"{path}:gate", "--param", "epsilon=1",
                         "--scores", "0", "--neighbour-scores", "1")
    assert code == 1, err
    assert "privacy loss on q' = (1): oo at output -" in out
    code, out, err = run(capsys, "analyse", f"{path}:gate", "--param", "epsilon=1",
                         "--scores", "0")
    assert code == 1, err
    assert "witness: q = (0), q' = (1), output -" in out


def test_latex_cuts_a_long_probability_at_a_term_in_math_mode(capsys, user_file):
    # a cut expression printed as escaped LaTeX source in \texttt ("\textbackslash{}frac")
    code, out, _ = run(capsys, "analyse", f"{user_file}:svt1", "--param", "epsilon=1/3",
                       "--param", "threshold=1", "--param", "c=2", "--scores", "2,0,1,3",
                       "--neighbour-scores", "1,1,2,2", "--format", "latex")
    assert code == 0 and "textbackslash" not in out and "..." not in out
    row = next(line for line in out.splitlines() if line.startswith("(T, T, -, -) & $"))
    math = row.split("$")[1]
    assert math.endswith(r" + \dots") and math.count("{") == math.count("}")
    # its terms are the leading terms of the exact probability's LaTeX
    from exactdp.io.analyse import load_program

    p = load_program(f"{user_file}:svt1")(epsilon=sympy.Rational(1, 3), threshold=1, c=2)
    exact = p.distribution([2, 0, 1, 3]).pmf((True, True, None, None))
    assert sympy.latex(exact).startswith(math[: -len(r" + \dots")])
    loss = next(line for line in out.splitlines() if line.startswith("privacy loss"))
    assert r"$\log{\left(\frac{" in loss and "texttt{(T, F, F, T)}" in loss


def test_an_integer_loss_is_printed_once_and_a_huge_epsilon_shortly(capsys, user_file):
    """A fresh user's trial: ``0 = 0``, ``oo = oo``, ``1 = 1.00000000000000`` and a
    400-digit epsilon in the verdict line."""
    code, out, err = run(capsys, "analyse", f"{user_file}:svt1", "--param", "epsilon=1e400",
                         "--param", "threshold=1", "--scores", "1",
                         "--neighbour-scores", "2")
    assert code in (0, 1), err
    verdict = next(line for line in out.splitlines() if "verdict" in line)
    assert "epsilon ~ 1.0e+400" in verdict and "0000000000" not in verdict
    code, out, err = run(capsys, "analyse", f"{user_file}:svt1", "--param", "epsilon=1e400",
                         "--param", "threshold=1", "--scores", "1", "--neighbour-scores",
                         "2", "--format", "latex")
    assert r"\varepsilon \approx 1.0 \times 10^{400}" in out


CLAMP = '''
from exactdp.programs import program, laplace


@program(sensitivity=1, output="release")
def clamp(q, epsilon):
    v = q[0] + laplace(1 / epsilon)
    return v if v >= 0 else 0
'''


def test_latex_prints_a_witness_interval_and_its_infinity_as_math(capsys, tmp_path):
    # a fresh user's trial: "\texttt{... with the value in (0, oo) ...}". 0 + Lap(1) vs
    # -1 + Lap(1) on v > 0: the ratio exp(-v)/exp(-(v + 1)) = e is constant, loss 1
    path = tmp_path / "clamp_prog.py"
    path.write_text(CLAMP)
    code, out, err = run(capsys, "analyse", f"{path}:clamp", "--param", "epsilon=1",
                         "--scores", "0", "--format", "latex")
    assert code == 0, err
    verdict = next(line for line in out.splitlines() if "verdict" in line)
    assert verdict.endswith(r"output the pattern REAL with the value in $(0, \infty)$ "
                            "(a constant ratio)")
    assert re.search(r"\boo\b", out) is None
    _compiles(out)
    # text and markdown keep sympy's spelling, as every other exact value they print
    code, out, err = run(capsys, "analyse", f"{path}:clamp", "--param", "epsilon=1",
                         "--scores", "0", "--format", "markdown")
    assert "output `the pattern REAL with the value in (0, oo) (a constant ratio)`" in out


NOISY_MAX = '''
from exactdp.programs import program, laplace

@program(sensitivity=1)
def nmax(q, epsilon):
    best, arg = None, None
    for i, a in enumerate(q):
        v = a + laplace(2 / epsilon)
        if best is None or v > best:
            best, arg = v, i
    return arg
'''


def test_a_near_tie_prints_its_offsets_and_a_tiny_loss_is_not_zero(capsys, tmp_path):
    # q = (d, 0), d = 1e-300, Laplace scale b = 2: the difference of two Laplace(b) has the
    # CDF 1 - exp(-t/b)(1 + t/(2b))/2 at t >= 0 (an independent closed form), so
    # P(0) = 1/2 + about d/(4b); on q' = (0, 0) each output has 1/2, the loss is
    # log(1/(2 P(1))), about d/(2b). Before: "(0.5)" twice and "= 0".
    path = tmp_path / "nm.py"
    path.write_text(NOISY_MAX)
    code, out, err = run(capsys, "analyse", f"{path}:nmax", "--param", "epsilon=1",
                         "--scores", "1e-300,0", "--neighbour-scores", "0,0")
    assert code == 0, err
    with mpmath.workdps(700):
        d, b = mpmath.mpf(10) ** -300, mpmath.mpf(2)
        p0 = 1 - mpmath.exp(-d / b) * (1 + d / (2 * b)) / 2
        offset, loss = p0 - mpmath.mpf(1) / 2, -mpmath.log(2 * (1 - p0))
    assert f"(0.5 + {mpmath.nstr(offset, 15)})" in out
    assert f"(0.5 - {mpmath.nstr(offset, 15)})" in out
    line = next(x for x in out.splitlines() if x.startswith("privacy loss"))
    printed = mpmath.mpf(line.split(" = ")[-1].split()[0])
    assert abs(printed / loss - 1) < mpmath.mpf(10) ** -14 and "= 0 " not in line


def test_the_analysis_is_priced_before_the_distribution(capsys, tmp_path, monkeypatch):
    """The neighbour search over 300 zeros is refused before the distribution of q alone
    (estimated at 37 s, integrated for 41 s CPU before the search's refusal): the
    distribution is never asked for."""
    from exactdp.programs.mechanism import ProgramMechanism

    path = tmp_path / "progs.py"
    path.write_text(textwrap.dedent('''
        from exactdp.programs import program, laplace, argmax

        @program(output="selection")
        def rnm(q, epsilon):
            return argmax([a + laplace(2 / epsilon) for a in q])
    '''))

    def never(self, scores):
        raise AssertionError("the distribution was computed before the analysis's price")

    monkeypatch.setattr(ProgramMechanism, "distribution", never)
    code, out, err = run(capsys, "analyse", f"{path}:rnm", "--param", "epsilon=1",
                         "--scores", ",".join(["0"] * 300))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "answer vectors of 300 answers" in err and "would need about" in err


def test_a_file_calling_sys_exit_is_an_error_not_a_verdict(capsys, tmp_path):
    for body, shown in (("sys.exit(0)", "SystemExit: 0"), ("sys.exit('msg')", "SystemExit: msg"),
                        ("raise SystemExit", "SystemExit\n")):
        path = tmp_path / "exits.py"
        path.write_text(f"import sys\n{body}\n")
        code, out, err = run(capsys, "analyse", f"{path}:f", "--param", "epsilon=1",
                             "--scores", "0,1")
        assert code == 2 and out == ""
        assert f"loading {path} raised {shown}" in err and err.count("\n") == 1, err


def test_a_bad_score_names_its_option(capsys, user_file):
    code, out, err = run(capsys, "analyse", f"{user_file}:svt1", "--param", "epsilon=1",
                         "--param", "threshold=1", "--scores", "0,nan")
    assert code == 2 and err == "exactdp: error: --scores[1] must be finite, got 'nan'\n"
