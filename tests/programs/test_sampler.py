"""The programs' sampler (:mod:`exactdp.programs.sampler`): the program run with random
draws, against closed-form probabilities (Monte Carlo) and seeded reproducibility."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from exactdp.programs import ProgramError, laplace, program
from exactdp.programs.sampler import sample_outputs


@program()
def above(q, epsilon):
    return q[0] + laplace(1) >= 0


@program()
def bad_scale(q, epsilon):
    return q[0] + laplace(-1) >= 0


def keys(prog, q, size, seed):
    call = prog.bind(tuple(q), 1, ())
    return sample_outputs(call, prog.name, prog.filename, size, np.random.default_rng(seed))


def test_sampled_frequency_matches_the_laplace_cdf():
    # P(q + Lap(1) >= 0) = 1 - exp(-q)/2 for q >= 0: at q = 1, 1 - e^{-1}/2 = 0.81606
    size = 20_000
    counts = Counter(keys(above, [1], size, 0))
    p = 1 - math.exp(-1) / 2
    assert len(counts) == 2  # the keys of True and False
    freq = max(counts.values()) / size  # True, the more likely output
    assert abs(freq - p) < 5 * math.sqrt(p * (1 - p) / size)


def test_seeded_streams_repeat_and_scales_are_checked():
    assert keys(above, [0], 50, 7) == keys(above, [0], 50, 7)
    with pytest.raises(ProgramError, match="scale must be > 0 and finite, got -1"):
        keys(bad_scale, [0], 1, 0)
