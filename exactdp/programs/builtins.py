"""The built-ins of the program language: ``argmax``, ``argmin``, ``max_value`` and
``topk`` over noisy values, each value a data term plus one fresh draw
(:mod:`exactdp.programs.draws`).

Traced symbolically each is one run per winner (per ordered k-tuple for ``topk``): a star
centred at the winner's noise, or for ``topk`` with ``k >= 3`` a chain integrated leaf
first (:mod:`exactdp.programs.integrate_tree`); under ``sample`` the literal ranking of the
drawn values. Outside a program each raises :class:`~exactdp.programs.values.ProgramError`.
"""

from __future__ import annotations

from typing import Any

from .values import ProgramError, active, user_line


def argmax(values: object) -> int:
    """The index of the largest value; each value a data term plus one fresh noise.

    One run per winner ``w``: ``v_w - v_j > 0`` for ``j < w`` and ``v_w - v_j >= 0`` for
    ``j > w`` (ties: the first index, which matters for discrete noise only). The runs are
    stars centred at the winner's noise, in the exact class.

    Parameters
    ----------
    values : sequence of noisy values, length n >= 1
        Each ``a_i + Z_i`` with its own fresh draw (:func:`~exactdp.programs.draws.laplace`,
        ``exponential``, ``discrete_laplace`` or ``gumbel``).

    Returns
    -------
    int
        The winner's index in ``range(n)``.

    Raises
    ------
    ProgramError
        An empty or non-sequence ``values``, or values sharing a draw: one line naming the
        program's line.

    References
    ----------
    C. Dwork and A. Roth, *The algorithmic foundations of differential privacy*, 2014, 3.3.

    Examples
    --------
    >>> from exactdp.programs import program, argmax, laplace
    >>> @program(output="selection")
    ... def rnm(q, epsilon):
    ...     return argmax([a + laplace(2 / epsilon) for a in q])
    >>> rnm(epsilon=1).distribution([0, 1]).probabilities
    (5*exp(-1/2)/8, 1 - 5*exp(-1/2)/8)
    """
    return active("argmax").select(_values(values, "argmax"), False)


def argmin(values: object) -> int:
    """The index of the smallest value (ties: the first index); as :func:`argmax` with the
    comparisons reversed.

    Parameters
    ----------
    values : sequence of noisy values, length n >= 1
        As for :func:`argmax`.

    Returns
    -------
    int
        The index of the smallest value (errors as :func:`argmax`).

    Examples
    --------
    >>> from exactdp.programs import program, argmin, laplace
    >>> @program(output="selection")
    ... def rnm_min(q, epsilon):
    ...     return argmin([a + laplace(2 / epsilon) for a in q])
    >>> rnm_min(epsilon=1).distribution([0, 1]).probabilities
    (1 - 5*exp(-1/2)/8, 5*exp(-1/2)/8)
    """
    return active("argmin").select(_values(values, "argmin"), True)


def max_value(values: object) -> Any:
    """The largest value itself, the noisy maximum: ``values[argmax(values)]``, for a
    program declared ``output="release"``.

    One run per winner, each releasing the winner's noisy value; the release engine reads
    these runs together as the density of ``max_j (a_j + Z_j)``, the derivative of the
    product of the CDFs (:mod:`exactdp.programs.release_max`).

    Parameters
    ----------
    values : sequence of noisy values, length n >= 1
        As for :func:`argmax`.

    Returns
    -------
    noisy value
        The winner's value (under ``sample``, the largest drawn value).

    Raises
    ------
    ProgramError
        As :func:`argmax`.

    References
    ----------
    Y. Wang, Z. Ding, G. Wang, D. Kifer, D. Zhang, "Proving differential privacy with
    shadow execution", PLDI 2019 (report-noisy-max returning the value).

    Examples
    --------
    >>> import exactdp
    >>> from exactdp.programs import program, max_value, laplace
    >>> @program(output="release")
    ... def top(q, epsilon):
    ...     return max_value([a + laplace(2 / epsilon) for a in q])
    >>> exactdp.privacy_loss(top(epsilon=1), [0, 0, 0], [1, 1, 1]).loss
    3/2
    """
    vals = _values(values, "max_value")  # priced as a released maximum (release_max)
    return vals[active("max_value").select(vals, False, value=True)]


