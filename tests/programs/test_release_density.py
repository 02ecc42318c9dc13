"""Densities of released values by conditioning (exactdp.programs.release_density): one
run's density against closed forms and quadrature at 30 digits."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy

from exactdp.programs import exponential, laplace, program
from exactdp.programs.release_density import run_density
from exactdp.scores import as_scores

R = sympy.Rational


@program(output="release")
def noisy_sum(q, epsilon):
    return q[0] + laplace(1 / epsilon) + exponential(2 / epsilon)


def test_a_sum_of_independent_noises_is_their_convolution():
    d = noisy_sum(epsilon=1).distribution([1])
    with mpmath.workdps(30):
        for v in (R(-2), R(1, 2), R(4)):
            x = mpmath.mpf(v.p) / v.q
            def integrand(e, x=x):
                return mpmath.exp(-abs(x - 1 - e)) / 2 * mpmath.exp(-e / 2) / 2
            conv = mpmath.quad(integrand, [0, max(x - 1, 0), mpmath.inf])
            assert abs(conv - sympy.N(d.density(v), 40)) < mpmath.mpf(10) ** -28


@program(output="release")
def gap(q, epsilon):
    g = q[0] + laplace(2) - (1 + laplace(1))
    return g if g >= 0 else None


def test_run_density_of_a_gap_fixes_the_leaf_against_its_centre():
    # g = a + nu - (1 + rho), nu ~ Lap(2), rho ~ Lap(1): the density of g at 1 on g >= 0 is
    # int f_rho(r) f_nu(g + 1 + r - a) dr, by quadrature at 30 digits
    (run,) = [r for r in gap(epsilon=1).trace(as_scores([0])).runs if r.released]
    unit, value = run_density(run, (Fraction(1),), "here")
    got = sum(q * unit**e * sympy.exp(unit * sympy.Rational(w)) for (e, w), q in value.items())
    with mpmath.workdps(30):
        quad = mpmath.quad(lambda r: mpmath.exp(-abs(r)) / 2 * mpmath.exp(-abs(2 + r) / 2) / 4,
                           [-mpmath.inf, -2, 0, mpmath.inf])
        assert abs(sympy.N(got, 40) - quad) < mpmath.mpf(10) ** -28
