"""What a release program's loss supremum costs, pattern by pattern: the estimate that
:meth:`~exactdp.programs.release.ProgramRelease.loss_seconds` sums over the runs and that
the enumeration's probes refuse past the limit (:mod:`exactdp.cost`).
"""

from __future__ import annotations

from collections.abc import Sequence

from .integrate import run_cost
from .release_chain import gap_chain, ray_values
from .release_max import form_seconds, max_form, max_run, pair_seconds
from .release_min import min_coupled
from .release_search import OFFSETS, search_cost
from .release_two_cost import plane_run, plane_seconds
from .runs import Run

#: Estimated seconds of the critical-point search of a pattern releasing one value (SVT3,
#: GapSVT, NumericalSVT at 12 answers: 0.03-0.2 s a pair over 13 patterns).
ONE_VALUE_SECONDS = 0.01
#: Seconds of that search per unit of the run's integral cost times its comparisons (the
#: integrals at each critical point; AdaptiveSVT: 0.9 / 2.6 / 10 / 42 s at 3 / 5 / 8 / 12
#: before its equal leaves were one power).
ONE_VALUE_INTEGRAL_FACTOR = 23.0
#: A one-value pattern's run costs ``GROUPED_TERM_SECONDS * grouped_terms(run) **
#: GROUPED_POWER`` seconds past :data:`ONE_VALUE_SECONDS` (its cells, their densities and
#: the proofs on them; sublinear: the cells and cuts do not grow with the terms): fitted
#: on AdaptiveSVT's pairs, each input computed anew, within 25% at 3 to 10 queries (the
#: all-ones input against "half half": 0.30 / 0.65 / 1.16 s CPU at 5 / 8 / 10 queries; the
#: X shape: 0.22 / 0.5 / 1.65 / 3.37 s at 3 / 5 / 8 / 10).
GROUPED_TERM_SECONDS = 2.6e-3
GROUPED_POWER = 0.7
#: Seconds of one density at released values (:func:`density_seconds`): its overhead, per
#: noise and comparison, and per unit of the run's integral cost.
DENSITY_SECONDS = 8e-5
DENSITY_UNIT_SECONDS = 1e-5
DENSITY_COST_FACTOR = 0.05
#: Seconds of one density of a Laplace gap chain per squared value (its centre integral
#: over the ``n`` values' pieces, each a product of their factors): fitted on noisy top-k
#: with gap (:func:`laplace_chain_densities`), docs/benchmarks.md.
CHAIN_DENSITY_SECONDS = 4.5e-6


def laplace_chain_densities(k: int) -> int:
    """The densities a pattern of a Laplace gap chain of ``k`` values computes at most
    (:mod:`~exactdp.programs.release_chain`): about 12 on each ray of
    :func:`~exactdp.programs.release_chain.ray_values` (its cells' ends, both inputs), then,
    when no ray reaches the translation bound, the coordinate search over the ``k - 1``
    gaps (:func:`~exactdp.programs.release_search.search_cost`, two starts, a grid of
    about 18 points; two densities a point).

    Parameters
    ----------
    k : int
        The number of values in the gap chain (``k - 1`` gaps).

    Returns
    -------
    int
        The most densities the pattern computes.

    Examples
    --------
    >>> from exactdp.programs.release_cost import laplace_chain_densities
    >>> laplace_chain_densities(3), laplace_chain_densities(4)
    (348, 516)
    """
    return 12 * len(ray_values(k)) + 2 * search_cost(k - 1, 18, 2)


def released_gap(run: Run) -> bool:
    """Whether ``run`` releases one gap against a noise that every comparison reads (the
    threshold's: ``a + nu - (T + rho)``): conditioned on the gap, the centre's interval
    does not move with it, and its log density ratio's supremum has been found at cell ends
    and proved by :mod:`~exactdp.programs.release_below` (AdaptiveSVT, GapSVT); a released
    ``a + nu`` (SVT3, the bad AdaptiveSVT) bounds the centre instead, and its critical
    points are searched (the bad AdaptiveSVT at 10 queries: 20 s CPU on "one above rest
    below", where :func:`grouped_terms` would price 1.4 s).

    Examples
    --------
    >>> import sympy
    >>> from exactdp.programs.library_release import adaptive_svt, bad_adaptive_svt
    >>> from exactdp.programs.release_cost import released_gap
    >>> from exactdp.scores import as_scores
    >>> def gaps(prog):
    ...     runs = prog(epsilon=sympy.Rational(1, 10), threshold=1).trace(as_scores([1])).runs
    ...     return sorted(released_gap(r) for r in runs if r.released)
    >>> gaps(adaptive_svt), gaps(bad_adaptive_svt)
    ([True, True], [False, True])
    """
    if len(run.released) != 1 or not run.constraints:
        return False
    noises = {i for i, _ in run.released[0].coefficients}
    shared = set.intersection(*({i for i, _ in c.expr.coefficients} for c in run.constraints))
    return len(noises) == 2 and bool(noises & shared)


