"""Lyu, Su and Li's Algorithm 3 (``SparseVector(..., variant=3)``) on the program engine: the
privacy loss of a pair whose answers move both ways.

There the supremum of the log density ratio lies in general at an interior critical point
(no closed form), and the class answers it through the library's program
:func:`~exactdp.programs.library_release.svt3` (the same algorithm: the frozen table of
``tests/programs/release_closed_forms.json`` checks every pattern probability and density
equal) and :mod:`exactdp.programs.release_loss`: the exact supremum over the cells of the
log-ratio where they can be enumerated, its interior critical points as certified
intervals, else a certified bracket labelled as such. Pairs moving one way keep the
class's closed form ``(eps / (2cD)) sum_i |a_i - a'_i|`` (the derivation is in
:mod:`exactdp.mechanisms.sparse_vector_release`).

References
----------
M. Lyu, D. Su and N. Li, "Understanding the Sparse Vector Technique for Differential
Privacy", PVLDB 10(6), 2017: Algorithm 3 (Figure 1).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

import sympy

from ..cost import as_caller
from ..distribution import LossSupremum
from ..scores import ScoreVector

if TYPE_CHECKING:
    from ..programs.mechanism import ProgramMechanism


@lru_cache(maxsize=8)
def _svt3(sensitivity: sympy.Expr) -> Any:
    """The library's ``svt3`` declared with ``sensitivity`` (one program per sensitivity, so
    that equal mechanisms share the engine's caches)."""
    from ..programs import library_release  # the engine sits a layer above the mechanisms
    from ..programs.language import program

    prog = library_release.svt3
    if sensitivity == prog.declaration.sensitivity:
        return prog
    return program(prog.func, sensitivity=sensitivity, output="release")


@lru_cache(maxsize=64)
def svt3_mechanism(epsilon: sympy.Expr, threshold: sympy.Expr, c: int,
                   sensitivity: sympy.Expr) -> ProgramMechanism:
    """The library program of Algorithm 3 at these parameters."""
    return _svt3(sensitivity)(epsilon=epsilon, threshold=threshold, c=c)


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
    if epsilon.free_symbols:
        raise ValueError(f"{func}: epsilon is symbolic ({epsilon}); the supremum over the "
                         "released values of answers moving both ways needs a number")
    engine = svt3_mechanism(epsilon, threshold, c, sensitivity)
    with as_caller(func):
        return engine.evaluate("density", sv, sv2)
