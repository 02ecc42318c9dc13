"""exactdp.io.provenance: what reproduces a report, its size guard, the labels check.

Independent routes: versions from importlib.metadata and platform, the date from
SOURCE_DATE_EPOCH computed here, the guard's limit at its boundary.
"""

from __future__ import annotations

import platform
from importlib.metadata import version

import pytest

import exactdp
from exactdp.io.provenance import check_labels, provenance
from exactdp.io.report import build_report


def test_provenance_names_versions_date_command_and_input(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(86400 * 365))  # 1971-01-01 UTC
    rep = build_report("1/2", example=None, scores=[2, 0], neighbour=[1, 1],
                       options={"command_line": "exactdp report --scores 2,0"})
    rows = dict(rep.provenance)
    assert rows["exactdp"] == exactdp.__version__
    assert rows["date"] == "1971-01-01"
    assert rows["command"] == "exactdp report --scores 2,0"
    assert rows["Python"] == platform.python_version()
    for name in ("sympy", "mpmath", "python-flint"):
        assert rows[name] == version(name)
    assert rows["scores"] == "q = (2, 0), q' = (1, 1); sensitivity 1"
    assert rows["epsilon"] == "1/2"
    # without a command line: the Python call that rebuilds the report
    again = provenance(rep.epsilon, rep.dps, rep.cases, {})
    assert dict(again)["command"] == ("exactdp.io.report.build_report('1/2', example=None, "
                                      "scores=['2', '0'], neighbour=['1', '1'], "
                                      "sensitivity='1')")


def test_check_labels():
    assert check_labels("f", [" a", "b "], 2) == ["a", "b"]
    with pytest.raises(ValueError, match=r"f: len\(labels\) must be 2 \(one per score\), got 3"):
        check_labels("f", ["a", "b", "c"], 2)
    for bad in (["a", "a"], ["a", ""]):
        with pytest.raises(ValueError, match="f: labels must be distinct non-empty names"):
            check_labels("f", bad, 2)


def test_provenance_names_the_git_commit_and_types_primes_as_math():
    """Issue 35 item 12: the PDF's provenance had no git commit and typed q' with a quote."""
    import subprocess
    from pathlib import Path

    from exactdp.io.provenance import git_commit
    from exactdp.io.report import render

    rep = build_report("1", example=None, scores=[2, 0], neighbour=[1, 1])
    root = Path(exactdp.__file__).resolve().parents[1]
    if (root / ".git").exists():  # a checkout: the commit, from git itself
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        commit = dict(rep.provenance)["git commit"]
        assert commit == git_commit() and head.startswith(commit.split()[0])
        assert f"(git {commit})" in render(rep, "text")
    else:  # an installed wheel: no row
        assert git_commit() is None and "git commit" not in dict(rep.provenance)
    latex = render(rep, "latex")
    box = latex[:latex.index(r"\par\medskip")]
    assert "$q'$ = (1," in box and "$q$ = (2," in box


def test_the_input_line_prints_epsilon_infinity_as_math():
    # --epsilon oo (the exact limit) was "epsilon: oo" in the PDF's provenance box
    from exactdp.io.provenance import provenance_section

    rows = [("exactdp", "1"), ("date", "d"), ("Python", "3"), ("sympy", "1"), ("mpmath", "1"),
            ("python-flint", "0"), ("command", "exactdp report --epsilon oo"),
            ("scores q", "q = (1, 0)"), ("epsilon", "oo")]
    box = provenance_section(rows, "latex")
    assert r"Input: scores q: $q$ = (1,\allowbreak{} 0); epsilon: $\infty$." in box
    assert r"\texttt{exactdp report --epsilon oo}" in box  # the command as typed
    assert "epsilon: 1/2." in provenance_section([*rows[:-1], ("epsilon", "1/2")], "latex")
