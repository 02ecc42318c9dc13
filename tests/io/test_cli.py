"""The command line: tables, the report, and one-line errors with exit code 2."""

import decimal
import re

import pytest

from exactdp.io.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_table_known_values(capsys):
    code, out, err = run(capsys, "table", "--scores", "3,1,0,0,-2", "--epsilon", "2",
                         "--mechanisms", "em,pf,rnm-exp")
    assert code == 0, err
    assert "0.884912" in out and "0.805382" in out
    # RNM-Exp and PF print the same decimals (Ding et al. 2021)
    assert out.count("0.0653051") == 2


def test_negative_first_score_and_fractions(capsys):
    code, out, err = run(capsys, "table", "--scores", "-1/2,0.1,2", "--mechanisms", "pf")
    assert code == 0, err
    assert "exact:" in out


def test_latex_format(capsys):
    code, out, _ = run(capsys, "table", "--example", "pricing", "--score", "revenue",
                       "--format", "latex")
    assert code == 0
    assert r"\begin{tabular}" in out and r"\toprule" in out and "Delta = 5" in out


def test_pricing_buyers_scores_in_caption(capsys):
    code, out, _ = run(capsys, "table", "--example", "pricing", "--score", "buyers")
    assert code == 0
    assert "q = (3, 4, 3, 2, 2)" in out and "Delta = 1" in out
    code, out, _ = run(capsys, "table", "--example", "pricing", "--neighbour")
    assert "q = (3, 3, 2, 1, 1)" in out
    assert "outputs r are the prices (1-based)" in out
    code, out, _ = run(capsys, "table", "--scores", "3,1")
    assert "outputs r numbered from 0 (0-based)" in out and out.splitlines()[3].startswith("0 ")


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["table", "--scores", "1,nan,2"], "scores[1]"),
        (["table", "--scores", "1,,2"], "comma-separated"),
        (["table", "--scores", "1,2", "--epsilon", "-1"], "epsilon must be >= 0"),
        (["table", "--scores", "1,2", "--sensitivity", "0"], "sensitivity must be > 0"),
        (["table", "--scores", "1,2", "--mechanisms", "foo"], "unknown mechanism"),
        (["table", "--scores", "1,abc"], "scores[1]"),
        (["table", "--scores", "1,2", "--dps", "0"], "--dps must be"),
        (["table", "--scores", "1,2", "--dps", "1001"], "--dps must be"),
    ],
)
def test_errors_are_one_line_with_exit_code_2(capsys, argv, fragment):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert fragment in err
    assert err.count("\n") == 1 and out == ""


def test_report_runs(capsys):
    code, out, err = run(capsys, "report", "--no-files")
    assert code == 0, err
    assert "Score buyers" in out and "Score revenue" in out
    assert "proved for every epsilon > 0" in out
    # buyers, eps = 1: PF's loss on (3,4,3,2,2) vs (3,3,2,1,1) is exactly eps/2
    pf_line = next(ln for ln in out.splitlines() if ln.strip().startswith("PF "))
    assert " 0.5 " in pf_line


def test_report_scores_writes_directory(capsys, tmp_path):
    out_dir = tmp_path / "rep"
    code, out, err = run(capsys, "report", "--scores", "1,0", "--neighbour-scores", "0,1",
                         "--epsilon", "1/2", "--out", str(out_dir), "--no-pdf",
                         "--format", "markdown")
    assert code == 0, err
    assert out.startswith("# exactdp report") and "wrote" in err
    assert (out_dir / "report.tex").exists() and (out_dir / "summary.md").exists()
    assert len(list(out_dir.glob("*.png"))) == 5
    # two items, gap 1, eps = 1/2 (c = 2): EM's losing probability p/(1+p), p = e^{-1/4}
    p = 0.7788007830714049
    assert f"{p / (1 + p):.6f}"[:7] in out