def grouped_terms(run: Run) -> int:
    """The terms of a run's leaf product with equal leaves as one power: ``prod (n + 1)``
    over the groups of ``n`` comparisons equal up to their own noise (one noise that no
    other comparison reads, of one law and scale, with one coefficient, the same other
    noises, coefficients, constant and relation), each a two-term factor (a Laplace CDF)
    whose ``n``-th power has ``n + 1`` terms; a comparison reading no noise of its own (a
    centre's bound) counts as a group of its own.

    Examples
    --------
    >>> import sympy
    >>> from exactdp.programs.library_release import adaptive_svt
    >>> from exactdp.programs.release_cost import grouped_terms
    >>> from exactdp.scores import as_scores
    >>> runs = adaptive_svt(epsilon=sympy.Rational(1, 10), threshold=1).trace(
    ...     as_scores([1, 1, 1, 0])).runs
    >>> sorted(grouped_terms(r) for r in runs if r.released)[-1]  # 3 False: 4 * 4; 2 * 2
    64
    """
    readers: dict[int, int] = {}
    for c in run.constraints:
        for i, _ in c.expr.coefficients:
            readers[i] = readers.get(i, 0) + 1
    groups: dict[tuple, int] = {}
    for n, c in enumerate(run.constraints):
        coef = dict(c.expr.coefficients)
        own = [i for i in coef if readers[i] == 1]
        if len(own) != 1:
            groups[("alone", n)] = 1
            continue
        (leaf,) = own
        d = run.draws[leaf]
        key = (c.relation, c.expr.constant, coef[leaf], d.law, d.scale,
               tuple(sorted((i, a) for i, a in coef.items() if i != leaf)))
        groups[key] = groups.get(key, 0) + 1
    out = 1
    for count in groups.values():
        out *= count + 1
    return out

def density_seconds(run: Run) -> float:
    """Estimated seconds of one density of ``run`` at given released values (conditioning
    and a centre integral): :data:`DENSITY_SECONDS` plus :data:`DENSITY_UNIT_SECONDS` per
    noise and comparison plus :data:`DENSITY_COST_FACTOR` times
    :func:`~exactdp.programs.integrate.run_cost` (measured at 63 points a run, 2026-12-04:
    GapSVT c = 2 at 12 answers 0.14 / 0.34 ms at 3 / 13 noises, estimated 0.13 / 0.34;
    AdaptiveSVT c = 2 at 3 and 5 answers 0.06-0.35 ms, estimated 0.14-0.42; refitted from
    0.42 / 0.95 ms measured before the densities were integers end to end, docs/benchmarks.md).

    Parameters
    ----------
    run : Run
        The run whose density is estimated (its draws, constraints and cost).

    Returns
    -------
    float
        The estimated CPU seconds of one density.
    """
    return (DENSITY_SECONDS + DENSITY_UNIT_SECONDS * (len(run.draws) + len(run.constraints))
            + DENSITY_COST_FACTOR * run_cost(run))


