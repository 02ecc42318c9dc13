"""The privacy loss of release programs: the exact supremum of the log density ratio,
against the known closed forms, the hand-written classes (exactly), a dense grid of exact
densities of the classes, the defining integral by quadrature, and the certified critical
points of :mod:`exactdp.programs.release_sup`."""

from __future__ import annotations

import time

import mpmath
import pytest
import sympy

import exactdp
from exactdp import NumericalSparseVector, ReportNoisyMax, SparseVector
from exactdp.exact.signs import is_zero
from exactdp.programs import exponential, laplace, program
from exactdp.programs import library_release as L
from exactdp.programs.release_loss import directional_supremum, loss_supremum

from . import quadrature

R = sympy.Rational


def same(a, b) -> bool:
    """``a == b`` for logs of exponential sums, exactly: ``exp(a) - exp(b)`` is an
    exponential sum, zero iff its terms cancel (Lindemann-Weierstrass)."""
    return is_zero(sympy.expand(sympy.exp(a) - sympy.exp(b)))


# ------------------------------------------------------------------ known closed forms
def test_laplace_mechanism_and_histograms_are_tight():
    loss = exactdp.privacy_loss(L.laplace_mechanism(epsilon=R(1, 3)), [0], [1])
    assert loss.value == R(1, 3) and loss.attained
    h = exactdp.privacy_loss(L.histogram(epsilon=1), [0, 0, 0], [1, 0, 0])
    assert h.value == 1 and h.attained
    wrong = exactdp.privacy_loss(L.histogram_wrong_scale(epsilon=R(1, 2)), [0, 0], [0, 1])
    assert wrong.value == 2  # the true level 1/epsilon


@program(adjacency="one", output="release")
def rotated(q, epsilon):
    z1, z2 = laplace(1 / epsilon), laplace(2 / epsilon)
    return q[0] + z1 + z2, q[1] + z1 - z2  # an invertible map, not triangular


@program(adjacency="one", output="release")
def overlapping(q, epsilon):
    z1, z2, z3 = laplace(1), laplace(1), laplace(1)
    return q[0] + z1 + z2, q[1] + z2 + z3  # three noises under two values


@program(adjacency="one", output="release")
def exponential_sums(q, epsilon):
    z1, z2 = exponential(1), exponential(1)
    return q[0] + z1, q[0] + q[1] + z1 + z2


def test_released_values_that_are_a_linear_map_of_free_noises():
    # v = k + A z with A = [[1, 1], [1, -1]]: moving q0 by 1 shifts the noises by A^-1 (1,
    # 0) = (1/2, 1/2): the loss is 1/2 / 1 + 1/2 / 2 = 3/4 (scales 1 and 2), attained;
    # the density ratio at values beyond both centres (z1, z2 > 1/2) is exp(3/4)
    m = rotated(epsilon=1)
    loss = exactdp.privacy_loss(m, [0, 0], [1, 0])
    assert loss.value == R(3, 4) and loss.attained
    far = (20, 2)  # z = (11, 9) under [0, 0], (21/2, 17/2) under [1, 0]
    ratio = m.distribution([1, 0]).density(far) / m.distribution([0, 0]).density(far)
    assert same(sympy.log(ratio), R(3, 4))
    # three noises under two values: not a linear map of free noises; once a certified
    # bracket [0.99.., 1] (1: the translation bound, shift z1 by 1); exact over the plane's
    # faces now (release_two): 1, approached as the first value grows, never attained
    two = exactdp.privacy_loss(overlapping(epsilon=1), [0, 0], [1, 0])
    assert two.interval is None and two.value == 1 and not two.attained
    # exponential noise shifted: values below the other input's support (infinite)
    inf = exactdp.privacy_loss(exponential_sums(epsilon=1), [0, 0], [1, 0])
    assert inf.value == sympy.oo and inf.attained
    assert exactdp.privacy_loss(exponential_sums(epsilon=1), [0, 0], [0, 0]).value == 0


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_noisy_max_value_laplace_is_n_epsilon_over_2_attained(n):
    loss = exactdp.privacy_loss(L.noisy_max_value_laplace(epsilon=1), [0] * n, [1] * n)
    assert loss.value == R(n, 2) and loss.attained and loss.interval is None


