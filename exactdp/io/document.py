"""The report directory: ``report.tex`` (standalone), ``report-body.tex`` (for ``\\input``),
``report.pdf``, figures, ``summary.md`` and the manifest of the files the report wrote.

The PDF is compiled with ``latexmk`` (or two runs of ``pdflatex``) when one is installed;
:func:`overfull_boxes` reads the log so tests can require that every table fits.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from ..progress import NoBar
from .latex import LATEX_PACKAGES, latex_document
from .report import OPTIMAL_LABEL, Report, render

_OVERFULL = re.compile(r"Overfull \\[hv]box \(([0-9.]+)pt too (?:wide|high)\)")


def find_engine() -> str | None:
    """``"latexmk"`` or ``"pdflatex"`` if on the PATH (latexmk needs pdflatex), else None."""
    if shutil.which("pdflatex") is None:
        return None
    return "latexmk" if shutil.which("latexmk") else "pdflatex"


def first_error(log: str) -> str:
    """LaTeX's first error in a log, on one line: ``! message`` and its ``l.N source`` line.

    TeX starts each error with ``!`` and names the source line after it as ``l.N`` (The
    TeXbook, chapter 6); empty when the log holds no error.
    """
    lines = log.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("! "):
            where = next((ln.strip() for ln in lines[i + 1:i + 12]
                          if re.match(r"l\.\d+", ln)), "")
            return " ".join(filter(None, (line.strip(), where)))[:300]
    return ""


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
        first = first_error(log)
        why = f": {first}" if first else ""
        return CompileResult(None, engine, log, f"{engine} failed{why}; see {log_path}")
    return CompileResult(pdf, engine, log, f"compiled with {engine}")


@dataclass(frozen=True)
class ReportFiles:
    """What :func:`write_report` wrote."""

    directory: Path
    tex: Path
    body: Path
    summary: Path
    figures: tuple
    compiled: CompileResult | None
    manifest: Path


#: The report's list of the files it wrote (one name a line): a rerun replaces these and
#: refuses to overwrite any other file unless ``force``.
MANIFEST = "exactdp-manifest.txt"
#: LaTeX's auxiliary files of ``report.tex`` (removed after compiling unless ``keep_aux``).
AUX_SUFFIXES = (".aux", ".fls", ".fdb_latexmk", ".log", ".out", ".toc", ".synctex.gz")
FIGURE_NAMES = ("expected-error", "error-ratio", "privacy-loss", "probabilities", "entropy",
                "composition-pair")


def report_file_names(extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Every file name the report may write into its directory (the manifest among them)."""
    figs = tuple(f"{n}.{ext}" for n in FIGURE_NAMES for ext in ("png", "pdf"))
    aux = tuple(f"report{s}" for s in AUX_SUFFIXES)
    return (MANIFEST, "report.tex", "report-body.tex", "report.pdf", "summary.md", *figs,
            *aux, *extra)


def read_manifest(out: Path) -> set[str]:
    """The names a previous report wrote into ``out`` (empty when there is none)."""
    path = out / MANIFEST
    if not path.is_file():
        return set()
    return {ln.strip() for ln in path.read_text().splitlines()
            if ln.strip() and not ln.startswith("#")}


class OverwriteRefused(FileExistsError):
    """A file the report would write exists and is not the report's own (no ``force``)."""


def check_overwrite(out: Path, names, force: bool = False, func: str = "write_report") -> None:
    """Refuse to overwrite a file in ``out`` that no earlier report wrote (unless ``force``).

    Raises
    ------
    OverwriteRefused
        Naming the first such file and ``force`` (``--force`` on the command line).
    """
    if force or not out.exists():
        return
    own = read_manifest(out)
    for name in names:
        path = out / name
        if (path.exists() or path.is_symlink()) and name not in own:
            raise OverwriteRefused(
                f"{func}: {path} exists and was not written by an exactdp report (no entry "
                f"in {out / MANIFEST}); choose another --out or pass --force to replace it")


def write_manifest(out: Path, names, planned=()) -> Path:
    """Record the names the report wrote (those of ``names`` that exist, and ``planned``,
    written after this call), merged with the earlier manifest's."""
    path = out / MANIFEST
    have = (read_manifest(out) | {n for n in names if (out / n).exists()} | set(planned)
            | {MANIFEST})
    path.write_text("# files written by exactdp report (a rerun replaces these)\n"
                    + "\n".join(sorted(have)) + "\n")
    return path


def remove_aux(tex: Path, keep: tuple[str, ...] = ()) -> list[Path]:
    """Delete LaTeX's auxiliary files of ``tex`` (``.aux``, ``.log``, ...) but the suffixes
    ``keep``; returns them."""
    gone = []
    for suffix in AUX_SUFFIXES:
        if suffix in keep:
            continue
        path = tex.with_name(tex.stem + suffix)
        if path.is_file():
            path.unlink()
            gone.append(path)
    return gone


def provenance_comment(report: Report) -> str:
    """The report's provenance as LaTeX comment lines."""
    lines = ["% exactdp report: provenance (what reproduces this file)"]
    lines += [f"% {name}: {value}" for name, value in report.provenance]
    return "\n".join(lines)


