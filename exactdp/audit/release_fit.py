"""The audit of a release sampler (output kind ``"release"``): a chi-square test of the
answer patterns and a Kolmogorov-Smirnov test of each released value against its exact
conditional CDF given the pattern, combined by Holm-Bonferroni into one verdict.

Which values a pattern releases is read from the pattern (:func:`released_values`): the
shipped classes mark a released position ``True`` in a flat tuple; a program's pattern
marks each released value with the placeholder ``REAL`` (:data:`exactdp.programs.runs.REAL`),
nested tuples included, and its values are numbered in reading order.

References
----------
A. N. Kolmogorov (1933), N. Smirnov (1948): the one-sample test
(:func:`scipy.stats.kstest`); S. Holm, "A simple sequentially rejective multiple test
procedure", Scand. J. Statist. 6 (1979), 65-70.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..mechanisms.release_views import ReleasedValues
from ..programs.release_patterns import real_count
from .result import GoodnessOfFit, ReleaseFit, ValueTest

#: Most draws of one pattern whose released value enters one Kolmogorov-Smirnov test (the
#: first ones: the draws are independent, so any fixed subset is a valid sample).
MAX_KS_POINTS = 1000


def released_values(pattern: object) -> tuple[int, ...]:
    """The released values of ``pattern``, each as the column of ``split``'s values and the
    index ``cdf_float`` takes: a program's ``REAL`` placeholders numbered in reading order,
    else the positions marked ``True`` of a flat pattern (the shipped classes).

    Examples
    --------
    >>> from exactdp.programs.runs import REAL
    >>> released_values((False, True, None)), released_values((False, (REAL, 1), REAL))
    ((1,), (0, 1))
    """
    k = real_count(pattern)
    if k:
        return tuple(range(k))
    if isinstance(pattern, (tuple, list)):
        return tuple(j for j, p in enumerate(pattern) if p is True)
    return ()


def holm(p_values: list[float]) -> list[float]:
    """Holm's adjusted p-values, in the given order (Holm 1979)."""
    order = sorted(range(len(p_values)), key=lambda j: p_values[j])
    out = [1.0] * len(p_values)
    running = 0.0
    for rank, j in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[j]))
        out[j] = running
    return out


def release_fit(draws: object, dist: ReleasedValues, n_samples: int, alpha: float,
                pattern_fit: Callable[[np.ndarray], GoodnessOfFit]) -> ReleaseFit:
    """The audit of the draws of a release sampler against ``dist``.

    ``pattern_fit(positions)`` is the chi-square (or G) test of the pattern positions
    (:func:`exactdp.audit.goodness_of_fit` on the pattern probabilities).

    Raises
    ------
    ValueError
        Draws that the distribution cannot read (:meth:`split`), of the wrong number, or
        a released position without a value.
    """
    import scipy.stats

    idx, values = dist.split(draws)
    if len(idx) != n_samples:
        raise ValueError(f"goodness_of_fit: the sampler returned {len(idx)} draws, "
                         f"expected {n_samples}")
    patterns = pattern_fit(idx)
    tests = []
    capped = False
    for k, pattern in enumerate(dist.outputs):
        rows = np.flatnonzero(idx == k)
        capped = capped or rows.size > MAX_KS_POINTS
        for i in released_values(pattern):
            if rows.size == 0:
                continue
            x = values[rows[:MAX_KS_POINTS], i]
            if np.isnan(x).any():
                raise ValueError(f"goodness_of_fit: a draw of pattern {pattern} has no value "
                                 f"at position {i}")
            res = scipy.stats.kstest(x, lambda v, p=pattern, j=i: dist.cdf_float(p, j, v))
            tests.append(ValueTest(pattern, i, int(x.size), float(res.statistic),
                                   float(res.pvalue)))
    adjusted = holm([patterns.p_value] + [t.p_value for t in tests])
    p = min(adjusted)
    verdict = "rejected" if p < alpha else ("consistent" if tests else patterns.verdict)
    note = (f"each value tested on the first {MAX_KS_POINTS} draws of its pattern"
            if capped else "")
    return ReleaseFit(n_samples, alpha, p, verdict, patterns, tuple(tests), tuple(adjusted),
                      note)
