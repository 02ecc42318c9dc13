"""The report directory's LaTeX step: a failed compilation says why and keeps its log.

Independent route: a deliberately broken document whose first LaTeX error is known
(``\\undefinedcommand``: TeX's ``! Undefined control sequence.``).
"""

from __future__ import annotations

from exactdp.io.document import compile_latex, first_error, remove_aux, write_report
from exactdp.io.report import build_report
from tests.io.test_report import need_engine

BROKEN = "\\documentclass{article}\n\\begin{document}\nok\n\\undefinedcommand\n\\end{document}\n"


def test_a_failed_compilation_names_latex_first_error_and_its_log(tmp_path):
    need_engine()
    tex = tmp_path / "broken.tex"
    tex.write_text(BROKEN)
    res = compile_latex(tex)
    assert res.pdf is None
    assert "Undefined control sequence" in res.message
    assert "l.4" in res.message  # the line of the error in the source
    assert str(tmp_path / "broken.log") in res.message
    assert "\n" not in res.message  # one line


def test_remove_aux_keeps_the_log_a_failure_names(tmp_path):
    tex = tmp_path / "report.tex"
    for suffix in (".tex", ".aux", ".log"):
        tex.with_suffix(suffix).write_text("x")
    remove_aux(tex, keep=(".log",))
    assert tex.with_suffix(".log").exists() and not tex.with_suffix(".aux").exists()


def test_write_report_keeps_the_log_when_latex_fails(tmp_path, monkeypatch):
    need_engine()
    import exactdp.io.document as document

    monkeypatch.setattr(document, "render_latex_body", lambda report: "\\undefinedcommand")
    rep = build_report("1", example=None, scores=[1, 0], neighbour=[0, 1],
                       mechanisms=["pf", "em"])
    files = write_report(rep, tmp_path / "out")  # keep_aux=False: the default (--clean)
    assert files.compiled is not None and files.compiled.pdf is None
    assert "Undefined control sequence" in files.compiled.message
    log = tmp_path / "out" / "report.log"
    assert log.is_file() and str(log) in files.compiled.message
    assert not (tmp_path / "out" / "report.aux").exists()


def test_first_error_reads_tex_error_and_its_line():
    log = ("This is pdfTeX\n(./x.tex\n! Undefined control sequence.\nl.4 \\undefinedcommand\n"
           "\n! Emergency stop.\n")
    assert first_error(log) == "! Undefined control sequence. l.4 \\undefinedcommand"
    assert first_error("no errors here\n") == ""


def test_a_report_without_pdf_removes_an_earlier_reports_pdf(tmp_path):
    """``--no-pdf`` over an earlier report's directory: its ``report.pdf`` (in the manifest,
    so the rerun may replace it) would show other numbers than the new ``report.tex``."""
    rep = build_report("1", example=None, scores=[1, 0], neighbour=[0, 1],
                       mechanisms=["pf", "em"])
    out = tmp_path / "out"
    write_report(rep, out, pdf=False)
    (out / "report.pdf").write_bytes(b"%PDF-1.5 an earlier report")  # as a compiled run
    manifest = out / "exactdp-manifest.txt"
    manifest.write_text(manifest.read_text() + "report.pdf\n")
    files = write_report(rep, out, pdf=False)
    assert files.compiled is None
    assert not (out / "report.pdf").exists() and (out / "report.tex").is_file()
