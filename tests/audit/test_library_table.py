"""The verification suite's table (exactdp/audit/library_table.py): four formats, exact cells."""

from __future__ import annotations

from dataclasses import replace

import pytest
import sympy

from exactdp import verification_suite
from exactdp.audit.library_table import (
    LIBRARY_HEADER,
    TIME_HEADER,
    library_cells,
    library_table,
    loss_cell,
    output_cell,
    text_panels,
)
from exactdp.audit.suite import PairLoss


@pytest.fixture(scope="module")
def rows():
    return verification_suite(["randomized_response_incorrect", "truncated_geometric"],
                              progress=False).rows


def test_cells(rows):
    bad, geo = (library_cells(r) for r in rows)
    assert list(bad) == [*LIBRARY_HEADER, TIME_HEADER]
    # ln((1 + eps)/(1 - eps)) = ln(11/9) at eps = 1/10 (DiPC's incorrect randomized response)
    assert bad["worst loss"] == "0.200671" and bad["verdict"] == "not private"
    assert bad["DiPC"] == "False, 1 s" and bad["CheckDP"] == "--"
    assert geo["worst loss"] == "0.1" and geo["pair"] == "2 vs 3"
    # a row's note (fewer queries than the tools', undecided) is shown with its search
    noted = library_cells(replace(rows[1], note="2 queries: 3 take 3.7 s CPU"))
    assert noted["search"] == ("check_dp heuristic from 2 (2 neighbours) (2 queries: 3 take "
                               "3.7 s CPU)")


def test_formats(rows):
    text = library_table(rows).splitlines()
    assert len(text) == 3 and text[1].startswith("randomized_response_incorrect  ")
    assert text[0].endswith(TIME_HEADER)  # the text table adds the CPU seconds
    md = library_table(rows, "markdown").splitlines()
    assert md[0].endswith(f"| {TIME_HEADER} |")  # as in the text table (it had none)
    assert md[1] == "|" + "---|" * (len(LIBRARY_HEADER) + 1)
    assert md[2].endswith(f"| {rows[0].seconds:.2f} |")
    bare = library_table(rows, "markdown", seconds=False).splitlines()  # the committed page
    assert bare[1] == "|" + "---|" * len(LIBRARY_HEADER) and TIME_HEADER not in bare[0]
    with pytest.raises(ValueError, match="library_table: seconds must be"):
        library_table(rows, "markdown", seconds="no")
    assert library_table(rows, "latex").count(r"\\") == 3
    assert library_table(rows, "html").count("<tr>") == 3
    with pytest.raises(ValueError, match="library_table: fmt must be one of"):
        library_table(rows, "csv")


def test_text_table_wraps_to_a_width_in_panels_led_by_the_program(rows):
    # one text table's lines were up to 420 characters in a terminal
    wide = library_table(rows)
    assert max(len(line) for line in wide.splitlines()) > 200
    for width in (120, 80, 40):
        text = library_table(rows, width=width)
        lines = text.splitlines()
        assert max(len(line) for line in lines) <= width
        panels = text.split("\n\n")
        assert len(panels) > 1 and all(p.startswith("program ") for p in panels)
        # every column is in some panel, and the cells are those of the one-line table
        heads = " ".join(p.splitlines()[0] for p in panels)
        assert all(h in heads for h in LIBRARY_HEADER if len(h) < width - 40)
        assert TIME_HEADER in panels[-1].splitlines()[0]
    assert "0.200671" in library_table(rows, width=80)
    # markdown and LaTeX are never wrapped
    assert library_table(rows, "markdown", width=80) == library_table(rows, "markdown")
    with pytest.raises(ValueError, match="library_table: width must be an integer >= 40"):
        library_table(rows, width=10)


def test_text_panels_cut_a_cell_wider_than_the_room():
    text = text_panels(["program", "output"], [["svt1", "x" * 100]], 40)
    assert text.splitlines()[1] == "svt1     " + "x" * 28 + "..."
    assert text_panels(["a", "b"], [["1", "2"]]) == "a  b\n1  2"


def test_loss_cell_bracket_and_supremum(rows):
    """A pair with no closed form prints its certified bracket; a supremum no output
    attains is marked "sup"."""
    row = rows[0]
    lo, hi = sympy.Rational(149, 1000), sympy.Rational(3, 20)
    bracket = PairLoss("X shape", (1, 0), (0, 1), lo, "(F, v)", True, (lo, hi))
    assert loss_cell(replace(row, worst=bracket, loss=lo)) == "in [0.149, 0.15]"
    near = PairLoss("one below", (1,), (0,), sympy.Integer(1), "v -> oo", False)
    assert loss_cell(replace(row, worst=near, loss=near.loss)) == "sup 1"
    assert loss_cell(replace(row, worst=None, loss=None)) == "--"
    # LaTeX: the bracket and a witness's infinity are math (sympy's oo was printed as text)
    tex = library_table([replace(row, worst=replace(near, output="v -> +oo"), loss=near.loss),
                         replace(row, worst=bracket, loss=lo)], "latex")
    assert r"& v $\to \infty$ &" in tex and r"& in $[0.149, 0.15]$ &" in tex


def test_output_cell_cuts_at_a_tuple_boundary():
    # it cut a pattern mid-tuple ('(False, Fal...)'); now after the last whole element
    text = ("the pattern (False, (False, True, None), REAL, (3, REAL), False, False, True, "
            "None, None, None, None, None) as the value -> +oo")
    cell = output_cell(text)
    assert cell == ("the pattern (False, (False, True, None), REAL, (3, REAL), False, False, "
                    "True, None, ...)")
    assert len(cell) <= 90 and output_cell("short") == "short"
    assert output_cell("x" * 100) == "x" * 87 + "..."  # no tuple open: a plain cut
    closed = "the pattern (REAL, REAL) with every noise beyond both centres, " + "y" * 40
    assert output_cell(closed) == closed[:87] + "..."  # the tuple closed before the cut
    nested = output_cell("(" + ", ".join(["(True, False)"] * 10) + ")", 40)
    assert nested == "((True, False), (True, False), ...)"
    assert output_cell("at least the pattern (" + "F" * 80) == "at least the pattern (...)"
