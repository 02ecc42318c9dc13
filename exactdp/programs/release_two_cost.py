"""The price of the two-value plane route (:mod:`exactdp.programs.release_two`).

Which runs the route takes and what one run's share of it is estimated to cost, before it
starts: the plane's cells, the edges' one-value problems and the screens (density pairs,
:data:`PLANE_FACTOR` of them a run), the monotone-direction proofs and the critical-point
searches (term enclosures, :data:`ENCLOSURE_SECONDS` each, capped by :data:`PLANE_WORK`).
The loss's estimate (:mod:`exactdp.programs.release_cost`) adds :func:`plane_seconds` per
run; the route itself checks its faces against :func:`face_seconds`. The constants are
measured (CPU seconds on a shared core, docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from .integrate import run_cost
from .runs import Run

#: Most term enclosures of the monotone-direction proofs of one pattern (about
#: :data:`ENCLOSURE_SECONDS` each): past it the pattern is left unsettled (its bracket),
#: never a long silence.
PLANE_WORK = 1_200_000
#: Most term enclosures of one pattern's proofs that a face stays below the loss found
#: before it (:func:`~exactdp.programs.release_sign2d.within`; BadAdaptiveSVT c = 2 on
#: (1, 1) vs (0, 0): its 32 faces below 1/4 in 144,000).
BELOW_WORK = 300_000
#: Seconds of one term enclosure of the proofs (GapSVT c = 2 at 5 answers: 0.61 s CPU for
#: 54,204 on a shared core).
ENCLOSURE_SECONDS = 1.2e-5
#: Seconds of the cells, edges and screens of a run's pattern per second of one density
#: pair of the run (GapSVT c = 2: 70; AdaptiveSVT, four runs a pattern: 170 each).
PLANE_FACTOR = 300.0
#: Most estimated seconds of one run's share of this route (:func:`plane_seconds`): a
#: longer one keeps the search's certified bracket (GapSVT c = 2: 7 noises, 6 answers, at
#: about 3 s a pattern are the route's; 8 noises, about 11 s, are not).
PLANE_RUN_SECONDS = 5.0
#: Enclosures of a run's share of the critical-point searches per (second of its integral
#: price) ** 1.5 (:func:`plane_seconds`; AdaptiveSVT c = 2 at 2 answers: runs of 0-0.0009
#: s of integrals, 940,000 enclosures a pattern; GapSVT runs 0.0001 s: a few thousand).
CRIT_UNITS = 1.6e10


def plane_seconds(run: Run) -> float:
    """Estimated seconds of one run's share of the plane route on its pattern.

    :func:`plane_base_seconds` and the critical-point searches of its faces (bounded ones,
    and far pieces without a monotone direction:
    :func:`~exactdp.programs.release_two.split_face`), their enclosures about
    :data:`CRIT_UNITS` times the run's integral price
    (:func:`~exactdp.programs.integrate.run_cost`, which counts the density's terms) to the
    power 1.5 (each box encloses the terms; more terms, more boxes), at most a quarter of
    :data:`PLANE_WORK` (a pattern's cap, shared by its runs: AdaptiveSVT's four), at
    :data:`ENCLOSURE_SECONDS` (AdaptiveSVT c = 2 at 2 answers: 940,000 enclosures for
    (0, 0) vs (0, 1), 860,000 for its twin on (1, 1) vs (0, 0)), and a sixteenth of
    :data:`BELOW_WORK` (the proofs that faces stay below the loss found: 144,000 for the
    32 faces of BadAdaptiveSVT's four runs, a quarter of the cap a pattern; a quarter a
    run put a false start line of 6 s on AdaptiveSVT c = 2's 0.7 s at 3 answers).

    Parameters
    ----------
    run : Run
        One run of the pattern (one input's).

    Returns
    -------
    float
        Its share, in seconds (both inputs' runs of a pattern are summed by the caller).

    Examples
    --------
    >>> from exactdp.programs import library_release as L
    >>> d = L.gap_svt(epsilon=1, threshold=1, c=2).distribution((0, 0, 0))
    >>> run = next(r for rs in d.runs.values() for r in rs if len(r.released) == 2)
    >>> plane_seconds(run) >= plane_base_seconds(run) > 0
    True
    """
    units = min(PLANE_WORK / 4, CRIT_UNITS * run_cost(run) ** 1.5) + BELOW_WORK / 16
    return plane_base_seconds(run) + units * ENCLOSURE_SECONDS


def plane_base_seconds(run: Run) -> float:
    """Seconds of one run's share of the plane's cells and monotone proofs.

    :data:`PLANE_FACTOR` density pairs (the cells, the edges' one-value problems, the
    screens) and the proofs' enclosures, about ``850 * 4**(noises - 3)`` (GapSVT c = 2:
    848 / 3704 / 54,204 / 161,419-338,160 at 3 / 4 / 6 / 7 noises) up to
    :data:`PLANE_WORK`, at :data:`ENCLOSURE_SECONDS`. A pattern of several runs pays each
    run's share (AdaptiveSVT: four runs a pattern).

    Parameters
    ----------
    run : Run
        One run of the pattern: its noises, comparisons and integral price
        (:func:`~exactdp.programs.integrate.run_cost`) set the estimate.

    Returns
    -------
    float
        The estimated seconds, without the critical-point searches
        (:func:`plane_seconds` adds them).

    Examples
    --------
    >>> from exactdp.programs import library_release as L
    >>> d = L.gap_svt(epsilon=1, threshold=1, c=2).distribution((0, 0, 0))
    >>> run = next(r for rs in d.runs.values() for r in rs if len(r.released) == 2)
    >>> 0 < plane_base_seconds(run) <= PLANE_RUN_SECONDS
    True
    """
    each = 2 * (1e-4 * (len(run.draws) + len(run.constraints)) + run_cost(run))
    units = min(PLANE_WORK, 850 * 4 ** max(len(run.draws) - 3, 0))
    return PLANE_FACTOR * each + units * ENCLOSURE_SECONDS


def plane_run(run: Run) -> bool:
    """Whether a run is the plane route's.

    Two released values, every noise Laplace, its cells' and proofs' share
    (:func:`plane_base_seconds`) estimated within :data:`PLANE_RUN_SECONDS` (the
    critical-point searches are capped by the work limits).

    Parameters
    ----------
    run : Run
        One run of a pattern.

    Returns
    -------
    bool
        True when the route takes it.
    """
    return (len(run.released) == 2 and all(d.law == "laplace" for d in run.draws)
            and plane_base_seconds(run) <= PLANE_RUN_SECONDS)


def plane_shape(runs_p: Sequence[Run], runs_q: Sequence[Run]) -> bool:
    """Whether a pattern is the plane route's: every run of both inputs :func:`plane_run`.

    Parameters
    ----------
    runs_p, runs_q : sequence of Run
        The pattern's runs under the two inputs.

    Returns
    -------
    bool
        True when both are non-empty and every run is the route's.
    """
    return bool(runs_p) and bool(runs_q) and all(map(plane_run, (*runs_p, *runs_q)))


def face_seconds(runs: Sequence[Run]) -> float:
    """The estimated cost of one face of the plane: both densities on it.

    Conditioning and a centre integral, about 0.1 ms per noise and comparison (as
    :mod:`exactdp.programs.release_loss`'s search) plus each run's integral price.

    Parameters
    ----------
    runs : sequence of Run
        The pattern's runs under both inputs.

    Returns
    -------
    float
        Seconds of one face's density pair.
    """
    return sum(1e-4 * (len(r.draws) + len(r.constraints)) + run_cost(r) for r in runs)
