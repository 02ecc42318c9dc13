"""Running a program with random draws: the literal algorithm, for ``sample``.

The draws are numpy's (``laplace``, ``exponential``, ``gumbel``; the two-sided geometric
law of ``discrete_laplace`` as the difference of two geometric draws, Inusah and Kozubowski,
"A discrete analogue of the Laplace distribution", J. Stat. Plan. Inference 136, 2006); a
comparison is a plain float comparison and ``argmax`` / ``argmin`` take the first index of
the extreme value. Outputs are keyed as the symbolic runs'
(:func:`exactdp.programs.trace.canonical`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

from .._validate import message
from ..progress import repeat
from .steps import MAX_STEPS, StepCounter
from .trace import canonical, execute
from .values import Comparison, Executor, Noisy, ProgramError, user_line


def _key_of_sample(value: object) -> Hashable:
    """:func:`canonical` of a sampled output (plain Python values, no forks)."""
    return canonical(value, "<sample>", _no_noisy)


def _no_noisy(v: Noisy, line: str) -> int:  # pragma: no cover - sampled runs have no Noisy
    raise ProgramError(f"{line}: a noisy value in a sampled run")


class SampleRun(Executor):
    """One run with random draws (numpy Generator): the program as an algorithm."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def draw(self, law: str, scale: Any) -> float | int:
        b = _float_scale(scale, law)
        if law == "laplace":
            return float(self.rng.laplace(0.0, b))
        if law == "exponential":
            return float(self.rng.exponential(b))
        if law == "gumbel":
            return float(self.rng.gumbel(0.0, b))
        p = -math.expm1(-1.0 / b)  # two-sided geometric: difference of two geometrics
        return int(self.rng.geometric(p)) - int(self.rng.geometric(p))

    def bernoulli(self, p: Any) -> bool:
        if isinstance(p, (Noisy, Comparison)):
            raise ProgramError(f"{user_line()}: bernoulli() probability depends on a noise")
        v = float(p)
        if not 0 <= v <= 1:
            raise ProgramError(f"{user_line()}: bernoulli() probability {p} is not in [0, 1]")
        return bool(self.rng.random() < v)

    def branch(self, comparison: Comparison) -> bool:  # pragma: no cover - no Noisy here
        raise ProgramError(f"{comparison.line}: a noisy comparison in a sampled run")

    def select(self, values: Any, minimize: bool, k: int | None = None,
               value: bool = False) -> Any:
        vals = [float(v) for v in values]
        order = sorted(range(len(vals)), key=lambda i: (vals[i] if minimize else -vals[i], i))
        return order[0] if k is None else tuple(order[:k])


def _float_scale(scale: object, law: str) -> float:
    try:
        b = float(scale)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ProgramError(f"{user_line()}: {law}() scale {scale!r} is not a number") from None
    if not (b > 0 and math.isfinite(b)):
        raise ProgramError(message(user_line(), f"{law}() scale", "> 0 and finite", scale))
    return b


def sample_outputs(call: Callable[[], Any], name: str, filename: str, size: int,
                   rng: np.random.Generator, max_steps: int = MAX_STEPS) -> list[Hashable]:
    """``size`` canonical keys of outputs of runs with random draws."""
    counter = StepCounter(filename, max_steps, name)
    ex = SampleRun(rng)
    return repeat(lambda: execute(ex, call, counter, name, _key_of_sample), size,
                  f"{name}.sample", unit="run")

