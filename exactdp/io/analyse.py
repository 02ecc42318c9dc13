"""``exactdp analyse PATH.py:NAME``: a user's program (:func:`exactdp.programs.program`)
analysed exactly from the command line.

::

    exactdp analyse my_svt.py:svt1 --param epsilon=1/2 --param threshold=1 --param c=2 \\
        --scores 2,0,1,3 [--neighbour-scores 1,1,2,2] [--format text|markdown|latex]

prints the output probabilities (exact and decimal), then the privacy loss on the pair
(``--neighbour-scores``) or the largest loss over the neighbours searched
(:func:`exactdp.check_dp`), and the verdict against the program's epsilon with its witness.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import mpmath
import sympy

from ..analysis.check import check_dp
from ..analysis.loss import privacy_loss
from ..exact.signs import compare
from ..numbers import exact_number
from ..programs import Program

FORMATS = ("text", "markdown", "latex")


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
    except Exception as exc:
        del sys.modules[module_name]
        if added:
            sys.path.remove(folder)
        raise AnalyseError(f"analyse: loading {path} raised {type(exc).__name__}: "
                           f"{exc}") from None
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


def _cell(text: str, fmt: str) -> str:
    if fmt == "latex":
        return f"${text}$"
    if fmt == "markdown":
        return f"`{text}`"
    return text


def _output_text(output: object) -> str:
    if isinstance(output, tuple):
        return "(" + ", ".join(_output_text(o) for o in output) + ")"
    return {True: "T", False: "F", None: "-"}.get(output, str(output)) \
        if isinstance(output, (bool, type(None))) else str(output)


def probability_rows(dist, fmt: str) -> list[str]:
    """The table of outputs, exact probabilities and 15-digit decimals."""
    probs = dist.probabilities
    decimals = dist.evalf(15) if "mpmath" in dist.capabilities else [None] * len(probs)
    rows = []
    for out, p, v in zip(dist.outputs, probs, decimals, strict=True):
        exact = sympy.latex(p) if fmt == "latex" else str(p)
        dec = "" if v is None else mpmath.nstr(v, 15)
        rows.append((_output_text(out), _cell(exact, fmt), dec))
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
    return lines


def run_analyse(target: str, params: list[str] | None, scores: tuple,
                neighbour: tuple | None, fmt: str) -> str:
    """The text ``exactdp analyse`` prints (see the module docstring)."""
    prog = load_program(target)
    mech = prog(**parse_params(params))
    dist = mech.distribution(list(scores))
    head = f"{mech!r} on q = ({', '.join(map(str, scores))})"
    lines = [head, ""]
    lines += probability_rows(dist, fmt)
    lines.append("")
    eps = mech.epsilon
    if neighbour is not None:
        loss = privacy_loss(mech, list(scores), list(neighbour))
        value = loss.loss
        where = f"output {_output_text(dist.outputs[loss.output])}" \
            if isinstance(loss.output, int) else f"output {loss.output}"
        lines.append(f"privacy loss on q' = ({', '.join(map(str, neighbour))}): {value} "
                     f"= {sympy.N(value, 15)} at {where}")
        # exactly (exact.compare: exact algebra or rigorous balls; undecided raises)
        holds = compare(value, eps) <= 0 if not eps.free_symbols else None
        if holds is not None:
            lines.append(f"verdict: {'within' if holds else 'VIOLATES'} epsilon = {eps} on "
                         "this pair")
    else:
        check = check_dp(mech, list(scores))
        lines.append(f"largest privacy loss over {check.neighbours_checked} neighbours "
                     f"({check.search}): {check.loss} = {sympy.N(check.loss, 15)}")
        verdict = "holds" if check.holds else "VIOLATED"
        w = check.witness
        if w is None:
            lines.append(f"verdict: epsilon = {check.epsilon} {verdict}")
        else:
            out = w.output
            if isinstance(out, int) and not isinstance(out, bool) and 0 <= out < len(dist):
                out = _output_text(mech.distribution(list(w.scores)).outputs[out])
            lines.append(f"verdict: epsilon = {check.epsilon} {verdict}; witness: q = "
                         f"({', '.join(map(str, w.scores))}), q' = "
                         f"({', '.join(map(str, w.neighbour))}), output {out}")
    return "\n".join(lines)


def _scores(text: str, option: str) -> tuple:
    items = [t.strip() for t in text.split(",")]
    if not text.strip() or not all(items):
        raise AnalyseError(f"{option}: expected comma-separated numbers, got {text!r}")
    name = option.lstrip("-").replace("-", "_")
    return tuple(exact_number(t, name, i) for i, t in enumerate(items))


def run(args: argparse.Namespace) -> str:
    """``exactdp analyse`` (parsed by :mod:`exactdp.io.cli`): the text to print."""
    scores = _scores(args.scores, "--scores")
    neighbour = None if args.neighbour_scores is None else _scores(args.neighbour_scores,
                                                                   "--neighbour-scores")
    return run_analyse(args.target, args.param, scores, neighbour, args.format)
