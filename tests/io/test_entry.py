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
