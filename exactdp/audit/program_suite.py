"""The suite over the whole program library: one row per program, exactly.

:func:`library_suite` runs every program of :data:`exactdp.programs.library.PROGRAMS` (read
generically: a program added to the library becomes a row without code changes) at the
DP-testing tools' settings (claimed epsilon 0.1; 5 scores for noisy max, 10 queries for the
sparse vector programs, c = 1) and gives per program (:class:`LibraryRow`): the exact worst
loss over the pairs searched with its pair and output, the verdict, the search used, the
every-epsilon column on DiPC's domain ({-1, 0, 1}^3, :func:`every_epsilon`) and the tools'
published numbers (:mod:`exactdp.audit.suite_tools`).

The search of a row: StatDP's input patterns (:func:`~exactdp.audit.suite_specs.patterns`,
for adjacency ``"all"``; for monotonic programs those moving one way), plus
:func:`exactdp.check_dp`'s heuristic neighbour search from ``(1, ..., 1)``
(:func:`~exactdp.analysis.neighbourhood.heuristic_moves`: 152 neighbours at 10 queries),
whose pairs are strictly worse than the patterns' on SVT1, SVT2, SVT4 (issue 34).

Scope: a loss above the claim on a pair searched is a proof that the program is not
epsilon-DP (pair and output are the witness); a loss at most the claim on every pair
searched proves nothing for other inputs. The every-epsilon column is a proof, on DiPC's
domain only: every pair of it, every epsilon > 0 (:func:`exactdp.certify_dp`).

Route: a program whose docstring states that it equals a shipped class
(:data:`SETTINGS`, ``equivalent``) is computed on that class, whose closed forms are the
same (``tests/audit/test_program_suite.py`` checks the two routes give the same exact
loss); the others on the program itself.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import product
from types import MappingProxyType
from typing import Any

import sympy

from .._validate import argument_error
from ..analysis import certify_dp, check_dp
from ..analysis.certify_laplace import EpsilonInterval, union_intervals
from ..analysis.common import EPSILON
from ..exact import compare
from ..mechanisms import REGISTRY, Mechanism
from ..programs.library import PROGRAMS
from ..result import Result, cut_text
from .library_table import library_table
from .suite import PairLoss, output_text, pair_loss, worst_pair
from .suite_specs import CLAIM, patterns
from .suite_tools import ToolResults, published

#: DiPC's domain: answers in {-1, 0, 1}, 3 queries (Barthe et al., LICS 2020).
DIPC_VALUES = (-1, 0, 1)
DIPC_QUERIES = 3
#: The label of check_dp's heuristic search in a row.
HEURISTIC = "check_dp heuristic"


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
    """

    parameters: Mapping[str, Any] = field(default_factory=dict)
    queries: int | None = None
    base: tuple | None = None
    dipc: Mapping[str, Any] = field(default_factory=dict)
    equivalent: tuple[str, Mapping[str, Any]] | None = None


def _p(**kw: Any) -> Mapping[str, Any]:
    return MappingProxyType(kw)


_HALF = sympy.Rational(1, 2)


def _svt(variant: int, threshold: object = 1, c: bool = True) -> SuiteSetting:
    params = _p(threshold=threshold, c=1) if c else _p(threshold=threshold)
    return SuiteSetting(params, 10, None, _p(threshold=0),
                        ("SparseVector", _p(threshold=threshold, c=1, variant=variant)))


#: The suite's settings per library program (DP-Sniper's default experiment,
#: ``dpsniper/experiments/exp_default.py``: threshold 0.5 for SVT1, 1 for the others).
SETTINGS: Mapping[str, SuiteSetting] = MappingProxyType({
    "noisy_max_laplace": SuiteSetting(queries=5, equivalent=(
        "ReportNoisyMax", _p(noise="laplace"))),
    "noisy_max_exponential": SuiteSetting(queries=5, equivalent=(
        "ReportNoisyMax", _p(noise="exponential"))),
    "svt1": _svt(1, _HALF),
    "svt2": _svt(2),
    "svt4": _svt(4),
    "svt5": _svt(5, c=False),
    "svt6": _svt(6, c=False),
    "svt_monotone": SuiteSetting(_p(threshold=1, c=1), 10, None, _p(threshold=0)),
    # discrete noise: sums over the noise's support, 2.8 s CPU at 3 queries, 10 s at 4
    "above_threshold_discrete": SuiteSetting(_p(threshold=1), 3, None, _p(threshold=0)),
    "randomized_response": SuiteSetting(queries=3, base=(1, 0, 1)),
    "randomized_response_incorrect": SuiteSetting(queries=3, base=(1, 0, 1)),
    "truncated_geometric": SuiteSetting(_p(n=5), 1, (2,)),
})


