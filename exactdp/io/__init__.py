"""Input and output: LaTeX and text tables, the report, the command line.

Modules: :mod:`exactdp.io.latex` (one printer for every table), :mod:`exactdp.io.report`
(the report's results and its text / Markdown / LaTeX), :mod:`exactdp.io.document` (the LaTeX
document and its PDF), :mod:`exactdp.io.figures` (the report's figures, extra ``plots``),
:mod:`exactdp.io.composition` (the accountants' tables and figures), :mod:`exactdp.io.cli`
(the ``exactdp`` command).
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .composition import composition_report, composition_table
    from .document import compile_latex, write_report
    from .latex import LATEX_PACKAGES, latex_document, probability_table, table
    from .report import Report, build_report, pricing_report, render

__all__ = [
    "LATEX_PACKAGES",
    "Report",
    "build_report",
    "compile_latex",
    "composition_report",
    "composition_table",
    "latex_document",
    "pricing_report",
    "probability_table",
    "render",
    "table",
    "write_report",
]


#: Where each exported name lives; imported on first use (PEP 562), so importing the package
#: loads none of its modules (docs/benchmarks.md, start-up).
_EXPORTS = {
    "composition_report": ".composition",
    "composition_table": ".composition",
    "compile_latex": ".document",
    "write_report": ".document",
    "LATEX_PACKAGES": ".latex",
    "latex_document": ".latex",
    "probability_table": ".latex",
    "table": ".latex",
    "Report": ".report",
    "build_report": ".report",
    "pricing_report": ".report",
    "render": ".report",
}


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__, globals())
