"""exactdp.optimality.float_solve: the a-posteriori residual check of a HiGHS solution."""

from __future__ import annotations

import numpy as np
import pytest

from exactdp.optimality import float_solve as FS
from exactdp.optimality import lattice as LT

# --------------------------------------------------------------------------- a-posteriori check


def test_max_violation_measures_residuals():
    lat = LT.build_lattice(3, 4)
    sol = FS.solve_float("t", lat, 0.5, 0.5)
    v = np.asarray(sol.res.x)
    assert FS._max_violation(sol.a_eq, sol.a_ub, v) == sol.max_violation <= 1e-12
    # shrinking one vector's probabilities by 1e-6 breaks its equality row by ~1e-6
    bad = v.copy()
    bad[np.asarray(lat.var_vec) == 3] *= 1 - 1e-6
    assert FS._max_violation(sol.a_eq, sol.a_ub, bad) == pytest.approx(1e-6, rel=1e-3)
    # a negative entry is reported as such
    bad = v.copy()
    bad[5] = -1e-5
    assert FS._max_violation(sol.a_eq, sol.a_ub, bad) >= 1e-5
