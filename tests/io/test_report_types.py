"""exactdp/io/report_types.py: the report's values, their short repr and HTML display."""

from __future__ import annotations

import pytest

from exactdp.io.report import build_report


@pytest.fixture(scope="module")
def report():
    return build_report("1", example=None, scores=[3, 1, 0], mechanisms=["em", "pf", "optimal"])


def test_the_repr_leads_with_the_verdicts_in_at_most_200_characters(report):
    text = repr(report)
    # EM(1) and PF(1) are 1-DP: both vertex searches hold (the docs' pricing table and
    # tests/analysis/test_check.py); the optimal mechanism is PF's distribution (= PF)
    assert text.startswith("Report(holds=True (2 of 2 checks), epsilon=1, cases=1, "
                           "mechanisms=(EM, PF, Optimal)"), text
    assert len(text) <= 200


def test_verdicts_are_the_worst_losses_of_the_checks(report):
    verdicts = report.verdicts()
    assert [v[1] for v in verdicts] == ["EM", "PF", "Optimal"]
    assert verdicts[2][2] is None  # = PF
    for _case, _label, holds, loss in verdicts[:2]:
        assert holds and 0 < loss <= 1


def test_the_html_display_is_a_table_of_the_mechanisms(report):
    page = report._repr_html_()
    assert page.startswith("<table>") and page.count("<tr>") == 3
    assert "= PF" in page and page.count("holds, worst loss") == 2


def test_a_long_title_is_cut():
    from dataclasses import replace

    r = build_report("1", example=None, scores=[1, 0], mechanisms=["pf"])
    long = replace(r, title="t" * 300)
    assert len(repr(long)) <= 200 and repr(long).endswith("...')")
