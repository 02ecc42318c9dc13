"""The verification suite: :func:`verification_suite`, every program of the library, one
exact row each (:class:`SuiteRow`), as a table (:class:`VerificationSuite`).

Per program: the claimed epsilon, the literature's verdict, the exact worst loss over the
pairs searched with its pair and output (:mod:`exactdp.audit.program_suite`: StatDP's
patterns, mirrored where the order matters, and :func:`exactdp.check_dp`'s heuristic
search), the verdict, the every-epsilon column on DiPC's domain
(:mod:`exactdp.audit.every_epsilon`) and the tools' published numbers
(:mod:`exactdp.audit.suite_tools`).

Scope: a loss above the claim on a pair searched is a proof that the program is not
epsilon-DP (pair and output are the witness); a loss at most the claim on every pair
searched proves nothing for other inputs. The every-epsilon column is a proof, on DiPC's
domain only: every pair of it, every epsilon > 0 (:func:`exactdp.certify_dp`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import Executor
from contextlib import nullcontext
from dataclasses import dataclass, replace

import sympy

from .._validate import argument_error
from ..exact import compare
from ..progress import progress_bar, quiet
from ..result import Result
from .every_epsilon import EveryEpsilon, every_epsilon
from .library_table import library_table, loss_cell
from .program_suite import claims_private, library, refusal, search_program, setting
from .suite import PairLoss, worst_pair
from .suite_specs import CLAIM
from .suite_tools import ToolResults, published


@dataclass(frozen=True)
class SuiteRow(Result):
    """One program of the library in the verification suite.

    Attributes
    ----------
    holds : bool or None
        True iff the exact loss of every pair searched is at most ``epsilon`` ("private on
        the pairs searched"); False proves the program is not epsilon-DP; None: not run
        (``refused`` or ``note`` says why: every pair refused, or the program could not be
        built).
    loss : sympy.Expr or None
        The largest exact loss over the pairs searched (for a pair with no closed form, the
        lower end of its certified bracket: ``worst.interval``).
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
    queries : int
        The number of answers of the pairs searched.
    refused : tuple of str
        Pairs the engine refused (a supremum over released values not in this version,
        a cost limit), each with its reason: the search covers the others.
    note : str
        Where the row departs from the tools' settings (fewer queries), or why it is
        undecided or not run; shown in the table's search cell.

    Examples
    --------
    >>> import exactdp
    >>> row = exactdp.verification_suite(["randomized_response_incorrect"], progress=False)[
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
    queries: int = 0
    refused: tuple[str, ...] = ()
    note: str = ""

    def headline_text(self) -> str:
        """The worst loss as the table shows it: ``in [lo, hi]`` for a certified bracket
        (``loss`` then holds its lower end), ``sup x`` for a supremum not attained."""
        if self.worst is not None and self.worst.interval is not None:
            return loss_cell(self)
        return super().headline_text()

    @property
    def certified(self) -> bool:
        """True for a refutation (a pair above the claim is a proof); a loss at most the
        claim covers the pairs searched only."""
        return self.holds is False

    @property
    def caveat(self) -> str | None:
        """Why the verdict is not a proof, if it is not."""
        if self.holds is False:
            return None
        return "private on the pairs searched only" if self.holds else self.verdict

    @property
    def verdict(self) -> str:
        """In words: ``"private on the pairs searched"``, ``"not private"``, ``"undecided"``
        (a bracket contains the claim), ``"refused"`` (every pair refused) or ``"not run"``."""
        if self.holds is None:
            if self.loss is not None:
                return "undecided"
            return "refused" if self.refused else "not run"
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
        pairs = "pair" if self.pairs_searched == 1 else "pairs"
        lines += [f"  search: {self.search} ({self.pairs_searched} {pairs}; {self.route}; "
                  f"{self.seconds:.2f} s CPU)",
                  f"  every epsilon on DiPC's domain: {self.every_epsilon}"]
        for pub in self.tools.lower_bounds():
            lines.append(f"  {pub.tool}: lower bound {pub.lower_bound:.4f} on {pub.pattern}")
        for v in (self.tools.dipc, self.tools.checkdp, self.tools.shadowdp):
            if v is not None:
                lines.append(f"  {v.tool}: {v} ({v.program})")
        lines += [f"  refused: {r}" for r in self.refused]
        if self.note:
            lines.append(f"  note: {self.note}")
        return "\n".join(lines)


def suite_row(name: str, every: bool = True) -> SuiteRow:
    """One row of :func:`verification_suite` (see there): never raises for a program of the
    library (a refusal or a missing parameter is said in the row)."""
    start = time.process_time()
    s = setting(name)
    tools = published(name)
    skipped = EveryEpsilon("not run")
    private = claims_private(name)
    try:
        found = search_program(name)
    except ValueError as exc:
        return SuiteRow(None, None, name, CLAIM, private, None, "", 0, skipped, tools, "",
                        time.process_time() - start, note=f"not run: {refusal(exc)}")
    note = s.note
    pairs = found.found
    column = every_epsilon(name) if every else skipped
    if not pairs:
        return SuiteRow(None, None, name, CLAIM, private, None, found.search, 0, column,
                        tools, found.route, found.seconds, found.queries, found.refused,
                        note)
    worst = worst_pair(pairs)
    holds: bool | None
    if any(compare(p.loss, CLAIM) > 0 for p in pairs):
        holds = False
    elif all(compare(p.upper, CLAIM) <= 0 for p in pairs):
        holds = True
    else:
        holds = None
        note = "; ".join(filter(None, [note, "an enclosure of a pair's loss contains the "
                                       "claim: undecided"]))
    return SuiteRow(holds, worst.loss, name, CLAIM, private, worst, found.search,
                    found.pairs_searched, column, tools, found.route, found.seconds,
                    found.queries, found.refused, note)


# ============================================================================ the suite
@dataclass(frozen=True)
class VerificationSuite(Result):
    """Every row of :func:`verification_suite`; prints as a table (``to_markdown()``,
    ``_repr_html_``, ``_repr_latex_`` in a notebook; ``library_table``).

    Attributes
    ----------
    holds : bool or None
        None: the suite is a table, not one check (each row has its own ``holds``).
    rows : tuple of SuiteRow

    Examples
    --------
    >>> import exactdp
    >>> suite = exactdp.verification_suite(["truncated_geometric"], progress=False)
    >>> repr(suite)[:76]
    'VerificationSuite(1 program: 0 not private, 1 private on the pairs searched,'
    >>> suite.to_markdown().splitlines()[2][:34]
    '| truncated_geometric | private | '
    """

    headline = None
    certified = False
    caveat = "each row covers the pairs it searched"

    rows: tuple[SuiteRow, ...]
    holds: bool | None = None

    def repr_parts(self) -> list[str]:
        verdicts = ("not private", "private on the pairs searched", "undecided", "refused",
                    "not run")
        count = {v: sum(r.verdict == v for r in self.rows) for v in verdicts}
        ev = {s: sum(r.every_epsilon.status == s for r in self.rows)
              for s in ("certified", "refuted")}
        said = ", ".join(f"{count[v]} {v}" for v in verdicts[:2]) + "".join(
            f", {count[v]} {v}" for v in verdicts[2:] if count[v])
        many = "program" if len(self.rows) == 1 else "programs"
        return [f"{len(self.rows)} {many}: {said}",
                f"every epsilon: {ev['certified']} certified, {ev['refuted']} refuted"]

    def __getitem__(self, name: str) -> SuiteRow:
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


def verification_suite(
    programs: Sequence[str] | None = None,
    *,
    every: bool = True,
    progress: bool | None = None,
    executor: Executor | None = None,
) -> VerificationSuite:
    """The DP-testing tools' suite, exactly: every program of the library, one row each
    (:class:`SuiteRow`; the search: :mod:`exactdp.audit.program_suite`).

    Parameters
    ----------
    programs : sequence of str, optional
        Names from :func:`exactdp.audit.program_suite.library` (the discrete programs, then
        those releasing real values); default all, in that order.
    every : bool, default True
        Compute the every-epsilon column on DiPC's domain (cached per program).
    progress : bool, optional
        A progress bar on standard error (:func:`exactdp.progress.progress_bar`): None
        (default) once the suite has run 2 s, on a terminal; False never; True at once.
    executor : concurrent.futures.Executor, optional
        Where the every-epsilon column's pairs run, one task per pair: for a Dask cluster
        ``dask.distributed.Client(address).get_executor()`` (as :func:`exactdp.sweep`).

    Returns
    -------
    VerificationSuite
        A table: ``suite["svt1"]`` is a row; ``to_markdown()``, ``_repr_html_``,
        ``_repr_latex_``.

    Raises
    ------
    ValueError
        An unknown program name (before any row runs). A row the engine refuses does not
        raise: the row says so.

    Notes
    -----
    A loss above the claim on a pair searched is a proof that the program is not
    epsilon-DP; "private on the pairs searched" proves nothing for other inputs. The
    every-epsilon column is a proof on DiPC's domain only.

    References
    ----------
    Ding et al., CCS 2018 (StatDP); Bichsel et al., IEEE S&P 2021 (DP-Sniper); Barthe et
    al., LICS 2020 (DiPC); Lyu, Su and Li, PVLDB 10(6), 2017; docs/suite.md.

    Examples
    --------
    >>> import exactdp
    >>> suite = exactdp.verification_suite(["noisy_max_exponential"], every=False,
    ...                                    progress=False)
    >>> suite["noisy_max_exponential"].loss
    1/10
    """
    progs = library()
    names = list(progs if programs is None else programs)
    if isinstance(programs, str) or not names:
        raise argument_error("verification_suite", "programs", "a non-empty list of names",
                             programs)
    for n in names:
        if n not in progs:
            raise argument_error("verification_suite", "programs",
                                 f"names from {', '.join(progs)}", n)
    names = list(dict.fromkeys(names))  # a name given twice: one row
    rows = []
    # progress=False: the rows' own loops (a release loss's bar or start line) are quiet too
    with (quiet() if progress is False else nullcontext()), progress_bar(
            len(names), "exactdp suite", progress=progress, unit="program") as bar:
        for n in names:
            row = suite_row(n, every and executor is None)
            if every and executor is not None:
                row = replace(row, every_epsilon=every_epsilon(n, executor))
            rows.append(row)
            bar.update()
    return VerificationSuite(tuple(rows))
