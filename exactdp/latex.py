"""The table printers (public path ``exactdp.latex``; the code is :mod:`exactdp.io.latex`)."""

from .io.latex import (
    LATEX_PACKAGES,
    Math,
    distribution_latex,
    format_number,
    latex_document,
    latex_escape,
    mechanism_label,
    probability_table,
    scores_latex,
    table,
)

__all__ = [
    "LATEX_PACKAGES",
    "Math",
    "distribution_latex",
    "format_number",
    "latex_document",
    "latex_escape",
    "mechanism_label",
    "probability_table",
    "scores_latex",
    "table",
]
