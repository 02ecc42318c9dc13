"""Which patterns of a pair the release loss computes, and in what order.

:func:`~exactdp.programs.release_loss.loss_supremum` computes a pair's patterns by their
translation bounds (:func:`~exactdp.programs.release_bound.ordered_patterns`, the largest
first) and skips a pattern whose bound a loss already found reaches (:func:`reaches`): no
output of it can exceed that loss. :class:`Ahead` reads the cell ends of the one-value
patterns that follow one group's first, a certified lower bound on the loss that proves
more of them below it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import flint
import sympy

from ..exact import flint_prec, to_arb
from ..exact.signs import compare
from .release_below import ends_level
from .release_chain import exponential_chain
from .release_patterns import real_count
from .release_select import Candidate, abs_ball, log_sign
from .release_sup import prec


def reaches(c: Candidate, bound: sympy.Expr) -> bool:
    """Whether ``|ln f/f'|`` of the candidate ``c`` is at least ``bound`` (exact for exact
    candidates; an enclosure must be decided above it): a pattern whose translation bound
    ``c`` reaches cannot raise the loss past ``c``.

    Parameters
    ----------
    c : Candidate
        A candidate of the loss (exact pair, enclosure or infinite).
    bound : sympy.Expr
        A numeric translation bound (:func:`~exactdp.programs.release_bound.pattern_bound`).

    Returns
    -------
    bool
        True when ``|ln f/f'| >= bound`` is proved, False otherwise.

    Examples
    --------
    >>> import sympy
    >>> from exactdp.programs.release_select import Candidate
    >>> c = Candidate((sympy.E, sympy.Integer(1)), None, 0, True, "here")  # |ln e / 1| = 1
    >>> reaches(c, sympy.Integer(1)), reaches(c, sympy.Rational(11, 10))
    (True, False)
    """
    if c.infinite:
        return True
    with flint_prec(prec()):
        ball, b = abs_ball(c), to_arb(bound, prec())
        if ball < b:
            return False
        if ball > b:
            return True
    if c.exact is None:
        return False
    big, small = c.exact if log_sign(c) >= 0 else c.exact[::-1]
    return compare(sympy.expand(big), sympy.expand(sympy.exp(bound) * small)) >= 0


@dataclass
class Ahead:
    """The cells of the one-value patterns that follow one just computed with the same
    translation bound (the next the loop computes, unless a loss found reaches the bound),
    and ``lows``: their largest ``|ln f/f'|`` at a cell end
    (:func:`~exactdp.programs.release_below.ends_level`), a certified lower bound on the
    loss. A pattern proved below it, before or after the one it comes from, is skipped:
    it cannot change the loss (an order by these would name another pair among ties). Not
    for a directional supremum (those ends may lie on the other side).

    Attributes
    ----------
    of : callable
        ``of(dist, other, key, func)``: the noise unit and the cells ``(f, g, lam, lo, hi,
        d)`` of a pattern (``release_loss``'s).
    cells : dict
        The cells fetched, by pattern key (the loop pops them).
    lows : list of flint.arb
        The lower bounds found.

    Examples
    --------
    >>> import flint
    >>> ahead = Ahead(lambda *a: None)
    >>> ahead.level(None) is None, ahead.lows
    (True, [])
    >>> ahead.lows.append(flint.arb(1, 0.5))
    >>> ahead.level(None).mid()
    1.00000000000000
    """

    of: Callable[[Any, Any, Any, str], tuple[sympy.Expr, list]]
    cells: dict[Any, tuple[sympy.Expr, list]] = field(default_factory=dict)
    lows: list[flint.arb] = field(default_factory=list)

    def level(self, t: Candidate | None) -> flint.arb | None:
        """The larger lower end of ``|t|`` and of :attr:`lows` (None: neither).

        Parameters
        ----------
        t : Candidate or None
            The best candidate found so far.

        Returns
        -------
        flint.arb or None
            The ball of the larger lower end, or None.
        """
        balls = ([] if t is None else [abs_ball(t)]) + self.lows
        return max(balls, key=lambda b: b.lower()) if balls else None

    def fetch(self, dist: Any, other: Any, later: list, bound: sympy.Expr | None,
              t: Candidate | None, func: str, sign: int = 0) -> None:
        """Once per loop, where ``bound`` is set, no loss found ``t`` reaches it, and
        the patterns ``later`` begin with one-value patterns of the same bound.

        Parameters
        ----------
        dist, other : ProgramRelease
            The pair's distributions.
        later : list of (key, bound)
            The patterns after the one just computed, in the loop's order.
        bound : sympy.Expr or None
            The translation bound of the one just computed.
        t : Candidate or None
            The best candidate found so far.
        func : str
            The calling function, for errors.
        sign : int
            The direction of a directional supremum (not 0: nothing fetched).
        """
        if self.cells or self.lows or sign or bound is None or (
                t is not None and reaches(t, bound)):
            return
        for key, b in later:
            if b != bound:
                break  # the bounds fall: the group ends
            pattern = dist.outputs[dist.keys.index(key)]
            if real_count(pattern) != 1 or exponential_chain(dist.runs[key], other.runs[key]):
                continue
            try:
                self.cells[key] = self.of(dist, other, key, func)
            except (ValueError, ArithmeticError):
                continue  # said again where the loop computes it
        found = [ends_level(p) for _, p in self.cells.values()]
        self.lows += [max((x for x in found if x is not None), key=lambda b: b.lower())
                      ] if any(x is not None for x in found) else []
