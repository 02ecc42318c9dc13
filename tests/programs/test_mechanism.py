"""The exact probabilities of programs (the language's runs through the integrator):
normalisation, and equality with exactdp's classes and with direct summation."""

from __future__ import annotations

import itertools
import re
import time
from functools import partial

import mpmath
import numpy as np
import pytest
import sympy

import exactdp
from exactdp import ReportNoisyMax, SparseVector
from exactdp.cost import SECONDS_LIMIT, TooCostly
from exactdp.programs import ProgramError, argmax, laplace, program
from exactdp.programs import library as L
from exactdp.programs.mechanism import (
    _PRICED,
    _run_seconds,
    output_values,
    program_trace,
    trace_seconds,
)
from exactdp.programs.trace import PROBE_AT, probe_runs
from exactdp.scores import as_scores

from .discrete import run_probability as direct

R = sympy.Rational
EPS = sympy.Symbol("epsilon", positive=True)
SVT = [(L.svt1, 1, True), (L.svt2, 2, True), (L.svt4, 4, True), (L.svt5, 5, False),
       (L.svt6, 6, False)]
#: 22 answer vectors (1 to 3 queries, ties, fractions, answers on both sides of T = 1).
VECTORS = ([[a] for a in (0, 1, 3)] + [list(v) for v in itertools.product((0, 2), repeat=2)]
           + [[1, 1], [R(1, 2), 1], [3, -1]]
           + [list(v) for v in itertools.product((0, 2), repeat=3)]
           + [[2, 0, 1], [1, 1, 1], [R(3, 2), 0, 2], [4, 1, 0]])


def same(a, b) -> bool:
    return sympy.simplify(a - b) == 0


def as_dict(d):
    return dict(zip(d.outputs, d.probabilities, strict=True))


def program_svt(prog, cut, epsilon, threshold, c):
    return prog(epsilon=epsilon, threshold=threshold, c=c) if cut else \
        prog(epsilon=epsilon, threshold=threshold)


def test_twenty_vectors():
    assert len(VECTORS) >= 20


@pytest.mark.parametrize(("prog", "variant", "cut"), SVT)
def test_svt_equals_sparse_vector_exactly(prog, variant, cut):
    for q in VECTORS:
        for c in ((1, 2) if cut else (1,)):
            mine = program_svt(prog, cut, R(1, 2), 1, c).distribution(q)
            theirs = SparseVector(R(1, 2), 1, c, variant).distribution(q)
            assert mine.outputs == theirs.outputs
            a, b = as_dict(mine), as_dict(theirs)
            assert all(same(a[k], b[k]) for k in b), (q, c)


@pytest.mark.parametrize(("prog", "variant", "cut"), SVT)
def test_svt_equals_sparse_vector_with_symbolic_epsilon(prog, variant, cut):
    for q in VECTORS:
        for c in ((1, 2) if cut else (1,)):
            mine = program_svt(prog, cut, EPS, 1, c).distribution(q)
            theirs = SparseVector(EPS, 1, c, variant).distribution(q)
            a, b = as_dict(mine), as_dict(theirs)
            assert a.keys() == b.keys()
            assert all(same(a[k], b[k]) for k in b), (q, c)


@pytest.mark.parametrize(("prog", "noise"), [(L.noisy_max_laplace, "laplace"),
                                             (L.noisy_max_exponential, "exponential")])
def test_noisy_max_equals_report_noisy_max(prog, noise):
    for q in ([0], [1, 0], [0, 0], [2, 0, 1], [1, 1, 0], [R(1, 2), 0, 2, 1]):
        for eps in (R(1, 2), 1):
            mine = prog(epsilon=eps).distribution(q).probabilities
            theirs = ReportNoisyMax(eps, noise=noise).distribution(q).probabilities
            assert all(same(a, b) for a, b in zip(mine, theirs, strict=True)), (q, eps)