def loss_seconds(run: Run, plane: bool = True) -> float:
    """Estimated seconds of the loss supremum's work on the pattern of ``run`` (both inputs;
    ``plane`` False: a pattern the plane route declines, its runs not all the plane's, is
    priced by the search, as :func:`~exactdp.programs.release_loss_price.pattern_seconds`):
    its integral and density (:func:`~exactdp.programs.integrate.run_cost` plus 0.1 ms per
    noise and comparison), plus :data:`ONE_VALUE_SECONDS` for one released value, or, for
    ``k >= 2`` released values, the density pairs of the search over them
    (:func:`~exactdp.programs.release_search.search_cost` with two starts and a grid of the
    offsets around the ``2 k`` noise-free values): what ``release_loss`` itself checks per
    pattern, summed over the patterns (SVT34Parallel at c = 2: 9.2 s estimated for 4.1 s
    CPU at 3 queries, 35 s for 16 s at 4; about 1700 s at 10). One released value costs
    :data:`ONE_VALUE_SECONDS` plus :data:`ONE_VALUE_INTEGRAL_FACTOR` times the run's
    integral cost times its comparisons (SVT3: 0.3 s for 0.03-0.2 s), or for a released gap
    (:func:`released_gap`) the lower price of its grouped leaves, :data:`GROUPED_TERM_SECONDS`
    times :func:`grouped_terms` to the power :data:`GROUPED_POWER` (AdaptiveSVT at 10
    answers: 3.6 s for the X shape's 3.4 s CPU, where the integral route said 106 s once
    equal leaves were one power). Released values of a run
    without comparisons, as many as its noises (a histogram, running sums), have a
    separable supremum (one ``k x k`` linear map solved by flint, ``1e-8 k**3`` s, no
    search: a dense 300 x 300 map 0.13 s; ``2e-5 k`` for one noise a value, no matrix: the
    histogram of 3000 answers 0.37 s CPU, refused at 270 s by ``k**3``, at 300 answers
    0.03 s, refused at 135 s by ``5e-6 k**3`` before); so do released values of
    fresh noises that no comparison reads (the numerical SVT: 0.07-0.1 s CPU a pair at 10
    answers, c = 2, priced at 24 s by the one-value search before). A run of a released
    maximum (:func:`~exactdp.programs.release_max.max_run`)
    needs no integral: :func:`~exactdp.programs.release_max.max_loss` prices the pair
    itself, with both inputs' offsets, and refuses naming its own estimate. The gaps of a
    chain with exponential noise (noisy top-k with gap,
    :mod:`~exactdp.programs.release_chain`) are one path per input, no search: one critical
    search per gap and ``2**losers`` terms per density. Released values coupled only
    through their least (SVT3 at ``c >= 2``, :mod:`~exactdp.programs.release_min`) are
    ``2**k - 1`` one-value problems on lines, each priced as one released value (SVT3 at
    c = 2, 10 queries, the X shape: 2.9 s CPU, 22 s by the search's price). Two values of
    Laplace noises that :func:`~exactdp.programs.release_two_cost.plane_run` takes are
    priced by :func:`~exactdp.programs.release_two_cost.plane_seconds` (the plane's faces, edges and
    monotone proofs; GapSVT c = 2 at 5 answers: 3.6 s CPU a pair, 10 s estimated), the
    others by the search."""
    if max_run(run) is not None:  # a released maximum: no integral; release_max.max_loss
        return 1e-4 * (len(run.draws) + len(run.constraints))  # prices both inputs itself
    base = run_cost(run) + 1e-4 * (len(run.draws) + len(run.constraints))
    k = len(run.released)
    if k == 0:
        return base
    chain = gap_chain(run)  # gaps of a chain with exponential noise: a path, no search
    if chain is not None and chain.law == "exponential":
        return base + ONE_VALUE_SECONDS * k + 1e-6 * k**2 * 2 ** len(chain.losers)
    if chain is not None and k >= 2:  # Laplace: rays, then the search, a density each
        n = len(chain.chain) + 1 + len(chain.losers)  # an integral over the n values
        return base + CHAIN_DENSITY_SECONDS * n * n * laplace_chain_densities(k + 1)
    noises = {i for lin in run.released for i, _ in lin.coefficients}
    used = {i for c in run.constraints for i, _ in c.expr.coefficients}
    if len(noises) == k and not noises & used:  # a linear map of free noises (no
        # comparison reads them): separable, no search; one noise a value: no matrix
        diagonal = all(len(lin.coefficients) == 1 for lin in run.released)
        return base + 1e-3 + (2e-5 * k if diagonal else 1e-8 * k**3)
    if k == 1:  # the integral route's price, or for a released gap the grouped leaves'
        old = ONE_VALUE_INTEGRAL_FACTOR * run_cost(run) * (len(run.constraints) + 1)
        if released_gap(run):
            old = min(old, GROUPED_TERM_SECONDS * grouped_terms(run) ** GROUPED_POWER)
        return base + ONE_VALUE_SECONDS + old
    if min_coupled(run) is not None:  # coupled through their least: 2**k - 1 lines, each
        # a one-value problem
        one = ONE_VALUE_INTEGRAL_FACTOR * run_cost(run) * (len(run.constraints) + 1)
        return base + (2**k - 1) * (ONE_VALUE_SECONDS + one)  # (release_min), no search
    if plane and plane_run(run):  # two values of Laplace noises: the plane's faces (release_two)
        return base + plane_seconds(run)
    return base + 2 * density_seconds(run) * search_cost(k, (len(OFFSETS) + 1) * 2 * k, 2)


def max_patterns_seconds(runs: Sequence[Run]) -> float:
    """The expected seconds of the released maxima among ``runs`` (a pattern whose runs are
    the winners of one argmax, each releasing its value: :func:`~exactdp.programs.
    release_max.max_form`), :func:`~exactdp.programs.release_max.form_seconds` each: what
    :func:`loss_seconds` leaves out of a released maximum's runs (``max_loss`` prices and
    refuses the pair itself), added to the loss's estimate once the runs exist, so that
    its bar and ``check_dp``'s product over the neighbours see it."""
    patterns: dict = {}
    for run in runs:
        patterns.setdefault(run.output, []).append(run)
    forms = [max_form(group) for group in patterns.values()]
    return sum(form_seconds(f) for f in forms if f is not None)


def max_pairs_seconds(runs: Sequence[Run], other: Sequence[Run]) -> float:
    """The estimated seconds of the released maxima of a pair (``runs`` and ``other``, the
    two inputs' runs), :func:`~exactdp.programs.release_max.pair_seconds` each: the price
    with which the loss refuses before its bar, and :func:`~exactdp.programs.release_max.
    max_loss` after it (the same number: one call states one estimate).

    Parameters
    ----------
    runs : sequence of Run
        The first input's runs.
    other : sequence of Run
        The second input's runs.

    Returns
    -------
    float
        The estimated CPU seconds, summed over the outputs where both inputs' runs have
        a :class:`~exactdp.programs.release_max.MaxForm`.
    """
    mine: dict = {}
    theirs: dict = {}
    for group, rs in ((mine, runs), (theirs, other)):
        for run in rs:
            group.setdefault(run.output, []).append(run)
    total = 0.0
    for key, group in mine.items():
        form, form2 = max_form(group), max_form(theirs.get(key, []))
        if form is not None and form2 is not None:
            total += pair_seconds(form, form2)
    return total
