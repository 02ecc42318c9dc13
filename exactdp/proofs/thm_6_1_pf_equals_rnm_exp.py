r"""Theorem 6.1: permute-and-flip = report-noisy-max with exponential noise.

Statement
---------
For every score vector q, :math:`\varepsilon > 0` and :math:`\Delta > 0`, PF with coins
:math:`p_r = e^{\varepsilon(q_r - q_*)/(2\Delta)}` and RNM with i.i.d.
:math:`\mathrm{Exp}(\text{rate } \varepsilon/(2\Delta))` noise have the same output
distribution (Ding, Durfee, Kifer, Rogers & Zhang 2021, arXiv:2105.07260).

Human proof (the notes' chain, own words)
-----------------------------------------
(i) :math:`\Pr[q_r + X \ge q_*] = e^{-\lambda(q_* - q_r)} = p_r`, so the set S of noisy
scores reaching :math:`q_*` contains r independently with probability :math:`p_r`, and a
uniform element of S has PF's law (walking a random order and stopping at the first head).
(ii) Conditioned on reaching :math:`q_*`, the overshoot is again :math:`\mathrm{Exp}(\lambda)`
(memorylessness), independent across outputs; the argmax of m i.i.d. continuous variables
is uniform, so "uniform element of S" equals "argmax of the overshoots on S". (iii) Outputs
not in S stay below :math:`q_*` while every element of S is above it, so that argmax is
RNM's argmax.

Method of the check
-------------------
sympy: (i) the survival integral; (ii) memorylessness and
:math:`\int_0^\infty \lambda e^{-\lambda z}(1 - e^{-\lambda z})^{m-1} dz = 1/m`;
end to end, PF's definition (expectation of :math:`1/(K+1)` over the other coins) equals
RNM-Exp's defining integral as a polynomial identity in independent coin symbols; and the
library's two exact engines (PF by coins, RNM-Exp by the noise integral) agree on integer
lattices.

Scope
-----
(i), (ii): symbolic, all lambda, m <= 6; end to end: all real scores for n <= 5 (independent
coins); engines: every integer gap multiset with n <= 7, gaps <= 3.
"""

from __future__ import annotations

import itertools
from typing import cast

import sympy

from exactdp.audit.sweeps import score_vectors
from exactdp.distribution import Distribution
from exactdp.mechanisms import PermuteAndFlip, ReportNoisyMax
from exactdp.proofs.result import ProofResult, run_checks

NAME = "thm_6_1_pf_equals_rnm_exp"
STATEMENT = "Thm 6.1: PF = RNM with exponential noise"

lam, s, t, z, g = sympy.symbols("lambda s t z g", positive=True)


def step_i():
    """The flip probability is the exponential survival function."""
    survival = sympy.integrate(lam * sympy.exp(-lam * z), (z, g, sympy.oo))
    return sympy.simplify(survival - sympy.exp(-lam * g)) == 0, 1


def step_ii(m_max: int = 6):
    """Memorylessness and the uniform argmax of m fresh exponentials."""
    surv = lambda a: sympy.exp(-lam * a)  # noqa: E731
    ok = sympy.simplify(surv(s + t) / surv(s) - surv(t)) == 0
    for m in range(1, m_max + 1):
        integrand = lam * sympy.exp(-lam * z) * (1 - sympy.exp(-lam * z)) ** (m - 1)
        ok &= sympy.simplify(sympy.integrate(integrand, (z, 0, sympy.oo))
                             - sympy.Rational(1, m)) == 0
    return ok, m_max + 1


def pf_by_definition(p, r):
    """r is first among the heads: ``p_r E[1/(K+1)]``, K the heads among the others."""
    others = [c for i, c in enumerate(p) if i != r]
    total = 0
    for mask in itertools.product((0, 1), repeat=len(others)):
        w = sympy.Integer(1)
        for coin, head in zip(others, mask, strict=True):
            w *= coin if head else 1 - coin
        total += w / (sum(mask) + 1)
    return sympy.expand(p[r] * total)


def rnm_exp_by_integral(p, r):
    """RNM-Exp's integral in units of the scale, with ``w = exp(-z)`` above ``q*``."""
    integrand = p[r] * sympy.exp(-z)
    for i, coin in enumerate(p):
        if i != r:
            integrand *= 1 - coin * sympy.exp(-z)
    return sympy.expand(sympy.integrate(sympy.expand(integrand), (z, 0, sympy.oo)))


def end_to_end(n_max: int = 5, rnm=rnm_exp_by_integral):
    """PF's definition = RNM-Exp's integral in independent coins, n <= n_max."""
    cases, ok = 0, True
    for n in range(1, n_max + 1):
        p = sympy.symbols(f"p1:{n + 1}", positive=True)
        for r in range(n):
            ok &= sympy.expand(pf_by_definition(p, r) - rnm(p, r)) == 0
            cases += 1
    return ok, cases


def engines_agree(n_max: int = 7, gap_max: int = 3, noise: str = "exponential"):
    """The library's PF and RNM engines give identical polynomials on the lattice."""
    pf, rnm = PermuteAndFlip(1), ReportNoisyMax(1, noise=noise)
    bad = [q for q in score_vectors(n_max, gap_max)
           if pf.distribution(q).rational_form().forms
           != cast(Distribution, rnm.distribution(q)).rational_form().forms]  # the index
    return not bad, sum(1 for _ in score_vectors(n_max, gap_max)), tuple(bad[:5])


def verify(*, n_max: int = 5, lattice_n_max: int = 7, executor=None) -> ProofResult:
    """Run the chain's checks (``executor`` unused)."""
    scope = (f"steps (i), (ii): symbolic; end to end: all real scores, n <= {n_max} "
             f"(independent coins); engines: integer vectors n <= {lattice_n_max}, gaps <= 3")
    return run_checks(NAME, STATEMENT, scope, [
        ("(i) flip probability", step_i),
        ("(ii) memoryless, uniform argmax", step_ii),
        ("end to end, independent coins", lambda: end_to_end(n_max)),
        ("library engines agree", lambda: engines_agree(lattice_n_max)),
    ])
