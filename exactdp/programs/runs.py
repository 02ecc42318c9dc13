"""One run of a program: the draws it made and the linear constraints its comparisons fixed.

This is the contract between the two halves of :mod:`exactdp.programs`:

- the *language* (:mod:`exactdp.programs.language`) runs a user's program symbolically,
  forking at every comparison of noisy values, and turns each complete run into a
  :class:`Run`;
- the *integrator* (:mod:`exactdp.programs.integrate`) turns a :class:`Run` into its exact
  probability (:func:`exactdp.programs.integrate.run_probability`).

Semantics: the noises of :attr:`Run.draws` are independent; a run happens when every
constraint of :attr:`Run.constraints` holds; its probability is :attr:`Run.weight` (the
product of the probabilities of the Bernoulli branches taken) times the probability, under
the product of the noise laws, of the set of noise values on which every constraint holds.
An output's probability is the sum over the runs giving that output.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

import sympy

#: The noise laws a program may draw (``scale`` as in :class:`Draw`).
LAWS = ("laplace", "exponential", "discrete_laplace", "gumbel")

#: The laws a released real value may carry (``@program(output="release")``).
RELEASE_LAWS = ("laplace", "exponential")


class RealPlaceholder:
    """The type of :data:`REAL`: the placeholder of a released real value in a pattern."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "REAL"

    def __reduce__(self) -> str:
        return "REAL"


#: Where a pattern (the discrete part of an output of ``@program(output="release")``) has
#: a released real value.
REAL = RealPlaceholder()
#: The canonical key of :data:`REAL` (sorted after the tuples).
RELEASED_KEY = (4,)

#: The relations of a :class:`Constraint`: ``expr >= 0``, ``expr > 0``, ``expr == 0``,
#: ``expr != 0``.
RELATIONS = (">=", ">", "==", "!=")


@dataclass(frozen=True)
class Draw:
    """One noise drawn by a run.

    Attributes
    ----------
    index : int
        Position in the run's draw order (0, 1, ...): the variable ``z_index``.
    law : str
        One of :data:`LAWS`: ``"laplace"`` (density ``exp(-|z|/b) / (2b)``),
        ``"exponential"`` (one-sided, density ``exp(-z/b) / b`` on ``z >= 0``, mean ``b``),
        ``"discrete_laplace"`` (on the integers, ``P(k)`` proportional to ``exp(-|k|/b)``),
        ``"gumbel"`` (CDF ``exp(-exp(-z/b))``; drawn inside ``argmax`` / ``argmin`` only).
    scale : sympy.Expr
        ``b > 0``: an exact positive expression of the parameters (symbolic epsilon allowed).
    line : str
        ``"file:line"`` of the program line that drew it (for error messages).
    """

    index: int
    law: str
    scale: sympy.Expr
    line: str


@dataclass(frozen=True)
class Linear:
    """The affine function ``constant + sum(c * z_i for i, c in coefficients)`` of the noises.

    Attributes
    ----------
    constant : sympy.Rational
        The exact rational constant (data, parameters and rational constants).
    coefficients : tuple of (int, sympy.Rational)
        ``(draw index, coefficient)`` pairs, sorted by index, no zero coefficient.
    """

    constant: sympy.Rational
    coefficients: tuple[tuple[int, sympy.Rational], ...]


@dataclass(frozen=True)
class Constraint:
    """``expr relation 0``, fixed by one comparison of the run.

    Attributes
    ----------
    expr : Linear
    relation : str
        One of :data:`RELATIONS`.
    line : str
        ``"file:line"`` of the comparison (for error messages).
    """

    expr: Linear
    relation: str
    line: str


@dataclass(frozen=True)
class Run:
    """One complete run of a program.

    Attributes
    ----------
    draws : tuple of Draw
        Every noise the run drew, in order (``draws[i].index == i``).
    constraints : tuple of Constraint
        The outcome of every comparison the run made, in order.
    weight : sympy.Expr
        The product of the probabilities of the Bernoulli branches taken (1 if none).
    output : Hashable
        What the run returned, in canonical form.
    released : tuple of Linear
        The released real values of the output (``@program(output="release")``), in the
        order of the :data:`REAL` placeholders of ``output``; empty otherwise.
    """

    draws: tuple[Draw, ...]
    constraints: tuple[Constraint, ...]
    weight: sympy.Expr
    output: Hashable
    released: tuple[Linear, ...] = ()


@dataclass(frozen=True)
class Estimate:
    """Knuth's estimates of an enumeration from random probes (:func:`probe_runs`).

    Attributes
    ----------
    runs : int
        The number of runs (leaves of the decision tree), rounded up.
    seconds : float
        The sum over the runs of the caller's cost of each (0.0 when none is given).
    """

    runs: int
    seconds: float


@dataclass(frozen=True)
class Budget:
    """What the probes check besides the number of runs: the integration to come.

    Attributes
    ----------
    cost : callable
        ``cost(run)``: the estimated seconds of one :class:`~exactdp.programs.runs.Run`
        (it may raise the refusal of a run outside the exact class).
    check : callable
        ``check(estimate)``: raises (``TooCostly``) when the :class:`Estimate` is past the
        caller's limit.
    """

    cost: Callable[[Run], float]
    check: Callable[[Estimate], None]
