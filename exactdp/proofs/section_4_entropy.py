r"""Section 4: EM is the softmax at temperature :math:`T = 2\Delta/\varepsilon`; its entropy.

Statement
---------
1. EM's probabilities are the Boltzmann distribution
   :math:`\pi_r = e^{q_r/T}/\sum_s e^{q_s/T}` with :math:`T = 2\Delta/\varepsilon`
   (:math:`c\Delta/\varepsilon` in general; ``Mechanism.scale``).
2. The entropy :math:`H(T) = -\sum_r \pi_r \ln \pi_r` is non-decreasing in T:
   :math:`dH/dT = \mathrm{Var}_\pi(q)/T^3`.
3. :math:`H \to 0` as :math:`T \to 0` (unique maximiser) and :math:`H \to \ln n` as
   :math:`T \to \infty`; the notes' illustration :math:`(0.6, 0.1, 0.1, 0.1, 0.1)` is EM at
   q = (1, 0, 0, 0, 0) with :math:`T = 1/\ln 6` exactly.

Human proof (own words)
-----------------------
With :math:`\beta = 1/T`, :math:`\ln \pi_r = \beta q_r - \ln Z`, so
:math:`H = \ln Z - \beta E_\pi[q]`; :math:`d\ln Z/d\beta = E_\pi[q]` and
:math:`dE_\pi[q]/d\beta = \mathrm{Var}_\pi(q)`, hence :math:`dH/d\beta = -\beta
\mathrm{Var}_\pi(q)` and :math:`dH/dT = \mathrm{Var}/T^3 \ge 0`. The limits follow from
:math:`\pi \to` the point mass at the maximiser, resp. the uniform law.

Method of the check
-------------------
sympy: the identity of 1 for a symbolic epsilon and Delta = 3/2; the derivative identity of
2 for three symbolic scores (simplified to 0); the limits of 3 with ``sympy.limit``.

Scope
-----
1: all epsilon, one vector (n = 5); 2: symbolic identity for all real scores, n = 3;
3: n = 5, the notes' example.
"""

from __future__ import annotations

import sympy

from exactdp.mechanisms import ExponentialMechanism
from exactdp.proofs.result import ProofResult, run_checks

NAME = "section_4_entropy"
STATEMENT = "Sec. 4: EM = softmax at T = 2 Delta/eps; dH/dT = Var/T^3 >= 0"

T = sympy.Symbol("T", positive=True)
EPS = sympy.Symbol("epsilon", positive=True)


def softmax(q, temp):
    """Boltzmann distribution of the scores ``q`` at temperature ``temp``."""
    w = [sympy.exp(v / temp) for v in q]
    s = sum(w)
    return [x / s for x in w]


def em_is_boltzmann(q=(3, 1, 0, 0, -2), sensitivity="3/2"):
    """EM's probabilities equal the softmax at ``T = 2 Delta/eps``."""
    sensitivity = sympy.Rational(sensitivity)
    em = ExponentialMechanism(EPS, sensitivity=sensitivity).distribution(list(q))
    temp = em.mechanism.scale
    ok = sympy.simplify(temp - 2 * sensitivity / EPS) == 0 and all(
        sympy.simplify(a - b) == 0
        for a, b in zip(em.probabilities, softmax(q, temp), strict=True))
    return ok, 1


def entropy_derivative(temp_power: int = 3):
    """``dH/dT - Var/T^power`` simplifies to 0 for three symbolic scores."""
    q = list(sympy.symbols("a b c", real=True))
    pi = softmax(q, T)
    H = -sum(p * sympy.log(p) for p in pi)
    mean = sum(p * v for p, v in zip(pi, q, strict=True))
    var = sum(p * (v - mean) ** 2 for p, v in zip(pi, q, strict=True))
    diff = sympy.simplify(sympy.expand_log(sympy.diff(H, T) - var / T**temp_power, force=True))
    return diff == 0, 1


def limits_n5():
    """H -> 0 (T -> 0), H -> ln 5 (T -> oo); pi = (0.6, 0.1, ...) at T = 1/ln 6."""
    pi = softmax([1, 0, 0, 0, 0], T)
    H = -sum(p * sympy.log(p) for p in pi)
    t6 = 1 / sympy.log(6)
    ok = (sympy.limit(H, T, 0, "+") == 0 and sympy.limit(H, T, sympy.oo) == sympy.log(5)
          and sympy.simplify(pi[0].subs(T, t6) - sympy.Rational(3, 5)) == 0
          and sympy.simplify(pi[1].subs(T, t6) - sympy.Rational(1, 10)) == 0)
    return ok, 3


def verify(*, executor=None) -> ProofResult:
    """Run the three checks (``executor`` unused)."""
    scope = ("softmax identity: all eps, one vector; dH/dT: symbolic identity for all real "
             "scores, n = 3; limits: n = 5")
    return run_checks(NAME, STATEMENT, scope, [
        ("EM is the Boltzmann distribution", em_is_boltzmann),
        ("dH/dT = Var/T^3", entropy_derivative),
        ("limits 0 and ln n", limits_n5),
    ])
