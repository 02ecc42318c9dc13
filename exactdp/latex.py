"""The table printers (public path ``exactdp.latex``): the tables of :mod:`exactdp.io.latex`
and the number printers of :mod:`exactdp.printing` they are built on."""

from .io.latex import LATEX_PACKAGES, latex_document, probability_table, table
from .printing import (
    Math,
    distribution_latex,
    format_number,
    latex_escape,
    scores_latex,
)

__all__ = [
    "LATEX_PACKAGES",
    "Math",
    "distribution_latex",
    "format_number",
    "latex_document",
    "latex_escape",
    "probability_table",
    "scores_latex",
    "table",
]
