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