@pytest.mark.parametrize("argv, fragment", [
    (["report", "--neighbour-scores", "1,2", "--no-files"], "apply to --scores only"),
    (["report", "--scores", "1,x", "--no-files"], "scores[1]"),
    (["report", "--scores", "1,2", "--neighbour-scores", "1", "--no-files"],
     "report: len(--neighbour-scores) must be 2"),
    (["report", "--scores", "1,2", "--labels", "a", "--no-files"],
     "--labels must be 2 distinct comma-separated names"),
    (["report", "--scores", "1,2", "--labels", "a,a", "--no-files"],
     "--labels must be 2 distinct"),
    # library errors in the command's words (the fresh-user trial saw build_report: and
    # ExponentialMechanism: and a Python-only keyword as advice)
    (["report", "--scores", "1,2", "--sensitivity", "0", "--no-files"],
     "report: --sensitivity must be > 0, got '0'"),
    (["table", "--scores", "1,2", "--sensitivity", "0"], "table: --sensitivity must be > 0"),
    (["report", "--scores", "3,1,0", "--neighbour-scores", "9,9,9", "--no-files"],
     "exceeds the sensitivity), got 9"),
])
def test_report_errors(capsys, argv, fragment):
    code, out, err = run(capsys, *argv)
    assert code == 2 and fragment in err and out == "" and err.count("\n") == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["table", "--dps", "abc", "--scores", "1,2"],
        ["table", "--scores", "1,2", "--format", "html"],
        ["table"],
        ["table", "--scores", "1,2", "--example", "pricing"],
        ["table", "--scores", "1,2", "--neighbour"],
        ["table", "--scores", "1,2", "--score", "revenue"],
        ["table", "--scores", "__import__('os').system('echo PWNED'),1"],
        ["table", "--scores", "1,2", "--epsilon", "10**10**10"],
    ],
)
def test_usage_errors_are_one_line_too(capsys, argv):
    with pytest.raises(SystemExit) as info:
        code = main(argv)
        raise SystemExit(code)
    out, err = capsys.readouterr()
    assert info.value.code == 2
    assert err.startswith("exactdp: error:") and err.count("\n") == 1
    assert out == "" and err.count("PWNED") <= 1  # only the echo of the refused text


def _decimal_exp(d: int, digits: int, half: bool = True) -> tuple[decimal.Decimal, int]:
    """``exp(-d)`` (``/2`` when ``half``) ``= m * 10**k`` by Python's decimal (independent
    of mpmath): ``m`` to ``digits`` digits, ``k`` exact."""
    with decimal.localcontext() as ctx:
        ctx.prec = len(str(d)) + digits + 20
        log10 = -decimal.Decimal(d) / decimal.Decimal(10).ln()
        if half:
            log10 -= decimal.Decimal(2).log10()
        k = int(log10.to_integral_value(rounding=decimal.ROUND_FLOOR))
        m = decimal.Decimal(10) ** (log10 - k)
        ctx.prec = digits
        return +m, k


def _named(out: str) -> str:
    """The table's text with every long exponent's name (``K1``) replaced by its digits,
    printed in full under the table (``K1 = (400 digits)`` then lines of digits)."""
    lines, values, name = out.splitlines(), {}, None
    for line in lines:
        if m := re.match(r"^(K\d+) = \(\d+ digits\)$", line):
            name, values[m[1]] = m[1], ""
        elif name and line.startswith("  ") and line.strip().isdigit():
            values[name] += line.strip()
        else:
            name = None
    table = "\n".join(line for line in lines
                      if not re.match(r"^(K\d+ = |  \d+$)", line))
    return re.sub(r"K\d+\b", lambda m: values[m[0]], table)


def test_huge_scores_stay_readable(capsys):
    """The scores stay short (1.0e+300); PF's exp(-5e299)/2 prints its mantissa and its
    whole decimal exponent (it was exp(-5.0e+299): the factor 1/2 was lost)."""
    code, out, _ = run(capsys, "table", "--scores", "1e300,0", "--no-exact")
    assert code == 0
    assert "q = (1.0e+300, 0)" in out
    mant, k = _decimal_exp(5 * 10**299, 6)
    # the 300-digit exponent is named K1 in the cell and printed under the table
    assert max(len(line) for line in out.splitlines()) <= 80
    assert f"{mant}e{k}" in _named(out).splitlines()[-1]


