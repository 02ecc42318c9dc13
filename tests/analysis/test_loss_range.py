"""exactdp.analysis.loss_range: bounded range against closed forms and mpmath log ratios."""

import math

import mpmath
import pytest
import sympy

import exactdp
from exactdp import ReportNoisyMax
from exactdp.analysis.loss_range import bounded_range
from exactdp.exact import UndecidedSignError
from exactdp.mechanisms.custom import mechanism_from_function

from .test_outputs import overlap

EPS = sympy.Symbol("epsilon", positive=True)
R = sympy.Rational


def test_em_is_epsilon_bounded_range_symbolic():
    for mono, q2 in ((True, [0, 1]), (False, [1, -1])):
        m = exactdp.ExponentialMechanism(EPS, monotonic=mono)
        br = bounded_range(m, [0, 0], q2)
        assert sympy.simplify(br.value - EPS) == 0


def test_pf_bounded_range_is_eps_plus_log_two_minus_exp():
    m = exactdp.PermuteAndFlip(EPS, monotonic=True)
    br = bounded_range(m, [0, 0], [0, 1])
    target = EPS + sympy.log(2 - sympy.exp(-EPS))
    assert sympy.simplify(sympy.expand_log(br.value - target, force=True)) == 0
    num = bounded_range(exactdp.PermuteAndFlip(1, monotonic=True), [0, 0])
    assert abs(float(num) - (1 + math.log(2 - math.exp(-1)))) < 1e-14
    assert not num.holds_at(1) and num.holds_at(2)


def test_bounded_range_user_mechanism_support_mismatch():
    def point_mass(q):
        top = max(q)
        return [1 if v == top else 0 for v in q] if list(q).count(top) == 1 else [
            R(1, len(q))] * len(q)

    m = mechanism_from_function(point_mass)
    assert bounded_range(m, [0, 0], [0, 1]).value is sympy.oo

S, R, Z = sympy.sqrt, sympy.Rational, sympy.Integer


# ---------------------------------------------------------------- hole 7: undecided as 0
def test_bounded_range_with_symbolic_epsilon_raises_instead_of_zero():
    eps = sympy.Symbol("epsilon", positive=True)
    with pytest.raises(UndecidedSignError, match="symbolic epsilon"):
        exactdp.bounded_range(ReportNoisyMax(eps, noise="laplace"), [0, -1, -2], [1, -2, -1])


def test_bounded_range_numeric_matches_mpmath_log_ratios():
    # independent route: the mpmath view of both distributions, max - min of log-ratios
    m = ReportNoisyMax(1, noise="laplace")
    res = exactdp.bounded_range(m, [0, -1, -2], [1, -2, -1])
    with mpmath.workdps(40):
        p = m.distribution([0, -1, -2]).evalf(40)
        p2 = m.distribution([1, -2, -1]).evalf(40)
        logs = [mpmath.log(a / b) for a, b in zip(p, p2, strict=True)]
        ref = max(logs) - min(logs)
        assert abs(mpmath.mpf(sympy.N(res.value, 40)) - ref) < mpmath.mpf(10) ** -35
    assert res.certified and res.caveat is None


def test_bounded_range_over_different_output_sets_names_the_output():
    """True is reached on (1,) only: the range is infinite, witnessed by True itself (a
    sequence mechanism's outputs are named, as check_dp's witness)."""
    r = bounded_range(overlap(epsilon=1), [1], [0])
    assert r.value is sympy.oo and r.witness.output is True
