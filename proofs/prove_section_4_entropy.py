"""Tests of :mod:`exactdp.proofs.section_4_entropy`: EM = softmax at T = 2 Delta/eps."""

from exactdp.proofs import section_4_entropy as m


def test_verify():
    res = m.verify()
    assert res.holds, res.failures
    assert [c for c, _ in res.certificates] == [
        "EM is the Boltzmann distribution", "dH/dT = Var/T^3", "limits 0 and ln n"]


def test_negative_control_wrong_power_of_t():
    assert not m.entropy_derivative(temp_power=2)[0]


def test_negative_control_wrong_temperature():
    # EM at Delta = 3/2 is the softmax at T = 3/eps, so claiming Delta = 1 there fails
    import sympy

    from exactdp.mechanisms import ExponentialMechanism

    em = ExponentialMechanism(m.EPS, sensitivity=sympy.Rational(3, 2)).distribution([1, 0])
    wrong = m.softmax([1, 0], 2 / m.EPS)
    assert sympy.simplify(em.probabilities[0] - wrong[0]) != 0
