"""Two released gaps of Laplace noises (noisy top-k with gap, ``k = 3``): the plane's faces
where the rays leave the supremum open, and the faces still undecided shown below a loss
found.

The density of the gaps ``(g_1, g_2)`` of a chain (:mod:`exactdp.programs.release_chain`)
is one integral over the last chain value ``t`` of Laplace densities and CDFs whose
breakpoints ``t = a_j - G_j`` and ``t = a_i`` cut the quadrant of gaps into polygons by the
lines ``G_j = const`` and ``G_j - G_l = const``; on each polygon both inputs' densities are
exponential polynomials in ``(g_1, g_2)`` (Feller II, section I.2). The log ratio's
supremum over a closed polygon is at a vertex or on an edge (one-value problems), at an
interior critical point, or approached along a ray: :mod:`exactdp.programs.release_two`
decides every polygon where a direction along which the ratio is monotone is proved (then
no interior critical point matters). Its arrangement here has more lines than the plane's
default limit (the losers' breakpoints of both inputs): :data:`CHAIN_LINES`.

A polygon left undecided (no monotone direction proved, or a leading part with a zero
across it) is kept with its densities (:class:`Undecided`). Once the loss's best candidate
is known, :func:`below_level` proves ``f <= E g`` and ``g <= E f`` on the closed polygon by
boxes (:func:`~exactdp.programs.release_sign2d.nonnegative`) for a rational ``E <
exp(level)``: then ``|ln f/g| <= ln E`` is strictly below the loss found there, and the
polygon, interior critical points included, cannot change it (exact: no float decides).
A polygon that neither proof settles keeps the pattern's certified bracket, and the
bracket names it (:func:`undecided_text`).

The route is priced per pattern by :func:`chain_plane_seconds` and takes patterns while the
loss's budget :data:`CHAIN_PLANE_SECONDS` (estimated) lasts; its monotone proofs stop at
:data:`CHAIN_WORK` term enclosures a pattern (a polygon they leave open goes to
:func:`below_level`); the proofs stop at :data:`PRUNE_WORK` term
enclosures. Past either the pattern keeps its bracket: never a long silence.

References
----------
W. Feller, *An Introduction to Probability Theory and Its Applications II*, 1971, section
I.2. A. Schrijver, *Theory of Linear and Integer Programming*, 1986, section 8.9 (the
faces of a polyhedron). R. E. Moore, R. B. Kearfott and M. J. Cloud, *Introduction to
Interval Analysis*, SIAM 2009, chapter 5 (range enclosure by subdivision).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint

from ..cost import TooCostly
from ..progress import start_line
from .integrate import run_cost
from .release_face import Half, Terms2
from .release_sign2d import below_exp, within
from .release_two import two_candidates
from .release_two_cost import ENCLOSURE_SECONDS
from .runs import Run

#: Most lines of a chain's arrangement (5 answers, k = 3: up to 40 over both inputs).
CHAIN_LINES = 64
#: Estimated seconds of this route one loss may spend (:func:`chain_plane_seconds` per
#: pattern): past it a pattern keeps its bracket.
CHAIN_PLANE_SECONDS = 60.0
#: Term enclosures of the monotone-direction proofs on one pattern (about 1.2e-5 s each):
#: a polygon they leave open goes to :func:`below_level` (5 answers, k = 3: with the plane's
#: own 400,000 the tests' pair took 74 s; with 5,000 ``0 1 1 1 2`` vs ``1 0 2 0 2`` kept a
#: polygon of its top pattern undecided).
CHAIN_WORK = 40_000
#: Density pairs of one pattern's plane route (its cells and edges), measured at 5
#: answers, k = 3 (the plane's own :data:`~exactdp.programs.release_two_cost.PLANE_FACTOR`
#: counts the proofs too).
CHAIN_FACTOR = 35.0
#: Boxes of one proof of :func:`below_level`.
PRUNE_BOXES = 20_000
#: Most term enclosures of :func:`below_level`'s proofs on one loss (about 1.2e-5 s each).
PRUNE_WORK = 1_500_000


@dataclass(frozen=True)
class Undecided:
    """A polygon of two released gaps whose supremum the plane route left open.

    Attributes
    ----------
    label : str
        Its pattern.
    point : tuple of Fraction
        A point inside it.
    f, g : Terms2
        The two inputs' densities on it.
    halves : list of Half
        Its closed polygon, ``a + b u + c v >= 0`` each.
    lam : Fraction
        The rate unit of the terms.
    """

    label: str
    point: tuple[Fraction, Fraction]
    f: Terms2
    g: Terms2
    halves: list[Half]
    lam: Fraction


def chain_plane_seconds(run: Run) -> float:
    """Estimated seconds of this route on the pattern of ``run`` (both inputs):
    :data:`CHAIN_FACTOR` density pairs of the run (the cells, the edges' one-value problems)
    and :data:`CHAIN_WORK` term enclosures at :data:`~exactdp.programs.release_two_cost.
    ENCLOSURE_SECONDS` (5 answers, k = 3: 0.81 s estimated a pattern; about 1 s CPU a
    pattern measured over the 28 patterns of the tests' pair, proofs below the loss
    included).

    Parameters
    ----------
    run : Run
        A run of the pattern (its draws, constraints and cost stand for both inputs').

    Returns
    -------
    float
        The estimated CPU seconds of the plane route on the pattern.

    Examples
    --------
    >>> import exactdp.programs.library_release as L
    >>> d = L.noisy_top_k_gap(epsilon=1, k=3).distribution([0, 1, 2, 3])
    >>> 0 < chain_plane_seconds(d.runs[d.keys[0]][0]) < 1
    True
    """
    each = 2 * (1e-4 * (len(run.draws) + len(run.constraints)) + run_cost(run))
    return CHAIN_FACTOR * each + CHAIN_WORK * ENCLOSURE_SECONDS


def plane_chain(runs_p: Sequence[Run], runs_q: Sequence[Run], label: str, func: str,
                tools: Any, budget: list[float]) -> tuple[list[Any], list[Undecided]] | None:
    """The plane route on a pattern of two released gaps (module docstring): its candidates
    and the polygons it left undecided (none: the candidates settle the pattern), or None
    when the route does not apply, its price exceeds what is left of ``budget`` (seconds,
    one list for one loss, decreased here), or its arrangement is past its limits.

    Parameters
    ----------
    runs_p, runs_q : sequence of Run
        The pattern's runs on the two inputs (one each, releasing two values, for the
        route to apply).
    label : str
        The pattern's label, kept in each :class:`Undecided`.
    func : str
        The name of the calling function, shown in the progress line.
    tools : Any
        Passed on to :func:`~exactdp.programs.release_two.two_candidates`.
    budget : list of float
        One element: the seconds left for this loss; the route's price is subtracted in
        place when it runs.

    Returns
    -------
    tuple of (list, list of Undecided) or None
        The candidates and the undecided polygons, or None when the route does not apply,
        is over budget or past its limits.
    """
    if len(runs_p) != 1 or len(runs_q) != 1 or len(runs_p[0].released) != 2:
        return None
    price = chain_plane_seconds(runs_p[0])
    if price > budget[0]:
        return None
    if budget[0] == CHAIN_PLANE_SECONDS:  # the first pattern the rays left open: the
        # route may spend its whole budget and the proofs below the loss (never silent);
        # the loss's own line prices the patterns left (release_loss_price.Meter.plane)
        line = getattr(tools, "line", None)
        if line is not None:
            line(price)
        else:
            start_line(f"{func} (the plane route on two gaps)", None,
                       CHAIN_PLANE_SECONDS + PRUNE_WORK * ENCLOSURE_SECONDS)
    budget[0] -= price
    raw: list[Any] = []
    try:
        two = two_candidates(runs_p, runs_q, label, func, tools, CHAIN_LINES, raw, CHAIN_WORK)
    except TooCostly:
        return None
    if two is None:
        return None
    return two[0], [Undecided(label, p, f, g, hs, lam) for p, f, g, hs, lam in raw]


def below_level(faces: Sequence[Undecided], level: flint.arb, spent: list[int]) -> bool:
    """Whether ``|ln f/g| < level`` is proved on every closed polygon of ``faces``: ``E g -
    f >= 0`` and ``E f - g >= 0`` (:func:`~exactdp.programs.release_sign2d.nonnegative`)
    with a rational ``E < exp(level)``. ``level``: a lower bound of the loss found (an arb
    ball); ``spent``: the proofs' term enclosures so far (at most :data:`PRUNE_WORK`).

    Parameters
    ----------
    faces : sequence of Undecided
        The polygons to prove below the level.
    level : flint.arb
        A lower bound of the loss found.
    spent : list of int
        One element: the term enclosures spent so far, increased in place.

    Returns
    -------
    bool
        True when ``|ln f/g| < level`` is proved on every polygon, else False.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> f = {(F(-1), F(0), F(0)): {(0, 0): F(1)}}  # e^-u
    >>> g = {(F(-1), F(0), F(0)): {(0, 0): F(1)}, (F(-2), F(0), F(0)): {(0, 0): F(1, 2)}}
    >>> box = [(F(0), F(1), F(0)), (F(0), F(0), F(1)), (F(1), F(-1), F(0)), (F(1), F(0), F(-1))]
    >>> face = Undecided("p", (F(1, 2), F(1, 2)), f, g, box, F(1))  # g/f in [1, 3/2]
    >>> below_level([face], flint.arb("0.5"), [0]), below_level([face], flint.arb("0.3"), [0])
    (True, False)
    """
    e = below_exp(level)
    if e is None:
        return not faces
    return all(within(face.f, face.g, face.halves, face.lam, e, PRUNE_BOXES, spent,
                      PRUNE_WORK) for face in faces)


def undecided_text(faces: Sequence[Undecided]) -> str:
    """The bracket's reason: the undecided polygons, each by a point inside it.

    Parameters
    ----------
    faces : sequence of Undecided
        The undecided polygons (the first three named by their points).

    Returns
    -------
    str
        The reason's text.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> undecided_text([Undecided("p", (F(1, 8), F(3, 8)), {}, {}, [], F(1))])[:46]
    'its polygon of gaps near (1/8, 3/8) left undec'
    """
    where = ", ".join(f"({p[0]}, {p[1]})" for p in (x.point for x in faces[:3]))
    more = f" and {len(faces) - 3} more" if len(faces) > 3 else ""
    word = "polygon" if len(faces) == 1 else "polygons"
    return (f"its {word} of gaps near {where}{more} left undecided: no monotone direction "
            "proved, not shown below the loss found")
