"""What a program's declaration refuses, in one line each, before any run is traced.

:func:`program_epsilon` checks the claimed level when the mechanism is made: > 0 and
finite (a program's noise scales such as ``2/epsilon`` have no value at 0 or oo, where the
shipped mechanisms' closed forms have exact limits), and at most a declared
``max_epsilon`` (a flip probability ``(1 - epsilon)/2`` must stay in [0, 1]).
:func:`program_answers` checks the answers when a distribution is asked for: rational, in
the declared ``domain``, and integers under ``score_domain="integer"`` (randomized
response takes bits, not a score of 1/2).
"""

from __future__ import annotations

from typing import Any

import sympy

from .._validate import argument_error
from ..numbers import exact_epsilon, exact_epsilon_or_limit
from ..scores import ScoreVector, as_scores, check_score_domain

#: Why a program refuses epsilon 0 and oo (the shipped mechanisms take them as limits).
NO_LIMITS = ("its noise scales, such as 2/epsilon, have no value there: 0 and oo are exact "
             "limits of the shipped mechanisms only")


def program_epsilon(func: str, value: object, max_epsilon: Any = None) -> sympy.Expr:
    """The claimed privacy level of a program: an exact number > 0 and finite (at most
    ``max_epsilon`` when declared), or a positive Symbol.

    Parameters
    ----------
    func : str
        The program's name (the message starts with it).
    value : object
        The ``epsilon`` given.
    max_epsilon : sympy number or None
        The program's declared bound (``@program(max_epsilon=1)``).

    Returns
    -------
    sympy.Expr

    Raises
    ------
    ValueError
        One line: 0 or oo (the difference from the shipped mechanisms said), a value
        :func:`exactdp.numbers.exact_epsilon` refuses, or a number above ``max_epsilon``
        (a Symbol passes: only a definitely false bound is refused).

    Examples
    --------
    >>> program_epsilon("svt1", 0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: svt1: epsilon must be > 0 and finite for a program (its noise scales, ...
    """
    try:
        eps = exact_epsilon(value, func)
    except ValueError:
        try:
            limit = exact_epsilon_or_limit(value, func)
        except ValueError:
            limit = None
        if limit is not None and (limit == 0 or limit == sympy.oo):
            raise argument_error(func, "epsilon", f"> 0 and finite for a program "
                                 f"({NO_LIMITS})", limit) from None
        raise
    if max_epsilon is not None and (eps > max_epsilon) is sympy.true:
        raise argument_error(func, "epsilon", f"<= {max_epsilon} (the program declares "
                             f"max_epsilon={max_epsilon})", value)
    return eps


def program_answers(mechanism: Any, scores: object, func: str) -> ScoreVector:
    """The answers ``scores`` checked against what ``mechanism``'s program declares.

    Parameters
    ----------
    mechanism : ProgramMechanism
        Read: ``domain`` (``(lo, hi)`` or None) and ``score_domain`` (``"real"`` or
        ``"integer"``).
    scores : sequence of numbers
    func : str
        The function the user called (the message starts with it).

    Returns
    -------
    ScoreVector

    Raises
    ------
    ValueError
        One line: invalid or irrational answers, an answer outside the declared domain,
        or a non-integer answer under ``score_domain="integer"``.
    """
    sv = as_scores(scores, "scores", func)
    if not sv.is_rational:
        i, v = next((i, v) for i, v in enumerate(sv.exact) if not v.is_Rational)
        raise ValueError(f"{func}: answer {i} is {v}: the exact analysis of a program needs "
                         "rational answers")
    check_score_domain(mechanism.score_domain, sv, func, owner=mechanism.name)
    dom = mechanism.domain
    if dom is not None:
        for i, v in enumerate(sv.exact):
            if not dom[0] <= v <= dom[1]:
                raise argument_error(func, f"scores[{i}]", f"in the declared domain "
                                     f"[{dom[0]}, {dom[1]}]", v)
    return sv
