"""The pairs of the DP-testing tools' suite, exactly: :class:`PairLoss`, :func:`pair_loss`.

StatDP, DP-Sniper, CheckDP and DiPC evaluate themselves on one suite of selection
algorithms: report-noisy-max returning the index or the value, the sparse vector variants of
Lyu, Su and Li and the numerical SVT of Wang et al. The suite itself
(:func:`exactdp.verification_suite`) runs every program of the library
(:mod:`exactdp.audit.verification`); this module computes the exact loss of one pair
(:func:`pair_loss`: :func:`exactdp.privacy_loss`, for mechanisms releasing real values the
supremum of the log density ratio, or a certified bracket) and the loss of one of the tools'
algorithms (:data:`~exactdp.audit.suite_specs.SPECS`) on one of StatDP's patterns as the
number of queries grows (:func:`loss_growth`: Lyu-Su-Li's "no bound independent of m").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, overload

import sympy

from .._validate import argument_error, check_int
from ..analysis import privacy_loss
from ..exact import compare
from ..mechanisms import REGISTRY, Mechanism
from ..printing import format_number
from ..programs.release_tidy import tidy_loss
from .suite_specs import (
    ALGORITHMS,
    CLAIM,
    PATTERNS,
    SPECS,
    AlgorithmSpec,
    pattern_pair,
)

#: Answer -> letter in the text of an answer sequence.
LETTERS = {True: "T", False: "F", None: "-"}


@dataclass(frozen=True)
class PairLoss:
    """The exact privacy loss of one input pair.

    Attributes
    ----------
    pattern : str
        The pattern's name (:func:`~exactdp.audit.suite_specs.patterns`), or ``"vertex
        search"`` for the worst pair of the exhaustive search.
    scores, neighbour : tuple
        The pair.
    loss : sympy.Expr
        The exact loss (``oo`` when an output has probability 0 under one input only).
    output : str
        The output attaining it (an answer sequence in letters, ``T`` above, ``F`` below,
        ``-`` not answered; ``index i``), or the event attaining or approaching it.
    attained : bool
        False when outputs only approach the loss (a supremum over released values).
    interval : tuple of sympy.Expr or None
        Set when the loss has no closed form (Algorithm 3 on answers moving both ways): the
        certified ``(lower, upper)``; ``loss`` is then ``lower``, attained at ``output``.
    """

    pattern: str
    scores: tuple
    neighbour: tuple
    loss: sympy.Expr
    output: str
    attained: bool = True
    interval: tuple[sympy.Expr, sympy.Expr] | None = None

    @property
    def upper(self) -> sympy.Expr:
        """A proven upper bound on the loss: ``loss``, or the interval's upper end."""
        return self.loss if self.interval is None else self.interval[1]

    def __str__(self) -> str:
        head = f"{self.pattern}: {_vector(self.scores)} vs {_vector(self.neighbour)}, loss "
        if self.interval is not None:
            lo, hi = self.interval
            at = f" (at least at {self.output})" if self.output else ""
            return (f"{head}in [{format_number(lo, 6)}, {format_number(hi, 6)}]{at}, no "
                    "closed form")
        return f"{head}{format_number(self.loss, 6)} at {self.output}"


def _vector(v: tuple) -> str:
    return "(" + ",".join(str(x) for x in v) + ")"


def _mechanism_class(spec: AlgorithmSpec) -> type[Mechanism]:
    """The class ``spec.mechanism`` of :data:`exactdp.mechanisms.REGISTRY`."""
    for entry in REGISTRY.values():
        if entry.cls.__name__ == spec.mechanism:
            return entry.cls
    raise ValueError(f"loss_growth: {spec.name} needs the mechanism "
                     f"{spec.mechanism}, which this version of exactdp does not have")


def build_mechanism(spec: AlgorithmSpec, epsilon: object = CLAIM) -> Mechanism:
    """The mechanism of one suite algorithm at ``epsilon``.

    Raises
    ------
    ValueError
        If this version of exactdp lacks the mechanism or one of its parameters.

    Examples
    --------
    >>> from exactdp.audit.suite_specs import SPECS
    >>> build_mechanism(SPECS[4]).variant
    1
    """
    cls = _mechanism_class(spec)
    try:
        return cls(epsilon=epsilon, **spec.parameters)
    except (TypeError, ValueError) as exc:  # a parameter or value this version lacks
        raise ValueError(f"loss_growth: {spec.name} needs {spec.mechanism}"
                         f"({', '.join(f'{k}={v!r}' for k, v in spec.parameters.items())}),"
                         f" which this version of exactdp does not have ({exc})") from None


def output_text(mech: Mechanism, scores: tuple, index: object, named: bool = False) -> str:
    """An output of a discrete mechanism in words: answer letters or ``index i``.

    ``index`` is an index into ``mech.distribution(scores).outputs``, or with ``named`` the
    output itself (:attr:`PrivacyLoss.label <exactdp.analysis.loss.PrivacyLoss>`, the
    output check_dp's witness names): a program returning integers has outputs that are
    integers, never to be read as indices."""
    if mech.output_kind == "sequence" and index is not None:
        answers = index if named else mech.distribution(scores).outputs[index]  # type: ignore[call-overload]
        if isinstance(answers, tuple) and all(a is None or a is True or a is False
                                              for a in answers):
            return "".join(LETTERS[a] for a in answers)
        return f"output {answers}"
    return f"index {index}"


