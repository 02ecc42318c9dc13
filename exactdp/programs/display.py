"""How a program's distribution shows itself: the answer first, in at most 200 characters.

``repr`` of a :class:`~exactdp.programs.mechanism.ProgramDistribution` or a
:class:`~exactdp.programs.release.ProgramRelease` leads with the number of outputs
(patterns) and the most likely one with its probability, exact when short, else its
certified decimals (:func:`exactdp.result.number_text`), then the program's call and the
number of answers::

    ProgramDistribution(4 outputs, most likely (T, -, -) at 0.5 (exact: 1/2); svt1(...), n=3)

The probabilities are computed for the display only on at most :data:`REPR_ANSWERS`
answers and when the integrator's estimate is at most :data:`REPR_SECONDS` (else the repr
says so, with the estimate, or why they are refused). ``_repr_html_`` is a small table of
the same parts and the first outputs (the result protocol's display,
:mod:`exactdp.result`); ``_repr_latex_`` of a release is that table in LaTeX.
"""

from __future__ import annotations

from typing import Any

from ..answer import (
    Answer,
    answer_line,
    answer_rows,
    lead_repr,
    notebook_latex,
    output_name,
    ranked,
)
from ..cost import SECONDS_LIMIT, fmt_size
from ..printing import distribution_latex as probabilities_latex
from ..printing import html_table
from ..result import brief
from ..result_text import cut_text
from .integrate import run_cost

#: Largest estimated seconds of the exact probabilities a repr computes.
REPR_SECONDS = 1.0
#: Most answers on which a repr traces the program to estimate that cost (the trace
#: itself grows with the answers: report-noisy-max on 150 answers takes 2 s to trace; the
#: sparse vector 6 on 12, 4,096 runs, 1-2 s).
REPR_ANSWERS = 10


def _seconds(dist: Any) -> float:
    """The integrator's estimate of the exact probabilities (the runs' costs)."""
    return sum(run_cost(r) for r in dist.mechanism.trace(dist.scores).runs)


def answer(dist: Any) -> Answer:
    """The :class:`Answer` of ``dist``: computed here when cheap (:data:`REPR_SECONDS`).

    Parameters
    ----------
    dist : ProgramDistribution or ProgramRelease
        A program's distribution on one vector of answers.

    Returns
    -------
    Answer
        The output count and the exact probabilities, the most likely outputs and whether
        rigorous balls separate them; or ``why`` they were not computed (not traced yet,
        past the repr's time, refused, symbolic in epsilon). Never raises on a refusal.

    Examples
    --------
    >>> from exactdp.programs.library import PROGRAMS
    >>> d = PROGRAMS["randomized_response"](epsilon=1).distribution([1])
    >>> a = answer(d)
    >>> a.count, a.probabilities[1], a.top, a.separated
    (2, 1 - 1/(1 + E), (1,), True)
    """
    known = "probabilities" in dist.__dict__  # a cached_property already computed
    if not known and dist.n > REPR_ANSWERS:  # not even traced: the trace may take long
        return Answer(None, None, why="not computed yet (.probabilities computes them)")
    try:
        count = len(dist.outputs)
        if not known:
            seconds = _seconds(dist)
            if seconds > SECONDS_LIMIT:
                return Answer(count, None, why=f"refused (about {fmt_size(seconds)} s, past "
                              f"the {SECONDS_LIMIT:.0f} s limit)")
            if seconds > REPR_SECONDS:
                return Answer(count, None, why=f"not computed here (about "
                              f"{fmt_size(seconds)} s: .probabilities computes them)")
        probs = tuple(dist.probabilities)
    except ValueError as exc:  # refused (a cost, a run outside the exact class)
        first = str(exc).split("\n")[0]
        return Answer(None, None, why="refused: " + cut_text(first, 80))
    return ranked(count, probs)


def answer_text(dist: Any, noun: str, a: Answer | None = None) -> str:
    """``4 outputs, most likely (T, -, -) at 0.5 (exact: 1/2)``: the answer in words.

    Parameters
    ----------
    dist : ProgramDistribution or ProgramRelease
    noun : str
        The plural noun counted (``"outputs"``, ``"patterns"``).
    a : Answer, optional
        :func:`answer` of ``dist``, computed when not given.

    Returns
    -------
    str
        The count, then the most likely output with its probability to six digits and its
        exact value, or the ties (``and 1 more tied``), or what kept the answer back.

    Examples
    --------
    >>> from exactdp.programs.library import PROGRAMS
    >>> d = PROGRAMS["randomized_response"](epsilon=1).distribution([1])
    >>> answer_text(d, "outputs")
    '2 outputs, most likely (1,) at 0.731059 (exact: 1 - 1/(1 + E))'
    """
    return answer_line(answer(dist) if a is None else a, noun,
                       lambda i: output_name(dist.outputs)(i))  # traced only if shown


def distribution_repr(dist: Any, noun: str) -> str:
    """The repr: the answer, then the program's call and ``n``, at most
    :data:`exactdp.result.REPR_LIMIT` characters (:func:`exactdp.answer.lead_repr`, as every
    distribution's: the answer cut first, then the call).

    Parameters
    ----------
    dist : ProgramDistribution or ProgramRelease
    noun : str
        As in :func:`answer_text`.

    Returns
    -------
    str

    Examples
    --------
    >>> from exactdp.programs.library import PROGRAMS
    >>> d = PROGRAMS["randomized_response"](epsilon=1).distribution([1])
    >>> print(distribution_repr(d, "outputs"))
    ProgramDistribution(2 outputs, most likely (1,) at 0.731059 (exact: 1 - 1/(1 + E));
    randomized_response(epsilon=1), n=1)
    """
    return lead_repr(type(dist).__name__, answer_text(dist, noun), repr(dist.mechanism),
                     f"n={dist.n}")


def display_rows(dist: Any, noun: str) -> list[tuple[str, str]]:
    """``(label, text)`` rows of the notebook table (:func:`exactdp.answer.answer_rows`):
    the answer, the program, the answers, then the first outputs with their
    probabilities."""
    about = [("program", repr(dist.mechanism)),
             ("answers q", brief(tuple(dist.scores.values), 80))]
    return answer_rows(answer(dist), noun, lambda i: output_name(dist.outputs)(i), about)


def distribution_html(dist: Any, noun: str) -> str:
    """The notebook's HTML display: :func:`display_rows` as a small table (it reads offline
    in HTML exported from a notebook)."""
    return html_table(type(dist).__name__, display_rows(dist, noun))


def distribution_latex(dist: Any, noun: str) -> str:
    """The notebook's LaTeX display (:func:`exactdp.answer.notebook_latex`): every
    output's (a release's every pattern's) exact probability, typeset
    (:func:`exactdp.printing.distribution_latex`), when cheap; else the short table of
    the answer."""
    return notebook_latex(dist, type(dist).__name__, probabilities_latex, noun)
