"""Tests of exactdp.numeric.laplace.pieces: the sparse ring against flint's dense one."""

from __future__ import annotations

import random
from fractions import Fraction

from exactdp.numeric.laplace.pieces import FlintOps, SparseOps, expand, group_gaps


def test_sparse_expansion_equals_dense_flint():
    """The sparse ring gives the flint polynomials term for term (random small gaps, ties)."""
    rng = random.Random(20)
    for _ in range(25):
        G = [0] + [rng.randint(0, 6) for _ in range(rng.randint(0, 6))]
        u, cnt, idx = group_gaps(G)
        dense = expand(u, cnt, idx, FlintOps())
        sparse = expand(u, cnt, idx, SparseOps())
        for pair_d, pair_s in zip(dense, sparse, strict=True):
            for poly, terms in zip(pair_d, pair_s, strict=True):
                want = {e: Fraction(int(c.p), int(c.q))
                        for e, c in enumerate(poly.coeffs()) if c != 0}
                assert terms == want, G
