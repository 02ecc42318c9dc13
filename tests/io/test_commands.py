"""exactdp/io/commands.py: the commands, run after the arguments are checked."""

from __future__ import annotations

import argparse

import pytest

from exactdp.io.cli_args import CLIError
from exactdp.io.commands import MECHANISMS, build_mechanism, parse_scores, run_command


def test_run_command_reads_a_library_error_in_the_options_words():
    def failing(args):
        raise ValueError("build_report: len(neighbour) must be 3, got 2")

    with pytest.raises(CLIError) as info:
        run_command(failing, argparse.Namespace(command="report"))
    assert str(info.value) == "report: len(--neighbour-scores) must be 3, got 2"


def test_run_command_returns_the_text_at_fifteen_digits():
    import mpmath

    assert run_command(lambda args: str(mpmath.mp.dps), argparse.Namespace(command="x")) == "15"


def test_mechanisms_are_the_calibrated_selection_entries():
    label, mech = build_mechanism("PF", 1, 1, False)
    assert label == "PF" and MECHANISMS["pf"].label == "PF"
    # PF(1) on (1, 0), sensitivity 1: the runner-up is flipped first with probability 1/2
    # and accepted with p = exp(-1/2), so P(0) = 1/2 + (1 - p)/2 = 1 - exp(-1/2)/2
    import sympy

    p = mech.distribution([1, 0]).probabilities[0]
    assert sympy.simplify(p - (1 - sympy.exp(-sympy.Rational(1, 2)) / 2)) == 0
    with pytest.raises(CLIError, match="unknown mechanism 'nope'"):
        build_mechanism("nope", 1, 1, False)


def test_parse_scores_is_exact():
    import sympy

    assert parse_scores("1/2, 3, -1") == (sympy.Rational(1, 2), 3, -1)
    with pytest.raises(CLIError, match="--neighbour-scores: expected"):
        parse_scores("1,,2", "--neighbour-scores")


def test_terminal_width_reads_columns_with_a_floor(monkeypatch):
    from exactdp.io.commands import DEFAULT_WIDTH, terminal_width

    monkeypatch.setenv("COLUMNS", "97")
    assert terminal_width() == 97
    monkeypatch.setenv("COLUMNS", "12")
    assert terminal_width() == 40  # the narrowest table: the program column and one more
    monkeypatch.delenv("COLUMNS")
    assert terminal_width() == DEFAULT_WIDTH  # pytest's captured stdout is not a terminal
