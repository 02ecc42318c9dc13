"""The library's programs: their outputs against exactdp's classes, their own samplers
against exact probabilities (Monte Carlo), and the discrete ones by direct summation."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy

import exactdp
from exactdp import ReportNoisyMax, SparseVector
from exactdp.programs import library as L
from exactdp.programs import library_release as LR
from exactdp.scores import as_scores

from . import quadrature as Q
from .discrete import run_probability as direct

R = sympy.Rational
EPS = sympy.Symbol("epsilon", positive=True)

SVT = [(L.svt1, 1, True), (L.svt2, 2, True), (L.svt4, 4, True), (L.svt5, 5, False),
       (L.svt6, 6, False)]
VECTORS = [[0], [1, 0], [2, 0, 1], [0, 0, 0], [3, -1, 2, 0], [R(1, 2), 2, 1, 1]]


def program_svt(prog, cut, epsilon, threshold, c):
    return prog(epsilon=epsilon, threshold=threshold, c=c) if cut else \
        prog(epsilon=epsilon, threshold=threshold)


def assert_frequencies(draws, probs, n, slack=1e-3):
    """Each output's frequency within 5 standard deviations (plus ``slack``) of its
    probability."""
    counts = np.bincount(draws, minlength=len(probs)) / n
    sd = np.sqrt(np.asarray(probs) * (1 - np.asarray(probs)) / n)
    assert np.all(np.abs(counts - probs) <= 5 * sd + slack), (counts, probs)


@pytest.mark.parametrize(("prog", "variant", "cut"), SVT)
@pytest.mark.parametrize("c", [1, 2])
def test_svt_outputs_are_sparse_vector_s_in_its_order(prog, variant, cut, c):
    for q in VECTORS:
        for eps in (R(1, 2), EPS):
            mine = program_svt(prog, cut, eps, 1, c).distribution(q)
            theirs = SparseVector(eps, 1, c if cut else 1, variant).distribution(q)
            assert mine.outputs == theirs.outputs, (q, eps)


@pytest.mark.parametrize(("prog", "variant", "cut"), SVT)
def test_svt_sampler_runs_the_algorithm(prog, variant, cut):
    q, c, n = [2, 0, 1], 2, 20_000
    d = program_svt(prog, cut, 1, 1, c).distribution(q)
    exact = SparseVector(1, 1, c if cut else 1, variant).distribution(q).to_numpy()
    assert_frequencies(d.sample_index(n, rng=7), exact, n)
    one = d.sample(rng=1)
    assert one in d.outputs
    many = d.sample(3, rng=1)
    assert many.shape == (3,) and all(o in d.outputs for o in many)


@pytest.mark.parametrize(("prog", "noise"), [(L.noisy_max_laplace, "laplace"),
                                             (L.noisy_max_exponential, "exponential")])
def test_noisy_max_sampler_and_outputs(prog, noise):
    q, n = [1, 0, 2, 2], 20_000
    d = prog(epsilon=1).distribution(q)
    assert d.outputs == (0, 1, 2, 3)
    draws = d.sample(n, rng=3)
    assert draws.dtype == np.int64
    assert_frequencies(draws, ReportNoisyMax(1, noise=noise).distribution(q).to_numpy(), n)
    runs = prog(epsilon=EPS).trace(as_scores(q)).runs
    assert [r.output for r in runs] == [(2, i) for i in range(4)]


def truncated_geometric_closed_form(x, n, eps):
    """Ghosh, Roughgarden and Sundararajan (2009): with r = exp(-eps), P(0) = r**x/(1+r),
    P(n) = r**(n-x)/(1+r), P(k) = (1-r)/(1+r) r**|k-x| in between."""
    r = mpmath.exp(-eps)
    out = [(1 - r) / (1 + r) * r ** abs(k - x) for k in range(n + 1)]
    out[0], out[n] = r**x / (1 + r), r ** (n - x) / (1 + r)
    return out


@pytest.mark.parametrize("x", [0, 1, 3])
def test_truncated_geometric_by_direct_summation(x):
    n, eps = 3, R(1, 2)
    m = L.truncated_geometric(epsilon=eps, n=n)
    d = m.distribution([x])
    assert d.outputs == (0, 1, 2, 3)
    trace = m.trace(as_scores([x]))
    with mpmath.workdps(40):
        got = [mpmath.fsum(direct(r) for r in trace.runs if r.output == (2, k))
               for k in range(n + 1)]
        want = truncated_geometric_closed_form(x, n, mpmath.mpf(1) / 2)
        assert all(abs(a - b) < mpmath.mpf(10) ** -30 for a, b in zip(got, want, strict=True))
    assert_frequencies(d.sample_index(20_000, rng=5), [float(p) for p in want], 20_000)


def test_randomized_response_weights():
    for eps in (R(1, 2), EPS):
        m = L.randomized_response(epsilon=eps)
        trace = m.trace(as_scores([1, 0]))
        p = 1 / (sympy.exp(eps) + 1)
        keep = 1 - p
        want = {(1, 0): keep * keep, (0, 0): p * keep, (1, 1): keep * p, (0, 1): p * p}
        got: dict = {}
        for r in trace.runs:
            assert r.draws == () and r.constraints == ()
            out = trace.outputs[r.output]
            got[out] = got.get(out, 0) + r.weight
        assert set(got) == set(want)
        assert all(sympy.simplify(got[k] - want[k]) == 0 for k in want)
    # its sampler: test_every_program_s_sampler_against_its_exact_law


def test_incorrect_randomized_response_flips_with_one_minus_epsilon_over_two():
    trace = L.randomized_response_incorrect(epsilon=R(1, 3)).trace(as_scores([1]))
    assert {trace.outputs[r.output]: r.weight for r in trace.runs} == {(0,): R(1, 3),
                                                                      (1,): R(2, 3)}


def test_randomized_response_takes_bits_only():
    # a score of 1/2 was accepted inside the domain (0, 1), read as int(1/2) = 0
    for prog in (L.randomized_response, L.randomized_response_incorrect):
        m = prog(epsilon=R(1, 2))
        assert m.score_domain == "integer"
        with pytest.raises(ValueError, match=r"^randomized_response\w*.distribution: "
                           r"scores\[0\] must be an integer .*, got 1/2$"):
            m.distribution([R(1, 2)])
        with pytest.raises(ValueError, match=r"scores\[0\] must be an integer"):
            exactdp.privacy_loss(m, [R(1, 2)], [1])


def test_incorrect_randomized_response_refuses_epsilon_above_one_when_made():
    with pytest.raises(ValueError) as err:
        L.randomized_response_incorrect(epsilon=2)
    assert str(err.value) == ("randomized_response_incorrect: epsilon must be <= 1 (the "
                              "program declares max_epsilon=1), got 2")
    d = L.randomized_response_incorrect(epsilon=1).distribution([1])
    assert d.outputs == ((1,),) and d.probabilities == (1,)  # (1 - 1)/2 = 0: never flipped


def test_above_threshold_discrete_by_direct_summation():
    q, eps = [2, 0, 1], 1
    m = L.above_threshold_discrete(epsilon=eps, threshold=1)
    trace = m.trace(as_scores(q))
    d = m.distribution(q)
    assert d.outputs == SparseVector(1, 1, 1, 1).distribution(q).outputs
    with mpmath.workdps(40):
        probs = {}
        for r in trace.runs:
            probs[r.output] = probs.get(r.output, 0) + direct(r)
        total = mpmath.fsum(probs.values())
        assert abs(total - 1) < mpmath.mpf(10) ** -30
    want = [float(probs[k]) for k in m.output_keys(as_scores(q))]
    assert_frequencies(d.sample_index(20_000, rng=11), want, 20_000)


def test_every_program_states_its_source_and_claim():
    for name, prog in L.PROGRAMS.items():
        assert "Claimed" in prog.__doc__, name
        assert prog.name == name


def test_monotone_svt_halves_the_query_noise_of_svt1():
    q = as_scores([2, 0, 1])
    mono = L.svt_monotone(epsilon=R(1, 2), threshold=1, c=2)
    assert mono.monotonic and not L.svt1(epsilon=1, threshold=1).monotonic
    plain = L.svt1(epsilon=R(1, 2), threshold=1, c=2)
    assert mono.distribution([2, 0, 1]).outputs == plain.distribution([2, 0, 1]).outputs
    a, b = mono.trace(q).runs[-1], plain.trace(q).runs[-1]
    assert [(c.expr, c.relation) for c in a.constraints] == [
        (c.expr, c.relation) for c in b.constraints]
    # rho ~ Lap(2D/epsilon) = Lap(4); nu_i ~ Lap(2cD/epsilon) = Lap(8), half of SVT1's 16
    assert [d.scale for d in a.draws] == [4, 8, 8, 8]
    assert [d.scale for d in b.draws] == [4, 16, 16, 16]


def test_randomized_response_check_dp_searches_inside_the_declared_domain():
    """``domain=(0, 1)``: the neighbour search keeps the bit vectors (a neighbour such as
    (2, 1) is outside the domain and left out). Correct randomized response is tightly
    epsilon-DP (Warner 1965): the loss is exactly epsilon = 1; DiPC's incorrect one flips
    with probability (1 - eps)/2, so its loss is ln((1 + eps)/(1 - eps)) = ln 3 at eps = 1/2."""
    import exactdp
    from exactdp.programs.library import randomized_response, randomized_response_incorrect

    vectors, how = exactdp.neighbours(randomized_response(epsilon=1), [1, 0])
    assert sorted(tuple(v.exact) for v in vectors) == [(0, 0), (1, 1)]
    assert "declared domain [0, 1]" in how
    good = exactdp.check_dp(randomized_response(epsilon=1), [1, 0])
    assert good.holds and good.loss == 1
    bad = exactdp.check_dp(randomized_response_incorrect(epsilon=sympy.Rational(1, 2)), [1, 0])
    assert not bad.holds and sympy.simplify(bad.loss - sympy.log(3)) == 0


# ---------------------------------------------------------------------------- every program
#: Every program of the library with parameters and answers (epsilon 1/2).
EVERY = {
    "noisy_max_laplace": ({}, [2, 0, 1]),
    "noisy_max_exponential": ({}, [2, 0, 1]),
    "svt1": ({"threshold": 1, "c": 2}, [2, 0, 1]),
    "svt2": ({"threshold": 1, "c": 2}, [2, 0, 1]),
    "svt4": ({"threshold": 1}, [2, 0, 1]),
    "svt5": ({"threshold": 1}, [2, 0, 1]),
    "svt6": ({"threshold": 1}, [2, 0, 1]),
    "svt_monotone": ({"threshold": 1, "c": 2}, [2, 0, 1]),
    "above_threshold_discrete": ({"threshold": 1}, [2, 0, 1]),
    "randomized_response": ({}, [1, 0]),
    "randomized_response_incorrect": ({}, [1, 0]),
    "truncated_geometric": ({"n": 3}, [1]),
}


@pytest.mark.parametrize("n", [20_000, pytest.param(100_000, marks=pytest.mark.slow)])
@pytest.mark.parametrize("name", sorted(EVERY))
def test_every_program_s_sampler_against_its_exact_law(name, n):
    """Monte Carlo of the program's own sampler (the literal algorithm, random draws)
    against its exact probabilities: 2e4 draws by default, the issue's 1e5 under --runslow
    (about 3 s CPU each)."""
    params, q = EVERY[name]
    d = L.PROGRAMS[name](epsilon=R(1, 2), **params).distribution(q)
    assert_frequencies(d.sample_index(n, rng=2024), d.to_numpy(), n, slack=10 / n)


def test_every_program_has_a_monte_carlo_and_an_independent_exact_check():
    assert set(EVERY) == set(L.PROGRAMS)
    exact = ({p.name for p, _, _ in QUADRATURE} | {"above_threshold_discrete",
             "truncated_geometric"}  # direct summation (tests above, .discrete)
             | {"randomized_response", "randomized_response_incorrect"})  # coin weights
    assert exact == set(L.PROGRAMS)


E = mpmath.mpf(1) / 2  # epsilon in the references
#: The continuous programs and their quadrature reference at epsilon 1/2 (the scales of the
#: docstrings: D = 1).
QUADRATURE = [
    (L.svt1, {"threshold": 1, "c": 2}, lambda o, q: Q.sparse_vector(o, q, 1, 2 / E, 8 / E)),
    (L.svt2, {"threshold": 1, "c": 2},
     lambda o, q: Q.sparse_vector(o, q, 1, 4 / E, 8 / E, redraw=True)),
    (L.svt4, {"threshold": 1}, lambda o, q: Q.sparse_vector(o, q, 1, 4 / E, 4 / (3 * E))),
    (L.svt5, {"threshold": 1}, lambda o, q: Q.sparse_vector(o, q, 1, 2 / E, None)),
    (L.svt6, {"threshold": 1}, lambda o, q: Q.sparse_vector(o, q, 1, 2 / E, 2 / E)),
    (L.svt_monotone, {"threshold": 1, "c": 2},
     lambda o, q: Q.sparse_vector(o, q, 1, 2 / E, 4 / E)),
    (L.noisy_max_laplace, {}, lambda i, q: Q.noisy_max(i, q, 2 / E, "laplace")),
    (L.noisy_max_exponential, {}, lambda i, q: Q.noisy_max(i, q, 2 / E, "exponential")),
]


@pytest.mark.parametrize(("prog", "params", "reference"), QUADRATURE,
                         ids=lambda v: getattr(v, "name", ""))
@pytest.mark.parametrize("q", [[2, 0, 1], [0, R(1, 2), 1]])
def test_continuous_programs_equal_quadrature_to_30_digits(prog, params, reference, q):
    d = prog(epsilon=R(1, 2), **params).distribution(q)
    got = d.evalf(35)
    with mpmath.workdps(40):
        qq = [mpmath.mpf(sympy.Rational(a).p) / sympy.Rational(a).q for a in q]
        want = [reference(o, qq) for o in d.outputs]
    assert abs(mpmath.fsum(want) - 1) < mpmath.mpf(10) ** -30
    for o, a, b in zip(d.outputs, got, want, strict=True):
        assert abs(a - b) < mpmath.mpf(10) ** -30, (prog.name, q, o, a, b)


@pytest.mark.parametrize("n", [0, -1, sympy.Rational(1, 2)])
def test_truncated_geometric_refuses_a_bad_range_at_construction(n):
    with pytest.raises(ValueError, match=r"^truncated_geometric: n must be a positive integer"):
        L.truncated_geometric(epsilon=1, n=n)


@pytest.mark.parametrize("name", sorted({**L.PROGRAMS, **LR.PROGRAMS}))
def test_every_program_documents_its_parameters_output_and_an_example(name):
    """numpydoc for help(): every parameter of the function, its output, and an example
    (run by tests/test_docstring_examples.py), for the discrete and the release programs
    (library_release's registry holds library_sums' too)."""
    import inspect

    func = {**L.PROGRAMS, **LR.PROGRAMS}[name].func
    doc = inspect.getdoc(func)
    for section in ("Parameters", "Returns", "Examples"):
        assert f"\n{section}\n{'-' * len(section)}\n" in doc, (name, section)
    params = doc.split("\nParameters\n----------\n")[1].split("\n\n")[0]
    documented = [line.split(" : ")[0] for line in params.splitlines() if " : " in line
                  and not line.startswith(" ")]
    assert documented == list(inspect.signature(func).parameters), name