LIBRARY = [
    (L.noisy_max_laplace, {}, [2, 0, 1]),
    (L.noisy_max_exponential, {}, [2, 0, 1]),
    (L.svt1, {"threshold": 1, "c": 2}, [2, 0, 1]),
    (L.svt2, {"threshold": 1, "c": 2}, [2, 0, 1]),
    (L.svt4, {"threshold": 1}, [2, 0, 1]),
    (L.svt5, {"threshold": 1}, [2, 0, 1]),
    (L.svt6, {"threshold": 1}, [2, 0, 1]),
    (L.svt_monotone, {"threshold": 1, "c": 2}, [2, 0, 1]),
    (L.above_threshold_discrete, {"threshold": 1}, [2, 0, 1]),
    (L.randomized_response, {}, [1, 0]),
    (L.randomized_response_incorrect, {}, [1, 0]),
    (L.truncated_geometric, {"n": 3}, [1]),
]


@pytest.mark.parametrize(("prog", "params", "q"), LIBRARY, ids=lambda v: getattr(v, "name", ""))
def test_every_library_program_sums_to_one_exactly(prog, params, q):
    for eps in (R(1, 2), EPS):
        if prog is L.randomized_response_incorrect and eps is EPS:
            continue  # (1 - epsilon)/2 is a probability only for epsilon <= 1
        probs = prog(epsilon=eps, **params).distribution(q).probabilities
        assert same(sympy.Add(*probs), 1), (prog.name, eps)
        assert all(p.is_nonnegative is not False for p in probs)


@pytest.mark.parametrize(("prog", "params", "q"), [
    (L.above_threshold_discrete, {"threshold": 1}, [2, 0, 1]),
    (L.above_threshold_discrete, {"threshold": 0}, [0, 0]),
    (L.truncated_geometric, {"n": 3}, [1]),
    (L.truncated_geometric, {"n": 2}, [0]),
])
def test_discrete_programs_equal_direct_summation_to_30_digits(prog, params, q):
    m = prog(epsilon=1, **params)
    d = m.distribution(q)
    runs = m.trace(as_scores(q)).runs
    keys = m.output_keys(as_scores(q))
    with mpmath.workdps(40):
        want = [mpmath.fsum(direct(r) for r in runs if r.output == k) for k in keys]
    got = d.evalf(35)
    assert all(abs(a - b) < mpmath.mpf(10) ** -30 for a, b in zip(got, want, strict=True))


def test_numeric_views_agree():
    d = L.svt1(epsilon=R(1, 2), threshold=1, c=2).distribution([2, 0, 1])
    exact = [float(p) for p in d.probabilities]
    assert np.allclose(d.to_numpy(), exact, rtol=1e-12, atol=0)
    for ball, p in zip(d.evalf_balls(30), d.probabilities, strict=True):
        # rigorous and tight: overlaps the sympy expression's own enclosure
        assert ball.rad() < 1e-28 * ball.mid() and ball.overlaps(exactdp.exact.to_arb(p, 200))
    with mpmath.workdps(30):
        assert all(abs(a - mpmath.mpf(sympy.N(p, 40))) < mpmath.mpf(10) ** -28
                   for a, p in zip(d.evalf(30), d.probabilities, strict=True))
    assert d.pmf((True, True, None)) == d.probabilities[0]


def test_privacy_loss_of_svt1_equals_sparse_vector_s():
    m = L.svt1(epsilon=R(1, 2), threshold=1, c=2)
    q, q2 = [2, 0, 1], [1, 1, 2]
    mine = exactdp.privacy_loss(m, q, q2)
    theirs = exactdp.privacy_loss(SparseVector(R(1, 2), 1, 2, 1), q, q2)
    assert same(mine.loss, theirs.loss)


@pytest.mark.parametrize(("prog", "variant", "q"), [(L.svt4, 4, [2, 0]), (L.svt5, 5, [2, 0, 1]),
                                                    (L.svt1, 1, [2, 0]), (L.svt6, 6, [1, 1])])
