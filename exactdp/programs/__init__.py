"""User-written selection programs, analysed exactly (see docs/programs.md).

``@program`` turns a Python function of the query answers and its parameters into a
factory of :class:`~exactdp.mechanisms.base.Mechanism` objects; the draws
(:func:`laplace`, :func:`exponential`, :func:`discrete_laplace`, :func:`bernoulli`,
:func:`gumbel`) and the built-ins :func:`argmax`, :func:`argmin`, :func:`max_value`,
:func:`topk` are what a program may use beyond plain Python.
"""

from .builtins import argmax, argmin, max_value, topk
from .draws import bernoulli, discrete_laplace, exponential, gumbel, laplace
from .language import Declaration, Program, program
from .mechanism import ProgramDistribution, ProgramMechanism
from .release import ProgramRelease, ReleaseProgramMechanism
from .runs import REAL
from .values import ProgramError

__all__ = [
    "Declaration",
    "Program",
    "ProgramDistribution",
    "ProgramError",
    "ProgramMechanism",
    "ProgramRelease",
    "REAL",
    "ReleaseProgramMechanism",
    "argmax",
    "argmin",
    "bernoulli",
    "discrete_laplace",
    "exponential",
    "gumbel",
    "laplace",
    "max_value",
    "program",
    "topk",
]
