"""The report above the exact route's size: decimals from the mpmath route, a heuristic
neighbour search, no exact appendix (issue 20).

Where the cost model :func:`exact_report_seconds` puts the exact report (sympy
probabilities, the vertex-neighbour check, certificates for every epsilon) above
:data:`EXACT_REPORT_SECONDS`, :func:`numeric_case` answers the same questions by cheaper
routes and the report says so:

- probabilities and expected errors: each mechanism's mpmath view (``evalf``), correct to
  the printed digits;
- the loss against the given neighbour: ``max_r |ln P_r - ln P'_r|`` from both mpmath views
  at :data:`LOSS_DPS` digits (not certified: no enclosure);
- the worst loss: the same over :func:`heuristic_neighbours`, the reduced neighbours of
  regular mechanisms (McKenna & Sheldon 2020, Lemma 1) for one output per distinct score
  (outputs of equal score give permuted neighbours, hence equal losses), sampled when there
  are more than :data:`SEARCH_SCORES` distinct scores;
- PF's dominance over EM: the error tails compared on the mpmath values;
- no certificates for every epsilon, and no exact appendix.

:func:`check_numeric_report` refuses at once (through :mod:`exactdp.cost`) what even these
routes cannot finish.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass

import mpmath
import numpy as np
import sympy

from .._validate import argument_error, short_number
from ..analysis.neighbourhood import EXHAUSTIVE_MAX_N
from ..cost import check_seconds, fmt_size, laplace_mp_seconds, refuse
from ..mechanisms import REGISTRY
from ..progress import NoBar
from ..scores import ScoreVector

#: Digits of the probabilities the losses and dominance margins are computed from.
LOSS_DPS = 20
#: Most distinct scores whose reduced neighbours are all searched; beyond, a sample of them.
SEARCH_SCORES = 8
#: Margins of the error tails within ``10^-MARGIN_DIGITS`` of 0 count as ties.
MARGIN_DIGITS = 15
#: Largest estimated run time (seconds) of the numeric report before refusing.
NUMERIC_REPORT_SECONDS = 120.0
#: Most scores the numeric report takes (its tables print one row per output).
NUMERIC_REPORT_MAX_N = 20_000
#: The neighbour search ranks on float64 probabilities above this (no underflow) ...
FLOAT_FLOOR = 1e-290
#: ... and recomputes this many leaders from mpmath values.
LEADERS = 3


#: Largest estimated CPU time (seconds) of the exact report; above, the numeric route,
#: which answers in seconds (0.6 s on 60 scores of 7 distinct values, 2.1 s on 80). With
#: :func:`exact_report_seconds` within a factor 2 of the measured CPU time, 15 s keeps the
#: routes the report took when its estimate was 5-9x high under 120 s: exact up to 20
#: distinct scores (12 s) and on 60 scores of 3 distinct values (3.6 s); numeric on 25
#: distinct scores (30 s exact) and on 60 or 80 scores of 7 distinct values (19 s, 26 s).
EXACT_REPORT_SECONDS = 15.0


def exact_report_seconds(n: int, distinct: int, mechanisms: int = 5) -> float:
    """Estimated CPU seconds of the exact report (before the figures and LaTeX) on ``n``
    scores with ``distinct`` distinct values and ``mechanisms`` mechanisms.

    ``0.05 + (1e-3 n d^2 + 7e-4 n^2 d) (m + 1) / 6 + 2e-4 m (3^n - 1)`` s: the pair's exact
    losses, the worst-loss search and PF's dominance certificate on ``n`` outputs whose
    probabilities are sums over the ``d`` distinct scores, and up to ``EXHAUSTIVE_MAX_N``
    scores every one of the ``3^n - 1`` vertex neighbours checked. Fitted (least squares
    on the logarithms, then rounded up) to ``time.process_time`` of ``build_report`` with a
    neighbour and five mechanisms, one process per size: scores ``0..n-1`` for n = 2 / 4 /
    5 / 6 / 8 / 10 / 12 / 16 / 20 / 25 / 30 took 0.05 / 0.16 / 0.38 / 1.1 / 0.65 / 1.3 /
    2.4 / 8.4 / 11.7 / 29.8 / 70 s; ``i % 3`` on 16 / 30 / 40 / 60 scores 0.69 / 3.0 / 5.3
    / 3.6 s, ``i % 7`` on 60 / 80 scores 19.4 / 25.6 s. The estimate is within a factor 2.3
    of each (2.3x above on 60 scores of 3 values; 1.5x below at most, on 30 distinct
    scores).
    """
    vertices = 3**n - 1 if n <= EXHAUSTIVE_MAX_N else 0
    return (0.05 + (1e-3 * n * distinct**2 + 7e-4 * n * n * distinct) * (mechanisms + 1) / 6
            + 2e-4 * mechanisms * vertices)


def exact_route(n: int, distinct: int, mechanisms: int = 5) -> bool:
    """Whether the report takes its exact route (estimate within
    :data:`EXACT_REPORT_SECONDS`)."""
    return exact_report_seconds(n, distinct, mechanisms) <= EXACT_REPORT_SECONDS


#: Progress steps of one mechanism on the exact route (distribution and pair, worst,
#: certificate); the dominance of PF over EM is one more.
STEPS = 3


def report_bar(total: int, progress: bool, seconds: float | None = None):
    """The report's tqdm bar on standard error (shown when it is a terminal), with the exact
    route's estimate (:func:`exact_report_seconds`) in its description; a
    :class:`~exactdp.progress.NoBar` otherwise, so that a report in a pipe or without
    ``progress`` does not import tqdm (~40 ms)."""
    if not (progress and sys.stderr.isatty()):
        return NoBar()
    from tqdm import tqdm
    desc = "exactdp report" + (f" (about {seconds:.0f} s CPU)" if seconds and seconds > 2 else "")
    return tqdm(total=total, desc=desc, unit="step", file=sys.stderr,
                disable=None if progress else True, leave=False)


def numeric_report_seconds(n: int, distinct: int, mechanisms: int = 5) -> float:
    """Estimated seconds of the numeric report on ``n`` scores with ``distinct`` distinct
    values: per mechanism and per distribution (the scores, the neighbour, the searched
    neighbours) an mpmath view of about ``6e-5 n`` s (RNM-Laplace: its series on the
    distinct gaps, :func:`exactdp.cost.laplace_mp_seconds`), ``3e-6 n`` s per loss, and the
    figures' float views (measured n = 3000: EM / PF / RNM-Exp views 0.07-0.2 s,
    RNM-Laplace 0.5 s with 7 distinct scores, 1.3 s with 3000)."""
    vectors = 2 + 2 * min(distinct, SEARCH_SCORES) + 2
    view = 6e-5 * n * (mechanisms - 1) + laplace_mp_seconds(distinct, LOSS_DPS) + 2e-5 * n
    return vectors * (view + 3e-6 * n * mechanisms) + 5.0


def check_numeric_report(func: str, n: int, distinct: int, option: str = "scores") -> None:
    """Refuse (at once) a numeric report on ``n`` scores that would exceed its limits."""
    if n > NUMERIC_REPORT_MAX_N:
        raise refuse(func, f"the report on n = {n} scores (mpmath route)",
                     f"tables of {n} rows", f"n <= {NUMERIC_REPORT_MAX_N}",
                     "for the probabilities use `exactdp table --scores ... --no-exact`, or "
                     "ExponentialMechanism(...).distribution(q).to_numpy() from Python")
    check_seconds(func, f"the report on n = {n} scores with {distinct} distinct values "
                  "(mpmath route)", numeric_report_seconds(n, distinct),
                  "use `exactdp table --scores ... --no-exact` for the probabilities, and "
                  "privacy_loss from Python on the pairs that matter",
                  NUMERIC_REPORT_SECONDS)


def route_note(n: int, distinct: int, mechanisms: int, search: str) -> tuple[str, str]:
    """The sentence (text, LaTeX) that says which routes the report took, and why."""
    est = fmt_size(exact_report_seconds(n, distinct, mechanisms))
    limit = f"{EXACT_REPORT_SECONDS:.0f}"
    text = (f"n = {n} scores ({distinct} distinct): the exact route would take about {est} s "
            f"(more than {limit} s), so probabilities and "
            "expected errors are mpmath values (evalf, correct to the printed digits); "
            f"privacy losses are computed from {LOSS_DPS}-digit mpmath probabilities (not "
            f"certified; a loss within 1e-{MARGIN_DIGITS} of epsilon counts as equal); the "
            f"worst loss is searched over {search} (ranked on float64 values where they do not "
            f"underflow, the {LEADERS} leaders recomputed); PF's dominance over EM is compared "
            "on the same values; no certificate for every epsilon; the appendix of exact "
            "probabilities is left out.")
    latex = (f"\\textbf{{Cheaper route.}} $n = {n}$ scores ({distinct} distinct): the exact "
             f"route would take about {est}~s (more than {limit}~s), so probabilities and "
             "expected errors are \\texttt{mpmath} values "
             "(\\texttt{evalf}, correct to the printed digits); privacy losses are computed "
             f"from {LOSS_DPS}-digit \\texttt{{mpmath}} probabilities (not certified; a loss "
             f"within $10^{{-{MARGIN_DIGITS}}}$ of $\\varepsilon$ counts as equal); the worst "
             f"loss is searched over {search} (ranked on float64 values where they do not "
             f"underflow, the {LEADERS} leaders recomputed); PF's dominance over EM is compared "
             "on the same values; no certificate for every $\\varepsilon$; the appendix of exact "
             "probabilities is left out.")
    return text, latex


@dataclass(frozen=True)
class NumericWitness:
    """The neighbour and output of a numeric loss."""

    neighbour: tuple
    output: int


@dataclass(frozen=True)
class NumericLoss:
    """A privacy loss from mpmath probabilities (not certified), over ``neighbours_checked``
    neighbours: the pair's loss (one neighbour) or the heuristic search's largest."""

    loss: mpmath.mpf
    holds: bool
    witness: NumericWitness | None
    neighbours_checked: int
    how: str
    certified: bool = False
    caveat: str | None = "mpmath values, not certified"


@dataclass(frozen=True)
class NumericDominance:
    """PF's error tails against EM's on mpmath values (ties within ``10^-MARGIN_DIGITS``)."""

    holds: bool
    witness: sympy.Expr | None
    certified: bool = False


def _integer_vector(q: Sequence, sens) -> bool:
    return isinstance(sens, sympy.Integer) and all(isinstance(v, sympy.Integer) for v in q)


def heuristic_neighbours(q: Sequence, sens, monotonic: bool,
                         sample: int = SEARCH_SCORES) -> tuple[list[ScoreVector], str]:
    """The neighbours searched for the worst loss, and a description of the search.

    The reduced set of regular mechanisms (``q + Delta (2 e_r - 1)`` and its reverse;
    monotonic: ``+-Delta e_r``, ``+-Delta (1 - e_r)``; the all-up and all-down shifts) for
    one output ``r`` per distinct score; with more than ``sample`` distinct scores, the
    outputs of the largest and smallest scores and a seeded sample of the others.
    """
    n = len(q)
    first: dict = {}
    for r, v in enumerate(q):
        first.setdefault(v, r)
    order = sorted(first, key=lambda v: -sympy.sympify(v))  # exact comparison
    if len(order) <= sample:
        chosen = [first[v] for v in order]
        how = (f"the reduced neighbours of regular mechanisms for one output of each of the "
               f"{len(order)} distinct scores (the others are permutations of these)")
    else:
        ends = order[: sample // 2 - 1] + order[-(sample // 2 - 1):]
        rest = [v for v in order if v not in set(ends)]
        rng = np.random.default_rng(0)
        picks = [rest[i] for i in sorted(rng.choice(len(rest), sample - len(ends), False))]
        chosen = [first[v] for v in ends + picks]
        how = (f"a heuristic sample: the reduced neighbours of regular mechanisms for "
               f"{sample} of the {len(order)} distinct scores (the {sample // 2 - 1} largest, "
               f"the {sample // 2 - 1} smallest, {sample - len(ends)} drawn with seed 0)")
    ints = _integer_vector(q, sens)
    base = np.array([int(v) for v in q], dtype=np.int64) if ints else list(q)
    d = int(sens) if ints else sens
    moves = []
    for r in chosen:
        e = np.zeros(n, dtype=np.int64)
        e[r] = 1
        pair = (e, 1 - e) if monotonic else (2 * e - 1,)
        for m in pair:
            moves += [m, -m]
    moves += [np.ones(n, dtype=np.int64), -np.ones(n, dtype=np.int64)]
    out = []
    for m in moves:
        vec = base + d * m if ints else [a + d * int(s) for a, s in zip(base, m, strict=True)]
        out.append(ScoreVector.from_input(vec, "neighbour"))
    return out, f"{len(out)} neighbours: {how}"


def _loss(p: Sequence, p2: Sequence) -> tuple[mpmath.mpf, int]:
    """``max_r |ln p_r - ln p2_r|`` and the output attaining it (inf where one side is 0)."""
    best, arg = mpmath.mpf(0), 0
    with mpmath.workdps(LOSS_DPS + 5):
        for r, (a, b) in enumerate(zip(p, p2, strict=True)):
            if (a == 0) != (b == 0):
                return mpmath.inf, r
            if a != 0:
                v = abs(mpmath.log(a) - mpmath.log(b))
                if v > best:
                    best, arg = v, r
    return best, arg


def _at_most(loss, epsilon) -> bool:
    """``loss <= epsilon``, a loss within ``10^-MARGIN_DIGITS`` (relative) of epsilon
    counting as equal: the mechanisms attain their bound, and 20-digit values cannot
    decide a tie (the exact route does)."""
    if epsilon == sympy.oo:
        return True
    with mpmath.workdps(LOSS_DPS + 5):
        eps = mpmath.mpf(sympy.N(epsilon, LOSS_DPS + 5))
        return bool(loss <= eps * (1 + mpmath.mpf(10) ** -MARGIN_DIGITS))


def _rank_loss(p64, f2) -> float | None:
    """The pair's loss on float64 views over the outputs where neither underflows (None when
    there is none): a ranking of the neighbours, not a reported value."""
    keep = (p64 > FLOAT_FLOOR) & (f2 > FLOAT_FLOOR)
    if not keep.any():
        return None
    return float(np.max(np.abs(np.log(p64[keep]) - np.log(f2[keep]))))


def _search(mech, dist, probs, nbrs, epsilon) -> NumericLoss:
    """The largest loss over ``nbrs``: the neighbours ranked on their float64 views (over
    the outputs where no probability underflows; mpmath where every one does), the
    :data:`LEADERS` first recomputed from mpmath values (``probs``: those of ``dist``)."""
    ranked = []
    p64 = dist.to_numpy()
    for sv in nbrs:
        other = mech.distribution(sv)
        v = _rank_loss(p64, other.to_numpy())
        ranked.append((_loss(probs, other.evalf(LOSS_DPS))[0] if v is None else v, sv))
    best = (mpmath.mpf(-1), 0, None)
    for _, sv in sorted(ranked, key=lambda t: -t[0])[:LEADERS]:
        loss, r = _loss(probs, mech.distribution(sv).evalf(LOSS_DPS))
        if loss > best[0]:
            best = (loss, r, sv)
    loss, r, sv = best
    witness = NumericWitness(tuple(sv.exact), r) if loss > 0 and sv is not None else None
    return NumericLoss(loss, _at_most(loss, epsilon), witness, len(nbrs), "heuristic")


def _dominance(pf_probs, em_probs, gaps) -> NumericDominance:
    """Whether PF's error tail is at most EM's at every threshold (mpmath values)."""
    tol = mpmath.mpf(10) ** -MARGIN_DIGITS
    order = sorted(range(len(gaps)), key=lambda r: gaps[r], reverse=True)
    tail_pf = tail_em = mpmath.mpf(0)
    with mpmath.workdps(LOSS_DPS + 5):
        for k, r in enumerate(order):
            tail_pf += pf_probs[r]
            tail_em += em_probs[r]
            last = k + 1 == len(order) or gaps[order[k + 1]] != gaps[r]
            if last and gaps[r] > 0 and tail_pf - tail_em > tol:
                return NumericDominance(False, gaps[r])
    return NumericDominance(True, None)


def check_neighbour(func: str, q: Sequence, q2: Sequence, sens, monotonic: bool) -> None:
    """Refuse a ``q2`` that is not a neighbour of ``q``: a move beyond the sensitivity, or
    (monotonic) moves up and down (exact comparisons)."""
    diffs = [sympy.sympify(b - a) for a, b in zip(q, q2, strict=True)]
    for i, d in enumerate(diffs):
        if abs(d) > sens:
            raise argument_error(func, f"neighbour[{i}]", f"within the sensitivity {sens} of "
                                 f"scores[{i}] (the difference is {short_number(d)})", q2[i])
    if monotonic and any(d > 0 for d in diffs) and any(d < 0 for d in diffs):
        raise ValueError(f"{func}: a monotonic score function's neighbour moves every score "
                         "in the same direction, but neighbour moves some up and some down")


def numeric_case(q, q2, sens, monotonic: bool, epsilon, bar,
                 keys: Sequence[str]) -> tuple[list[tuple], NumericDominance, tuple[str, str]]:
    """The report's results on ``q`` by the cheaper routes: per mechanism the fields of an
    :class:`exactdp.io.report.MechanismResult` (label, mechanism, distribution, expected
    error, the pair's loss, the searched worst loss, no certificate and why), PF's dominance
    over EM, and the note (text, LaTeX) that says which routes (:func:`route_note`)."""
    if q2 is not None:
        check_neighbour("build_report", q, q2, sens, monotonic)
    mechs = {k: REGISTRY[k].at_epsilon(epsilon, sensitivity=sens, monotonic=monotonic)
             for k in keys}
    nbrs, how = heuristic_neighbours(q, sens, monotonic)
    rows, probs = [], {}
    sv = ScoreVector.from_input(list(q), "scores")
    sv2 = None if q2 is None else ScoreVector.from_input(list(q2), "neighbour")
    gaps = sv.gaps_mp(LOSS_DPS + 10)
    for k, mech in mechs.items():
        dist = mech.distribution(sv)
        p = probs[k] = dist.evalf(LOSS_DPS)
        pair = None
        if sv2 is not None:
            loss, r = _loss(p, mech.distribution(sv2).evalf(LOSS_DPS))
            pair = NumericLoss(loss, _at_most(loss, epsilon), NumericWitness(tuple(q2), r), 1,
                               "given")
        worst = _search(mech, dist, p, nbrs, epsilon)
        with mpmath.workdps(LOSS_DPS + 10):  # = expected_error("mpmath"), on these values
            error = mpmath.fsum(g * v for g, v in zip(gaps, p, strict=True))
        rows.append((REGISTRY[k].label, mech, dist, error, pair, worst, None,
                     f"not attempted (n = {len(q)})"))
        bar.update(1)
    pf, em = (REGISTRY[k].at_epsilon(epsilon, sensitivity=sens, monotonic=monotonic)
              for k in ("pf", "em"))
    p_pf = probs.get("pf") or pf.distribution(sv).evalf(LOSS_DPS)
    p_em = probs.get("em") or em.distribution(sv).evalf(LOSS_DPS)
    dom = _dominance(p_pf, p_em, pf.distribution(sv).scores.gaps_exact)
    return rows, dom, route_note(len(q), len(set(sv.exact)), len(keys), how)


def numeric_estimate_text(n: int, distinct: int) -> str:
    """The numeric report's estimated run time, for messages."""
    return f"about {fmt_size(numeric_report_seconds(n, distinct))} s"
