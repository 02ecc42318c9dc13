""":class:`~exactdp.mechanisms.sparse_vector.SparseVector`'s discrete variants on the program
engine: Lyu, Su and Li's Algorithms 1, 2, 4, 5 and 6 are the programs of
:mod:`exactdp.programs.library`, run symbolically (one run per decision prefix) and integrated
by :mod:`exactdp.programs.integrate` (each run a star: the threshold noise compared with the
query noises, through :func:`~exactdp.mechanisms.sparse_vector_integral.segment_integral`).

What this module adds to the engine is the bookkeeping of the class: each answer sequence's
probability as ``{(e, W): q}`` meaning ``sum q lam**e exp(lam W)`` in the class's unit ``lam =
epsilon / sensitivity`` and in its order of answer sequences (:func:`closed_form`), and the
literal algorithm as the program's own sampler (:func:`sample_positions`).

References
----------
M. Lyu, D. Su and N. Li, "Understanding the Sparse Vector Technique for Differential
Privacy", PVLDB 10(6), 2017: Algorithms 1, 2, 4, 5 and 6 (Figure 1).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy

from ..exact.piecewise_exp import Value
from ..scores import ScoreVector
from .sparse_vector_integral import answer_sequences

if TYPE_CHECKING:
    from ..programs.mechanism import ProgramMechanism

#: The library program of each discrete variant, and whether it takes the cut-off ``c``.
PROGRAMS = {1: ("svt1", True), 2: ("svt2", True), 4: ("svt4", True), 5: ("svt5", False),
            6: ("svt6", False)}


@lru_cache(maxsize=32)
def _program(variant: int, sensitivity: sympy.Expr) -> Any:
    """The library's program of ``variant`` declared with ``sensitivity`` (one object per
    pair, so that equal mechanisms share the engine's caches)."""
    from ..programs import library  # the engine sits a layer above the mechanisms
    from ..programs.language import Program

    prog = getattr(library, PROGRAMS[variant][0])
    if sensitivity == prog.declaration.sensitivity:
        return prog
    decl = type(prog.declaration)(sensitivity, prog.declaration.adjacency,
                                  prog.declaration.monotonic, prog.declaration.output,
                                  prog.declaration.domain)
    return Program(prog.func, decl)


@lru_cache(maxsize=256)
def engine_mechanism(variant: int, epsilon: sympy.Expr, threshold: sympy.Expr, c: int,
                     sensitivity: sympy.Expr) -> ProgramMechanism:
    """The library program of ``variant`` at these parameters (rational ``threshold``)."""
    prog = _program(variant, sensitivity)
    if PROGRAMS[variant][1]:
        return prog(epsilon=epsilon, threshold=threshold, c=c)
    return prog(epsilon=epsilon, threshold=threshold)


def _rescale(values: tuple[Value, ...], unit: sympy.Expr, lam: sympy.Expr) -> list[Value]:
    """Values in the engine's unit ``unit`` as values in ``lam``: ``q unit**e exp(unit W) =
    q k**e lam**e exp(lam k W)`` with ``k = unit / lam`` (a rational: every scale of the
    programs is a rational multiple of ``sensitivity / epsilon``)."""
    k = unit / lam
    if not k.is_Rational:
        k = sympy.cancel(k)
    if not k.is_Rational:
        raise ArithmeticError(f"SparseVector: the engine's unit {unit} is not a rational "
                              f"multiple of epsilon / sensitivity = {lam}")
    kf = Fraction(int(k.p), int(k.q))
    if kf == 1:
        return [dict(v) for v in values]
    return [{(e, w * kf): q * kf**e if e else q for (e, w), q in v.items()} for v in values]


@lru_cache(maxsize=4096)  # an exhaustive search at m = 6 reads 729 vectors twice
def closed_form(variant: int, epsilon: sympy.Expr, threshold: sympy.Expr, c: int,
                cutoff: int | None, sensitivity: sympy.Expr,
                answers: tuple[sympy.Expr, ...]) -> tuple[Value, ...]:
    """Each answer sequence's probability on ``answers`` as ``{(e, W): q}`` (``sum q
    lam**e exp(lam W)``, ``lam = epsilon / sensitivity``), in the order of
    :func:`~exactdp.mechanisms.sparse_vector_integral.answer_sequences` (an answer sequence
    no run reaches has probability 0: ``{}``). Sequences of equal value share one mapping
    (cached: read them, do not modify them).

    Raises
    ------
    ArithmeticError
        If a run's closed form is not ``sum q lam**e exp(lam W)`` in one unit (it always
        is for these programs).
    """
    from ..programs.mechanism import output_values, program_trace  # the engine: above
    from ..programs.trace import decode

    mech = engine_mechanism(variant, epsilon, threshold, c, sensitivity)
    ov = output_values(mech, answers)
    if ov is None:
        raise ArithmeticError("SparseVector: a run of the engine has no closed form "
                              "sum q lam**e exp(lam W)")
    keys = sorted(program_trace(mech, answers).outputs)  # type: ignore[type-var]
    shared: dict[tuple, Value] = {}  # equal values (equal answer counts) share one mapping
    by_output = {decode(key): shared.setdefault(tuple(v.items()), v)
                 for key, v in zip(keys, ov.values, strict=True)}
    rescaled = {id(v): w for v, w in zip(shared.values(), _rescale(
        tuple(shared.values()), ov.unit, epsilon / sensitivity), strict=True)}
    empty: Value = {}
    return tuple(rescaled[id(by_output[o])] if o in by_output else empty
                 for o in answer_sequences(len(answers), cutoff))


def sample_positions(mech: ProgramMechanism, sv: ScoreVector, cutoff: int | None,
                     size: int, rng: np.random.Generator) -> np.ndarray:
    """Positions in the answer sequences of ``size`` runs of the program with random draws
    (the literal algorithm)."""
    from ..programs.trace import decode  # the engine: a layer above

    keys = mech.output_keys(sv)
    position = {o: i for i, o in enumerate(answer_sequences(sv.n, cutoff))}
    lookup = np.array([position[decode(k)] for k in keys], dtype=np.int64)
    return lookup[np.asarray(mech.evaluate("sample", sv, size, rng), dtype=np.int64)]