def test_noisy_max_value_exponential_is_infinite_with_a_witness_event():
    loss = exactdp.privacy_loss(L.noisy_max_value_exponential(epsilon=1), [0, 0], [1, 1])
    assert loss.value == sympy.oo and loss.attained
    assert "probability 0 under one input only" in loss.output


# ------------------------------------------------------------------ the hand-written classes
PAIRS = [([0, 1, 3], [1, 0, 2]), ([0, 0], [1, -1]), ([2, 0, 1], [1, 1, 0]),
         ([R(1, 2), 0], [R(-1, 2), 1])]


@pytest.mark.parametrize(("q", "q2"), PAIRS)
def test_noisy_max_value_equals_report_noisy_max_s_loss(q, q2):
    mine = exactdp.privacy_loss(L.noisy_max_value_laplace(epsilon=1), q, q2)
    theirs = exactdp.privacy_loss(ReportNoisyMax(1, noise="laplace", output="value"), q, q2)
    assert same(mine.value, theirs.value)
    assert mine.attained == theirs.attained


@pytest.mark.parametrize(("q", "q2"), [([0, 1], [1, 2]), ([2, 0, 1], [1, -1, 0]),
                                       ([0, 1], [1, 0]), ([2, 0, 1], [1, 1, 0])])
def test_numerical_svt_equals_the_class_exactly(q, q2):
    mine = exactdp.privacy_loss(L.numerical_svt(epsilon=1, threshold=1), q, q2)
    theirs = exactdp.privacy_loss(NumericalSparseVector(1, 1), q, q2)
    assert same(mine.value, theirs.value) and mine.attained == theirs.attained


@pytest.mark.parametrize(("q", "q2"), [([0, 1], [1, 2]), ([2, 0, 1], [1, -1, 0])])
def test_svt3_one_way_pairs_equal_the_class_exactly(q, q2):
    mine = exactdp.privacy_loss(L.svt3(epsilon=1, threshold=1), q, q2)
    theirs = exactdp.privacy_loss(SparseVector(1, 1, 1, variant=3), q, q2)
    assert mine.value == theirs.value and mine.attained and theirs.attained


def test_svt3_two_way_pair_is_exact_where_the_class_gave_a_bracket():
    # the class's own integrals gave "at least 0.953542 (at the output (False, 1)) and at
    # most 1"; it now answers pairs moving both ways by the engine, exactly
    q, q2 = [0, 1], [1, 0]
    theirs = exactdp.privacy_loss(SparseVector(1, 1, 1, variant=3), q, q2)
    mine = exactdp.privacy_loss(L.svt3(epsilon=1, threshold=1), q, q2)
    assert same(mine.value, sympy.log(4 * sympy.exp(R(1, 2)) - 4)) and mine.attained
    assert same(theirs.value, mine.value) and theirs.attained
    # a dense grid of the class's exact densities never exceeds it, and reaches it at v = 1
    a, b = SparseVector(1, 1, 1, variant=3).distribution(q), \
        SparseVector(1, 1, 1, variant=3).distribution(q2)
    best = 0
    for k in range(-40, 41):
        v = R(k, 8)
        for out in ((v, None), (False, v)):
            ratio = abs(sympy.N(sympy.log(a.density(out) / b.density(out)), 30))
            assert ratio <= sympy.N(mine.value, 30) + sympy.Float(10) ** -25
            best = max(best, ratio)
    assert abs(best - sympy.N(mine.value, 30)) < sympy.Float(10) ** -25


