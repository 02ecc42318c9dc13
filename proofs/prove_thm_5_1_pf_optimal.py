"""Theorem 5.1 of the notes: PF is the greedy solution of the section-5 equations.

Statement (MATH.md section 4). For a regular mechanism the binding privacy constraint at
``(q, r)`` compares q with ``q + 2 Delta e_r``. Making it tight for every non-maximizer and
splitting the rest equally among the maximizers gives the equations

    P_r(q) = exp(-eps (q* - q_r)/(2 Delta)) * P_r(q^(r))      (q_r < q*),
    P_r(q) = (1 - sum_{s: q_s < q*} P_s(q)) / n*                (q_r = q*),

where ``q^(r)`` is q with entry r raised to q*. They are triangular (``q^(r)`` has more
maximizers than q), so they have exactly one solution.

What is machine-checked here:

1. PF satisfies both equations for *every* real score vector: with independent coin
   symbols ``p_s`` (sympy), ``PF_r(q) = p_r * PF_r(q^(r))`` and the maximizers' equal split
   hold as polynomial identities (n <= 6). Hence PF is the unique solution.
2. The recursion solved exactly (``exactdp.optimal.section5_exact``, which never calls PF's
   formula) equals PF's polynomials (by PF's coins) for every integer gap multiset with
   n <= 7 and gaps <= 3 (and n <= 8, gaps <= 4 in the slow run).
3. The eps condition the notes omit: optimality of this solution among regular mechanisms on
   the lattice LP holds for ``eps >= eps*(n, k)`` only; ``exactdp.pf_optimality_region``
   computes eps* exactly (docs/lp.md); here we check PF is LP-optimal at eps = 1 and
   sub-optimal at eps = 1/2 for n = 3, k = 4.
"""

from __future__ import annotations

import itertools

import pytest
import sympy

from exactdp import lattice_lp, pf_optimality_region
from exactdp.optimal import pf_polynomials, section5_exact

t = sympy.Symbol("t")


def pf_integral(coins, r):
    integrand = coins[r]
    for s, c in enumerate(coins):
        if s != r:
            integrand *= 1 - t * c
    return sympy.expand(sympy.integrate(sympy.expand(integrand), (t, 0, 1)))


@pytest.mark.parametrize("n", range(2, 7))
@pytest.mark.parametrize("n_star", [1, 2])
def test_pf_satisfies_the_section5_equations_for_all_real_scores(n, n_star):
    if n_star > n:
        pytest.skip("more maximizers than outputs")
    p = list(sympy.symbols(f"p1:{n - n_star + 1}", positive=True))
    coins = [sympy.Integer(1)] * n_star + p  # maximizers first
    probs = [pf_integral(coins, r) for r in range(n)]
    for r in range(n_star, n):
        raised = list(coins)
        raised[r] = sympy.Integer(1)  # q^(r): entry r raised to q*
        assert sympy.expand(probs[r] - coins[r] * pf_integral(raised, r)) == 0
    rest = 1 - sum(probs[n_star:])
    for r in range(n_star):
        assert sympy.expand(probs[r] - rest / n_star) == 0


def multisets(n, top):
    for rest in itertools.combinations_with_replacement(range(top + 1), n - 1):
        yield (0, *rest)


@pytest.mark.parametrize(
    "n, top",
    [(n, 3) for n in range(1, 8)] + [pytest.param(8, 4, marks=pytest.mark.slow)],
)
def test_recursion_equals_pf_on_the_lattice(n, top):
    for gaps in multisets(n, top):
        assert section5_exact(gaps) == pf_polynomials(gaps), gaps


def test_eps_condition_of_optimality():
    assert lattice_lp(3, 4, 1).pf_ratio == pytest.approx(1, abs=1e-9)
    assert lattice_lp(3, 4, sympy.Rational(1, 2)).pf_ratio > 1.0001
    region = pf_optimality_region(3, 4)
    assert region.contains(1) and not region.contains(sympy.Rational(1, 2))