@pytest.mark.parametrize("dps", [6, 20, 45])
def test_table_at_epsilon_1e400_prints_every_digit(capsys, dps):
    """table --epsilon 1e400 on (1, 0): PF[1] = exp(-5e399)/2 and EM[1] = x/(1 + x) ~ x to
    --dps digits with their 400-digit exponent (both were exp(-5.0e+399) whatever --dps),
    checked against Python's decimal (EM[1] / x - 1 ~ 10**-(10**399))."""
    code, out, _ = run(capsys, "table", "--scores", "1,0", "--epsilon", "1e400", "--dps",
                       str(dps), "--no-exact", "--mechanisms", "em,pf")
    assert code == 0
    assert max(len(line) for line in out.splitlines()) <= max(80, 2 * dps + 30)  # was 822
    row = _named(out).splitlines()[-1].split()
    assert row[0] == "1"
    refs = [_decimal_exp(5 * 10**399, dps + 5, half=False), _decimal_exp(5 * 10**399, dps + 5)]
    for cell, (m, k) in zip(row[1:], refs, strict=True):
        shown_m, shown_k = cell.split("e")
        assert int(shown_k) == k and len(shown_m.replace(".", "")) <= dps
        with decimal.localcontext() as ctx:
            ctx.prec = dps + 5
            assert abs(decimal.Decimal(shown_m) / m - 1) < decimal.Decimal(10) ** (1 - dps)


def test_version_and_python_dash_m(capsys):
    import subprocess
    import sys

    import exactdp

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"exactdp {exactdp.__version__}"
    proc = subprocess.run([sys.executable, "-m", "exactdp", "table", "--scores", "1,0",
                           "--mechanisms", "pf", "--no-exact"],
                          capture_output=True, text=True, timeout=120)
    # two items, gap 1, eps = 1 (c = 2): PF loses with probability e^{-1/2}/2
    assert proc.returncode == 0 and "0.303265" in proc.stdout


@pytest.mark.parametrize("dps", ["0", "1001", "-3"])
def test_report_dps_validated(capsys, dps):
    code, out, err = run(capsys, "report", "--dps", dps)
    assert code == 2 and "--dps must be an integer in 1..1000, got" in err and out == ""


def test_huge_integers_print_beyond_the_int_str_limit(capsys):
    # 10**5000 has more digits than Python's int-to-str limit (4300). Pr[1] = e^-d / 2 with
    # d = 5e4999 lies below 10^(-10^4999): its decimal exponent alone has 5000 digits, beyond
    # what evalf carries correctly (cost.MAX_GAP_DIGITS), so the decimals are refused in one
    # line naming the route (the old table printed an exponent wrong after its 26th digit)
    code, out, err = run(capsys, "table", "--scores", "1e5000,0", "--mechanisms", "pf")
    assert code == 2 and out == ""
    assert err.startswith("exactdp: error: evalf: ") and "10^5000" in err
    assert err.count("\n") == 1


def test_unwritable_out_is_a_one_line_error(capsys, tmp_path):
    """Regression (fresh-user test): an --out that cannot be created was a traceback."""
    blocker = tmp_path / "afile"
    blocker.write_text("")
    for out_dir in (str(blocker), str(blocker / "sub")):
        code, out, err = run(capsys, "report", "--scores", "1,0", "--out", out_dir)
        assert code == 2 and out == ""
        assert err.startswith("exactdp: error: --out must be a directory") and err.count("\n") == 1


def test_report_on_tied_scores_is_written(capsys, tmp_path):
    """Issue 20: all scores tied gave ZeroDivisionError (EM/PF error ratio 0/0); both
    errors are exactly 0 there (each mechanism picks a maximizer), the ratio is drawn at
    its limit 1 and the caption says so."""
    out = tmp_path / "tie"
    assert main(["report", "--scores", "1,1", "--neighbour-scores", "0,1",
                 "--out", str(out)]) == 0
    assert (out / "error-ratio.png").exists()
    tex = (out / "report.tex").read_text()
    assert "limit 1" in tex


def test_report_empty_out_is_refused(capsys, tmp_path, monkeypatch):
    """Issue 20: --out "" wrote report.tex and summary.md into the current directory."""
    monkeypatch.chdir(tmp_path)
    assert main(["report", "--scores", "3,1,0", "--out", ""]) == 2
    err = capsys.readouterr().err
    assert "--out must be a directory path, got ''" in err and "\n" == err[-1:]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["table", "report"])
