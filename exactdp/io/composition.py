"""Composition report and figure: accountants' claims against certified lower bounds.

``composition_report(k)`` runs :func:`exactdp.check_accountant` for the exponential
mechanism, permute-and-flip and report-noisy-max with Laplace noise and prints one table per
mechanism; ``accountant_figure(check)`` draws delta against epsilon (log scale) for every
claim and the certified lower bound. matplotlib is needed for the figure only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import sympy

from .._validate import check_int
from ..analysis import privacy_loss_distribution
from ..analysis.composition import AccountantCheck, available_claims, check_accountant
from ..analysis.peer_accountants import dp_accounting_pair_curve, package_version
from ..mechanisms import ExponentialMechanism, PermuteAndFlip, ReportNoisyMax
from ..numbers import exact_epsilon

_STYLE = {"basic": ":", "kov": "-", "drv": "-.", "zcdp": "--", "zcdp_bun_steinke": "--",
          "bounded_range": "-", "dp_accounting": ":", "opendp": "-."}


def default_epsilons(k: int, epsilon0: float) -> list[str]:
    """Eight epsilons up to about twice the composed curve's knee, at most ``k*epsilon0``.

    The knee is taken at ``2 sqrt(k) e0 + k e0^2 / 4`` (where the zCDP curve of rho =
    k e0^2/8 falls below about 1e-2), a display choice only.
    """
    top = k * epsilon0
    knee = 2 * math.sqrt(k) * epsilon0 + k * epsilon0**2 / 4
    pts = sorted({round(min(top, knee * f / 4), 3) for f in range(1, 9)})
    return [str(p) for p in pts if p > 0]


def accountant_figure(check: AccountantCheck, ax=None, floor: float = 1e-12):
    """delta against epsilon for each claim and the certified lower bound (log scale).

    Parameters
    ----------
    check : AccountantCheck
        From :func:`exactdp.check_accountant` with several epsilons.
    ax : matplotlib Axes, optional
        Where to draw; a new ``matplotlib.figure.Figure`` is made if omitted.
    floor : float
        Values below it (including 0) are drawn at ``floor``.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ImportError
        If matplotlib is not installed.
    """
    from matplotlib.figure import Figure  # optional dependency, only for this function

    if ax is None:
        fig = Figure(figsize=(6.4, 4.2))
        ax = fig.add_subplot(1, 1, 1)
    else:
        fig = ax.figure
    eps = [float(b.epsilon) for b in check.bounds]
    lower = [max(float(b.lower), floor) for b in check.bounds]
    from .figures import OUTPUT_COLOURS

    markers = "osv^Dpx*"
    for i, name in enumerate(dict.fromkeys(r.claim for r in check.rows)):
        ys = [max(float(r.claimed_delta), floor) for r in check.rows if r.claim == name]
        ax.plot(eps, ys, ls=_STYLE.get(name, "-"), label=name.replace("_", r"$\_$"),
                color=OUTPUT_COLOURS[i % (len(OUTPUT_COLOURS) - 1)], lw=1.3,
                marker=markers[i % len(markers)], ms=3.5, mfc="white")
    ax.plot(eps, lower, "ko", ms=4, label="certified lower bound")
    bad = [(float(r.epsilon), max(float(r.lower_bound), floor)) for r in check.rows
           if not r.holds]
    if bad:
        ax.plot(*zip(*bad, strict=True), "kx", markersize=10, label="refuted claim")
    ax.set_yscale("log")
    ax.set_xlabel(r"privacy parameter $\varepsilon$")
    ax.set_ylabel(r"$\delta$")
    ax.set_title(f"{check.mechanism}, k = {check.k}, scores {list(check.scores)}", fontsize=9)
    ax.legend(fontsize=7)
    return fig


def composition_report(k: int, epsilon: object = "1", scores: Sequence = (0, 1, 2),
                       epsilons: Sequence | None = None, claims=None,
                       figure_prefix: str | None = None) -> str:
    """Tables of :func:`exactdp.check_accountant` for EM, PF and RNM-Laplace at k rounds.

    Parameters
    ----------
    k : int
        Number of rounds.
    epsilon : exact number
        Per-round epsilon of the three mechanisms.
    scores : sequence of numbers
        The lower bounds search the neighbours of these scores.
    epsilons : sequence of numbers, optional
        Where the curves are compared (default :func:`default_epsilons`).
    claims : sequence of str
    figure_prefix : str, optional
        If given, save one PNG per mechanism as ``{prefix}-{mechanism}.png``.

    Returns
    -------
    str
    """
    eps0 = exact_epsilon(epsilon)
    eps_list = list(epsilons) if epsilons is not None else default_epsilons(k, float(eps0))
    mechs = [ExponentialMechanism(eps0), PermuteAndFlip(eps0),
             ReportNoisyMax(eps0, noise="laplace")]
    out = [f"composition: k = {k}, epsilon = {eps0} per round; a claim is refuted (NO) when "
           "the certified lower bound exceeds it"]
    for mech in mechs:
        check = check_accountant(mech, list(scores), k, eps_list, claims=claims)
        out.append("")
        out.append(check.table())
        algs = sorted({b.delta.algorithm for b in check.bounds})
        w = check.bounds[-1].witness
        out.append(f"lower bound: {', '.join(algs)}; witness pair "
                   f"{list(w.scores)} -> {list(w.neighbour)}")
        if check.versions:
            out.append("audited versions: " + ", ".join(f"{a} {v}"
                                                         for a, v in check.versions.items()))
        if figure_prefix:
            from matplotlib import rc_context

            from .figures import STYLE

            with rc_context(STYLE):  # the report's figure style (Computer Modern)
                fig = accountant_figure(check)
                name = type(mech).__name__
                fig.savefig(f"{figure_prefix}-{name}.png", dpi=120, bbox_inches="tight")
    return "\n".join(out)


#: The docs' table: one epsilon per k (per-round epsilon 1, scores [0, 1, 2]).
TABLE_POINTS = ((1, "1/2"), (10, "4"), (100, "20"))


def _fmt(x) -> str:
    v = float(x)
    return "0" if v == 0 else f"{v:.4g}"


def composition_table(points=TABLE_POINTS, epsilon: object = "1",
                      scores: Sequence = (0, 1, 2), claims=None) -> str:
    """The docs' markdown table: lower bound and every claim per mechanism and k.

    A refuted claim is marked ``NO``. The lower bound is the exact delta of the witness pair's
    k-fold composition (``algorithm`` column), a certified lower bound of the mechanism's
    composed curve.
    """
    eps0 = exact_epsilon(epsilon)
    claims = available_claims() if claims is None else tuple(claims)
    mechs = [ExponentialMechanism(eps0), PermuteAndFlip(eps0),
             ReportNoisyMax(eps0, noise="laplace")]
    head = ["mechanism", "k", "epsilon", "lower bound", "algorithm", *claims]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for mech in mechs:
        for k, e in points:
            check = check_accountant(mech, list(scores), k, [e], claims=claims)
            b = check.bounds[0]
            cells = [type(mech).__name__, str(k), str(e), _fmt(b.lower), b.delta.algorithm]
            for r in check.rows:
                cells.append(_fmt(r.claimed_delta) + ("" if r.holds else " **NO**"))
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# ------------------------------------------------------------ the report's pair, composed
@dataclass(frozen=True)
class PairComposition:
    """``delta(epsilon)`` of one neighbouring pair after k-fold composition, on a grid.

    Attributes
    ----------
    title : str
        The panel's title (mechanism and case).
    k : int
        Number of composed copies.
    epsilons : tuple of sympy.Rational, shape (m,)
        The grid (exact round values from 0 to below ``k`` times the pair's largest loss).
    lower, upper : tuple of Fraction, shape (m,)
        exactdp's certified bounds ``lower <= delta(epsilon) <= upper``.
    algorithms : tuple of str
        The :class:`~exactdp.HockeyStick` algorithms used ("exact", "grid", ...).
    pessimistic, optimistic : tuple of float, shape (m,), or None
        dp_accounting's estimates of the same pair (float64 inputs, its own loss grid; not
        certified); None when the ``accounting`` extra is not installed.
    top : float
        ``k`` times the pair's largest finite loss (display only): delta is the mass at
        infinite loss (0 here unless an output is impossible under the neighbour) beyond it.
    """

    title: str
    k: int
    epsilons: tuple
    lower: tuple
    upper: tuple
    algorithms: tuple
    pessimistic: tuple | None
    optimistic: tuple | None
    top: float


def composition_epsilons(top: float, points: int = 12) -> tuple:
    """Round exact epsilons ``0, s, 2s, ...`` below ``top``, ``s`` in ``{1, 2, 2.5, 5} 10^j``.

    About ``points`` values; ``(0,)`` when ``top <= 0``.
    """
    if not top > 0:
        return (sympy.Integer(0),)
    raw = top / points
    j = math.floor(math.log10(raw))
    step = next(sympy.Rational(m) * sympy.Rational(10) ** j
                for m in ("1", "2", "5/2", "5", "10") if float(sympy.Rational(m)) * 10.0**j >= raw)
    return tuple(i * step for i in range(points + 2) if float(i * step) < top)


#: Most output-count vectors the figure counts exactly (beyond: the certified lattice, whose
#: cost per epsilon is bounded; exact counting of 10^5 vectors takes seconds per epsilon).
FIGURE_MAX_SUPPORT = 5_000


def pair_composition(mechanism, scores, neighbour, k: int, title: str, points: int = 12,
                     rtol: float = 1e-2) -> PairComposition:
    """exactdp's certified and dp_accounting's float ``delta(epsilon)`` of a pair, k-fold.

    Parameters
    ----------
    mechanism : Mechanism
        With exact output probabilities (``privacy_loss_distribution``).
    scores, neighbour : sequences of exact numbers, shape (n,)
        A neighbouring pair.
    k : int
        Number of composed copies (>= 1).
    title : str
    points : int
        About this many epsilons (:func:`composition_epsilons`).
    rtol : float
        Relative tolerance of the certified lattice when the composition is not counted
        exactly (more than :data:`FIGURE_MAX_SUPPORT` output-count vectors; see
        :meth:`~exactdp.DiscretisedPLD.delta`).

    Raises
    ------
    TooCostly
        The composition exceeds the cost model (the message names a coarser route).
    """

    pld = privacy_loss_distribution(mechanism, scores, neighbour)
    top = k * float(pld.max_loss().mid())
    if pld.p_inf != 0:
        top = max(1.2 * top, float(k * mechanism.epsilon))
    grid = composition_epsilons(top, points)
    composed = pld.self_compose(k, max_support=FIGURE_MAX_SUPPORT)
    sticks = [composed.delta(e, rtol=rtol, atol=1e-12) for e in grid]
    pess = opt = None
    try:
        p = [float(v) for v in mechanism.distribution(scores).evalf(20)]
        q = [float(v) for v in mechanism.distribution(neighbour).evalf(20)]
        pess = dp_accounting_pair_curve(p, q, k, grid, pessimistic=True)
        opt = dp_accounting_pair_curve(p, q, k, grid, pessimistic=False)
    except ImportError:
        pass
    return PairComposition(title, k, grid, tuple(s.lower for s in sticks),
                           tuple(s.upper for s in sticks),
                           tuple(dict.fromkeys(s.algorithm for s in sticks)), pess, opt, top)


#: (label, colour key, line style, marker, markevery) of the four curves.
_PAIR_CURVES = (
    ("exactdp lower (certified)", "blue", "-", "o", (0, 4)),
    ("exactdp upper (certified)", "vermillion", "--", "s", (2, 4)),
    (r"dp$\_$accounting pessimistic (float)", "green", ":", "^", (1, 4)),
    (r"dp$\_$accounting optimistic (float)", "orange", "-.", "D", (3, 4)),
)


def plot_pair_compositions(items: Sequence[PairComposition], ncols: int = 2):
    """One panel per pair: the four curves of :class:`PairComposition`, delta on a log axis.

    Zeros (beyond ``k`` times the largest loss) are not drawn on the log axis. Uses the
    report's figure style (:data:`exactdp.io.figures.STYLE`, Okabe-Ito colours, one shared
    legend); call it inside ``matplotlib.rc_context(STYLE)``.
    """
    from .figures import OKABE_ITO, new_figure, shared_legend

    ncols = min(ncols, len(items))
    nrows = -(-len(items) // ncols)
    fig = new_figure(ncols, nrows, height=1.9)
    for ax, it in zip(fig.axes, items, strict=False):
        series = [it.lower, it.upper, it.pessimistic, it.optimistic]
        for (label, colour, ls, marker, every), ys in zip(_PAIR_CURVES, series, strict=True):
            if ys is None:
                continue
            pts = [(float(e), float(y)) for e, y in zip(it.epsilons, ys, strict=True) if y > 0]
            if not pts:
                continue
            ax.plot(*zip(*pts, strict=True), ls=ls, color=OKABE_ITO[colour], label=label,
                    lw=1.3, marker=marker, markevery=every, ms=3.5, mfc="white")
        ax.set(yscale="log", xlabel=r"privacy parameter $\varepsilon$ after composition",
               ylabel=r"$\delta(\varepsilon)$", title=it.title)
        ax.grid(alpha=0.3)
    for ax in fig.axes[len(items):]:
        ax.set_visible(False)
    shared_legend(fig, ncol=2)
    return fig


#: The report's mechanisms drawn in the composition figure (when the report has them).
COMPOSITION_MECHANISMS = ("EM", "PF")


def report_pairs(report, k: int) -> list[PairComposition]:
    """:func:`pair_composition` of EM and PF on each case's pair (its neighbour, or the worst
    neighbour found when the report has none)."""
    items = []
    for case in report.cases:
        results = [r for r in case.results if r.label in COMPOSITION_MECHANISMS]
        for r in results or list(case.results[:1]):
            neighbour = case.neighbour if case.neighbour is not None else tuple(
                r.worst.witness.neighbour)
            items.append(pair_composition(r.mechanism, case.scores, neighbour, k,
                                          f"{r.label}, score {case.title}"))
    return items


def composition_figure(report, k: int, out_dir):
    """Draw and write ``composition-pair.png`` / ``.pdf`` for the report; its FigureSpec.

    In the report's figure style (:data:`exactdp.io.figures.STYLE`); the caption says which
    curves are certified and which are float.
    """
    from pathlib import Path

    from matplotlib import rc_context

    from .figures import STYLE, FigureSpec, save_figure

    k = check_int("write_report", "options['compose']", k, 1)
    items = report_pairs(report, k)
    with rc_context(STYLE):
        fig = plot_pair_compositions(items)
        png, pdf = save_figure(fig, Path(out_dir), "composition-pair")
    algs = sorted({a for it in items for a in it.algorithms})
    how = {"exact": "every composed output sequence counted exactly",
           "grid": "rigorous arb enclosures on a loss lattice, losses shifted down and up",
           "closed form": "a closed form"}
    certified = ", or ".join(how.get(a, a) for a in algs)
    same = ("; here the two coincide to the drawing's precision" if algs == ["exact"] else "")
    if items[0].pessimistic is None:
        peer = ("\\texttt{dp\\_accounting} (the optional \\texttt{accounting} extra, "
                "\\texttt{pip install 'exactdp[accounting]'}) is not installed: its estimates "
                "are not drawn.")
        peer_t = ("dp_accounting (the optional accounting extra) is not installed: its "
                  "estimates are not drawn.")
    else:
        v = package_version("dp-accounting")
        peer_t = (f"dp_accounting {v}'s pessimistic and optimistic estimates of the same pair "
                  "are floats (float64 probabilities, its own discretised loss grid, FFT "
                  "composition): estimates, not certified bounds.")
        peer = peer_t.replace("dp_accounting", "\\texttt{dp\\_accounting}")
    mechs = ", ".join(dict.fromkeys(it.title.split(",")[0] for it in items))
    sizes = sorted({len(it.epsilons) for it in items})
    span = str(sizes[0]) if len(sizes) == 1 else f"{sizes[0]} to {sizes[-1]}"
    text = (f"Privacy curve delta(epsilon) of the report's neighbouring pair (q, q') after "
            f"K = {k}-fold composition ({mechs}; one panel per mechanism and score), epsilon "
            f"on {span} round exact values per panel from 0 to below K times the pair's "
            "largest finite loss, delta on a log axis. exactdp's lower "
            f"and upper curves are certified ({certified}){same}. ")
    tex = (f"Privacy curve $\\delta(\\varepsilon)$ of the report's neighbouring pair "
           f"$(q, q')$ after $K = {k}$-fold composition ({mechs}; one panel per mechanism and "
           f"score), $\\varepsilon$ on {span} round exact values per panel "
           f"from 0 to below $K$ times the pair's largest finite loss, $\\delta$ on a log "
           "axis. \\texttt{exactdp}'s lower and upper curves are "
           f"certified ({certified}){same}. ")
    gap = any(lo == 0 < hi for it in items for lo, hi in zip(it.lower, it.upper, strict=True))
    tail = (" Where the certified lower bound is 0 (the lattice's absolute tolerance is 1e-12) "
            "only the upper curve is drawn." if gap else "")
    above = any(o > float(hi) for it in items if it.optimistic is not None
                for o, hi in zip(it.optimistic, it.upper, strict=True))
    if above:
        tail += (" dp_accounting's estimates level off near 1e-15 (a floor of the library's "
                 "float computation), there above exactdp's certified upper bound.")
    zero = (tail + " delta = 0 is not drawn: beyond K times the pair's largest finite loss the "
            "curve is the mass at infinite loss.")
    zero_tex = zero.replace("delta = 0", "$\\delta = 0$").replace("K times", "$K$ times").replace(
        "1e-12", "$10^{-12}$").replace("1e-15", "$10^{-15}$").replace(
        "dp_accounting's", "\\texttt{dp\\_accounting}'s").replace(
        "exactdp's", "\\texttt{exactdp}'s")
    return FigureSpec("composition-pair", png, pdf, tex + peer + zero_tex, text + peer_t + zero)
