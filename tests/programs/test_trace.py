"""Running a program: outputs and their canonical order, runs that raise or return what the
language refuses, determinism, and the step and run limits."""

from __future__ import annotations

import re

import pytest
import sympy

import exactdp
from exactdp.cost import TooCostly
from exactdp.programs import (
    discrete_laplace,
    laplace,
    program,
)
from exactdp.programs.steps import StepLimit
from exactdp.programs.trace import enumerate_runs, probe_runs
from exactdp.programs.values import ProgramError

from .support import line_of, refused


# ------------------------------------------------------------------ outputs and runs
@program()
def written_false_first(q, epsilon):
    return tuple(not (a + laplace(1) < 0) for a in q)


def test_outputs_come_true_before_false_however_the_branches_are_written():
    d = written_false_first(epsilon=1).distribution([0, 0])
    assert d.outputs == ((True, True), (True, False), (False, True), (False, False))


@program()
def bool_and_one(q, epsilon):
    return True if laplace(1) > 0 else 1


def test_true_and_one_are_different_outputs():
    d = bool_and_one(epsilon=1).distribution([0])
    assert d.outputs == (True, 1)
    assert d.index(True) == 0 and d.index(1) == 1


@program()
def raises(q, epsilon):
    if laplace(1) > 0:
        return 1 // 0  # the failing line
    return 0


def test_a_run_that_raises_names_the_line_and_its_decisions():
    msg = refused(raises, "ZeroDivisionError")
    assert line_of(__file__, "# the failing line") in msg
    assert f"{line_of(__file__, 'if laplace(1) > 0:')} True" in msg


@program()
def releases(q, epsilon):
    return q[0] + laplace(1)


@program()
def unbounded(q, epsilon):
    return max(q[0] + discrete_laplace(1), 0)  # clamped below only


@program()
def listed(q, epsilon):
    return [laplace(1) > 0]


@program()
def clamped_by_ifs(q, epsilon):
    v = q[0] + discrete_laplace(1)  # the draw
    if v > 3:
        v = 3
    return v  # clamped above only


@program()
def halved(q, epsilon):
    return min(max(q[0] + discrete_laplace(1) / 2, 0), 2)  # not an integer


@program()
def half_bound(q, epsilon):
    return min(max(q[0] + discrete_laplace(1), sympy.Rational(1, 2)), 2)  # a bound of 1/2


def test_outputs_outside_the_language():
    refused(releases, "real value with continuous noise.*output=.release.")
    refused(listed, "unhashable.*return a tuple")


def test_a_wrong_clamp_is_refused_with_the_fix_naming_the_lines():
    # the line is the return's (was the line of a dataclass __init__ counted as user code)
    at = line_of(__file__, "# clamped below only")
    msg = refused(unbounded, re.escape(
        f"{at}: a returned discrete noise v (drawn at {at}) must be clamped to a finite range "
        "(this run only knows v >= 0): return min(max(v, lo), hi) with integer constants "
        "lo <= hi"))
    msg = refused(clamped_by_ifs, r"this run only knows v <= 3\): return min\(max\(v, lo\), hi\)")
    assert msg.startswith(f"clamped_by_ifs: {line_of(__file__, '# clamped above only')}: ")
    assert f"(drawn at {line_of(__file__, '# the draw')})" in msg
    msg = refused(halved, "must be an integer: integer coefficients and constant")
    assert line_of(__file__, "# not an integer") in msg
    msg = refused(half_bound, r"the output 1/2 is not an integer \(a clamp of a discrete noise "
                  r"takes integer constants: min\(max\(v, lo\), hi\)\)")
    assert line_of(__file__, "# a bound of 1/2") in msg


STATE = []


@program()
def impure(q, epsilon):
    STATE.append(1)
    if len(STATE) % 2:
        return laplace(1) > 0
    return laplace(1) > 0 if laplace(1) > 0 else None


def test_a_program_that_is_not_deterministic():
    refused(impure, "different path when run again")


CALLS = []


@program()
def counts_its_calls(q, epsilon):
    CALLS.append(1)
    return (laplace(1) > 0, len(CALLS))  # the output counts the calls


@program()
def counts_without_noise(q, epsilon):
    CALLS.append(1)
    return len(CALLS)


def test_state_that_changes_only_the_output_is_refused():
    # the decisions are the same on every execution (their lines, noises and scales), only
    # the returned value moves: the first run, run again after the enumeration, returns
    # (True, 3), not (True, 1)
    CALLS.clear()
    msg = refused(counts_its_calls, r"returned \(True, 3\) when its first run was run again "
                  r"with the same decisions \(first \(True, 1\)\); it must be deterministic")
    assert line_of(__file__, "# the output counts the calls") in msg
    CALLS.clear()
    refused(counts_without_noise, r"returned 2 when its first run .* \(first 1\)")