@pytest.mark.parametrize(("value", "fragment"), [
    ("nan", "--epsilon must be a number >= 0 (0 and oo are the limits), got 'nan' (not a number)"),
    ("-1", "--epsilon must be >= 0"),
])
def test_epsilon_errors_name_the_option(capsys, command, value, fragment):
    """Issue 20: the errors named ExponentialMechanism / build_report, not --epsilon."""
    assert main([command, "--scores", "3,1,0", f"--epsilon={value}", "--no-files"]
                if command == "report" else
                [command, "--scores", "3,1,0", f"--epsilon={value}"]) == 2
    err = capsys.readouterr().err
    assert fragment in err and "build_report" not in err and "Mechanism" not in err


@pytest.mark.parametrize("value", ["oo", "inf"])
def test_table_at_epsilon_infinity_is_the_argmax(capsys, value):
    # epsilon = oo is the documented limit: uniform over the maximizers, here output 0 of
    # (3, 1, 0), so every mechanism prints probability 1, 0, 0 (exact forms 1, 0, 0)
    assert main(["table", "--scores", "3,1,0", "--epsilon", value]) == 0
    out = capsys.readouterr().out
    assert "epsilon = oo" in out
    assert "EM[0] = 1" in out and "EM[1] = 0" in out and "PF[2] = 0" in out


def _row(text, label):
    return next(ln.split() for ln in text.splitlines() if ln.strip().startswith(label + " "))


def test_report_at_epsilon_zero_is_uniform(capsys):
    """Issue 20: report --epsilon 0 was refused while table --epsilon 0 worked. At 0 every
    mechanism is uniform: Pr = 1/4 each, expected error = the mean gap (0 + 2 + 2 + 3)/4 =
    7/4, and the loss against any neighbour is 0."""
    code, out, err = run(capsys, "report", "--scores", "3,1,1,0", "--neighbour-scores",
                         "2,2,1,1", "--epsilon", "0", "--no-files")
    assert code == 0, err
    assert _row(out, "1")[1:] == ["0.25"] * 5  # output 1: every mechanism 1/4
    assert _row(out, "EM")[1:4] == ["1.75", "0", "0"]


def test_report_at_epsilon_infinity_is_the_argmax(capsys):
    """At oo every mechanism picks the maximizer: Pr = 1, 0, 0, 0, error 0; the DP verdict
    is vacuous (every mechanism is oo-DP), not "fails"."""
    code, out, err = run(capsys, "report", "--scores", "3,1,1,0", "--epsilon", "oo",
                         "--no-files")
    assert code == 0, err
    assert _row(out, "0")[1] in ("1", "1.0") and _row(out, "3")[1:] == ["0"] * 5
    em = _row(out, "EM")
    assert em[1] == "0" and "vacuous" in " ".join(em) and "FAILS" not in out


def test_report_files_manifest_force_clean_and_body(capsys, tmp_path):
    """Issue 20 / 23: the report replaces its own files (listed in its manifest), refuses
    to overwrite anyone else's without --force, removes LaTeX's auxiliary files unless
    --keep-aux, and writes report-body.tex (packages in its first line) and provenance."""
    from exactdp import __version__
    from exactdp.io.document import MANIFEST, find_engine

    out = tmp_path / "rep"
    argv = ["report", "--scores", "1,0", "--out", str(out), "--labels", "yes,no"]
    assert main([*argv, "--keep-aux"]) == 0
    capsys.readouterr()
    names = {p.name for p in out.iterdir()}
    assert {MANIFEST, "report.tex", "report-body.tex", "summary.md"} <= names
    if find_engine() is not None:
        assert "report.pdf" in names and "report.aux" in names  # --keep-aux kept them
    body = (out / "report-body.tex").read_text()
    assert body.splitlines()[0].startswith("% exactdp report body") and "\\usepackage{" in (
        body.splitlines()[0]) and "siunitx" in body.splitlines()[0]
    assert "\\documentclass" not in body and "\\section{The given scores}" in body
    tex = (out / "report.tex").read_text()
    command = "% command: exactdp " + " ".join(argv) + " --keep-aux"
    assert command in tex and f"% exactdp: {__version__}" in tex
    summary = (out / "summary.md").read_text()
    assert "**Provenance.**" in summary and "--labels yes,no" in summary
    assert "named by the given labels" in summary and "| yes |" in summary
    # a rerun replaces its own files (the default --clean removes the auxiliary ones)
    assert main(argv) == 0
    capsys.readouterr()
    assert not any(p.suffix in (".aux", ".log", ".fls", ".out") for p in out.iterdir())
    # a file of the report's names that the report did not write is refused ...
    other = tmp_path / "other"
    other.mkdir()
    (other / "summary.md").write_text("mine")
    assert main(["report", "--scores", "1,0", "--out", str(other), "--no-pdf"]) == 2
    err = capsys.readouterr().err
    assert "summary.md exists and was not written by an exactdp report" in err
    assert "--force" in err and err.count("\n") == 1
    assert (other / "summary.md").read_text() == "mine"
    # ... unless --force
    assert main(["report", "--scores", "1,0", "--out", str(other), "--no-pdf",
                 "--force"]) == 0
    assert (other / "summary.md").read_text() != "mine"


