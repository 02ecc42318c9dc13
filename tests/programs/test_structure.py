"""The structural cache: a library program's runs traced once per length, the answers
substituted per vector, equal to a fresh enumeration; programs whose tree depends on the
answers are traced per vector."""

from __future__ import annotations

import random
from collections import Counter

import pytest
import sympy

from exactdp.programs import laplace, program
from exactdp.programs import library as L
from exactdp.programs import library_release as LR
from exactdp.programs.integrate import supplied_plan
from exactdp.programs.integrate_plan import plan
from exactdp.programs.structure import (
    _TEMPLATES,
    MAX_TEMPLATES,
    _trace,
    eligible,
    structural_trace,
    substitute,
    traced_runs,
)
from exactdp.programs.trace import enumerate_runs

R = sympy.Rational
EPS = sympy.Symbol("epsilon", positive=True)

#: Every library program whose tree does not depend on the answers, with its answers.
OBLIVIOUS = [
    (L.svt1(epsilon=R(1, 2), threshold=1, c=2), "rational"),
    (L.svt2(epsilon=R(1, 2), threshold=1, c=2), "rational"),
    (L.svt4(epsilon=R(1, 3), threshold=R(1, 2), c=1), "rational"),
    (L.svt5(epsilon=1, threshold=1), "rational"),
    (L.svt6(epsilon=EPS, threshold=0), "rational"),
    (L.svt_monotone(epsilon=1, threshold=1, c=2), "rational"),
    (L.noisy_max_laplace(epsilon=1), "rational"),
    (L.noisy_max_exponential(epsilon=EPS), "rational"),
    (L.above_threshold_discrete(epsilon=1, threshold=1), "integer"),
]


def _vectors(kind: str, n: int, count: int, seed: int) -> list[tuple]:
    rng = random.Random(seed)
    if kind == "integer":
        return [tuple(sympy.Integer(rng.randint(-3, 3)) for _ in range(n)) for _ in range(count)]
    return [tuple(R(rng.randint(-6, 6), rng.choice([1, 2, 3])) for _ in range(n))
            for _ in range(count)]


def _enumerated(m, q):
    """The independent route: a fresh enumeration of the program on ``q``."""
    prog = m.program
    return enumerate_runs(prog.bind(q, m.epsilon, m.arguments), prog.name, prog.filename)


@pytest.mark.parametrize(("m", "kind"), OBLIVIOUS, ids=lambda v: getattr(v, "name", v))
def test_substituted_runs_equal_a_fresh_enumeration(m, kind):
    vectors = _vectors(kind, 4, 8, seed=len(m.name))
    first = structural_trace(m, vectors[0], None, "test")
    assert first is not None and first.runs == _enumerated(m, vectors[0]).runs
    assert all(supplied_plan(run) == plan(run) for run in first.runs)
    for q in vectors[1:]:  # from the cached tree
        trace = structural_trace(m, q, None, "test")
        ref = _enumerated(m, q)
        assert trace is not None
        assert trace.runs == ref.runs and trace.outputs == ref.outputs
        for run in trace.runs:  # the moved plans handed to the integrator: plan()'s own
            assert supplied_plan(run) == plan(run)


#: The release programs of the library traced symbolically (their released values' constants
#: substituted too), with their answers.
RELEASED = [
    LR.noisy_max_value_laplace(epsilon=1), LR.noisy_max_value_exponential(epsilon=EPS),
    LR.svt3(epsilon=R(1, 2), threshold=1, c=2), LR.numerical_svt(epsilon=1, threshold=1),
    LR.gap_svt(epsilon=1, threshold=1, c=2), LR.adaptive_svt(epsilon=1, threshold=1),
    LR.bad_adaptive_svt(epsilon=1, threshold=1), LR.svt34_parallel(epsilon=1, threshold=1),
    LR.noisy_top_k_gap(epsilon=R(1, 2)), LR.noisy_top_k_gap_exponential(epsilon=1, k=3),
]


@pytest.mark.parametrize("m", RELEASED, ids=lambda v: v.name)
def test_released_values_substituted_equal_a_fresh_enumeration(m):
    vectors = _vectors("rational", 4, 6, seed=len(m.name))
    prog = m.program
    for q in vectors:
        trace = structural_trace(m, q, None, "test")
        ref = enumerate_runs(prog.bind(q, m.epsilon, m.arguments), prog.name, prog.filename,
                             release=True)
        assert trace is not None and eligible(m)
        assert trace.runs == ref.runs and trace.outputs == ref.outputs
        assert any(run.released for run in trace.runs)
    # the release protocol's runs (the tree cached by now): those of a fresh enumeration
    d = m.distribution(list(vectors[-1]))
    assert Counter(r for k in d.keys for r in d.runs[k]) == Counter(ref.runs)


def test_a_tree_on_answers_is_traced_per_vector():
    # randomized response uses int(a); the truncated geometric returns a clamped noise
    for m, q in ((L.randomized_response(epsilon=1), (sympy.Integer(1), sympy.Integer(0))),
                 (L.truncated_geometric(epsilon=1, n=3), (sympy.Integer(1),))):
        assert eligible(m)
        assert structural_trace(m, q, None, "test") is None
        assert _TEMPLATES[(m, len(q))] is None  # remembered: not tried again
        assert traced_runs(m, q, "test", None).runs == _enumerated(m, q).runs


@program()
def branches_on_answers(q, epsilon):
    return tuple((a + laplace(1) > 0) if a > 0 else None for a in q)


@program()
def oblivious(q, epsilon):
    rho = laplace(2 / epsilon)
    return tuple(2 * a - 1 + laplace(1) >= rho for a in q)


def test_a_users_program_is_enumerated_and_answer_branches_stop_the_symbolic_trace():
    m = branches_on_answers(epsilon=1)
    q = (R(1), R(-1))
    assert not eligible(m) and structural_trace(m, q, None, "test") is None
    assert _trace(m, q, None, "test") == (None, None)  # `if a > 0` compares answers alone
    u = oblivious(epsilon=1)
    trace, template = _trace(u, q, None, "test")
    assert template is not None and trace.runs == _enumerated(u, q).runs
    q2 = (R(3, 2), R(-7, 3))
    assert substitute(template, q2).runs == _enumerated(u, q2).runs


def test_the_cache_is_bounded_and_irrational_answers_are_enumerated(monkeypatch):
    m = L.svt1(epsilon=1, threshold=0)
    assert structural_trace(m, (sympy.sqrt(2),), None, "test") is None
    assert MAX_TEMPLATES >= 16
    monkeypatch.setattr("exactdp.programs.structure.MAX_TEMPLATES", 3)
    for n in range(1, 7):
        structural_trace(m, (R(0),) * n, None, "test")
    assert len(_TEMPLATES) <= 3 and (m, 6) in _TEMPLATES and (m, 1) not in _TEMPLATES
