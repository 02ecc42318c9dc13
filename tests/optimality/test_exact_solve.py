"""exactdp.optimality.exact_solve: PF's dual polynomials satisfy strong duality identically."""

from __future__ import annotations

import flint
import pytest

from exactdp.optimality import exact_solve as XS
from exactdp.optimality import lattice as LT


@pytest.mark.parametrize("n, k", [(2, 3), (3, 3), (4, 2), (4, 4), (5, 3)])
def test_pf_dual_polynomials_strong_duality_identity(n, k):
    # sum_g mu_g(y) equals PF's objective polynomial identically (complementary slackness)
    lat = LT.build_lattice(n, k)
    mu, lam = LT.pf_dual_polys(n, k)
    obj = sum((c * p for c, p in zip(lat.cost, LT.lattice_pf_polys(lat), strict=True)),
              flint.fmpq_poly([]))
    assert obj == sum(mu, flint.fmpq_poly([]))
    # and the multipliers satisfy zero reduced cost at a random rational y
    y = flint.fmpq(2, 7)
    lam_all = [lam[r](y) if r in lam else flint.fmpq(0) for r in range(len(lat.rows))]
    red = XS._reduced_costs(lat, y, [m(y) for m in mu], lam_all)
    assert all(r == 0 for r in red)