def test_table_at_dps_1000_prints_every_digit(capsys):
    """Issue 20: ``table --dps 1000`` ran 90 s and printed 53-bit values past digit 16.
    EM and PF on (3, 1, 0) against mpmath at 1100 digits: EM by its softmax, PF by the
    Poisson-binomial formula ``p_r E[1/(K + 1)]`` over the subsets of the other coins."""
    import itertools

    import mpmath

    code, out, err = run(capsys, "table", "--scores", "3,1,0", "--dps", "1000",
                         "--mechanisms", "em,pf", "--no-exact")
    assert code == 0, err
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()
            if line[:1] in "012" and len(line.split()) == 3}
    with mpmath.workdps(1100):
        p = [mpmath.exp(-mpmath.mpf(3 - q) / 2) for q in (3, 1, 0)]
        em = [w / mpmath.fsum(p) for w in p]
        pf = []
        for r in range(3):
            others = [p[s] for s in range(3) if s != r]
            total = mpmath.mpf(0)
            for heads in itertools.product((0, 1), repeat=2):
                w = mpmath.fprod(o if h else 1 - o for o, h in zip(others, heads, strict=True))
                total += w / (sum(heads) + 1)
            pf.append(p[r] * total)
        for r in range(3):
            assert rows[str(r)] == [mpmath.nstr(em[r], 1000), mpmath.nstr(pf[r], 1000)]


# ---------------------------------------------------------------- exactdp suite
def test_suite_prints_one_row_per_program(capsys):
    code, out, err = run(capsys, "suite", "--programs",
                         "randomized_response_incorrect,truncated_geometric,laplace_mechanism",
                         "--no-progress", "--format", "markdown")
    assert code == 0 and not err
    lines = out.splitlines()
    assert lines[0].startswith("| program | literature | verdict | worst loss |")
    # ln((1 + eps)/(1 - eps)) = ln(11/9) at eps = 1/10: DiPC's incorrect randomized response
    assert lines[2].startswith("| randomized_response_incorrect | not private | not private "
                               "| 0.200671 |")
    assert lines[3].startswith("| truncated_geometric | private |")
    assert lines[4].startswith("| laplace_mechanism | private | private on the pairs searched "
                               "| 0.1 |") and len(lines) == 5
    code, out, _ = run(capsys, "suite", "--programs", "histogram_wrong_scale",
                       "--no-every-epsilon", "--format", "latex")
    assert code == 0 and out.startswith(r"\begin{tabular}") and "not private" in out
    code, out, _ = run(capsys, "suite", "--programs", "truncated_geometric", "--no-progress")
    assert code == 0 and out.split("\n\n")[-1].splitlines()[0].rstrip().endswith("CPU s")


def test_suite_in_a_log_says_each_row_as_it_ends(capsys):
    """Standard error not a terminal (a pipe, CI's log): no bar, a line per program, so a
    minute of CPU is never silent; the table is the one the suite gives at once."""
    names = "randomized_response_incorrect,laplace_mechanism"
    code, out, err = run(capsys, "suite", "--programs", names, "--no-every-epsilon",
                         "--format", "markdown")
    assert code == 0
    lines = err.splitlines()
    assert [line.split(" (")[0] for line in lines] == [
        "exactdp suite: 1/2 randomized_response_incorrect", "exactdp suite: 2/2 laplace_mechanism"]
    assert all(line.endswith(" s CPU)") for line in lines)
    _, quiet, err = run(capsys, "suite", "--programs", names, "--no-every-epsilon",
                        "--format", "markdown", "--no-progress")
    def cells(text):  # but the CPU seconds, the last column
        return [line.rsplit("|", 2)[0] for line in text.splitlines()]

    assert not err and cells(quiet) == cells(out)


