"""The sparse vector variants that release values, on the program engine: Lyu, Su and Li's
Algorithm 3 (``SparseVector(..., variant=3)``) on pairs whose answers move both ways, and
the numerical sparse vector (:class:`~exactdp.mechanisms.numerical_sparse_vector.
NumericalSparseVector`) on every pair.

Each class answers its exact privacy loss through the library's program of the same
algorithm (:func:`~exactdp.programs.library_release.svt3`,
:func:`~exactdp.programs.library_release.numerical_svt`: the frozen table of
``tests/programs/release_closed_forms.json`` checks every pattern probability and density
equal) and :mod:`exactdp.programs.release_loss`, the one engine of release losses:

- Algorithm 3 on answers moving both ways: the supremum of the log density ratio lies in
  general at an interior critical point (no closed form); the engine gives the exact
  supremum over the cells of the log-ratio where they can be enumerated, its interior
  critical points as certified intervals, else a certified bracket labelled as such.
  Pairs moving one way keep the class's closed form ``(eps / (2cD)) sum_i |a_i - a'_i|``
  (the derivation is in :mod:`exactdp.mechanisms.sparse_vector_release`).
- The numerical sparse vector: its released values carry a fresh noise that no comparison
  reads, so the engine treats every releasing pattern as separable
  (:mod:`exactdp.programs.release_separable`): the loss is ``max over patterns of |ln P_a
  / P_a'| + (eps / (3cD)) sum_released |a_i - a'_i|``, attained, in closed form.

The classes' densities and Algorithm 3's conditional CDF are these programs' too
(:class:`~exactdp.mechanisms.sparse_vector_release.SparseVectorRelease` reads the
distribution of :func:`svt3_mechanism` / :func:`numerical_svt_mechanism`); the classes keep
the pattern probabilities (the shared closed form of
:func:`~exactdp.mechanisms.sparse_vector_integral.sequence_probabilities`, symbolic epsilon
too), the fresh value's Laplace CDF and the sampler.

References
----------
M. Lyu, D. Su and N. Li, "Understanding the Sparse Vector Technique for Differential
Privacy", PVLDB 10(6), 2017: Algorithm 3 (Figure 1). Y. Wang, Z. Ding, G. Wang, D. Kifer and
D. Zhang, "Proving differential privacy with shadow execution", PLDI 2019 (NumSVT).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import sympy

from ..cost import as_caller
from ..distribution import LossSupremum
from ..scores import ScoreVector

if TYPE_CHECKING:
    from ..programs.mechanism import ProgramMechanism


@lru_cache(maxsize=16)
def _program(name: str, sensitivity: sympy.Expr) -> Any:
    """The library's release program ``name`` declared with ``sensitivity`` (one program per
    pair, so that equal mechanisms share the engine's caches)."""
    from ..programs import library_release  # the engine sits a layer above the mechanisms
    from ..programs.language import Program

    prog = library_release.PROGRAMS[name]
    if sensitivity == prog.declaration.sensitivity:
        return prog
    return Program(prog.func, replace(prog.declaration, sensitivity=sensitivity))


@lru_cache(maxsize=64)
def svt3_mechanism(epsilon: sympy.Expr, threshold: sympy.Expr, c: int,
                   sensitivity: sympy.Expr) -> ProgramMechanism:
    """The library program of Algorithm 3 at these parameters."""
    return _program("svt3", sensitivity)(epsilon=epsilon, threshold=threshold, c=c)


@lru_cache(maxsize=64)
def numerical_svt_mechanism(epsilon: sympy.Expr, threshold: sympy.Expr, c: int,
                            sensitivity: sympy.Expr) -> ProgramMechanism:
    """The library program of the numerical sparse vector at these parameters."""
    return _program("numerical_svt", sensitivity)(epsilon=epsilon, threshold=threshold, c=c)


def mixed_loss(func: str, epsilon: sympy.Expr, threshold: sympy.Expr, c: int,
               sensitivity: sympy.Expr, sv: ScoreVector, sv2: ScoreVector) -> LossSupremum:
    """The privacy loss of Algorithm 3 on answers moving both ways, by the engine: exact
    (a closed form, or a certified interval of an interior critical point) or a certified
    bracket labelled as such.

    Raises
    ------
    ValueError
        A symbolic epsilon; the engine's one-line refusals (the cost model).
    """
    return _engine_loss(func, svt3_mechanism, "the supremum over the released values of "
                        "answers moving both ways needs a number", epsilon, threshold, c,
                        sensitivity, sv, sv2)


def fresh_loss(func: str, epsilon: sympy.Expr, threshold: sympy.Expr, c: int,
               sensitivity: sympy.Expr, sv: ScoreVector, sv2: ScoreVector) -> LossSupremum:
    """The exact privacy loss of the numerical sparse vector on the answers ``sv`` and
    ``sv2``, by the engine: ``max over patterns of |ln P_a / P_a'| + t3 lam sum_released
    |a_i - a'_i|`` (``t3 lam = eps / (3cD)``), attained, with its witness (a pattern with
    every released value beyond both answers on the side of the more likely input).

    Raises
    ------
    ValueError
        A symbolic epsilon (the maximum over patterns is decided numerically); the
        engine's one-line refusals (the cost model).
    """
    return _engine_loss(func, numerical_svt_mechanism, "the maximum over patterns needs a "
                        "number", epsilon, threshold, c, sensitivity, sv, sv2)


def _engine_loss(func: str, build: Callable[..., Any], why: str, epsilon: sympy.Expr,
                 threshold: sympy.Expr, c: int, sensitivity: sympy.Expr, sv: ScoreVector,
                 sv2: ScoreVector) -> LossSupremum:
    """The loss of the library program ``build(epsilon, threshold, c, sensitivity)`` on
    the pair, read through the engine's ``"density"`` view under the caller's name; a
    symbolic epsilon refused in one line saying ``why``."""
    if epsilon.free_symbols:
        raise ValueError(f"{func}: epsilon is symbolic ({epsilon}); {why}")
    engine = build(epsilon, threshold, c, sensitivity)
    with as_caller(func):
        return engine.evaluate("density", sv, sv2)