SCALES = []


@program(adjacency="one")
def drifting_scale(q, epsilon):
    SCALES.append(1)
    return q[0] + laplace(len(SCALES) / epsilon) > 0


def test_a_program_whose_noise_scale_drifts_between_runs_is_refused():
    # the same decision sites, another question: before, the two runs' probabilities
    # (1 - e^-1/2 and e^-1/2 / 2 at q = 1) were kept and summed to 1.119
    refused(drifting_scale, "comparing other noises or another probability")


RELEASES = []


@program(output="release", adjacency="one")
def drifting_release(q, epsilon):
    RELEASES.append(1)
    return q[0] + laplace(len(RELEASES) / epsilon)  # the scale counts the calls


@program(output="release", adjacency="one")
def drifting_constant(q, epsilon):
    RELEASES.append(1)
    return q[0] + len(RELEASES) + laplace(1 / epsilon)


def test_a_release_whose_scale_or_constant_drifts_is_refused():
    """No decision sees a released value's scale: before, each distribution was made at
    another scale and the loss came out ``oo``, marked certified (0 vs 1: 1 exactly)."""
    RELEASES.clear()
    msg = refused(drifting_release, "its first run, run again with the same decisions, drew "
                  "other noises or released other values")
    assert line_of(__file__, "# the scale counts the calls") in msg
    RELEASES.clear()
    refused(drifting_constant, "released other values")
    with pytest.raises(ProgramError, match="drew other noises"):
        exactdp.privacy_loss(drifting_release(epsilon=1), [0], [1])


# ------------------------------------------------------------------ limits
@program()
def forever(q, epsilon):
    n = 0
    while True:
        n += 1  # the endless loop


def test_a_loop_without_end_is_refused_by_the_step_limit():
    m = forever(epsilon=1)
    call = m.program.bind((0,), 1, ())
    with pytest.raises(StepLimit) as info:
        enumerate_runs(call, "forever", forever.filename, max_steps=1000)
    msg = str(info.value)
    assert "step limit of 1000 lines" in msg
    assert line_of(__file__, "n += 1  # the endless loop") in msg