def test_gap_svt_limit_against_the_defining_integral():
    # one query: the gap g = a + nu - (T + rho), nu ~ Lap(4), rho ~ Lap(2); released when g >= 0
    loss = exactdp.privacy_loss(L.gap_svt(epsilon=1, threshold=1), [0], [1])
    assert loss.value == R(1, 4) and not loss.attained  # approached as g -> +oo

    def density(a, g):
        f = lambda r: mpmath.exp(-abs(r) / 2) / 4 * mpmath.exp(-abs(g + 1 + r - a) / 4) / 8  # noqa: E731
        return mpmath.quad(f, [-mpmath.inf, a - g - 1, 0, mpmath.inf])

    with mpmath.workdps(30):
        for g in (0, 1, 5, 20):
            ratio = abs(mpmath.log(density(0, g) / density(1, g)))
            assert ratio <= mpmath.mpf(1) / 4 + mpmath.mpf(10) ** -25
        assert abs(abs(mpmath.log(density(0, 80) / density(1, 80))) - mpmath.mpf(1) / 4) < 1e-6


def test_check_dp_reads_the_declared_output_kind():
    ok = exactdp.check_dp(L.laplace_mechanism(epsilon=1), [0])
    assert ok.holds and ok.loss == 1
    bad = exactdp.check_dp(L.histogram_wrong_scale(epsilon=R(1, 2)), [0, 0])
    assert not bad.holds and bad.loss == 2
    inf = exactdp.check_dp(L.noisy_max_value_exponential(epsilon=1), [0, 0])
    assert not inf.holds and inf.loss == sympy.oo


def test_a_symbolic_epsilon_is_refused_for_the_loss():
    eps = sympy.Symbol("epsilon", positive=True)
    with pytest.raises(ValueError, match="numeric epsilon"):
        exactdp.privacy_loss(L.laplace_mechanism(epsilon=eps), [0], [1])


# ------------------------------------------------------------------ the machinery


@pytest.mark.parametrize("m", [3, 5])
def test_svt3_worst_neighbour_is_m_epsilon_over_2c(m):
    # Lyu-Su-Li: no bound independent of m; the class's exact worst case m eps / (2c)
    loss = exactdp.privacy_loss(L.svt3(epsilon=1, threshold=0), [0] * m, [1] * m)
    assert loss.value == R(m, 2) and loss.attained


def test_an_infinite_loss_is_found_without_searching_critical_points():
    # exponential noise is one-sided: max(q + E) > min(q), so on 0^5 vs 1^5 a value in
    # (0, 1) has positive density under 0^5 only (the loss is oo, attained); before, the
    # critical-point search of the other cells ran 13-16 s and refused
    t = time.process_time()
    loss = exactdp.privacy_loss(L.noisy_max_value_exponential(epsilon=sympy.Rational(1, 2)),
                                [0] * 5, [1] * 5)
    assert loss.loss == sympy.oo
    assert time.process_time() - t < 10  # CPU; 0.05 s here


# ------------------------------------------------- the suite's settings: 10 queries, c = 1
@pytest.mark.parametrize(("q", "q2"), [((1,) * 10, (2,) * 10), ((1,) * 10, (2,) * 5 + (0,) * 5)])
def test_svt3_at_ten_queries_equals_the_class_exactly(q, q2):
    mine = exactdp.privacy_loss(L.svt3(epsilon=R(1, 10), threshold=1), q, q2)
    theirs = exactdp.privacy_loss(SparseVector(R(1, 10), 1, 1, variant=3), q, q2)
    assert mine.value == theirs.value and mine.attained and mine.interval is None


#: SVT3's pairs moving both ways at the suite's settings (10 queries, c = 1, epsilon 1/10,
#: T = 1): the answers, the witness (the released position, the value) and the old
#: certified bracket's upper end (the translation bound).
SVT3_TWO_WAYS = {
    "one above rest below": ((1,) * 10, (2,) + (0,) * 9, 9, 0, R(9, 20)),
    "one below rest above": ((1,) * 10, (0,) + (2,) * 9, 9, 1, R(9, 20)),
    "X shape": ((1,) * 5 + (0,) * 5, (0,) * 5 + (1,) * 5, 5, 1, R(3, 10)),
}


