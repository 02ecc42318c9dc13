"""A fuzzed public API (issue 35): mechanisms from the registry, drawn score vectors and
epsilons, every call answered or refused in one documented line.

Seeded and bounded (hypothesis ``derandomize``); the longer profile is marked ``slow``.
Invariants, each from an independent route: the probabilities sum to 1 (their 30-digit
mpmath views, summed here); the mpmath and float64 views agree to float precision; a
neighbour's privacy loss is at most epsilon for these epsilon-DP mechanisms (exact
comparison); a refusal is a ``ValueError`` of one line within 2 s of CPU time.
"""

from __future__ import annotations

import time
from fractions import Fraction

import mpmath
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import exactdp
from exactdp.exact import compare
from exactdp.mechanisms import REGISTRY

#: The registry's selection mechanisms that epsilon calibrates (the report's kind).
KEYS = sorted(k for k, s in REGISTRY.items() if s.kind == "selection" and s.calibrated)
EPSILONS = [sympy.Integer(0), sympy.Rational(1, 2), sympy.Integer(1), sympy.Integer(3),
            sympy.log(2), sympy.oo]
SCORE = st.one_of(st.integers(-4, 4), st.fractions(-3, 3, max_denominator=4))
FAST = settings(max_examples=30, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=300, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])


def _analyse(key, epsilon, scores, moves):
    mech = REGISTRY[key].at_epsilon(epsilon, sensitivity=1, monotonic=False)
    d = mech.distribution(scores)
    with mpmath.workdps(40):
        p = d.evalf(30)
        assert abs(mpmath.fsum(p) - 1) < mpmath.mpf(10) ** -25
    floats = d.to_numpy()
    assert all(abs(float(a) - b) <= 1e-9 * max(float(a), 1e-300) + 1e-300
               for a, b in zip(p, floats, strict=True))
    neighbour = [Fraction(v) + m for v, m in zip(scores, moves, strict=True)]
    loss = exactdp.privacy_loss(mech, scores, neighbour)
    if epsilon is not sympy.oo:  # every one of them is epsilon-DP on its neighbours
        assert compare(loss.value, epsilon) <= 0, (key, epsilon, scores, neighbour, loss)


def _case(draw_settings):
    @draw_settings
    @given(key=st.sampled_from(KEYS), epsilon=st.sampled_from(EPSILONS),
           data=st.data(), n=st.integers(1, 4))
    def check(key, epsilon, data, n):
        scores = data.draw(st.lists(SCORE, min_size=n, max_size=n))
        moves = data.draw(st.lists(st.sampled_from([-1, 0, 1]), min_size=n, max_size=n))
        _analyse(key, epsilon, scores, moves)
    return check


test_analyses_hold_their_invariants = _case(FAST)
test_analyses_hold_their_invariants_long = pytest.mark.slow(_case(SLOW))

BAD = [float("nan"), float("inf"), "x", None, [1], 10**5000, "1e-400000"]


@FAST
@given(key=st.sampled_from(KEYS), bad=st.sampled_from(BAD), where=st.sampled_from(
    ["scores", "epsilon", "neighbour"]))
def test_bad_input_is_refused_in_one_line_quickly(key, bad, where):
    t0 = time.process_time()
    try:
        eps = bad if where == "epsilon" else 1
        mech = REGISTRY[key].at_epsilon(eps, sensitivity=1, monotonic=False)
        scores = [0, bad] if where == "scores" else [0, 1]
        neighbour = [1, bad] if where == "neighbour" else [1, 0]
        exactdp.privacy_loss(mech, scores, neighbour)
    except ValueError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 2000
    assert time.process_time() - t0 < 2
