"""What a distribution's display leads with: the number of outputs and the most likely
one with its probability, exact when short, else certified decimals.

Shared by the shipped distributions (``OutputDistribution``, top-k, the sparse vector's)
and the programs' (:mod:`exactdp.programs.display`, which adds the program engine's cost
check). The most likely output is decided by rigorous balls, then exact signs among the
outputs whose balls overlap the largest (:func:`most_likely`); a maximum they cannot
decide is said to be "not separated", never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import flint
import sympy

from .exact.enclosure import enclose
from .exact.signs import proved_equal, sign_or_none
from .printing import html_table, latex_math, math_text, output_text
from .result import REPR_LIMIT, brief, number_text, result_latex
from .result_text import cut_text

#: Most outputs whose exact probabilities a repr computes (when not computed already).
REPR_OUTPUTS = 24
#: Longest output text in a repr.
OUTPUT_CHARS = 60
#: Longest answer in a repr (an ``(exact: ...)`` part is dropped first).
ANSWER_CHARS = 120
#: Room kept for the mechanism's call in a repr (when shorter, all of it).
CALL_CHARS = 60
#: Outputs listed with their probability in a distribution's HTML and LaTeX tables.
TABLE_OUTPUTS = 8


@dataclass(frozen=True)
class Answer:
    """What a distribution's display leads with.

    Attributes
    ----------
    count : int or None
        The number of outputs (None when not even the outputs are known: ``why`` says).
    probabilities : tuple of sympy.Expr or None
        The exact probabilities, when computed.
    top : tuple of int
        The positions of the most likely outputs (several when proved equal; empty when
        the probabilities are symbolic or not computed).
    separated : bool
        False when the largest probabilities overlap and are not decided (``top`` then
        holds the candidates).
    why : str or None
        Why the probabilities are not shown (too long to compute here, refused, symbolic).
    """

    count: int | None
    probabilities: tuple[sympy.Expr, ...] | None
    top: tuple[int, ...] = ()
    separated: bool = True
    why: str | None = None


def most_likely(probs: Sequence[sympy.Expr]) -> tuple[tuple[int, ...], bool]:
    """The positions of the largest probability (ties proved equal) and whether the
    maximum is decided.

    Parameters
    ----------
    probs : sequence of sympy.Expr, length m >= 1
        Exact probabilities (no free symbols).

    Returns
    -------
    top : tuple of int
        The positions attaining the maximum (proved equal), or every candidate when
        undecided.
    separated : bool
        False when some candidate's sign against the maximum is undecided.

    Raises
    ------
    ValueError
        A probability that no ball encloses.

    Notes
    -----
    20-digit balls first; exact signs (:func:`exactdp.exact.signs.sign_or_none`) only
    among the outputs whose balls reach the largest lower end.

    Examples
    --------
    >>> import sympy
    >>> most_likely([sympy.Rational(1, 4), sympy.Rational(1, 2), sympy.Rational(1, 4)])
    ((1,), True)
    >>> most_likely([sympy.Rational(1, 2), sympy.Rational(1, 2)])
    ((0, 1), True)
    """
    balls = [enclose(p, 20) if p != 0 else flint.arb(0) for p in probs]
    best = max(range(len(probs)), key=lambda i: balls[i].lower())
    near = [i for i in range(len(probs))
            if i != best and balls[i].upper() >= balls[best].lower()]
    top, open_ = [best], []
    for i in near:
        s = 0 if proved_equal(probs[i], probs[top[0]]) else sign_or_none(
            probs[i] - probs[top[0]])
        if s is None:
            open_.append(i)
        elif s == 0:
            top.append(i)
        elif s > 0:
            top = [i]
    if open_:
        return tuple(sorted([*top, *open_])), False
    return tuple(sorted(top)), True


def ranked(count: int, probs: tuple[sympy.Expr, ...]) -> Answer:
    """The :class:`Answer` of ``count`` outputs with the exact ``probs`` (symbolic ones
    and ones no ball encloses are said, not ranked).

    Examples
    --------
    >>> import sympy
    >>> ranked(2, (sympy.Rational(1, 3), sympy.Rational(2, 3))).top
    (1,)
    """
    if any(isinstance(p, sympy.Basic) and p.free_symbols for p in probs):
        return Answer(count, probs, why="symbolic in epsilon")
    try:
        top, separated = most_likely(probs)
    except ValueError as exc:  # a probability no ball encloses here
        return Answer(count, probs, why="not ranked: " + cut_text(str(exc), 60))
    return Answer(count, probs, top, separated)


def shipped_answer(dist: Any, closed: bool | None = None) -> Answer:
    """The :class:`Answer` of a shipped distribution: its exact probabilities when already
    computed, or when it has at most :data:`REPR_OUTPUTS` outputs and a closed form.

    Parameters
    ----------
    dist : OutputDistribution, TopKDistribution or SparseVectorDistribution
        Read: ``len(dist)``, ``capabilities``, ``probabilities``.
    closed : bool, optional
        Whether the probabilities have a closed form; default: ``"exact"`` among the
        capabilities (a release's patterns have theirs without that capability).

    Returns
    -------
    Answer
        Never raises on a refusal: ``why`` says it.

    Examples
    --------
    >>> from exactdp import ExponentialMechanism
    >>> a = shipped_answer(ExponentialMechanism(1).distribution([0, 0, 1]))
    >>> a.count, a.top, a.probabilities[2]
    (3, (2,), 1/(1 + 2*exp(-1/2)))
    """
    count = len(dist)
    if not cheap(dist):  # before the capabilities: deciding them may
        # integrate every run (SparseVector's rational form: 6.7 s at 11 answers)
        return Answer(count, None, why="not computed here (.probabilities computes them)")
    if not ("exact" in dist.capabilities if closed is None else closed):
        return Answer(count, None, why="without a closed form (.evalf(dps) gives "
                      "certified digits)")
    try:
        probs = tuple(dist.probabilities)
    except ValueError as exc:  # refused (a cost)
        return Answer(count, None, why="refused: " + cut_text(str(exc).split("\n")[0], 80))
    return ranked(count, probs)


def cheap(dist: Any) -> bool:
    """Whether a display may compute ``dist``'s exact probabilities: at most
    :data:`REPR_OUTPUTS` outputs, or computed already (decided from ``len`` alone, before
    the capabilities, which may integrate every run)."""
    cached = any(k in dist.__dict__ for k in ("probabilities", "_probabilities"))
    return len(dist) <= REPR_OUTPUTS or cached


def answer_line(a: Answer, noun: str, output: Callable[[int], str]) -> str:
    """``4 outputs, most likely (T, -, -) at 0.5 (exact: 1/2)``: the answer in words.

    Parameters
    ----------
    a : Answer
    noun : str
        The plural noun counted (``"outputs"``, ``"patterns"``).
    output : callable
        The text of the output at a position.

    Returns
    -------
    str

    Examples
    --------
    >>> import sympy
    >>> a = ranked(2, (sympy.Rational(1, 3), sympy.Rational(2, 3)))
    >>> answer_line(a, "outputs", str)
    '2 outputs, most likely 1 at 0.666667 (exact: 2/3)'
    """
    if a.count is None:
        return f"probabilities {a.why}"
    head = f"{a.count} {noun if a.count != 1 else noun[:-1]}"
    if a.why is not None:
        return f"{head}, probabilities {a.why}"
    assert a.probabilities is not None
    p = number_text(a.probabilities[a.top[0]])
    first = output(a.top[0])
    if len(a.top) == 1:
        return f"{head}, most likely {first} at {p}"
    others = len(a.top) - 1
    if not a.separated:
        return (f"{head}, most likely {first} or {others} other{'s' * (others > 1)} (not "
                f"separated), about {p}")
    return f"{head}, most likely {first} and {others} more tied, each at {p}"


def output_name(outputs: Sequence[Any]) -> Callable[[int], str]:
    """The text of ``outputs[i]``, cut to :data:`OUTPUT_CHARS`."""
    return lambda i: cut_text(output_text(outputs[i]), OUTPUT_CHARS)


def lead_repr(name: str, text: str, call: str, tail: str) -> str:
    """``name(text; call, tail)`` in at most :data:`exactdp.result.REPR_LIMIT` characters:
    the answer ``text`` keeps up to :data:`ANSWER_CHARS` (its ``(exact: ...)`` part dropped
    first, :func:`exactdp.result_text.cut_text`), leaving the call at least
    :data:`CALL_CHARS` (all of it when shorter); the call gets the rest, cut with ``...``.
    Every distribution's repr, shipped (:func:`shipped_repr`) or a program's
    (:func:`exactdp.programs.display.distribution_repr`).

    Examples
    --------
    >>> lead_repr("D", "2 outputs", "M(epsilon=1)", "n=2")
    'D(2 outputs; M(epsilon=1), n=2)'
    """
    fixed = len(name) + len(tail) + 10  # "(", "; ", ", ", ")" and the brackets a cut closes
    text = cut_text(text, min(ANSWER_CHARS, REPR_LIMIT - fixed - min(len(call), CALL_CHARS)))
    return f"{name}({text}; {cut_text(call, REPR_LIMIT - fixed - len(text))}, {tail})"


def shipped_repr(dist: Any, name: str, call: str, tail: str, noun: str = "outputs",
                 closed: bool | None = None) -> str:
    """The repr of a shipped distribution: :func:`shipped_answer` in words, then ``call``
    (the mechanism) and ``tail``.

    Examples
    --------
    >>> from exactdp import PermuteAndFlip
    >>> print(repr(PermuteAndFlip(1).distribution([3, 1, 0])))
    OutputDistribution(3 outputs, most likely 0 at 0.731857 (exact: -exp(-1)/2 - exp(-3/2)/2 +
    exp(-5/2)/3 + 1); PermuteAndFlip(epsilon=1, ...), n=3)
    """
    text = answer_line(shipped_answer(dist, closed), noun, output_name(dist.outputs))
    return lead_repr(name, text, call, tail)


def answer_rows(a: Answer, noun: str, output: Callable[[int], str],
                about: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """``(label, text)`` rows of a distribution's notebook table: the answer in words
    (:func:`answer_line`), the rows ``about`` it (the mechanism, the answers), then the
    first :data:`TABLE_OUTPUTS` outputs with their probabilities (those of probability
    exactly 0 left out, counted, as in the LaTeX display).

    Examples
    --------
    >>> import sympy
    >>> a = ranked(2, (sympy.Rational(1, 3), sympy.Rational(2, 3)))
    >>> answer_rows(a, "outputs", str, [("mechanism", "M")])[-1]
    ('1', '0.666667 (exact: 2/3)')
    """
    rows = [("answer", answer_line(a, noun, output)), *about]
    if a.probabilities is not None and a.why is None:  # outputs of probability 0 left out
        live = [i for i, p in enumerate(a.probabilities) if p != 0]
        shown = live if len(live) <= TABLE_OUTPUTS + 1 else live[:TABLE_OUTPUTS]
        rows += [(output(i), number_text(a.probabilities[i])) for i in shown]
        if len(shown) < len(live):
            rows.append(("...", f"{len(live) - len(shown)} more {noun}"))
        if len(live) < len(a.probabilities):
            rows.append(("", f"({len(a.probabilities) - len(live)} of probability 0 not "
                         "shown)"))
    return rows


def shipped_rows(dist: Any, noun: str = "outputs", closed: bool | None = None
                 ) -> list[tuple[str, str]]:
    """:func:`answer_rows` of a shipped distribution (:func:`shipped_answer`, so computed
    here only when cheap), about its mechanism and its answers."""
    about = [("mechanism", repr(dist.mechanism)),
             ("answers q", brief(tuple(dist.scores.values), 80))]
    return answer_rows(shipped_answer(dist, closed), noun, output_name(dist.outputs), about)


def shipped_html(dist: Any, name: str, noun: str = "outputs", closed: bool | None = None
                 ) -> str:
    """The notebook's HTML display of a shipped distribution: :func:`shipped_rows` as a
    small table (as a program's distribution, :mod:`exactdp.programs.display`).

    Examples
    --------
    >>> from exactdp import SparseVector
    >>> html = shipped_html(SparseVector(1, threshold=0).distribution([0, 1]), "D")
    >>> html.startswith('<table><caption style="text-align:left"><b>D</b>')
    True
    """
    return html_table(name, shipped_rows(dist, noun, closed))


def shipped_latex(dist: Any, name: str, noun: str = "outputs", closed: bool | None = None
                  ) -> str:
    """:func:`shipped_rows` as the LaTeX table of a result
    (:func:`exactdp.result.result_latex`), an exact value typeset (:func:`exact_latex`)."""
    return result_latex(name, [(math_text(a), exact_latex(b))
                               for a, b in shipped_rows(dist, noun, closed)])


_EXACT = re.compile(r"^(.*)\(exact: (.*)\)(.*)$")


def exact_latex(text: str) -> str:
    r""":func:`~exactdp.printing.math_text` of a row, with its ``(exact: ...)`` part (sympy's
    text of the exact value, as the repr shows it) typeset by ``sympy.latex``.

    Parameters
    ----------
    text : str
        A row's text, with or without an exact part.

    Returns
    -------
    str
        LaTeX for a math-mode table cell.

    Examples
    --------
    >>> print(exact_latex("0.418112 (exact: exp(-1/2)/6)"))
    \mathrm{0.418112\ } \left(\text{exact: } \frac{1}{6 e^{\frac{1}{2}}}\right)
    >>> print(exact_latex("1 pattern"))
    \mathrm{1\ pattern}
    """
    m = _EXACT.match(text)
    if m is None:
        return math_text(text)
    try:
        value = sympy.sympify(m.group(2))
    except (sympy.SympifyError, SyntaxError, TypeError, ValueError):
        return math_text(text)
    tail = f" {math_text(m.group(3))}" if m.group(3) else ""
    return (f"{math_text(m.group(1))} \\left(\\text{{exact: }} {sympy.latex(value)}\\right)"
            + tail)


def notebook_latex(dist: Any, name: str, full: Callable[[Any], str], noun: str = "outputs"
                   ) -> str:
    """A distribution's ``_repr_latex_``: its full table ``full(dist)`` (every exact
    probability) when :func:`cheap`, else :func:`shipped_latex` (a notebook asks for the
    LaTeX display beside the HTML one, so it must stay as cheap as the repr).

    Examples
    --------
    >>> from exactdp import PermuteAndFlip
    >>> d = PermuteAndFlip(1).distribution(list(range(10**5)))
    >>> notebook_latex(d, "D", lambda d: 1 / 0).startswith(r"$\\begin{array}{ll} \\mathbf{D}")
    True
    """
    if cheap(dist):
        return latex_math(full(dist), display=True)
    return shipped_latex(dist, name, noun)
