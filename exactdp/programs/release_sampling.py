"""Random draws of a release program: the program itself run with random noises.

The literal algorithm, run by :class:`~exactdp.programs.sampler.SampleRun` (floats: a
sampled output is a float view, never part of an exact value), each output read as its
pattern key and released values (:func:`~exactdp.programs.release_patterns.sampled_key`).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from ..numbers import require_numeric_epsilon
from ..progress import repeat
from ..scores import ScoreVector
from .mechanism import ProgramMechanism
from .release_patterns import sampled_key
from .sampler import SampleRun
from .steps import StepCounter
from .trace import execute


def release_draws(mechanism: ProgramMechanism, scores: ScoreVector, size: int,
                  gen: np.random.Generator) -> list[tuple[Hashable, list, Any]]:
    """``size`` runs of ``mechanism``'s program on ``scores`` with random draws from
    ``gen``: per run its pattern key, its released values (floats) and the output.

    Examples
    --------
    >>> import numpy as np
    >>> from exactdp.programs import library_release as L
    >>> from exactdp.scores import as_scores
    >>> m = L.laplace_mechanism(epsilon=1)
    >>> [len(vals) for _, vals, _ in release_draws(m, as_scores([3]), 2,
    ...                                            np.random.default_rng(0))]
    [1, 1]
    """
    require_numeric_epsilon(mechanism.name, mechanism.epsilon,
                            "the mechanism at a number (mechanism.with_epsilon(1))")
    prog = mechanism.program
    q = tuple(int(v) if v.is_Integer else float(v) for v in scores.exact)
    args = tuple((k, v if isinstance(v, int) else float(v)) for k, v in mechanism.arguments)
    sens = mechanism.sensitivity
    call = prog.bind(q, float(mechanism.epsilon), args,
                     int(sens) if sens.is_Integer else float(sens))
    counter = StepCounter(prog.filename, 200_000, prog.name)
    ex = SampleRun(gen)

    def one() -> tuple[Hashable, list, Any]:
        value = execute(ex, call, counter, prog.name, lambda v: v)
        vals: list[float] = []
        return (sampled_key(value, prog.name, vals), vals, value)

    return repeat(one, size, f"{prog.name}.sample", unit="run")
