"""The report's values: one mechanism's results, one case, the whole report.

:func:`exactdp.io.report.build_report` builds them; :func:`exactdp.io.report.render` and
:func:`exactdp.io.document.write_report` print them. A report's ``repr`` is its verdicts in
at most 200 characters, its notebook display a small HTML table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sympy

from ..printing import html_table
from ..result import brief


@dataclass(frozen=True)
class MechanismResult:
    """Everything the report says about one mechanism on one case."""

    label: str
    mechanism: Any
    distribution: Any
    expected_error: sympy.Expr
    pair: Any  # PrivacyLoss against the neighbour, or None
    worst: Any  # DPCheck over the vertex neighbours
    certificate: Any  # DPCertificate of the pair for every epsilon, or None
    certificate_note: str  # why there is none


@dataclass(frozen=True)
class Case:
    """One score vector (and its neighbour) with every mechanism's results."""

    key: str
    title: str
    scores: tuple
    neighbour: tuple | None
    sensitivity: sympy.Expr
    monotonic: bool
    sensitivity_note: str
    labels: tuple
    labels_note: tuple  # (text, latex): how the outputs r are named (0-based, prices, given)
    results: tuple
    dominance: Any  # DominanceResult of PF over EM at epsilon
    dominance_certificate: Any  # DominanceCertificate for every epsilon (or None)


@dataclass(frozen=True, repr=False)
class Report:
    """The inputs and results of a report.

    ``repr`` leads with the verdicts (at most 200 characters); ``_repr_html_`` is a table of
    each case's mechanisms: the worst loss found and whether it is within epsilon.
    """

    epsilon: sympy.Expr
    dps: int
    title: str
    setting: tuple  # (text, latex) sentences
    database: tuple | None  # rows (person, prices) of the example's database
    cases: tuple
    options: Mapping[str, Any] = field(default_factory=dict)
    figures: tuple = ()
    figure_dir: Path | None = None
    composition: tuple = ()  # FigureSpec of the --compose K figure (write_report draws it)
    provenance: tuple = ()  # (name, value) pairs: version, date, command line, libraries, input
    route: tuple = ()  # (text, latex) when the exact route costs too much: the routes taken

    def verdicts(self) -> list[tuple[str, str, bool | None, Any]]:
        """``(case title, mechanism label, holds, worst loss)`` of every checked mechanism;
        ``holds`` is None where the mechanism shares PF's analysis (the optimal one)."""
        return [(case.title, r.label, None if r.worst is None else r.worst.holds,
                 None if r.worst is None else r.worst.loss)
                for case in self.cases for r in case.results]

    def __repr__(self) -> str:
        checked = [v for v in self.verdicts() if v[2] is not None]
        held = sum(1 for v in checked if v[2])
        labels = ", ".join(dict.fromkeys(v[1] for v in self.verdicts()))
        text = (f"Report(holds={held == len(checked)} ({held} of {len(checked)} checks), "
                f"epsilon={self.epsilon}, cases={len(self.cases)}, mechanisms=({labels}), "
                f"title={self.title!r})")
        return text if len(text) <= 200 else text[:195] + "...')"

    def _repr_html_(self) -> str:
        rows = [(f"{case}: {label}", "= PF" if holds is None else
                 f"{'holds' if holds else 'FAILS'}, worst loss {brief(loss)}")
                for case, label, holds, loss in self.verdicts()]
        return html_table(f"Report at epsilon = {self.epsilon}: {self.title}", rows)
