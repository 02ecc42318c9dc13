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