def test_rational_form_for_every_epsilon_equals_sparse_vector_s(prog, variant, q):
    for eps in (R(1, 2), EPS):
        mine = prog(epsilon=eps, threshold=1).distribution(q)
        theirs = SparseVector(eps, 1, 1, variant).distribution(q)
        assert ("rational_form" in mine.capabilities) == ("rational_form" in theirs.capabilities)
        a, b = mine.rational_form(), theirs.rational_form()
        # the same generator wherever a power of x is left (constants: any x)
        assert a.value == b.value or all(f.is_number for f in b.forms)
        assert tuple(a.forms) == tuple(b.forms)


def test_no_rational_form_where_equal_rates_meet():
    m = L.svt6(epsilon=R(1, 2), threshold=1)
    d = m.distribution([0, 2])
    assert "rational_form" not in d.capabilities
    assert "epsilon*exp(epsilon*w) term survives" in m.rational_obstruction(d.scores)
    with pytest.raises(ValueError, match="no rational form in x here"):
        d.rational_form()


def test_certify_dp_refutes_svt4_for_every_epsilon():
    cert = exactdp.certify_dp(L.svt4(epsilon=R(1, 2), threshold=1), [2, 0])
    assert not cert.holds


def test_check_dp_and_goodness_of_fit():
    m = L.svt1(epsilon=R(1, 2), threshold=1)
    mine = exactdp.check_dp(m, [2, 0, 1])
    theirs = exactdp.check_dp(SparseVector(R(1, 2), 1), [2, 0, 1])
    assert mine.holds and same(mine.loss, theirs.loss)
    from exactdp.audit import goodness_of_fit

    d = m.distribution([2, 0, 1])
    assert goodness_of_fit(d.sample_index, d, 20_000, rng=1).verdict == "consistent"


def test_privacy_loss_distribution_equals_report_noisy_max_s():
    q, q2 = [1, 0, 2], [0, 1, 1]
    mine = exactdp.privacy_loss_distribution(L.noisy_max_laplace(epsilon=1), q, q2)
    theirs = exactdp.privacy_loss_distribution(ReportNoisyMax(1, noise="laplace"), q, q2)
    for eps in (0, R(1, 2)):
        assert same(mine.delta(eps).value, theirs.delta(eps).value)


def test_numeric_views_at_a_symbolic_epsilon_are_one_line_refusals():
    """evalf, to_numpy, evalf_balls and sample at a symbolic epsilon: the one-line message of
    every mechanism (before: mpmath's and sympy's TypeError from deep inside); the exact
    probabilities stay symbolic and .subs gives the numbers."""
    import exactdp
    from exactdp.programs import argmax, exponential, program

    eps = sympy.Symbol("epsilon", positive=True)

    @program(output="selection")
    def rnm_exp(q, epsilon):
        return argmax([a + exponential(2 / epsilon) for a in q])

    d = rnm_exp(epsilon=eps).distribution([1, 0])
    for view in (lambda: d.evalf(30), d.to_numpy, lambda: d.evalf_balls(30),
                 lambda: d.sample(3, rng=0)):
        with pytest.raises(ValueError, match=r"^rnm_exp: epsilon is symbolic \(epsilon\); "
                           r"numeric views need a number: use \.subs\(epsilon=\.\.\.\)"):
            view()
    # report-noisy-max with exponential noise is permute-and-flip (McKenna & Sheldon 2020)
    pf = exactdp.PermuteAndFlip(eps).distribution([1, 0]).probabilities
    assert all(sympy.simplify(a - b) == 0 for a, b in zip(d.probabilities, pf, strict=True))


def test_a_run_outside_the_exact_class_is_a_program_error_naming_the_program():
    # three noises in one comparison: the integrator's refusal, before any integral, as a
    # ProgramError (what docs/programs.md's examples catch) prefixed with the program's name
    from exactdp.programs import ProgramError, laplace, program

    @program(adjacency="one")
    def three_noises(q, epsilon):
        return laplace(1 / epsilon) + laplace(1 / epsilon) > laplace(1 / epsilon)

    with pytest.raises(ProgramError, match=r"^three_noises: test_mechanism\.py:\d+: this "
                       r"comparison involves 3 noises"):
        three_noises(epsilon=1).distribution([1]).probabilities  # noqa: B018


