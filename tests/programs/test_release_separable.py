"""Released values that are an invertible linear map of free noises
(exactdp/programs/release_separable.py). Independent routes: the shifts solved by hand
(diagonal, triangular and full maps), the class's closed form of the numerical sparse vector
(``eps / (3cD)`` per released answer moved), and quadrature at 30 digits of the log density
ratio of a fresh Laplace value far out on both sides (it tends to the spread)."""

from __future__ import annotations

import mpmath
import sympy

import exactdp
from exactdp.programs import exponential, laplace, program
from exactdp.programs import library_release as L
from exactdp.programs.release_separable import Shift, positive_log, separable_shift

R = sympy.Rational


def shift_of(mech, q, q2, pattern=0):
    """The :class:`Shift` of pattern number ``pattern`` (in ``a.keys`` order) of a pair."""
    a, b = mech.distribution(q), mech.distribution(q2)
    key = a.keys[pattern]
    return separable_shift(a.runs[key][0], b.runs[key][0])


@program(output="release")
def full_map(q, epsilon):
    """``(a_0 + x + y, a_1 + x - y)``: a full 2x2 map, ``x, y ~ Lap(1/epsilon)``."""
    x, y = laplace(1 / epsilon), laplace(1 / epsilon)
    return q[0] + x + y, q[1] + x - y


@program(output="release")
def singular(q, epsilon):
    """``(a_0 + x + y, a_1 + 2x + 2y)``: a singular map."""
    x, y = laplace(1 / epsilon), laplace(1 / epsilon)
    return q[0] + x + y, q[1] + 2 * x + 2 * y


@program(output="release")
def fresh_exponential(q, epsilon):
    """``a_0 + E``, ``E`` exponential of mean ``1/epsilon``: its support moves with a_0."""
    return q[0] + exponential(1 / epsilon)


def test_diagonal_and_triangular_maps_shift_by_hand():
    # the Laplace mechanism: d = 0 - 3, scale 1/epsilon = 1/2: spread 3/2
    assert shift_of(L.laplace_mechanism(epsilon=R(1, 2)), [0], [3]) == Shift(R(3, 2), 0)
    # the histogram: d = (1, -2), scale 1: spread 3
    assert shift_of(L.histogram(epsilon=1), [0, 0], [-1, 2]).spread == 3
    # prefix sums (0, 0) vs (1, 0): s_1 = a_1 + z_1, s_2 = a_1 + a_2 + z_1 + z_2, so
    # A = [[1, 0], [1, 1]], k - k' = (-1, -1), d = A^-1 (k - k') = (-1, 0): spread epsilon
    assert shift_of(L.prefix_sum(epsilon=R(1, 4)), [0, 0], [1, 0]).spread == R(1, 4)


def test_one_noise_a_value_is_solved_without_a_matrix():
    """A histogram's map is diagonal: each shift ``d_i = (k_i - k'_i) / a_i`` directly (was
    a flint matrix of k^2 entries: 23 of check_dp's 39 profiled seconds at 100 answers);
    the same spread as the matrix route on a 2-answer pair (|1| + |-2| = 3, scale 1) and
    a 300-answer pair: 1/2 * 300 at epsilon 1/2... scale 2, each answer moved by one."""
    assert shift_of(L.histogram(epsilon=1), [0, 0], [-1, 2]) == Shift(3, 0)
    assert shift_of(L.histogram(epsilon=R(1, 2)), [0] * 300, [1] * 300) == Shift(150, 0)


def test_a_full_map_is_solved_exactly():
    # x + y = -1, x - y = -3 (k - k' = (0 - 1, 0 - 3)): x = -2, y = 1; scale 1/epsilon = 2
    assert shift_of(full_map(epsilon=R(1, 2)), [0, 0], [1, 3]) == Shift(R(3, 2), 0)


def test_not_separable_is_none():
    assert shift_of(singular(epsilon=1), [0, 0], [1, 1]) is None
    # SVT3 releases the compared value, the gap SVT a function of the threshold noise
    svt3 = L.svt3(epsilon=1, threshold=1, c=1)
    a = svt3.distribution([0, 1])
    for key in a.keys:
        run = a.runs[key][0]
        assert separable_shift(run, svt3.distribution([1, 0]).runs[key][0]) is None
    gap = L.gap_svt(epsilon=1, threshold=1, c=1)
    g, g2 = gap.distribution([2, 0]), gap.distribution([1, 1])
    assert all(separable_shift(g.runs[k][0], g2.runs[k][0]) is None for k in g.keys)


@program(output="release")
def two_exponentials(q, epsilon):
    """``(a_0 + E_0, a_1 + E_1)``, exponential noises of mean ``1/epsilon``."""
    return q[0] + exponential(1 / epsilon), q[1] + exponential(1 / epsilon)