@pytest.mark.parametrize("name", list(SVT3_TWO_WAYS))
def test_svt3_at_ten_queries_two_ways_is_exact(name):
    """These three pairs were certified brackets ([0.4, 0.45], [0.400356, 0.45],
    [0.298884, 0.3]): the bisection of the log ratio's critical points stopped at its
    budget (enclosures of ``D = f' g - f g'``, about 1e-13, by sums of terms about 1e-5).
    With Taylor-form enclosures every critical point is isolated and the supremum is the
    exact value at a cell end (2/5 attained on every value <= 0 for the first: the ratio
    is constant there). Checked against the defining integral at 30 digits at the
    witness, a scan of the witness pattern, and the class."""
    q, q2, pos, v, upper = SVT3_TWO_WAYS[name]
    mine = exactdp.privacy_loss(L.svt3(epsilon=R(1, 10), threshold=1), q, q2)
    theirs = exactdp.privacy_loss(SparseVector(R(1, 10), 1, 1, variant=3), q, q2)
    assert mine.interval is None and mine.attained and mine.certified
    assert same(mine.value, theirs.value) and theirs.interval is None
    assert f"REAL{', None' * (9 - pos)}) with the value {v}" in mine.output
    assert 0 < mine.value <= upper  # inside the old bracket
    if name == "one above rest below":
        assert mine.value == R(2, 5)
    with mpmath.workdps(40):  # the density ratio at the witness, by quadrature
        f = quadrature.svt3_density(q, {pos: v}, 1, 20, 20)
        g = quadrature.svt3_density(q2, {pos: v}, 1, 20, 20)
        assert abs(abs(mpmath.log(f / g)) - sympy.N(mine.value, 40)) < mpmath.mpf(10) ** -30
    with mpmath.workdps(20):  # no value of the witness pattern does better
        for k in range(-40, 61, 4):
            f = quadrature.svt3_density(q, {pos: k}, 1, 20, 20)
            g = quadrature.svt3_density(q2, {pos: k}, 1, 20, 20)
            assert abs(mpmath.log(f / g)) <= sympy.N(mine.value, 20) + mpmath.mpf(10) ** -12


#: The former bracket of the X shape at c = 2 (10 queries, epsilon 1/10): its lower end,
#: the exact ratio at the searched output (1, 160) rounded outward from a 192-bit ball, and
#: its upper end, the translation bound 7/40.
X_SHAPE_C2_BRACKET = (sympy.Float("0.1748287884355051858491042201615147919388384965167107616265775",
                                  60), R(7, 40))


def test_svt3_two_values_x_shape_is_exact_inside_its_former_bracket():
    """c = 2, the X shape: two released values, a certified bracket before (the search
    did not reach the translation bound 7/40 of the pattern (False x 8, REAL, REAL)). The
    values are coupled only through their least (:mod:`exactdp.programs.release_min`): the
    supremum over three lines is exact, attained at (1, 1) on the pattern (False x 5,
    REAL, REAL, None x 3), equal to the former bracket's lower end."""
    q, q2 = (1,) * 5 + (0,) * 5, (0,) * 5 + (1,) * 5
    loss = exactdp.privacy_loss(L.svt3(epsilon=R(1, 10), threshold=1, c=2), q, q2)
    assert loss.interval is None and loss.attained
    want = sympy.log(R(647, 3) - 560 * sympy.exp(R(1, 40)) - 35 * sympy.exp(R(-1, 20))
                     + R(7, 3) * sympy.exp(R(-3, 40)) + 112 * sympy.exp(R(1, 20))
                     + 280 * sympy.exp(R(-1, 40)))
    assert exactdp.exact.compare(loss.value, want) == 0
    lo, hi = X_SHAPE_C2_BRACKET
    assert lo <= sympy.N(loss.value, 60) <= hi and sympy.N(loss.value - lo, 60) < 1e-50
    assert "(False, False, False, False, False, REAL, REAL, None, None, None) with the " \
           "values (1, 1)" in loss.output
    with mpmath.workdps(40):  # the density ratio at the witness, by quadrature
        f = quadrature.svt3_density(q, {5: 1, 6: 1}, 1, 20, 40)
        g = quadrature.svt3_density(q2, {5: 1, 6: 1}, 1, 20, 40)
        assert abs(abs(mpmath.log(f / g)) - sympy.N(want, 40)) < mpmath.mpf(10) ** -30