def library() -> Mapping[str, Any]:
    """The library's programs, by name (:data:`exactdp.programs.library.PROGRAMS`)."""
    return PROGRAMS


def setting(name: str) -> SuiteSetting:
    """The suite's setting of program ``name`` (the default one for a program without an
    entry: its own parameter defaults)."""
    return SETTINGS.get(name, SuiteSetting())


def _class(name: str) -> type[Mechanism]:
    for entry in REGISTRY.values():
        if entry.cls.__name__ == name:
            return entry.cls
    raise ValueError(f"library_suite: no registered mechanism {name}")


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
        raise argument_error("library_suite", "programs", f"names from {', '.join(progs)}",
                             name)
    s = setting(name)
    params = {**s.parameters, **(s.dipc if dipc else {})}
    if s.equivalent is not None:
        cls, kw = s.equivalent
        return _class(cls)(epsilon=epsilon, **{**kw, **(
            {k: v for k, v in s.dipc.items() if k in kw} if dipc else {})})
    return progs[name](epsilon=epsilon, **params)


# ============================================================================ every epsilon
@dataclass(frozen=True)
class EveryEpsilon:
    """The every-epsilon column: :func:`exactdp.certify_dp` on every pair of DiPC's domain.

    Attributes
    ----------
    status : str
        ``"certified"`` (epsilon-DP for every epsilon > 0 on every pair), ``"refuted"``,
        ``"not applicable"`` (adjacency ``"one"`` or monotonic: DiPC's adjacency is the box),
        or ``"not decided"`` (``reason`` says why).
    pairs : int
        Unordered pairs certified (``certify_dp`` checks both directions): 158.
    failing_pairs : int
    failing_epsilons : tuple of EpsilonInterval
        Where the bound fails on some pair (their union).
    reason : str
    seconds : float
        CPU seconds of the column.
    """

    status: str
    pairs: int = 0
    failing_pairs: int = 0
    failing_epsilons: tuple[EpsilonInterval, ...] = ()
    reason: str = ""
    seconds: float = 0.0

    def __str__(self) -> str:
        if self.status == "refuted":
            where = " U ".join(str(i) for i in self.failing_epsilons)
            return f"refuted for epsilon in {where} ({self.failing_pairs}/{self.pairs} pairs)"
        if self.status == "certified":
            return f"certified ({self.pairs} pairs)"
        return f"{self.status} ({self.reason})" if self.reason else self.status


def dipc_pairs(n: int = DIPC_QUERIES) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """The unordered pairs of distinct vectors of {-1, 0, 1}^n moving by at most 1 each
    (DiPC's 316 ordered pairs at n = 3, once each: 158)."""
    vecs = list(product(DIPC_VALUES, repeat=n))
    return [(a, b) for i, a in enumerate(vecs) for b in vecs[i + 1:]
            if all(abs(x - y) <= 1 for x, y in zip(a, b, strict=True))]


def certify_pair(name: str, pair: tuple) -> tuple[bool, tuple[EpsilonInterval, ...]]:
    """``certify_dp`` of program ``name`` (DiPC's parameters, symbolic epsilon) on one
    pair: whether it holds and where it fails (a module-level function: a Dask task)."""
    cert = certify_dp(build(name, EPSILON, dipc=True), *pair)
    return cert.holds, tuple(cert.failing_epsilons)


@lru_cache(maxsize=64)
def _every_epsilon_cached(name: str) -> EveryEpsilon:
    return _every_epsilon(name, None)


def every_epsilon_cache_clear() -> None:
    """Empty the every-epsilon column's cache (benchmarks time cold runs)."""
    _every_epsilon_cached.cache_clear()