def test_an_exponential_noise_that_moves_changes_the_support():
    """``a + E`` has support ``[a, oo)``: the smaller answer's input alone reaches ``[a,
    a')``, so the infinite loss favours it (direction +1 for the first input)."""
    mech = fresh_exponential(epsilon=1)
    assert shift_of(mech, [0], [1]) == Shift(sympy.Integer(0), 1)
    assert shift_of(mech, [1], [0]) == Shift(sympy.Integer(0), -1)
    assert shift_of(mech, [1], [1]) == Shift(sympy.Integer(0), 0)
    for a, b, side in (([0], [1], 1), ([1], [0], -1)):
        loss = exactdp.privacy_loss(mech, a, b)
        assert loss.value == sympy.oo and loss.attained and loss.direction == side
    two = two_exponentials(epsilon=1)
    assert shift_of(two, [1, 0], [0, 0]) == Shift(sympy.Integer(0), -1)
    assert exactdp.privacy_loss(two, [1, 0], [0, 0]).direction == -1
    assert shift_of(two, [1, 0], [0, 1]).support == 1  # both ways: the first named


def test_numerical_svt_patterns_are_separable_with_the_class_spread():
    """Every releasing pattern of the numerical sparse vector: spread ``(eps / (3cD)) sum
    |d_i|`` over its released answers (Wang et al.'s released-value budget eps/3)."""
    eps, c = R(1, 2), 2
    mech = L.numerical_svt(epsilon=eps, threshold=1, c=c)
    q, q2 = [1, 0, 2], [2, 1, 0]
    a, b = mech.distribution(q), mech.distribution(q2)
    seen = 0
    for key, pattern in zip(a.keys, a.outputs, strict=True):
        released = [i for i, x in enumerate(pattern) if x not in (False, None)]
        s = separable_shift(a.runs[key][0], b.runs[key][0])
        if not released:
            assert s is None
            continue
        seen += 1
        want = eps / (3 * c) * sum(abs(R(q[i] - q2[i])) for i in released)
        assert s == Shift(want, 0), pattern
    assert seen == 6  # 3 patterns with one release, 3 with two


def test_the_spread_is_the_limit_of_the_log_ratio_by_quadrature():
    """A fresh Laplace value of scale ``b`` around ``a`` or ``a'``: the log ratio of the
    densities far out tends to ``+-|a - a'| / b``; each density checked by quadrature of
    the Laplace law at 30 digits (the CDF's derivative)."""
    mech = L.laplace_mechanism(epsilon=R(1, 3))
    s = shift_of(mech, [0], [2]).spread
    a, b = mech.distribution([0]), mech.distribution([2])
    with mpmath.workdps(30):
        for v in (R(-9), R(11)):
            fa, fb = (mpmath.mpf(sympy.N(d.density(v), 40)) for d in (a, b))
            pdf = [mpmath.diff(lambda x, m=m: mpmath.quad(
                lambda t: mpmath.exp(-abs(t - m) / 3) / 6, [-mpmath.inf, m, x]), v)
                   for m in (0, 2)]
            assert abs(fa - pdf[0]) < mpmath.mpf(10) ** -20
            assert abs(fb - pdf[1]) < mpmath.mpf(10) ** -20
            assert abs(abs(mpmath.log(fa / fb)) - mpmath.mpf(sympy.N(s, 40))) < 1e-25


def test_positive_log_is_sympys_log_on_positive_values():
    e = sympy.exp
    for x in (R(1), R(1, 3), R(6), e(R(2, 5)), e(1), sympy.E, 2 * e(R(1, 3)), 1 + e(-1),
              (3 * e(R(1, 2)) - e(R(1, 4))) / (7 + e(-R(5, 6)))):
        assert positive_log(x) == sympy.log(x), x
        with mpmath.workdps(40):
            want = mpmath.log(mpmath.mpf(sympy.N(x, 50)))
            assert abs(mpmath.mpf(sympy.N(positive_log(x), 45)) - want) < mpmath.mpf(10) ** -30


def test_a_loss_of_one_nat_is_simplified():
    """A fresh user's trial: a separable pattern's loss printed ``1/2 + log(E)`` (log built
    unevaluated on ``exp(1)``, which sympy writes ``E``); it is 3/2."""
    import exactdp
    from exactdp.programs import laplace, program

    @program(sensitivity=1, output="release")
    def rel(q, epsilon):
        return (q[0] + laplace(1 / epsilon) >= 0, q[1] + laplace(2 / epsilon))

    loss = exactdp.privacy_loss(rel(epsilon=1), [0, 0], [1, 1])
    assert loss.loss == sympy.Rational(3, 2)
