"""The goodness-of-fit audit of a sampler: :func:`goodness_of_fit` (see :mod:`exactdp.audit`
for the sampler protocol, the pooling and the verdicts)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..distribution import output_kind_of
from .exact_tests import max_statistic, rare_p_value
from .inputs import (
    TESTS,
    check_alpha,
    check_min_expected,
    check_n_samples,
    check_test,
    probability_vector,
)
from .pooling import Cells, make_cells, max_deviation
from .release_fit import release_fit
from .result import GoodnessOfFit, ReleaseFit
from .sampler_outputs import as_positions, draw, validate_outputs


def goodness_of_fit(
    sample: Callable,
    distribution: object,
    n_samples: int,
    rng=None,
    alpha: float = 0.01,
    test: str = "chi2",
    min_expected: float = 5.0,
) -> GoodnessOfFit | ReleaseFit:
    """Test whether a sampler's draws follow an exact output distribution.

    Parameters
    ----------
    sample : callable
        The sampler under audit; see the module docstring for how it is called (batch
        through ``size=`` / ``n=``, else one output per call; ``rng=`` if it takes one).
    distribution : DiscreteDistribution or array-like of float, shape (n,)
        The distribution the draws should follow: an exactdp
        :class:`~exactdp.distribution.DiscreteDistribution` (every discrete output kind;
        the draws are positions in its ``outputs``) or a probability vector
        (non-negative, summing to 1 within 1e-9).
    n_samples : int
        Number of draws, >= 1.
    rng : None, int, numpy.random.Generator or numpy.random.SeedSequence
        Validated by :func:`as_generator` (a non-negative int seed; bools rejected) and
        passed as a Generator to samplers that take an ``rng`` parameter.
    alpha : float, default 0.01
        Significance level of the verdict, in (0, 1).
    test : {"chi2", "gtest"}
        Pearson's chi-square test or the G-test (likelihood ratio).
    min_expected : float, default 5
        Cells with a smaller expected count are pooled (see :func:`pool_cells`).

        A release distribution (output kind ``"release"``: ``SparseVectorRelease``,
        ``ValueDistribution``) audits a release sampler (its own ``sample``): the pattern
        counts by the test above, each released value by a Kolmogorov-Smirnov test against
        its exact conditional CDF given the pattern (``cdf(pattern, i, v)``), combined by
        Holm-Bonferroni (:mod:`exactdp.audit.release_fit`); the result is a
        :class:`~exactdp.audit.result.ReleaseFit`.

    Returns
    -------
    GoodnessOfFit
        p-value, statistic, degrees of freedom, observed and expected counts per cell, the
        pooling map, the largest standardized deviation, the verdict
        (``"consistent"``, ``"rejected"`` or ``"inconclusive"``: see the module
        docstring), the smallest attainable p-value, impossible outputs.

    Raises
    ------
    ValueError
        ``n_samples`` not a positive integer; ``alpha`` outside (0, 1); unknown ``test``;
        an invalid distribution; ``sample`` not callable; a draw that is not an integer
        index in ``0..n-1`` (NaN, 1.5, a string, out of range: the value is named); a
        batch of the wrong length; an invalid ``rng`` (see :func:`as_generator`).

    Notes
    -----
    The chi-square approximation of both statistics needs the expected counts not to be
    small, hence the pooling. The p-value is computed by
    :func:`scipy.stats.power_divergence` with ``dof = cells - 1`` (no parameter is
    estimated from the data). A distribution given in float64 has relative error about
    1e-12 at worst, which shifts the statistic by far less than its sampling noise at any
    practical ``n_samples``.

    References
    ----------
    Pearson (1900); Cochran (1954); Cressie & Read (1984), J. R. Stat. Soc. B 46, 440-464
    (the power-divergence family, of which chi-square and G are members).

    Examples
    --------
    >>> import exactdp
    >>> from exactdp.audit import goodness_of_fit
    >>> d = exactdp.PermuteAndFlip(2).distribution([3, 1, 0, 0, -2])
    >>> goodness_of_fit(d.sample, d, 20000, rng=1).verdict
    'consistent'
    """
    n_samples = check_n_samples(n_samples)
    alpha = check_alpha(alpha)
    test = check_test(test)
    min_expected = check_min_expected(min_expected)
    if output_kind_of(distribution) == "release":
        released: Any = distribution  # a ReleasedValues (its declared kind says so)
        probs = probability_vector(released.to_numpy())
        return release_fit(
            draw(sample, n_samples, rng), released, n_samples, alpha,
            lambda idx: _fit(idx, probs, n_samples, alpha, test, min_expected))
    p = probability_vector(distribution)
    raw = as_positions(draw(sample, n_samples, rng), distribution)
    outputs = validate_outputs(raw, n_samples, p.size)
    return _fit(outputs, p, n_samples, alpha, test, min_expected)


def _fit(outputs: np.ndarray, p: np.ndarray, n_samples: int, alpha: float, test: str,
         min_expected: float) -> GoodnessOfFit:
    """The test of the validated draws ``outputs`` (indices) against ``p``."""
    counts = np.bincount(outputs, minlength=p.size)

    impossible = tuple(int(i) for i in np.flatnonzero((p == 0) & (counts > 0)))
    c = make_cells(p, counts, n_samples, min_expected, test)
    notes = _pooling_notes(c, p, impossible, min_expected)
    max_dev, max_cell = max_deviation(c, n_samples)
    out = _run_test(c, p, counts, impossible, n_samples, test, min_expected)
    verdict, verdict_note = _verdict(out, alpha, n_samples)
    notes += [text for text in (out.note, verdict_note) if text]

    return GoodnessOfFit(
        test=test,
        algorithm=out.method,
        n_samples=n_samples,
        alpha=alpha,
        p_value=out.p_value,
        statistic=out.statistic,
        dof=out.dof,
        verdict=verdict,
        min_p_value=out.min_p,
        p_value_cells=out.p_cells,
        p_value_rare=out.p_rare,
        observed=c.observed,
        expected=c.expected,
        cells=c.cells,
        pooled=c.pooled,
        counts=tuple(int(k) for k in counts),
        probabilities=tuple(float(v) for v in p),
        max_deviation=max_dev,
        max_deviation_cell=max_cell,
        impossible=impossible,
        note="; ".join(notes),
    )


@dataclass(frozen=True)
class _Outcome:
    """What one branch of the test found (the fields of :class:`GoodnessOfFit` it sets)."""

    method: str
    statistic: float
    p_value: float
    dof: int
    note: str | None = None
    p_cells: float | None = None
    p_rare: float | None = None
    min_p: float | None = None
    powerless: bool = False


def _pooling_notes(c: Cells, p: np.ndarray, impossible: tuple, min_expected: float) -> list[str]:
    """The remarks on pooled outputs and on outputs of probability 0."""
    notes = []
    rare = c.rare
    if rare and c.method != "binomial" and len(c.cells) > 1:
        absorbed = sorted(set(c.pooled) - set(rare))
        text = f"outputs {rare} (expected count < {min_expected:g} each) pooled into one cell"
        if absorbed:
            text += f", together with outputs {absorbed} to reach {min_expected:g}"
        notes.append(text)
    zero_p = np.flatnonzero(p == 0)
    if zero_p.size and not impossible:
        notes.append(f"{zero_p.size} output(s) of probability 0 form no cell")
    return notes


def _run_test(
    c: Cells,
    p: np.ndarray,
    counts: np.ndarray,
    impossible: tuple,
    n_samples: int,
    test: str,
    min_expected: float,
) -> _Outcome:
    """The test that fits the cells: impossible outputs, exact binomial, a single possible
    output, every output rare, or the chi-square / G-test on the cells."""
    if impossible:
        return _Outcome(
            c.method, math.inf, 0.0, max(len(c.cells) - 1, 0),
            note=f"outputs {list(impossible)} have probability 0 but were observed "
            f"({[int(counts[i]) for i in impossible]} times): the sample is impossible under "
            "the distribution, rejected with p_value 0",
        )
    if c.method == "binomial":
        return _binomial_test(c, p, counts, n_samples, test)
    if int(np.count_nonzero(p > 0)) == 1:
        # every draw is the one possible output: the sample *is* the distribution
        return _Outcome(
            c.method, 0.0, 1.0, 0,
            note="a single possible output, and every draw was that output: the sample "
            "matches the distribution exactly (only impossible outputs can be detected; none "
            "was)",
        )
    if len(c.cells) < 2:
        return _each_rare_test(c, p, counts, n_samples, test, min_expected)
    return _cell_test(c, p, counts, n_samples, test)


def _binomial_test(
    c: Cells, p: np.ndarray, counts: np.ndarray, n_samples: int, test: str
) -> _Outcome:
    """Pooling would leave one cell: the rare outputs as one cell, exact binomial test."""
    rare = c.rare
    rt = rare_p_value(counts, p, rare, n_samples, total=True, each=len(rare) > 1)
    text = (
        f"too few draws for a {test} test (one cell would hold every output); exact "
        f"two-sided binomial test of the rare outputs {rare} (total probability "
        f"{c.cell_p[1]:.3g}, observed {c.observed[1]} times)"
    )
    if rt.n_tests > 1:
        text += f" and upper-tail test of each, Bonferroni over {rt.n_tests} tests,"
    return _Outcome(
        c.method, float(c.observed[1]), rt.p_value, 1, note=text + " instead",
        p_rare=rt.p_value, min_p=rt.min_p_value,
    )


def _each_rare_test(
    c: Cells, p: np.ndarray, counts: np.ndarray, n_samples: int, test: str,
    min_expected: float,
) -> _Outcome:
    """Every output is rare: no chi-square cell test exists (dof = 0); the upper-tail
    binomial test of each output only (it has no power to confirm: inconclusive)."""
    rt = rare_p_value(counts, p, c.rare, n_samples, total=False, each=True)
    w = rt.worst
    return _Outcome(
        "binomial-each", float(counts[w]), rt.p_value, 0,
        note=f"no {test} test is possible: every output has expected count below "
        f"min_expected = {min_expected:g}, so pooling leaves one cell (dof = 0); only "
        f"the exact upper-tail binomial test of each output's count was run (Bonferroni "
        f"over {rt.n_tests} tests; output {w} observed {counts[w]} times, "
        f"expected {c.expected_all[w]:.3g}): it can catch an output returned too "
        "often but cannot confirm the distribution; increase n_samples",
        p_rare=rt.p_value, min_p=rt.min_p_value, powerless=True,
    )


def _cell_test(c: Cells, p: np.ndarray, counts: np.ndarray, n_samples: int, test: str) -> _Outcome:
    """Chi-square / G-test on the cells, combined (Bonferroni) with the exact tests of the
    rare outputs when some were pooled."""
    import scipy.stats
    res = scipy.stats.power_divergence(
        np.array(c.observed, dtype=np.float64),
        np.array(c.expected, dtype=np.float64),
        lambda_=TESTS[test],
    )
    statistic, p_cells, dof = float(res.statistic), float(res.pvalue), len(c.cells) - 1
    min_p = float(scipy.stats.chi2.sf(max_statistic(c.cell_p, n_samples, test), dof))
    if not c.rare:
        return _Outcome(test, statistic, p_cells, dof, p_cells=p_cells, min_p=min_p)
    # pooling hides which outputs filled the pooled cell: test the rare outputs
    # exactly and combine with the cell test (Bonferroni)
    rt = rare_p_value(counts, p, c.rare, n_samples)
    p_rare = rt.p_value
    return _Outcome(
        f"{test}+binomial", statistic, min(1.0, 2.0 * min(p_cells, p_rare)), dof,
        note=f"p_value = min(1, 2*min(p_{test} = {p_cells:.3g}, p_rare = {p_rare:.3g})); "
        f"p_rare: exact binomial tests of the rare outputs {c.rare} (total probability "
        f"{rt.p_total:.3g}, observed {rt.k_total} times; and each one alone), "
        "Bonferroni-combined",
        p_cells=p_cells, p_rare=p_rare, min_p=min(1.0, 2.0 * min(min_p, rt.min_p_value)),
    )


def _verdict(out: _Outcome, alpha: float, n_samples: int) -> tuple[str, str | None]:
    """``"rejected"``, ``"inconclusive"`` (with a note when the test lacked power) or
    ``"consistent"``."""
    if out.p_value < alpha:
        return "rejected", None
    if out.powerless:
        return "inconclusive", None
    if out.min_p is not None and out.min_p >= alpha:
        return "inconclusive", (
            f"the test cannot reject at alpha = {alpha:g} with n_samples = {n_samples}: "
            f"the smallest attainable p-value is {out.min_p:.3g}; inconclusive, not "
            "consistent: increase n_samples"
        )
    return "consistent", None
