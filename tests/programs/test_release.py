"""Programs that release real values (``@program(output="release")``): patterns, their exact
probabilities, exact densities and conditional CDFs, against the hand-written classes
(exactly), closed forms, quadrature and numerical differentiation at 30 digits, and the
program's own sampler (Monte Carlo)."""

from __future__ import annotations

import warnings
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy

import exactdp
from exactdp.cost import SECONDS_LIMIT, TooCostly
from exactdp.programs import REAL, ProgramError, gumbel, laplace, program
from exactdp.programs import library_release as L
from exactdp.programs import release as rel
from exactdp.programs.release import ProgramRelease, ReleaseProgramMechanism
from exactdp.programs.release_cost import ONE_VALUE_SECONDS, loss_seconds
from exactdp.programs.release_search import search_cost
from exactdp.programs.trace import PROBE_AT

from .support import line_of

R = sympy.Rational
EPS = sympy.Symbol("epsilon", positive=True)
HERE = __file__


def exactly_equal(a, b) -> bool:
    """``a == b`` for sums of rational multiples of exponentials (expanded: exact)."""
    return sympy.expand(sympy.powsimp(sympy.expand(a - b))) == 0


def as_svt(pattern):
    return tuple(True if x is REAL else x for x in pattern)


def at(pattern, value):
    """The output of ``pattern`` with every released value ``value``."""
    if pattern is REAL:
        return value
    return tuple(value if x is REAL else x for x in pattern)


def mpf_fraction(x) -> Fraction:
    man, exp = mpmath.mpf(x).man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


# ------------------------------------------------------------------ (a) the language
@program(output="release")
def product(q, epsilon):
    return (q[0] + laplace(1)) * (q[0] + laplace(1))  # product line


@program(output="release")
def absolute(q, epsilon):
    return abs(q[0] + laplace(1))  # abs line


@program(output="release")
def gumbel_value(q, epsilon):
    return q[0] + gumbel(1)  # gumbel line


@program(output="release")
def twice(q, epsilon):
    v = q[0] + laplace(1 / epsilon)
    return (v, v)


@program(output="release")
def clamp(q, epsilon):
    v = q[0] + laplace(1 / epsilon)
    return v if v >= 0 else 0


def test_release_is_a_declared_output_kind():
    m = L.laplace_mechanism(epsilon=1)
    assert isinstance(m, ReleaseProgramMechanism)
    assert m.output_kind == "release"
    assert m.capabilities == frozenset({"density", "sample"})
    assert L.laplace_mechanism(epsilon=EPS).capabilities_on(
        m.distribution([0]).scores) == frozenset({"density"})
    d = m.distribution([0])
    assert isinstance(d, ProgramRelease)
    assert d.outputs == (REAL,) and d.probabilities == (1,)
    assert repr(REAL) == "REAL"


def test_a_released_value_not_linear_in_the_noises_is_a_one_line_refusal():
    for prog, where, what in ((product, "# product line", "product of noisy values"),
                              (absolute, "# abs line", "abs")):
        with pytest.raises(ProgramError, match=f"{line_of(HERE, where)}.*{what}") as info:
            _ = prog(epsilon=1).distribution([0]).outputs
        assert "\n" not in str(info.value)
    with pytest.raises(ProgramError, match="gumbel noise is outside the exact class"):
        _ = gumbel_value(epsilon=1).distribution([0]).outputs


def test_patterns_mix_released_values_and_discrete_outputs():
    d = clamp(epsilon=1).distribution([1])
    assert d.outputs == (0, REAL)
    # P(v < 0) = exp(-1)/2 for v = 1 + Lap(1)
    assert exactly_equal(d.pmf(0), sympy.exp(-1) / 2)
    assert exactly_equal(d.pmf(REAL), 1 - sympy.exp(-1) / 2)
    # the atom 0 is preferred to a released 0 (which has density 0 here: v >= 0 only)
    assert exactly_equal(d.density(0), sympy.exp(-1) / 2)
    assert exactly_equal(d.density(2), sympy.exp(-1) / 2)
    with pytest.raises(ValueError, match="an output of one of the patterns"):
        d.density((1, 2))


def test_a_float_output_warns_and_is_taken_exactly():
    # 0.5 and 1/2 are the same binary number: the same exact density exp(-1/2)/2 of
    # 1 + Lap(1) at 1/2, with the ExactConversionWarning of every exact entry point
    d = clamp(epsilon=1).distribution([1])
    with pytest.warns(exactdp.ExactConversionWarning, match=r"clamp\.density: 1 float"):
        got = d.density(0.5)
    assert exactly_equal(got, sympy.exp(-R(1, 2)) / 2)
    with pytest.warns(exactdp.ExactConversionWarning, match=r"clamp\.cdf: 1 float"):
        assert exactly_equal(d.cdf(REAL, 0, 0.5), d.cdf(REAL, 0, R(1, 2)))
    with warnings.catch_warnings():  # split is a float view of sampled floats: no warning
        warnings.simplefilter("error", exactdp.ExactConversionWarning)
        idx, values = d.split([0.5, 0, Fraction(3, 2)])
    assert idx.tolist() == [1, 0, 1] and values[:, 0].tolist()[::2] == [0.5, 1.5]