def every_epsilon(name: str, executor: Executor | None = None) -> EveryEpsilon:
    """The every-epsilon column of program ``name`` on DiPC's domain (cached per program).

    Parameters
    ----------
    name : str
        A program of the library.
    executor : concurrent.futures.Executor, optional
        Where the pairs are certified, one task per pair: for a Dask cluster
        ``dask.distributed.Client(address).get_executor()`` (as :func:`exactdp.sweep`).
        None: here, and cached.

    Returns
    -------
    EveryEpsilon
    """
    if executor is None:
        return _every_epsilon_cached(name)
    return _every_epsilon(name, executor)


def _every_epsilon(name: str, executor: Executor | None) -> EveryEpsilon:
    start = time.process_time()
    mech = build(name)
    if mech.adjacency != "all" or mech.monotonic:
        why = "adjacency 'one'" if mech.adjacency != "all" else "monotonic adjacency"
        return EveryEpsilon("not applicable", reason=f"{why}; DiPC's adjacency is the box")
    pairs = dipc_pairs(DIPC_QUERIES if len(setting(name).base or ()) != 1 else 1)
    try:
        if executor is None:
            results = [certify_pair(name, p) for p in pairs]
        else:
            results = list(executor.map(certify_pair, [name] * len(pairs), pairs))
    except ValueError as exc:  # outside certify_dp's forms, or the cost limit
        return EveryEpsilon("not decided", len(pairs), reason=cut_text(str(exc), 100),
                            seconds=time.process_time() - start)
    failing = [iv for ok, ivs in results if not ok for iv in ivs]
    bad = sum(not ok for ok, _ in results)
    return EveryEpsilon("refuted" if bad else "certified", len(pairs), bad,
                        _merged(failing), "", time.process_time() - start)


def _merged(intervals: list[EpsilonInterval]) -> tuple[EpsilonInterval, ...]:
    """The union of the failing intervals (merged where rational bounds prove overlaps;
    x-form ends that are not rational are kept apart, once each)."""
    try:
        return union_intervals(intervals)
    except TypeError:  # a closed-form end (2 log(3/2)) beside an isolated root
        return tuple(dict.fromkeys(intervals))


# ============================================================================ rows
@dataclass(frozen=True)
class LibraryRow(Result):
    """One program of the library in the suite.

    Attributes
    ----------
    holds : bool or None
        True iff the exact loss of every pair searched is at most ``epsilon`` ("private on
        the pairs searched"); False proves the program is not epsilon-DP; None: not run
        (``note`` says why).
    loss : sympy.Expr or None
        The largest exact loss over the pairs searched.
    program : str
    epsilon : sympy.Expr
        The claimed epsilon.
    private : bool or None
        The literature's verdict (from the program's docstring: ``"it is not"``).
    worst : PairLoss or None
        The pair and output attaining ``loss`` (``pattern``: the pattern's name, or
        ``"check_dp heuristic"``).
    search : str
        The search used, in words.
    pairs_searched : int
    every_epsilon : EveryEpsilon
    tools : ToolResults
        The published numbers.
    route : str
        What computed the row (the program, or the class equal to it).
    seconds : float
        CPU seconds of the row (``time.process_time``), the every-epsilon column apart.
    note : str

    Examples
    --------
    >>> import exactdp
    >>> row = exactdp.library_suite(["randomized_response_incorrect"], progress=False)[
    ...     "randomized_response_incorrect"]
    >>> row.verdict, row.loss, str(row.every_epsilon)
    ('not private', log(11/9), "not applicable (adjacency 'one'; DiPC's adjacency is the box)")
    """

    headline = "loss"
    repr_fields = ("program", "epsilon")

    holds: bool | None
    loss: sympy.Expr | None
    program: str
    epsilon: sympy.Expr
    private: bool | None
    worst: PairLoss | None
    search: str
    pairs_searched: int
    every_epsilon: EveryEpsilon
    tools: ToolResults
    route: str
    seconds: float
    note: str = ""

    @property
    def verdict(self) -> str:
        """In words: ``"private on the pairs searched"``, ``"not private"``, ``"not run"``."""
        if self.holds is None:
            return "not run"
        return "private on the pairs searched" if self.holds else "not private"

    def shortfall(self, tool: str) -> float | None:
        """How far ``tool``'s published lower bound (``"DP-Sniper"`` or ``"StatDP"``) is
        below the exact worst loss (``inf`` for an infinite loss; None: no number)."""
        pub = next((p for p in self.tools.lower_bounds() if p.tool == tool), None)
        if pub is None or self.loss is None:
            return None
        if self.loss is sympy.oo:
            return float("inf")
        return float(self.loss) - pub.lower_bound

    def summary(self) -> str:
        """The short repr, then the worst pair, the search, the column and the tools."""
        lines = [repr(self), f"  verdict: {self.verdict}"]
        if self.worst is not None:
            lines.append(f"  worst: {self.worst}")
        lines += [f"  search: {self.search} ({self.pairs_searched} pairs; {self.route}; "
                  f"{self.seconds:.2f} s CPU)",
                  f"  every epsilon on DiPC's domain: {self.every_epsilon}"]
        for pub in self.tools.lower_bounds():
            lines.append(f"  {pub.tool}: lower bound {pub.lower_bound:.4f} on {pub.pattern}")
        for v in (self.tools.dipc, self.tools.checkdp, self.tools.shadowdp):
            if v is not None:
                lines.append(f"  {v.tool}: {v} ({v.program})")
        if self.note:
            lines.append(f"  note: {self.note}")
        return "\n".join(lines)


