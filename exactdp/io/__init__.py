"""Input and output: LaTeX and text tables, the report, the command line.

Modules: :mod:`exactdp.io.latex` (one printer for every table), :mod:`exactdp.io.report`
(the report's results and its text / Markdown / LaTeX), :mod:`exactdp.io.document` (the LaTeX
document and its PDF), :mod:`exactdp.io.figures` (the report's figures, extra ``plots``),
:mod:`exactdp.io.composition` (the accountants' tables and figures), :mod:`exactdp.io.cli`
(the ``exactdp`` command).
"""

from importlib import import_module
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any

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


def __getattr__(name: str) -> Any:
    """Import an exported name (or a submodule) on first use and keep it."""
    module = _EXPORTS.get(name)
    if module is not None:
        value = getattr(import_module(module, __name__), name)
    elif not name.startswith("_") and find_spec(f"{__name__}.{name}") is not None:
        value = import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