def test_a_value_released_twice_has_no_density():
    d = twice(epsilon=1).distribution([0])
    assert d.outputs == ((REAL, REAL),)
    with pytest.raises(ValueError, match="determined by the values released before it"):
        d.density((1, 1))


# ------------------------------------------------------------------ sampling and the CDF
def test_the_sampler_runs_the_program_monte_carlo():
    d = L.gap_svt(epsilon=1, threshold=1, c=1).distribution([2, 0])
    n = 20_000
    draws = d.sample(n, rng=3)
    idx, values = d.split(draws)
    probs = d.to_numpy()
    counts = np.bincount(idx, minlength=len(probs)) / n
    assert np.all(np.abs(counts - probs) <= 5 * np.sqrt(probs * (1 - probs) / n) + 1e-3)
    rows = values[idx == 2, 0]  # the pattern (REAL, None): the first query's gap
    for g in (R(1), R(4)):
        expected = float(d.cdf((REAL, None), 0, g))
        sd = np.sqrt(expected * (1 - expected) / rows.size)
        assert abs(np.mean(rows <= float(g)) - expected) <= 5 * sd
    assert np.all(rows >= 0)
    one = d.sample(rng=1)
    assert isinstance(one, tuple) and len(one) == 2
    assert d.sample_index(5, rng=2).shape == (5,)


def test_cdf_refusals_and_argument_checks():
    d = L.gap_svt(epsilon=1, threshold=1, c=1).distribution([2, 0])
    with pytest.raises(ValueError, match="pattern"):
        d.cdf((True, None), 0, 1)
    with pytest.raises(ValueError, match="released value of the pattern"):
        d.cdf((REAL, None), 1, 1)
    assert d.cdf((REAL, None), 0, -1) == 0


def test_a_leaf_bounded_by_the_constant_0_and_by_its_centre():
    # regression: the integrator's CDF factor at the end 0 dropped its constant term
    from exactdp.programs.integrate import run_probability
    from exactdp.programs.runs import Constraint, Draw, Linear, Run

    d = (Draw(0, "laplace", sympy.Integer(2), "a"), Draw(1, "laplace", sympy.Integer(2), "b"))
    c1 = Constraint(Linear(R(-1, 2), ((0, R(-1)), (1, R(1)))), ">", "x")  # z1 > z0 + 1/2
    c2 = Constraint(Linear(R(0), ((1, R(1)),)), ">", "y")  # z1 > 0
    with mpmath.workdps(30):
        def integrand(z):
            t = max(z + mpmath.mpf(1) / 2, 0)  # P(z1 > t) times the density of z0 at z
            return mpmath.exp(-abs(z) / 2) / 4 * (mpmath.exp(-t / 2) / 2)
        quad = mpmath.quad(integrand,
                           [-mpmath.inf, -mpmath.mpf(1) / 2, 0, mpmath.inf])
        for algorithm in ("auto", "general"):
            p = run_probability(Run(d, (c1, c2), sympy.Integer(1), 0), algorithm)
            assert abs(sympy.N(p, 40) - quad) < mpmath.mpf(10) ** -28


def test_a_release_program_reads_as_its_call_and_its_distribution_as_its_answer():
    m = L.gap_svt(epsilon=1, threshold=1)
    assert repr(m) == "gap_svt(epsilon=1, threshold=1, c=1)"
    d = m.distribution([2, 0])
    assert len(d.outputs) == 3  # (False, False), (False, REAL), (REAL, None)
    assert repr(d).startswith("ProgramRelease(3 patterns, most likely (REAL, -) at 0.")
    assert repr(d).endswith("; gap_svt(epsilon=1, threshold=1, c=1), n=2)")
    top = max(range(3), key=lambda i: d.evalf(20)[i])
    assert d.outputs[top] == (REAL, None)