# ---------------------------------------------------------------------------- never a hang
# The enumeration's probes estimate the integration cost too, so a costly analysis is
# refused at PROBE_AT runs, before the rest of the runs are enumerated. CPU time
# (time.process_time) is bounded with a 5x margin over the measured time; the estimates are
# asserted against the full enumeration's.
def svt1_at(c):
    return L.svt1(epsilon=R(1, 2), threshold=1, c=c)


def answers(n):
    return [i % 3 for i in range(n)]


def test_probes_estimate_the_runs_and_their_integration_cost():
    # 12 queries, c = 3: sum_{k<3} C(12, k) + C(12, 3) = 79 + 220 = 299 runs, past PROBE_AT
    m = svt1_at(3)
    q = tuple(sympy.Integer(a) for a in answers(12))
    runs = program_trace(m, q).runs
    assert len(runs) == 299 > PROBE_AT
    call = m.program.bind(q, m.epsilon, m.arguments)
    est = probe_runs(call, "svt1", m.program.filename, cost=partial(_run_seconds, "svt1"))
    assert 299 / 2 < est.runs < 2 * 299
    assert trace_seconds(m, q) / 2 < est.seconds < 2 * trace_seconds(m, q)
    assert probe_runs(call, "svt1", m.program.filename).seconds == 0.0  # no cost given


def test_check_dp_of_svt_with_a_cut_off_is_refused_at_probe_time():
    """SVT1, 14 queries, c = 4: sum_{k<4} C(14, k) + C(14, 4) = 1,471 runs (under the run
    limit) on each of 193 vectors. Before, the whole enumeration ran before the integration
    cost refused; now the probes at PROBE_AT runs estimate it (about 0.3 s CPU). (With
    c = 5, 3,473 runs, the runs' estimate is too near the limit of 4,096 to say which
    refusal comes first.)"""
    m = svt1_at(4)
    start = time.process_time()
    with pytest.raises(TooCostly) as info:
        exactdp.check_dp(m, answers(14))
    cpu = time.process_time() - start
    msg = str(info.value)
    assert re.match(r"check_dp: an exact analysis of 193 answer vectors of 14 answers \(about "
                    r"1\.\d+e\+03 runs each\) would need about \S+ s \(limit 120 s\); use fewer "
                    r"queries, or an earlier cut-off \(stop after fewer answers: a smaller c\)",
                    msg), msg
    # about 2e3 s, mostly the enumeration of 193 x 1,471 runs (the integrals' terms merge:
    # 6e3 s when they were priced as the product of the leaves' factors)
    assert float(info.value.estimate.split()[1]) > 10 * SECONDS_LIMIT
    assert cpu < 10  # about 1 s at the probes; 5x margin (the full enumeration took 9 s)


def test_sixteen_queries_c5_and_twenty_queries_c2_are_refused_quickly():
    start = time.process_time()
    with pytest.raises(TooCostly, match=r"^check_dp: the runs of program svt1 would need "
                       r"about 6\.\d+e\+03 runs \(limit 4096 runs\); use fewer queries"):
        exactdp.check_dp(svt1_at(5), answers(16))
    with pytest.raises(TooCostly, match=r"^check_dp: an exact analysis of 253 answer vectors of "
                       r"20 answers \(211 runs each\)"):
        exactdp.check_dp(svt1_at(2), answers(20))
    assert time.process_time() - start < 10  # about 1 s each


_RUNS = [0]


@program(output="selection")
def counted_max(q, epsilon):
    _RUNS[0] += 1
    return argmax([a + laplace(2 / epsilon) for a in q])


def test_a_million_answers_are_refused_before_the_program_runs():
    """A noisy max on 10**6 answers traced for seconds before the draw limit refused it:
    the answer count is checked against MAX_EXACT_N first, naming the sampler and the
    closed form."""
    from exactdp.cost import MAX_EXACT_N

    d = counted_max(epsilon=1).distribution(list(range(10**6)))
    start, before = time.process_time(), _RUNS[0]
    views = {"counted_max.probabilities": d.to_numpy, "probabilities": lambda: d.probabilities,
             "evalf": lambda: d.evalf(20)}
    for name, view in views.items():  # each in the name of the view called
        with pytest.raises(TooCostly) as err:
            view()
        assert err.value.func == name
        assert err.value.estimate is not None and "1000000 symbolic objects" in err.value.estimate
        assert err.value.limit == f"n <= {MAX_EXACT_N}"
        assert ".sample(size, rng)" in str(err.value) and "ReportNoisyMax" in str(err.value)
    assert _RUNS[0] == before  # the program never ran
    assert time.process_time() - start < 2


