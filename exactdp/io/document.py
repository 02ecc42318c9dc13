"""The report directory: ``report.tex`` (standalone), ``report.pdf``, figures, ``summary.md``.

The PDF is compiled with ``latexmk`` (or two runs of ``pdflatex``) when one is installed;
:func:`overfull_boxes` reads the log so tests can require that every table fits.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .latex import latex_document
from .report import Report, figure_cases, render

_OVERFULL = re.compile(r"Overfull \\[hv]box \(([0-9.]+)pt too (?:wide|high)\)")


def find_engine() -> str | None:
    """``"latexmk"`` or ``"pdflatex"`` if on the PATH (latexmk needs pdflatex), else None."""
    if shutil.which("pdflatex") is None:
        return None
    return "latexmk" if shutil.which("latexmk") else "pdflatex"


def overfull_boxes(log: str) -> list[float]:
    """The amounts (pt) of every overfull box reported in a LaTeX log."""
    return [float(m) for m in _OVERFULL.findall(log)]


@dataclass(frozen=True)
class CompileResult:
    """Outcome of compiling a ``.tex``: the PDF (or None), the engine and the log."""

    pdf: Path | None
    engine: str | None
    log: str
    message: str


def compile_latex(tex: Path, timeout: float = 300) -> CompileResult:
    """Compile ``tex`` in its directory to a PDF (reproducibly: fixed source date).

    Returns a result with ``pdf=None`` and the reason when no engine is installed or the
    compilation fails (the log says why).
    """
    engine = find_engine()
    if engine is None:
        return CompileResult(None, None, "", "no LaTeX engine (latexmk or pdflatex) found; "
                             "report.tex is ready to compile elsewhere")
    env = dict(os.environ, SOURCE_DATE_EPOCH="0", FORCE_SOURCE_DATE="1")
    base = ["-interaction=nonstopmode", "-halt-on-error"]
    if engine == "latexmk":
        runs = [["latexmk", "-pdf", "-silent", *base, tex.name]]
    else:
        runs = [["pdflatex", *base, tex.name]] * 2
    try:
        for cmd in runs:
            proc = subprocess.run(cmd, cwd=tex.parent, env=env, capture_output=True,
                                  text=True, timeout=timeout, check=False)
            if proc.returncode != 0:
                break
    except subprocess.TimeoutExpired:
        return CompileResult(None, engine, "", f"{engine} timed out after {timeout} s")
    log_path = tex.with_suffix(".log")
    log = log_path.read_text(errors="replace") if log_path.exists() else proc.stdout
    pdf = tex.with_suffix(".pdf")
    if proc.returncode != 0 or not pdf.exists():
        return CompileResult(None, engine, log, f"{engine} failed; see {log_path}")
    return CompileResult(pdf, engine, log, f"compiled with {engine}")


@dataclass(frozen=True)
class ReportFiles:
    """What :func:`write_report` wrote."""

    directory: Path
    tex: Path
    summary: Path
    figures: tuple
    compiled: CompileResult | None


def write_report(report: Report, out_dir: str | Path = "exactdp-report", *, pdf: bool = True,
                 progress: bool = False) -> ReportFiles:
    """Write the report directory and return the paths (and the compilation result).

    Parameters
    ----------
    report : Report
        From :func:`exactdp.io.report.build_report`.
    out_dir : path
        Created if needed; existing report files in it are replaced.
    pdf : bool
        Compile ``report.tex`` when a LaTeX engine is installed.
    progress : bool
        tqdm progress bar on standard error (when it is a terminal).
    """
    from dataclasses import replace

    from tqdm import tqdm

    from .figures import report_figures

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    labels = report.cases[0].labels
    n_mech = sum(1 for r in report.cases[0].results if r.label != "Optimal")
    with tqdm(total=len(report.cases) * n_mech + 5, desc="exactdp figures", unit="step",
              disable=None if progress else True, leave=False) as bar:
        curves = figure_cases(report, bar)
        figs = report_figures(curves, out, report.epsilon, labels, bar)
    report = replace(report, figures=tuple(figs), figure_dir=out)
    summary = out / "summary.md"
    summary.write_text(render(report, "markdown") + "\n")
    tex = out / "report.tex"
    title = report.title.replace("exactdp", r"\texttt{exactdp}")
    tex.write_text(latex_document(render_latex_body(report), title=title,
                                  packages=["[section]{placeins}"]))
    compiled = compile_latex(tex) if pdf else None
    return ReportFiles(out, tex, summary, tuple(figs), compiled)


def render_latex_body(report: Report) -> str:
    """The LaTeX body (sections, tables, figures, appendix) of the report."""
    return render(report, "latex")
