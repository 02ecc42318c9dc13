"""Tests of :mod:`exactdp.proofs.thm_6_1_pf_equals_rnm_exp`: PF = RNM-Exp."""

import sympy

from exactdp.proofs import thm_6_1_pf_equals_rnm_exp as m


def test_verify():
    res = m.verify()
    assert res.holds, res.failures
    # steps (1 + 7), end-to-end outputs (1 + ... + 5), lattice vectors: sum C(n + 2, 3), n 2..7
    assert res.cases == 1 + 7 + 15 + (4 + 10 + 20 + 35 + 56 + 84)


def test_negative_control_gumbel_noise_is_em_not_pf():
    ok, cases, bad = m.engines_agree(4, 2, noise="gumbel")
    assert not ok and (0, -1) in bad


def test_negative_control_rnm_without_the_own_density():
    def half_density(p, r):  # forgets the 1/(K+1) tie-breaking: r's own density halved
        return m.rnm_exp_by_integral(p, r) / 2

    assert not m.end_to_end(3, rnm=half_density)[0]
    assert sympy.Integer(1) == sum(m.pf_by_definition([sympy.Integer(1)] * 3, r)
                                   for r in range(3))
