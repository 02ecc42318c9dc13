"""The report (``exactdp report``): every result on one example, as text, Markdown and LaTeX.

:func:`build_report` computes (exactly) the probabilities of EM, PF, RNM-exponential,
RNM-Laplace and the optimal mechanism, expected errors, the dominance verdict of PF over
EM, the privacy losses against the neighbour and the worst neighbour, and the certificates;
:func:`render` prints the sections in one of three formats; :func:`write_report` writes the
report directory (``report.tex``, ``report.pdf`` with LaTeX, the figures, ``summary.md``).

Adding a section: write ``def _my_section(report, fmt) -> str | None`` (None: nothing to
say) and append it to :data:`SECTIONS` (or :data:`APPENDIX`). ``report.options`` carries
the extra command-line options (e.g. ``report.options.get("compose")``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import sympy

from .._validate import argument_error, check_choice, check_int, check_nonempty
from ..analysis import certify_dominance, certify_dp, check_dominance, check_dp, privacy_loss
from ..mechanisms import REGISTRY
from ..numbers import exact_epsilon_or_limit, exact_number, exact_sensitivity
from ..printing import Math, latex_escape, scores_latex
from .latex import probability_table, table
from .provenance import check_labels, given_labels_note, provenance, provenance_section
from .report_numeric import (
    STEPS,
    check_numeric_report,
    exact_report_seconds,
    exact_route,
    numeric_case,
    report_bar,
)
from .report_types import Case, MechanismResult, Report

EPSILON = sympy.Symbol("epsilon", positive=True)
FORMATS = ("text", "markdown", "latex")
_tex = sympy.latex  # the LaTeX of an exact value in the tables and text


#: The mechanisms of the report by default (short names of exactdp.mechanisms.REGISTRY).
DEFAULT_MECHANISMS = ("em", "pf", "rnm-exp", "rnm-laplace", "optimal")
#: The optimal mechanism's label (its registry entry's): no figure curve of its own (= PF).
OPTIMAL_LABEL = REGISTRY["optimal"].label


def report_mechanisms(keys: Sequence[str] | None, func: str = "build_report") -> tuple[str, ...]:
    """The registry keys the report runs: selection mechanisms that epsilon calibrates.

    Raises
    ------
    ValueError
        An unknown key, or one the report cannot run (not set by epsilon, not a selection).
    """
    keys = DEFAULT_MECHANISMS if keys is None else tuple(k.strip().lower() for k in keys)
    usable = [k for k, s in REGISTRY.items() if s.kind == "selection" and s.calibrated]
    check_nonempty(func, "mechanisms", keys)
    for k in keys:
        check_choice(func, "mechanisms", k, usable)
    return keys


def _mechanisms(epsilon, sensitivity, monotonic: bool, keys: Sequence[str]) -> dict:
    """``key -> mechanism`` at epsilon, for the registry keys ``keys``."""
    return {k: REGISTRY[k].at_epsilon(epsilon, sensitivity=sensitivity, monotonic=monotonic)
            for k in keys}


def _has_form(*dists) -> bool:
    """Whether every distribution has a rational form in x (its capabilities)."""
    return all("rational_form" in d.capabilities for d in dists)


def _certificate(mech, q, q2):
    """The pair's certificate for every epsilon > 0, or (None, why not).

    Forms in x or exponential polynomials in epsilon (RNM-Laplace); only the latter's
    refusal (its cost limit) is expected: any other error propagates."""
    m = mech.with_epsilon(EPSILON)
    try:
        return certify_dp(m, q, q2), ""
    except ValueError:
        if _has_form(m.distribution(q), m.distribution(q2)):
            raise
        return None, "not rational in x"


def _same_as(a, b) -> bool:
    """Whether two distributions have identical exact forms (rational forms compared)."""
    if not _has_form(a, b):
        return False
    fa, fb = a.rational_form(), b.rational_form()
    return fa.value == fb.value and all(
        sympy.expand(u - v) == 0 for u, v in zip(fa.forms, fb.forms, strict=True))


def _analyse(key, title, q, q2, sens, monotonic, note, labels, labels_note, epsilon, bar,
             keys: Sequence[str] = DEFAULT_MECHANISMS) -> Case:
    mechs = _mechanisms(epsilon, sens, monotonic, keys)
    pf, em = _mechanisms(epsilon, sens, monotonic, ("pf", "em")).values()
    results = []
    for k, mech in mechs.items():
        label = REGISTRY[k].label
        dist = mech.distribution(q)  # the optimal mechanism: the section-5 solution, exact
        if k == "optimal" and _same_as(dist, pf.distribution(q)):
            # the section-5 solution equals PF's distribution exactly: PF's analysis holds
            results.append(MechanismResult(label, mech, dist, dist.expected_error(), None,
                                           None, None, "= PF"))
            bar.update(STEPS)
            continue
        pair = privacy_loss(mech, q, q2) if q2 is not None else None
        bar.update(1)
        worst = check_dp(mech, q)
        bar.update(1)
        nbr = q2 if q2 is not None or worst.witness is None else worst.witness.neighbour
        cert, why = (None, "no neighbour") if nbr is None else _certificate(mech, q, nbr)
        results.append(MechanismResult(label, mech, dist, dist.expected_error(), pair,
                                       worst, cert, why))
        bar.update(1)
    dom = check_dominance(pf.distribution(q), em.distribution(q))
    try:
        dom_cert = certify_dominance(pf.with_epsilon(EPSILON), em.with_epsilon(EPSILON), q)
    except ValueError:
        dom_cert = None
    bar.update(1)
    return Case(key, title, tuple(q), None if q2 is None else tuple(q2), sens, monotonic,
                note, tuple(labels), tuple(labels_note), tuple(results), dom, dom_cert)


def build_report(epsilon="1", *, example: str | None = "pricing", scores=None,
                 neighbour=None, sensitivity=None, monotonic: bool = False, dps: int = 6,
                 options: Mapping[str, Any] | None = None, progress: bool = False,
                 mechanisms: Sequence[str] | None = None,
                 labels: Sequence[str] | None = None) -> Report:
    """Compute every result of the report (exact; deterministic).

    Parameters
    ----------
    epsilon : exact number, default "1"
    example : {"pricing", None}
        The built-in pricing example (its database, neighbour and both score functions,
        sensitivities computed by enumeration); None to use ``scores``.
    scores, neighbour : sequences of exact numbers, shape (n,), optional
        Without an example: the score vector and an optional neighbouring vector.
    sensitivity : exact number, optional
        Without an example: Delta (default 1).
    monotonic : bool
        Without an example: a monotonic score function (``c = 1``).
    dps : int
        Significant digits of printed decimals (1..1000).
    options : mapping, optional
        Extra options for added sections.
    progress : bool
        Show a tqdm progress bar on standard error (when it is a terminal).
    mechanisms : sequence of str, optional
        Short names of :data:`exactdp.mechanisms.REGISTRY` (selection mechanisms set by
        epsilon); default :data:`DEFAULT_MECHANISMS` (EM, PF, RNM-Exp, RNM-Laplace and the
        optimal mechanism). PF's dominance over EM is reported in every case.
    labels : sequence of str, optional
        Names of the outputs, one per score (default: the prices of the example, or the
        positions ``0..n-1`` of the scores); every table says which.

    Returns
    -------
    Report
        Its ``provenance`` holds the exactdp version, the date, the command line
        (``options["command_line"]``, else the Python call), the library versions and the
        input.

    Raises
    ------
    ValueError
        Bad epsilon (0 and oo, the exact limits, are accepted), scores, sensitivity, dps,
        labels; scores and neighbour of different lengths.
    TooCostly
        More scores than even the numeric route handles (the report takes that route where
        :func:`exactdp.io.report_numeric.exact_report_seconds` exceeds
        :data:`~exactdp.io.report_numeric.EXACT_REPORT_SECONDS`; its ``route`` note says
        which routes it took).
    """
    func = "build_report"
    eps = exact_epsilon_or_limit(epsilon, func)
    check_int(func, "dps", dps, 1, 1000)
    keys = report_mechanisms(mechanisms, func)
    options = dict(options or {})
    if example is not None:
        rep = _pricing(eps, dps, options, progress, keys, labels)
        return replace(rep, provenance=provenance(rep.epsilon, rep.dps, rep.cases, options))
    if scores is None:
        raise ValueError("build_report: give example='pricing' or scores=...")
    distinct = len({str(v) for v in scores})
    if large := not exact_route(len(scores), distinct, len(keys)):
        check_numeric_report(func, len(scores), distinct)
    q = tuple(exact_number(v, "scores", i, func=func) for i, v in enumerate(scores))
    q2 = None
    if neighbour is not None:
        q2 = tuple(exact_number(v, "neighbour", i, func=func) for i, v in enumerate(neighbour))
        if len(q2) != len(q):
            raise argument_error(func, "len(neighbour)", f"{len(q)} (= len(scores))", len(q2))
    sens = exact_sensitivity(1 if sensitivity is None else sensitivity, func)
    if labels is None:
        names = [str(r) for r in range(len(q))]
        note = ("outputs r numbered from 0 (0-based: the position of the score in q)",
                "outputs $r$ numbered from 0 (0-based: the position of the score in $q$)")
    else:
        names = check_labels(func, labels, len(q))
        note = given_labels_note(names)
    route: tuple = ()
    steps, seconds = len(keys), None
    if not large:
        steps, seconds = STEPS * len(keys) + 1, exact_report_seconds(len(q), distinct, len(keys))
    with report_bar(steps, progress, seconds) as bar:
        if large:  # the cheaper routes of exactdp.io.report_numeric, and the note saying so
            rows, dom, route = numeric_case(q, q2, sens, bool(monotonic), eps, bar, keys)
            case = Case("scores", "q", q, q2, sens, bool(monotonic), "given", tuple(names),
                        note, tuple(MechanismResult(*r) for r in rows), dom, None)
        else:
            case = _analyse("scores", "q", q, q2, sens, bool(monotonic), "given", names,
                            note, eps, bar, keys)
    setting = (f"Scores q = {scores_latex(q).text}; epsilon = {eps}.",
               f"Scores $q = {scores_latex(q).latex}$; $\\varepsilon = {_tex(eps)}$.")
    rep = Report(eps, dps, "exactdp report", (setting, route) if route else (setting,), None,
                 (case,), options, route=route)
    return replace(rep, provenance=provenance(rep.epsilon, rep.dps, rep.cases, options))


def _pricing(eps, dps: int, options: dict, progress: bool,
             keys: Sequence[str] = DEFAULT_MECHANISMS,
             labels: Sequence[str] | None = None) -> Report:
    from ..examples.pricing import PRICES, PRICING, all_answers

    if labels is None:
        names = [str(r) for r in PRICES]
        lnote = ("outputs r are the prices (1-based: r = 1 is the lowest price)",
                 "outputs $r$ are the prices (1-based: $r = 1$ is the lowest price)")
    else:
        names = check_labels("build_report", labels, len(PRICES))
        lnote = given_labels_note(names)
    answers = all_answers()
    cases = []
    with report_bar(2 * (STEPS * len(keys) + 1), progress) as bar:
        for key in ("buyers", "revenue"):
            func = PRICING.score(key)
            q, q2 = func.scores(PRICING.database), func.scores(PRICING.neighbour)
            sens = func.sensitivity(PRICING.database, answers)
            mono = sens.monotonic
            note = f"computed over all {len(answers)} answers of one person"
            cases.append(_analyse(key, key, q, q2, sens.sensitivity, mono, note,
                                  names, lnote, eps, bar, keys))
    db = tuple((str(i + 1), ", ".join(str(r) for r in sorted(s)))
               for i, s in enumerate(PRICING.database))
    setting = (
        (f"Prices R = {PRICES}; epsilon = {eps}.",
         f"Prices $R = \\{{{', '.join(map(str, PRICES))}\\}}$; "
         f"$\\varepsilon = {_tex(eps)}$."),
        ("Each person states the prices they would pay (database D). The neighbour D' "
         "changes person 4's answer to {1}.",
         "Each person states the prices they would pay (database $D$, "
         "Table~\\ref{tab:database}). The neighbouring database $D'$ changes person 4's "
         "answer to $\\{1\\}$."),
        ("Score buyers counts the buyers at each price; score revenue is price times buyers.",
         "Score \\emph{buyers} counts the people willing to pay each price; score "
         "\\emph{revenue} is the price times that count."),
    )
    return Report(eps, dps, "exactdp report: the pricing example", setting, db,
                  tuple(cases), options)


# ---------------------------------------------------------------------------- sections
def _setting(report: Report, fmt: str) -> str:
    if fmt == "latex":
        return "\n\n".join(s for _, s in report.setting)
    return "\n".join(t for t, _ in report.setting)


def _database(report: Report, fmt: str) -> str | None:
    if report.database is None:
        return None
    rows = [[p, prices] for p, prices in report.database]
    cap = Math("The database $D$: the prices each person would pay",
               "database D: the prices each person would pay")
    return table(rows, ["person", "prices accepted"], fmt=fmt, caption=cap,
                 label="tab:database")


def _monotonic_text(case: Case, latex: bool) -> str:
    """The monotonic flag as the report knows it: computed (the example) or assumed."""
    c = f"$c = {1 if case.monotonic else 2}$" if latex else f"c = {1 if case.monotonic else 2}"
    if case.key == "scores":  # typed-in scores: a flag the user sets, not a property found
        return (f"monotonic: assumed (given), so {c}" if case.monotonic else
                f"monotonic: not assumed, so {c}")
    return f"monotonic: {'yes' if case.monotonic else 'no'}, so {c}"


def _case_intro(case: Case, fmt: str, dps: int) -> str:
    q = scores_latex(case.scores, dps, limit=12)
    if case.neighbour is not None:
        q2 = scores_latex(case.neighbour, dps, limit=12)
    qd, qd2 = ("q", "q'") if case.key == "scores" else ("q(D)", "q(D')")
    if fmt == "latex":
        text = (f"Scores ${qd} = {q.latex}$"
                + (f", neighbour ${qd2} = {q2.latex}$" if case.neighbour else "")
                + f"; sensitivity $\\Delta = {_tex(case.sensitivity)}$ ({case.sensitivity_note})"
                f"; {_monotonic_text(case, True)}; {case.labels_note[1]}.")
        return text
    text = (f"{qd} = {q.text}" + (f", {qd2} = {q2.text}" if case.neighbour else "")
            + f"; sensitivity {case.sensitivity} ({case.sensitivity_note}); "
            + _monotonic_text(case, False) + f"; {case.labels_note[0]}")
    return text


def _probabilities(case: Case, report: Report, fmt: str) -> str:
    dists = {r.label: r.distribution for r in case.results}
    eps = report.epsilon
    qd = "q" if case.key == "scores" else "q(D)"
    cap = Math(f"Output probabilities $\\Pr[M({qd}) = r]$, score {case.title}, "
               f"$\\varepsilon = {_tex(eps)}$; {case.labels_note[1]}. Exact values rounded "
               f"to {report.dps} significant digits; the exact forms are in the appendix.",
               f"Pr[M({qd}) = r], score {case.title}, epsilon = {eps}; "
               f"{case.labels_note[0]}")
    return probability_table(dists, case.labels, fmt=fmt, exact=False, dps=report.dps,
                             caption=cap, label=f"tab:prob-{case.key}")


def _certified_of(*results) -> bool | None:
    """Whether every computed result is certified (None: none computed)."""
    flags = [r.certified for r in results if r is not None]
    return all(flags) if flags else None


def _verdict(holds: bool | None, certified: bool | None, epsilon) -> str | Math | None:
    """The DP verdict and its certification in one cell: ``holds (certified)``."""
    if holds is None:
        return None
    if epsilon == sympy.oo:  # every mechanism is infinity-DP: the bound says nothing
        return Math(r"\text{holds (vacuous: } \varepsilon = \infty)",
                    "holds (vacuous: epsilon = oo)")
    how = "certified" if certified else ("not certified" if certified is not None else "")
    return f"{'holds' if holds else 'FAILS'}" + (f" ({how})" if how else "")


def _every_epsilon(r: MechanismResult) -> str | Math | None:
    if r.certificate is not None:
        return "proved" if r.certificate.holds else "FAILS for some"
    if r.certificate_note == "not rational in x":
        return Math(r"\text{n/a}^{\dagger}", "n/a (not rational in x)")
    return r.certificate_note or None


def _results_rows(case: Case, report: Report):
    rows = []
    for r in case.results:
        if r.worst is None:  # the optimal mechanism: PF's distribution
            rows.append([r.label, r.expected_error, None, None, None, None,
                         r.certificate_note])
            continue
        rows.append([r.label, r.expected_error, None if r.pair is None else r.pair.loss,
                     r.worst.loss, r.worst.neighbours_checked,
                     _verdict(r.worst.holds, _certified_of(r.pair, r.worst), report.epsilon),
                     _every_epsilon(r)])
    return rows


def _stacked(top: str, bottom: str, text: str) -> Math:
    """A two-line header (LaTeX source ``top`` over ``bottom``; ``text`` elsewhere)."""
    return Math(rf"\text{{\shortstack{{{top}\\{bottom}}}}}", text)


def _results(case: Case, report: Report, fmt: str) -> str:
    eps = report.epsilon
    heads: list[str | Math] = ["mechanism", _stacked("expected", "error", "E[error]"),
             _stacked("loss", "against $q'$", "loss vs q'"),
             _stacked("worst", "loss", "worst loss"),
             _stacked("neighbours", "checked", "neighbours"),
             _stacked("$\\varepsilon$-DP at", f"$\\varepsilon = {_tex(eps)}$",
                      f"eps-DP at epsilon = {eps}"),
             _stacked("for every", "$\\varepsilon > 0$", "for every epsilon")]
    notes = []
    if any(r.certificate_note == "not rational in x" for r in case.results):
        notes.append("$^{\\dagger}$ Refused: the probabilities are not rational functions "
                     "of $x$, and their exponential polynomials in $\\varepsilon$ are beyond "
                     "the certificate's cost limit.")
    if any(r.worst is None for r in case.results):
        notes.append("Optimal $=$ PF: the optimal mechanism's distribution is PF's exactly, "
                     "so PF's results hold for it.")
    cap = Math(
        f"Score {case.title}, $\\varepsilon = {_tex(eps)}$. Expected error: "
        "$\\mathbb{E}[q^* - q_{M(q)}]$ in score units. Loss against $q'$: "
        "$L(q, q') = \\max_r |\\ln \\Pr[M(q)=r] - \\ln \\Pr[M(q')=r]|$. Worst loss: the "
        "largest $L(q, q')$ over the vertex neighbours $q'$ of $q$ (their number in the next "
        "column), the $\\varepsilon$-DP check. $\\varepsilon$-DP: whether the worst loss is at "
        "most $\\varepsilon$, and whether that verdict is certified (decided exactly or by "
        "rigorous enclosures). For every $\\varepsilon$: whether the pair's ratio bound is "
        "proved for all $\\varepsilon > 0$. " + " ".join(notes),
        f"score {case.title}, epsilon = {eps}: errors, losses, DP check, certificates")
    return table(_results_rows(case, report), heads, fmt=fmt, caption=cap,
                 dps=report.dps, label=f"tab:results-{case.key}")


def _dominance(case: Case, report: Report, fmt: str) -> str:
    latex = fmt == "latex"
    eps = f"$\\varepsilon = {_tex(report.epsilon)}$" if latex else f"epsilon = {report.epsilon}"
    verdict = "holds" if case.dominance.holds else "does NOT hold"
    cert = case.dominance_certificate
    all_eps = "$\\varepsilon > 0$" if latex else "epsilon > 0"
    if cert is None:
        every = f"not certified for every {all_eps}"
    else:
        every = f"proved for every {all_eps}" if cert.holds else f"not true for every {all_eps}"
    text = (f"Dominance: PF's error is stochastically smaller than EM's at every threshold "
            f"({verdict} at {eps}; {every}).")
    if case.dominance.witness is not None:
        text += f" Witness threshold: {case.dominance.witness}."
    return text


def _worst_witness(case: Case, report: Report, fmt: str) -> str:
    lines = []
    for r in case.results:
        if r.worst is None or r.worst.witness is None:
            continue
        w = r.worst.witness
        q2 = scores_latex(w.neighbour, report.dps, limit=12)
        caveat = r.worst.caveat
        if fmt == "latex":
            lines.append(f"{r.label}: $q' = {q2.latex}$, output {case.labels[w.output]}"
                         + (f" ({latex_escape(caveat)})" if caveat else ""))
        else:
            lines.append(f"{r.label}: q' = {q2.text}, output {case.labels[w.output]}"
                         + (f" ({caveat})" if caveat else ""))
    if fmt == "latex":
        return ("The worst neighbours (largest loss) and the output attaining it: "
                + "; ".join(lines) + ".")
    return "worst neighbours (largest loss) and output: " + "; ".join(lines)


def _cases(report: Report, fmt: str) -> str:
    parts = []
    for case in report.cases:
        head = "The given scores" if case.key == "scores" else f"Score {case.title}"
        parts.append(rf"\section{{{head}}}" if fmt == "latex" else
                     (f"## {head}" if fmt == "markdown" else f"\n{head}"))
        parts += [_case_intro(case, fmt, report.dps), _probabilities(case, report, fmt),
                  _results(case, report, fmt)]
        if fmt == "latex":  # the text that follows discusses the tables: keep it after them
            parts.append(r"\FloatBarrier")
        parts += [_dominance(case, report, fmt), _worst_witness(case, report, fmt)]
    return "\n\n".join(parts)


def _figures(report: Report, fmt: str) -> str | None:
    if not report.figures or fmt == "text":
        return None
    if fmt == "markdown":
        return "## Figures\n\n" + "\n\n".join(
            f"![{f.caption_text}]({f.png.name})\n\n*{f.caption_text}*" for f in report.figures)
    # the heading goes with its first figure: no heading alone at the foot of a page
    parts = [r"\needspace{0.3\textheight}" + "\n" + r"\section{Figures}"]
    for f in report.figures:
        parts.append("\n".join([r"\begin{figure}[!htbp]", r"\centering",
                                rf"\includegraphics[width=\linewidth]{{{f.pdf.name}}}",
                                rf"\caption{{{f.caption}}}\label{{fig:{f.name}}}",
                                r"\end{figure}"]))
    return "\n\n".join(parts)


def _composition(report: Report, fmt: str) -> str | None:
    if not report.composition or fmt == "text":
        return None
    k = report.options.get("compose")
    intro = (f"The privacy curve of the report's neighbouring pair after {k}-fold "
             "composition: exactdp's certified lower and upper bounds and, when the optional "
             "accounting extra is installed, dp_accounting's float estimates of the same pair.")
    if fmt == "markdown":
        return "## Composition\n\n" + intro + "\n\n" + "\n\n".join(
            f"![{f.caption_text}]({f.png.name})\n\n*{f.caption_text}*"
            for f in report.composition)
    intro = (f"The privacy curve $\\delta(\\varepsilon)$ of the report's neighbouring pair "
             f"after $K = {k}$-fold composition: \\texttt{{exactdp}}'s certified lower and "
             "upper bounds and, when the optional \\texttt{accounting} extra is installed, "
             "\\texttt{dp\\_accounting}'s float estimates of the same pair "
             "(Figure~\\ref{fig:composition-pair}).")
    parts = [r"\needspace{0.3\textheight}" + "\n" + r"\section{Composition}", intro]
    for f in report.composition:
        parts.append("\n".join([r"\begin{figure}[!htbp]", r"\centering",
                                rf"\includegraphics[width=\linewidth]{{{f.pdf.name}}}",
                                rf"\caption{{{f.caption}}}\label{{fig:{f.name}}}",
                                r"\end{figure}"]))
    return "\n\n".join(parts)


def _exact_appendix(report: Report, fmt: str) -> str | None:
    if fmt != "latex" or report.route:  # the route's note (in the setting) says why not
        return None
    # no \clearpage: the last figures may share the appendix's first page (no page left
    # mostly blank); placeins' barrier at the section still keeps them before it
    parts = [r"\appendix", r"\section{Exact output probabilities}",
             "Each probability is a polynomial (PF, RNM-exponential, the optimal mechanism) or "
             "a rational function (EM) of $x = e^{-\\varepsilon/(c\\Delta L)}$, $L$ the common "
             "denominator of the scores; RNM-Laplace's are sums of exponentials in "
             "$\\varepsilon$. The decimal tables round these values."]
    for case in report.cases:
        dists = {r.label: r.distribution for r in case.results}
        text = probability_table(dists, case.labels, fmt="latex", exact=True,
                                 dps=report.dps, label=f"tab:exact-{case.key}",
                                 exact_title=f", score {case.title}")
        parts.append(text.split("\n\n", 1)[1])
    return "\n\n".join(parts)


def _provenance(report: Report, fmt: str) -> str | None:
    return provenance_section(report.provenance, fmt)


Section = Callable[[Report, str], "str | None"]
#: The report's sections, in order; each returns the section in a format, or None.
SECTIONS: list[Section] = [_provenance, _setting, _database, _cases, _figures, _composition]
#: Sections after the body (LaTeX: the appendix).
APPENDIX: list[Section] = [_exact_appendix]


def render(report: Report, fmt: str = "text") -> str:
    """The report's body in ``fmt`` ("text", "markdown" or "latex"; LaTeX without preamble)."""
    check_choice("render", "fmt", fmt, FORMATS)
    parts = []
    if fmt == "markdown":
        parts.append(f"# {report.title}")
    elif fmt == "text":
        parts.append(report.title)
    for section in [*SECTIONS, *APPENDIX]:
        text = section(report, fmt)
        if text:
            parts.append(text)
    return "\n\n".join(parts)


def pricing_report(epsilon="1", *, fmt: str = "text", dps: int = 6) -> str:
    """The pricing example's report as one string (no files written).

    Parameters
    ----------
    epsilon : exact number, default "1"
    fmt : {"text", "markdown", "latex"}
    dps : int
        Significant digits of decimals (1..1000).
    """
    return render(build_report(epsilon, dps=dps), fmt)