def test_loss_at_least_is_the_loss_above_its_floor():
    """``loss_at_least`` against the full supremum (``privacy_loss``): the same exact value,
    witness and attainment at a floor at or below the loss (0, half the loss, the loss
    itself), None at a floor above it."""
    for mech, q, q2 in ((L.gap_svt(epsilon=1, threshold=1), [1, 1, 1], [2, 2, 0]),
                        (L.noisy_top_k_gap(epsilon=1), [1, 1, 1], [0, 0, 2]),
                        (L.svt3(epsilon=1, threshold=1), [0, 0, 0], [1, 1, 1])):
        full = exactdp.privacy_loss(mech, q, q2)
        d = mech.distribution(q)
        for floor in (0, full.loss, full.loss / 2):
            sup = d.loss_at_least(q2, floor)
            assert sup is not None and sup.loss == full.loss
            assert sup.witness == full.output and sup.attained == full.attained
        assert d.loss_at_least(q2, full.loss + sympy.Rational(1, 10**6)) is None
    assert rel.FLOOR.get() is None  # reset after each call


def test_loss_hint_is_the_discrete_patterns_ratio_below_the_loss():
    """``loss_hint``: the largest ``|ln P/P'|`` over the patterns releasing no value, from
    ``pmf`` (an independent route: every pattern's probability), and at most the exact
    loss; None where the only such pattern is reached under one input only."""
    for mech, q, q2 in ((L.gap_svt(epsilon=1, threshold=1), [1, 1], [2, 0]),
                        (L.adaptive_svt(epsilon=sympy.Rational(1, 10), threshold=1),
                         [1, 1, 1], [2, 2, 2])):
        a, b = mech.distribution(q), mech.distribution(q2)
        direct = max(abs(float(sympy.N(sympy.log(a.pmf(p) / b.pmf(p)), 30)))
                     for p in a.outputs if REAL not in p)
        hint = a.loss_hint(q2)
        assert hint == pytest.approx(direct, rel=1e-12)
        assert hint <= float(exactdp.privacy_loss(mech, q, q2).loss) + 1e-12
    # the Laplace mechanism releases its value on every output: no such pattern
    assert L.laplace_mechanism(epsilon=1).distribution([0]).loss_hint([1]) is None


def test_loss_upper_bound_bounds_the_exact_loss_and_meets_it_one_way():
    import exactdp

    m = L.svt3(epsilon=1, threshold=1)
    for q, q2 in (([0, 0, 0], [1, 1, 1]), ([0, 1], [1, 0]), ([2, 0, 1], [1, 1, 0])):
        bound = m.distribution(q).loss_upper_bound(q2)
        loss = exactdp.privacy_loss(m, q, q2)
        top = loss.interval[1] if loss.interval is not None else loss.value
        assert sympy.N(top, 30) <= sympy.N(bound, 30) + sympy.Float(10) ** -25
    # one-way pairs: the class's closed form m eps / (2c), which the bound meets
    assert m.distribution([0, 0, 0]).loss_upper_bound([1, 1, 1]) == sympy.Rational(3, 2)
    # equal inputs: 0 (the zero shift); one count moved: epsilon
    e = L.noisy_max_value_exponential(epsilon=1)
    assert e.distribution([0, 0]).loss_upper_bound([0, 0]) == 0
    h = L.histogram(epsilon=1)
    assert h.distribution([0, 0]).loss_upper_bound([1, 0]) == 1


def test_evalf_gives_the_pattern_probabilities_to_dps_digits():
    # svt3 (c = 1) on (0, 1, 2): patterns (F, F, F), (F, F, REAL), ...; its evalf against
    # sympy's own evaluation of the exact probabilities at 60 digits (another route)
    d = L.svt3(epsilon=sympy.Rational(1, 2), threshold=1).distribution([0, 1, 2])
    for dps in (15, 30, 50):
        values = d.evalf(dps)
        assert len(values) == len(d.outputs)
        with mpmath.workdps(dps + 20):
            for p, v in zip(d.probabilities, values, strict=True):
                ref = mpmath.mpf(str(sympy.N(p, dps + 20)))
                assert abs(v - ref) <= abs(ref) * mpmath.mpf(10) ** (1 - dps)
            assert abs(mpmath.fsum(values) - 1) < mpmath.mpf(10) ** (2 - dps)
    balls = d.evalf_balls(30)
    assert all(b.rel_accuracy_bits() >= 99 for b in balls)
    assert np.allclose([float(v) for v in d.evalf(20)], d.to_numpy(), rtol=1e-15)
    # the Laplace mechanism: one pattern (REAL,) of probability exactly 1
    assert L.laplace_mechanism(epsilon=1).distribution([3]).evalf(40) == (mpmath.mpf(1),)


def test_evalf_refuses_a_symbolic_epsilon_and_a_bad_dps():
    eps = sympy.Symbol("epsilon", positive=True)
    d = L.svt3(epsilon=eps, threshold=1).distribution([0, 1])
    assert any(p.free_symbols for p in d.probabilities)
    with pytest.raises(ValueError, match=r"^svt3\.evalf: epsilon is symbolic"):
        d.evalf(20)
    with pytest.raises(ValueError, match="dps"):
        L.laplace_mechanism(epsilon=1).distribution([3]).evalf(0)


