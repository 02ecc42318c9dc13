"""The summaries of a distribution (exactdp.summaries): expected error, error tail, entropy
and expectation against closed forms (the exponential mechanism's softmax, the uniform
distribution's entropy ln n), each view against the others, the float view computed once."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import sympy

import exactdp


def test_expected_error_entropy_and_tail_of_the_exponential_mechanism_by_closed_form():
    # EM(epsilon = 2, sensitivity 1) on (0, -1, -2): p_r = exp(-r) / Z, Z = 1 + e^-1 + e^-2
    d = exactdp.ExponentialMechanism(2).distribution([0, -1, -2])
    e = sympy.exp
    z = 1 + e(-1) + e(-2)
    p = [1 / z, e(-1) / z, e(-2) / z]
    assert sympy.simplify(d.expected_error() - (p[1] + 2 * p[2])) == 0
    assert sympy.simplify(d.error_tail(1) - (p[1] + p[2])) == 0
    want = -sum(float(q) * math.log(float(q)) for q in p)
    assert abs(d.entropy() - want) < 1e-12
    assert abs(float(d.entropy("exact")) - want) < 1e-12
    with mpmath.workdps(40):
        assert abs(d.expected_error("mpmath", 30) - mpmath.mpf(sympy.N(p[1] + 2 * p[2], 40))) \
            < mpmath.mpf(10) ** -28
    assert abs(d.expected_error("float") - float(p[1] + 2 * p[2])) < 1e-12
    assert abs(d.expect(lambda r: r * r) - float(p[1] + 4 * p[2])) < 1e-12


def test_uniform_entropy_is_log_n_and_the_float_view_is_computed_once():
    d = exactdp.ExponentialMechanism(1).distribution([0] * 5)
    assert sympy.simplify(d.entropy("exact") - sympy.log(5)) == 0
    first = d.to_numpy()
    assert d.to_numpy() is first and not first.flags.writeable
    assert np.allclose(first, 0.2)
    assert abs(d.entropy() - math.log(5)) < 1e-12 and d.expected_error("float") == 0.0


def test_error_tail_in_floats_reads_the_float_view_once():
    """The float tail summed the float view rebuilt once per output past t (39 s CPU for
    PF on 0..19999); now one vectorised sum: against the exact tail at n = 60, and 20000
    outputs within a CPU bound."""
    import time

    d = exactdp.PermuteAndFlip(1).distribution(list(range(60)))
    assert abs(d.error_tail(5, "float") - float(d.error_tail(5))) < 1e-12
    assert d.error_tail(10**6, "float") == 0.0 and d.error_tail(10**6) == sympy.Integer(0)
    big = exactdp.PermuteAndFlip(1).distribution(list(range(20_000)))
    start = time.process_time()
    tail = big.error_tail(5, "float")
    assert time.process_time() - start < 10  # CPU seconds (0.35 s measured; 39 s before)
    p = big.to_numpy()
    assert abs(tail - float(p[:-5].sum())) < 1e-12  # gaps q* - q_r >= 5: r <= 19994
