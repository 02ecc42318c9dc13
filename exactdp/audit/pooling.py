"""Cells of a goodness-of-fit audit: pooling of small expected counts and the
standardized deviation of each cell."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


def pool_cells(
    expected: Sequence[float] | np.ndarray, min_expected: float = 5.0
) -> tuple[tuple[int, ...], ...]:
    """Group outputs into cells whose expected counts are all >= ``min_expected``.

    Outputs with expected count 0 are left out (they form no cell). Every output with
    ``0 < expected < min_expected`` goes into one pooled cell (placed last); while that
    cell is below ``min_expected`` and other cells remain, the smallest other cell is
    merged into it.

    Parameters
    ----------
    expected : sequence of float, shape (n,)
        Expected counts per output.
    min_expected : float, default 5
        Smallest acceptable expected count per cell (Cochran 1954).

    Returns
    -------
    tuple of tuple of int
        The cells, each a tuple of output indices (increasing); big cells first in
        output order, then the pooled cell (if any).
    """
    e = np.asarray(expected, dtype=np.float64)
    big = [i for i in range(e.size) if e[i] >= min_expected]
    small = [i for i in range(e.size) if 0 < e[i] < min_expected]
    if not small:
        return tuple((i,) for i in big)
    pooled = list(small)
    pooled_total = float(e[small].sum())
    while pooled_total < min_expected and big:
        j = min(big, key=lambda i: (e[i], i))
        big.remove(j)
        pooled.append(j)
        pooled_total += float(e[j])
    return tuple((i,) for i in big) + (tuple(sorted(pooled)),)



@dataclass(frozen=True)
class Cells:
    """The cells a goodness-of-fit test runs on (see :func:`make_cells`).

    Attributes
    ----------
    cells : tuple of tuple of int
        Output indices of each cell.
    method : str
        The test asked for, or ``"binomial"`` when pooling would leave a single cell (the
        rare outputs then form the second cell, tested exactly).
    rare, common : list of int
        Outputs whose expected count is below / at least ``min_expected`` (probability 0
        in neither).
    observed, expected : tuple
        Observed counts (int) and expected counts (float) per cell.
    cell_p : numpy.ndarray of float64
        Probability of each cell.
    pooled : tuple of int
        Outputs in cells of more than one output.
    expected_all : numpy.ndarray of float64
        Expected count of every output.
    """

    cells: tuple[tuple[int, ...], ...]
    method: str
    rare: list[int]
    observed: tuple[int, ...]
    expected: tuple[float, ...]
    cell_p: np.ndarray
    pooled: tuple[int, ...]
    expected_all: np.ndarray


def make_cells(
    p: np.ndarray, counts: np.ndarray, n_samples: int, min_expected: float, test: str
) -> Cells:
    """Pool the outputs into cells (:func:`pool_cells`) and count each cell.

    When pooling leaves a single cell although some outputs are common, the rare outputs
    form a second cell of their own (``method="binomial"``: an exact binomial test).
    """
    n = p.size
    expected_all = n_samples * p
    cells = pool_cells(expected_all, min_expected)
    method = test
    rare = [i for i in range(n) if 0 < expected_all[i] < min_expected]
    common = [i for i in range(n) if expected_all[i] >= min_expected]
    if len(cells) == 1 and rare and common:
        # too few cells for chi-square: test the rare outputs as one binomial cell
        cells = (tuple(common), tuple(rare))
        method = "binomial"
    return Cells(
        cells=cells,
        method=method,
        rare=rare,
        observed=tuple(int(counts[list(c)].sum()) for c in cells),
        expected=tuple(float(expected_all[list(c)].sum()) for c in cells),
        cell_p=np.array([float(p[list(c)].sum()) for c in cells]),
        pooled=tuple(sorted(i for c in cells if len(c) > 1 for i in c)),
        expected_all=expected_all,
    )


def max_deviation(c: Cells, n_samples: int) -> tuple[float, int]:
    """The largest standardized deviation (binomial z-score) over the cells, and its cell.

    ``(O_k - E_k) / sqrt(n p_k (1 - p_k))``; ``(0.0, -1)`` if no cell has ``0 < p_k < 1``.
    Ties (two cells always tie) go to the cell of smallest probability.
    """
    cell_p = c.cell_p
    z = np.zeros(len(c.cells))
    # 1 - p_k as the sum of the other cells (prefix + suffix sums: no cancellation)
    before = np.concatenate(([0.0], np.cumsum(cell_p)[:-1]))
    after = np.concatenate((np.cumsum(cell_p[::-1])[::-1][1:], [0.0]))
    var = n_samples * cell_p * (before + after)
    ok = var > 0
    z[ok] = (np.array(c.observed)[ok] - np.array(c.expected)[ok]) / np.sqrt(var[ok])
    if not ok.any():
        return 0.0, -1
    absz = np.where(ok, np.abs(z), -1.0)
    near = np.flatnonzero(absz >= absz.max() * (1 - 1e-9))
    k = int(near[np.argmin(cell_p[near])])
    return float(z[k]), k
