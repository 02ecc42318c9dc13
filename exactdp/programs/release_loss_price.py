"""Which patterns of a pair the release loss computes, in what order, and their price.

:func:`~exactdp.programs.release_loss.loss_supremum` computes a pair's patterns by their
translation bounds (:func:`~exactdp.programs.release_bound.ordered_patterns`, the largest
first) and skips a pattern whose bound a loss already found reaches (:func:`reaches`): no
output of it can exceed that loss. :class:`Ahead` reads the cell ends of the one-value
patterns that follow one group's first, a certified lower bound on the loss that proves
more of them below it. :class:`Meter` prices the patterns left as the loss runs
(:func:`pattern_seconds` each), so its start line neither cries wolf on a pair whose first
patterns settle the rest nor stays silent on a long one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from time import process_time
from typing import Any

import flint
import sympy

from ..exact import flint_prec, to_arb
from ..exact.signs import compare
from ..progress import LINE_SECONDS, start_line
from .integrate import run_cost
from .release_below import ends_level
from .release_chain import exponential_chain
from .release_classes import representatives
from .release_cost import ONE_VALUE_SECONDS, loss_seconds
from .release_patterns import real_count
from .release_select import Candidate, abs_ball, log_sign
from .release_sup import prec
from .release_two_cost import plane_shape
from .runs import Run


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


#: CPU seconds a pair's loss runs before its start line may be printed (:class:`Meter`): a
#: loss done sooner says nothing, whatever its patterns' prices.
PROBE_SECONDS = 1.0


def pattern_seconds(runs_p: Sequence[Run], runs_q: Sequence[Run]) -> float:
    """Estimated seconds of the loss's work on one pattern of a pair: :func:`~exactdp.
    programs.release_cost.loss_seconds` of its runs on the first input, each at the
    search's price where the pattern releases two values and its runs are not all the
    plane's (:func:`~exactdp.programs.release_two_cost.plane_shape` of both inputs: the plane
    route declines the pattern at once; AdaptiveSVT c = 2 at 3 answers, ``(False, REAL,
    REAL)``: 24 s priced per run, 0.3 s CPU, the search's 294 densities).

    Parameters
    ----------
    runs_p, runs_q : sequence of Run
        The pattern's runs on the two inputs.

    Returns
    -------
    float
        The estimated CPU seconds.

    Examples
    --------
    >>> import sympy
    >>> from exactdp.programs import library_release as L
    >>> from exactdp.programs.release_cost import loss_seconds
    >>> from exactdp.programs.runs import REAL
    >>> m = L.adaptive_svt(epsilon=1, threshold=0, c=2)
    >>> d, o = m.distribution([0, 0, 0]), m.distribution([0, 0, 1])
    >>> key = next(k for k, p in zip(d.keys, d.outputs) if p == (False, REAL, REAL))
    >>> per_run = sum(loss_seconds(r) for r in d.runs[key])
    >>> round(per_run), pattern_seconds(d.runs[key], o.runs[key]) < per_run / 10
    (24, True)
    """
    plane = not runs_p or len(runs_p[0].released) != 2 or plane_shape(runs_p, runs_q)
    return sum(loss_seconds(r, plane) for r in runs_p)


#: Most runs (both inputs) whose pattern classes :func:`pair_seconds` reads (their
#: canonical forms, about 1 ms a run: SVT34Parallel c = 2 at 6 answers, 968 runs in
#: 0.46 s), so that a refusal stays within 2 s.
CLASS_RUNS = 1000


def pair_seconds(runs: Sequence[Run], other: Sequence[Run], pair: Sequence[Any] = ()
                 ) -> float:
    """The price of a pair's loss over every pattern it computes (the refusal's: an upper
    bound, before any bound or work): :func:`pattern_seconds` of each pattern of ``runs``
    against its runs in ``other``, :func:`~exactdp.programs.release_cost.loss_seconds` of
    a pattern of ``runs`` alone; with the pair's distributions ``pair`` (and at most
    :data:`CLASS_RUNS` runs), only the first pattern of each class of
    :func:`~exactdp.programs.release_classes.representatives`: the loss reads those alone.
    AdaptiveSVT c = 2 at 3 answers, ``0 0 0`` vs ``0 0 1``: 18.5 s, 63 s per run, 0.9 s
    CPU; GapSVT c = 2 at 12 answers, ``1^6 0^6`` vs ``0^6 1^6``: 8.6 s for 19 of 79
    patterns, 36.6 s for all, 0.86 s CPU.

    Parameters
    ----------
    runs, other : sequence of Run
        The two inputs' runs.
    pair : sequence
        The two inputs' release distributions (empty: every pattern priced).

    Returns
    -------
    float
        The estimated CPU seconds.

    Examples
    --------
    >>> from exactdp.programs import library_release as L
    >>> from exactdp.programs.release_cost import loss_seconds
    >>> m = L.adaptive_svt(epsilon=1, threshold=0, c=2)
    >>> pair = [m.distribution(q) for q in ([0, 0, 0], [0, 0, 1])]
    >>> a, b = (m.trace(d.scores).runs for d in pair)
    >>> round(sum(map(loss_seconds, a))), round(pair_seconds(a, b)), round(pair_seconds(
    ...     a, b, pair))
    (66, 19, 19)
    """
    if pair and len(runs) + len(other) <= CLASS_RUNS:
        kept = set(representatives(*pair)[0].keys)
        runs = [r for r in runs if r.output in kept]
    mine: dict[Any, list[Run]] = {}
    theirs: dict[Any, list[Run]] = {}
    for group, rs in ((mine, runs), (theirs, other)):
        for run in rs:
            group.setdefault(run.output, []).append(run)
    return sum((pattern_seconds(rs, theirs[key]) if key in theirs else
                sum(loss_seconds(r) for r in rs) for key, rs in mine.items()), 0.0)


def cells_seconds(runs: Sequence[Run]) -> float:
    """The part of a one-value pattern's price paid before its critical points (its cells,
    their ends and the proofs below a loss found): its runs' integrals and densities and
    :data:`~exactdp.programs.release_cost.ONE_VALUE_SECONDS` each (the bad AdaptiveSVT at
    10 answers: 0.04 s CPU for the top pattern's cells, 2.8 s priced with its critical
    points, which the cell ends make needless there).

    Parameters
    ----------
    runs : sequence of Run
        The pattern's runs on the first input.

    Returns
    -------
    float
        The estimated CPU seconds.
    """
    return sum(run_cost(r) + 1e-4 * (len(r.draws) + len(r.constraints)) + ONE_VALUE_SECONDS
               for r in runs)


#: Seconds of a one-value pattern's critical-point search per product ``len(f) len(g)`` of
#: its cells' terms (:func:`critical_seconds`): the derivative ``f' g - f g'`` has about
#: that many terms, each enclosed about 150 times over a cell's bisections at 1.4 us.
CRITICAL_TERM_SECONDS = 1.2e-4


def critical_seconds(pieces: Sequence[tuple[Any, ...]]) -> float:
    """Estimated seconds of the critical-point search of a one-value pattern whose cells
    are known (``(f, g, lam, lo, hi, d)`` each): :data:`CRITICAL_TERM_SECONDS` times the
    sum over its cells of ``len(f) len(g)`` (the bad AdaptiveSVT at 10 answers, ``1^10``
    vs ``2 0^9``: 168,179 products, 20 s priced, 17.9 s CPU; the price of its runs said
    2.8 s; AdaptiveSVT at 10 answers: 340, 0.04 s priced, 0.03 s CPU).

    Parameters
    ----------
    pieces : sequence of tuples
        The pattern's cells (their densities ``f``, ``g`` first).

    Returns
    -------
    float
        The estimated CPU seconds.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> f = {(F(1), F(0)): (F(1),), (F(0), F(0)): (F(2),)}
    >>> critical_seconds([(f, f, F(1), None, None, {}), (f, {}, F(1), None, None, {})])
    0.00048
    """
    return CRITICAL_TERM_SECONDS * sum(len(p[0]) * len(p[1]) for p in pieces)


@dataclass
class Meter:
    """The running estimate of one pair's loss, pattern by pattern, and its start line.

    The loss computes its patterns by their translation bounds and skips those a loss
    found reaches (:func:`reaches`); a price summed over every pattern cries wolf (GapSVT
    c = 2 at 12 answers: 55 s for 0.86 s CPU, 5 of 19 patterns computed). So off a
    terminal the start line (:func:`~exactdp.progress.start_line`) waits until the loss
    has run :data:`PROBE_SECONDS` CPU, or is about to start a step that alone would take
    it past :data:`~exactdp.progress.LINE_SECONDS`, and then states the CPU seconds spent
    plus the prices of the patterns left whose bound exceeds the loss found (the critical
    points alone of a one-value pattern whose cells are done): a loss done within a second
    prints nothing, a long one says so within a second or before its long step (or, a
    step priced within the line's seconds, after it).

    Attributes
    ----------
    func : str
        The loss's name, first on the line.
    bounds : dict
        Each pattern's translation bound (None: none).
    first : dict
        Each pattern's price before its critical points (:func:`cells_seconds` for one
        released value, else its whole :func:`pattern_seconds`).
    critical : dict
        Each one-value pattern's price of its critical points (else 0), replaced by
        :func:`critical_seconds` once its cells are known.
    values : dict
        Each pattern's number of released values.

    Examples
    --------
    >>> import sympy
    >>> m = Meter("loss", {"a": sympy.Integer(1), "b": sympy.Rational(1, 2)},
    ...           {"a": 0.5, "b": 9.0}, {"a": 3.0, "b": 0.0}, {"a": 1, "b": 2})
    >>> m.left(["a", "b"], [], None), m.left(["b"], ["a"], 0.75), m.left(["b"], [], 0.5)
    (12.5, 3.0, 0.0)
    """

    func: str
    bounds: dict[Any, sympy.Expr | None]
    first: dict[Any, float]
    critical: dict[Any, float]
    values: dict[Any, int]
    start: float = field(default_factory=process_time)
    shown: bool = False
    again: float = 0.0  # the CPU seconds spent before the next pricing of the patterns left

    def __post_init__(self) -> None:
        self.floats = {k: None if b is None else float(b) for k, b in self.bounds.items()}

    def open(self, key: Any, level: float | None) -> bool:
        """Whether the pattern ``key`` may still be computed: no bound, its bound above
        ``level`` (a float estimate: the price is not exact), or no loss found and a bound
        above 0 (a bound 0 is reached by the first candidate of any pattern before it)."""
        b = self.floats[key]
        return b is None or b > (0 if level is None else level)

    def left(self, first: Iterable[Any], critical: Iterable[Any], level: float | None
             ) -> float:
        """The prices of the patterns ``first`` (whole) and ``critical`` (their critical
        points) still open at ``level`` (:meth:`open`).

        Parameters
        ----------
        first, critical : iterable
            Pattern keys.
        level : float or None
            The lower end of the loss found (None: none).

        Returns
        -------
        float
            Estimated CPU seconds.
        """
        whole = sum((self.first[k] + self.critical[k] for k in first if self.open(k, level)),
                    0.0)
        return whole + sum((self.critical[k] for k in critical if self.open(k, level)), 0.0)

    def check(self, ordered: Sequence[tuple], n: int, pending: Sequence[tuple], i: int,
              t: Candidate | None, step: float) -> None:
        """Before a step priced ``step`` seconds, with the patterns left the keys of
        ``ordered[n:]`` (whole) and ``pending[i:]`` (their critical points; :meth:`left`,
        each item a tuple of its key first, read only when needed: a loss of many patterns
        pays no quadratic price) and ``t`` the best candidate found: print the start line
        once, when the loss has run :data:`PROBE_SECONDS` or this step alone would take it
        past :data:`~exactdp.progress.LINE_SECONDS`, and the seconds spent plus those left
        exceed that (a step priced within it may run first: the plane's price of
        AdaptiveSVT c = 2 at 3 answers, ``(REAL, REAL, False)``, is 4.1 s for its 0.2 s
        CPU). Past :data:`PROBE_SECONDS` the patterns left are priced again every quarter
        of it at most."""
        if self.shown:
            return
        spent = process_time() - self.start
        if spent + step <= LINE_SECONDS and (spent < PROBE_SECONDS or spent < self.again):
            return
        self.again = spent + PROBE_SECONDS / 4
        total = spent + self.left((x[0] for x in ordered[n:]), (x[0] for x in pending[i:]),
                                  price_level(t))
        if total > LINE_SECONDS:
            self.shown = True
            start_line(self.func, None, total)

    def plane(self, ordered: Sequence[tuple], n: int, t: Candidate | None, price: float,
              budget: float) -> None:
        """The start line of the plane route on two gaps (:mod:`~exactdp.programs.
        release_chain_plane`), as it starts on the first pattern its rays leave open:
        the seconds spent, the patterns ``ordered[n:]`` (keys first; this one first) still
        open at ``t``,
        and ``price`` the route's seconds a pattern, for each of them that releases two
        values, at most ``budget`` in all (noisy top-k with gap, k = 3, ``1^5`` vs ``2 0 2 0
        1``: 20-36 s CPU, where the route's budget said 78 s)."""
        lev, keys = price_level(t), [x[0] for x in ordered[n:]]
        two = sum(1 for k in keys if self.values[k] == 2 and self.open(k, lev))
        total = process_time() - self.start + self.left(keys, (), lev) + min(
            budget, price * two)
        self.shown = True  # the loss adds no line after this one (it prices them all)
        start_line(f"{self.func} (the plane route on two gaps)", None, total)


def price_level(t: Candidate | None) -> float | None:
    """The lower end of ``|ln f/f'|`` of the candidate ``t`` as a float (None: none, or
    infinite), for prices only (:meth:`Ahead.level` is the certified ball the proofs read).

    Parameters
    ----------
    t : Candidate or None
        The best candidate found so far.

    Returns
    -------
    float or None
        The lower end.
    """
    if t is None or t.infinite:
        return None
    with flint_prec(prec()):
        return float(abs_ball(t).lower())
