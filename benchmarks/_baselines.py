"""Baselines the benchmarks compare exactdp with (written here from docs/formulas.md).

- :func:`softmax`: the exponential mechanism's float64 probabilities by numpy, the floor
  for any float view;
- :func:`alternating_sum`: McKenna & Sheldon's O(n^2) permute-and-flip formula
  ``P_r = p_r sum_k (-1)^k e_k(p_{-r}) / (k + 1)`` in float64 (docs/formulas.md section 2);
- :func:`pf_flint_loop`: the same formula exactly, as python-flint polynomials in
  ``x`` (coins ``x^G``), one per distinct gap: the direct flint loop.
"""

from __future__ import annotations

import flint
import numpy as np

__all__ = ["alternating_sum", "pf_flint_loop", "softmax"]


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


def pf_flint_loop(G: list[int]) -> dict:
    """Exact PF polynomials ``{gap: P_g(x)}`` for integer gaps ``G`` (coins ``x^G``) by the
    alternating sum over the elementary symmetric polynomials, in ``fmpq_poly``.

    ``e_k`` of every coin by ``e_k += x^G e_{k-1}``; for each distinct gap ``g`` the
    leave-one-out ``e_k(p without r) = e_k - x^g e_{k-1}(p without r)``; then
    ``P_g = x^g sum_k (-1)^k e_k(p without r) / (k + 1)``.
    """
    n = len(G)
    x = flint.fmpq_poly([0, 1])
    e = [flint.fmpq_poly([1])] + [flint.fmpq_poly([0])] * n
    for g in G:
        coin = x**g
        for k in range(n, 0, -1):
            e[k] = e[k] + coin * e[k - 1]
    out = {}
    for g in set(G):
        coin = x**g
        er = flint.fmpq_poly([1])
        acc = flint.fmpq_poly([1])
        for k in range(1, n):
            er = e[k] - coin * er
            acc += er * flint.fmpq((-1) ** k, k + 1)
        out[g] = coin * acc
    return out
