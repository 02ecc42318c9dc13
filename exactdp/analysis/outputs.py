"""Aligning output distributions over the union of their outputs.

A sequence mechanism's outputs are those its runs reach, which may differ between two
score vectors: an output decided without noise (a program's ``return q[0] == 1``), or by a
coin of probability exactly 0 or 1, is reached on one vector only. The privacy loss is
``max_r |ln(P_r / P'_r)|`` over every output ``r`` (Dwork and Roth 2014, Def. 2.4), an
output missing from one side having probability 0 there, so the loss is infinite when the
other side gives it positive probability. Comparing the two probability tables position by
position would pair different outputs (and read a loss of 0 where it is infinite): every
analysis that compares several vectors first aligns them here, by output *value* (a
type-tagged key, so ``True`` and ``1`` stay different outputs), never by position.

The union lists the first vector's outputs in their order, then each output first reached
by a later vector, in the order of the vectors and of their outputs; so an index below
``len(outputs of the first vector)`` names the first vector's own output.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import flint


def output_key(output: object) -> Hashable:
    """A type-tagged key of an output: equal keys iff equal outputs of equal types, tuples
    element by element (``True == 1`` in Python, but they are different outputs).

    Examples
    --------
    >>> output_key(True) == output_key(1), output_key((None, 2)) == output_key((None, 2))
    (False, True)
    """
    if isinstance(output, tuple):
        return ("tuple", tuple(output_key(o) for o in output))
    return (type(output).__name__, output)


@dataclass(frozen=True)
class OutputUnion:
    """The union of the outputs of several distributions, and where each one's are in it.

    Attributes
    ----------
    outputs : tuple
        Every output reached on some vector: the first vector's in their order, then the
        new ones of each later vector in theirs.
    positions : tuple of tuple of (int or None)
        Per vector, per union output, its index in that vector's own outputs, or None
        when that vector does not reach it (probability exactly 0 there).
    """

    outputs: tuple
    positions: tuple[tuple[int | None, ...], ...]

    def align(self, i: int, values: Sequence, zero: Any) -> list:
        """Vector ``i``'s per-output ``values`` (in its own output order) in the union's
        order, ``zero`` for the outputs it does not reach.

        Examples
        --------
        >>> u = output_union([(False,), (True,)])
        >>> u.outputs, u.align(0, ["p"], 0), u.align(1, ["p'"], 0)
        ((False, True), ['p', 0], [0, "p'"])
        """
        return [zero if k is None else values[k] for k in self.positions[i]]


def output_union(outputs: Sequence[Sequence]) -> OutputUnion | None:
    """The :class:`OutputUnion` of several vectors' outputs, or None when every vector
    has the very same outputs in the same order (nothing to align: the common case).

    Parameters
    ----------
    outputs : sequence of sequences
        Per vector, its distribution's ``outputs``.

    Examples
    --------
    >>> output_union([(0, 1), (0, 1)]) is None
    True
    >>> u = output_union([((True,), (False,)), ((False,), (True,))])
    >>> u.outputs, u.positions
    (((True,), (False,)), ((0, 1), (1, 0)))
    >>> output_union([(True,), (1,)]).outputs
    (True, 1)
    """
    keys = [tuple(output_key(o) for o in outs) for outs in outputs]
    if all(k == keys[0] for k in keys[1:]):
        return None
    index: dict[Hashable, int] = {}
    union: list = []
    for outs, ks in zip(outputs, keys, strict=True):
        for o, k in zip(outs, ks, strict=True):
            if k not in index:
                index[k] = len(union)
                union.append(o)
    positions = []
    for ks in keys:
        own = {k: r for r, k in enumerate(ks)}
        positions.append(tuple(own.get(k) for k in index))
    return OutputUnion(tuple(union), tuple(positions))


def probabilities_over(outputs: Sequence, dist: Any, zero: Any) -> list | None:
    """``dist``'s probabilities over ``outputs`` (by output value; ``zero`` for an output
    it does not reach), or None when it reaches an output not in ``outputs`` (a stored
    certificate re-checked against the mechanism's own distribution).

    Examples
    --------
    >>> class D:
    ...     outputs, probabilities = (True,), (1,)
    >>> probabilities_over((False, True), D(), 0), probabilities_over((1,), D(), 0)
    ([0, 1], None)
    """
    own = {output_key(o): p for o, p in zip(dist.outputs, dist.probabilities, strict=True)}
    out = [own.pop(output_key(o), zero) for o in outputs]
    return None if own else out


class PaddedBalls:
    """A distribution's certified probability balls in the union's order, an exact 0 ball
    for an output it does not reach (what the ball engine reads: ``balls_certified`` and
    ``evalf_balls``)."""

    def __init__(self, dist: Any, union: OutputUnion, i: int):
        self.dist, self.union, self.i = dist, union, i

    @property
    def balls_certified(self) -> tuple[bool, str | None]:
        """The distribution's own (the padded zeros are exact)."""
        return self.dist.balls_certified

    def evalf_balls(self, dps: int) -> tuple:
        """The balls at ``dps`` digits, aligned (``flint.arb(0)``: exact, radius 0)."""
        return tuple(self.union.align(self.i, tuple(self.dist.evalf_balls(dps)), flint.arb(0)))
