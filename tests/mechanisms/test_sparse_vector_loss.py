"""The exact privacy loss of the sparse vector variants that release values
(exactdp/mechanisms/sparse_vector_loss.py), Lyu-Su-Li's Algorithm 3 here (the numerical SVT's
loss is tested with its mechanism in test_numerical_sparse_vector.py).

Independent routes: a dense numeric maximisation of the log density ratio over outputs, the
densities by mpmath quadrature of the defining integral; the exact density ratio at the
witness output.
"""

from __future__ import annotations

import mpmath
import pytest
import sympy

import exactdp
from exactdp import SparseVector

from .test_sparse_vector_release import quad_density


def pair_loss(mech, q, q2):
    """The pair's loss by the one public route, :func:`exactdp.privacy_loss` (the loss of
    any two inputs: some pairs here are not neighbours)."""
    return exactdp.privacy_loss(mech, q, q2, allow_non_neighbour=True)

EPS = sympy.Rational(1, 2)


def numeric_sup(mech, a, b, grid):
    """Dense maximisation of |ln f_a(o) / f_b(o)| over outputs with one release (c = 1:
    (False^k, v, None...)) and the all-below output, densities by quadrature."""
    best = mpmath.mpf(0)
    m = len(a)
    with mpmath.workdps(20):
        for k in range(m + 1):
            if k == m:
                outs = [(False,) * m]
            else:
                outs = [(False,) * k + (str(v),) + (None,) * (m - k - 1) for v in grid]
            for o in outs:
                fa, fb = quad_density(mech, a, o, 15), quad_density(mech, b, o, 15)
                best = max(best, abs(mpmath.log(fa / fb)))
    return best


@pytest.mark.parametrize("m", [1, 2, 3, 4])
def test_loss_is_m_eps_over_2c_at_the_worst_neighbours(m):
    """The growth in m: exactly m eps / (2c), attained (no bound independent of m)."""
    for c in (1, 2, 3):
        loss = pair_loss(SparseVector(EPS, 0, c=c, variant=3), [0] * m, [1] * m)
        assert loss.value == m * EPS / (2 * c) and loss.attained and loss.direction == 1
        assert loss.approaching == ()
    loss = pair_loss(SparseVector(EPS, 0, c=1, variant=3), [1] * m, [0] * m)
    assert loss.value == m * EPS / 2 and loss.direction == -1


@pytest.mark.parametrize("m", [1, 2, 3])
def test_loss_matches_a_dense_numeric_maximisation(m):
    mech = SparseVector(1, "1/2", c=1, variant=3)
    a, b = [0, 1, "1/2"][:m], [1, "3/2", 1][:m]
    loss = pair_loss(mech, a, b)
    a_, b_ = [sympy.Rational(x) for x in a], [sympy.Rational(x) for x in b]
    assert loss.value == sum(abs(x - y) for x, y in zip(a_, b_, strict=True)) / 2
    got = numeric_sup(mech, a_, b_, [-6, -3, -1, 0, "1/2", 1, 2, 4])
    assert abs(got - mpmath.mpf(str(sympy.N(loss.value, 20)))) < 1e-12  # attained
    assert "v <= 0" in loss.output


def test_witness_output_attains_the_value():
    mech = SparseVector(1, 0, c=2, variant=3)
    a, b = [0, 2, 1], [1, 3, 1]
    loss = pair_loss(mech, a, b)
    da, db = mech.distribution(a), mech.distribution(b)
    o = (False, False, -5)  # the witness family: v <= min(a) = 0
    ratio = sympy.simplify(sympy.log(da.density(o) / db.density(o)))
    assert ratio == loss.value == sympy.Rational(1, 2)  # (1/4) * (1 + 1)


@pytest.mark.parametrize("a,b,low,out", [([0, 1, 2], [1, 0, 2], "0.97", (False, 1, None)),
                                         ([1, 1, 1], [0, 0, 2], "1.2", (False, False, 2))])
