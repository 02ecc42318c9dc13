"""exactdp/io/cli_args.py: the argument checks that run before the library loads."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from exactdp.io import cli_args
from exactdp.io.cli_args import CLIError

ROOT = Path(__file__).resolve().parents[2]

#: Bad command lines, each refused by a check of cli_args (or by argparse).
BAD = [
    ["report", "--dps", "0"],
    ["report", "--compose", "0"],
    ["report", "--compose", "1000000000"],
    ["report", "--epsilon", "-1/2"],
    ["report", "--out", "README.md"],
    ["report", "--labels", "a,b"],
    ["report", "--neighbour-scores", "1,2"],
    ["report", "--scores", "1,,2"],
    ["report", "--bogus"],
    ["table", "--scores", "1,2", "--mechanisms", "xx"],
    ["table", "--scores", "1,2", "--epsilon", "nan"],
    ["table", "--scores", "1,2", "--exact", "--no-exact"],
    ["table", "--scores", "1,2", "--score", "revenue"],
    ["suite", "--programs", ","],
    ["suite", "--no-every-epsilon", "--scheduler", "tcp://127.0.0.1:1"],
    ["prove", "--workers", "2", "--scheduler", "tcp://127.0.0.1:1"],
]


def test_a_bad_argument_is_refused_before_sympy_or_a_mechanism_loads():
    """Every refusal of BAD comes without importing sympy, mpmath or the mechanisms (it cost
    0.9-1.3 s CPU of imports before): checked in a fresh interpreter, by its modules."""
    code = (
        "import contextlib, io, sys\n"
        "from exactdp.io.cli import main\n"
        f"for argv in {BAD!r}:\n"
        "    err = io.StringIO()\n"
        "    with contextlib.redirect_stderr(err):\n"
        "        try:\n"
        "            status = main(argv)\n"
        "        except SystemExit as exc:\n"
        "            status = exc.code\n"
        "    assert status == 2, (argv, status)\n"
        "    assert err.getvalue().startswith('exactdp: error: '), err.getvalue()\n"
        "    assert err.getvalue().count(chr(10)) == 1, err.getvalue()\n"
        "loaded = [m for m in ('sympy', 'mpmath', 'flint', 'exactdp.mechanisms',\n"
        "          'exactdp.io.commands', 'exactdp.io.report') if m in sys.modules]\n"
        "print(loaded)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", out.stdout


def test_the_copied_names_equal_their_sources():
    from exactdp.analysis.pld.core import MAX_COPIES
    from exactdp.io.commands import MECHANISMS
    from exactdp.io.report import DEFAULT_MECHANISMS

    assert cli_args.SELECTION_MECHANISMS == tuple(MECHANISMS)
    assert cli_args.REPORT_MECHANISMS == DEFAULT_MECHANISMS
    assert cli_args.MAX_COMPOSE == MAX_COPIES


def _args(**kw) -> argparse.Namespace:
    base = {"dps": 6, "mechanisms": "em,pf", "example": None, "neighbour": False,
            "score": None, "scores": "3,1,0", "epsilon": "1", "exact": False,
            "no_exact": False}
    base.update(kw)
    return argparse.Namespace(**base)


@pytest.mark.parametrize(("kw", "fragment"), [
    ({"dps": 1001}, "--dps must be an integer in 1..1000, got 1001"),
    ({"mechanisms": " , "}, "--mechanisms: give at least one mechanism"),
    ({"mechanisms": "em,PF,nope"}, "unknown mechanism 'nope'"),
    ({"epsilon": "-0.5"}, "--epsilon must be >= 0 (0 and oo are the limits), got '-0.5'"),
    ({"epsilon": "-1e-3"}, "--epsilon must be >= 0"),
    ({"scores": ","}, "--scores: expected comma-separated numbers, got ','"),
])
def test_table_checks_in_the_options_words(kw, fragment):
    with pytest.raises(CLIError) as info:
        cli_args.check_table(_args(**kw))
    assert fragment in str(info.value)


@pytest.mark.parametrize("epsilon", ["1", "0", "1/2", "0.25", "log(2)", "oo", "2e-3"])
def test_an_epsilon_that_may_be_good_passes_to_the_command(epsilon):
    cli_args.check_epsilon_text(epsilon)  # expressions are the command's to parse


def test_mechanism_keys_are_lower_case_words_of_the_list():
    assert cli_args.mechanism_keys(" EM, pf ,rnm-exp") == ["em", "pf", "rnm-exp"]
    assert cli_args.score_items("1, 2 ,3") == ["1", "2", "3"]


def test_out_path_checks(tmp_path):
    f = tmp_path / "file.txt"
    f.write_text("x")
    cli_args.check_out_path(str(tmp_path / "new"))  # a directory to create: fine
    with pytest.raises(CLIError, match="which is a file"):
        cli_args.check_out_path(str(f))
    with pytest.raises(CLIError, match="inside the file"):
        cli_args.check_out_path(str(f / "sub"))
    with pytest.raises(CLIError, match="got ' '"):
        cli_args.check_out_path(" ")


def test_the_table_cost_model_grows_as_n_cubed():
    # 4.5e-4 n^3 s a mechanism: n = 20 -> 3.6 s, n = 40 -> 28.8 s (8x)
    assert cli_args.exact_table_seconds(20, 1) == pytest.approx(3.6)
    assert cli_args.exact_table_seconds(40, 2) == pytest.approx(2 * 8 * 3.6)
