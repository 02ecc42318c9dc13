"""exactdp/io/entry.py: the console entry point answers --version alone."""

from __future__ import annotations

import exactdp
from exactdp.io.entry import VERSION_FLAGS, main


def test_version_answers_and_other_commands_go_to_the_command_line(capsys):
    assert VERSION_FLAGS == (["--version"],)
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"exactdp {exactdp.__version__}\n"
    assert main(["report", "--dps", "0"]) == 2  # the command line's own check
    assert capsys.readouterr().err == ("exactdp: error: --dps must be an integer in 1..1000, "
                                       "got 0\n")


def test_a_command_runs_with_the_command_thresholds_and_restores_the_callers():
    import gc

    from exactdp.io.entry import COMMAND_GC_THRESHOLD, command_gc

    before = gc.get_threshold()
    seen = []
    with command_gc():
        seen.append(gc.get_threshold())
    assert seen == [COMMAND_GC_THRESHOLD]
    assert gc.get_threshold() == before
    try:  # restored when the command raises too
        with command_gc():
            raise KeyError("x")
    except KeyError:
        pass
    assert gc.get_threshold() == before