def test_mixed_directions_are_exact_and_attained(a, b, low, out):
    """No closed form of the supremum in general, but the engine finds it exactly (an
    interior critical point of one released value: here at the answers' breakpoints). The
    class gave a bracket before (at least 0.970 / 1.2): a dense numeric maximisation
    (quadrature) never exceeds the loss, and the witness output attains it."""
    mech = SparseVector(1, 0, c=1, variant=3)
    loss = pair_loss(mech, a, b)
    assert loss.attained and loss.interval is None and loss.value >= sympy.Rational(low)
    pointwise = sum(abs(sympy.Rational(x - y)) for x, y in zip(a, b, strict=True)) / 2
    assert exactdp.exact.compare(loss.value, pointwise) <= 0
    assert "with the value" in loss.output
    got = numeric_sup(mech, a, b, [-6, -2, -1, "-1/2", 0, "1/2", 1, 2, 3, 6, 12])
    value = mpmath.mpf(str(sympy.N(loss.value, 30)))
    assert got <= value + 1e-12
    with mpmath.workdps(30):
        ratio = mpmath.log(quad_density(mech, a, out, 25) / quad_density(mech, b, out, 25))
        assert abs(abs(ratio) - value) < 1e-15  # quadrature over a kink at 25 digits


def test_equal_vectors_and_a_symbolic_epsilon():
    mech = SparseVector(1, 0, variant=3)
    zero = pair_loss(mech, [1, 2], [1, 2])
    assert zero.value == 0 and zero.direction == 0 and zero.attained
    e = sympy.Symbol("e", positive=True)
    sym = SparseVector(e, 0, c=2, variant=3)
    assert pair_loss(sym, [0, 0, 0], [1, 1, 1]).value == 3 * e / 4
    assert sym.capabilities_on(exactdp.as_scores([0])) == frozenset({"density"})


def test_mixed_pair_attaining_the_pointwise_bound_is_exact():
    """(1, 1) vs (2, 0): the output (False, 1) has u = 0, so query 1's two CDFs are both in
    their left tails (ratio e^(1/2)) and v = 1 is beyond both answers of query 2 (ratio
    e^(1/2)): the pointwise bound 1 is attained there, at one point."""
    mech = SparseVector(1, 0, c=1, variant=3)
    loss = pair_loss(mech, [1, 1], [2, 0])
    assert loss.value == 1 and loss.attained and loss.direction == 1
    assert loss.output == "the pattern (False, REAL) with the value 1"  # the output (False, 1)
    with mpmath.workdps(30):
        fa = quad_density(mech, [1, 1], (False, 1), 25)
        fb = quad_density(mech, [2, 0], (False, 1), 25)
        assert abs(mpmath.log(fa / fb) - 1) < 1e-20
    got = numeric_sup(mech, [1, 1], [2, 0], [-4, -1, 0, "1/2", 1, 2, 4])
    assert abs(got - 1) < 1e-12


def test_half_half_at_ten_queries_is_exact_and_attained():
    """DP-Sniper's "half half" pair at m = 10 (eps = 0.1, T = 1, c = 1): the output
    (False x 5, 1, None ...) has u = 0, so the five queries below have both CDFs in their left
    tails (ratio e^(1/20) each) and v = 1 is beyond both answers of query 6 (e^(1/20)): 3/10,
    which is also the pattern-by-pattern pointwise bound, so the loss is exactly 3/10."""
    mech = SparseVector("1/10", 1, c=1, variant=3)
    a, b = [1] * 10, [2] * 5 + [0] * 5
    loss = pair_loss(mech, a, b)
    assert loss.value == sympy.Rational(3, 10) and loss.attained and loss.direction == 1
    o = (False,) * 5 + (1,) + (None,) * 4
    assert "(False, False, False, False, False, REAL, None" in loss.output
    assert loss.output.endswith("with the value 1")
    with mpmath.workdps(30):
        fa, fb = quad_density(mech, a, o, 25), quad_density(mech, b, o, 25)
        assert abs(mpmath.log(fa / fb) - mpmath.mpf(3) / 10) < 1e-20


def test_a_mixed_pair_whose_loss_is_an_exact_density_ratio():
    """[0, 0, 2] vs [-1, -1, 3] moves both ways, and at the outputs (False, v, None) with v
    < -1 the two densities differ by exactly a factor e (quadrature of the definition
    below): the loss is exactly 1, attained (the class gave the bracket [1, 3/2] before)."""
    mech = SparseVector(1, 0, c=1, variant=3)
    a, b = [0, 0, 2], [-1, -1, 3]
    loss = pair_loss(mech, a, b)
    assert loss.value == 1 and loss.attained and loss.direction == -1
    # the ratio is constant on the cell v < -1, attained at its end -1 (named either way)
    assert "(False, REAL, None)" in loss.output
    assert "(-oo, -1)" in loss.output or "the value -1" in loss.output
    out = (False, -5, None)
    with mpmath.workdps(40):
        ratio = mpmath.log(quad_density(mech, a, out) / quad_density(mech, b, out))
        assert abs(abs(ratio) - 1) < mpmath.mpf(10) ** -30
