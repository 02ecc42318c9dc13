"""The verification suite's search: the pairs of one program of the library, exactly.

The suite (:func:`exactdp.verification_suite`, :mod:`exactdp.audit.verification`) runs every
program of the library (:func:`library`: :data:`exactdp.programs.library.PROGRAMS` and
:data:`exactdp.programs.library_release.PROGRAMS`, read generically: a program added to
either becomes a row) at the DP-testing tools' settings (:data:`SETTINGS`: claimed epsilon
0.1; 5 scores for noisy max, 10 queries for the sparse vector programs, c = 1).

The search of a row (:func:`search_program`): StatDP's input patterns
(:func:`~exactdp.audit.suite_specs.patterns`, for adjacency ``"all"``; for monotonic programs
those moving one way), for order-sensitive programs each also with its positions reversed
(the sparse vector's worst pairs put the odd query last: ``1^10`` vs ``2^9 0``), plus
:func:`exactdp.check_dp`'s heuristic neighbour search from ``(1, ..., 1)``
(:func:`~exactdp.analysis.neighbourhood.heuristic_moves`: 152 neighbours at 10 queries)
where it fits the row's 1 s CPU budget. For a program releasing real values (and the
sparse vector rows) a pair whose cheap rigorous upper bound is below a loss already found
is skipped, counted as "screened out" (:func:`_patterns`, :func:`_screen`). The loss of a
pair is :func:`exactdp.privacy_loss`: for a program releasing real values the exact
supremum of the log density ratio, or a certified bracket; a pair the engine refuses is
recorded with its reason and the row goes on.

Route: a program whose docstring states that it equals a shipped class
(:data:`SETTINGS`, ``equivalent``) is computed on that class, whose closed forms are the
same (``tests/audit/test_program_suite.py`` checks the two routes give the same exact
loss); the others on the program itself. The sparse vector variants that never stop (SVT5,
SVT6: 1024 answer sequences at 10 queries) take each pair's loss from the class's
one-threshold closed forms (``closed_forms``, :func:`~exactdp.analysis.one_threshold.
one_threshold_loss`: the same loss, expression and output as :func:`exactdp.privacy_loss`,
without the program engine's 1024 runs); the route says so.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

import sympy

from .._validate import argument_error
from ..analysis import check_dp
from ..analysis.common import score_vector
from ..analysis.neighbourhood import neighbour_list
from ..analysis.one_threshold import one_threshold_loss
from ..exact import compare
from ..mechanisms import REGISTRY, Mechanism
from ..programs import library as discrete
from ..programs import library_release as release
from ..programs.release_tidy import quick
from ..result_text import cut_text
from .suite import PairLoss, named_loss, output_text, pair_loss, worst_pair
from .suite_specs import CLAIM, patterns

#: The label of check_dp's heuristic search in a row.
HEURISTIC = "check_dp heuristic"
#: The suffix of a pattern searched with its positions reversed.
MIRRORED = " (mirrored)"
#: The suffix of a pattern's move searched from the X shape's first input.
REBASED = " (from the X shape's input)"
#: The name of the pattern ``1^m`` vs ``0^h 2^(m-h)`` after its ``h`` (``below``).
BELOW = "{} below rest above"
#: Why a pair was skipped (:func:`_patterns`): a translation of the noises, an enclosure of
#: the loss, or exact losses on the patterns a translation leaves, below a loss found.
SCREENED = "a rigorous upper bound below a loss found"
#: Why the patterns after an infinite loss are not searched.
INFINITE = "a pattern's loss is already infinite"
#: CPU seconds after which a row stops searching (a program added without a setting may be
#: slow at the tools' sizes): the pairs left are said in the row, never silently dropped.
ROW_LIMIT = 10.0


@dataclass(frozen=True)
class SuiteSetting:
    """How the suite runs one program.

    Attributes
    ----------
    parameters : mapping
        The program's parameters besides ``epsilon`` (the tools' settings).
    queries : int or None
        The number of answers; None: 10 for adjacency ``"all"``, 3 otherwise.
    base : tuple or None
        The answers the search starts from; None: ``(1, ..., 1)``.
    dipc : mapping
        Parameters overridden on DiPC's domain (DiPC's threshold is 0).
    equivalent : tuple of (str, mapping) or None
        A registered class and its parameters that equal the program (its docstring says
        so): the faster route.
    mirror : bool
        Also search each pattern with its positions reversed (order-sensitive programs: the
        sparse vector's worst pairs put the odd query last).
    rebase : bool
        Also search each pattern's move from the X shape's first input ``(1^h 0^(m-h))``
        (:data:`REBASED`): SVT6's worst pair starts there.
    below : int
        Also search ``1^m`` vs ``0^h 2^(m-h)``, ``h = below`` (:data:`BELOW`): noisy top-k's
        worst pair puts its ``k`` released indices below the rest.
    screen : bool
        Skip the pairs of a release program whose cheap upper bound is below a loss found
        (:func:`_patterns`; False where the bounds cost more than the losses, measured).
    bound : bool
        The mechanism's distributions bound a pair's loss cheaply (``loss_upper_bound``:
        the sparse vector's translation of the noises, or an arb enclosure of the loss
        from its one-threshold closed forms): its pairs are screened as a release
        program's (:func:`_patterns`).
    bound_heuristic : bool
        Pass check_dp's heuristic neighbours through the ``bound`` screen too
        (:func:`_screened_heuristic`) instead of running check_dp: where the bound is the
        upper end of an enclosure of the loss (within about 1e-37 of it), so that only the
        neighbours reaching the worst loss are computed.
    heuristic : bool
        Run :func:`exactdp.check_dp`'s heuristic search (False: over the row's 1 s CPU
        budget at these settings, measured; the row says so).
    closed_forms : bool
        Compute a pair's loss from the one-threshold closed forms
        (:func:`~exactdp.analysis.one_threshold.one_threshold_loss`: the same loss, sympy
        form and output as :func:`exactdp.privacy_loss`, without the program engine's one
        run per answer sequence; the route says so): the variants that never stop, whose
        1024 answer sequences at 10 queries cost the engine 1.2 s CPU on the first vector.
    note : str
        Why the setting departs from the tools' (said in the row).
    first_found : bool
        Compute a release program's pairs (those the screen leaves) in the order of a cheap
        lower bound on their losses (:meth:`~exactdp.programs.release.ProgramRelease.
        loss_hint`: the patterns releasing no value) rather than of their upper bounds: the
        largest loss is then found first and the pairs after it are computed only where
        they reach it (the worst pair named is the same: ties keep their positions).
    lead : str
        A pattern searched first (its name in :func:`pattern_pairs`; a mirrored one without
        ``mirror``: it alone mirrored): the worst pair's, where known (``first_found``
        without the lower bounds' cost).
    """

    parameters: Mapping[str, Any] = field(default_factory=dict)
    queries: int | None = None
    base: tuple | None = None
    dipc: Mapping[str, Any] = field(default_factory=dict)
    equivalent: tuple[str, Mapping[str, Any]] | None = None
    mirror: bool = False
    rebase: bool = False
    below: int = 0
    screen: bool = True
    bound: bool = False
    bound_heuristic: bool = False
    heuristic: bool = True
    closed_forms: bool = False
    note: str = ""
    first_found: bool = False
    lead: str = ""


def _p(**kw: Any) -> Mapping[str, Any]:
    return MappingProxyType(kw)


_HALF = sympy.Rational(1, 2)


def _svt(variant: int, threshold: object = 1, c: bool = True) -> SuiteSetting:
    params = _p(threshold=threshold, c=1) if c else _p(threshold=threshold)
    return SuiteSetting(params, 10, None, _p(threshold=0),
                        ("SparseVector", _p(threshold=threshold, c=1, variant=variant)),
                        mirror=True, bound=True, bound_heuristic=variant != 5)


#: The suite's settings per library program (DP-Sniper's default experiment,
#: ``dpsniper/experiments/exp_default.py``: threshold 0.5 for SVT1, 1 for the others; the
#: numerical SVT at c = 2). A program without an entry runs at its own defaults.
SETTINGS: Mapping[str, SuiteSetting] = MappingProxyType({
    "noisy_max_laplace": SuiteSetting(queries=5, equivalent=(
        "ReportNoisyMax", _p(noise="laplace"))),
    "noisy_max_exponential": SuiteSetting(queries=5, equivalent=(
        "ReportNoisyMax", _p(noise="exponential"))),
    "svt1": _svt(1, _HALF),
    "svt2": _svt(2),
    "svt4": _svt(4),
    "svt5": replace(_svt(5, c=False), closed_forms=True),
    # the patterns' moves from the X shape's input find a pair worse than the heuristic's
    # (0.424914 on 1^5 0^5 vs 2^5 (-1)^5; its loss from the closed forms: 0.03 s, the
    # program engine's 1.2 s); the heuristic's 152 neighbours are then all screened out,
    # most by the translation bound alone (0.2 s; with every enclosure 1.5 s)
    "svt6": replace(_svt(6, c=False), mirror=False, rebase=True, closed_forms=True),
    "svt_monotone": SuiteSetting(_p(threshold=1, c=1), 10, None, _p(threshold=0),
                                 mirror=True),
    # the mirrored patterns hold check_dp's worst pair (0.0985309, as its heuristic finds);
    # the heuristic's 152 neighbours cost 1.3 s CPU more (a trace and a form each)
    "above_threshold_discrete": SuiteSetting(
        _p(threshold=1), 10, None, _p(threshold=0), mirror=True, heuristic=False),
    "randomized_response": SuiteSetting(queries=3, base=(1, 0, 1)),
    "randomized_response_incorrect": SuiteSetting(queries=3, base=(1, 0, 1)),
    "truncated_geometric": SuiteSetting(_p(n=5), 1, (2,)),
    "noisy_max_value_laplace": SuiteSetting(queries=5, equivalent=(
        "ReportNoisyMax", _p(noise="laplace", output="value"))),
    "noisy_max_value_exponential": SuiteSetting(queries=5, equivalent=(
        "ReportNoisyMax", _p(noise="exponential", output="value"))),
    # check_dp's 152 heuristic neighbours: every bound <= 1/2 (the patterns'), 4.7 s CPU of LPs
    "svt3": SuiteSetting(_p(threshold=1, c=1), 10, equivalent=(
        "SparseVector", _p(threshold=1, c=1, variant=3)), heuristic=False),
    # the screen's bounds (the program's runs at c = 2) cost 4 s CPU, the losses 0.9 s
    "numerical_svt": SuiteSetting(_p(threshold=1, c=2), 10, equivalent=(
        "NumericalSparseVector", _p(threshold=1, c=2)), screen=False, heuristic=False),
    # the mirrored patterns hold check_dp's worst pair (1^10 vs 2^9 0, 0.0985001: the odd
    # query last); its 152 heuristic neighbours, screened below it, cost 2.6 s CPU more
    # (a trace and translation LPs per neighbour, 21 exact losses): over the 1 s budget
    "gap_svt": SuiteSetting(_p(threshold=1, c=1), 10, mirror=True, heuristic=False),
    # check_dp's worst pair is a mirrored pattern (1^10 vs 2^9 0, 0.0931595: the odd query
    # last; the plain patterns' 0.0875826), searched first (lead), alone: the rest are
    # screened out or proved below it (1.0 s CPU; all 5 mirrored 1.5 s, the heuristic more)
    "adaptive_svt": SuiteSetting(_p(threshold=1, c=1), 10, heuristic=False,
                                 lead="one below rest above" + MIRRORED,
                                 note="c = 1: at most one released value per output"),
    # the loss on "all above" is (3 (m - 1) + 1) epsilon / 8: 7/8 epsilon at 3 queries
    # (within the claim), 7/2 epsilon at 10 (the docstring's violation); check_dp's 152
    # heuristic neighbours are all screened out below it, at 2.8 s CPU (a trace and
    # translation LPs per neighbour): over the 1 s budget
    "bad_adaptive_svt": SuiteSetting(_p(threshold=1, c=1), 10, heuristic=False,
                                     note="c = 1: at most one released value per output"),
    # the mirrored patterns hold check_dp's worst pair (1^10 vs 2^9 0, 0.337429: the odd
    # query last), found first, the other 12 screened out below it (0.8 s CPU); check_dp's
    # 152 neighbours cost 3.5 s more (a trace, the parts' split and bounds each)
    "svt34_parallel": SuiteSetting(_p(threshold=1, c=1), 10, mirror=True, first_found=True,
                                   heuristic=False, note="c = 1 (the program's integrator): "
                                   "at most one released value per output"),
    # the worst pair puts the k = 2 released indices below the rest (1^10 vs 0 0 2^8:
    # 0.0990515 and exactly 1/10, check_dp's too); check_dp's 152 neighbours take 8.7 s and
    # 2.8 s CPU (translation LPs and exact losses each), the patterns 0.8 s and 0.3 s
    "noisy_top_k_gap": SuiteSetting(queries=10, below=2, heuristic=False),
    "noisy_top_k_gap_exponential": SuiteSetting(queries=10, below=2, heuristic=False),
})


def library() -> Mapping[str, Any]:
    """Every program of the library, by name: the discrete ones
    (:data:`exactdp.programs.library.PROGRAMS`), then those releasing real values
    (:data:`exactdp.programs.library_release.PROGRAMS`), read at each call."""
    return MappingProxyType({**discrete.PROGRAMS, **release.PROGRAMS})


def setting(name: str) -> SuiteSetting:
    """The suite's setting of program ``name`` (the default one for a program without an
    entry: its own parameter defaults)."""
    return SETTINGS.get(name, SuiteSetting())


def _class(name: str) -> type[Mechanism]:
    for entry in REGISTRY.values():
        if entry.cls.__name__ == name:
            return entry.cls
    raise ValueError(f"verification_suite: no registered mechanism {name}")


def build(name: str, epsilon: object = CLAIM, dipc: bool = False) -> Mechanism:
    """The mechanism the suite analyses for program ``name`` at ``epsilon`` (DiPC's
    parameters with ``dipc=True``): the equivalent class where declared, else the program.

    Raises
    ------
    ValueError
        An unknown program; a parameter the program needs and the suite does not set.
    """
    progs = library()
    if name not in progs:
        raise argument_error("verification_suite", "programs", f"names from {', '.join(progs)}",
                             name)
    s = setting(name)
    params = {**s.parameters, **(s.dipc if dipc else {})}
    if s.equivalent is not None:
        cls, kw = s.equivalent
        return _class(cls)(epsilon=epsilon, **{**kw, **(
            {k: v for k, v in s.dipc.items() if k in kw} if dipc else {})})
    return progs[name](epsilon=epsilon, **params)


def claims_private(name: str) -> bool | None:
    """The literature's verdict as the program's docstring states it (``"; it is not"``,
    ``"not private"``; ``"and it is"``)."""
    doc = " ".join((library()[name].func.__doc__ or "").split())
    if "it is not" in doc or "not private" in doc:
        return False
    if "and it is" in doc:
        return True
    return None


def pattern_pairs(mech: Mechanism, m: int, mirror: bool = False, rebase: bool = False,
                  below: int = 0, lead: str = "") -> list[tuple[str, tuple, tuple]]:
    """StatDP's patterns that are neighbours of ``mech``: all of them for adjacency
    ``"all"``, those moving one way for monotonic programs, none for adjacency ``"one"``;
    with ``mirror``, each also with its positions reversed; with ``rebase``, each pattern's
    move also from the X shape's first input; with ``below = h``, first, ``1^m`` vs
    ``0^h 2^(m-h)`` (a pair already present, in either order, is kept once); ``lead`` first."""
    if mech.adjacency != "all":
        return []
    out: list[tuple[str, tuple, tuple]] = []
    seen: set[tuple[tuple, tuple]] = set()

    def add(pname: str, a: tuple, b: tuple) -> None:
        moves = {(y > x) - (y < x) for x, y in zip(a, b, strict=True)} - {0}
        if (mech.monotonic and len(moves) > 1) or (a, b) in seen or (b, a) in seen:
            return
        seen.add((a, b))
        out.append((pname, a, b))

    pats = patterns(m)
    if 0 < below < m:  # first: it holds the worst pair (a tie of bounds keeps the order)
        add(BELOW.format(below), (1,) * m, (0,) * below + (2,) * (m - below))
    if lead.endswith(MIRRORED) and (one := lead[:-len(MIRRORED)]) in pats and not mirror:
        add(lead, *(x[::-1] for x in pats[one]))  # it alone mirrored
    if rebase:  # first: they hold the worst pair, and a row may stop at its CPU limit
        x = pats["X shape"][0]
        for pname, (a, b) in pats.items():
            if pname != "X shape":
                add(pname + REBASED, x, tuple(v + q - p for v, p, q in zip(x, a, b,
                                                                           strict=True)))
    for pname, (a, b) in pats.items():
        add(pname, a, b)
    if mirror:
        for pname, (a, b) in pats.items():
            add(pname + MIRRORED, a[::-1], b[::-1])
    return sorted(out, key=lambda p: p[0] != lead)  # stable: the lead first, as it was else


def refusal(exc: Exception) -> str:
    """An engine's refusal in one short line, without the function's name."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    head, sep, rest = text.partition(": ")
    return cut_text(rest if sep and " " not in head else text, 100)