def test_twenty_queries_c1_is_within_the_limit():
    """20 queries, c = 1: 21 runs on each of 253 vectors; check_dp answers (about 45 s CPU,
    not run here): the estimate, enumeration included, is under the limit and above half
    the measured time."""
    m = svt1_at(1)
    vectors, _ = exactdp.neighbours(m, answers(20))
    assert len(vectors) == 252
    seconds = trace_seconds(m, tuple(sympy.Integer(a) for a in answers(20))) * 253
    assert 20 < seconds < SECONDS_LIMIT


_CALLS = [0]


@program(output="selection")
def stateful_max(q, epsilon):
    _CALLS[0] += 1  # state kept between runs: the runs no longer partition the noise space
    v = [a + laplace(2 / epsilon) for a in q]
    return argmax(v) if _CALLS[0] % 2 else 0


def test_probabilities_that_do_not_sum_to_1_are_refused():
    # the law above, computed run by run, totals 1.3258 (> 1): refused, not returned
    with pytest.raises(ProgramError, match=r"stateful_max: its output probabilities sum to "
                                           r"about 1\.3\d+, not 1"):
        d = stateful_max(epsilon=sympy.Rational(1, 2)).distribution([1, 0, 2])
        _CALLS[0] = 0  # the first run, made by distribution(), does not shift the parity
        _ = d.probabilities


def test_float_scores_take_a_route_without_dense_forms():
    # 0.3 is 5404319552844595/2**54 exactly: forms in x would have degree ~2**56; the loss
    # comes from the generic engine and equals ReportNoisyMax's (the same law)
    eps = sympy.Rational(1, 2)
    with pytest.warns(exactdp.ExactConversionWarning):
        mine = exactdp.privacy_loss(L.noisy_max_laplace(epsilon=eps), [0, 0], [0.3, -1])
    with pytest.warns(exactdp.ExactConversionWarning):
        theirs = exactdp.privacy_loss(exactdp.ReportNoisyMax(eps, noise="laplace"), [0, 0],
                                      [0.3, -1])
    assert abs(float(mine.loss) - float(theirs.loss)) < 1e-12
    assert abs(float(mine.loss) - 0.174427) < 1e-6


def test_check_dp_at_epsilon_1e_minus_400_is_the_class_s_answer():
    eps = sympy.Rational(1, 10**400)
    mine = exactdp.check_dp(L.noisy_max_laplace(epsilon=eps), [1, 0])
    theirs = exactdp.check_dp(ReportNoisyMax(eps, noise="laplace"), [1, 0])
    assert mine.holds and sympy.simplify(mine.loss - theirs.loss) == 0


def test_repr_leads_with_the_answer_and_never_traces_many_answers():
    d = L.noisy_max_laplace(epsilon=sympy.Rational(1, 2)).distribution(list(range(400)))
    assert repr(d) == ("ProgramDistribution(probabilities not computed yet (.probabilities "
                       "computes them); noisy_max_laplace(epsilon=1/2), n=400)")
    small = L.noisy_max_laplace(epsilon=sympy.Rational(1, 2)).distribution([1, 0, 2])
    assert repr(small).startswith("ProgramDistribution(3 outputs, most likely 2 at 0.")
    assert repr(small).endswith("; noisy_max_laplace(epsilon=1/2), n=3)")
    assert max(range(3), key=lambda i: small.evalf(20)[i]) == 2  # the largest answer
    assert "<table>" in small._repr_html_()


