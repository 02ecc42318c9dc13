"""`exactdp prove`: listing, a run, the table, and errors (exit code 2, one line)."""

from __future__ import annotations

import pytest

from exactdp.io.cli import main
from exactdp.io.cli import main as cli_main
from exactdp.proofs import PROOFS, load
from exactdp.proofs.result import ProofResult
from exactdp.proofs.runner import format_table


def test_every_module_exists_with_statement_and_verify():
    for name in PROOFS:
        mod = load(name)
        assert mod.NAME == name and mod.STATEMENT and callable(mod.verify)
        assert "Scope" in mod.__doc__ and "Method of the check" in mod.__doc__


def test_list(capsys):
    assert main(["prove", "--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in out] == list(PROOFS)


def test_run_prints_the_table(capsys):
    assert main(["prove", "section_4_entropy", "prove_example_1_3_sensitivity"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("| statement | scope | holds | cases | time (s) |")
    assert "`section_4_entropy`" in out and "`example_1_3_sensitivity`" in out
    assert out.count("| yes |") == 2


def test_workers_run_the_sweeps_in_processes(capsys):
    assert main(["prove", "thm_5_2_dominance", "--workers", "2"]) == 0
    assert "| yes | 128 |" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["prove", "nonsense"], "error: prove: NAME must be a known proof, one of"),
    (["prove", "--workers", "0"], "prove: --workers must be an integer in 1.."),
    (["prove", "--workers", "1", "--scheduler", "tcp://x:1"], "not both"),
])
def test_errors(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_failed_statement_is_marked_in_the_table():
    bad = ProofResult("x", "a false claim", False, "none", 1, (("c", False),), 0.0,
                      (("c", "witness"),))
    table = format_table([bad])
    assert "**NO**" in table and "x failed" in table


def test_scheduler_runs_the_sweeps_on_dask(capsys):
    distributed = pytest.importorskip("distributed")  # the 'dask' extra, installed in CI
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        code = main(["prove", "error_ratio_at_most_two", "--scheduler",
                     cluster.scheduler_address])
    assert code == 0
    assert "| yes | 128 |" in capsys.readouterr().out


def test_prove_caps_workers(capsys):
    assert cli_main(["prove", "thm_5_2_dominance", "--workers", "100000"]) == 2
    assert "prove: --workers must be an integer in 1.." in capsys.readouterr().err


def test_scheduler_that_cannot_be_reached(capsys, monkeypatch):
    """No scheduler at the address: one line naming it (a stand-in Client refusing)."""
    pytest.importorskip("distributed")
    import dask.distributed

    def refused(address, timeout):
        raise OSError(f"Timed out trying to connect to {address} after {timeout} s")

    monkeypatch.setattr(dask.distributed, "Client", refused)
    assert main(["prove", "error_ratio_at_most_two", "--scheduler", "tcp://127.0.0.1:1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("exactdp: error: prove: cannot connect to the Dask scheduler at "
                          "tcp://127.0.0.1:1 (Timed out") and err.count("\n") == 1
