"""The program language: forking by re-execution, the runs it enumerates, and every
refusal's one-line message naming the program's line."""

from __future__ import annotations

import re

import pytest
import sympy

from exactdp.cost import TooCostly
from exactdp.programs import (
    ProgramError,
    argmax,
    argmin,
    bernoulli,
    discrete_laplace,
    exponential,
    gumbel,
    laplace,
    program,
)
from exactdp.programs.runs import Constraint, Linear
from exactdp.programs.trace import StepLimit, enumerate_runs
from exactdp.scores import as_scores

R = sympy.Rational
HERE = "test_language.py"


def runs_of(prog, q, **params):
    """The runs of ``prog`` at ``params`` on ``q`` (epsilon 1 unless given)."""
    params.setdefault("epsilon", 1)
    return prog(**params).trace(as_scores(q))


def lin(const, *coefs):
    return Linear(R(const), tuple((i, R(c)) for i, c in coefs))


def line_of(pattern: str) -> str:
    """``test_language.py:N`` of the first line of this file containing ``pattern``."""
    with open(__file__) as fh:
        for n, text in enumerate(fh, 1):
            if pattern in text:
                return f"{HERE}:{n}"
    raise AssertionError(pattern)


# ------------------------------------------------------------------ forking
@program()
def one_test(q, epsilon):
    if q[0] + laplace(1 / epsilon) > 0:  # the one comparison
        return True
    return False


def test_a_comparison_forks_into_two_runs_true_first():
    t = runs_of(one_test, [2])
    assert t.executions == 2
    first, second = t.runs
    assert first.constraints == (Constraint(lin(2, (0, 1)), ">", line_of("the one comparison")),)
    # not (2 + z > 0)  <=>  -2 - z >= 0
    assert second.constraints[0].expr == lin(-2, (0, -1))
    assert second.constraints[0].relation == ">="
    assert [t.outputs[r.output] for r in t.runs] == [True, False]
    assert first.draws[0].scale == 1 and first.draws[0].law == "laplace"


@program()
def kept(q, epsilon):
    c = laplace(1) > q[0]
    if c:
        x = 1
    else:
        x = 0
    return (bool(c), x)


def test_a_comparison_kept_in_a_variable_is_decided_once_per_run():
    t = runs_of(kept, [0])
    assert t.executions == 2
    assert sorted(t.outputs.values()) == [(False, 0), (True, 1)]


@program()
def counting(q, epsilon):
    rho = laplace(1)
    n = sum(a + laplace(2) >= rho for a in q)
    k = int(q[0] + laplace(2) > rho) + 1
    return (n, k)


def test_int_plus_and_sum_of_comparisons_count_zero_or_one():
    t = runs_of(counting, [0, 1])
    assert t.executions == 8
    assert sorted(t.outputs.values()) == [(n, k) for n in (0, 1, 2) for k in (1, 2)]
    counts = {}
    for r in t.runs:
        counts[t.outputs[r.output]] = counts.get(t.outputs[r.output], 0) + 1
    assert counts[(1, 1)] == 2 and counts[(0, 2)] == 1


@program()
def chained(q, epsilon):
    z = laplace(1)
    return bool(0 < z < 1) and not (z > q[0])


def test_chained_comparisons_not_and_or_fork():
    t = runs_of(chained, [5])
    # 0 < z: True -> z < 1: True -> z > 5: T/F ; False ; False
    assert t.executions == 4
    assert [len(r.constraints) for r in t.runs] == [3, 3, 2, 1]


@program()
def written_false_first(q, epsilon):
    return tuple(not (a + laplace(1) < 0) for a in q)


def test_outputs_come_true_before_false_however_the_branches_are_written():
    d = written_false_first(epsilon=1).distribution([0, 0])
    assert d.outputs == ((True, True), (True, False), (False, True), (False, False))


@program()
def equalities(q, epsilon):
    c = laplace(1) == q[0]
    d = discrete_laplace(1) == q[0]
    return (bool(c), bool(d))


