"""exactdp.optimality.lattice: the lattice LP's size, against enumeration."""

from __future__ import annotations

import exactdp
from tests.reference import LP_VARIABLES_K4


def test_lattice_size_against_enumeration():
    from itertools import combinations_with_replacement

    for n, k in ((2, 4), (3, 4), (4, 3)):
        sizes = exactdp.lattice_size(n, k)
        canon = [g for g in combinations_with_replacement(range(k + 1), n - 1)]
        assert sizes["vectors"] == len(canon)
    for n, want in LP_VARIABLES_K4.items():  # ties merged, k = 4 (docs/formulas.md section 4)
        assert exactdp.lattice_size(n, 4)["variables"] == want