def topk(values: object, k: int) -> tuple[int, ...]:
    """The indices of the ``k`` largest values, largest first (ties: the lower index ranks
    higher); each value a data term plus one fresh noise. One run per ordered k-tuple
    ``(w_1, ..., w_k)`` (``n!/(n-k)!`` runs, counted against the run limit before any
    integral), with the chain ``v_w1 >= v_w2 >= ... >= v_wk`` and ``v_wk >= v_j`` for
    every other j (strict where the lower index ranks lower). ``k <= 2`` is a star
    centred at ``v_w2``; ``k >= 3`` is a chain, a tree of comparisons integrated leaf
    first (:mod:`exactdp.programs.integrate_tree`: innermost the losers below ``v_wk``,
    then each winner above the next), exact with Laplace and exponential noise.
    ``topk(values, 1)`` is ``(argmax(values),)``.

    .. math:: \\Pr[(w_1, \\dots, w_k)] = \\int_{y_1 > \\dots > y_k} \\prod_{i=1}^{k}
              f_{w_i}(y_i) \\prod_{j \\notin w} F_j(y_k)\\, dy

    (``f_i``, ``F_i`` the density and CDF of ``v_i``; Dwork and Roth 2014, section 3.3).

    Parameters
    ----------
    values : sequence of noisy values, length n >= 1
        Each a data term plus one fresh draw (as for :func:`argmax`).
    k : int
        How many indices to report, ``1 <= k <= n``.

    Returns
    -------
    tuple of int, length k
        The indices, largest value first. Inside a traced program each ordered k-tuple is
        one run; under ``sample`` the literal ranking of the drawn values.

    Raises
    ------
    ProgramError
        ``k`` not an integer in ``[1, n]``, an empty or non-sequence ``values``, or values
        that are not one fresh noise each, each a one-line message naming the program's
        line. A chain of Gumbel or discrete noises (``k >= 3`` on more than three values)
        is refused by the integrator, naming the line (trees are integrated for Laplace
        and exponential noise only).

    References
    ----------
    D. Ding, Y. Wang, Y. Xiao, G. Wang, D. Zhang and D. Kifer, "Free gap estimates from the
    exponential mechanism, sparse vector, noisy max and related algorithms", VLDB J. 2023
    (noisy top-k with gap). C. Dwork and A. Roth, "The Algorithmic Foundations of
    Differential Privacy", 2014, section 3.3 (report-noisy-max).

    Examples
    --------
    >>> from exactdp.programs import program, laplace, topk
    >>> @program(output="sequence")
    ... def top2(q, epsilon):
    ...     return topk([a + laplace(2 / epsilon) for a in q], 2)
    >>> d = top2(epsilon=1).distribution([0, 1])
    >>> d.outputs
    ((0, 1), (1, 0))
    >>> d.probabilities[0]
    5*exp(-1/2)/8

    Three of four: 24 ordered triples whose probabilities sum to 1 exactly.

    >>> @program(output="sequence")
    ... def top3(q, epsilon):
    ...     return topk([a + laplace(2 / epsilon) for a in q], 3)
    >>> d = top3(epsilon=1).distribution([0, 1, 2, 3])
    >>> len(d.outputs), d.outputs[0], sum(d.probabilities).expand()
    (24, (0, 1, 2), 1)
    >>> d.probabilities[0]
    -exp(-3)/192 + exp(-2)/16
    """
    vals = _values(values, "topk")
    if not (isinstance(k, int) and not isinstance(k, bool) and 1 <= k <= len(vals)):
        more = (isinstance(k, int) and not isinstance(k, bool) and k > len(vals))
        raise ProgramError(f"{user_line()}: topk(values, k) needs an integer k with 1 <= k "
                           f"<= len(values) = {len(vals)}, got k = {k!r}"
                           + (f" (more than the {len(vals)} values)" if more else ""))
    return active("topk").select(vals, False, k)


def _values(values: object, func: str) -> list[Any]:
    try:
        out = list(values)  # type: ignore[call-overload]
    except TypeError:
        raise ProgramError(f"{user_line()}: {func} takes a sequence of values") from None
    if not out:
        raise ProgramError(f"{user_line()}: {func} of an empty sequence")
    return out