def test_equality_continuous_dropped_discrete_a_point_constraint():
    t = runs_of(equalities, [1])
    assert t.executions == 2
    assert [t.outputs[r.output] for r in t.runs] == [(False, True), (False, False)]
    assert [r.constraints[0].relation for r in t.runs] == ["==", "!="]
    assert t.runs[0].constraints[0].expr == lin(-1, (1, 1))


@program()
def bool_and_one(q, epsilon):
    return True if laplace(1) > 0 else 1


def test_true_and_one_are_different_outputs():
    d = bool_and_one(epsilon=1).distribution([0])
    assert d.outputs == (True, 1)
    assert d.index(True) == 0 and d.index(1) == 1


@program()
def coins(q, epsilon):
    return (bernoulli(R(1, 3)), bernoulli(1), bernoulli(0))


def test_bernoulli_forks_with_weights_and_constant_coins_do_not():
    t = runs_of(coins, [0])
    assert t.executions == 2
    assert [r.weight for r in t.runs] == [R(1, 3), R(2, 3)]
    assert [t.outputs[r.output] for r in t.runs] == [(True, True, False), (False, True, False)]


@program(output="selection")
def rnm3(q, epsilon):
    return argmax([a + laplace(2 / epsilon) for a in q])


def test_argmax_one_run_per_winner_ties_to_the_first_index():
    t = runs_of(rnm3, [1, 0, 2])
    assert t.executions == 3
    # winner 1: v1 - v0 > 0 (an earlier index), v1 - v2 >= 0 (a later one)
    r = t.runs[1]
    assert [(c.expr, c.relation) for c in r.constraints] == [
        (lin(-1, (0, -1), (1, 1)), ">"), (lin(-2, (1, 1), (2, -1)), ">=")]
    assert [r.draws[i].scale for i in range(3)] == [2, 2, 2]


@program(output="selection")
def rnm_min(q, epsilon):
    return argmin([a + exponential(1) for a in q])


def test_argmin_constraints_point_the_other_way():
    r = runs_of(rnm_min, [0, 1]).runs[0]
    assert r.constraints[0].expr == lin(1, (0, -1), (1, 1))  # v1 - v0 > 0


@program(output="selection")
def em(q, epsilon):
    return argmax([a + gumbel(2 / epsilon) for a in q])


def test_gumbel_inside_argmax():
    t = runs_of(em, [0, 1])
    assert [d.law for d in t.runs[0].draws] == ["gumbel", "gumbel"]


@program()
def clamp(q, epsilon):
    return min(max(q[0] + discrete_laplace(1), 0), 2)


def test_clamped_discrete_noise_forks_into_its_values():
    t = runs_of(clamp, [1])
    assert sorted(set(t.outputs.values())) == [0, 1, 2]
    # v < 0 -> 0; v > 2 -> 2; 0 <= v <= 2 -> one run per value, pinned by v == k
    assert t.executions == 5
    assert [r.constraints[-1].relation for r in t.runs[2:]] == ["==", "==", "=="]


@program()
def symbolic_scale(q, epsilon):
    return laplace(3 / epsilon) > 0


def test_symbolic_epsilon_in_a_scale():
    eps = sympy.Symbol("epsilon", positive=True)
    t = runs_of(symbolic_scale, [0], epsilon=eps)
    assert t.runs[0].draws[0].scale == 3 / eps


@program()
def reads_sensitivity(q, epsilon, sensitivity):
    return laplace(sensitivity / epsilon) > 0


def test_sensitivity_is_the_declared_one():
    t = runs_of(program(sensitivity=3)(reads_sensitivity.func), [0])
    assert t.runs[0].draws[0].scale == 3


# ------------------------------------------------------------------ refusals
def refused(prog, pattern: str, q=(0,), **params):
    with pytest.raises(ProgramError) as info:
        runs_of(prog, list(q), **params)
    msg = str(info.value)
    assert "\n" not in msg
    assert re.search(pattern, msg), msg
    return msg


@program()
def hashes(q, epsilon):
    return {laplace(1): 1}