def test_a_loop_without_end_in_the_user_s_helper_module_is_refused(tmp_path, monkeypatch):
    """The step limit counts the user's own modules too (before: only the program's file,
    and a helper looping for ever hung the call)."""
    (tmp_path / "spinning_helper.py").write_text("def spin(v):\n    while True:\n"
                                                 "        pass  # spins\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import spinning_helper

    @program(adjacency="one")
    def calls_helper(q, epsilon):
        spinning_helper.spin(q[0])
        return True

    call = calls_helper(epsilon=1).program.bind((0,), 1, ())
    expected = r"step limit of 1000 lines \(8000 bytecodes\) at spinning_helper\.py:3"
    with pytest.raises(StepLimit, match=expected):
        enumerate_runs(call, "calls_helper", calls_helper.filename, max_steps=1000)


@program(adjacency="one")
def noisy_loop(q, epsilon):
    n = 0
    while q[0] + laplace(1 / epsilon) < 100:  # ends with probability 1, forks every turn
        n += 1
    return n > 3


def test_a_noisy_loop_is_refused_by_the_decision_limit():
    from exactdp.programs.trace import MAX_DECISIONS

    with pytest.raises(StepLimit, match=rf"more than {MAX_DECISIONS} decisions") as info:
        noisy_loop(epsilon=1).distribution([1]).probabilities  # noqa: B018
    assert line_of(__file__, "ends with probability 1") in str(info.value)


@program()
def many(q, epsilon):
    return tuple(a + laplace(1) > 0 for a in q)


def test_the_number_of_runs_is_limited():
    call = many(epsilon=1).program.bind(tuple(range(6)), 1, ())
    # the first run's branching: 2**6 = 64 > 10: refused after one run
    with pytest.raises(TooCostly, match=r"^many\.distribution: the runs of program many would "
                       r"need about 64 runs \(limit 10 runs\); use fewer queries"):
        enumerate_runs(call, "many", many.filename, max_runs=10, func="many.distribution")
    assert enumerate_runs(call, "many", many.filename, max_runs=64).executions == 64


def test_the_enumeration_steps_once_per_execution():
    """The progress bar of a long enumeration (a count on a terminal) moves per execution."""
    call = many(epsilon=1).program.bind(tuple(range(5)), 1, ())
    steps: list[int] = []
    trace = enumerate_runs(call, "many", many.filename, step=lambda: steps.append(1))
    assert len(steps) == trace.executions == 32


@program()
def first_above(q, epsilon):
    for i, a in enumerate(q):
        if a + laplace(1) > 0:
            return i
    return None


def test_runs_beyond_the_first_runs_estimate_are_counted():
    call = first_above(epsilon=1).program.bind(tuple(range(30)), 1, ())
    # the first run stops at once (estimate 2); the 21st execution is refused
    with pytest.raises(TooCostly, match=r"more than 20 runs \(limit 20 runs\)"):
        enumerate_runs(call, "first_above", first_above.filename, max_runs=20)
    assert enumerate_runs(call, "first_above", first_above.filename).executions == 31


def test_the_default_run_limit_refuses_at_once():
    with pytest.raises(TooCostly, match=r"many\.distribution: .* about 8\.19e\+03 runs "
                       r"\(limit 4096 runs\)"):
        _ = many(epsilon=1).distribution(list(range(13))).outputs


@program()
def cut_off(q, epsilon, c):
    out, count = [], 0
    for a in q:
        if count == c:
            out.append(None)
        elif a + laplace(1) > 0:
            out.append(True)
            count += 1
        else:
            out.append(False)
    return tuple(out)


def test_random_probes_estimate_a_long_enumeration():
    # 16 answers, cut-off 6: sum_{k<6} C(16, k) + sum_{i=6}^{16} C(i-1, 5) = 14893 runs; the
    # first run (six Trues) multiplies to 2**6 = 64, so the enumeration starts, and at
    # PROBE_AT runs the probes' estimate refuses it
    call = cut_off(epsilon=1, c=6).program.bind(tuple(range(16)), 1, (("c", 6),))
    estimate = probe_runs(call, "cut_off", cut_off.filename).runs
    assert 10_000 < estimate < 60_000
    want = re.escape(f"about {estimate / 1e4:.3g}e+04 runs (limit 4096")
    with pytest.raises(TooCostly, match=want):
        enumerate_runs(call, "cut_off", cut_off.filename)
    small = cut_off(epsilon=1, c=1).program.bind(tuple(range(16)), 1, (("c", 1),))
    assert probe_runs(small, "cut_off", cut_off.filename).runs < 200  # 17 runs


@program(adjacency="one")
def sympy_float_scale(q, epsilon):
    return laplace(sympy.Float(0.5)) > 0  # a sympy Float scale


def test_a_sympy_float_scale_is_refused_naming_the_line():
    # before: "sign: value must be exact (no float inside)" from deep inside the integrator
    msg = refused(sympy_float_scale, r"laplace\(\) scale 0\.5\d* holds a float; use exact")
    assert line_of(__file__, "a sympy Float scale") in msg


def test_sparse_vector_with_a_cut_off_is_refused_by_the_probes():
    """SVT1 with c = 5 on 16 queries has sum_{k<5} C(16, k) + C(16, 5) = 2517 + 4368 = 6,885
    runs (fewer than 5 Trues, or stopped at the 5th True): past MAX_RUNS. With 16 probes
    Knuth's estimator said about 2,000 and the enumeration ran to the limit (7 s); the
    probes at PROBE_AT runs now estimate past the limit and refuse there."""
    import sympy

    from exactdp.programs.library import svt1
    from exactdp.programs.trace import MAX_RUNS, PROBE_AT

    m = svt1(epsilon=sympy.Rational(1, 2), threshold=1, c=5)
    call = m.program.bind(tuple(range(16)), m.epsilon, m.arguments)
    estimate = probe_runs(call, "svt1", m.program.filename).runs
    assert MAX_RUNS < estimate < 2 * 6885
    with pytest.raises(TooCostly, match=r"would need about 6\.\d+e\+03 runs"):
        enumerate_runs(call, "svt1", m.program.filename)
    assert PROBE_AT < MAX_RUNS


@program()
def pinned_by_two_constraints(q, epsilon):
    v = discrete_laplace(1)
    if v >= 0 and v == 1:
        return v
    return -1


def test_a_returned_discrete_noise_pinned_after_a_bound_is_that_value():
    """Mutation seed 11: v >= 0 then v == 1 pins v to 1 (the bound and the point combine);
    by the discrete Laplace law P(v = k) = (1 - 1/e) / (1 + 1/e) e^-|k| (by hand), P(output 1)
    is that at k = 1 and the rest is -1."""
    from exactdp.scores import as_scores

    d = pinned_by_two_constraints(epsilon=1).distribution(as_scores([0]))
    assert sorted(d.outputs) == [-1, 1]
    from exactdp.exact import is_zero

    e = sympy.exp(-1)
    p1 = d.pmf(1)
    assert is_zero(p1 - (1 - e) / (1 + e) * e) and is_zero(d.pmf(-1) - (1 - p1))


def test_a_run_that_raises_is_refused_in_the_program_s_name():
    """Mutation seed 11: the refusal of a run that raised starts with the program's name,
    and a float scale's refusal ends with the exact types to use instead."""
    assert refused(raises, "ZeroDivisionError").startswith(
        "raises: a run raised ZeroDivisionError: integer division or modulo by zero at ")
    refused(sympy_float_scale, r"holds a float; use exact numbers \(sympy\.Rational, "
                               r"Fraction\)$")


def test_a_run_with_too_many_draws_is_refused_at_the_draw():
    """laplace_parallel with a million copies ran silently for minutes (one run, a million
    draws): refused at draw MAX_DRAWS + 1, naming the line, before any integral."""
    from exactdp.programs import library_release as LR
    from exactdp.programs.trace import MAX_DRAWS

    assert MAX_DRAWS == 10_000
    with pytest.raises(ValueError, match=r"^laplace_parallel: library_\w+\.py:\d+: a run "
                       r"draws more than 10000 noises; analyse fewer answers or copies, or "
                       r"draw with \.sample\(size, rng\) \(it runs the program\); a plain noisy "
                       r"max or top-k has closed forms: ReportNoisyMax, TopK$"):
        LR.laplace_parallel(epsilon=1, copies=MAX_DRAWS + 1).distribution([0]).outputs  # noqa: B018
    assert len(LR.laplace_parallel(epsilon=1, copies=3).distribution([0]).outputs) == 1


# ------------------------------------------------------------------ the first run
@program(adjacency="one")
def no_noise(q, epsilon):
    return q[0] + discrete_laplace(0) >= 1


@program(adjacency="one")
def late_zero_scale(q, epsilon):
    if laplace(1) > 0:
        return True
    return discrete_laplace(0) >= 1


def test_a_draw_of_scale_0_is_refused_when_the_distribution_is_made(monkeypatch):
    """``discrete_laplace(0)`` refused by ``distribution()`` itself (one line, the argument
    style of exactdp._validate), before any run is enumerated; it was refused only at
    ``.probabilities``."""
    from exactdp.programs import mechanism

    def no_trace(*args, **kwargs):
        raise AssertionError("the runs were enumerated")

    monkeypatch.setattr(mechanism, "traced_runs", no_trace)
    where = line_of(__file__, "return q[0] + discrete_laplace(0) >= 1")
    with pytest.raises(ValueError) as info:
        no_noise(epsilon=1).distribution([0])
    assert str(info.value) == (f"no_noise: {where}: discrete_laplace() scale must be > 0 "
                               "and finite, got 0")
    eps = sympy.Symbol("epsilon", positive=True)
    with pytest.raises(ValueError, match=r"scale must be provably > 0 and finite, got "
                       r"epsilon - 1$"):
        program(adjacency="one")(lambda q, epsilon: laplace(epsilon - 1) > 0)(
            epsilon=eps).distribution([0])


def test_a_draw_of_scale_0_off_the_first_path_is_refused_with_the_runs():
    """The first run checks its own path; a bad draw on another is refused as the runs are
    enumerated (``.probabilities``), in the same words."""
    d = late_zero_scale(epsilon=1).distribution([0])
    with pytest.raises(ValueError, match=r"discrete_laplace\(\) scale must be > 0 and "
                       r"finite, got 0$"):
        _ = d.probabilities


def test_a_comparison_of_exact_answers_is_a_boolean_output():
    # q[0] >= 1 on sympy numbers gives sympy.true, not Python's True: the same output
    @program()
    def at_least_one(q, epsilon):
        return q[0] >= 1, q[0] > 5

    d = at_least_one(epsilon=1).distribution([1])
    assert d.outputs == ((True, False),) and d.probabilities == (1,)
    s = at_least_one(epsilon=1).distribution([0])
    assert s.outputs == ((False, False),)
    import exactdp
    assert exactdp.privacy_loss(at_least_one(epsilon=1), [1], [0]).loss == sympy.oo


def test_the_replay_check_leaves_the_structural_cache_intact():
    """The replay's comparison of the first run must not record a run in the structural
    cache's tree (its executor keeps every result): an extra run there made every later
    vector's probabilities sum to 1.58 (SVT1, 2 queries). Checked against the closed forms
    of a fresh process's enumeration: P(T, -) = 1 - 2/3 e^(-1/4) + 1/6 e^(-1/2) at (1, 1)."""
    from fractions import Fraction

    from exactdp.programs import library
    m = library.svt1(epsilon=1, threshold=0)
    first = m.distribution([Fraction(1, 10), 0]).probabilities
    later = m.distribution([1, 1]).probabilities
    for probs in (first, later):
        assert len(probs) == 3
        assert sympy.simplify(sympy.Add(*probs) - 1) == 0
    e = sympy.exp
    assert sympy.simplify(later[0] - (1 - sympy.Rational(2, 3) * e(sympy.Rational(-1, 4))
                                      + e(sympy.Rational(-1, 2)) / 6)) == 0
