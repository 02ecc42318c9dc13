"""The run limit near its edge: an estimate within the band leaves the decision to the exact
count (the same verdict whatever the estimate inside the band), under a counted budget of
draws and decisions."""

from __future__ import annotations

import pytest
import sympy

from exactdp.cost import TooCostly
from exactdp.programs import laplace, program
from exactdp.programs import limits as L
from exactdp.programs import trace as T
from exactdp.programs.limits import (
    BAND_WORK,
    MARGIN,
    band_refusal,
    decide,
    execution_work,
    near,
    past,
)
from exactdp.programs.runs import Budget, Estimate
from exactdp.programs.trace import PROBE_AT, PROBES, enumerate_runs, probe_runs


@program()
def nine_coins(q, epsilon):
    """2**9 = 512 runs, every path 9 decisions deep."""
    return tuple(laplace(1) > 0 for _ in range(9))


def _call():
    return nine_coins(epsilon=1).program.bind((), 1, ())


def test_the_band_and_the_work_of_an_execution():
    assert MARGIN == 1.3 and past(1.31 * 4096, 4096) and not past(1.29 * 4096, 4096)
    assert near(4096 / 1.29, 4096) and not near(4096 / 1.31, 4096) and near(4096, 4096)
    assert execution_work(9, 9) == 19
    # the 4,096 runs of SVT6 on 12 answers (12 decisions, 13 draws each) and their probes
    # (counted as the 256 runs before them) fit the budget
    assert (4096 + 256) * execution_work(12, 13) == 113_152 <= BAND_WORK
    msg = str(band_refusal("f", "p", 4400, 4096, "cheaper"))
    assert msg.startswith("f: an exact count of the runs of program p (estimated at about")
    assert f"more than {BAND_WORK} draws and decisions" in msg and msg.endswith("; cheaper")


@pytest.mark.parametrize("estimate", [400, 660])
def test_in_the_band_the_exact_count_decides_whatever_the_estimate(monkeypatch, estimate):
    # 512 runs against limits of 512 (accepted) and 511 (refused at the 512th run), the
    # probes' estimate forced anywhere in the band [limit / 1.3, 1.3 limit]
    monkeypatch.setattr(T, "probe_runs", lambda *a, **k: Estimate(estimate, 0.0))
    trace = enumerate_runs(_call(), "nine_coins", nine_coins.filename, max_runs=512)
    assert len(trace.runs) == trace.executions == 512
    calls = []
    inner = _call()

    def counted():
        calls.append(1)
        return inner()
    with pytest.raises(TooCostly, match=r"runs \(limit 511 runs\)"):
        enumerate_runs(counted, "nine_coins", nine_coins.filename, max_runs=511)
    assert len(calls) == 511  # refused by the exact count, not by the estimate


def test_past_the_band_the_estimate_refuses_at_the_probes(monkeypatch):
    monkeypatch.setattr(T, "probe_runs", lambda *a, **k: Estimate(700, 0.0))
    with pytest.raises(TooCostly, match=r"about 700 runs \(limit 512 runs\)"):
        enumerate_runs(_call(), "nine_coins", nine_coins.filename, max_runs=512)


def test_the_real_probes_of_a_tree_at_the_limit_no_longer_refuse_it():
    # SVT6 on 12 answers: exactly 4096 runs (the limit); its probes estimate about 4,382,
    # which refused it before the band
    from exactdp.programs.library import svt6

    m = svt6(epsilon=1, threshold=0)
    call = m.program.bind((sympy.Integer(0),) * 12, m.epsilon, m.arguments)
    estimate = probe_runs(call, "svt6", m.program.filename).runs
    assert 4096 < estimate and near(estimate, 4096)
    assert len(enumerate_runs(call, "svt6", m.program.filename).runs) == 4096


def test_the_band_is_bounded_by_a_count_of_draws_and_decisions(monkeypatch):
    monkeypatch.setattr(T, "probe_runs", lambda *a, **k: Estimate(520, 0.0))
    for module in (T, L):
        monkeypatch.setattr(module, "BAND_WORK", 300 * execution_work(9, 9))
    # the work is counted, not timed: the 256 runs before the probes and the probes (as
    # many again) are 512 x 19 > 300 x 19, refused at the probes, on any machine
    calls = []
    inner = _call()

    def counted():
        calls.append(1)
        return inner()
    with pytest.raises(TooCostly, match=r"exact count of the runs of program nine_coins "
                       r"\(estimated at about 520, near the limit of 512 runs\)"):
        enumerate_runs(counted, "nine_coins", nine_coins.filename, max_runs=512)
    assert len(calls) == PROBE_AT
    assert PROBE_AT < 300 < 512 == PROBES + PROBE_AT
    # a budget of 600 x 19: 512 x 19 at the probes, 19 per run after: refused at run 345
    for module in (T, L):
        monkeypatch.setattr(module, "BAND_WORK", 600 * execution_work(9, 9))
    calls.clear()
    with pytest.raises(TooCostly, match="exact count of the runs"):
        enumerate_runs(counted, "nine_coins", nine_coins.filename, max_runs=512)
    assert len(calls) == 345
    # below the band the enumeration is not bounded by it (the run limit bounds it)
    monkeypatch.setattr(T, "probe_runs", lambda *a, **k: Estimate(520, 0.0))
    assert enumerate_runs(_call(), "nine_coins", nine_coins.filename,
                          max_runs=1000).executions == 512


def _budget(limit: float, seen: list[float]) -> Budget:
    def check(est: Estimate) -> None:
        seen.append(est.seconds)
        if est.seconds > limit:
            raise TooCostly("over")
    return Budget(lambda run: 0.0, check)


def test_decide_refuses_past_the_band_and_checks_the_integration_at_once():
    with pytest.raises(TooCostly, match="runs"):
        decide(6000, 4096, Estimate(6000, 0.0), None, TooCostly("runs"))
    assert decide(4000, 4096, Estimate(4000, 0.0), None, TooCostly("runs")) is True
    assert decide(100, 4096, Estimate(100, 0.0), None, TooCostly("runs")) is False
    seen: list[float] = []
    assert decide(4000, 4096, Estimate(4000, 100.0), _budget(120.0, seen), TooCostly("x"))
    assert seen == [100.0]
    with pytest.raises(TooCostly, match="over"):  # the integration: refused at the probes
        decide(4000, 4096, Estimate(4000, 130.0), _budget(120.0, []), TooCostly("x"))
