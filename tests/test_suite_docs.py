"""docs/suite.md: the committed table is the output of ``verification_suite()`` (every cell
but the time), and the page's numbers hold."""

from __future__ import annotations

import pathlib
import re

import pytest

from exactdp import verification_suite
from exactdp.io.suite import HEADER, row_cells

DOC = pathlib.Path(__file__).resolve().parents[1] / "docs" / "suite.md"


def committed() -> dict[str, list[str]]:
    """The table between the page's suite-table markers: algorithm -> cells."""
    block = re.search(r"<!-- suite-table -->\n(.*?)<!-- /suite-table -->", DOC.read_text(),
                      flags=re.S).group(1).strip().splitlines()
    assert block[0] == "| " + " | ".join(HEADER) + " |"
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in block[2:]]
    return {cells[0]: cells for cells in rows}


def _check(names: list[str]) -> None:
    table = committed()
    for row in verification_suite(10, algorithms=names):
        assert row_cells(row)[:-1] == table[row.algorithm][:-1], row.algorithm


def test_the_committed_table_holds_for_the_noisy_max_rows():
    _check(["RNM1", "RNM2"])


def test_the_committed_table_has_the_suites_rows_in_order():
    names = list(committed())
    assert names[:2] == ["RNM1", "RNM2"] and "SVT6" in names
    order = ["RNM1", "RNM2", "RNM3", "RNM4", "SVT1", "SVT2", "SVT3", "SVT4", "SVT5", "SVT6",
             "NumericalSVT"]
    assert names == [n for n in order if n in names]


@pytest.mark.slow
def test_the_whole_committed_table_is_verification_suites_output():
    _check(list(committed()))
