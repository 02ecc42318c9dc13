"""Theorem 5.2 of the notes: PF stochastically dominates EM.

Statement. For all q and ``t >= 0``: ``Pr[q* - q_PF(q) >= t] <= Pr[q* - q_EM(q) >= t]``;
hence ``E[err_PF] <= E[err_EM]`` (McKenna & Sheldon 2020, Thm 3).

What is machine-checked here: for every integer score vector with n <= 4 outputs and gaps
<= 3 (n = 5 in the slow run), and for *every* epsilon > 0 at once, each tail difference is
a rational function of ``x = exp(-eps/2)`` whose numerator is >= 0 on (0, 1), decided by
exact real-root isolation (``exactdp.analysis.utility.certify_dominance``) and re-verified
by Sturm counting (``certificate.check()``). Also: the expected-error gap for two items is
``g p (1/(1+p) - 1/2) >= 0`` exactly.
"""

from __future__ import annotations

import itertools

import pytest
import sympy

from exactdp import ExponentialMechanism, PermuteAndFlip
from exactdp.analysis.utility import certify_dominance, dominates

EPS = sympy.Symbol("epsilon", positive=True)


def vectors(n, top):
    for rest in itertools.combinations_with_replacement(range(top + 1), n - 1):
        yield [0] + [-g for g in rest]


@pytest.mark.parametrize("n", [2, 3, 4, pytest.param(5, marks=pytest.mark.slow)])
def test_pf_dominates_em_for_every_epsilon_on_the_lattice(n):
    pf, em = PermuteAndFlip(EPS), ExponentialMechanism(EPS)
    for q in vectors(n, 3):
        cert = certify_dominance(pf, em, q)
        assert cert.holds, q
        assert cert.check(), q


def test_dominance_is_not_reversed():
    # EM does not dominate PF: the reversed certificate fails (witness: any two items).
    cert = certify_dominance(ExponentialMechanism(EPS), PermuteAndFlip(EPS), [0, -1])
    assert not cert.holds
    assert not dominates(ExponentialMechanism(1).distribution([0, -1]),
                         PermuteAndFlip(1).distribution([0, -1])).holds


def test_two_items_expected_errors_exactly():
    g = sympy.Symbol("g", positive=True)
    p = sympy.exp(-EPS * g / 2)
    e_pf = g * p / 2
    e_em = g * p / (1 + p)
    assert sympy.simplify((e_em - e_pf) - g * p * (1 - p) / (2 * (1 + p))) == 0
