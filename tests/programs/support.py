"""What the tests of the program language share: the runs of a program, a Linear, the
``file:line`` of a test file's line, and the check of a one-line refusal."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest
import sympy

from exactdp.programs import ProgramError
from exactdp.programs.runs import Linear
from exactdp.scores import as_scores

R = sympy.Rational


def runs_of(prog, q, **params):
    """The runs of ``prog`` at ``params`` on ``q`` (epsilon 1 unless given)."""
    params.setdefault("epsilon", 1)
    return prog(**params).trace(as_scores(q))


def lin(const, *coefs):
    """``Linear(const, ((i, c), ...))`` with sympy rationals."""
    return Linear(R(const), tuple((i, R(c)) for i, c in coefs))


def line_of(path: str, pattern: str) -> str:
    """``file.py:N`` of the first line of ``path`` containing ``pattern``."""
    with open(path) as fh:
        for n, text in enumerate(fh, 1):
            if pattern in text:
                return f"{os.path.basename(path)}:{n}"
    raise AssertionError(pattern)


def refused(prog, pattern: str, q=(0,), **params) -> str:
    """The one-line ProgramError of ``prog`` on ``q``, matching ``pattern``."""
    with pytest.raises(ProgramError) as info:
        runs_of(prog, list(q), **params)
    msg = str(info.value)
    assert "\n" not in msg
    assert re.search(pattern, msg), msg
    return msg


def sampled_like_probabilities(dist, n: int, rng: int, outputs: int) -> None:
    """``n`` runs of ``dist``'s sampler against its exact pattern probabilities (float
    view): ``outputs`` patterns, summing to 1, each frequency within 5 standard errors
    (plus 10 / n for the rare ones)."""
    counts = np.bincount(dist.sample_index(n, rng=rng), minlength=len(dist.outputs)) / n
    probs = dist.to_numpy()
    assert len(dist.outputs) == outputs and abs(probs.sum() - 1) < 1e-12
    assert np.all(np.abs(counts - probs) <= 5 * np.sqrt(probs * (1 - probs) / n) + 10 / n)
