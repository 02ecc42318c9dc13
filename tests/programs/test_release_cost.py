"""The release loss's estimate per pattern: each branch of :func:`loss_seconds` against its
formula (the calibration against measured CPU is in tests/programs/test_release.py)."""

from __future__ import annotations

import math
import time

import pytest
import sympy

import exactdp
from exactdp.cost import TooCostly
from exactdp.programs import laplace, program
from exactdp.programs import library_release as L
from exactdp.programs.integrate import run_cost
from exactdp.programs.release import release_trace
from exactdp.programs.release_cost import (
    ONE_VALUE_INTEGRAL_FACTOR,
    ONE_VALUE_SECONDS,
    density_seconds,
    loss_seconds,
    max_patterns_seconds,
)
from exactdp.programs.release_max import max_run
from exactdp.programs.release_search import OFFSETS, search_cost

R = sympy.Rational


def _base(run):
    return run_cost(run) + 1e-4 * (len(run.draws) + len(run.constraints))


def test_a_histogram_is_one_linear_map_priced_k_cubed():
    """flint solves a dense 300 x 300 map in 0.13 s: ``1e-8 k**3``; a histogram (one noise
    a value: no matrix) is priced ``2e-5 k``: 300 answers take 0.03 s CPU, where ``5e-6
    k**3`` refused them at 135 s; 3000 answers 0.32 s, refused at 270 s by ``k**3``."""
    (run,) = release_trace(L.histogram(epsilon=R(1, 2)), (1, 2, 3, 4)).runs
    assert loss_seconds(run) == _base(run) + 1e-3 + 2e-5 * 4
    (big,) = release_trace(L.histogram(epsilon=1), (0,) * 300).runs
    assert loss_seconds(big) < 2  # no start line, no refusal
    (full,) = release_trace(full_map(epsilon=1), (0, 0)).runs
    assert loss_seconds(full) == _base(full) + 1e-3 + 1e-8 * 2**3


@program(output="release")
def full_map(q, epsilon):
    """``x + y`` and ``x - y`` of two Laplace noises: a dense 2 x 2 map."""
    x, y = laplace(1 / epsilon), laplace(1 / epsilon)
    return (q[0] + x + y, q[1] + x - y)


def test_fresh_released_noises_no_comparison_reads_are_priced_as_one_linear_map():
    """The numerical SVT releases a_i + eta_i with a fresh eta_i: separable (release_loss),
    no critical-point search; it was priced by the one-value search, 24 s for a pair of
    10 answers at c = 2 that takes 0.06-0.1 s CPU (every start line a false alarm)."""
    import time

    import exactdp

    m = L.numerical_svt(epsilon=1, threshold=1, c=2)
    runs = release_trace(m, (1,) * 10).runs
    released = [r for r in runs if r.released]
    assert released and all(
        loss_seconds(r) == _base(r) + 1e-3 + 2e-5 * len(r.released) for r in released)
    assert m.distribution([1] * 10).loss_seconds("privacy_loss") < 1
    start = time.process_time()
    loss = exactdp.privacy_loss(m, [1] * 10, [2] * 9 + [0])
    assert time.process_time() - start < 10  # CPU seconds (0.1 s measured)
    assert abs(float(loss.loss) - 0.761114) < 1e-6  # the value before (docs/benchmarks.md)


def test_one_released_value_pays_its_integrals_per_comparison():
    runs = release_trace(L.svt3(epsilon=R(1, 10), threshold=1), (1, 1, 1)).runs
    # (the first query's release reads as the maximum of two noisy values: release_max's)
    one = next(r for r in runs if len(r.released) == 1 and max_run(r) is None)
    assert loss_seconds(one) == (_base(one) + ONE_VALUE_SECONDS + ONE_VALUE_INTEGRAL_FACTOR
                                 * run_cost(one) * (len(one.constraints) + 1))
    none = next(r for r in runs if not r.released)
    assert loss_seconds(none) == _base(none)


def test_a_released_maximum_is_priced_by_its_own_route():
    (run,) = release_trace(L.noisy_max_value_laplace(epsilon=1), (1, 2, 3)).runs[:1]
    assert loss_seconds(run) == 1e-4 * (len(run.draws) + len(run.constraints))