def test_a_loss_estimated_past_the_limit_is_refused_at_the_enumerations_probes():
    """SVT34Parallel at c = 2 on 10 queries: 3,136 runs, 2,520 of them releasing two
    values (a search over both per pattern): the loss supremum's estimate is past the
    120 s limit, refused by the enumeration's probes after 256 runs (nothing cached); at
    3 queries, c = 1, every pattern releases at most one value and the estimate is small."""
    eps = sympy.Rational(1, 10)
    big = L.svt34_parallel(epsilon=eps, threshold=1, c=2)
    cached = rel.release_trace.cache_info().currsize
    with pytest.raises(TooCostly, match="svt34_parallel.privacy_loss: the loss supremum "
                                        "over about .* runs' patterns would need about"):
        exactdp.privacy_loss(big, (1,) * 10, (2,) * 10)
    assert rel.release_trace.cache_info().currsize == cached  # refused mid-enumeration
    small = L.svt34_parallel(epsilon=eps, threshold=1, c=2)
    runs = rel.release_trace(small, (1,) * 4).runs  # 121 runs: below the probes
    assert len(runs) < PROBE_AT
    estimate = sum(loss_seconds(r) for r in runs)
    assert 0 < estimate < SECONDS_LIMIT
    two = next(r for r in runs if len(r.released) == 2)
    one = next(r for r in runs if len(r.released) == 1)
    none = next(r for r in runs if not r.released)
    base = loss_seconds(none)
    assert base > 0 and loss_seconds(one) > ONE_VALUE_SECONDS
    assert loss_seconds(two) > search_cost(2, 36, 2) * 1e-4
    row = L.svt34_parallel(epsilon=eps, threshold=1, c=1)
    assert sum(loss_seconds(r) for r in rel.release_trace(row, (1,) * 3).runs) < 2


def test_histogram_loss_is_priced_as_one_linear_map():
    """A histogram releases k values of k independent noises with no comparison: its loss
    supremum is separable (release_separable.separable_candidates), priced at 1e-8 k**3 s
    (flint), not by the coordinate search: 30 answers answer (0.2 s CPU, the search priced
    them at 195 s); 300 answer too (0.03 s CPU; refused at 135 s by the old 5e-6 k**3),
    with the loss of one answer moved by one: epsilon / sensitivity = 1/2 (Laplace
    mechanism on one coordinate, by hand)."""
    m = L.histogram(epsilon=R(1, 2))
    (run,) = rel.release_trace(m, tuple(sympy.Integer(a) for a in range(30))).runs
    assert loss_seconds(run) < 1
    for n in (30, 300):
        q = list(range(n))
        assert exactdp.privacy_loss(m, q, [q[0] + 1, *q[1:]]).loss == R(1, 2)


#: CPU seconds of one pair's loss supremum ([1]*n against [2]+[1]*(n-1), measured with
#: time.process_time): AdaptiveSVT at 3 / 5 / 8 / 12 answers, SVT3 and NoisyTopKGap at 12.
MEASURED_PAIR_SECONDS = [("adaptive_svt", 3, 0.27), ("adaptive_svt", 5, 0.48),
                         ("adaptive_svt", 8, 1.0), ("adaptive_svt", 12, 2.6),
                         ("svt3", 12, 0.2), ("noisy_top_k_gap", 12, 1.1)]


@pytest.mark.parametrize(("name", "n", "measured"), MEASURED_PAIR_SECONDS)
def test_program_release_loss_seconds_is_calibrated(name, n, measured):
    """ProgramRelease.loss_seconds, the estimate check_dp multiplies by the neighbour
    count, is within 0.3-6x of the measured CPU of one pair (AdaptiveSVT, a released gap,
    grows as about n**1.7: its equal leaves one power, priced by the grouped leaves' terms;
    it was 0.9 / 2.6 / 10 / 42 s before, n**2.8)."""
    kw = {} if name == "noisy_top_k_gap" else {"threshold": 1}
    dist = L.PROGRAMS[name](epsilon=1, **kw).distribution([1] * n)
    assert 0.3 * measured < dist.loss_seconds("check_dp") < 6 * measured


def test_separable_release_loss_seconds_is_small():
    """A histogram of 30 answers: one pair about 0.14 s estimated (5e-6 k**3), so its 60
    neighbours stay under check_dp's 10 s limit."""
    dist = L.histogram(epsilon=1).distribution([1] * 30)
    assert 60 * dist.loss_seconds("check_dp") < 10