def test_noisy_values_are_unhashable():
    msg = refused(hashes, "unhashable")
    assert line_of("return {laplace(1): 1}") in msg
    assert msg.startswith("hashes: ")


@program()
def uses_max(q, epsilon):
    return max(a + laplace(1) for a in q) > 0


@program()
def uses_sorted(q, epsilon):
    return sorted([a + laplace(1) for a in q])[0] > 0


def test_max_min_sorted_of_noisy_values_name_argmax():
    msg = refused(uses_max, r"max\(\) over noisy values .* use argmax", q=(0, 1))
    assert line_of("return max(a + laplace(1)") in msg
    refused(uses_sorted, r"sorted\(\) over noisy values .* argmax / argmin", q=(0, 1))


@program()
def floats(q, epsilon):
    import math
    return math.exp(laplace(1)) > 1


@program()
def indexes(q, epsilon):
    return q[laplace(1)]


@program()
def absolute(q, epsilon):
    return abs(laplace(1)) > 1


@program()
def product(q, epsilon):
    return laplace(1) * laplace(1) > 1


def test_a_noisy_value_is_not_a_python_number():
    assert line_of("return math.exp(laplace(1))") in refused(floats, r"float\(\)")
    assert line_of("return q[laplace(1)]") in refused(indexes, "index")
    refused(absolute, r"abs\(\) of a noisy value is not linear")
    refused(product, "product of noisy values is not linear")


@program()
def raises(q, epsilon):
    if laplace(1) > 0:
        return 1 // 0  # the failing line
    return 0


def test_a_run_that_raises_names_the_line_and_its_decisions():
    msg = refused(raises, "ZeroDivisionError")
    assert line_of("# the failing line") in msg
    assert f"{line_of('if laplace(1) > 0:')} True" in msg


@program()
def releases(q, epsilon):
    return q[0] + laplace(1)


@program()
def unbounded(q, epsilon):
    return max(q[0] + discrete_laplace(1), 0)


@program()
def listed(q, epsilon):
    return [laplace(1) > 0]


def test_outputs_outside_the_language():
    refused(releases, "real value with continuous noise.*not in this version")
    refused(unbounded, "clamped to a finite range")
    refused(listed, "unhashable.*return a tuple")


@program(output="selection")
def running_max(q, epsilon):
    best, arg = q[0] + laplace(1), 0
    for i, a in enumerate(q[1:], 1):
        v = a + laplace(1)
        if v > best:
            best, arg = v, i
    return arg


def test_a_hand_written_running_maximum_names_argmax():
    msg = refused(running_max, "form a chain, not a star.*argmax / argmin", q=(0, 1, 2, 3))
    assert line_of("if v > best:") in msg


@program()
def bad_scale(q, epsilon):
    return laplace(-1) > 0


@program()
def bad_coin(q, epsilon):
    return bernoulli(2)


@program()
def gumbel_outside(q, epsilon):
    return gumbel(1) > 0


@program(output="selection")
def shared_argmax(q, epsilon):
    z = laplace(1)
    return argmax([a + z for a in q])


@program()
def float_constant(q, epsilon):
    return laplace(1) > 0.5


@program()
def epsilon_constant(q, epsilon):
    return laplace(1) > epsilon


def test_bad_draws_and_constants():
    assert line_of("return laplace(-1) > 0") in refused(bad_scale, r"scale -1 is not > 0")
    refused(bad_coin, r"probability 2 is not in \[0, 1\]")
    refused(gumbel_outside, "Gumbel noise may only be drawn inside argmax")
    refused(shared_argmax, "one fresh noise each", q=(0, 1))
    refused(float_constant, r"the float 0\.5")
    eps = sympy.Symbol("epsilon", positive=True)
    refused(epsilon_constant, "not a rational number", epsilon=eps)


def test_symbolic_coin_probability_must_be_provable():
    eps = sympy.Symbol("epsilon", positive=True)

    @program()
    def rr(q, epsilon):
        return bernoulli((1 - epsilon) / 2)

    refused(rr, r"cannot be shown to be in \[0, 1\]", epsilon=eps)


