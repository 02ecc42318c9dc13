"""Direct summation of the runs of programs with discrete Laplace noise (a reference for
the tests, independent of the integrator): the first draw is the centre; every other draw
is compared with the centre or with constants only; each run's probability is the sum over
the centre's values in ``[-K, K]`` (the tail below ``10**-40`` at the scales tested) of the
centre's mass times, for every other draw, the exact mass of the integer interval its
constraints leave, in mpmath.

P(Z = k) = (1 - r) / (1 + r) * r**|k|, r = exp(-1/b) (two-sided geometric; Ghosh,
Roughgarden and Sundararajan 2009).
"""

from __future__ import annotations

import math

import mpmath


def dlap_mass(b, lo, hi):
    """``P(lo <= Z <= hi)``, Z ~ DLap(b); ``lo`` / ``hi`` integers or None (unbounded)."""
    r = mpmath.exp(-1 / mpmath.mpf(b))
    c = (1 - r) / (1 + r)

    def tail(k):  # sum_{j >= k} r**j for k >= 0
        return r**k / (1 - r)

    def nonneg(a, z):  # sum_{j=a}^{z} r**j, 0 <= a, z may be None
        if z is not None and z < a:
            return mpmath.mpf(0)
        return tail(a) - (0 if z is None else tail(z + 1))

    total = mpmath.mpf(0)
    # k >= 0 part
    a = 0 if lo is None else max(lo, 0)
    if hi is None or hi >= a:
        total += nonneg(a, hi)
    # k < 0 part: j = -k in [max(1, -hi), -lo]
    a = 1 if hi is None else max(1, -hi)
    z = None if lo is None else -lo
    if z is None or z >= a:
        total += nonneg(a, z)
    return c * total


def _bounds(constraints, j, subst):
    """Integer interval of draw ``j`` (coefficient +-1) given the others' values."""
    lo = hi = None
    for con in constraints:
        coefs = dict(con.expr.coefficients)
        if j not in coefs:
            continue
        a = coefs.pop(j)
        rest = con.expr.constant + sum(c * subst[i] for i, c in coefs.items())
        bound = -rest / a  # a z + rest REL 0  <=>  z REL' -rest / a
        rel = con.relation
        if rel == "==":
            if bound.q != 1:
                return 1, 0
            lo = int(bound) if lo is None else max(lo, int(bound))
            hi = int(bound) if hi is None else min(hi, int(bound))
        elif (a > 0) == True:  # noqa: E712 (a sympy Rational)
            new = math.floor(bound) + 1 if rel == ">" else math.ceil(bound)
            lo = new if lo is None else max(lo, new)
        else:
            new = math.ceil(bound) - 1 if rel == ">" else math.floor(bound)
            hi = new if hi is None else min(hi, new)
    return lo, hi


def run_probability(run, K=200, dps=40):
    """The probability of one run with discrete Laplace draws, by direct summation."""
    with mpmath.workdps(dps):
        weight = mpmath.mpf(run.weight) if run.weight.is_Rational else mpmath.mpf(
            run.weight.evalf(dps + 5))
        if not run.draws:
            return weight
        for d in run.draws:
            assert d.law == "discrete_laplace"
        scales = [mpmath.mpf(d.scale.evalf(dps + 5)) for d in run.draws]
        if len(run.draws) == 1:
            lo, hi = _bounds(run.constraints, 0, {})
            return weight * dlap_mass(scales[0], lo, hi)
        # centre: draw 0; others once each against it
        r0 = mpmath.exp(-1 / scales[0])
        c0 = (1 - r0) / (1 + r0)
        only_centre = [c for c in run.constraints if {i for i, _ in c.expr.coefficients} == {0}]
        total = mpmath.mpf(0)
        for rho in range(-K, K + 1):
            if _bounds(only_centre, 0, {}) != (None, None):
                lo, hi = _bounds(only_centre, 0, {})
                if (lo is not None and rho < lo) or (hi is not None and rho > hi):
                    continue
            term = c0 * r0 ** abs(rho)
            for j in range(1, len(run.draws)):
                lo, hi = _bounds(run.constraints, j, {0: rho})
                term *= dlap_mass(scales[j], lo, hi)
            total += term
        return weight * total