def test_released_maxima_are_priced_by_their_expected_loss():
    """A released maximum's loss (release_max.max_loss, no integral) is priced per pattern
    once the runs exist (max_patterns_seconds): the loss's estimate against the CPU seconds
    measured (2026-12-04, docs/benchmarks.md): check_dp of noisy_max_value_laplace on
    0..n-1, 152 / 172 heuristic neighbours at n = 10 / 12: 4.12 / 7.10 s; privacy_loss of
    0..39 against a neighbour 5.41 s; within 2x. At n = 40 check_dp's product over its at
    least 80 neighbours passes the cost model's limit (SECONDS_LIMIT, as every analysis)
    and refuses at once."""
    import time

    import pytest

    import exactdp
    from exactdp.programs.release_max import form_seconds, max_form

    m = L.noisy_max_value_laplace(epsilon=1)
    for n, count, measured in ((10, 152, 4.12), (12, 172, 7.10), (40, 1, 5.41)):
        q = list(range(n))
        runs = release_trace(m, tuple(sympy.Integer(a) for a in q)).runs
        assert max_patterns_seconds(runs) == form_seconds(max_form(runs))
        est = count * m.distribution(q).loss_seconds("check_dp")
        assert measured / 2 < est < 2 * measured, (n, est)
    start = time.process_time()
    with pytest.raises(ValueError, match=r"^check_dp: the exact density suprema of at least "
                       r"80 neighbours would need about \d+ s \(limit 120 s\); pass the one"):
        exactdp.check_dp(m, list(range(40)), epsilon=40)
    assert time.process_time() - start < 2


def test_values_coupled_through_their_least_pay_one_value_per_line():
    """SVT3 at c = 2: each two-value pattern is 3 lines, each a one-value problem
    (release_min), not the search's grid; GapSVT's gaps carry the threshold noise and
    keep the search's price."""
    runs = release_trace(L.svt3(epsilon=R(1, 10), threshold=1, c=2), (1, 1, 1)).runs
    two = [r for r in runs if len(r.released) == 2]
    assert two
    for run in two:
        one = ONE_VALUE_INTEGRAL_FACTOR * run_cost(run) * (len(run.constraints) + 1)
        assert loss_seconds(run) == _base(run) + 3 * (ONE_VALUE_SECONDS + one)
    gaps = release_trace(L.gap_svt(epsilon=R(1, 10), threshold=1, c=2), (1, 1, 1)).runs
    gap = next(r for r in gaps if len(r.released) == 2)
    assert loss_seconds(gap) > _base(gap) + 3 * (
        ONE_VALUE_SECONDS + ONE_VALUE_INTEGRAL_FACTOR * run_cost(gap) * (len(gap.constraints) + 1))


def test_a_released_gap_is_priced_by_its_grouped_leaves_where_lower():
    """AdaptiveSVT releases a gap against the threshold (``released_gap``): its equal
    ``False`` answers are one power, ``prod (n + 1)`` terms (``grouped_terms``: 9 answers
    to 1 as two groups of 9, then the released branch's own comparisons: the costly
    branch's failed cheap one joins the first group, 11 * 10 * 2); SVT3's released
    ``a + nu`` keeps the integral route's price."""
    from exactdp.programs.release_cost import (
        GROUPED_POWER,
        GROUPED_TERM_SECONDS,
        grouped_terms,
        released_gap,
    )

    runs = release_trace(L.adaptive_svt(epsilon=R(1, 10), threshold=1), (1,) * 10).runs
    last = [r for r in runs if r.released and len(r.constraints) >= 19]
    assert sorted(grouped_terms(r) for r in last) == [10 * 10 * 2, 11 * 10 * 2]
    for r in last:
        assert released_gap(r)
        old = ONE_VALUE_INTEGRAL_FACTOR * run_cost(r) * (len(r.constraints) + 1)
        grouped = GROUPED_TERM_SECONDS * grouped_terms(r) ** GROUPED_POWER
        assert grouped < old
        assert loss_seconds(r) == _base(r) + ONE_VALUE_SECONDS + grouped
    svt3 = release_trace(L.svt3(epsilon=R(1, 10), threshold=1), (1, 1, 1)).runs
    assert not any(released_gap(r) for r in svt3 if len(r.released) == 1)