def _svt3_c1_density(q, i, v, t=1):
    """Algorithm 3 at c = 1 releasing ``v`` at query ``i`` after ``i`` answers below, by
    quadrature over the threshold noise ``r``: ``int p(r) prod_{j < i} F(t + r - q_j)
    g(v - q_i) dr`` over ``r <= v - t`` (p and g Laplace of scale 2/eps): an independent
    route (epsilon 1/10)."""
    b = mpmath.mpf(20)

    def lap(x):
        return mpmath.exp(-abs(x) / b) / (2 * b)

    def cdf(x):
        return mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2

    def f(r):
        out = lap(r) * lap(v - q[i])
        for a in q[:i]:
            out *= cdf(t + r - a)
        return out

    cuts = sorted({mpmath.mpf(0), *(mpmath.mpf(a - t) for a in q[:i])})
    top = mpmath.mpf(v) - t
    return mpmath.quad(f, [-mpmath.inf, *[x for x in cuts if x < top], top])


def test_svt3_at_ten_queries_two_ways_is_the_class_s_exact_lower_end():
    # the class's own integrals refused with "at least 2/5 ... at most 9/20"; the engine gave
    # the certified bracket [2/5, 9/20]; the patterns releasing a value are now proved below
    # the all-below pattern's 2/5 (programs.release_below), so the loss is exactly 2/5
    q, q2 = (1,) * 10, (2,) + (0,) * 9
    theirs = exactdp.privacy_loss(SparseVector(R(1, 10), 1, 1, variant=3), q, q2)
    mine = exactdp.privacy_loss(L.svt3(epsilon=R(1, 10), threshold=1), q, q2)
    assert mine.value == theirs.value == R(2, 5) and mine.interval is None and mine.attained
    assert "False, False, False" in mine.output
    # an independent route: the density ratio of the released values never exceeds 2/5
    with mpmath.workdps(20):
        for i in (0, 1, 5, 9):
            for v in (-30, 0, 2, 5, 40):
                ratio = mpmath.log(_svt3_c1_density(q, i, v) / _svt3_c1_density(q2, i, v))
                assert abs(ratio) <= R(2, 5) + mpmath.mpf(10) ** -15  # quadrature error


@pytest.mark.parametrize("name", ["adaptive_svt", "bad_adaptive_svt"])
def test_adaptive_svt_at_two_queries_is_certified_under_the_translation_bound(name):
    # was > 200 s in sympy.simplify of a ratio of degree ~1.6e5 in exp(1/38800)
    m = getattr(L, name)(epsilon=R(1, 10), threshold=1, c=1)
    q, q2 = (1, 1), (2, 0)
    loss = exactdp.privacy_loss(m, q, q2)
    lo, hi = loss.interval
    # its critical points fit the shared bisection budget (bad_adaptive_svt's since the
    # Taylor-form enclosures; it was a certified bracket)
    assert "a critical point" in loss.output and hi - lo <= R(1, 10**12)
    # above: the translation bound (an independent LP over noise shifts)
    assert hi <= m.distribution(q).loss_upper_bound(q2) + R(1, 10**9)  # outward-rounded ball
    # below: the exact density ratio on a grid of single released values (pattern (False, v))
    a, b = m.distribution(q), m.distribution(q2)
    pairs = [(a.density((False, R(k, 2))), b.density((False, R(k, 2)))) for k in range(-8, 9)]
    best = max(abs(sympy.N(sympy.log(f / g), 30)) for f, g in pairs if f != 0 and g != 0)
    assert best <= hi + R(1, 10**20) and 0 < lo <= hi


