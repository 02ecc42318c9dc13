"""The suite over the program library (exactdp/audit/program_suite.py).

Independent routes: the worst pairs' losses recomputed on the library's *program* (the
programs' integrator, not the SparseVector class that computes the rows), the numbers of an
independent check filed in issue 34 (SVT1 0.0985244 on 1^10 vs 2^9 0, SVT2 0.0984191, SVT4
0.174880: check_dp's heuristic search, strictly worse than the pattern table's 0.0885258,
0.0882304, 0.172471), DiPC's verdicts and witnesses on its domain (``final.txt``; SVT4 fails
at epsilon = 3/5, SVT6 at 67/92), closed forms (randomized response: exactly epsilon; its
incorrect twin: ln((1 + eps)/(1 - eps)) = ln(11/9)) and the tools' published lower bounds
(a sound lower bound lies below the exact loss on its own pair).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
import sympy

import exactdp
from exactdp import LibraryRow, LibrarySuite, library_suite
from exactdp.audit import program_suite as ls
from exactdp.audit.library_table import LIBRARY_HEADER
from exactdp.exact.exp_poly_sign import Root
from exactdp.programs import laplace, program

CLAIM = sympy.Rational(1, 10)


@pytest.fixture(scope="module")
def svt_rows() -> LibrarySuite:
    return library_suite(["svt1", "svt2", "svt4"], progress=False)


@pytest.mark.parametrize(("name", "value", "table"), [
    ("svt1", "0.0985244", "0.0885258"), ("svt2", "0.0984191", "0.0882304"),
    ("svt4", "0.17488", "0.172471")])
def test_heuristic_pairs_are_the_rows_worst(svt_rows, name, value, table):
    """Issue 34's regression values: check_dp's heuristic search finds strictly worse pairs
    than StatDP's patterns, at 10 queries, (1)^10 vs (2)^9 0, output FFFFFFFFFT; the loss
    recomputed on the program itself (the programs' integrator) is the same exact number."""
    row = svt_rows[name]
    assert exactdp.printing.format_number(row.loss, 6) == value
    assert row.worst.pattern == ls.HEURISTIC and row.worst.output == "FFFFFFFFFT"
    assert row.worst.scores == (1,) * 10 and row.worst.neighbour == (2,) * 9 + (0,)
    assert sympy.Float(table) < row.loss  # strictly worse than the pattern table's worst
    prog = ls.build(name).with_epsilon(CLAIM)  # the class route
    own = ls.library()[name](epsilon=CLAIM, **ls.setting(name).parameters)
    assert prog is not own
    same = exactdp.privacy_loss(own, row.worst.scores, row.worst.neighbour).loss
    assert exactdp.exact.compare(same, row.loss) == 0
    assert row.holds is (name != "svt4") and row.private is (name != "svt4")
    assert "8 StatDP patterns + check_dp heuristic from 1111111111 (152 neighbours)" == row.search


def test_published_lower_bounds_lie_below_the_exact_worst(svt_rows):
    for row in svt_rows:
        for pub in row.tools.lower_bounds():
            assert row.shortfall(pub.tool) > 0
    assert str(svt_rows["svt1"].tools.dipc) == "True, 703 s"
    assert str(svt_rows["svt4"].tools.checkdp) == "counterexample"


def test_every_epsilon_on_dipc_domain_agrees_with_dipc(svt_rows):
    """DiPC: SVT1 and SVT2 True; SVT4 False with witness 3/5; SVT6 False with 67/92."""
    assert svt_rows["svt1"].every_epsilon.status == "certified"
    assert svt_rows["svt2"].every_epsilon.status == "certified"
    assert svt_rows["svt1"].every_epsilon.pairs == len(ls.dipc_pairs()) == 158
    svt4 = svt_rows["svt4"].every_epsilon
    assert svt4.status == "refuted" and svt4.failing_pairs > 0
    six = ls.every_epsilon("svt6")
    assert six.status == "refuted"
    for col, witness in ((svt4, sympy.Rational(3, 5)), (six, sympy.Rational(67, 92))):
        assert any(_inside(iv, witness) for iv in col.failing_epsilons), str(col)
    assert str(six).startswith("refuted for epsilon in (0, ")


def _inside(iv, e) -> bool:
    lo = iv.lower.hi if isinstance(iv.lower, Root) else iv.lower
    hi = None if iv.upper is None else (iv.upper.lo if isinstance(iv.upper, Root) else iv.upper)
    return lo < e and (hi is None or e < hi)


def test_every_epsilon_on_an_executor_matches_the_cached_column():
    """The all-pairs sweep on a given executor (Dask: Client.get_executor()) gives the same
    column as the local run."""
    with ThreadPoolExecutor(2) as pool:
        remote = ls.every_epsilon("svt4", executor=pool)
    local = ls.every_epsilon("svt4")
    assert (remote.status, remote.pairs, remote.failing_pairs) == (
        local.status, local.pairs, local.failing_pairs)


def test_adjacency_one_programs_closed_forms_and_not_applicable():
    suite = library_suite(["randomized_response", "randomized_response_incorrect",
                           "truncated_geometric"], progress=False)
    rr, bad, geo = suite.rows
    assert rr.loss == CLAIM and rr.holds  # Warner: exactly epsilon
    assert bad.loss == sympy.log(sympy.Rational(11, 9)) and bad.holds is False
    assert bad.private is False and rr.private is True
    assert geo.loss == CLAIM and geo.holds
    for r in suite:
        assert r.every_epsilon.status == "not applicable"
        assert "adjacency 'one'" in str(r.every_epsilon)
    assert rr.worst.output == "output (0, 0, 1)" or rr.worst.output.startswith("output")


def test_a_new_program_becomes_a_row(monkeypatch):
    """The suite reads the library generically: a program without a setting is a row."""
    @program(sensitivity=1)
    def half_svt(q, epsilon, threshold=1):
        rho = laplace(2 / epsilon)
        return tuple(a + laplace(4 / epsilon) >= threshold + rho for a in q)

    monkeypatch.setattr(ls, "PROGRAMS", {"half_svt": half_svt})
    monkeypatch.setattr(ls, "SETTINGS", {"half_svt": ls.SuiteSetting(queries=2)})
    row = library_suite(every=False, progress=False)["half_svt"]
    assert isinstance(row, LibraryRow) and row.route == "the program"
    assert row.every_epsilon.status == "not run" and row.loss is not None
    assert row.search.startswith("7 StatDP patterns + check_dp heuristic from 11 (8 neighbours)")


def test_display_repr_table_and_progress(svt_rows, capsys):
    text = repr(svt_rows)
    assert len(text) <= 200 and text.startswith(
        "LibrarySuite(3 programs: 1 not private, 2 private on the pairs searched, "
        "every epsilon: 2 certified, 1 refuted")
    md = svt_rows.to_markdown().splitlines()
    assert md[0] == "| " + " | ".join(LIBRARY_HEADER) + " |" and len(md) == 5
    assert md[2].startswith("| svt1 | private | private on the pairs searched | 0.0985244 | "
                            "1111111111 vs 2222222220 | FFFFFFFFFT | check_dp heuristic |")
    assert "<table>" in svt_rows._repr_html_()
    assert svt_rows._repr_latex_().startswith(r"\begin{tabular}")
    assert "every epsilon on DiPC's domain: certified (158 pairs)" in svt_rows["svt1"].summary()
    library_suite(["truncated_geometric"], progress=True)
    assert "exactdp suite" in capsys.readouterr().err


def test_bad_program_names():
    with pytest.raises(ValueError, match="library_suite: programs must be names from"):
        library_suite(["svt9"])
    with pytest.raises(ValueError, match="library_suite: programs must be a non-empty"):
        library_suite("svt1")