def test_two_gaps_of_laplace_noise_are_priced_by_the_plane():
    """GapSVT c = 2: a two-gap run the plane takes costs its base plus
    release_two_cost.plane_seconds (not the search's grid); one it declines (8 noises) keeps
    the search's price (two densities a point, density_seconds each). The estimate of a
    pair at 4 answers bounds its CPU time, up to a
    factor 3 (measured: 0.6 s CPU, 3.6 s estimated)."""
    from exactdp.programs import release_two_cost as T

    g = L.gap_svt(epsilon=1, threshold=1, c=2)
    runs = [r for r in release_trace(g, (1,) * 8).runs if len(r.released) == 2]
    taken = [r for r in runs if T.plane_run(r)]
    declined = [r for r in runs if not T.plane_run(r)]
    assert taken and declined
    for r in taken:
        assert loss_seconds(r) == _base(r) + T.plane_seconds(r)
        assert loss_seconds(r, plane=False) == _base(r) + 2 * density_seconds(r) * search_cost(
            2, (len(OFFSETS) + 1) * 4, 2)  # its pattern declined by the plane: the search
    for r in declined:
        assert loss_seconds(r) == _base(r) + 2 * density_seconds(r) * search_cost(
            2, (len(OFFSETS) + 1) * 4, 2)
    a, b = (1, 1, 0, 0), (0, 0, 1, 1)
    est = g.distribution(a).loss_seconds("t")
    start = time.process_time()
    loss = exactdp.privacy_loss(g, a, b)
    cpu = time.process_time() - start
    assert loss.interval is None and cpu < 3 * est


def test_the_gaps_of_a_laplace_chain_are_priced_by_their_densities():
    """Noisy top-k with gap, Laplace noise, k = 3 / 4: a pattern's run costs its base plus
    CHAIN_DENSITY_SECONDS n^2 per density of its rays and search
    (laplace_chain_densities: 5 rays and a 2-gap search at k = 3, 7 rays and a 3-gap one
    at k = 4), not the general search's grid at the integral's price (181 s estimated
    for 2.9-4.4 s CPU at k = 3 on 5 answers, refused; now 2.6 s; docs/benchmarks.md).
    The estimate grows like the runs times n^2: 30 answers are refused at once."""
    from exactdp.programs.release_chain import ray_values
    from exactdp.programs.release_cost import CHAIN_DENSITY_SECONDS, laplace_chain_densities

    assert laplace_chain_densities(3) == 12 * 5 + 2 * search_cost(2, 18, 2)
    assert len(ray_values(4)) == 7 and laplace_chain_densities(4) == 84 + 2 * search_cost(
        3, 18, 2)
    for k, n in ((3, 5), (4, 5), (3, 8)):
        runs = release_trace(L.noisy_top_k_gap(epsilon=1, k=k), tuple(range(n))).runs
        assert len(runs) == math.perm(n, k)
        for r in runs:
            assert loss_seconds(r) == _base(r) + CHAIN_DENSITY_SECONDS * n * n * (
                laplace_chain_densities(k))
    five = L.noisy_top_k_gap(epsilon=1, k=3).distribution(list(range(5)))
    eight = L.noisy_top_k_gap(epsilon=1, k=3).distribution(list(range(8)))
    assert 1 < five.loss_seconds("t") < 10  # 3-4 s CPU measured
    ratio = eight.loss_seconds("t") / five.loss_seconds("t")
    assert 336 / 60 * 64 / 25 * 0.9 < ratio < 336 / 60 * 64 / 25 * 1.25  # 37 s CPU at 8
    start = time.process_time()
    with pytest.raises(TooCostly, match=r"^noisy_top_k_gap.privacy_loss: the loss supremum"):
        exactdp.privacy_loss(L.noisy_top_k_gap(epsilon=1, k=3), list(range(30)),
                             [1, 0, *range(2, 30)])
    assert time.process_time() - start < 2


def test_a_density_of_the_search_is_priced_by_its_noises_and_comparisons():
    """density_seconds: 8e-5 s plus 1e-5 s per noise and comparison plus 0.05 of the run's
    integral cost (fitted on GapSVT c = 2 at 12 answers, 0.14 / 0.34 ms a density at 3 /
    13 noises, and AdaptiveSVT c = 2, 0.06-0.35 ms); a search point is two of them, below
    the integral's price it used to pay for the runs of GapSVT's longer two-gap patterns."""
    from exactdp.programs.release_cost import (
        DENSITY_COST_FACTOR,
        DENSITY_SECONDS,
        DENSITY_UNIT_SECONDS,
    )

    g = L.gap_svt(epsilon=1, threshold=1, c=2)
    runs = [r for r in release_trace(g, (1,) * 6 + (0,) * 6).runs if len(r.released) == 2]
    for r in runs:
        units = len(r.draws) + len(r.constraints)
        assert density_seconds(r) == (DENSITY_SECONDS + DENSITY_UNIT_SECONDS * units
                                      + DENSITY_COST_FACTOR * run_cost(r))
    short, long = min(runs, key=lambda r: len(r.draws)), max(runs, key=lambda r: len(r.draws))
    assert 0.12e-3 < density_seconds(short) < 0.15e-3  # 0.14 ms measured
    assert 0.3e-3 < density_seconds(long) < 0.4e-3  # 0.34 ms measured
