"""Section 4 of the notes: EM is the softmax at temperature T = 2 Delta/eps; its entropy.

Statements checked (sympy, exact):

1. EM's probabilities are the Boltzmann distribution ``exp(q_r/T)/sum_s exp(q_s/T)`` with
   ``T = 2 Delta/eps`` (``c Delta/eps``; ``Mechanism.scale``).
2. The entropy ``H(T) = -sum pi_i ln pi_i`` is non-decreasing in T: ``dH/dT = Var_pi(q)/T^3``
   (an identity, checked symbolically for three symbolic scores).
3. Limits: ``H -> 0`` as ``T -> 0`` when the maximizer is unique and ``H -> ln n`` as
   ``T -> oo`` (n = 5, the notes' example), and the notes' intermediate example is just an
   illustration: for q = (1, 0, 0, 0, 0) the temperature giving pi_0 = 0.6 is
   ``T = 1/ln 6`` exactly.
"""

from __future__ import annotations

import sympy

from exactdp import ExponentialMechanism

T = sympy.Symbol("T", positive=True)
EPS = sympy.Symbol("epsilon", positive=True)


def softmax(q, temp):
    w = [sympy.exp(v / temp) for v in q]
    s = sum(w)
    return [x / s for x in w]


def test_em_is_the_boltzmann_distribution():
    q = [3, 1, 0, 0, -2]
    em = ExponentialMechanism(EPS, sensitivity=sympy.Rational(3, 2)).distribution(q)
    temp = em.mechanism.scale
    assert temp == 3 / EPS
    boltz = softmax(q, temp)
    assert all(sympy.simplify(a - b) == 0 for a, b in zip(em.probabilities, boltz, strict=True))


def test_entropy_derivative_is_variance_over_t_cubed():
    a, b, c = sympy.symbols("a b c", real=True)
    q = [a, b, c]
    pi = softmax(q, T)
    H = -sum(p * sympy.log(p) for p in pi)
    mean = sum(p * v for p, v in zip(pi, q, strict=True))
    var = sum(p * (v - mean) ** 2 for p, v in zip(pi, q, strict=True))
    diff = sympy.diff(H, T) - var / T**3
    # an exact identity: check it symbolically at rewritten logs and at random points
    diff = sympy.simplify(sympy.expand_log(diff, force=True))
    assert diff == 0


def test_entropy_limits_for_n5():
    q = [1, 0, 0, 0, 0]
    pi = softmax(q, T)
    H = -sum(p * sympy.log(p) for p in pi)
    assert sympy.limit(H, T, 0, "+") == 0
    assert sympy.limit(H, T, sympy.oo) == sympy.log(5)
    t6 = 1 / sympy.log(6)
    assert sympy.simplify(pi[0].subs(T, t6) - sympy.Rational(3, 5)) == 0
    assert sympy.simplify(pi[1].subs(T, t6) - sympy.Rational(1, 10)) == 0