def _pair(mech: Mechanism, pname: str, a: tuple, b: tuple, floor: object = None,
          closed: bool = False) -> PairLoss | str | None:
    """The exact loss of one pair, or the refusal in words (the row goes on; an undecided
    sign is a refusal too); with ``floor`` (a release program's own route), None where the
    loss is below it (:func:`~exactdp.audit.suite.pair_loss`); with ``closed``, from the
    one-threshold closed forms where they apply (``closed_forms`` of
    :class:`SuiteSetting`)."""
    try:
        r = one_threshold_loss(mech, a, b) if closed else None
        if r is not None:  # as pair_loss names the output
            named = r.label is not None
            out = output_text(mech, a, r.label if named else r.output, named)
            return PairLoss(pname, a, b, r.loss, out)
        return pair_loss(mech, pname, a, b, floor)
    except (ValueError, ArithmeticError) as exc:
        return f"{pname}: refused: {refusal(exc)}"


def _heuristic(mech: Mechanism, base: tuple) -> tuple[PairLoss | None, int, str]:
    """check_dp's search from ``base``: its worst pair, the neighbours compared, and a
    note when it refused (the cost model, or a pair the engine refuses)."""
    search = "heuristic" if mech.adjacency == "all" and len(base) > 1 else "auto"
    try:
        r = check_dp(mech, base, search=search)
    except (ValueError, ArithmeticError) as exc:
        return None, 0, f"{HEURISTIC} refused: {refusal(exc)}"
    w = r.witness
    if w is None:
        return PairLoss(HEURISTIC, base, base, sympy.Integer(0), "every output"), 0, ""
    out = (str(w.output) if mech.output_kind == "release"
           else output_text(mech, tuple(w.scores), w.output, named=True))
    pair = PairLoss(HEURISTIC, tuple(w.scores), tuple(w.neighbour), r.loss, out, True,
                    r.interval)
    return pair, r.neighbours_checked, ""


