"""Baselines the benchmarks compare exactdp with (written here from docs/formulas.md).

- :func:`softmax`: the exponential mechanism's float64 probabilities by numpy, the floor
  for any float view;
- :func:`alternating_sum`: McKenna & Sheldon's O(n^2) permute-and-flip formula
  ``P_r = p_r sum_k (-1)^k e_k(p_{-r}) / (k + 1)`` in float64 (docs/formulas.md section 2).
"""

from __future__ import annotations

import numpy as np

__all__ = ["alternating_sum", "softmax"]


def softmax(q, rate: float = 1.0) -> np.ndarray:
    """``exp(rate * q_r) / sum_s exp(rate * q_s)`` in float64, including ``numpy.asarray``."""
    z = np.asarray(q, dtype=np.float64) * rate
    w = np.exp(z - z.max())
    return w / w.sum()


def alternating_sum(d: np.ndarray) -> np.ndarray:
    """Permute-and-flip by the O(n^2) alternating sum over the coins ``p = exp(-d)``.

    ``e_k`` are the elementary symmetric polynomials of every coin;
    ``e_k(p without r) = e_k - p_r e_{k-1}(p without r)``, vectorised over r.
    """
    p = np.exp(-d)
    n = p.size
    e = np.zeros(n + 1)
    e[0] = 1.0
    for ps in p:
        e[1:] = e[1:] + ps * e[:-1]
    er = np.ones(n)
    acc = np.ones(n)
    for k in range(1, n):
        er = e[k] - p * er
        acc += (-1.0) ** k / (k + 1) * er
    return p * acc
