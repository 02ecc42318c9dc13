"""The verification suite (exactdp/audit/verification.py): every program of the library, one
row each, as a table.

Independent routes: closed forms (randomized response: exactly epsilon; its incorrect twin
ln((1 + eps)/(1 - eps)) = ln(11/9); the Laplace mechanism: epsilon; the histogram at the
inverted scale: 1/epsilon; report-noisy-max returning the value with Laplace noise: n
epsilon / 2 = 1/4 at n = 5, attained; with exponential noise: infinite), the literature's
verdicts, the tools' published lower bounds (a sound lower bound lies below the exact loss)
and DiPC's verdicts.
"""

from __future__ import annotations

import dataclasses
from concurrent.futures import ThreadPoolExecutor

import pytest
import sympy

import exactdp
from exactdp import SuiteRow, VerificationSuite, verification_suite
from exactdp.audit import program_suite as ps
from exactdp.audit import verification as vs
from exactdp.audit.library_table import LIBRARY_HEADER, TIME_HEADER
from exactdp.programs import library_release

CLAIM = sympy.Rational(1, 10)
CHEAP = ["noisy_max_exponential", "svt4", "randomized_response",
         "randomized_response_incorrect", "truncated_geometric", "noisy_max_value_laplace",
         "noisy_max_value_exponential", "laplace_mechanism", "histogram_wrong_scale",
         "bad_partial_sum", "prefix_sum"]


@pytest.fixture(scope="module")
def suite() -> VerificationSuite:
    return verification_suite(CHEAP, progress=False)


def test_rows_closed_forms_and_verdicts(suite):
    assert [r.program for r in suite] == CHEAP and len(suite) == len(CHEAP)
    rr, bad = suite["randomized_response"], suite["randomized_response_incorrect"]
    assert rr.loss == CLAIM and rr.holds and rr.private is True  # Warner: exactly epsilon
    assert bad.loss == sympy.log(sympy.Rational(11, 9)) and bad.holds is False
    assert bad.verdict == "not private" and bad.private is False
    assert suite["truncated_geometric"].loss == CLAIM
    assert suite["noisy_max_exponential"].loss == CLAIM  # permute-and-flip: tight
    assert suite["laplace_mechanism"].loss == CLAIM and suite["laplace_mechanism"].holds
    assert suite["histogram_wrong_scale"].loss == 10 and not suite["histogram_wrong_scale"].holds
    assert suite["bad_partial_sum"].loss == 2 * CLAIM
    nmv = suite["noisy_max_value_laplace"]
    assert nmv.loss == sympy.Rational(1, 4) and nmv.worst.attained and nmv.private is False
    assert nmv.worst.pattern == "all above"
    assert nmv.worst.output == "the pattern REAL with the value in (-oo, 1) (a constant ratio)"
    # a refutation is a proof; a loss at most the claim covers the pairs searched only
    assert bad.certified and bad.caveat is None
    assert not rr.certified and rr.caveat == "private on the pairs searched only"
    assert repr(rr).endswith("not certified: private on the pairs searched only)")
    inf = suite["noisy_max_value_exponential"]
    assert inf.loss is sympy.oo and inf.holds is False and "probability" in inf.worst.output


def test_a_refused_row_says_so_and_the_suite_goes_on(suite, monkeypatch):
    """prefix_sum's loss is exact (epsilon, attained: a triangular map of free noises); a
    row whose every pair the engine refuses says so, and the suite goes on."""
    assert suite["prefix_sum"].loss == CLAIM and suite["prefix_sum"].holds

    def refuse(*args, **kwargs):
        raise ValueError("prefix_sum.privacy_loss: the released values do not factorise")

    monkeypatch.setattr(ps, "pair_loss", refuse)
    monkeypatch.setattr(ps, "check_dp", refuse)
    row = verification_suite(["prefix_sum"], every=False, progress=False)["prefix_sum"]
    assert row.holds is None and row.loss is None and row.verdict == "refused"
    assert row.refused[0].startswith("check_dp heuristic refused: ") and not row.note
    assert "do not factorise" in row.refused[0] and "do not factorise" in row.search
    assert "refused: check_dp heuristic refused: " in row.summary()


def test_every_epsilon_column_and_published_numbers(suite):
    svt4 = suite["svt4"]
    assert svt4.every_epsilon.status == "refuted" and svt4.holds is False
    assert str(svt4.tools.dipc) == "False, 294 s" and str(svt4.tools.checkdp) == "counterexample"
    for row in suite:
        for pub in row.tools.lower_bounds():
            assert row.shortfall(pub.tool) > 0  # a sound lower bound lies below
        if row.program in library_release.PROGRAMS or row.program.startswith("randomized"):
            assert row.every_epsilon.status == "not applicable"
    assert suite["noisy_max_value_exponential"].shortfall("StatDP") == float("inf")
    assert svt4.shortfall("nobody") is None