def _screen(name: str, mech: Mechanism) -> Callable[..., Any] | None:
    """The cheap rigorous upper bound on a pair's loss of a program releasing real values
    (:meth:`~exactdp.programs.release.ProgramRelease.loss_upper_bound`, on the library's
    program itself: the equivalent class has the same distribution), or of a mechanism
    whose setting declares one (``bound``: :meth:`~exactdp.mechanisms.
    sparse_vector_distribution.SparseVectorDistribution.loss_upper_bound`), or None."""
    if not setting(name).screen:
        return None
    if setting(name).bound:
        prog: Any = mech
    elif mech.output_kind != "release":
        return None
    else:
        prog = mech if setting(name).equivalent is None else library()[name](
            epsilon=CLAIM, **setting(name).parameters)
        if prog.output_kind != "release":
            return None
    cache: dict[tuple, Any] = {}
    fast = setting(name).bound  # the sparse vector's: the translation alone when below

    def bound(a: tuple, b: tuple, below: Any = None) -> Any:
        if a not in cache:
            cache[a] = prog.distribution(a)
        if fast and below is not None:
            return cache[a].loss_upper_bound(b, below=below)
        return cache[a].loss_upper_bound(b)

    return bound


def _hint(prog: Any) -> Callable[[tuple, tuple], float | None]:
    """A release program's cheap lower bound on a pair's loss, for the order of the pairs
    only (:meth:`~exactdp.programs.release.ProgramRelease.loss_hint`)."""
    return lambda a, b: prog.distribution(a).loss_hint(b)


