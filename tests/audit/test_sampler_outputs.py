"""exactdp.audit.sampler_outputs: the draws of any sampler, validated into output indices."""

from __future__ import annotations

import numpy as np
import pytest

from exactdp.audit import validate_outputs


def test_validate_outputs_values_and_errors():
    got = validate_outputs([0, 2, 1], 3, 3)
    assert got.dtype == np.int64 and got.tolist() == [0, 2, 1]
    assert validate_outputs(np.array([1.0, 0.0]), 2, 2).tolist() == [1, 0]  # integral floats
    assert validate_outputs(np.int64(2), 1, 3).tolist() == [2]  # one draw may be a scalar
    for bad, match in (
        (([0, 3], 2, 3), "output index 3, outside 0..2"),
        (([0], 2, 3), "a batch of 1 value\\(s\\), expected 2"),
        (("ab", 2, 3), "returned 'ab', not output indices"),
        (([0.5, 1], 2, 3), "returned 0.5, not an integer output index"),
        ((5, 2, 3), "expected a batch of 2 output indices"),
    ):
        with pytest.raises(ValueError, match=f"goodness_of_fit: .*{match}"):
            validate_outputs(*bad)


def _tries():
    """Three tries of AboveThreshold with one threshold draw; None when none passes."""
    from tests.example_programs import tries

    return tries(epsilon=1, k=3).distribution([0])


def test_as_positions_reads_a_sequence_distributions_outputs():
    """A sequence program's outputs (None, 0, 1, 2) as ``d.sample`` returns them (an
    object array; a list with None) map to their positions by ``list.index`` (an
    independent lookup); an int64 batch (``d.sample_index``) and a selection's draws stay
    indices; a value that is no output is refused naming ``sample_index``."""
    from exactdp import ExponentialMechanism
    from exactdp.audit.sampler_outputs import as_positions

    d = _tries()
    draws = d.sample(50, rng=3)
    assert draws.dtype == object
    got = as_positions(draws, d)
    assert got.tolist() == [list(d.outputs).index(v) for v in draws.tolist()]
    assert as_positions([None, 2, 0], d).tolist() == [list(d.outputs).index(v)
                                                     for v in (None, 2, 0)]
    idx = d.sample_index(5, rng=3)
    assert as_positions(idx, d) is idx
    em = ExponentialMechanism(1).distribution([1, 0])
    assert as_positions(np.array([0, 1], dtype=object), em).tolist() == [0, 1]
    with pytest.raises(ValueError, match="sample_index"):
        as_positions(np.array([(True,)], dtype=object), d)