def test_a_score_of_1e300_is_answered_exactly_or_by_a_bracket_under_the_bound():
    # once a 675-character to_arb error ("not a finite real number") or an undecided sign
    big = 10**300
    q, q2 = (big, 0), (big, 1)
    loss = exactdp.privacy_loss(L.noisy_top_k_gap(epsilon=1), q, q2)
    assert loss.loss == R(1, 4)  # the docstring's closed form: s epsilon / (2k), s = 1, k = 2
    for name in ("adaptive_svt", "svt34_parallel"):
        m = getattr(L, name)(epsilon=1, threshold=0)
        check = exactdp.check_dp(m, q, q2)
        lo, hi = check.interval if check.interval is not None else (check.loss, check.loss)
        # above: the translation bound (an independent LP over noise shifts)
        assert 0 < lo <= hi <= m.distribution(q).loss_upper_bound(q2) + R(1, 10**9)
        assert check.holds and len(repr(check)) <= 200 and "1.0e+300" in repr(check)
    # adaptive_svt: exact (its one-value pattern is proved below the limit at the value
    # 16, once a bracket [0.240938, 3/8]); the exact density ratio of (False, v) near 16
    # stays below it and approaches it
    m = L.adaptive_svt(epsilon=1, threshold=0)
    check = exactdp.check_dp(m, q, q2)
    assert check.interval is None and "as the value -> 16" in check.witness.output
    a, b = m.distribution(q), m.distribution(q2)
    near = [abs(sympy.N(sympy.log(a.density((False, v)) / b.density((False, v))), 30))
            for v in (R(15), R(159, 10), R(1599, 100), R(17))]
    assert max(near) < check.loss < near[2] + R(1, 10**3)


def test_noisy_top_k_gap_loss_is_the_rational_not_an_unsimplified_log():
    # it printed log((4*exp(3/4) + 9*E)/(4*exp(1/4) + 9*exp(1/2))), equal to 1/2
    loss = exactdp.privacy_loss(L.noisy_top_k_gap(epsilon=1), (2, 1, 0), (1, 2, 1))
    assert loss.loss == R(1, 2) and "(exact: 1/2)" in repr(loss)


def test_noisy_max_value_laplace_two_ways_is_exact_as_the_class():
    """``1^5`` against ``2^2 0^3``: the critical-point search of the last cell (2, oo) needs
    about 200 bisections; with the budget split evenly over the four cells (150 each) it
    was cut short and only the bracket [1/2, 2] (the translation bound) came out. The
    budget is now shared: exactly the class's 1/2, attained at every v <= 0."""
    q, q2 = [1] * 5, [2, 2, 0, 0, 0]
    mine = exactdp.privacy_loss(L.noisy_max_value_laplace(epsilon=1), q, q2,
                                allow_non_neighbour=True)
    theirs = exactdp.privacy_loss(ReportNoisyMax(1, noise="laplace", output="value"), q, q2,
                                  allow_non_neighbour=True)
    assert mine.value == theirs.value == R(1, 2) and mine.interval is None and mine.attained
    assert mine.output.endswith(("with the value 0", "(a constant ratio)"))  # class: v <= 0
    # an independent route: the exact log ratio on a dense grid never exceeds 1/2 and
    # reaches it below 0
    a, b = (L.noisy_max_value_laplace(epsilon=1).distribution(x) for x in (q, q2))
    grid = [abs(sympy.N(sympy.log(a.density(R(k, 4)) / b.density(R(k, 4))), 30))
            for k in range(-12, 41)]
    assert max(grid) <= R(1, 2) + R(1, 10**25) and abs(grid[0] - R(1, 2)) < R(1, 10**25)