def test_display_repr_table_and_formats(suite):
    text = repr(suite)
    assert len(text) <= 200 and text.startswith(
        "VerificationSuite(11 programs: 6 not private, 5 private on the pairs searched, "
        "every epsilon: 1 certified, 1 refuted")
    md = suite.to_markdown().splitlines()
    assert md[0] == "| " + " | ".join([*LIBRARY_HEADER, TIME_HEADER]) + " |"  # CPU as in text
    assert len(md) == 2 + len(CHEAP)
    assert md[3].startswith("| svt4 | not private | not private | 0.17488 | "
                            "1111111111 vs 2222222220 | FFFFFFFFFT | one below rest above "
                            "(mirrored) |")
    assert suite._repr_html_().count("<tr>") == 1 + len(CHEAP)
    assert suite._repr_latex_().startswith(r"\begin{tabular}")
    assert "every epsilon on DiPC's domain: refuted" in suite["svt4"].summary()
    assert suite.summary().count("\n  verdict: ") == len(CHEAP)
    assert isinstance(suite["svt4"], SuiteRow) and len(repr(suite["svt4"])) <= 200
    with pytest.raises(KeyError):
        suite["svt9"]


def test_progress_bar_and_executor(monkeypatch, capsys):
    """The bar (exactdp.progress) shows on a terminal; the every-epsilon column runs on a
    given executor (Dask: Client.get_executor()) and agrees with the local column."""
    monkeypatch.setattr("sys.stderr.isatty", lambda: True)
    with ThreadPoolExecutor(2) as pool:
        remote = verification_suite(["svt4"], progress=True, executor=pool)["svt4"]
    assert "exactdp suite" in capsys.readouterr().err
    local = exactdp.audit.every_epsilon.every_epsilon("svt4")
    assert (remote.every_epsilon.status, remote.every_epsilon.failing_pairs) == (
        local.status, local.failing_pairs)


def test_suite_row_never_raises_for_a_program_it_cannot_build(monkeypatch):
    monkeypatch.setattr(vs, "search_program", lambda name: (_ for _ in ()).throw(
        ValueError("svt1: needs a parameter threshold")))
    row = vs.suite_row("svt1")
    assert row.verdict == "not run" and row.note == "not run: needs a parameter threshold"


def test_bad_program_names():
    with pytest.raises(ValueError, match="verification_suite: programs must be names from"):
        verification_suite(["svt9"])
    with pytest.raises(ValueError, match="verification_suite: programs must be a non-empty"):
        verification_suite("svt1")
    with pytest.raises(ValueError, match="verification_suite: programs must be a non-empty"):
        verification_suite([])


def test_a_bracket_row_prints_its_bracket_not_its_lower_end():
    """A row whose worst pair is a certified bracket holds the bracket's lower end, its repr
    the bracket (never a lone decimal for an inexact loss). SVT34Parallel at 3 queries was
    such a row ([0.147469, 0.1625]); its loss is exact now (at 10 queries 0.337429, below
    its translation bound 27/80), so a bracket is put back."""
    exact = verification_suite(["svt34_parallel"], every=False, progress=False)["svt34_parallel"]
    assert exact.worst.interval is None and "loss=0.337429" in repr(exact)
    lo, hi = sympy.Rational(337428, 10**6), sympy.Rational(27, 80)
    row = dataclasses.replace(exact, loss=lo, worst=dataclasses.replace(
        exact.worst, loss=lo, interval=(lo, hi)))
    assert lo > CLAIM and row.holds is False  # the lower end is above the claim: a proof
    assert "loss=in [" in repr(row) and len(repr(row)) <= 200
    one = VerificationSuite((row,))
    assert repr(one).startswith("VerificationSuite(1 program: ")  # singular (was "1 programs")
    assert "(1 pair; " in dataclasses.replace(row, pairs_searched=1).summary()


def test_progress_false_quiets_the_rows_own_start_lines(monkeypatch, capsys):
    """verification_suite(progress=False) (``exactdp suite --no-progress``, and each row of
    the suite in a log): a row's inner loop estimated above 5 s (a release loss's, which
    takes no progress argument; here a loop of 30 s inside the row) prints no start line
    off a terminal; with progress=None it says it starts."""
    from exactdp.progress import progress_bar

    row = vs.suite_row

    def long_row(name, every):
        progress_bar(1, f"{name}.privacy_loss", seconds=30.0).close()
        return row(name, every)

    monkeypatch.setattr(vs, "suite_row", long_row)
    verification_suite(["laplace_mechanism"], every=False, progress=False)
    assert capsys.readouterr().err == ""
    verification_suite(["laplace_mechanism"], every=False)
    assert capsys.readouterr().err == ("laplace_mechanism.privacy_loss: started, about 30 s "
                                       "CPU estimated\n")


def test_a_program_named_twice_is_one_row():
    """``--programs laplace_mechanism,laplace_mechanism`` printed the row twice."""
    rows = exactdp.verification_suite(["laplace_mechanism", "laplace_mechanism"],
                                      every=False, progress=False).rows
    assert [r.program for r in rows] == ["laplace_mechanism"]