def _claims_private(name: str) -> bool | None:
    """The literature's verdict as the program's docstring states it (``"; it is not"``)."""
    doc = " ".join((library()[name].func.__doc__ or "").split())
    if "it is not" in doc:
        return False
    if "and it is" in doc:
        return True
    return None


def _pattern_pairs(mech: Mechanism, m: int) -> list[tuple[str, tuple, tuple]]:
    """StatDP's patterns that are neighbours of ``mech``: all of them for adjacency
    ``"all"``, those moving one way for monotonic programs, none for adjacency ``"one"``."""
    if mech.adjacency != "all":
        return []
    out = []
    for pname, (a, b) in patterns(m).items():
        moves = {(y > x) - (y < x) for x, y in zip(a, b, strict=True)} - {0}
        if mech.monotonic and len(moves) > 1:
            continue
        out.append((pname, a, b))
    return out


def _heuristic(mech: Mechanism, base: tuple) -> tuple[PairLoss | None, int, str]:
    """check_dp's search from ``base``: its worst pair, the neighbours compared, and a
    note when it refused (the cost model)."""
    search = "heuristic" if mech.adjacency == "all" and len(base) > 1 else "auto"
    try:
        r = check_dp(mech, base, search=search)
    except ValueError as exc:
        return None, 0, f"check_dp's search refused: {str(exc).splitlines()[0]}"
    w = r.witness
    if w is None:
        return PairLoss(HEURISTIC, base, base, sympy.Integer(0), "every output"), 0, ""
    out = (str(w.output) if mech.output_kind == "release"
           else output_text(mech, tuple(w.scores), w.output))
    pair = PairLoss(HEURISTIC, tuple(w.scores), tuple(w.neighbour), r.loss, out, True,
                    r.interval)
    return pair, r.neighbours_checked, ""


def library_row(name: str, every: bool = True) -> LibraryRow:
    """One row of :func:`library_suite` (see there)."""
    start = time.process_time()
    s = setting(name)
    tools = published(name)
    skipped = EveryEpsilon("not run")
    try:
        mech = build(name)
    except ValueError as exc:
        return LibraryRow(None, None, name, CLAIM, _claims_private(name), None, "", 0,
                          skipped, tools, "", 0.0, f"not run: {exc}")
    route = (f"{s.equivalent[0]}, equal to the program" if s.equivalent else "the program")
    m = s.queries or (10 if mech.adjacency == "all" else 3)
    base = s.base or (1,) * m
    found = [pair_loss(mech, pname, a, b) for pname, a, b in _pattern_pairs(mech, m)]
    if any(p.loss is sympy.oo for p in found):  # no search can find a larger loss
        heuristic, checked, note = None, 0, (f"{HEURISTIC} not run: a pattern's loss is "
                                             "already infinite")
    else:
        heuristic, checked, note = _heuristic(mech, base)
    if heuristic is not None:
        found.append(heuristic)
    seconds = time.process_time() - start
    pats = len(found) - (heuristic is not None)
    search = " + ".join(([f"{pats} StatDP patterns"] if pats else []) + (
        [f"{HEURISTIC} from {''.join(map(str, base))} ({checked} neighbours)"]
        if heuristic is not None else []))
    if not found:
        return LibraryRow(None, None, name, CLAIM, _claims_private(name), None, search, 0,
                          skipped, tools, route, seconds, note)
    worst = worst_pair(found)
    if any(compare(p.loss, CLAIM) > 0 for p in found):
        holds: bool | None = False
    elif all(compare(p.upper, CLAIM) <= 0 for p in found):
        holds = True
    else:
        holds, note = None, "an enclosure of a pair's loss contains the claim: undecided"
    column = every_epsilon(name) if every else skipped
    return LibraryRow(holds, worst.loss, name, CLAIM, _claims_private(name), worst, search,
                      len(found) - 1 + checked if heuristic else len(found), column, tools,
                      route, seconds, note)