def test_the_loss_supremum_advances_a_bar_pattern_by_pattern(monkeypatch):
    """Long legitimate work shows progress: the loop over the patterns advances a bar one
    step per pattern, with the cost model's estimate (shown on a terminal above 2 s), and
    the loss is the class's (as in the one-way SVT3 pairs above)."""
    import exactdp.programs.release_loss as M
    from exactdp.progress import NoBar

    seen = []

    class Bar(NoBar):
        def update(self, n: int = 1) -> None:
            seen[-1][3].append(n)

    def fake(total, desc, **kw):
        seen.append([total, desc, kw["seconds"], []])
        return Bar()

    monkeypatch.setattr(M, "progress_bar", fake)
    m = L.svt3(epsilon=1, threshold=1)
    q, q2 = [2, 0, 1], [1, -1, 0]
    mine = exactdp.privacy_loss(m, q, q2)
    theirs = exactdp.privacy_loss(SparseVector(1, 1, 1, variant=3), q, q2)
    assert mine.value == theirs.value and mine.attained
    patterns = len(set(m.distribution(q).outputs) | set(m.distribution(q2).outputs))
    [(total, desc, seconds, steps)] = seen
    assert (total, desc, steps) == (patterns, "svt3.privacy_loss", [1] * patterns)
    assert seconds == m.distribution(q).loss_seconds("svt3.privacy_loss") > 0


def test_a_long_loss_in_a_pipe_prints_one_start_line(monkeypatch, capsys):
    """Off a terminal (pytest's captured standard error) a loss whose patterns left are
    priced above 5 s prints one line with the estimate (release_loss_price.Meter), instead
    of nothing; here each pattern is priced 38 s on a cheap pair of SVT3 (its first
    pattern's step alone passes the line's 5 s: the line comes before it). The price of
    every run (ProgramRelease.loss_seconds) no longer prints it: a pair whose first
    patterns settle the rest said 55 s for 0.86 s CPU (GapSVT c = 2 at 12 answers)."""
    import exactdp.programs.release_loss as M
    from exactdp.programs.release import ProgramRelease

    monkeypatch.setattr(ProgramRelease, "loss_seconds", lambda self, func: 38.0)
    assert exactdp.privacy_loss(L.laplace_mechanism(epsilon=1), [3], [4]).loss == 1
    assert capsys.readouterr().err == ""  # 38 s for every run: no line
    monkeypatch.setattr(M, "pattern_seconds", lambda runs_p, runs_q: 38.0)
    monkeypatch.setattr(M, "cells_seconds", lambda runs: 38.0)
    exactdp.privacy_loss(L.svt3(epsilon=1, threshold=1), [2, 0, 1], [1, -1, 0])
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "svt3.privacy_loss: started, about " in err
    assert int(err.split("about ")[1].split()[0]) >= 38


@program(output="release")
def one_comparison(q, epsilon):
    return q[0] + laplace(1 / epsilon) >= 0


def test_directional_supremum_takes_one_side_of_the_log_ratio():
    # Pr[True] = 1/2 on (0,) and 1 - exp(-epsilon)/2 on (1,): ln f/f' is largest on False,
    # ln((1/2) / (exp(-epsilon)/2)) = epsilon; ln f'/f on True: ln(2 - exp(-epsilon))
    m = one_comparison(epsilon=R(1, 3))
    d, e = m.distribution([0]), m.distribution([1])
    up, down = directional_supremum(d, e, 1), directional_supremum(d, e, -1)
    assert same(up[0].loss, R(1, 3)) and up[0].direction == 1
    assert same(down[0].loss, sympy.log(2 - sympy.exp(-R(1, 3)))) and down[0].direction == -1
    assert directional_supremum(d, e, 0)[0].loss == exactdp.privacy_loss(m, [0], [1]).loss
    # the Laplace mechanism: |v - 1| - |v| reaches both -1 and 1 (times epsilon)
    lm = L.laplace_mechanism(epsilon=R(1, 3))
    d, e = lm.distribution([0]), lm.distribution([1])
    assert [directional_supremum(d, e, s)[0].loss for s in (1, -1)] == [R(1, 3), R(1, 3)]


