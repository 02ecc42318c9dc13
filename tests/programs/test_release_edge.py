"""The ratio's limit at a cell end where both densities vanish: exact orders of
vanishing, against hand-computed Taylor expansions, and the exponential report-noisy-max
edge against the class and 30-digit quadrature of the densities on each side of it."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
import sympy

import exactdp
from exactdp import ReportNoisyMax
from exactdp.programs import library_release as L
from exactdp.programs.release_edge import attained_ends, edge_limit, vanishing_order
from exactdp.programs.release_select import Candidate

ONE = Fraction(1)
ZERO = Fraction(0)
#: ``1 - exp(-v)`` (``lam = 1``), ``v``, ``v**2`` and ``-v`` as terms.
F = {(ZERO, ZERO): (ONE,), (-ONE, ZERO): (-ONE,)}
V = {(ZERO, ZERO): (ZERO, ONE)}
V2 = {(ZERO, ZERO): (ZERO, ZERO, ONE)}


def test_vanishing_order_is_the_first_nonzero_taylor_coefficient():
    assert vanishing_order(F, ONE, ZERO, "t") == (1, 1)
    assert vanishing_order(V2, ONE, ZERO, "t") == (2, 2)
    assert vanishing_order(F, ONE, ONE, "t") == (0, 1 - sympy.exp(-1))
    with pytest.raises(ValueError, match="identically zero"):
        vanishing_order({}, ONE, ZERO, "t")


def test_edge_limit_orders_and_finite_limits():
    # (1 - e^-v) / v -> 1 as v -> 0+; (1 - e^-v) / v^2 -> oo; v^2 / (1 - e^-v) -> 0
    assert edge_limit(F, V, ONE, ZERO, 1, "t")[:2] == (0, (1, 1))
    assert edge_limit(F, V2, ONE, ZERO, 1, "t")[:2] == (1, None)
    assert edge_limit(V2, F, ONE, ZERO, 1, "t", "P") == (-1, None, "P as the value -> 0 from above")
    # from below: (e^-v - 1) / (-v) -> 1, the derivatives' common sign flipped
    neg = {(ZERO, ZERO): (-ONE,), (-ONE, ZERO): (ONE,)}
    assert edge_limit(neg, {(ZERO, ZERO): (ZERO, -ONE)}, ONE, ZERO, -1, "t")[:2] == (0, (1, 1))
    # 2 (1 - e^-v) against v: the limit 2, exactly
    two = {k: tuple(2 * a for a in p) for k, p in F.items()}
    assert edge_limit(two, V, ONE, ZERO, 1, "t")[:2] == (0, (2, 1))


def _density(scores, v):
    """The density of ``max_i(a_i + E_i)``, ``E_i`` exponential of mean 2 (epsilon 1):
    ``sum_i phi(v - a_i) prod_{j != i} Phi(v - a_j)``, by mpmath."""
    def phi(t):
        return mpmath.exp(-t / 2) / 2 if t >= 0 else mpmath.mpf(0)

    def cdf(t):
        return 1 - mpmath.exp(-t / 2) if t >= 0 else mpmath.mpf(0)

    return mpmath.fsum(phi(v - a) * mpmath.fprod(cdf(v - b) for j, b in enumerate(scores)
                                                   if j != i)
                       for i, a in enumerate(scores))


def test_exponential_noisy_max_value_at_the_support_edge_is_infinite():
    """``1^5`` against ``0 1^4``: both densities vanish below 1; above it the first is of
    order ``t**4`` and the second of order ``t**3`` (``t = v - 1``), so the ratio tends to
    0: the loss is infinite, approached as ``v -> 1`` from above, not attained."""
    a, b = [1] * 5, [0, 1, 1, 1, 1]
    mine = exactdp.privacy_loss(L.noisy_max_value_exponential(epsilon=1), a, b,
                                allow_non_neighbour=True)
    theirs = exactdp.privacy_loss(ReportNoisyMax(1, noise="exponential", output="value"), a, b,
                                  allow_non_neighbour=True)
    assert mine.value == theirs.value == sympy.oo
    assert mine.attained is theirs.attained is False
    assert "-> 1 from above" in mine.output
    d, e = (L.noisy_max_value_exponential(epsilon=1).distribution(x) for x in (a, b))
    with mpmath.workdps(30):
        for v in (sympy.Rational(9, 10), sympy.Rational(1, 2)):  # below the edge: both 0
            assert d.density(v) == e.density(v) == 0
            assert _density(a, mpmath.mpf(v.p) / v.q) == _density(b, mpmath.mpf(v.p) / v.q) == 0
        ratios = []
        for k in (2, 4, 6):
            h = mpmath.mpf(10) ** -k
            for x in (a, b):  # the program's density is the product formula's
                got = sympy.N((d if x is a else e).density(1 + sympy.Rational(1, 10**k)), 40)
                assert abs(mpmath.mpf(str(got)) - _density(x, 1 + h)) < mpmath.mpf(10) ** -28
            pa = mpmath.quad(lambda v: _density(a, v), [1, 1 + h])
            pb = mpmath.quad(lambda v: _density(b, v), [1, 1 + h])
            ratios.append(pa / pb)
        # P(V in [1, 1 + h]) ratio ~ c h -> 0: each step of 100 shrinks it about 100-fold
        assert all(80 < r0 / r1 < 120 for r0, r1 in zip(ratios, ratios[1:], strict=False))


def test_an_end_reached_from_one_side_is_attained_where_the_point_densities_equal_it():
    pair = (sympy.Integer(2), sympy.Integer(1))
    lone = Candidate(pair, None, 0, False, "P as the value -> 2", Fraction(2))
    twin = Candidate(pair, None, 0, False, "P as the value -> 3", Fraction(3))
    cands = [lone, twin, twin]  # the end 3 is reached from both sides: left alone here
    out = attained_ends(cands, (0, 1), "P", lambda v, r: pair[r])
    assert out[0].attained and out[0].witness == "P with the value 2" and out[1:] == cands[1:]
    # densities at the point that differ from the limit: not attained
    assert attained_ends(cands, (1, 1), "P", lambda v, r: pair[r]) == cands


def test_exponential_noisy_max_value_edge_with_positive_densities_is_attained():
    """``[2, 0]`` against ``[2, 1]``: both supports start at 2, where the densities jump to
    ``phi(0) Phi(2)`` and ``phi(0) Phi(1)``; the ratio is largest there, ``(1 - e^-1) / (1 -
    e^-1/2) = 1 + e^-1/2``, attained by the output ``v = 2`` (densities right-continuous),
    as the class says."""
    a, b = [2, 0], [2, 1]
    mine = exactdp.privacy_loss(L.noisy_max_value_exponential(epsilon=1), a, b)
    theirs = exactdp.privacy_loss(ReportNoisyMax(1, noise="exponential", output="value"), a, b)
    want = sympy.log(1 + sympy.exp(-sympy.Rational(1, 2)))
    assert sympy.simplify(sympy.exp(mine.value) - sympy.exp(want)) == 0
    assert sympy.simplify(sympy.exp(theirs.value) - sympy.exp(want)) == 0
    assert mine.attained and theirs.attained and "with the value 2" in mine.output
    with mpmath.workdps(30):  # the ratio of P(V in [2, 2 + h]) by quadrature tends to it
        for k in (3, 6):
            h = mpmath.mpf(10) ** -k
            r = (mpmath.quad(lambda v: _density(a, v), [2, 2 + h])
                 / mpmath.quad(lambda v: _density(b, v), [2, 2 + h]))
            assert abs(r - (1 + mpmath.exp(-0.5))) < 2 * h and r < 1 + mpmath.exp(-0.5)


def test_continuous_ends_marks_an_end_with_equal_limits_from_both_sides():
    # two cells meeting at v = 2 with the same limit pair (the densities continuous
    # there): both candidates attained, witnessed at the value 2; an end whose two limits
    # differ, and an end of one cell only, stay as they are
    from exactdp.programs.release_edge import continuous_ends
    from exactdp.programs.release_select import Candidate

    e = sympy.exp(sympy.Rational(1, 3))
    pair = (2 * e, e + 1)
    cands = [Candidate(pair, None, 0, False, "left", Fraction(2)),
             Candidate(pair, None, 0, False, "right", Fraction(2)),
             Candidate((e, sympy.Integer(1)), None, 0, False, "a", Fraction(5)),
             Candidate((e, sympy.Integer(2)), None, 0, False, "b", Fraction(5)),
             Candidate((e, sympy.Integer(3)), None, 0, False, "c", Fraction(7))]
    out = continuous_ends(cands, "p")
    assert [c.attained for c in out] == [True, True, False, False, False]
    assert out[0].witness == out[1].witness == "p with the value 2"
    assert out[2:] == cands[2:] and out[0].exact == pair
