"""``exactdp analyse PATH.py:NAME``: a user's program (:func:`exactdp.programs.program`)
analysed exactly from the command line.

::

    exactdp analyse my_svt.py:svt1 --param epsilon=1/2 --param threshold=1 --param c=2 \\
        --scores 2,0,1,3 [--neighbour-scores 1,1,2,2] [--format text|markdown|latex]

prints the output probabilities (exact and decimal), then the privacy loss on the pair
(``--neighbour-scores``) or the largest loss over the neighbours searched
(:func:`exactdp.check_dp`), and the verdict against the program's epsilon with its witness.
``--format markdown`` or ``latex`` formats all of it (the table, the loss, the verdict and
the witness). Exit status: 0 when the verdict holds, 1 when it is violated, 2 for a usage
error or a refusal.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import sympy

from .._validate import short_number
from ..analysis.check import check_dp
from ..analysis.loss import privacy_loss
from ..analysis.witness import NO_OUTPUT
from ..exact.signs import UndecidedSignError, compare
from ..numbers import exact_number
from ..printing import cut_latex, format_number, latex_escape, output_text, prose_latex
from ..programs import Program
from ..result_text import bracket_text, cut_text, decimal_text, untie
from .latex import TIE_CHECK_N

FORMATS = ("text", "markdown", "latex")
#: The neighbour's name.
QUOTE = "q'"
#: Longest exact value printed whole; longer ones are cut with ``...`` (the decimal beside
#: them is the value).
EXACT_CHARS = 120


class AnalyseError(ValueError):
    """A user error of ``exactdp analyse`` (one line)."""


def load_program(target: str) -> Program:
    """The program ``NAME`` of the file ``PATH.py`` in ``PATH.py:NAME``.

    Raises
    ------
    AnalyseError
        A target not of the form ``PATH.py:NAME``, a missing file, no such name, or a name
        that is not a ``@program``.
    """
    path, sep, name = target.rpartition(":")
    if not sep or not path.endswith(".py") or not name.isidentifier():
        raise AnalyseError(f"analyse: expected PATH.py:NAME, got {target!r}")
    file = Path(path)
    if not file.is_file():
        raise AnalyseError(f"analyse: no file {path!r}")
    module_name = f"exactdp_user_{abs(hash(str(file.resolve())))}"
    spec = importlib.util.spec_from_file_location(module_name, file)
    if spec is None or spec.loader is None:
        raise AnalyseError(f"analyse: cannot load {path!r}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    folder = str(file.resolve().parent)  # its own modules import as under `python PATH.py`
    added = folder not in sys.path
    if added:
        sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:  # a file's sys.exit must not set the verdict's code
        del sys.modules[module_name]
        if added:
            sys.path.remove(folder)
        said = f": {exc}" if str(exc) else ""  # a bare `raise SystemExit` says nothing
        raise AnalyseError(f"analyse: loading {path} raised {type(exc).__name__}"
                           f"{said}") from None
    obj = vars(module).get(name)
    if obj is None:
        raise AnalyseError(f"analyse: {path} defines no {name!r}")
    if not isinstance(obj, Program):
        raise AnalyseError(f"analyse: {path}:{name} is not a program (decorate it with "
                           "@exactdp.programs.program)")
    return obj


def parse_params(items: list[str] | None) -> dict[str, str]:
    """``--param name=value`` (repeated) -> ``{name: value}`` (values parsed exactly by the
    program's factory)."""
    out: dict[str, str] = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name.isidentifier() or not value.strip():
            raise AnalyseError(f"--param: expected NAME=VALUE, got {item!r}")
        if name in out:
            raise AnalyseError(f"--param: {name} given twice")
        out[name] = value.strip()
    return out


class _Style:
    """How one ``--format`` writes code, exact values, emphasis and paragraphs: text as it
    reads in a terminal, markdown with code spans and bold, LaTeX with ``\\texttt``, math
    (:func:`sympy.latex`) and ``\\textbf``."""

    def __init__(self, fmt: str) -> None:
        self.fmt = fmt

    def code(self, text: str) -> str:
        if self.fmt == "latex":
            return rf"\texttt{{{latex_escape(text)}}}"
        return f"`{text}`" if self.fmt == "markdown" else text

    def description(self, text: str) -> str:
        """A witness in words (``the pattern REAL with the value in (0, oo)``): code in text
        and markdown; in LaTeX prose with its intervals and infinities as math
        (:func:`exactdp.printing.prose_latex`), never ``oo`` inside ``\\texttt``."""
        return prose_latex(text) if self.fmt == "latex" else self.code(text)

    def exact(self, value: object) -> str:
        """The exact value, cut with ``...`` beyond :data:`EXACT_CHARS` characters (a
        probability at a score of 1e300 holds 300-digit exponents); in LaTeX its first
        terms and ``+ \\dots`` in math mode (:func:`exactdp.printing.cut_latex`)."""
        if self.fmt == "latex":  # cut at a term boundary, in math mode
            return f"${cut_latex(value, EXACT_CHARS)}$"
        text = str(value)
        if len(text) > EXACT_CHARS:
            text = text[: EXACT_CHARS - 3] + "..."
        return f"`{text}`" if self.fmt == "markdown" else text

    def vector(self, name: str, values: tuple) -> str:
        text = f"{name} = ({', '.join(short_number(v) for v in values)})"
        return f"${text}$" if self.fmt == "latex" else text

    def epsilon(self, eps: sympy.Expr) -> str:
        """``epsilon = ...``; a rational of more than 20 digits (``--param epsilon=1e400``)
        as ``epsilon ~ 1.0e+400``, not its 400 digits."""
        if eps.is_Rational and len(str(eps.p)) + len(str(eps.q)) > 20:
            near = short_number(Fraction(int(eps.p), int(eps.q)), 6)
            if self.fmt != "latex":
                return f"epsilon ~ {near}"
            mantissa, _, power = near.partition("e")
            return rf"$\varepsilon \approx {mantissa} \times 10^{{{int(power)}}}$"
        if self.fmt == "latex":
            return rf"$\varepsilon = {sympy.latex(eps)}$"
        return f"epsilon = {self.exact(eps)}"

    def with_decimal(self, value: sympy.Expr) -> str:
        """The exact value and its 15-digit decimal; an integer or an infinity alone (it
        printed ``0 = 0`` and ``oo = oo``). A non-zero value whose float cancels prints
        from its rigorous ball (``= 2.5e-301``, :func:`exactdp.result_text.decimal_text`),
        never ``= 0``."""
        if value.is_Integer or value.is_infinite:
            return self.exact(value)
        text = decimal_text(value, 15)  # a tiny non-zero loss from its ball, never "= 0"
        if text.lstrip("-") in ("0", "0.0"):
            return f"{self.exact(value)} ~ 0 (not separated from 0 by a 20-digit ball)"
        return f"{self.exact(value)} = {text}"

    def strong(self, text: str) -> str:
        if self.fmt == "latex":
            return rf"\textbf{{{latex_escape(text)}}}"
        return f"**{text}**" if self.fmt == "markdown" else text

    def join(self, head: str, table: list[str], lines: list[str]) -> str:
        """The whole output: the head, the table, then the loss and verdict lines (one
        paragraph each in markdown and LaTeX)."""
        sep = "\n" if self.fmt == "text" else "\n\n"
        return "\n".join([head, "", *table]) + "\n\n" + sep.join(lines)

    def plain(self, text: str) -> str:
        return prose_latex(text) if self.fmt == "latex" else text


def probability_rows(dist, fmt: str) -> list[str]:
    """The table of outputs, exact probabilities and 15-digit decimals."""
    style = _Style(fmt)
    probs = dist.probabilities
    decimals = dist.evalf(15) if "mpmath" in dist.capabilities else [None] * len(probs)
    rows = []
    hidden = 0  # a sequence's outputs of probability exactly 0 (as the LaTeX display)
    kept: list = []  # the exact probabilities of the rows
    for out, p, v in zip(dist.outputs, probs, decimals, strict=True):
        if p == 0 and dist.mechanism.output_kind == "sequence":
            hidden += 1
            continue
        dec = decimal_text(p, 15) if v is None else format_number(v, 15)  # release: from p
        rows.append((output_text(out), style.exact(p), dec))
        kept.append(p)
    if len(rows) <= TIE_CHECK_N:  # decimals that tie but differ exactly: their offsets
        decs = untie([d for _, _, d in rows], kept, 15)
        rows = [(o, e, d) for (o, e, _), d in zip(rows, decs, strict=True)]
    if fmt == "markdown":
        lines = ["| output | probability | decimal |", "|---|---|---|"]
        lines += [f"| {o} | {e} | {d} |" for o, e, d in rows]
    elif fmt == "latex":
        lines = [r"\begin{tabular}{lll}", r"output & probability & decimal \\ \hline"]
        lines += [rf"{o} & {e} & {d} \\" for o, e, d in rows]
        lines.append(r"\end{tabular}")
    else:
        width = max(len(o) for o, _, _ in rows)
        lines = [f"{o.ljust(width)}  {e}  ({d})" for o, e, d in rows]
    if hidden:
        lines.append(style.plain(f"({hidden} output{'s' * (hidden > 1)} of probability 0 "
                                 "not shown)"))
    return lines


def _within(loss, eps: sympy.Expr) -> bool:
    """``loss <= eps`` exactly; a certified bracket by its ends (undecided: one line)."""
    if loss.interval is None:
        return compare(loss.loss, eps) <= 0
    lo, hi = (sympy.Rational(v) if isinstance(v, sympy.Float) else v  # a Float's exact
              for v in loss.interval)  # binary value; an exact end as it is
    if compare(hi, eps) <= 0 or compare(lo, eps) > 0:
        return compare(hi, eps) <= 0
    raise UndecidedSignError(f"the certified bracket {bracket_text(lo, hi)} of the "
                             f"privacy loss contains epsilon = {eps}")


@dataclass(frozen=True)
class AnalyseResult:
    """What ``exactdp analyse`` prints and its exit status.

    Attributes
    ----------
    text : str
        The whole output in the chosen ``--format``.
    violated : bool
        Whether the verdict is violated (exit status 1; 0 otherwise).
    """

    text: str
    violated: bool

    @property
    def status(self) -> int:
        """The exit status: 1 when the verdict is violated, else 0."""
        return 1 if self.violated else 0


def run_analyse(target: str, params: list[str] | None, scores: tuple,
                neighbour: tuple | None, fmt: str) -> AnalyseResult:
    """What ``exactdp analyse`` prints, and whether the verdict is violated (see the module
    docstring)."""
    style = _Style(fmt)
    prog = load_program(target)
    mech = prog(**parse_params(params))
    # the analysis first: its refusal (priced over every vector at once) comes before the
    # distribution of q alone is computed (300 zeros: 41 s CPU, then the refusal)
    if neighbour is not None:
        loss = privacy_loss(mech, list(scores), list(neighbour))
    else:
        check = check_dp(mech, list(scores))
    dist = mech.distribution(list(scores))
    head = f"{style.code(repr(mech))} on {style.vector('q', scores)}"
    table = probability_rows(dist, fmt)
    eps = mech.epsilon
    lines = []
    violated = False
    if neighbour is not None:
        value = loss.loss
        # a sequence's output by itself (label, None included): its index may be past q's
        # outputs, in the union of both vectors' outputs
        named = isinstance(loss.output, int)  # else a release witness in words
        out = (output_text(loss.label) if mech.output_kind == "sequence"
               else output_text(dist.outputs[loss.output])) if isinstance(loss.output, int) \
            else cut_text(str(loss.output), 2 * EXACT_CHARS)
        pair = style.vector(QUOTE, neighbour)
        if loss.interval is None:
            said = style.with_decimal(value)
        else:  # a certified bracket: its ends, never its midpoint as if exact
            said = style.plain("in [{}, {}] (certified)".format(
                *(f"{float(v):.6g}" for v in loss.interval)))
        lines.append(f"privacy loss on {pair}: {said} at output "
                     f"{style.code(out) if named else style.description(out)}")
        # exactly (exact.compare: exact algebra or rigorous balls; undecided raises)
        holds = _within(loss, eps) if not eps.free_symbols else None
        if holds is not None:
            violated = not holds
            lines.append(f"{style.strong('verdict: ' + ('within' if holds else 'VIOLATES'))} "
                         f"{style.epsilon(eps)} on this pair")
    else:
        lines.append(f"largest privacy loss over {check.neighbours_checked} neighbours "
                     f"({style.plain(check.search)}): {style.with_decimal(check.loss)}")
        violated = not check.holds
        verdict = f"{style.strong('verdict:')} {style.epsilon(check.epsilon)} " + \
            style.strong("holds" if check.holds else "VIOLATED")
        w = check.witness
        if w is None:
            lines.append(verdict)
        else:
            at = w.output
            if mech.output_kind == "sequence":
                at = output_text(at)  # check_dp names a sequence's output itself
            pair = f"{style.vector('q', w.scores)}, {style.vector(QUOTE, w.neighbour)}"
            shown = style.description(at) if mech.output_kind == "release" and isinstance(
                at, str) else style.code(str(at))
            where = "" if w.output is NO_OUTPUT else f", output {shown}"  # several outputs
            lines.append(f"{verdict}; witness: {pair}{where}")
    return AnalyseResult(style.join(head, table, lines), violated)


def _scores(text: str, option: str) -> tuple:
    items = [t.strip() for t in text.split(",")]
    if not text.strip() or not all(items):
        raise AnalyseError(f"{option}: expected comma-separated numbers, got {text!r}")
    return tuple(exact_number(t, option, i) for i, t in enumerate(items))


def run(args: argparse.Namespace) -> tuple[str, int]:
    """``exactdp analyse`` (parsed by :mod:`exactdp.io.cli`): the text to print and the exit
    status (0 when the verdict holds, 1 when it is violated)."""
    scores = _scores(args.scores, "--scores")
    neighbour = None if args.neighbour_scores is None else _scores(args.neighbour_scores,
                                                                   "--neighbour-scores")
    result = run_analyse(args.target, args.param, scores, neighbour, args.format)
    return result.text, result.status
