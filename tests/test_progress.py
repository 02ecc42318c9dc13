"""exactdp/progress.py: one policy for the progress bars on standard error."""

from __future__ import annotations

import io
import itertools
import subprocess
import sys
from pathlib import Path

from exactdp import progress as progress_module
from exactdp.analysis.engines.select import ENGINE_PASSES
from exactdp.progress import SHOW_SECONDS, NoBar, Steps, progress_bar, shows

ROOT = Path(__file__).resolve().parents[1]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _terminal(monkeypatch) -> _Terminal:
    """Standard error as a terminal, set in the test's call (pytest's capture swaps
    sys.stderr per phase, so a fixture's setting would not last into the call)."""
    err = _Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    return err


def test_no_bar_off_a_terminal_or_when_refused(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # not a terminal (a pipe, a file)
    assert not shows(True, 100.0) and not shows(None)
    assert isinstance(progress_bar(10, "x", progress=True), NoBar)


def test_the_policy_on_a_terminal(monkeypatch):
    _terminal(monkeypatch)
    assert SHOW_SECONDS == 2.0
    assert not shows(False, 100.0)  # the user said no
    assert not shows(None, 1.5)  # estimated short: no bar
    assert shows(None, 2.5) and shows(True, 0.1) and shows(None, None)


def test_a_shown_bar_counts_on_standard_error(monkeypatch):
    terminal = _terminal(monkeypatch)
    with progress_bar(3, "check_dp", progress=True, unit="neighbour") as bar:
        for _ in range(3):
            bar.update(1)
    # tqdm redraws at most every 0.1 s and clears the bar at the end (leave=False)
    assert "check_dp" in terminal.getvalue() and "/3 " in terminal.getvalue()


def test_without_an_estimate_the_bar_waits_two_seconds(monkeypatch):
    _terminal(monkeypatch)
    bar = progress_bar(5, "composition")
    assert bar.delay == SHOW_SECONDS  # tqdm shows it only once the loop has run that long
    bar.close()
    assert progress_bar(5, "composition", seconds=3.0).delay == 0


def test_a_short_or_quiet_call_imports_no_tqdm():
    code = ("import sys\nfrom exactdp.progress import progress_bar\n"
            "with progress_bar(3, 'x', progress=False) as bar:\n    bar.update(1)\n"
            "print('tqdm' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=120, check=True)
    assert out.stdout.strip() == "False"


def test_check_dp_and_the_composition_bound_show_their_bars_when_asked(monkeypatch):
    terminal = _terminal(monkeypatch)
    import exactdp

    r = exactdp.check_dp(exactdp.PermuteAndFlip(1), [3, 1, 0], progress=True)
    assert r.holds and r.loss == 1  # PF(1) on [3,1,0]: loss exactly 1 (tests/test_result.py)
    assert "check_dp" in terminal.getvalue() and "step" in terminal.getvalue()
    b = exactdp.composition_lower_bound(exactdp.PermuteAndFlip(1), [0, 0], 3, 1,
                                        progress=True)
    # delta(1) of PF(1) composed 3 times on (0,0) vs (-1,1): 0.2579242399305714...
    assert abs(float(b) - 0.2579242399305714) < 1e-12
    assert "composition" in terminal.getvalue()
    before = terminal.getvalue()
    exactdp.check_dp(exactdp.PermuteAndFlip(1), [3, 1, 0], progress=False)
    assert terminal.getvalue() == before


def test_the_module_is_one_policy():
    assert set(progress_module.__dict__) >= {"progress_bar", "shows", "NoBar", "SHOW_SECONDS"}


def test_check_dp_opens_its_bar_before_the_engine_and_on_the_ball_route(monkeypatch):
    """Before, the exact route opened its bar only after every vector's probabilities were
    computed (most of the time, silent), and the ball route (RNM-Gaussian) had none."""
    import exactdp
    from exactdp.analysis import check as check_module

    terminal = _terminal(monkeypatch)
    order = []
    make_engine = check_module.make_engine
    real_bar = check_module.progress_bar

    def engine(*args, **kwargs):
        order.append("engine")
        return make_engine(*args, **kwargs)

    def bar(total, desc, **kwargs):
        order.append(("bar", total, kwargs.get("seconds")))
        return real_bar(total, desc, **kwargs)

    monkeypatch.setattr(check_module, "make_engine", engine)
    monkeypatch.setattr(check_module, "progress_bar", bar)
    r = exactdp.check_dp(exactdp.PermuteAndFlip(1), [3, 1, 0], progress=True)
    # 3**3 - 1 neighbours: 27 vectors' engine passes, then 26 neighbours compared
    assert r.loss == 1 and order == [("bar", ENGINE_PASSES * 27 + 26, None), "engine"]
    # the ball engine: RNM-Gaussian (no exact probabilities), its bar counts the neighbours
    order.clear()
    g = exactdp.check_dp(exactdp.GaussianNoisyMax(1), [1, 0], epsilon=10, progress=True)
    assert g.engine == "ball" and order == [("bar", ENGINE_PASSES * 9 + 8, None), "engine"]
    assert terminal.getvalue().count("check_dp") >= 2


class _Recorder:
    def __init__(self, events: list) -> None:
        self.events = events

    def update(self, n: int = 1) -> None:
        self.events.append(("update", n))

    def close(self) -> None:
        self.events.append("close")


def test_steps_are_capped_and_finish_tops_up():
    events: list = []
    steps = Steps(_Recorder(events), 3)
    for _ in range(5):  # a stage that repeats its steps never overshoots
        steps()
    steps.finish()
    assert events == [("update", 1)] * 3
    events.clear()
    steps = Steps(_Recorder(events), 4)
    steps()
    steps.finish()
    steps.finish()
    assert events == [("update", 1), ("update", 3)]


def test_check_dp_s_bar_moves_vector_by_vector_while_the_engine_builds(monkeypatch):
    """Before, the bar stood at 0 while the engine computed every vector's probabilities
    (most of the time) and moved only over the neighbours."""
    import exactdp
    from exactdp.analysis import check as check_module

    events: list = []
    make_engine = check_module.make_engine

    def engine(*args, step, **kwargs):
        events.append("engine")

        def counted():
            events.append("vector")
            step()

        out = make_engine(*args, step=counted, **kwargs)
        events.append("built")
        return out

    def bar(total, desc, **kw):
        events.append(("bar", total))
        return _Recorder(events)

    monkeypatch.setattr(check_module, "make_engine", engine)
    monkeypatch.setattr(check_module, "progress_bar", bar)
    r = exactdp.check_dp(exactdp.ExponentialMechanism(1), [2, 1, 0], progress=True)
    assert r.holds
    nbrs = r.neighbours_checked
    total = ENGINE_PASSES * (nbrs + 1) + nbrs
    assert events[:2] == [("bar", total), "engine"]
    # inside the engine: each pass over the vectors (distribution, capabilities, form,
    # check), each vector followed by one step of the bar
    built = events.index("built")
    assert events[2:built] == ["vector", ("update", 1)] * (ENGINE_PASSES * (nbrs + 1))
    assert sum(n for e in events if isinstance(e, tuple) and e[0] == "update"
               for n in [e[1]]) == total and events[-1] == "close"


def test_check_dp_s_bar_moves_while_a_program_is_traced(monkeypatch):
    """Before, a program's bar stood at 0 of N while make_engine traced every vector,
    read its capabilities and checked its forms (most of the time): now every pass steps
    the bar vector by vector before the first comparison, and it ends at its total
    exactly; the result is the one without a bar."""
    import exactdp
    from exactdp.analysis import check as check_module
    from exactdp.programs import laplace, program

    @program(sensitivity=1)
    def above(q, epsilon, threshold, c=1):
        rho = laplace(2 / epsilon)
        out, count = [], 0
        for a in q:
            if count >= c:
                out.append(None)
            elif a + laplace(4 * c / epsilon) >= threshold + rho:
                out.append(True)
                count += 1
            else:
                out.append(False)
        return tuple(out)

    mech = above(epsilon=1, threshold=1, c=2)
    events: list = []

    def bar(total, desc, **kw):
        events.append(("bar", total))
        return _Recorder(events)

    make_engine = check_module.make_engine

    def engine(*args, **kwargs):  # the comparisons start once it returns
        out = make_engine(*args, **kwargs)
        events.append("built")
        return out

    plain = exactdp.check_dp(mech, [0, 1], progress=False)
    monkeypatch.setattr(check_module, "progress_bar", bar)
    monkeypatch.setattr(check_module, "make_engine", engine)
    r = exactdp.check_dp(mech, [0, 1], progress=True)
    assert (r.holds, r.loss, r.witness) == (plain.holds, plain.loss, plain.witness)
    nbrs = r.neighbours_checked
    total = ENGINE_PASSES * (nbrs + 1) + nbrs
    assert events[0] == ("bar", total)
    # one step per vector and pass, all taken inside the engine (no top-up at its end)
    built = events.index("built")
    assert events[1:built] == [("update", 1)] * (ENGINE_PASSES * (nbrs + 1))
    assert events[built + 1:-1] == [("update", 1)] * nbrs  # then neighbour by neighbour
    assert sum(e[1] for e in events if isinstance(e, tuple) and e[0] == "update") == total
    assert events[-1] == "close"


def test_off_a_terminal_a_long_loop_prints_one_start_line(monkeypatch):
    """A pipe or a log shows no bar; a loop estimated above LINE_SECONDS prints one line
    with its estimate as it starts (a shorter one, progress=False or a terminal: none)."""
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    assert progress_module.LINE_SECONDS == 5.0
    assert isinstance(progress_bar(4, "check_dp", seconds=38.4), NoBar)
    assert err.getvalue() == "check_dp: started, about 38 s CPU estimated\n"
    for kwargs in ({"seconds": 4.9}, {"seconds": 30.0, "progress": False}, {}):
        progress_bar(4, "check_dp", **kwargs)
    assert err.getvalue().count("\n") == 1
    progress_bar(4, "privacy_loss", seconds=1.0644e36)  # three digits, not 37
    assert err.getvalue().endswith("privacy_loss: started, about 1.06e+36 s CPU estimated\n")
    terminal = _terminal(monkeypatch)
    progress_bar(4, "check_dp", seconds=38.4).close()
    assert "started" not in terminal.getvalue()


def test_quiet_silences_bars_and_start_lines(monkeypatch):
    """Inside quiet() (verification_suite(progress=False): its rows' inner losses take no
    progress argument) neither a bar nor a start line shows; outside, both come back."""
    terminal = _terminal(monkeypatch)
    with progress_module.quiet():
        assert isinstance(progress_bar(4, "x", progress=True, seconds=30.0), NoBar)
        assert not shows(None, 30.0)
    assert shows(None, 30.0)
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    with progress_module.quiet():
        progress_bar(4, "x", seconds=30.0)
    assert err.getvalue() == "" and terminal.getvalue() == ""
    progress_bar(4, "x", seconds=30.0)
    assert err.getvalue() == "x: started, about 30 s CPU estimated\n"


def test_a_terminal_that_reports_no_size_still_gets_a_drawn_bar(monkeypatch):
    """A pseudo-terminal of 0 x 0 (``script``, ``docker exec -t``): tqdm would draw an
    empty bar, so the bar takes FALLBACK_SIZE; a sized terminal keeps tqdm's own."""
    terminal = _terminal(monkeypatch)
    assert progress_module.terminal_size() == (0, 0)  # a StringIO has no file descriptor
    bar = progress_bar(3, "probabilities", progress=True)
    assert (bar.ncols, bar.nrows) == progress_module.FALLBACK_SIZE
    bar.update(3)
    bar.close()
    assert "probabilities" in terminal.getvalue()
    monkeypatch.setattr(terminal, "fileno", lambda: 2, raising=False)
    monkeypatch.setattr(progress_module.os, "get_terminal_size",
                        lambda fd: progress_module.os.terminal_size((100, 30)))
    assert progress_module.terminal_size() == (100, 30)
    bar = progress_bar(3, "probabilities", progress=True)
    assert bar.ncols != progress_module.FALLBACK_SIZE[0]  # tqdm sizes it itself
    bar.close()


def test_a_refused_check_dp_prints_no_start_line(monkeypatch):
    """check_dp's start line waits for the engine's first step: a call its cost checks
    refuse says only the refusal (one estimate), and a deferred line prints once, at the
    first step."""
    import pytest

    import exactdp

    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    with pytest.raises(ValueError, match="limit"):
        exactdp.check_dp(exactdp.PermuteAndFlip(1), list(range(150)))
    assert "started" not in err.getvalue()
    bar = progress_bar(4, "check_dp", seconds=38.4, deferred=True)
    assert err.getvalue() == ""
    bar.update(1)
    bar.update(1)
    assert err.getvalue() == "check_dp: started, about 38 s CPU estimated\n"


def test_repeat_runs_in_order_and_announces_a_long_loop(capsys, monkeypatch):
    from exactdp.progress import PROBE_RUNS, repeat

    clock = itertools.cycle([0.0, 1.0])  # the probe's PROBE_RUNS steps "took" 1 s CPU
    monkeypatch.setattr(progress_module, "process_time", lambda: next(clock))
    count = iter(range(10**6))
    out = repeat(lambda: next(count), 50 * PROBE_RUNS, "prog.sample")
    assert out == list(range(50 * PROBE_RUNS))
    # the rest, 49 * PROBE_RUNS steps, is estimated at 49 s: one start line off a terminal
    assert capsys.readouterr().err == "prog.sample: started, about 49 s CPU estimated\n"
    assert repeat(lambda: 1, 3, "short") == [1, 1, 1]
    assert repeat(lambda: 1, 0, "none") == []
