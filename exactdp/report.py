"""The report on the built-in pricing example (MATH.md section 8): ``exactdp report``."""

from __future__ import annotations

import mpmath

from .examples.pricing import PRICES, PRICING, all_answers
from .latex import mechanism_label, probability_table
from .mechanisms import ExponentialMechanism, PermuteAndFlip, ReportNoisyMax
from .numbers import exact_epsilon

__all__ = ["pricing_report"]


def _mechanisms(epsilon, sensitivity):
    mechs = [
        ExponentialMechanism(epsilon, sensitivity),
        PermuteAndFlip(epsilon, sensitivity),
        ReportNoisyMax(epsilon, sensitivity, noise="exponential"),
        ReportNoisyMax(epsilon, sensitivity, noise="laplace"),
    ]
    return mechs


def _loss(p, p2) -> mpmath.mpf:
    worst = mpmath.mpf(0)
    for a, b in zip(p, p2, strict=False):
        if a == 0 and b == 0:
            continue
        if a == 0 or b == 0:
            return mpmath.inf
        worst = max(worst, abs(mpmath.log(a / b)))
    return worst


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
        dists2 = {mechanism_label(m): m.distribution(q2) for m in mechs}
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
        for name, d in dists.items():
            p = d.evalf(digits + 10)
            p2 = dists2[name].evalf(digits + 10)
            err = d.expected_error(view="mpmath", dps=digits + 10)
            loss = _loss(p, p2)
            lines.append(
                f"  {name:12s} expected error {mpmath.nstr(err, digits)}; "
                f"privacy loss D vs D' {mpmath.nstr(loss, digits)} "
                f"(<= epsilon = {mpmath.nstr(mpmath.mpf(float(eps.evalf(30))), digits)}: "
                f"{'yes' if loss <= eps.evalf(digits + 10) else 'NO'})"
            )
        if fmt == "text":
            out.append("")
            out.extend(lines)
        else:
            out.extend("% " + ln.strip() for ln in lines)
    return "\n".join(out)
