"""Vectorised samplers shared by the mechanisms: argmax of noisy scores, shuffle and flip.

Every sampler works on the scaled gaps ``d_r = epsilon*(q* - q_r)/(c*Delta)``: the
mechanisms are shift invariant and adding noise of scale b to ``q`` is adding noise of
scale 1 to ``q/b``, so ``argmax(q + b*Z) = argmax(-d + Z)``. Draws are made in chunks of
bounded memory.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

_CHUNK_CELLS = 2_000_000


def _chunks(size: int, n: int):
    step = max(1, _CHUNK_CELLS // max(n, 1))
    start = 0
    while start < size:
        stop = min(size, start + step)
        yield start, stop
        start = stop


class NoiseDraw(Protocol):
    """A numpy ``Generator`` draw: ``noise(size=shape)``, i.i.d. standard noise."""

    def __call__(self, *, size: tuple[int, int]) -> np.ndarray: ...


def noisy_argmax(
    d: np.ndarray, size: int, noise: NoiseDraw
) -> np.ndarray:
    """``argmax_r(-d_r + Z_r)`` for ``size`` independent noise vectors ``Z``.

    Parameters
    ----------
    d : ndarray, shape (n,)
        Scaled gaps (``inf`` allowed: that output never wins).
    size : int
        Number of draws.
    noise : callable
        ``noise(size=shape)`` returns i.i.d. standard noise (scale 1) of that shape.
    """
    n = d.size
    out = np.empty(size, dtype=np.int64)
    neg = -d
    for a, b in _chunks(size, n):
        z = noise(size=(b - a, n))
        out[a:b] = np.argmax(neg + z, axis=1)
    return out


def shuffle_and_flip(p: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """Permute-and-flip run literally: shuffle the range, walk it, flip coin ``p_r``.

    Returns the first output whose coin shows heads (the maximizers have ``p = 1``, so a
    head always occurs). McKenna & Sheldon (2020), Algorithm 1.
    """
    n = p.size
    out = np.empty(size, dtype=np.int64)
    for a, b in _chunks(size, n):
        m = b - a
        order = np.argsort(rng.random((m, n)), axis=1)  # a uniform random permutation per row
        heads = rng.random((m, n)) < p[order]  # coin of the output at each position
        first = np.argmax(heads, axis=1)  # first position with heads
        out[a:b] = order[np.arange(m), first]
    return out
