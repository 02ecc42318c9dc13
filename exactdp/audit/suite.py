"""The DP-testing tools' verification suite, exactly: :func:`verification_suite`.

StatDP, DP-Sniper, CheckDP and DiPC evaluate themselves on one suite of selection
algorithms: report-noisy-max returning the index or the value (RNM1-RNM4), the sparse vector
variants of Lyu, Su and Li (SVT1-SVT6) and the numerical SVT of Wang et al. The sampling
tools print lower bounds on epsilon after about a minute per algorithm. This module computes
the *exact* privacy loss of each algorithm on the tools' own input pairs (StatDP's patterns,
:func:`exactdp.audit.suite_specs.patterns`) and on the exhaustive vertex neighbourhood of
``(1, ..., 1)`` at a small number of queries, and puts the tools' published numbers beside
it (:data:`exactdp.audit.suite_specs.SPECS`).

Scope: a loss on the pairs checked is the exact loss *on those pairs*. A loss above the
claim is a proof that the algorithm is not epsilon-DP (the pair and the output are the
witness); a loss at most the claim on every pair checked proves nothing for other inputs.
Where the probabilities are rational in ``x = exp(-epsilon/N)`` (report-noisy-max with
exponential noise; with Laplace noise on some inputs only), :func:`exactdp.certify_dp`
proves the bound on the pairs for every epsilon; the suite runs it on RNM2 (docs/suite.md).
A pair with no closed form (Algorithm 3 on answers moving both ways) keeps its certified
interval (:attr:`PairLoss.interval`).

Each row is built from its spec when asked for: a spec naming a mechanism or a parameter
this version lacks raises a one-line error naming it, and the other rows are unaffected.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import sympy

from .._validate import argument_error, check_int
from ..analysis import certify_dp, check_dp, neighbours, privacy_loss
from ..exact import compare
from ..mechanisms import REGISTRY, Mechanism
from ..mechanisms.sparse_vector_loss import LossBracketError
from ..printing import format_number
from ..result import Result
from .suite_specs import (
    ALGORITHMS,
    CLAIM,
    PATTERNS,
    SPECS,
    AlgorithmSpec,
    Published,
    pattern_pair,
    patterns,
)

#: Default number of queries of the exhaustive vertex search (3**4 - 1 = 80 neighbours).
SEARCH_QUERIES = 4
#: Most queries of the exhaustive vertex search (3**6 - 1 neighbours).
MAX_SEARCH_QUERIES = 6
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


@dataclass(frozen=True)
class SuiteRow(Result):
    """One algorithm of the verification suite: exact losses beside the tools' numbers.

    Attributes
    ----------
    holds : bool
        The verdict: True iff the exact loss on every pair checked (for a pair with no
        closed form, its interval's upper end) is at most ``epsilon`` ("private on the pairs
        checked"); False proves the algorithm is not epsilon-DP.
    loss : sympy.Expr
        The largest exact loss over the pairs checked (the patterns and the vertex search).
    algorithm : str
        The suite's name (``"SVT6"``).
    description : str
    epsilon : sympy.Expr
        The claimed epsilon.
    queries : int
        The number of queries (scores) of the patterns.
    private : bool
        Whether the literature proves the algorithm epsilon-DP; ``claim`` says what it proves.
    claim : str
    pairs : tuple of PairLoss
        The exact loss on each of StatDP's patterns at ``queries``.
    worst : PairLoss
        The pair attaining ``loss``.
    search : PairLoss or None
        The worst pair of the exhaustive vertex neighbourhood of ``(1, ..., 1)`` at
        ``search_queries`` queries (None: not searched).
    search_queries : int or None
    neighbours_checked : int
        How many neighbours the vertex search compared.
    published : tuple of Published
        DP-Sniper's and StatDP's published results.
    all_epsilon : bool or None
        :func:`~exactdp.certify_dp` on every pattern: the bound holds there for *every*
        epsilon. None: not run (it runs on RNM2 only; with Laplace noise the probabilities
        are rational in ``x`` on some inputs only, and on SVT4 and SVT5, where they are, it
        costs seconds per row: docs/suite.md).
    seconds : float
        Wall time of the exact losses on the patterns.
    search_seconds : float
        Wall time of the vertex search.

    Examples
    --------
    >>> import exactdp
    >>> [row] = exactdp.verification_suite(algorithms=["RNM1"], search_queries=None)
    >>> row.verdict, row.worst.pattern, row.worst.output
    ('private on the pairs checked', 'one below rest above', 'index 0')
    >>> print(row.loss)
    log(-48/(-49*exp(-1/10) + exp(-2/5)))
    """

    headline = "loss"
    repr_fields = ("algorithm", "epsilon", "witness")

    holds: bool
    loss: sympy.Expr
    algorithm: str
    description: str
    epsilon: sympy.Expr
    queries: int
    private: bool
    claim: str
    pairs: tuple[PairLoss, ...]
    worst: PairLoss
    search: PairLoss | None
    search_queries: int | None
    neighbours_checked: int
    published: tuple[Published, ...]
    all_epsilon: bool | None
    seconds: float
    search_seconds: float

    @property
    def verdict(self) -> str:
        """``"private on the pairs checked"`` or ``"not private"``."""
        return "private on the pairs checked" if self.holds else "not private"

    @property
    def witness(self) -> str:
        """The worst pair and its output, in words."""
        return str(self.worst)

    def tool_pair(self, tool: str) -> PairLoss | None:
        """The exact loss on the pair ``tool`` (``"DP-Sniper"`` or ``"StatDP"``) reported
        (None if it reported none; at small ``queries`` the pattern that its pattern
        coincides with)."""
        for pub in self.published:
            if pub.tool == tool:
                pair = pattern_pair(pub.pattern, self.queries)
                return next((p for p in self.pairs if (p.scores, p.neighbour) == pair), None)
        return None

    def shortfall(self, tool: str) -> float | None:
        """How far ``tool``'s published lower bound is below the exact worst ``loss``
        (``loss - lower_bound``, ``inf`` for an infinite loss; None if it reported none)."""
        pub = next((p for p in self.published if p.tool == tool), None)
        if pub is None:
            return None
        if self.loss is sympy.oo:
            return float("inf")
        return float(self.loss) - pub.lower_bound

    def summary(self) -> str:
        """The short repr, then every pair, the search and the tools' numbers."""
        lines = [repr(self), f"  {self.algorithm}: {self.description}",
                 f"  literature: {self.claim}", f"  verdict: {self.verdict} (worst "
                 f"{self.worst})", f"  patterns at m = {self.queries} ({self.seconds:.2f} s):"]
        lines += [f"    {p}" for p in self.pairs]
        if self.search is not None:
            lines.append(f"  vertex search at m = {self.search_queries} "
                         f"({self.neighbours_checked} neighbours, {self.search_seconds:.2f} s): "
                         f"{self.search}")
        if self.all_epsilon is not None:
            lines.append(f"  certify_dp on the patterns, every epsilon: {self.all_epsilon}")
        for pub in self.published:
            mine = self.tool_pair(pub.tool)
            exact = "" if mine is None else f"; exact there {format_number(mine.loss, 6)}"
            lines.append(f"  {pub.tool}: eps {pub.epsilon:.4f} (lower bound "
                         f"{pub.lower_bound:.4f}) on {pub.pattern}{exact}; "
                         f"{pub.seconds:.0f} s")
        return "\n".join(lines)


def _vector(v: tuple) -> str:
    return "(" + ",".join(str(x) for x in v) + ")"


def _mechanism_class(spec: AlgorithmSpec) -> type[Mechanism]:
    """The class ``spec.mechanism`` of :data:`exactdp.mechanisms.REGISTRY`."""
    for entry in REGISTRY.values():
        if entry.cls.__name__ == spec.mechanism:
            return entry.cls
    raise ValueError(f"verification_suite: {spec.name} needs the mechanism "
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
        raise ValueError(f"verification_suite: {spec.name} needs {spec.mechanism}"
                         f"({', '.join(f'{k}={v!r}' for k, v in spec.parameters.items())}),"
                         f" which this version of exactdp does not have ({exc})") from None


def output_text(mech: Mechanism, scores: tuple, index: object) -> str:
    """An output of a discrete mechanism in words: answer letters or ``index i``."""
    if mech.output_kind == "sequence" and index is not None:
        answers = (mech.distribution(scores).outputs[index] if isinstance(index, int)
                   else index)  # check_dp's witness names the output itself
        if isinstance(answers, tuple) and all(a is None or a is True or a is False
                                              for a in answers):
            return "".join(LETTERS[a] for a in answers)
        return f"output {answers}"
    return f"index {index}"


def pair_loss(mech: Mechanism, pattern: str, scores: tuple, neighbour: tuple) -> PairLoss:
    """The exact loss of one pair, by :func:`~exactdp.privacy_loss` (for mechanisms that
    release real values, output kind ``"release"``, the supremum of the log density ratio).
    A pair with no closed form (Algorithm 3 on answers moving both ways) gets its certified
    interval (:attr:`PairLoss.interval`)."""
    if mech.output_kind == "release":
        try:
            sup = privacy_loss(mech, scores, neighbour)
        except LossBracketError as exc:  # no closed form: the certified bracket
            return PairLoss(pattern, scores, neighbour, exc.lower, exc.output, True,
                            (exc.lower, exc.upper))
        return PairLoss(pattern, scores, neighbour, sup.loss, str(sup.output),
                        bool(sup.attained))
    r = privacy_loss(mech, scores, neighbour)
    return PairLoss(pattern, scores, neighbour, r.loss, output_text(mech, scores, r.output))


def worst_pair(pairs: Sequence[PairLoss]) -> PairLoss:
    """The pair of largest loss (among exact ties the first attained one, else the first)."""
    best = pairs[0]
    for p in pairs[1:]:
        order = compare(p.loss, best.loss)
        if order > 0 or (order == 0 and p.attained and not best.attained):
            best = p
    return best


def vertex_search(mech: Mechanism, m: int) -> tuple[PairLoss, int]:
    """The worst pair of the exhaustive vertex neighbourhood of ``(1, ..., 1)`` (``m``
    queries, ``3**m - 1`` neighbours) and the number of neighbours compared."""
    base = (1,) * m
    if mech.output_kind == "release":
        vectors, _ = neighbours(mech, base, "exhaustive", func="verification_suite")
        found = [pair_loss(mech, "vertex search", base, v.values) for v in vectors]
        return worst_pair(found), len(vectors)
    r = check_dp(mech, base, search="exhaustive")
    w = r.witness
    if w is None:  # no output moves: loss 0
        return PairLoss("vertex search", base, base, sympy.Integer(0), "every output"), 0
    out = output_text(mech, tuple(w.scores), w.output)
    return (PairLoss("vertex search", tuple(w.scores), tuple(w.neighbour), r.loss, out),
            r.neighbours_checked)


def suite_row(spec: AlgorithmSpec, queries: int = 10,
              search_queries: int | None = SEARCH_QUERIES) -> SuiteRow:
    """One row of :func:`verification_suite` (see there)."""
    mech = build_mechanism(spec)
    m = spec.queries or queries
    m0 = None if search_queries is None else min(m, search_queries)
    try:
        elapsed = time.perf_counter()
        pairs = tuple(pair_loss(mech, name, a, b) for name, (a, b) in patterns(m).items())
        seconds = time.perf_counter() - elapsed
        search, checked, search_seconds = None, 0, 0.0
        if m0 is not None:
            elapsed = time.perf_counter()
            search, checked = vertex_search(mech, m0)
            search_seconds = time.perf_counter() - elapsed
    except ValueError as exc:  # the cost model's refusal, in the suite's words
        raise ValueError(f"verification_suite: {spec.name} on {m} queries: {exc}") from None
    checked_pairs = pairs + ((search,) if search is not None else ())
    worst = worst_pair(checked_pairs)
    if any(compare(p.loss, CLAIM) > 0 for p in checked_pairs):
        holds = False
    elif all(compare(p.upper, CLAIM) <= 0 for p in checked_pairs):
        holds = True
    else:  # an interval straddles the claim and no pair refutes it
        raise ValueError(f"verification_suite: {spec.name} on {m} queries: the loss of a "
                         "pair with no closed form brackets the claimed epsilon; the verdict "
                         "is undecided")
    all_epsilon = None
    if spec.certify:
        all_epsilon = all(certify_dp(mech, p.scores, p.neighbour).holds for p in pairs)
    return SuiteRow(holds, worst.loss, spec.name, spec.description, CLAIM, m, spec.private,
                    spec.claim, pairs, worst, search, m0, checked, spec.published(),
                    all_epsilon, seconds, search_seconds)


def verification_suite(
    queries: int = 10,
    *,
    algorithms: Sequence[str] | None = None,
    search_queries: int | None = SEARCH_QUERIES,
) -> list[SuiteRow]:
    """The DP-testing tools' suite, exactly: one :class:`SuiteRow` per algorithm.

    Parameters
    ----------
    queries : int, default 10
        The number of queries of the sparse vector rows (the tools ran 10); the
        report-noisy-max rows keep the tools' 5 scores.
    algorithms : sequence of str, optional
        Which rows, by name (:data:`~exactdp.audit.suite_specs.ALGORITHMS`: ``"RNM1"`` ..
        ``"RNM4"``, ``"SVT1"`` .. ``"SVT6"``, ``"NumericalSVT"``); default all, in order.
    search_queries : int or None, default 4
        Queries of the exhaustive vertex search around ``(1, ..., 1)`` (at most
        ``queries``; 1..6); None skips it.

    Returns
    -------
    list of SuiteRow
        Each with the exact loss on StatDP's patterns (the pairs DP-Sniper and StatDP
        reported among them), the worst pair found, the verdict with its witness, the tools'
        published numbers and the times.

    Raises
    ------
    ValueError
        ``queries`` not a positive integer, an unknown algorithm, ``search_queries`` outside
        1..6; a row whose mechanism this version of exactdp lacks; the cost model's refusal
        of a distribution too large for the exact route.

    Notes
    -----
    One pair proves nothing for all inputs: ``holds`` covers the pairs checked. A violation
    is a proof that the algorithm is not epsilon-DP.

    References
    ----------
    Ding et al., CCS 2018 (StatDP); Bichsel et al., IEEE S&P 2021 (DP-Sniper); Lyu, Su and
    Li, PVLDB 10(6), 2017; docs/suite.md.

    Examples
    --------
    >>> import exactdp
    >>> [row] = exactdp.verification_suite(algorithms=["RNM2"], search_queries=None)
    >>> row.holds, row.loss
    (True, 1/10)
    """
    func = "verification_suite"
    queries = check_int(func, "queries", queries, 1)
    if search_queries is not None:
        search_queries = check_int(func, "search_queries", search_queries, 1,
                                   MAX_SEARCH_QUERIES)
    names = list(ALGORITHMS if algorithms is None else algorithms)
    if isinstance(algorithms, str) or not names:
        raise argument_error(func, "algorithms", "a non-empty list of names from "
                             f"{', '.join(ALGORITHMS)}", algorithms)
    for name in names:
        if name not in ALGORITHMS:
            raise argument_error(func, "algorithms", f"names from {', '.join(ALGORITHMS)}",
                                 name)
    specs = {s.name: s for s in SPECS}
    for name in names:  # refuse at once, before any row runs
        precheck(specs[name], queries)
    return [suite_row(specs[n], queries, search_queries) for n in names]


def precheck(spec: AlgorithmSpec, queries: int) -> None:
    """Build the row's mechanism and run the cost model on its patterns without computing
    (a discrete distribution is lazy): a missing mechanism or a refusal raises at once."""
    mech = build_mechanism(spec)
    if mech.output_kind == "release":
        return
    m = spec.queries or queries
    try:
        for pair in patterns(m).values():
            for v in pair:
                mech.distribution(v)
    except ValueError as exc:
        raise ValueError(f"verification_suite: {spec.name} on {m} queries: {exc}") from None


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