def write_report(report: Report, out_dir: str | Path = "exactdp-report", *, pdf: bool = True,
                 progress: bool = False, keep_aux: bool = False, force: bool = False,
                 extra_files: tuple[str, ...] = ()) -> ReportFiles:
    """Write the report directory and return the paths (and the compilation result).

    Parameters
    ----------
    report : Report
        From :func:`exactdp.io.report.build_report`.
    out_dir : path
        Created if needed. The files an earlier report wrote there (its manifest,
        :data:`MANIFEST`) are replaced; any other file of the same name is refused.
    pdf : bool
        Compile ``report.tex`` when a LaTeX engine is installed. Without a new PDF (not
        compiled, or the compilation failed) an earlier report's ``report.pdf`` is removed:
        it would not show this report's numbers.
    progress : bool
        tqdm progress bar on standard error (when it is a terminal).
    keep_aux : bool
        Keep LaTeX's auxiliary files (``report.aux``, ``report.log``, ...); by default they
        are removed after compiling (the log is still in the result's ``compiled.log``), but
        for ``report.log`` when the compilation failed: its message names that file.
    force : bool
        Overwrite files of the report's names that no earlier report wrote.
    extra_files : tuple of str
        Other names the caller writes into the directory (checked and recorded too).

    Raises
    ------
    OverwriteRefused
        A file the report would write exists and is not in the manifest (without ``force``).
    """
    out = Path(out_dir)
    check_overwrite(out, report_file_names(extra_files), force)
    made = _missing_parents(out)
    out.mkdir(parents=True, exist_ok=True)
    try:
        return _write_report(report, out, pdf, progress, keep_aux, extra_files)
    except BaseException:  # a failed report leaves no empty directory it created
        for path in made:
            if path.is_dir() and not any(path.iterdir()):
                path.rmdir()
        raise


def _missing_parents(out: Path) -> list[Path]:
    """``out`` and its ancestors that do not exist yet, deepest first."""
    made = []
    for path in (out, *out.parents):
        if path.exists():
            break
        made.append(path)
    return made


def _write_report(report: Report, out: Path, pdf: bool, progress: bool, keep_aux: bool,
                  extra_files: tuple[str, ...]) -> ReportFiles:
    from .figures import figure_cases, report_figures

    labels = report.cases[0].labels
    n_mech = sum(1 for r in report.cases[0].results if r.label != OPTIMAL_LABEL)
    figs: list = []
    if n_mech:  # the optimal mechanism alone has no curves of its own (it is PF's)
        with _figures_bar(len(report.cases) * n_mech + 5, progress) as bar:
            curves = figure_cases(report, bar)
            figs = report_figures(curves, out, report.epsilon, labels, bar)
    report = replace(report, figures=tuple(figs), figure_dir=out)
    k = report.options.get("compose")
    if k is not None:
        from .composition import composition_figure

        report = replace(report, composition=(composition_figure(report, k, out),))
    summary = out / "summary.md"
    summary.write_text(render(report, "markdown") + "\n")
    body_text = render_latex_body(report)
    title = report.title.replace("exactdp", r"\texttt{exactdp}")
    tex = out / "report.tex"
    tex.write_text(provenance_comment(report) + "\n" + latex_document(
        body_text, title=title, packages=REPORT_PACKAGES, preamble=REPORT_PREAMBLE))
    body = out / "report-body.tex"
    body.write_text(body_preamble_note() + "\n" + provenance_comment(report) + "\n"
                    + body_text + "\n")
    compiled = compile_latex(tex) if pdf else None
    if compiled is None or compiled.pdf is None:  # an earlier report's PDF would disagree
        (out / "report.pdf").unlink(missing_ok=True)
    if not keep_aux:  # a failed compilation keeps the log its message names
        remove_aux(tex, keep=(".log",) if compiled is not None and compiled.pdf is None else ())
    manifest = write_manifest(out, report_file_names(), extra_files)
    return ReportFiles(out, tex, body, summary, tuple(figs) + report.composition, compiled,
                       manifest)


def _figures_bar(total: int, progress: bool):
    """The figures' tqdm bar on standard error when ``progress`` and it is a terminal, else
    a :class:`~exactdp.progress.NoBar` (tqdm not imported: ~40 ms of the report)."""
    if not (progress and sys.stderr.isatty()):
        return NoBar()
    from tqdm import tqdm

    return tqdm(total=total, desc="exactdp figures", unit="step", leave=False)


#: Packages the report loads beyond :data:`exactdp.io.latex.LATEX_PACKAGES`.
REPORT_PACKAGES = ("[section]{placeins}", "needspace")
#: Float placement of the standalone report: floats may fill most of a text page, and a
#: page of floats alone must be at least 75% full (no page left mostly blank).
REPORT_PREAMBLE = (r"\renewcommand{\topfraction}{0.9}", r"\renewcommand{\bottomfraction}{0.8}",
                   r"\renewcommand{\textfraction}{0.07}",
                   r"\renewcommand{\floatpagefraction}{0.75}",
                   r"\setcounter{topnumber}{3}", r"\setcounter{totalnumber}{5}")


def body_preamble_note() -> str:
    """The first line of ``report-body.tex``: the packages a paper must load to input it."""
    pkgs = ",".join((*LATEX_PACKAGES, "graphicx", "placeins", "needspace"))
    return (f"% exactdp report body, for \\input in a paper: needs \\usepackage{{{pkgs}}} "
            "(placeins with the [section] option keeps floats in their section); the figures "
            "are the PDFs beside this file")


def render_latex_body(report: Report) -> str:
    """The LaTeX body (sections, tables, figures, appendix) of the report."""
    return render(report, "latex")
