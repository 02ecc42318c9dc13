"""docs/composition.md: its Python blocks run, and its table rows are recomputed."""

from __future__ import annotations

import pathlib
import re
import warnings

import pytest

from exactdp.io.composition import TABLE_POINTS, composition_table

DOC = pathlib.Path(__file__).resolve().parents[1] / "docs" / "composition.md"


def _table_rows(text: str) -> dict[tuple[str, str], str]:
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) > 3 and cells[1].isdigit():
            rows[(cells[0], cells[1])] = line.strip()
    return rows


def test_docs_python_blocks_run():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert blocks
    ns: dict = {}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), ns)  # noqa: S102 - the docs' own code
    assert ns["pld"].delta(2).value == 0


@pytest.mark.parametrize(
    "k", [pytest.param(k, marks=pytest.mark.slow) if k > 10 else k for k, _ in TABLE_POINTS])
def test_docs_table_rows_are_reproduced(k):
    """k = 100 rows take about a minute: ``--runslow``."""
    pytest.importorskip("dp_accounting")
    pytest.importorskip("opendp")
    points = [p for p in TABLE_POINTS if p[0] == k]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = _table_rows(composition_table(points))
    want = _table_rows(DOC.read_text())
    assert got and all(want[key] == line for key, line in got.items())


def test_composition_report_and_figure(tmp_path):
    from exactdp.io.composition import accountant_figure, composition_report

    text = composition_report(2, epsilons=["1/2", 2], claims=("kov", "zcdp"),
                              figure_prefix=None)
    assert text.count("k = 2") == 4 and "PermuteAndFlip" in text
    pytest.importorskip("matplotlib")
    import exactdp

    check = exactdp.check_accountant(exactdp.PermuteAndFlip(2), [0, 0], 10, [1, 4, 8],
                                     claims=("kov", "zcdp"))
    fig = accountant_figure(check)
    ax = fig.axes[0]
    labels = [line.get_label() for line in ax.lines]
    assert labels == ["kov", "zcdp", "certified lower bound", "refuted claim"]
    assert ax.get_yscale() == "log"
    # the drawn lower bound is the certified one
    assert list(ax.lines[2].get_ydata()) == [float(b.lower) for b in check.bounds]
    fig.savefig(tmp_path / "f.png")
    assert (tmp_path / "f.png").stat().st_size > 1000


def test_cli_report_compose(tmp_path, capsys):
    from exactdp.io.cli import main

    assert main(["report", "--scores", "0,1", "--no-files", "--compose", "0"]) == 2
    assert "--compose" in capsys.readouterr().err
    out = tmp_path / "rep"
    assert main(["report", "--scores", "0,1", "--out", str(out), "--no-pdf",
                 "--compose", "2"]) == 0
    text = capsys.readouterr().out
    assert "composition: k = 2" in text and text.count("k = 2") >= 4
    assert "PermuteAndFlip(epsilon=1) on [0, 1], k = 2" in text
    for name in ("ExponentialMechanism", "PermuteAndFlip", "ReportNoisyMax"):
        assert (out / f"composition-{name}.png").stat().st_size > 1000
