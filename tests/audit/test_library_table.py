"""The library suite's table (exactdp/audit/library_table.py): four formats, exact cells."""

from __future__ import annotations

import pytest

from exactdp import library_suite
from exactdp.audit.library_table import LIBRARY_HEADER, library_cells, library_table


@pytest.fixture(scope="module")
def rows():
    return library_suite(["randomized_response_incorrect", "truncated_geometric"],
                         progress=False).rows


def test_cells(rows):
    bad, geo = (library_cells(r) for r in rows)
    assert list(bad) == list(LIBRARY_HEADER)
    # ln((1 + eps)/(1 - eps)) = ln(11/9) at eps = 1/10 (DiPC's incorrect randomized response)
    assert bad["exact worst loss"] == "0.200671" and bad["verdict"] == "not private"
    assert bad["DiPC"] == "False, 1 s" and bad["CheckDP"] == "--"
    assert geo["exact worst loss"] == "0.1" and geo["pair"] == "2 vs 3"


def test_formats(rows):
    text = library_table(rows).splitlines()
    assert len(text) == 3 and text[1].startswith("randomized_response_incorrect  ")
    md = library_table(rows, "markdown").splitlines()
    assert md[1] == "|" + "---|" * len(LIBRARY_HEADER)
    assert library_table(rows, "latex").count(r"\\") == 3
    assert library_table(rows, "html").count("<tr>") == 3
    with pytest.raises(ValueError, match="library_table: fmt must be one of"):
        library_table(rows, "csv")