def _patterns(mech: Mechanism, screen: Callable[..., Any] | None,
              pats: list[tuple[str, tuple, tuple]], start: float, best: Any = None,
              what: str = "patterns", ties: bool = True, floor: bool = False,
              hint: Callable[[tuple, tuple], float | None] | None = None,
              closed: bool = False) -> tuple[list[PairLoss | str], dict[str, int]]:
    """The losses of the pattern pairs (in their order), and the numbers of pairs screened
    out and left after an infinite loss.

    With a ``screen`` (:func:`_screen`), every pair's upper bound comes first; the pairs
    are computed from the largest bound down, and a pair whose bound is strictly below a
    loss already found is skipped (it cannot be the worst pair; a tie is computed, so the
    worst pair named is the one the full search names, unless, with ``floor``, the pair
    found comes before it and is attained, :func:`_behind`; with ``ties=False`` a bound equal
    to the loss found is skipped too: check_dp's neighbours after the patterns, whose
    worst pair the row names first among ties). An attained infinite loss ends the
    search (no pair can exceed it; the pairs without a finite bound come first, in their
    order, so it is the pair the full search names). With ``floor`` (a release program on
    its own route) a pair is computed only on the patterns whose bound reaches the loss
    found, and skipped too (screened out) when their loss is below it
    (:meth:`~exactdp.programs.release.ProgramRelease.loss_at_least`). ``closed``: see
    :func:`_pair`."""
    bounds: list[Any] = [None] * len(pats)
    if screen is not None:
        for i, (_, a, b) in enumerate(pats):
            try:  # a bound below ``best`` screens its pair out in any order: skipped alike
                bounds[i] = screen(a, b) if best is None else screen(a, b, best)
            except (ValueError, ArithmeticError):
                bounds[i] = None  # no bound: the pair is computed
    finite = [i for i in range(len(pats)) if bounds[i] is not None and bounds[i] is not sympy.oo]
    key = {i: -float(bounds[i]) for i in finite}  # float: the order only, never a verdict
    if hint is not None:  # a cheap lower bound first (first_found), where the screen leaves
        for i in finite:  # the pair
            if best is None or compare(bounds[i], best) >= 0:
                h = hint(*pats[i][1:])
                key[i] = -h if h is not None else key[i]
    order = [i for i in range(len(pats)) if i not in set(finite)] + sorted(
        finite, key=lambda i: key[i])
    out: dict[int, PairLoss | str] = {}
    skipped = {"screened": 0, "infinite": 0}
    done = False
    lead: tuple[int, bool] | None = None  # the position of the loss found, and attained
    for n, i in enumerate(order):
        if time.process_time() - start > ROW_LIMIT:
            out[len(pats)] = (f"{len(order) - n} {what} not searched: over the row's "
                              f"{ROW_LIMIT:g} s CPU limit")
            break
        if done:
            skipped["infinite"] = len(order) - n
            break
        if best is not None and bounds[i] is not None and compare(
                bounds[i], best) < 1 - (ties and not (floor and _behind(i, lead))):
            skipped["screened"] += 1
            continue
        pair = _pair(mech, *pats[i], best if floor and best is not None else None, closed)
        if pair is None:  # below the loss found, on the patterns its bound leaves
            skipped["screened"] += 1
            continue
        out[i] = pair
        if isinstance(pair, PairLoss):
            if best is None or compare(pair.loss, best) > 0:
                best, lead = pair.loss, (i, pair.attained)
            done = pair.loss is sympy.oo and pair.attained
    return [out[i] for i in sorted(out)], skipped


