"""The one counterexample type of the analyzer: :class:`Witness`.

Every check that can fail or that reports where a maximum is attained (``check_dp``, the
divergences, composition, the regularity checks, ``sensitivity``) names a pair of inputs and
an output with a :class:`Witness`; the fields a check does not use stay ``None``, and a
quantity not attained at one output has the output :data:`NO_OUTPUT` (a program's output
may itself be ``None``).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from fractions import Fraction

import sympy

from ..printing import format_number, value_repr


class _NoOutput:
    """The type of :data:`NO_OUTPUT` (one instance; falsy; pickles as itself)."""

    _instance: _NoOutput | None = None

    def __new__(cls) -> _NoOutput:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NO_OUTPUT"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "NO_OUTPUT"


#: A witness's output when the quantity is not attained at one output (composition, the
#: divergences, a loss that is the largest of several outputs'): not ``None``, which a
#: program may return as its output (``Witness(..., output=None)`` reads ``at output None``).
NO_OUTPUT = _NoOutput()


@dataclass(frozen=True)
class Witness:
    """A pair of inputs and an output that attain a quantity or break a property.

    Parameters
    ----------
    scores : tuple
        The first score vector, shape (n,).
    neighbour : tuple
        The second input: a score vector of shape (n,) (the neighbour of ``scores`` for
        ``check_dp`` and the divergences; the permuted, shifted or moved vector for the
        regularity checks), or, for :func:`~exactdp.analysis.score_function.sensitivity`, the
        neighbouring *database* (then ``database`` is set and ``neighbour_scores`` holds its
        score vector).
    output : hashable
        The output ``r`` (an index; the output itself for a mechanism releasing a sequence,
        as ``(False, True)`` of a sparse vector, or ``None`` a program returned; or an
        element of a score function's range); :data:`NO_OUTPUT` when the quantity is not
        attained at one output (composition).
    neighbour_output : hashable
        The output compared on ``neighbour`` when it differs from ``output`` (symmetry maps
        ``r`` to ``sigma(r)``); defaults to ``output`` (:data:`NO_OUTPUT`: the same).
    probability, neighbour_probability : sympy.Expr or None
        The exact probabilities ``Pr[M(scores) = output]`` and
        ``Pr[M(neighbour) = neighbour_output]`` that break a regularity property.
    value : sympy.Expr or None
        The quantity attained by the pair (the sensitivity ``|q(D, r) - q(D', r)|``).
    database : tuple or None
        :func:`~exactdp.analysis.score_function.sensitivity` only: the database whose score
        vector is ``scores``.
    neighbour_scores : tuple or None
        The score vector of ``neighbour``: ``neighbour`` itself unless ``database`` is set.

    Notes
    -----
    Iterating gives ``(first input, neighbour, output)``: ``(scores, neighbour, output)``, or
    ``(database, neighbour, output)`` for a sensitivity witness.

    Examples
    --------
    >>> import exactdp
    >>> w = exactdp.check_dp(exactdp.PermuteAndFlip(1), [0, -1]).witness
    >>> w.scores, w.neighbour, w.output
    ((0, -1), (1, -2), 1)
    """

    scores: tuple
    neighbour: tuple
    output: Hashable
    neighbour_output: Hashable = NO_OUTPUT
    probability: sympy.Expr | None = None
    neighbour_probability: sympy.Expr | None = None
    value: sympy.Expr | None = None
    database: tuple | None = None
    neighbour_scores: tuple | None = None

    def __post_init__(self) -> None:
        if self.neighbour_output is NO_OUTPUT:
            object.__setattr__(self, "neighbour_output", self.output)
        if self.neighbour_scores is None and self.database is None:
            object.__setattr__(self, "neighbour_scores", self.neighbour)

    def __repr__(self) -> str:
        parts = [f"scores={value_repr(self.scores)}", f"neighbour={value_repr(self.neighbour)}",
                 f"output={value_repr(self.output)}"]
        defaults = {"neighbour_output": self.output, "probability": None,
                    "neighbour_probability": None, "value": None, "database": None,
                    "neighbour_scores": self.neighbour if self.database is None else None}
        parts += [f"{k}={value_repr(getattr(self, k))}" for k, d in defaults.items()
                  if getattr(self, k) != d]
        return "Witness(" + ", ".join(parts) + ")"

    def __str__(self) -> str:
        """``(3,1,0)->(2,0,1) at output 2``: the pair and the output, briefly.

        Numbers print in short decimals (``1.0e+300``); for vectors longer than 8 the
        coordinates that differ (``q[3]: 1 -> 0, q[7]: 2 -> 3 at output 5``).
        """
        first = self.scores if self.database is None else self.database
        if self.database is None and len(first) == len(self.neighbour) and (
                len(first) > 8 or _hidden(tuple(first), tuple(self.neighbour))):
            text = _changes(tuple(first), tuple(self.neighbour))
        else:
            text = f"{_brief(first)}->{_brief(self.neighbour)}"
        if self.output is not NO_OUTPUT:
            text += f" at output {self.output}"
            if self.neighbour_output != self.output:
                text += f"->{self.neighbour_output}"
        return text

    def __iter__(self) -> Iterator:
        first = self.scores if self.database is None else self.database
        return iter((first, self.neighbour, self.output))


def _coordinate(v: object) -> str:
    """A score in at most about 12 characters: small integers and rationals of at most 12
    characters exactly (``1/7``, ``8/7``), else decimals."""
    if isinstance(v, (int, sympy.Integer)) and abs(int(v)) < 10**12:
        return str(int(v))
    if isinstance(v, (sympy.Rational, Fraction)) and not isinstance(v, bool):
        num, den = int(v.numerator), int(v.denominator)
        if num.bit_length() + den.bit_length() < 80 and len(f"{num}/{den}") <= 12:
            return f"{num}/{den}"
    if isinstance(v, float):
        return f"{v:.6g}"
    try:
        return format_number(v, 6)
    except (TypeError, ValueError):
        text = str(v)
        return text if len(text) <= 12 else text[:9] + "..."


def _hidden(first: tuple, second: tuple) -> bool:
    """True when two differing coordinates print alike (``1.0e+300`` and ``1e300 + 1``)."""
    return any(a != b and _coordinate(a) == _coordinate(b)
               for a, b in zip(first, second, strict=True))


def _change(a: object, b: object) -> str:
    """``1 -> 0``, or ``1.0e+300 -> 1.0e+300 (+1)`` when the two print alike."""
    ta, tb = _coordinate(a), _coordinate(b)
    if ta != tb:
        return f"{ta} -> {tb}"
    try:
        step = _coordinate(b - a)  # type: ignore[operator]
    except TypeError:
        return f"{ta} -> {tb} (differ)"
    return f"{ta} -> {tb} ({'' if step.startswith('-') else '+'}{step})"


def _changes(first: tuple, second: tuple, limit: int = 3) -> str:
    """``q[3]: 1 -> 0, q[7]: 2 -> 3``: the coordinates where two vectors differ."""
    diff = [i for i, (a, b) in enumerate(zip(first, second, strict=True)) if a != b]
    if not diff:
        return f"q = q' (n={len(first)})"
    shown = [f"q[{i}]: {_change(first[i], second[i])}" for i in diff[:limit]]
    if len(diff) > limit:
        shown.append(f"... ({len(diff)} of {len(first)} differ)")
    return ", ".join(shown)


def _brief(items: tuple, limit: int = 8) -> str:
    """``(3,1,0)``: a vector without spaces, cut after ``limit`` entries."""
    shown = [_coordinate(v) for v in tuple(items)[:limit]]
    tail = ",..." if len(items) > limit else ""
    return "(" + ",".join(shown) + tail + ")"
