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

import math
import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction

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
    """Estimates of an enumeration from random probes (:func:`estimate_tree`).

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


# ---------------------------------------------------------------------------- estimates
#: The proposals of the probes (:func:`estimate_tree`): the probability of branch 0 (the
#: first: ``True`` of a comparison) at a decision with two or more branches, the others
#: sharing the rest equally; ``None`` is uniform over the branches (Knuth's probe).
BIASES: tuple[Fraction | None, ...] = (
    None, *(p for k in (1, 2, 3, 4) for p in (Fraction(1, 4**k), 1 - Fraction(1, 4**k))))

#: A weight is capped at ``exp(WEIGHT_LOG_CAP)`` (about 1e300, far past any limit) so the
#: estimates stay finite floats on a path of thousands of decisions.
WEIGHT_LOG_CAP = 690.0

#: One probe: ``walk(chooser)`` runs the program once, taking ``chooser(arity)`` at every
#: decision past none recorded, and returns the arities met, the choices taken, and the
#: complete :class:`Run` (``None`` for a run that cannot happen).
Walk = Callable[[Callable[[int], int]], tuple[Sequence[int], Sequence[int], Run | None]]


def _chooser(bias: Fraction | None, rng: random.Random) -> Callable[[int], int]:
    """Draw a decision's branch from the proposal ``bias`` (see :data:`BIASES`)."""
    if bias is None:
        return rng.randrange
    p = float(bias)  # a sampling probability, never part of an exact value

    def choose(arity: int) -> int:
        if arity == 1 or rng.random() < p:
            return 0
        return 1 + rng.randrange(arity - 1)
    return choose


def _log_proposal(bias: Fraction | None, arities: Sequence[int],
                  choices: Sequence[int]) -> float:
    """``log`` of the probability that the proposal ``bias`` walks the path ``choices``."""
    if bias is None:
        return -sum(math.log(a) for a in arities)
    p = float(bias)
    return sum(0.0 if a == 1 else math.log(p) if c == 0 else math.log((1 - p) / (a - 1))
               for a, c in zip(arities, choices, strict=True))


def path_weight(arities: Sequence[int], choices: Sequence[int],
                shares: Sequence[int]) -> float:
    """The importance weight ``1 / q(path)`` of a probe's path, where ``q`` is the mixture
    of the proposals :data:`BIASES` taken ``shares[k]`` times out of ``sum(shares)``
    (the balance heuristic of multiple importance sampling: E. Veach and L. J. Guibas,
    "Optimally combining sampling techniques for Monte Carlo rendering", SIGGRAPH 1995).

    With one share on the uniform proposal it is Knuth's product of the branchings.

    Examples
    --------
    >>> path_weight([2, 2, 3], [0, 1, 2], [1] + [0] * 8)
    12.0
    """
    logs = [(math.log(n / sum(shares)) + _log_proposal(b, arities, choices))
            for b, n in zip(BIASES, shares, strict=True) if n]
    top = max(logs)
    log_q = top + math.log(sum(math.exp(v - top) for v in logs))
    return math.exp(min(-log_q, WEIGHT_LOG_CAP))


def estimate_tree(walk: Walk, probes: int, cost: Callable[[Run], float] | None = None,
                  seed: int = 0) -> Estimate:
    """Unbiased estimates of the number of leaves of a decision tree (the runs of a
    program) and of the sum of ``cost`` over its leaves, from ``probes`` random paths.

    Knuth's estimator walks each path uniformly and weighs it by the product of the
    branchings met (D. E. Knuth, "Estimating the efficiency of backtrack programs", Math.
    Comp. 29, 1975): unbiased, but when the leaves lie deep along the rarer branches (a
    sparse vector with a cut-off c: a path of c ``True`` among 40 answers, while a uniform
    walk meets c ``True`` within about 2c answers) nearly every probe under-estimates, by
    20x on 40 answers with c = 4. Here the probe ``i`` walks with the proposal
    ``BIASES[i % len(BIASES)]`` (uniform, or branch 0 with probability ``4**-k`` or
    ``1 - 4**-k``) and weighs its path by :func:`path_weight`, one over the mixture's
    probability of the path: still unbiased (importance sampling; the expectation of
    ``f / q`` under ``q`` is the sum of ``f``), and within a small factor of the proposal
    that suits the tree best, since the weight is at most ``len(BIASES)`` times that
    proposal's. Seeded: the same tree gives the same estimate.

    Parameters
    ----------
    walk : callable
        ``walk(chooser)``: one probe (see :data:`Walk`).
    probes : int
        The number of paths.
    cost : callable, optional
        ``cost(run)``: the caller's cost of one complete run (0 for a run that cannot
        happen); ``Estimate.seconds`` is 0.0 without it.
    seed : int

    Returns
    -------
    Estimate
        ``runs``: the mean weight, rounded up; ``seconds``: the mean of weight times cost.

    Examples
    --------
    A complete binary tree of depth 3 has 8 leaves; every path weighs 8 under the uniform
    proposal, and the mixture's weights average to 8:

    >>> def walk(choose):
    ...     choices = [choose(2) for _ in range(3)]
    ...     return [2, 2, 2], choices, None
    >>> 6 <= estimate_tree(walk, 256).runs <= 10
    True
    """
    rng = random.Random(seed)
    shares = [probes // len(BIASES) + (k < probes % len(BIASES)) for k in range(len(BIASES))]
    total = seconds = 0.0
    for i in range(probes):
        arities, choices, run = walk(_chooser(BIASES[i % len(BIASES)], rng))
        weight = path_weight(arities, choices, shares)
        total += weight
        if cost is not None and run is not None:
            seconds += weight * cost(run)
    return Estimate(math.ceil(total / probes), seconds / probes)