def test_suite_text_fits_the_terminal_width(capsys, monkeypatch):
    # its lines were up to 420 characters; now panels of the terminal's width (COLUMNS,
    # else 120 when not a terminal), each led by the program column
    monkeypatch.setenv("COLUMNS", "90")
    code, out, _ = run(capsys, "suite", "--programs", "randomized_response_incorrect",
                       "--no-progress", "--no-every-epsilon")
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 90
    assert out.count("program ") >= 2 and "randomized_response_incorrect" in out
    # the decimals are said to be exact values printed to their digits, never "exact" beside
    # a rounded number
    assert "computed exactly and printed correct to the digits" in " ".join(out.split())
    assert "exact worst loss" not in out
    monkeypatch.delenv("COLUMNS")
    code, out, _ = run(capsys, "suite", "--programs", "randomized_response_incorrect",
                       "--no-progress", "--no-every-epsilon")
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 120


@pytest.mark.parametrize("argv,message", [
    (("--programs", "svt1,foo"), "exactdp: error: --programs must be names from"),
    (("--programs", ","), "exactdp: error: --programs must be comma-separated program names"),
    (("--no-every-epsilon", "--scheduler", "tcp://127.0.0.1:1"),
     "exactdp: error: --scheduler runs the every-epsilon column: drop --no-every-epsilon"),
])
def test_suite_errors_name_the_option(capsys, argv, message):
    """In the command's terms: no internal function's name, one line."""
    code, out, err = run(capsys, "suite", *argv)
    assert code == 2 and not out and err.startswith(message) and err.count("\n") == 1


def test_suite_options_of_the_old_rows_are_gone(capsys):
    """One suite: the eleven hand-written rows' --queries, --algorithms, --search-queries
    and --library are gone with them (every program at the tools' settings)."""
    for option in ("--queries", "--algorithms", "--search-queries", "--library"):
        with pytest.raises(SystemExit):
            main(["suite", option, "1"])
        assert "unrecognized arguments" in capsys.readouterr().err


@pytest.mark.parametrize("mechanisms", ["pf", "em", "rnm-exp,optimal"])
def test_report_on_a_subset_of_mechanisms_writes_its_figures(capsys, tmp_path, mechanisms):
    """Issue 35 item 2: a subset without both EM and PF wrote nothing (``KeyError: 'EM'`` in
    the figures) and left an empty --out; the EM/PF figures need both and are left out."""
    out = tmp_path / "rep"
    code, text, err = run(capsys, "report", "--scores", "2,1,0", "--neighbour-scores",
                          "1,2,0", "--mechanisms", mechanisms, "--out", str(out), "--no-pdf")
    assert code == 0, err
    names = {p.name for p in out.iterdir()}
    assert {"report.tex", "summary.md", "expected-error.png", "probabilities.png"} <= names
    assert "error-ratio.png" not in names  # the EM / PF ratio needs both
    assert "error-ratio" not in (out / "report.tex").read_text()


def test_a_failed_report_leaves_no_empty_out_directory(capsys, tmp_path, monkeypatch):
    import exactdp.io.figures as figures

    def broken(*args, **kwargs):
        raise ValueError("figures: broken on purpose")

    monkeypatch.setattr(figures, "figure_cases", broken)
    out = tmp_path / "new" / "rep"
    code, _, err = run(capsys, "report", "--scores", "1,0", "--mechanisms", "pf",
                       "--out", str(out), "--no-pdf")
    assert code == 2 and "broken on purpose" in err
    assert not out.exists() and not out.parent.exists()


@pytest.fixture
def no_report(monkeypatch):
    """The report's computation fails the test: a refusal must come before it."""
    import exactdp.io.report as report

    def computed(*args, **kwargs):
        raise AssertionError("the report was computed before the arguments were checked")

    monkeypatch.setattr(report, "build_report", computed)


