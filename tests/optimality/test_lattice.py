"""exactdp.optimality.lattice: the lattice LP's size against enumeration; PF's point on the
lattice against docs/formulas.md and the exact solve."""

from __future__ import annotations

import math

import flint
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import exactdp
from exactdp.optimality import exact_solve as XS
from exactdp.optimality import lattice as LT
from tests.reference import LP_VARIABLES_K4


def test_lattice_size_against_enumeration():
    from itertools import combinations_with_replacement

    for n, k in ((2, 4), (3, 4), (4, 3)):
        sizes = exactdp.lattice_size(n, k)
        canon = [g for g in combinations_with_replacement(range(k + 1), n - 1)]
        assert sizes["vectors"] == len(canon)
    for n, want in LP_VARIABLES_K4.items():  # ties merged, k = 4 (docs/formulas.md section 4)
        assert exactdp.lattice_size(n, 4)["variables"] == want


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 5), k=st.integers(1, 5))
def test_lattice_size_formula_matches_enumeration(n, k):
    size = LT.lattice_size(n, k)
    lat = LT.build_lattice(n, k)
    assert size["vectors"] == len(lat.vectors)
    assert size["variables"] == len(lat.var_vec)
    assert size["ub_rows"] == len(lat.rows)
    # every grid vector of {0..k}^n is counted exactly once by the weights
    assert sum(lat.weight) == (k + 1) ** n
    # each canonical vector's probabilities can sum to one: multiplicities sum to n
    for i, g in enumerate(lat.vectors):
        assert sum(m for j, m in enumerate(lat.var_mult) if lat.var_vec[j] == i) == n == len(g)


# --------------------------------------------------------------------------- PF and EM values


def test_pf_polynomials_match_math_md_example():
    # docs/formulas.md section 2: q = (0, -1, -2) has PF probabilities 1 - x/2 - x^2/2 + x^3/3,
    # x/2 - x^3/6, x^2/2 - x^3/6; the lattice vector with gaps (0, 1, 2) has coins y^g.
    lat = LT.build_lattice(3, 2)
    polys = LT.lattice_pf_polys(lat)
    q = flint.fmpq
    want = {
        0: flint.fmpq_poly([1, q(-1, 2), q(-1, 2), q(1, 3)]),
        1: flint.fmpq_poly([0, q(1, 2), 0, q(-1, 6)]),
        2: flint.fmpq_poly([0, 0, q(1, 2), q(-1, 6)]),
    }
    for v, poly in want.items():
        assert polys[lat.var_index[((0, 1, 2), v)]] == poly


@pytest.mark.parametrize("n, k", [(3, 3), (5, 4)])
def test_pf_float_matches_exact_and_sums_to_one(n, k):
    lat = LT.build_lattice(n, k)
    y = 0.37
    fl = LT.lattice_pf_float(lat, -math.log(y))
    ex = [float(p(XS._to_q(y))) for p in LT.lattice_pf_polys(lat)]
    np.testing.assert_allclose(fl, ex, rtol=1e-13)
    for i in range(len(lat.vectors)):
        tot = sum(fl[j] * lat.var_mult[j] for j in range(len(fl)) if lat.var_vec[j] == i)
        assert tot == pytest.approx(1, abs=1e-14)
