"""exactdp.proofs.result: run_checks collects named checks into a ProofResult (holds iff
every check passed, cases summed, a raising check failed with its message)."""

from __future__ import annotations

from exactdp.proofs.result import ProofResult, run_checks


def test_run_checks_sums_the_cases_and_keeps_every_certificate():
    r = run_checks("demo", "1 + 1 = 2 and 2 * 2 = 4", "two identities",
                   [("sum", lambda: (1 + 1 == 2, 1)), ("product", lambda: (2 * 2 == 4, 3))])
    assert isinstance(r, ProofResult) and r.holds and bool(r)
    assert (r.name, r.cases, r.certificates, r.failures) == (
        "demo", 4, (("sum", True), ("product", True)), ())
    assert r.seconds >= 0 and len(repr(r)) <= 200
    assert r"\checkmark" in r._repr_latex_() and r"4\ \text{cases}" in r._repr_latex_()


def test_a_failed_or_raising_check_fails_the_statement_with_its_reason():
    def boom():
        raise ZeroDivisionError("1 / 0")

    r = run_checks("bad", "a false claim", "none",
                   [("wrong", lambda: (False, 2, "witness q = (1, 0)")), ("boom", boom),
                    ("fine", lambda: (True, 5))])
    assert not r.holds and r.cases == 7
    assert r.certificates == (("wrong", False), ("boom", False), ("fine", True))
    assert r.failures == (("wrong", "witness q = (1, 0)"),
                          ("boom", "raised ZeroDivisionError: 1 / 0"))
    assert r"\times" in r._repr_latex_()
    assert not run_checks("empty", "nothing", "none", []).holds  # no check: not proved
