"""The report above the exact route's size (issue 20): mpmath decimals, a heuristic
neighbour search, no exact appendix, a note that says so; refusal at once beyond.

Independent routes: EM's probabilities as the softmax of ``eps q / (2 Delta)`` and PF's as
``p_r * int_0^1 prod_{s != r} (1 - p_s + p_s t) dt`` (``p_s = exp(-eps (q* - q_s)/(2
Delta))``: the coins of permute-and-flip, docs/formulas.md section 2), both computed here
with mpmath from the scores.
"""

from __future__ import annotations

import time

import mpmath
import pytest

from exactdp.cost import TooCostly
from exactdp.io.cli import main
from exactdp.io.report import build_report, render
from exactdp.io.report_numeric import (
    EXACT_REPORT_SECONDS,
    NUMERIC_REPORT_MAX_N,
    SEARCH_SCORES,
    check_numeric_report,
    exact_report_seconds,
    exact_route,
    heuristic_neighbours,
    numeric_report_seconds,
    report_bar,
)


def _softmax(q, eps, r):
    with mpmath.workdps(40):
        top = max(q)
        w = [mpmath.exp(mpmath.mpf(eps) * (v - top) / 2) for v in q]
        return w[r] / mpmath.fsum(w)


def _pf(q, eps, r):
    """PF's probability of output r from its coins, integrated by mpmath (grouped by score)."""
    with mpmath.workdps(40):
        top = max(q)
        counts: dict = {}
        for s, v in enumerate(q):
            if s != r:
                counts[v] = counts.get(v, 0) + 1
        coin = {v: mpmath.exp(-mpmath.mpf(eps) * (top - v) / 2) for v in set(q)}

        def f(t):
            return mpmath.fprod((1 - coin[v] + coin[v] * t) ** m for v, m in counts.items())

        return coin[q[r]] * mpmath.quad(f, [0, 0.5, 0.9, 0.99, 0.999, 1])


def _pair(n, period=7):
    q = [i % period for i in range(n)]
    return q, [v + (1 if i % 2 else -1) for i, v in enumerate(q)]


def _row(text, label):
    return next(ln.split() for ln in text.splitlines() if ln.split()[:1] == [label])


def test_report_above_the_exact_size_takes_the_numeric_route_and_says_so():
    q, q2 = _pair(60)
    rep = build_report("1", example=None, scores=q, neighbour=q2, dps=8)
    text = render(rep, "text")
    assert "n = 60 scores (7 distinct): the exact route would take about" in text
    assert "appendix of exact probabilities is left out" in text
    latex = render(rep, "latex")
    assert r"\textbf{Cheaper route.}" in latex and r"\appendix" not in latex
    assert "16 neighbours: the reduced neighbours of regular mechanisms for one output of each" \
        " of the 7 distinct scores" in text
    for r in (0, 6, 59):  # the decimals against the softmax and PF's coin integral
        row = _row(text, str(r))
        assert row[1] == mpmath.nstr(_softmax(q, 1, r), 8)
        assert row[2] == mpmath.nstr(_pf(q, 1, r), 8)
    em = _row(text, "EM")
    # EM's loss is at most eps (its bound), searched, and not certified
    assert float(em[3]) <= 1 and em[4] == "16" and "(not" in " ".join(em)


def test_numeric_pair_loss_against_the_softmax():
    q, q2 = _pair(80)
    rep = build_report("1/2", example=None, scores=q, neighbour=q2, dps=10)
    em = next(r for r in rep.cases[0].results if r.label == "EM")
    with mpmath.workdps(40):
        want = max(abs(mpmath.log(_softmax(q, mpmath.mpf(1) / 2, r))
                       - mpmath.log(_softmax(q2, mpmath.mpf(1) / 2, r))) for r in range(80))
    assert abs(em.pair.loss - want) < mpmath.mpf(10) ** -15
    assert em.pair.certified is False and em.certificate is None


def test_a_non_neighbour_is_refused_in_the_options_words(capsys):
    q, q2 = _pair(80)
    q2[3] += 5
    assert main(["report", "--scores", ",".join(map(str, q)), "--neighbour-scores",
                 ",".join(map(str, q2)), "--no-files"]) == 2
    err = capsys.readouterr().err
    assert err == ("exactdp: error: report: --neighbour-scores[3] must be within the "
                   "sensitivity 1 of --scores[3] (the difference is 6), got 9\n")


def test_heuristic_neighbours_one_output_per_distinct_score_or_a_sample():
    import sympy

    nbrs, how = heuristic_neighbours(list(range(5)) * 3, sympy.Integer(1), False)
    assert len(nbrs) == 2 * 5 + 2 and "5 distinct scores" in how
    assert all(max(abs(a - b) for a, b in zip(v.exact, list(range(5)) * 3, strict=True)) == 1
               for v in nbrs)
    nbrs, how = heuristic_neighbours(list(range(100)), sympy.Integer(1), True)
    assert len(nbrs) == 4 * SEARCH_SCORES + 2 and "heuristic sample" in how
    assert "seed 0" in how