# ============================================================================ the suite
@dataclass(frozen=True)
class LibrarySuite(Result):
    """Every row of :func:`library_suite`; prints as a table (``to_markdown()``,
    ``_repr_html_``, ``_repr_latex_`` in a notebook; ``library_table``).

    Attributes
    ----------
    holds : bool or None
        None: the suite is a table, not one check (each row has its own ``holds``).
    rows : tuple of LibraryRow

    Examples
    --------
    >>> import exactdp
    >>> suite = exactdp.library_suite(["truncated_geometric"], progress=False)
    >>> repr(suite)[:72]
    'LibrarySuite(1 programs: 0 not private, 1 private on the pairs searched,'
    >>> suite.to_markdown().splitlines()[2][:34]
    '| truncated_geometric | private | '
    """

    headline = None

    rows: tuple[LibraryRow, ...]
    holds: bool | None = None

    def repr_parts(self) -> list[str]:
        count = {v: sum(r.verdict == v for r in self.rows)
                 for v in ("private on the pairs searched", "not private", "not run")}
        ev = {s: sum(r.every_epsilon.status == s for r in self.rows)
              for s in ("certified", "refuted")}
        parts = [f"{len(self.rows)} programs: {count['not private']} not private, "
                 f"{count['private on the pairs searched']} private on the pairs searched",
                 f"every epsilon: {ev['certified']} certified, {ev['refuted']} refuted"]
        if count["not run"]:
            parts.append(f"{count['not run']} not run")
        return parts

    def __getitem__(self, name: str) -> LibraryRow:
        """The row of program ``name``."""
        for r in self.rows:
            if r.program == name:
                return r
        raise KeyError(name)

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def summary(self) -> str:
        """Every row's summary."""
        return "\n".join([repr(self)] + [r.summary() for r in self.rows])

    def to_markdown(self) -> str:
        """The table in Markdown (``library_table``)."""
        return library_table(self.rows, "markdown")

    def _repr_html_(self) -> str:
        return library_table(self.rows, "html")

    def _repr_latex_(self) -> str:
        return library_table(self.rows, "latex")


def library_suite(
    programs: Sequence[str] | None = None,
    *,
    every: bool = True,
    progress: bool | None = None,
) -> LibrarySuite:
    """Every program of the library, one exact row each (see the module docstring).

    Parameters
    ----------
    programs : sequence of str, optional
        Names from :data:`exactdp.programs.library.PROGRAMS`; default all, in its order.
    every : bool, default True
        Compute the every-epsilon column on DiPC's domain (cached per program).
    progress : bool, optional
        A tqdm progress bar on standard error; default: when standard error is a terminal.

    Returns
    -------
    LibrarySuite

    Raises
    ------
    ValueError
        An unknown program name (before any row runs).

    Examples
    --------
    >>> import exactdp
    >>> suite = exactdp.library_suite(["noisy_max_exponential"], every=False, progress=False)
    >>> suite["noisy_max_exponential"].loss
    1/10
    """
    progs = library()
    names = list(progs if programs is None else programs)
    if isinstance(programs, str) or not names:
        raise argument_error("library_suite", "programs", "a non-empty list of names",
                             programs)
    for n in names:
        if n not in progs:
            raise argument_error("library_suite", "programs",
                                 f"names from {', '.join(progs)}", n)
    if progress is None:
        progress = sys.stderr.isatty()
    rows = []
    if progress:
        from tqdm import tqdm
        with tqdm(names, desc="exactdp suite", unit="program", file=sys.stderr) as bar:
            for n in bar:
                bar.set_postfix_str(n)
                rows.append(library_row(n, every))
    else:
        rows = [library_row(n, every) for n in names]
    return LibrarySuite(tuple(rows))

