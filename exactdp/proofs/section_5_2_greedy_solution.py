r"""Section 5.2: permute-and-flip is the (unique) solution of the tight section-5 equations.

Statement
---------
Make the binding privacy constraint of every non-maximiser tight and split the rest equally
among the maximisers:

.. math::
   P_r(q) = e^{-\varepsilon (q_* - q_r)/(2\Delta)}\, P_r(q^{(r)}) \quad (q_r < q_*), \qquad
   P_r(q) = \Big(1 - \sum_{s: q_s < q_*} P_s(q)\Big)/n_* \quad (q_r = q_*),

with :math:`q^{(r)}` the vector q with entry r raised to :math:`q_*`. These equations have
exactly one solution, and it is permute-and-flip, for every real score vector. (This is
what the notes' section 5.2 derives; whether that solution is *optimal* is a separate
statement, :mod:`exactdp.proofs.thm_5_1_pf_lp_optimal`.)

Human proof (own words)
-----------------------
Uniqueness: :math:`q^{(r)}` has one more maximiser than q, so the equations are triangular
in the number of maximisers; with all n maximisers the equal split gives 1/n. PF satisfies
them: with coins :math:`p_s`, :math:`P_r(q) = p_r \int_0^1 \prod_{s\ne r}(1 - t p_s)dt`, and
raising r to the top replaces :math:`p_r` by 1 without touching the integral; the
maximisers have coin 1, so their probabilities are equal by symmetry and sum to the rest.

Method of the check
-------------------
(1) PF's integral form with independent coin symbols satisfies both equations as
polynomial identities (sympy), for n <= 5 (n <= 6 under ``--runslow``) and 1 or 2
maximisers: all real scores at once.
(2) The recursion solved exactly without PF's formula
(:func:`exactdp.mechanisms.optimal.section5_exact`) equals PF's polynomials by its coins
(:func:`exactdp.mechanisms.optimal.pf_polynomials`) on every integer gap multiset,
n <= 7, gaps <= 3.

Scope
-----
(1) symbolic identity for all real scores, n <= 5 (6 slow), n* in {1, 2}; (2) exhaustive over the
stated integer family, every epsilon (polynomials in x).
"""

from __future__ import annotations

import sympy

from exactdp.audit.sweeps import score_vectors
from exactdp.mechanisms.optimal import pf_polynomials, section5_exact
from exactdp.proofs.result import ProofResult, run_checks

NAME = "section_5_2_greedy_solution"
STATEMENT = "Sec. 5.2: PF is the unique solution of the tight section-5 equations"

t = sympy.Symbol("t")


def pf_integral(coins, r):
    """PF's probability of r with the given coins: ``p_r int_0^1 prod (1 - t p_s) dt``."""
    integrand = coins[r]
    for s, c in enumerate(coins):
        if s != r:
            integrand *= 1 - t * c
    return sympy.expand(sympy.integrate(sympy.expand(integrand), (t, 0, 1)))


def equations_hold(n_max: int = 6, prob=pf_integral):
    """Both equations as identities in independent coins, n <= n_max, n* in {1, 2}."""
    ok, cases = True, 0
    for n in range(2, n_max + 1):
        for n_star in (1, 2):
            if n_star >= n:
                continue
            p = list(sympy.symbols(f"p1:{n - n_star + 1}", positive=True))
            coins = [sympy.Integer(1)] * n_star + p
            probs = [prob(coins, r) for r in range(n)]
            for r in range(n_star, n):
                raised = list(coins)
                raised[r] = sympy.Integer(1)
                ok &= sympy.expand(probs[r] - coins[r] * prob(raised, r)) == 0
            rest = 1 - sum(probs[n_star:])
            ok &= all(sympy.expand(probs[r] - rest / n_star) == 0 for r in range(n_star))
            cases += 1
    return ok, cases


def recursion_equals_pf(n_max: int = 7, gap_max: int = 3):
    """``section5_exact == pf_polynomials`` on every gap multiset of the family."""
    bad = []
    cases = 0
    for q in score_vectors(n_max, gap_max, n_min=1):
        gaps = [-v for v in q]
        cases += 1
        if section5_exact(gaps) != pf_polynomials(gaps):
            bad.append(q)
    return not bad, cases, tuple(bad[:5])


def verify(*, n_max: int = 5, lattice_n_max: int = 7, executor=None) -> ProofResult:
    """Run both checks (``executor`` unused)."""
    scope = (f"identities for all real scores, n <= {n_max}, 1 or 2 maximisers; recursion "
             f"= PF on integer gaps n <= {lattice_n_max}, gaps <= 3, every eps")
    return run_checks(NAME, STATEMENT, scope, [
        ("PF satisfies the equations", lambda: equations_hold(n_max)),
        ("recursion equals PF", lambda: recursion_equals_pf(lattice_n_max)),
    ])
