"""Composition report and figure: accountants' claims against certified lower bounds.

``composition_report(k)`` runs :func:`exactdp.check_accountant` for the exponential
mechanism, permute-and-flip and report-noisy-max with Laplace noise and prints one table per
mechanism; ``accountant_figure(check)`` draws delta against epsilon (log scale) for every
claim and the certified lower bound. matplotlib is needed for the figure only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..analysis.composition import AccountantCheck, available_claims, check_accountant
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
    for name in dict.fromkeys(r.claim for r in check.rows):
        ys = [max(float(r.claimed_delta), floor) for r in check.rows if r.claim == name]
        ax.plot(eps, ys, _STYLE.get(name, "-"), label=name)
    ax.plot(eps, lower, "ko", label="certified lower bound")
    bad = [(float(r.epsilon), max(float(r.lower_bound), floor)) for r in check.rows
           if not r.holds]
    if bad:
        ax.plot(*zip(*bad, strict=True), "rx", markersize=10, label="refuted claim")
    ax.set_yscale("log")
    ax.set_xlabel("epsilon")
    ax.set_ylabel("delta")
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
