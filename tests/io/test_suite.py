"""The suite's table (exactdp/io/suite.py): cells from the exact rows, three formats."""

from __future__ import annotations

import pytest
import sympy

from exactdp import verification_suite
from exactdp.audit.suite import PairLoss
from exactdp.io import suite_table
from exactdp.io.suite import HEADER, loss_text, pair_text, row_cells


@pytest.fixture(scope="module")
def rows():
    return verification_suite(2, algorithms=["RNM2", "SVT5"], search_queries=None)


def test_cells_of_a_row(rows):
    rnm2, svt5 = (row_cells(r) for r in rows)
    assert len(rnm2) == len(HEADER) == 13
    # RNM2 on (1,1,1,1,1) vs (0,2,2,2,2): exactly the claim, 1/10 (Ding et al. 2021: PF)
    assert rnm2[:5] == ["RNM2", "private", "one below rest above", "0.1", "0.0975"]
    assert rnm2[8:12] == ["one below rest above 11111/02222", "0.1",
                          "private on the pairs checked", "index 0"]
    assert svt5[1] == "not private" and svt5[9] == "inf" and svt5[10] == "not private"
    assert svt5[2] == "half half (swapped)"  # DP-Sniper reported (a', a)
    # at m = 2 half half is 'one above rest below': its exact loss is shown all the same
    assert svt5[3] == "inf" and svt5[6] == "inf"


def test_pair_and_loss_text():
    p = PairLoss("all above", (1, 1), (2, 2), sympy.Rational(1, 4), "the value v -> oo",
                 attained=False)
    assert pair_text(p) == "all above 11/22"
    assert loss_text(p) == "sup 0.25" and loss_text(None) == "--"
    q = PairLoss("x", (10, -1), (11, 0), sympy.log(2), "index 1")
    assert pair_text(q) == "x (10,-1)/(11,0)" and loss_text(q) == "0.693147"


def test_formats(rows):
    md = suite_table(rows, "markdown").splitlines()
    assert md[0] == "| " + " | ".join(HEADER) + " |" and md[1] == "|" + "---|" * 13
    assert md[2].startswith("| RNM2 | private | one below rest above | 0.1 | 0.0975 |")
    tex = suite_table(rows, "latex")
    assert tex.startswith(r"\begin{tabular}{lllllllllllll}") and r"DP-Sniper eps\_lcb" in tex
    assert tex.rstrip().endswith(r"\end{tabular}") and tex.count(r"\\") == 3
    text = suite_table(rows).splitlines()
    assert len(text) == 3 and text[1].startswith("RNM2  ")
    assert text[0].index("literature") == text[1].index("private")  # aligned columns
    with pytest.raises(ValueError, match="suite_table: fmt must be one of"):
        suite_table(rows, "html")
