"""Tests of :mod:`exactdp.proofs.section_5_2_greedy_solution`: PF solves the equations."""

import pytest
import sympy

from exactdp.proofs import section_5_2_greedy_solution as m


def test_verify():
    res = m.verify()
    assert res.holds, res.failures


@pytest.mark.slow
def test_verify_n6():
    assert m.verify(n_max=6).holds


def em_with_coins(coins, r):
    return coins[r] / sum(coins)


def test_negative_control_em_does_not_solve_the_equations():
    ok, cases = m.equations_hold(3, prob=em_with_coins)
    assert not ok and cases == 3
    # two items: EM gives p/(1+p) to the loser, the equations demand p * (1/2)
    p = sympy.Symbol("p", positive=True)
    assert sympy.simplify(em_with_coins([1, p], 1) - p * em_with_coins([1, 1], 1)) != 0