def test_a_form_past_the_dense_degree_limit_takes_another_engine():
    # at epsilon = 10**6 the program's forms in x pass the dense limit: the loss is still
    # exact, and equal to SparseVector's (the same law): (1/2) / (7/16 e^(-eps/4)) to first
    # order, eps/4 + ln(8/7) + O(exp(-eps/4))
    prog = L.svt1(epsilon=10**6, threshold=1, c=1)
    mine = exactdp.privacy_loss(prog, [1, 0], [2, 1])
    theirs = exactdp.privacy_loss(SparseVector(10**6, 1, 1, variant=1), [1, 0], [2, 1])
    assert sympy.simplify(mine.loss - theirs.loss) == 0
    assert abs(sympy.N(mine.loss - 250000 - sympy.log(sympy.Rational(8, 7)), 30)) < 1e-20


def test_output_values_sum_to_one_term_by_term():
    """The closed forms an output's runs sum to (before any sympy expression) add up to
    the constant 1, term by term, for SVT2 with its threshold redrawn."""
    m = L.svt2(epsilon=R(1, 2), threshold=1, c=2)
    ov = output_values(m, tuple(as_scores([2, 0, 1, R(1, 2)]).exact))
    total: dict = {}
    for v in ov.values:
        for k, q in v.items():
            total[k] = total.get(k, 0) + q
    assert {k: q for k, q in total.items() if q} == {(0, 0): 1}
    assert len(ov.values) == len(m.output_keys(as_scores([2, 0, 1, R(1, 2)])))


def test_program_distribution_sampling_honours_its_arguments():
    """Mutation seed 11: sample() reads rng (the same seed, the same draws), algorithm (the
    "pmf" route is sample_index's on the same generator) and size (a bad size and a size
    beyond the limit are refused in sample's name, the latter with the runs asked for)."""
    d = L.noisy_max_laplace(epsilon=1).distribution([1, 0])
    assert np.array_equal(d.sample(60, rng=7), d.sample(60, rng=7))
    assert np.array_equal(d.sample(60, rng=3, algorithm="pmf"),
                          d.sample_index(60, np.random.default_rng(3), "pmf"))
    with pytest.raises(ValueError, match=r"^sample: size must be None, a non-negative"):
        d.sample(-1)
    with pytest.raises(ValueError, match=r"^sample: .*1e\+09 runs"):
        d.sample(10**9)
    with pytest.raises(ValueError, match=r"output must be one of \.outputs, got 7"):
        d.index(7)


def test_program_distribution_errors_of_a_selection_and_refusals_of_a_sequence():
    """Mutation seed 11: RNM-Laplace's program on [1, 0] has error 1 exactly when it picks
    index 1, so the expected error and Pr[error >= 1] are both P(1) (by the pmf); a
    sequence program (SVT) refuses both in their own names."""
    d = L.noisy_max_laplace(epsilon=1).distribution([1, 0])
    p1 = d.pmf(1)
    assert same(d.expected_error(), p1) and same(d.error_tail(1), p1)
    s = L.svt1(epsilon=R(1, 2), threshold=1, c=2).distribution([2, 0, 1])
    with pytest.raises(ValueError, match=r"^error_tail: the outputs of .* are not indices"):
        s.error_tail(1)
    with pytest.raises(ValueError, match=r"^expected_error: the outputs of .* are not "):
        s.expected_error()


def test_def_line_is_the_line_of_def_below_the_decorators():
    """Mutation seed 11: a decorated function's ``def`` line (line_of, by reading this
    file), and a lambda's own line (it has no ``def``)."""
    from exactdp.programs.mechanism import _def_line

    from .support import line_of

    @program()
    def decorated(q, epsilon):  # the def of decorated
        return argmax([a + laplace(1) for a in q])

    bare = lambda q, epsilon: 0  # noqa: E731 (the lambda's line)
    assert f"test_mechanism.py:{_def_line(decorated.func)}" == line_of(
        __file__, "def decorated(q, epsilon):  # the def of decorated")
    assert f"test_mechanism.py:{_def_line(bare)}" == line_of(__file__, "the lambda's line")


