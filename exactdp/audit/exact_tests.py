"""Exact tests of a goodness-of-fit audit: binomial tests of the rare outputs, and the
largest statistic (hence the smallest p-value) any sample of a given size can produce."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class RareTests:
    """Outcome of :func:`rare_p_value`."""

    p_value: float  # Bonferroni-adjusted
    min_p_value: float  # smallest adjusted p-value any sample of this size could give
    k_total: int
    p_total: float
    n_tests: int
    worst: int  # the rare output of smallest upper-tail p-value (-1 if none tested)


def rare_p_value(
    counts: np.ndarray,
    p: np.ndarray,
    rare: list[int],
    n_samples: int,
    total: bool = True,
    each: bool = True,
) -> RareTests:
    """Exact tests of the outputs too rare for the chi-square approximation.

    Up to ``1 + len(rare)`` tests: the total count of the rare outputs (two-sided binomial;
    ``total``), and each rare output's count (upper tail ``Pr[X_r >= k_r]``,
    ``X_r ~ Bin(n, p_r)``; ``each``: a rare output can only be caught appearing too
    often). The p-value is the Bonferroni-adjusted minimum ``min(1, m * min_j p_j)`` over
    the ``m`` tests run. Its smallest attainable value is computed too: each test's p-value
    is smallest when every draw is one output (the two-sided test at ``k = 0`` or
    ``k = n``, the upper tail ``p_r**n`` at ``k_r = n``), so the minimum over the tests is
    attained by some sample.
    """
    import scipy.stats
    p_total = float(p[rare].sum())
    k_total = int(counts[rare].sum())
    pvals: list[float] = []
    floors: list[float] = []
    worst = -1
    if total:
        pvals.append(float(scipy.stats.binomtest(k_total, n_samples, p_total).pvalue))
        floors.append(
            min(
                float(scipy.stats.binomtest(0, n_samples, p_total).pvalue),
                float(scipy.stats.binomtest(n_samples, n_samples, p_total).pvalue),
            )
        )
    if each:
        tails = scipy.stats.binom.sf(counts[rare] - 1, n_samples, p[rare])
        pvals.extend(tails.tolist())
        floors.extend(scipy.stats.binom.sf(n_samples - 1, n_samples, p[rare]).tolist())
        worst = int(rare[int(np.argmin(tails))])
    m = len(pvals)
    return RareTests(
        p_value=min(1.0, m * min(pvals)),
        min_p_value=min(1.0, m * min(floors)),
        k_total=k_total,
        p_total=p_total,
        n_tests=m,
        worst=worst,
    )


def max_statistic(cell_p: np.ndarray, n_samples: int, test: str) -> float:
    """Largest value the statistic can take: every draw in the cell of least probability.

    Both statistics are convex functions of the observed counts, so their maximum over
    the simplex ``sum O_k = n`` is at a vertex: Pearson ``n (1/p_k - 1)``, G
    ``2 n ln(1/p_k)``, largest for the smallest ``p_k``.
    """
    pk = float(cell_p.min())
    if test == "chi2":
        return n_samples * (1.0 / pk - 1.0)
    return 2.0 * n_samples * -math.log(pk)
