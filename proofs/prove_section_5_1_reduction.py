"""Tests of :mod:`exactdp.proofs.section_5_1_reduction`: the worst neighbour raises r."""

import flint
import pytest
import sympy

from exactdp import ExponentialMechanism, PermuteAndFlip
from exactdp.proofs import section_5_1_reduction as m


def test_verify():
    res = m.verify()
    assert res.holds, res.failures


@pytest.mark.slow
def test_verify_n4_gaps3():
    assert m.verify(n_max=4, gap_max=3).holds


def test_probabilities_match_the_library():
    # at eps = 2 ln 2, x = e^{-eps/2} = 1/2 exactly
    q = (0, -1, -3)
    half = flint.fmpq(1, 2)
    for name, mech in (("pf", PermuteAndFlip), ("em", ExponentialMechanism)):
        lib = mech(2 * sympy.log(2)).distribution(q).probabilities
        mine = [a(half) / b(half) for a, b in m.probabilities(name, q)]
        for u, v in zip(lib, mine, strict=True):
            assert sympy.simplify(u - sympy.Rational(int(v.p), int(v.q))) == 0


def test_negative_control_non_monotone_mechanism_breaks_the_reduction():
    ok, _, bad = m.reduction_holds("bump", 2, 2)
    assert not ok and bad[0][0] == (0, 0)
