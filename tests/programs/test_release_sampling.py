"""Random draws of a release program (exactdp/programs/release_sampling.py).

Independent route: the program's own law. The Laplace mechanism's released value is
``q + Lap(1/epsilon)``: its sample mean and mean absolute deviation against the law's
(``q`` and ``1/epsilon``) at 20,000 draws, 6 standard errors.
"""

from __future__ import annotations

import numpy as np

from exactdp.programs import library_release as L
from exactdp.programs.release_sampling import release_draws
from exactdp.scores import as_scores


def test_draws_follow_the_programs_law():
    m = L.laplace_mechanism(epsilon=2)
    draws = release_draws(m, as_scores([3]), 20_000, np.random.default_rng(1))
    keys = {k for k, _, _ in draws}
    assert len(keys) == 1
    v = np.array([vals[0] for _, vals, _ in draws])
    b = 0.5  # the scale 1/epsilon; sd of Lap(b) is b*sqrt(2)
    assert abs(v.mean() - 3) < 6 * b * np.sqrt(2) / np.sqrt(len(v))
    assert abs(np.abs(v - 3).mean() - b) < 6 * b / np.sqrt(len(v))


def test_a_symbolic_epsilon_is_refused_in_one_line():
    """Before: a raw ``TypeError: Cannot convert expression to float``."""
    import pytest
    import sympy
    e = sympy.Symbol("e", positive=True)
    m = L.gap_svt(epsilon=e, threshold=1)
    with pytest.raises(ValueError, match=r"^gap_svt: epsilon is symbolic \(e\); numeric views "
                       r"need a number: use the mechanism at a number \(mechanism.with_epsilon"):
        m.distribution([0, 1]).sample(2, rng=0)
    draws = m.with_epsilon(1).distribution([0, 1]).sample(2000, rng=0)
    # P(REAL, -) = 2/3 e^(-1/4) - 1/6 e^(-1/2) = 0.418112 (the exact pattern probability)
    share = sum(1 for d in draws if d[1] is None) / 2000
    assert abs(share - 0.418112) < 4 * (0.418112 * 0.581888 / 2000) ** 0.5
