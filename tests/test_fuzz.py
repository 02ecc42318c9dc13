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
import warnings
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import exactdp
from exactdp.exact import compare
from exactdp.exact.signs import UndecidedSignError
from exactdp.mechanisms import REGISTRY
from exactdp.numbers import ExactConversionWarning

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


# ---------------------------------------------------------------------------- odd values
# Values a newcomer passes: numpy integers and floats, bools, Fractions, floats (exact binary
# values, with a warning), huge and tiny, ties, n = 1; and values to refuse: NaN, inf,
# strings. Each call answers (the probabilities sum to 1 exactly; the loss of a neighbour is
# within epsilon, compared exactly) or refuses with a one-line ValueError / TypeError, or
# says it cannot decide (UndecidedSignError, exact signs past the ball's reach).
ODD = [np.int64(3), np.int32(-2), True, False, Fraction(1, 3), 0.5, 1e300, 1e-300,
       np.float64(2.5), float("nan"), float("inf"), "2", "x", 10**400, 0]
ODD_EPSILONS = [0, sympy.oo, Fraction(1, 3), np.int64(2), 1e-300, 1e300, True, "1/2",
                float("nan"), -1]
ALLOWED = (ValueError, TypeError, UndecidedSignError)


def _odd_mechanisms(epsilon):
    return [lambda: exactdp.PermuteAndFlip(epsilon), lambda: exactdp.ExponentialMechanism(epsilon),
            lambda: exactdp.ReportNoisyMax(epsilon),
            lambda: exactdp.SparseVector(epsilon, 1, c=1)]


def _refused_in_one_line(call) -> object:
    """``call()``, or None after a documented one-line refusal; any other exception fails."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExactConversionWarning)
            return call()
    except ALLOWED as exc:
        assert "\n" not in str(exc) and len(str(exc)) <= 2000, repr(exc)[:300]
        return None


@FAST
@given(k=st.integers(0, 3), epsilon=st.sampled_from(ODD_EPSILONS),
       scores=st.lists(st.sampled_from(ODD), min_size=1, max_size=3))
def test_odd_values_are_answered_or_refused_in_one_line(k, epsilon, scores):
    mech = _refused_in_one_line(_odd_mechanisms(epsilon)[k])
    if mech is None:
        return
    d = _refused_in_one_line(lambda: mech.distribution(scores))
    probs = None if d is None else _refused_in_one_line(lambda: d.probabilities)
    if probs is not None:
        total = sympy.nsimplify(sum(probs)) if k == 3 else sum(probs)
        assert compare(total, 1) == 0 or _refused_in_one_line(lambda: compare(total, 1)) is None
    neighbour = [0] * len(scores)
    loss = _refused_in_one_line(lambda: exactdp.privacy_loss(mech, scores, neighbour))
    if loss is not None and mech.epsilon is not sympy.oo:
        assert compare(loss.loss, mech.epsilon) <= 0


def test_sparse_vector_at_a_tiny_epsilon_answers():
    # before: OverflowError (fmpz_pow_fmpz: exponent too large) from sympy's cancel, whose
    # heuristic gcd evaluated polynomials in exp(2**-996) at 2**(2**k); now the ratio is kept
    # uncancelled (the same exact number) and the loss is a tiny exact positive number
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExactConversionWarning)
        m = exactdp.SparseVector(1e-300, 1, c=1)
        loss = exactdp.privacy_loss(m, [1e-300, 0], [0, 1e-300]).loss
    assert compare(loss, 0) > 0 and compare(loss, m.epsilon) <= 0
    assert compare(loss, sympy.Rational(1, 10**601)) > 0  # about 4.0e-601