def test_a_draw_outside_a_program():
    with pytest.raises(ProgramError, match="laplace: called outside a program"):
        laplace(1)
    with pytest.raises(ProgramError, match="argmax: called outside a program"):
        argmax([1, 2])


def test_a_generator_is_refused_at_decoration():
    def gen(q, epsilon):
        yield laplace(1) > 0

    with pytest.raises(ProgramError, match=r"gen at test_language.py:\d+ is a generator"):
        program(gen)


def test_parameters():
    def f(q, epsilon, threshold, c=1):
        return laplace(1) > threshold

    def no_eps(q, threshold):
        return True

    with pytest.raises(ProgramError, match="has no epsilon parameter"):
        program(no_eps)
    p = program(f)
    with pytest.raises(ValueError, match="missing parameter 'threshold'"):
        p(epsilon=1)
    with pytest.raises(ValueError, match="unknown parameter 'd'"):
        p(epsilon=1, threshold=0, d=2)
    with pytest.raises(ValueError, match="threshold"):
        p(epsilon=1, threshold=sympy.sqrt(2))
    with pytest.raises(ValueError, match="epsilon"):
        p(epsilon=-1, threshold=0)
    with pytest.raises(ValueError, match="sensitivity"):
        p(epsilon=1, threshold=0, sensitivity=2)
    m = p(R(1, 2), "1/3", c=2)
    assert m.epsilon == R(1, 2) and dict(m.arguments) == {"threshold": R(1, 3), "c": 2}
    assert repr(m) == "f(epsilon=1/2, threshold=1/3, c=2)"
    assert m.with_epsilon(3).epsilon == 3


def test_declarations_are_checked():
    with pytest.raises(ValueError, match="adjacency"):
        program(adjacency="some")
    with pytest.raises(ValueError, match="output"):
        program(output="value")
    with pytest.raises(ValueError, match="domain"):
        program(domain=(1, 0))
    m = program(adjacency="one", output="selection", monotonic=True)(rnm3.func)(epsilon=1)
    assert (m.adjacency, m.output_kind, m.monotonic, m.regular) == ("one", "selection", True,
                                                                     False)


@program(domain=(0, 1))
def bits(q, epsilon):
    return tuple(a + laplace(1) > 0 for a in q)


def test_answers_outside_the_domain():
    with pytest.raises(ValueError, match=r"scores\[1\] must be in the declared domain"):
        bits(epsilon=1).distribution([0, 2])


@program(output="selection")
def not_an_index(q, epsilon):
    return len(q) if laplace(1) > 0 else 0


def test_a_selection_program_returns_an_index():
    with pytest.raises(ProgramError, match=r"an index of range\(len\(q\)\) = range\(2\)"):
        _ = not_an_index(epsilon=1).distribution([0, 0]).outputs


STATE = []


@program()
def impure(q, epsilon):
    STATE.append(1)
    if len(STATE) % 2:
        return laplace(1) > 0
    return laplace(1) > 0 if laplace(1) > 0 else None


def test_a_program_that_is_not_deterministic():
    refused(impure, "different path when run again")


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
    assert re.search(r"test_language\.py:\d+", msg)


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


@program()
def first_above(q, epsilon):
    for i, a in enumerate(q):
        if a + laplace(1) > 0:
            return i
    return None


def test_runs_beyond_the_first_runs_estimate_are_counted():
    call = first_above(epsilon=1).program.bind(tuple(range(30)), 1, ())
    # the first run stops at once (estimate 2); the 21st execution is refused
    with pytest.raises(TooCostly, match=r"about 21 runs \(limit 20 runs\)"):
        enumerate_runs(call, "first_above", first_above.filename, max_runs=20)
    assert enumerate_runs(call, "first_above", first_above.filename).executions == 31


def test_the_default_run_limit_refuses_at_once():
    with pytest.raises(TooCostly, match=r"many\.distribution: .* about 8\.19e\+03 runs "
                       r"\(limit 4096 runs\)"):
        _ = many(epsilon=1).distribution(list(range(13))).outputs