@pytest.mark.parametrize("extra, fragment", [
    (["--compose", "1000000000"], "--compose: K must be an integer in 1..100000, got 1000000000"),
    (["--compose", "0"], "--compose: K must be an integer in 1..100000, got 0"),
    (["--dps", "0"], "--dps must be"),
    (["--mechanisms", "pf,foo"], "unknown mechanism 'foo'"),
])
def test_report_arguments_are_checked_before_any_computation(capsys, tmp_path, no_report,
                                                             extra, fragment):
    """Issue 35 item 5: refused in the option's own terms, before the report is computed."""
    code, _, err = run(capsys, "report", "--scores", "1,0", "--out", str(tmp_path / "r"),
                       *extra)
    assert code == 2 and fragment in err, err
    assert "self_compose" not in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "r").exists()


def test_report_out_that_is_a_file_is_refused_before_any_computation(capsys, tmp_path,
                                                                      no_report):
    path = tmp_path / "existing_file.txt"
    path.write_text("mine")
    code, _, err = run(capsys, "report", "--scores", "1,0", "--out", str(path))
    assert code == 2 and "--out" in err and "is a file" in err, err
    assert path.read_text() == "mine"


def test_report_out_holding_a_foreign_file_is_refused_before_any_computation(
        capsys, tmp_path, no_report):
    (tmp_path / "summary.md").write_text("mine")
    code, _, err = run(capsys, "report", "--scores", "1,0", "--out", str(tmp_path))
    assert code == 2 and "--force" in err and "summary.md" in err, err


def test_table_exact_forms_say_their_cost_or_refuse_at_once(capsys, monkeypatch):
    """Issue 35 item 3: ``table --scores 1..50 --exact --mechanisms pf`` was silent for
    minutes. Above 2 s of estimate the table says so first; above the limit it refuses."""
    import exactdp.io.cli as cli
    import exactdp.io.commands as commands
    from exactdp.cost import SECONDS_LIMIT

    def stop(*args, **kwargs):
        raise ValueError("stop here")

    monkeypatch.setattr(commands, "probability_table", stop)
    many = ",".join(map(str, range(1, 81)))
    assert cli.exact_table_seconds(80, 1) > SECONDS_LIMIT
    code, out, err = run(capsys, "table", "--scores", many, "--exact", "--mechanisms", "pf")
    assert code == 2 and "--exact: the exact forms of 80 scores would take about" in err
    assert "drop --exact" in err
    code, out, err = run(capsys, "table", "--scores", many[:many.index(",31")], "--exact",
                         "--mechanisms", "pf")
    assert code == 2 and err.startswith("exactdp table: the exact forms of 30 scores take about")
    code, out, err = run(capsys, "table", "--scores", "3,1,0", "--mechanisms", "pf")
    assert "exact forms" not in err


def test_suite_scheduler_that_cannot_be_reached(capsys, monkeypatch):
    """An address with no scheduler (port 1 on this machine, nothing listens): one line
    naming the scheduler and its address, not "cannot write the output"; the connection
    is given :data:`SCHEDULER_TIMEOUT` (Dask's default is 30 s), checked by a stand-in
    Client that records it, then by a real refused connection at 1 s."""
    pytest.importorskip("distributed")
    import dask.distributed

    from exactdp.io import commands
    seen = []

    def refused(address, timeout):
        seen.append((address, timeout))
        raise OSError(f"Timed out trying to connect to {address} after {timeout} s")

    monkeypatch.setattr(dask.distributed, "Client", refused)
    code, out, err = run(capsys, "suite", "--programs", "svt1", "--scheduler",
                         "tcp://127.0.0.1:1")
    assert seen == [("tcp://127.0.0.1:1", commands.SCHEDULER_TIMEOUT)]
    assert 5 <= commands.SCHEDULER_TIMEOUT <= 10
    assert code == 2 and not out and err.count("\n") == 1
    assert err.startswith("exactdp: error: cannot connect to the Dask scheduler at "
                          "tcp://127.0.0.1:1 (Timed out")
    monkeypatch.undo()
    monkeypatch.setattr(commands, "SCHEDULER_TIMEOUT", 1)
    code, out, err = run(capsys, "suite", "--programs", "svt1", "--scheduler",
                         "tcp://127.0.0.1:1")
    assert code == 2 and err.startswith("exactdp: error: cannot connect to the Dask "
                                        "scheduler at tcp://127.0.0.1:1 (")