# noisy top-k with gap, k = 3 on 5 answers: 1^5 vs 2 0 2 0 1 was a certified bracket
# [0.621002, 0.666667] (the rays reach no pattern's translation bound 2/3); the plane's
# polygons (release_chain_plane) make it exact: the ray limit of the pattern (1, 3, 4)
Q5, Q5B = [1, 1, 1, 1, 1], [2, 0, 2, 0, 1]
WANT5 = sympy.log(23 * sympy.exp(sympy.Rational(3, 2))
                  / (30 * sympy.exp(sympy.Rational(5, 6)) - 7 * sympy.exp(sympy.Rational(2, 3))))


def _gap_density(q, w, b, g1, g2):
    """The gaps' density from its definition: ``int p(z - a_w3) p(z + g2 - a_w2) p(z + g2 +
    g1 - a_w1) prod_rest F(z - a_j) dz`` (Laplace of scale ``b``)."""
    def f(z):
        out = (quadrature.laplace_pdf(z - q[w[2]], b) * quadrature.laplace_pdf(z + g2 - q[w[1]], b)
               * quadrature.laplace_pdf(z + g2 + g1 - q[w[0]], b))
        for j, a in enumerate(q):
            if j not in w:
                out *= quadrature.laplace_cdf(z - a, b)
        return out

    kinks = sorted({*q, q[w[1]] - g2, q[w[0]] - g1 - g2})
    return mpmath.quad(f, [-mpmath.inf, *kinks, mpmath.inf])


def test_noisy_top_3_five_answers_exact_against_quadrature():
    m = L.noisy_top_k_gap(epsilon=1, k=3)
    d, e = m.distribution(Q5), m.distribution(Q5B)
    r = loss_supremum(d, e)  # the call itself (privacy_loss's estimate is the cost model's)
    assert r.certified and r.interval is None and not r.attained
    assert sympy.simplify(sympy.exp(r.loss) - sympy.exp(WANT5)) == 0
    assert r.witness == "the pattern (1, 3, 4, REAL, REAL) with the gaps (1 v, 1 v) as v -> +oo"
    want = mpmath.mpf(str(sympy.N(WANT5, 45)))
    b = mpmath.mpf(6)
    with mpmath.workdps(40):
        qa, qb = [mpmath.mpf(a) for a in Q5], [mpmath.mpf(a) for a in Q5B]

        def log_ratio(w, g1, g2):
            return mpmath.log(_gap_density(qa, w, b, g1, g2) / _gap_density(qb, w, b, g1, g2))

        far = log_ratio((1, 3, 4), mpmath.mpf(150), mpmath.mpf(150))
        assert 0 < want - far < mpmath.mpf(10) ** -6  # approached along (v, v), from below
        grid = [mpmath.mpf(x) / 4 for x in (0, 1, 4, 16)]
        worst = max(abs(log_ratio(w, g1, g2)) for w in ((1, 3, 4), (0, 2, 1))
                    for g1 in grid for g2 in grid)
        assert worst < want  # the polygons shown below it (and the top pattern) on a grid


def test_a_bracket_s_text_rounds_its_ends_outward():
    """AdaptiveSVT c = 2 on (0, 0, 0) vs (0, 0, 1): the lower end 0.12593562... printed
    as 0.125936 (rounded up: above the certified end) in the output text; now 0.125935,
    as the repr (result_text.bracket_text)."""
    import exactdp
    from exactdp.programs import library_release as L

    loss = exactdp.privacy_loss(L.adaptive_svt(epsilon=1, threshold=0, c=2), [0, 0, 0],
                                [0, 0, 1])
    lo, hi = loss.interval
    assert 0.1259356 < float(lo) < 0.1259357 and float(hi) == 0.1875
    assert loss.output.startswith("a certified bracket [0.125935, 0.187500] (width")
