"""The report on the built-in pricing example (MATH.md section 8): ``exactdp report``."""

from __future__ import annotations

import mpmath
import sympy

from ..analysis import certify_dp, check_dp, privacy_loss
from ..examples.pricing import PRICES, PRICING, all_answers
from ..mechanisms import ExponentialMechanism, PermuteAndFlip, ReportNoisyMax
from ..numbers import exact_epsilon
from .latex import mechanism_label, probability_table

__all__ = ["pricing_report"]

_EPS = sympy.Symbol("epsilon", positive=True)


def _mechanisms(epsilon, sensitivity):
    mechs = [
        ExponentialMechanism(epsilon, sensitivity),
        PermuteAndFlip(epsilon, sensitivity),
        ReportNoisyMax(epsilon, sensitivity, noise="exponential"),
        ReportNoisyMax(epsilon, sensitivity, noise="laplace"),
    ]
    return mechs


def _certified(mech, q, q2) -> str:
    """'yes' if the pair's ratio bound is proved for every epsilon > 0, else why not."""
    m = mech.with_epsilon(_EPS)
    try:  # only the missing x-form is expected; any other error is a real error
        for v in (q, q2):
            m.distribution(v).rational_form()
    except ValueError:
        return "n/a (not rational in x)"
    cert = certify_dp(m, q, q2)
    return "yes" if cert.holds else "NO"


def pricing_report(epsilon="1", *, fmt: str = "text", digits: int = 6) -> str:
    """Probabilities, expected errors and privacy losses on the pricing example.

    Parameters
    ----------
    epsilon : exact number, default "1"
    fmt : {"text", "latex"}
    digits : int
        Significant digits of decimals.

    Returns
    -------
    str
        The report (plain text with tables, or LaTeX tables).
    """
    eps = exact_epsilon(epsilon)
    out: list[str] = []
    if fmt == "text":
        out.append("exactdp report: the pricing example (notes, Example 1.3)")
        out.append(f"prices R = {PRICES}; epsilon = {eps}")
        out.append("database D : " + "; ".join(
            f"person {i + 1}: {sorted(s)}" for i, s in enumerate(PRICING.database)))
        out.append("neighbour D': person 4 answers [1]")
    for key in ("buyers", "revenue"):
        func = PRICING.score(key)
        q, q2 = func.scores(PRICING.database), func.scores(PRICING.neighbour)
        sens = func.sensitivity(PRICING.database, all_answers())
        mechs = _mechanisms(eps, sens.sensitivity)
        dists = {mechanism_label(m): m.distribution(q) for m in mechs}
        header = (f"score {key}: q(D) = {tuple(int(v) for v in q)}, "
                  f"q(D') = {tuple(int(v) for v in q2)}, sensitivity {sens.sensitivity} "
                  f"(computed over all {len(all_answers())} answers of one person; "
                  f"monotone: {sens.monotone})")
        out.append("")
        out.append(header if fmt == "text" else f"% {header}")
        out.append(probability_table(dists, [str(r) for r in PRICES], fmt=fmt,
                                     exact=(fmt == "latex"), digits=digits,
                                     caption=f"Pr[M(q(D)) = r], {key}, epsilon = {eps}"))
        lines = []
        for m, (name, d) in zip(mechs, dists.items(), strict=True):
            err = d.expected_error(method="mpmath", dps=digits + 10)
            pair = privacy_loss(m, q, q2)
            worst = check_dp(m, q)
            lines.append(
                f"  {name:12s} E[error] {mpmath.nstr(err, digits)}; "
                f"loss D vs D' {mpmath.nstr(mpmath.mpf(pair.to_float()), digits)}; "
                f"worst loss over the {worst.neighbours_checked} vertex neighbours of q(D) "
                f"{mpmath.nstr(mpmath.mpf(worst.loss_float()), digits)} "
                f"(<= {eps}: {'yes' if worst.holds else 'NO'}, "
                f"{'proved' if worst.certified else 'not proved: ' + str(worst.caveat)}); "
                f"pair certified for every epsilon: {_certified(m, q, q2)}"
            )
        if fmt == "text":
            out.append("")
            out.extend(lines)
        else:
            out.extend("% " + ln.strip() for ln in lines)
    return "\n".join(out)