def test_check_probability_cost_declares_one_answer_vector_to_the_probes(monkeypatch):
    """Mutation seed 11: while the runs of one answer vector are enumerated for its
    probabilities, the probes' budget is that of one vector (cost times 1, the refusal in
    the probabilities' words), and nothing is declared afterwards."""
    import exactdp.programs.mechanism as M

    seen = []
    real = M.program_trace

    def spy(mechanism, answers):
        seen.append(M._INTEGRATION.get())
        return real(mechanism, answers)

    monkeypatch.setattr(M, "program_trace", spy)
    m = L.noisy_max_laplace(epsilon=1)
    M.check_probability_cost(m, tuple(as_scores([1, 0]).exact))
    # the enumeration under the budget, then the cost of the (cached) runs without one
    assert seen[0] == (f"{m.name}.probabilities", 1) and set(seen[1:]) <= {None}
    assert M._INTEGRATION.get() is None


def test_rational_obstruction_of_a_coin_valid_at_this_epsilon_only():
    """Incorrect randomized response flips with probability (1 - epsilon)/2, a coin weight
    in [0, 1] at epsilon 1 but not for every epsilon: the obstruction says so (it raised
    the trace's ProgramError about a symbolic epsilon the user never passed)."""
    from exactdp.programs import library as L

    m = L.randomized_response_incorrect(epsilon=1)
    why = m.rational_obstruction(as_scores([0]))
    assert why is not None and why.startswith("its trace at a symbolic epsilon is refused")


def test_a_refused_pair_is_not_told_to_pass_one_neighbour():
    """A fresh user's trial: ``privacy_loss`` of a noisy max program on 40 answers was
    refused with advice to pass one neighbour (it had) and to use a cut-off (argmax has
    none); the advice now names the closed forms."""
    from exactdp.cost import TooCostly
    from exactdp.programs import argmax, laplace, program

    @program(output="selection")
    def nm(q, epsilon):
        return argmax([a + laplace(2 / epsilon) for a in q])

    q = list(range(40))
    with pytest.raises(TooCostly) as info:
        exactdp.privacy_loss(nm(epsilon=1), q, [1, *q[1:]])
    msg = str(info.value)
    assert "pass the one neighbour" not in msg and "ReportNoisyMax, TopK" in msg
    assert "\n" not in msg


def test_the_exact_probabilities_advance_a_bar_run_by_run(monkeypatch):
    """Long legitimate work shows progress: noisy max on 30 answers integrates for about
    8 s; the loop over the runs advances a bar (shown on a terminal after 2 s)."""
    import exactdp.programs.mechanism as M
    from exactdp.progress import NoBar

    seen = []

    class Bar(NoBar):
        def update(self, n: int = 1) -> None:
            seen[-1][2] += n

    def fake(total, desc, **kw):
        seen.append([total, desc, 0])
        return Bar()

    monkeypatch.setattr(M, "progress_bar", fake)
    from exactdp.programs import library as L

    m = L.noisy_max_laplace(epsilon=1)
    m.distribution([0, 1, 3]).probabilities  # noqa: B018
    assert seen == [[3, "noisy_max_laplace.distribution", 3]]  # one run per winner


def test_analysis_seconds_prices_every_vector_as_check_cost_does():
    """check_dp's bar takes this estimate (the first vector's runs priced by the integrator,
    times the vectors): on SVT1 with c = 2 over 6 answers, 729 vectors of 22 runs, about
    40 s, measured 28 s of CPU (docs/benchmarks.md); it showed no bar for 27 s."""
    m = L.svt1(epsilon=1, threshold=1, c=2)
    q = as_scores(list(range(6)))
    vectors = [q] * 729
    per = trace_seconds(m, tuple(q.exact))
    assert m.analysis_seconds(vectors) == pytest.approx(729 * per)
    assert 2.0 < m.analysis_seconds(vectors) < SECONDS_LIMIT
    m.check_cost("check_dp", vectors)  # no refusal below the limit
    # priced as a whole: each vector's probabilities are not priced again run by run
    assert (m, tuple(q.exact)) in _PRICED
    with pytest.raises(TooCostly, match=r"^check_dp: an exact analysis of 5000 answer "):
        m.check_cost("check_dp", [q] * 5000)
