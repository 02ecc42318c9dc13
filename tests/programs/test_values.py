"""Draws, noisy linear values and comparisons: forking, argmax, clamps, and every refusal of a
noisy value's misuse, one line naming the program's line."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

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
    topk,
)
from exactdp.programs.runs import Constraint

from .support import R, lin, line_of, refused, runs_of


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
    where = line_of(__file__, "the one comparison")
    assert first.constraints == (Constraint(lin(2, (0, 1)), ">", where),)
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


@program()
def top2(q, epsilon, k=2):
    return topk([a + laplace(2 / epsilon) for a in q], k)


@program(output="sequence")
def gumbel_top3(q, epsilon):
    return topk([a + gumbel(2 / epsilon) for a in q], 3)


@program(output="sequence")
def discrete_top3(q, epsilon):
    return topk([a + discrete_laplace(2 / epsilon) for a in q], 3)


def test_topk_one_run_per_ordered_tuple_with_the_chain_constraints():
    t = runs_of(top2, [1, 0, 2])
    assert t.executions == 6
    assert sorted(r.output for r in t.runs) == sorted(
        (3, ((2, i), (2, j))) for i in range(3) for j in range(3) if i != j)
    # (2, 0): v2 - v0 > 0 (strict: index 0 would win a tie), then the runner-up above the
    # rest: v0 - v1 >= 0 (a tie goes to index 0)
    r = next(r for r in t.runs if r.output == (3, ((2, 2), (2, 0))))
    assert [(c.expr, c.relation) for c in r.constraints] == [
        (lin(1, (0, -1), (2, 1)), ">"), (lin(1, (0, 1), (1, -1)), ">=")]
    # the sampler sorts, largest first, ties to the lower index
    d = top2(epsilon=1).distribution([0, 0, 50])
    assert all(o[0] == 2 for o in d.sample(50, rng=3))
    # k = 1 is argmax; k = 3 of three values is a star centred at the middle one
    assert runs_of(top2, [1, 0, 2], k=1).executions == 3
    assert runs_of(top2, [1, 0, 2], k=3).executions == 6
    # k = 3 of four values: a chain (a tree), one run per ordered triple
    assert runs_of(top2, [1, 0, 2, 3], k=3).executions == 24
    # a chain of Gumbel or discrete noises: refused by the integrator, naming the line
    for top3 in (gumbel_top3, discrete_top3):
        with pytest.raises(ProgramError, match=r"test_values\.py:\d+: the comparisons of "
                           r"these \w+ noises form a tree that is not a star"):
            _ = top3(epsilon=1).distribution([0, 1, 2, 3]).probabilities
    # k = n on equal answers: every order has probability 1/n! (i.i.d. noise: symmetry)
    assert set(top2(epsilon=1, k=4).distribution([1, 1, 1, 1]).probabilities) == {
        sympy.Rational(1, 24)}
    refused(top2, r"topk\(values, k\) needs an integer k with 1 <= k <= len\(values\) = 2, got "
            r"k = 3 \(more than the 2 values\)", q=(0, 1), k=3)


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




# ------------------------------------------------------------------ refusals
@program()
def hashes(q, epsilon):
    return {laplace(1): 1}


def test_noisy_values_are_unhashable():
    msg = refused(hashes, "unhashable")
    assert line_of(__file__, "return {laplace(1): 1}") in msg
    assert msg.startswith("hashes: ")


@program()
def uses_max(q, epsilon):
    return max(a + laplace(1) for a in q) > 0


@program()
def uses_sorted(q, epsilon):
    return sorted([a + laplace(1) for a in q])[0] > 0


def test_max_min_sorted_of_noisy_values_name_argmax():
    msg = refused(uses_max, r"max\(\) over noisy values .* use argmax", q=(0, 1))
    assert line_of(__file__, "return max(a + laplace(1)") in msg
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
    assert line_of(__file__, "return math.exp(laplace(1))") in refused(floats, r"float\(\)")
    assert line_of(__file__, "return q[laplace(1)]") in refused(indexes, "index")
    refused(absolute, r"abs\(\) of a noisy value is not linear")
    refused(product, "product of noisy values is not linear")


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
    assert line_of(__file__, "if v > best:") in msg


@program()
def compared_in_a_cycle(q, epsilon):
    a, b, c = (v + laplace(1) for v in q)
    return (a < b, b < c, a < c)


def test_a_cycle_of_comparisons_is_named_a_cycle():
    """Three noises compared pairwise close a cycle (the message said "a chain")."""
    msg = refused(compared_in_a_cycle, "close a cycle, not a star", q=(0, 1, 2))
    assert "form a chain" not in msg


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
    assert line_of(__file__, "return laplace(-1) > 0") in refused(
        bad_scale, r"laplace\(\) scale must be > 0 and finite, got -1$")
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

    @program()
    def exp_coin(q, epsilon):
        return bernoulli(sympy.exp(-epsilon) / 3)

    @program()
    def big_coin(q, epsilon):
        return bernoulli(2 * sympy.exp(-epsilon))

    # log(exp(-eps)/3) = -eps - log 3 <= 0: in [0, 1]; log(2 exp(-eps)) = log 2 - eps: unknown
    d = exp_coin(epsilon=eps).distribution([0])
    assert dict(zip(d.outputs, d.probabilities, strict=True)) == {
        True: sympy.exp(-eps) / 3, False: 1 - sympy.exp(-eps) / 3}
    refused(big_coin, r"cannot be shown to be in \[0, 1\]", epsilon=eps)


def test_a_draw_outside_a_program():
    with pytest.raises(ProgramError, match="laplace: called outside a program"):
        laplace(1)
    with pytest.raises(ProgramError, match="argmax: called outside a program"):
        argmax([1, 2])




@program()
def comparison_arithmetic(q, epsilon):
    c = laplace(1) > q[0]
    d = laplace(1) > q[0] + 1
    return (c + 5, bool(c > Fraction(-1, 2)), bool(c < d), bool(laplace(1) * 2 > q[0]))


def test_comparisons_as_integers_add_and_order_and_noise_scales_on_the_right():
    """Mutation seed 11: a comparison is the integer 0 or 1: c + 5 is 6 or 5, c > -1/2 always
    (0 and 1 both are), c < d only when c is False and d True; z * 2 > q0 is the constraint
    2 z - q0 > 0 (by hand)."""
    t = runs_of(comparison_arithmetic, [1])
    outs = [t.outputs[r.output] for r in t.runs]
    for r, (plus5, above, less, scaled) in zip(t.runs, outs, strict=True):
        c, d = (con.relation == ">" for con in r.constraints[:2])
        assert plus5 == 5 + c and above and less == (not c and d)
        assert scaled == (r.constraints[2].relation == ">")
        assert r.constraints[2].expr == (lin(-1, (2, 2)) if scaled else lin(1, (2, -2)))
    assert t.executions == 8


def test_a_noisy_value_prints_its_linear_form_and_refuses_to_divide():
    """Mutation seed 11: repr shows ``const + c*z_i``; 1 / z is refused in its own words;
    exponential noise outside a program is refused in its own name."""
    from exactdp.programs.values import Noisy

    assert repr(Noisy(Fraction(1), {0: Fraction(2)}, {0: "laplace"})) == "Noisy(1 + 2*z0)"
    refused(reciprocal, r"\.py:\d+: dividing by a noisy value is not linear$")
    with pytest.raises(ProgramError, match="^exponential: called outside a program"):
        exponential(1)


@program()
def reciprocal(q, epsilon):
    return 1 / laplace(1) > 0


@program()
def negated_and_zeroed(q, epsilon):
    return (bool(-laplace(1) > q[0]), bool(laplace(1) * 0 > q[0]))


def test_negation_and_a_zero_factor():
    """Mutation seed 11: -z > q0 is the constraint -z - q0 > 0 (by hand); z * 0 is the
    constant 0, so 0 > 1/2 is False without a fork."""
    t = runs_of(negated_and_zeroed, [R(1, 2)])
    assert t.executions == 2
    first, second = t.runs
    assert first.constraints == (Constraint(lin(R(-1, 2), (0, -1)), ">", first.constraints[0]
                                            .line),)
    assert [t.outputs[r.output] for r in t.runs] == [(True, False), (False, False)]
    assert second.constraints[0].expr == lin(R(1, 2), (0, 1))


def test_topk_docstring_examples_print_what_they_say():
    import doctest

    test = doctest.DocTestParser().get_doctest(topk.__doc__, {}, "topk", None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0 and len(test.examples) >= 8


@program(output="sequence", sensitivity=1)
def laplace_top3(q, epsilon):
    return topk([a + laplace(2 / epsilon) for a in q], 3)


@program(output="sequence", sensitivity=1)
def exponential_top3(q, epsilon):
    return topk([a + exponential(2 / epsilon) for a in q], 3)


def test_topk_three_privacy_loss_is_exact_and_equals_the_topk_mechanism():
    """The indices of top-3 (no gaps) are a finite distribution: its loss is exact, and
    equals the one-shot ``TopK(ReportNoisyMax)`` (an independent route: iterated integrals
    in ``Q(x, lam)``) to 100 digits; both laws, a pair moving both ways."""
    import exactdp
    from exactdp import ReportNoisyMax, TopK

    for noise, top3 in (("laplace", laplace_top3), ("exponential", exponential_top3)):
        mine = exactdp.privacy_loss(top3(epsilon=1), [0, 1, 2, 3], [1, 0, 1, 2])
        ref = exactdp.privacy_loss(TopK(ReportNoisyMax(1, noise=noise), 3), [0, 1, 2, 3],
                                   [1, 0, 1, 2])
        assert abs(sympy.N(mine.value - ref.value, 110)) < 1e-100
        assert 0 < mine.value <= 3  # top-3 at scale 2/epsilon: at most k epsilon


@pytest.mark.parametrize("coin, at_one", [
    (lambda e: 1 - sympy.exp(-e), "1 - exp(-1)"),
    (lambda e: (sympy.exp(e) - 1) / (sympy.exp(e) + 1), "tanh(1/2)"),
    (lambda e: sympy.exp(-e), "exp(-1)"),
])
def test_bernoulli_of_a_symbolic_epsilon_coin_is_proved_in_the_unit_interval(coin, at_one):
    """The range check substitutes t = exp(-epsilon) in (0, 1): the coins of docs/programs.md
    are accepted for a positive symbolic epsilon, their probabilities exact, summing to 1,
    and at epsilon = 1 equal to the closed form (mpmath at 30 digits)."""
    import mpmath

    from exactdp.programs import bernoulli, program

    eps = sympy.Symbol("epsilon", positive=True)

    @program()
    def flip(q, epsilon):
        return bernoulli(coin(epsilon))

    probs = flip(epsilon=eps).distribution([0]).probabilities
    assert sympy.simplify(sum(probs) - 1) == 0 and not any(p.has(sympy.Float) for p in probs)
    with mpmath.workdps(30):
        ref = mpmath.mpf(eval(at_one, {"exp": mpmath.exp, "tanh": mpmath.tanh}))
        assert abs(mpmath.mpf(sympy.N(probs[0].subs(eps, 1), 30)) - ref) < mpmath.mpf(10) ** -28


def test_bernoulli_of_a_symbolic_coin_above_one_is_refused():
    """2 - exp(-epsilon) > 1 for every positive epsilon: refused as "is not"."""
    from exactdp.programs import bernoulli, program

    @program()
    def too_big(q, epsilon):
        return bernoulli(2 - sympy.exp(-epsilon))

    mech = too_big(epsilon=sympy.Symbol("epsilon", positive=True))
    with pytest.raises(ValueError, match=r"is not in \[0, 1\]"):
        list(mech.distribution([0]).probabilities)