def test_refuses_at_once_beyond_the_numeric_route():
    t0 = time.process_time()
    with pytest.raises(TooCostly, match=r"build_report: the report on n = \d+ scores"):
        build_report("1", example=None, scores=list(range(NUMERIC_REPORT_MAX_N + 1)))
    assert time.process_time() - t0 < 2
    check_numeric_report("f", 3000, 3000)  # the size: allowed
    with pytest.raises(TooCostly, match=r"f: the report on n = 19000 scores with 19000 "
                                        r"distinct values \(mpmath route\) would need about"):
        check_numeric_report("f", 19_000, 19_000)


def test_cli_beyond_the_numeric_route_refuses_naming_the_option(capsys):
    scores = ",".join(str(i % 7) for i in range(NUMERIC_REPORT_MAX_N + 1))
    t0 = time.process_time()
    code = main(["report", "--scores", scores, "--no-files"])
    assert time.process_time() - t0 < 2
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"exactdp: error: --scores: the report on n = "
                          f"{NUMERIC_REPORT_MAX_N + 1} scores")


@pytest.mark.slow
def test_report_on_3000_scores_writes_its_files_with_the_note(capsys, tmp_path):
    """Issue 20: the report on 3000 scores ran past 100 s with no output."""
    q, q2 = _pair(3000)
    out = tmp_path / "big"
    code = main(["report", "--scores", ",".join(map(str, q)), "--neighbour-scores",
                 ",".join(map(str, q2)), "--out", str(out), "--no-pdf"])
    text = capsys.readouterr().out
    assert code == 0
    for name in ("report.tex", "summary.md", "expected-error.png", "privacy-loss.pdf",
                 "probabilities.png"):
        assert (out / name).exists(), name
    tex = (out / "report.tex").read_text()
    assert r"\textbf{Cheaper route.}" in tex and r"\appendix" not in tex
    assert "n = 3000 scores exceed" in (out / "summary.md").read_text()
    for r in (0, 2999):
        row = _row(text, str(r))
        assert row[1] == mpmath.nstr(_softmax(q, 1, r), 6)
        assert row[2] == mpmath.nstr(_pf(q, 1, r), 6)


def test_the_exact_report_cost_model_bounds_its_cpu_time():
    """The estimate that chooses the route is within a factor 3 of the CPU time of the
    exact report (here 5 scores, the 242 vertex neighbours searched exactly: 0.2-0.4 s,
    estimated 0.44 s; a 4x margin for a faster or busier machine)."""
    q, q2 = [3, 1, 0, 0, -2], [2, 2, 1, 0, -1]
    est = exact_report_seconds(5, 4)
    t0 = time.process_time()
    rep = build_report("1", example=None, scores=q, neighbour=q2)
    cpu = time.process_time() - t0
    assert not rep.route and est / 4 <= cpu <= 4 * est, (est, cpu)


def test_the_report_switches_route_where_the_cost_model_says():
    """Not at a fixed size: 25 distinct scores (an exact report of 30 s CPU) and 60 scores
    of 7 distinct values (19 s) take the numeric route (under a second); 60 scores of 3
    distinct values (3.6 s) and 20 distinct scores (12 s) stay exact. The estimates are
    within a factor 2.3 of those measured CPU times (exact_report_seconds' docstring)."""
    assert 30 / 2.3 <= exact_report_seconds(25, 25) <= 30 * 2.3
    assert exact_report_seconds(30, 30) > EXACT_REPORT_SECONDS
    assert 1.3 / 2.3 <= exact_report_seconds(10, 10) <= 1.3 * 2.3 and exact_route(10, 10)
    assert not exact_route(25, 25) and exact_route(60, 3) and exact_route(20, 20)
    assert not exact_route(60, 7) and not exact_route(80, 7)  # the two tests above
    fewer = exact_report_seconds(25, 25, 1)
    assert fewer < exact_report_seconds(25, 25) and exact_route(12, 12, 1)
    t0 = time.process_time()
    rep = build_report("1", example=None, scores=list(range(25)))
    assert time.process_time() - t0 < numeric_report_seconds(25, 25) * 5
    assert rep.route and "n = 25 scores (25 distinct): the exact route would take about" in \
        render(rep, "text")


def test_the_cli_says_the_exact_route_estimate_before_a_long_report(capsys, monkeypatch):
    import exactdp.io.report as report

    def computed(*args, **kwargs):
        raise ValueError("stop here")

    monkeypatch.setattr(report, "build_report", computed)
    assert main(["report", "--scores", ",".join(map(str, range(14))), "--no-files"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("exactdp report: the exact route on 14 scores takes about")
    assert main(["report", "--scores", "1,0", "--no-files"]) == 2
    assert "exact route" not in capsys.readouterr().err  # quick: nothing to announce


def test_report_bar_is_a_no_bar_without_a_terminal_or_progress(monkeypatch):
    """No bar is shown (and tqdm is not imported) unless progress is asked and standard
    error is a terminal; the NoBar takes the same calls."""
    import io
    import sys

    from exactdp.progress import NoBar

    monkeypatch.setattr(sys, "stderr", io.StringIO())  # not a terminal
    for progress in (False, True):
        with report_bar(3, progress) as bar:
            assert isinstance(bar, NoBar)
            bar.update(1)