@overload
def pair_loss(mech: Mechanism, pattern: str, scores: tuple, neighbour: tuple) -> PairLoss: ...


@overload
def pair_loss(mech: Mechanism, pattern: str, scores: tuple, neighbour: tuple,
              floor: object) -> PairLoss | None: ...


def pair_loss(mech: Mechanism, pattern: str, scores: tuple, neighbour: tuple,
              floor: object = None) -> PairLoss | None:
    """The exact loss of one pair, by :func:`~exactdp.privacy_loss` (for mechanisms that
    release real values, output kind ``"release"``, the supremum of the log density ratio).
    A pair with no closed form (Algorithm 3 on answers moving both ways) gets its certified
    interval (:attr:`PairLoss.interval`). With ``floor`` (a program releasing real values:
    :meth:`~exactdp.programs.release.ProgramRelease.loss_at_least`), None where the loss is
    below it (only the patterns whose translation bound reaches it are computed)."""
    if mech.output_kind == "release":
        if floor is None:
            r = privacy_loss(mech, scores, neighbour)
            bracket = r.interval if r.value is None else None
            loss, output, attained = r.loss, r.output, r.attained
        else:
            dist: Any = mech.distribution(scores)
            sup = dist.loss_at_least(neighbour, floor)
            if sup is None:
                return None
            bracket, loss, output, attained = sup.interval, sup.loss, sup.witness, sup.attained
        if bracket is not None:  # a certified bracket
            # its ends are certified bounds stored as binary floats: exact as rationals
            low, high = (sympy.Rational(end) for end in bracket)
            return PairLoss(pattern, scores, neighbour, low, str(output), False, (low, high))
        return PairLoss(pattern, scores, neighbour, loss, str(output), bool(attained))
    r = privacy_loss(mech, scores, neighbour)
    # a sequence's output by itself: its index may be past q's outputs (the union's)
    named = r.label is not None
    out = output_text(mech, scores, r.label if named else r.output, named)
    return PairLoss(pattern, scores, neighbour, r.loss, out)


def named_loss(mech: Mechanism, pairs: list[PairLoss]) -> list[PairLoss]:
    """``pairs`` computed inside :func:`~exactdp.programs.release_tidy.quick` (each ratio
    of a loss reduced quickly to a canonical form: equal losses are equal expressions)
    with the worst pair's loss, and every loss equal to it, in the closed form of a search
    outside the block (:func:`~exactdp.programs.release_tidy.tidy_loss`; each computed
    again where the quick form is ambiguous), so that :func:`worst_pair` compares them as
    it would have."""
    if not pairs:
        return pairs
    top = worst_pair(pairs).loss
    loss = tidy_loss(top)
    if loss is top:
        return pairs
    return [p if p.loss != top else replace(p, loss=loss if loss is not None else pair_loss(
        mech, p.pattern, p.scores, p.neighbour).loss) for p in pairs]


def worst_pair(pairs: Sequence[PairLoss]) -> PairLoss:
    """The pair of largest loss (among exact ties the first attained one, else the first)."""
    best = pairs[0]
    for p in pairs[1:]:
        order = compare(p.loss, best.loss)
        if order > 0 or (order == 0 and p.attained and not best.attained):
            best = p
    return best


def loss_growth(algorithm: str, queries: Sequence[int],
                pattern: str = "half half") -> tuple[tuple[int, PairLoss], ...]:
    """The exact loss of one algorithm on one of StatDP's patterns as the number of queries
    grows: Lyu-Su-Li's "not private" for Algorithms 3 and 6 is a loss finite at every fixed
    ``m`` with no bound independent of ``m``.

    Parameters
    ----------
    algorithm : str
        A row name (:data:`~exactdp.audit.suite_specs.ALGORITHMS`).
    queries : sequence of int
        The numbers of queries ``m`` (positive).
    pattern : str, default "half half"
        The pattern (:data:`~exactdp.audit.suite_specs.PATTERNS`).

    Returns
    -------
    tuple of (int, PairLoss)

    Raises
    ------
    ValueError
        An unknown algorithm or pattern, a bad ``m``; the cost model's refusal.

    Examples
    --------
    >>> from exactdp.audit.suite import loss_growth
    >>> [(m, round(float(p.loss), 5)) for m, p in loss_growth("SVT6", [1, 2, 3])]
    [(1, 0.02531), (2, 0.07591), (3, 0.10747)]
    """
    func = "loss_growth"
    if algorithm not in ALGORITHMS:
        raise argument_error(func, "algorithm", f"one of {', '.join(ALGORITHMS)}", algorithm)
    if pattern not in PATTERNS:
        raise argument_error(func, "pattern", f"one of {', '.join(PATTERNS)}", pattern)
    spec = next(s for s in SPECS if s.name == algorithm)
    mech = build_mechanism(spec)
    out = []
    for m in queries:
        m = check_int(func, "queries", m, 1)
        a, b = pattern_pair(pattern, m)
        out.append((m, pair_loss(mech, pattern, a, b)))
    return tuple(out)