def _behind(i: int, lead: tuple[int, bool] | None) -> bool:
    """Whether a pair at position ``i`` whose bound ties the loss found cannot be named:
    the pair found comes first and is attained (:func:`~exactdp.audit.suite.worst_pair`
    names the first attained pair among equal losses)."""
    return lead is not None and lead[1] and i > lead[0]


def _screened_heuristic(mech: Mechanism, screen: Callable[..., Any], base: tuple,
                        best: Any, start: float, closed: bool = False,
                        hint: Callable[[tuple, tuple], float | None] | None = None
                        ) -> tuple[PairLoss | None, int, list[str], int]:
    """check_dp's heuristic neighbours of ``base`` (the same list,
    :func:`~exactdp.analysis.neighbourhood.neighbour_list`) through the screen of
    :func:`_patterns`: a neighbour whose bound is below ``best`` (the patterns' worst) is
    skipped. Returns the worst pair computed (None: every neighbour screened out), the
    neighbours, the refusals, and the number screened out."""
    q = score_vector(base, "scores", "check_dp")
    nbrs, _ = neighbour_list(mech, q, None, "heuristic", False, "check_dp")
    pats = [(HEURISTIC, base, tuple(nb.raw)) for nb in nbrs]
    results, skipped = _patterns(mech, screen, pats, start, best, "heuristic neighbours",
                                 ties=False, floor=mech.output_kind == "release",
                                 closed=closed, hint=hint)
    found = [p for p in results if isinstance(p, PairLoss)]
    refused = [p for p in results if isinstance(p, str)]
    return (worst_pair(found) if found else None), len(nbrs), refused, skipped["screened"]


