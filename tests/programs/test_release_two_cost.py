"""The price of the plane route (exactdp.programs.release_two_cost): which runs it takes
(two released values of Laplace noise, the base estimate within PLANE_RUN_SECONDS) and the
documented sums of its estimates, recomputed here from their parts."""

from __future__ import annotations

from fractions import Fraction

from exactdp.programs import library_release as L
from exactdp.programs import release_two_cost as T
from exactdp.programs.integrate import run_cost
from exactdp.programs.release import release_trace
from exactdp.programs.release_two_cost import (
    face_seconds,
    plane_base_seconds,
    plane_seconds,
    plane_shape,
)


def test_plane_shape_needs_two_values_of_laplace_noise():
    g = L.gap_svt(epsilon=1, threshold=1, c=2)
    d = g.distribution((1, 1, 0))
    two = [k for k, o in zip(d.keys, d.outputs, strict=True)
           if sum(1 for x in o if x not in (False, None)) == 2]
    one = [k for k, o in zip(d.keys, d.outputs, strict=True)
           if sum(1 for x in o if x not in (False, None)) == 1]
    assert plane_shape(d.runs[two[0]], d.runs[two[0]])
    assert not plane_shape(d.runs[one[0]], d.runs[one[0]])


def test_the_plane_route_takes_the_runs_its_price_allows():
    """GapSVT c = 2: runs of up to 7 noises (6 answers) are priced within
    PLANE_RUN_SECONDS and taken; 8 noises and more keep the search's certified bracket.
    The price is the documented sum: PLANE_FACTOR density pairs plus the proofs'
    enclosures (850 * 4**(noises - 3), at most PLANE_WORK)."""
    g = L.gap_svt(epsilon=1, threshold=1, c=2)
    runs = [r for r in release_trace(g, (1,) * 8).runs if len(r.released) == 2]
    small = [r for r in runs if len(r.draws) <= 7]
    large = [r for r in runs if len(r.draws) >= 8]
    assert small and large
    assert all(T.plane_run(r) and T.plane_shape([r], [r]) for r in small)
    assert not any(T.plane_run(r) or T.plane_shape([r], [r]) for r in large)
    for r in runs:
        each = 2 * (Fraction(1, 10**4) * (len(r.draws) + len(r.constraints))) + 2 * run_cost(r)
        units = min(T.PLANE_WORK, 850 * 4 ** (len(r.draws) - 3))
        want = T.PLANE_FACTOR * float(each) + units * T.ENCLOSURE_SECONDS
        assert abs(T.plane_base_seconds(r) - want) < 1e-9 * want
        crit = min(T.PLANE_WORK / 4, T.CRIT_UNITS * run_cost(r) ** 1.5) * T.ENCLOSURE_SECONDS
        crit += T.BELOW_WORK / 16 * T.ENCLOSURE_SECONDS  # the proofs below the loss found
        assert abs(T.plane_seconds(r) - want - crit) < 1e-9 * want
        assert T.plane_run(r) == (T.plane_base_seconds(r) <= T.PLANE_RUN_SECONDS)



def test_plane_price_counts_critical_searches_by_the_terms():
    """GapSVT's runs (few terms) add little for the critical-point searches; AdaptiveSVT's
    (0.0006-0.0009 s of integrals a run) most of their price; the base is unchanged. Each
    run pays a sixteenth of BELOW_WORK besides (its typical share: 144,000 for 32 faces of
    four runs, a quarter of the cap, on the bad AdaptiveSVT)."""
    gap = L.gap_svt(epsilon=1, threshold=1, c=2).distribution((0,) * 5)
    runs = [r for rs in gap.runs.values() for r in rs if plane_shape(rs, rs)]
    below = T.BELOW_WORK / 16 * T.ENCLOSURE_SECONDS
    assert runs and all(plane_seconds(r) >= plane_base_seconds(r) + below for r in runs)
    assert sum(plane_seconds(r) - below for r in runs) < 1.15 * sum(
        map(plane_base_seconds, runs))
    ad = L.adaptive_svt(epsilon=1, threshold=0, c=2).distribution((0, 0))
    key = next(k for k, o in zip(ad.keys, ad.outputs, strict=True) if str(o) == "(REAL, REAL)")
    assert all(plane_seconds(r) >= plane_base_seconds(r) for r in ad.runs[key])


def test_face_seconds_is_both_densities_on_a_face():
    """One face costs each run's conditioning (0.1 ms per noise and comparison) and its
    integral price, summed over both inputs' runs."""
    d = L.gap_svt(epsilon=1, threshold=1, c=2).distribution((0, 0, 0))
    runs = [r for rs in d.runs.values() for r in rs if len(r.released) == 2]
    want = sum(Fraction(1, 10**4) * (len(r.draws) + len(r.constraints)) for r in runs)
    got = face_seconds(runs) - sum(run_cost(r) for r in runs)
    assert runs and abs(got - float(want)) < 1e-12
    assert face_seconds([]) == 0
