"""exactdp/rng.py: one validator of random sources."""

from __future__ import annotations

import numpy as np
import pytest

from exactdp.rng import as_generator


def test_seeds_and_generators():
    g = np.random.default_rng(5)
    assert as_generator(g) is g  # the stream continues
    a, b = as_generator(7).random(3), np.random.default_rng(7).random(3)
    assert (a == b).all()  # an int seed is numpy's default_rng of it
    seq = np.random.SeedSequence(11)
    assert (as_generator(seq).random(2) == np.random.default_rng(np.random.SeedSequence(11))
            .random(2)).all()
    assert isinstance(as_generator(None), np.random.Generator)
    assert (as_generator(np.int64(3)).random(2) == np.random.default_rng(3).random(2)).all()


@pytest.mark.parametrize("bad", [-1, True, 1.5, "1", np.random.RandomState(0)])
def test_anything_else_is_refused_in_one_line(bad):
    with pytest.raises(ValueError, match=r"^sample: rng must be None, a non-negative int seed"):
        as_generator(bad, "sample")