@dataclass(frozen=True)
class Search:
    """The pairs one program's row searched, before its verdict.

    Attributes
    ----------
    found : tuple of PairLoss
        Every pair whose loss was computed (the heuristic's worst pair last).
    search : str
        The search, in words.
    pairs_searched : int
        Pairs compared (the heuristic's neighbours counted one by one).
    route : str
        What computed the losses: the program, or the class equal to it.
    refused : tuple of str
        The pairs (or the heuristic) the engine refused, each with its reason.
    queries : int
    seconds : float
        CPU seconds (``time.process_time``).
    """

    found: tuple[PairLoss, ...]
    search: str
    pairs_searched: int
    route: str
    refused: tuple[str, ...]
    queries: int
    seconds: float


def search_program(name: str) -> Search:
    """The suite's search over the pairs of program ``name`` (see the module docstring).

    Raises
    ------
    ValueError
        An unknown program; a parameter the program needs and the suite does not set.
    """
    start = time.process_time()
    with quick():  # the losses' ratios reduced quickly; the pair named simplified after
        found = _search(name, start)
    named = named_loss(build(name), list(found.found))
    return replace(found, found=tuple(named), seconds=time.process_time() - start)


def _search(name: str, start: float) -> Search:
    s = setting(name)
    mech = build(name)
    route = f"{s.equivalent[0]}, equal to the program" if s.equivalent else "the program"
    if s.closed_forms:
        route = f"{s.equivalent[0] if s.equivalent else 'the program'}'s one-threshold " \
            "closed forms, equal to the program"
    m = s.queries or (10 if mech.adjacency == "all" else 3)
    base = s.base or (1,) * m
    pats = pattern_pairs(mech, m, s.mirror, s.rebase, s.below, s.lead)
    screen = _screen(name, mech)
    own = mech.output_kind == "release" and s.equivalent is None  # ProgramRelease's floor
    hint = _hint(mech) if own and s.first_found else None
    results, skipped = _patterns(mech, screen, pats, start, floor=own, closed=s.closed_forms,
                                 hint=hint)
    found = [p for p in results if isinstance(p, PairLoss)]
    refused = [p for p in results if isinstance(p, str)]
    heuristic, checked = None, 0
    if time.process_time() - start > ROW_LIMIT:
        words = f"{HEURISTIC} not run: over the row's {ROW_LIMIT:g} s CPU limit"
    elif any(p.loss is sympy.oo for p in found):  # no search can find a larger loss
        words = f"{HEURISTIC} not run: {INFINITE}"
    elif not s.heuristic:
        words = f"{HEURISTIC} not run: over the row's 1 s CPU budget here"
    elif screen is not None and (s.equivalent is None or s.bound_heuristic) \
            and mech.adjacency == "all" and m > 1:
        # (an equivalent class's own check_dp is faster than the program's screen, unless
        # its bound is an enclosure of the loss: bound_heuristic)
        best = worst_pair(found).loss if found else None
        heuristic, checked, why_h, cut = _screened_heuristic(mech, screen, base, best, start,
                                                             s.closed_forms, hint)
        refused += why_h
        words = (f"{HEURISTIC} from {''.join(map(str, base))} ({_count(checked, 'neighbour')}"
                 f", {cut} screened out)")
    else:
        heuristic, checked, why = _heuristic(mech, base)
        words = why or f"{HEURISTIC} from {''.join(map(str, base))} " \
            f"({_count(checked, 'neighbour')})"
        if why:
            refused.append(why)
    mirrored = sum(pname.endswith(MIRRORED) for pname, _, _ in pats)
    rebased = sum(pname.endswith(REBASED) for pname, _, _ in pats)
    lower = [pname for pname, _, _ in pats if pname == BELOW.format(s.below)]
    plain = len(pats) - mirrored - rebased - len(lower)
    parts = [_count(plain, "StatDP pattern")] if plain else []
    parts += [f"'{pname}'" for pname in lower]
    parts += [f"{mirrored} mirrored"] if mirrored else []
    parts += [f"{rebased} moves from the X shape's input"] if rebased else []
    parts += [f"{skipped['screened']} screened out ({SCREENED})"] if skipped["screened"] else []
    parts += [f"{skipped['infinite']} not needed ({INFINITE})"] if skipped["infinite"] else []
    parts.append(words)
    found += [heuristic] if heuristic is not None else []
    searched = len(found) - (heuristic is not None) + checked + skipped["screened"]
    return Search(tuple(found), " + ".join(parts), searched, route, tuple(refused), m,
                  time.process_time() - start)


def _count(n: int, noun: str) -> str:
    """``"1 neighbour"``, ``"6 neighbours"``: a count and its noun in the right number."""
    return f"{n} {noun}" + ("" if n == 1 else "s")
