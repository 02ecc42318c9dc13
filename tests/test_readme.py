"""The README's and the docs' Python examples run as written, each block on its own (its own
imports, as pasted into a fresh interpreter), and every ``# -> value`` comment is checked
against what its line returns (or prints)."""

import ast
import contextlib
import io
import pathlib
import re
import tokenize
import warnings

import pytest
import sympy

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"
#: ``code  # -> value``: the value a line returns (its repr) or prints (its text).
ARROW = re.compile(r"#\s*->\s*(?P<want>.*?)\s*$")


def matches(got: str, want: str) -> bool:
    """``want`` is ``got``, or a prefix of it when ``want`` ends with ``...``."""
    if want.endswith("..."):
        return got.startswith(want[:-3])
    return got == want


def run_block(block: str, name: str, ns: dict | None = None) -> dict:
    """Run ``block`` statement by statement in ``ns`` (a fresh namespace by default) and check
    each ``# -> value`` comment on a statement's last line; returns the namespace.

    An expression statement is checked by the ``repr`` of its value, a ``print(...)`` by the
    text it prints (without the final newline).
    """
    ns = {"__name__": "__docs__"} if ns is None else ns
    comments = {tok.start[0]: tok.string for tok in
                tokenize.generate_tokens(io.StringIO(block).readline)
                if tok.type == tokenize.COMMENT}
    checked = 0
    for stmt in ast.parse(block).body:
        m = ARROW.match(comments.get(stmt.end_lineno, ""))
        code = compile(ast.Module(body=[stmt], type_ignores=[]), name, "exec")
        if m is None or not isinstance(stmt, ast.Expr):
            assert m is None, f"{name}:{stmt.lineno}: '# ->' on a statement that is no expression"
            exec(code, ns)  # noqa: S102 - the page's own code
            continue
        want = m.group("want")
        call = stmt.value
        printed = isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
        if printed and call.func.id == "print":
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(code, ns)  # noqa: S102
            got = out.getvalue().rstrip("\n")
        else:
            got = repr(eval(compile(ast.Expression(body=call), name, "eval"), ns))  # noqa: S307
        assert matches(got, want), f"{name}:{stmt.lineno}: the comment says {want!r}, got {got!r}"
        checked += 1
    ns["__checked__"] = ns.get("__checked__", 0) + checked
    return ns


def test_arrow_comments_are_checked():
    ns = run_block("x = 2\nx + 1   # -> 3\nprint('ab' * 2)   # -> abab\n"
                   "'long text'  # -> 'long...\n", "t")
    assert ns["__checked__"] == 3
    with pytest.raises(AssertionError, match="the comment says '4', got '3'"):
        run_block("1 + 2  # -> 4\n", "t")


def test_readme_python_blocks_run():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert len(blocks) >= 2
    ns: dict = {}
    checked = 0
    for k, block in enumerate(blocks):
        own = run_block(block, f"README.md[block {k}]")  # each block on its own
        checked += own.pop("__checked__")
        ns.update(own)
    assert checked >= 10  # the values the README promises are compared, not just run
    # spot-check the values the comments promise
    assert ns["forms"][0] == sympy.sympify("x**3/3 - x**2/2 - x/2 + 1").subs(
        "x", ns["x"])
    assert ns["cert"].holds and ns["cert"].verify()
    assert (ns["swept"].cases, ns["swept"].holds, ns["swept"].failures) == (9, True, ())
    assert float(ns["exactdp"].privacy_loss(
        ns["ReportNoisyMax"]("1/10", noise="laplace"), [1] * 5, [2, 0, 0, 0, 0]
    )) == pytest.approx(0.0926959, abs=1e-7)


def test_readme_opens_with_a_hello_world_and_its_output():
    """The README's first block is a hello world of at most 5 lines, and the text block
    after it is exactly what it prints."""
    text = README.read_text()
    first = text.index("```")
    code, shown = re.match(r"```python\n(.*?)```\n\n```text\n(.*?)```", text[first:],
                           flags=re.S).groups()
    assert text[:first].strip() == "# exactdp"
    assert len(code.strip().splitlines()) <= 5
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(README), "exec"), {})  # noqa: S102 - the README's own code
    assert out.getvalue() == shown


def test_readme_picture_of_a_report_page_exists():
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", README.read_text())
    assert pictures and all((README.parent / p).is_file() for p in pictures)


# ---------------------------------------------------------------------------- docs pages
DOCS = README.parent / "docs"
BLOCK = re.compile(r"^```python\n(.*?)^```", flags=re.S | re.M)


def python_blocks(path: pathlib.Path) -> list[str]:
    """The page's fenced ``python`` blocks (fences at the start of a line), in order."""
    return BLOCK.findall(path.read_text())


@pytest.mark.parametrize("page", [p for p in sorted(DOCS.glob("*.md")) if python_blocks(p)],
                         ids=lambda p: p.name)
def test_docs_python_blocks_run(page, tmp_path, monkeypatch):
    """Every Python block of every docs page runs on its own, its ``# ->`` values checked.

    Signatures and other non-runnable snippets belong in ``text`` fences.
    """
    monkeypatch.chdir(tmp_path)  # a block that writes files writes them here
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k, block in enumerate(python_blocks(page)):
            try:
                run_block(block, f"{page.name}[block {k}]")  # each block on its own
            except ImportError as exc:
                # a page about an optional extra (peers, accounting, dask, docs) needs it
                # installed; under CI=true conftest turns this skip into a failure
                if isinstance(exc, ModuleNotFoundError) or "install the extra" in str(exc):
                    pytest.skip(f"optional extra missing for {page.name}: {exc}")
                raise


def test_block_pattern():
    text = "x\n```python\na = 1\n```\n  ```python\nignored\n  ```\n```text\nb\n```\n"
    assert BLOCK.findall(text) == ["a = 1\n"]


def test_no_references_to_files_outside_the_repository():
    """Docs, README and docstrings cite the formula page, never the project's private notes."""
    root = README.parent
    files = [README, *DOCS.glob("*.md"), *(root / "exactdp").rglob("*.py"),
             *(root / "tests").glob("*.py")]
    outside = re.compile(r"MATH\.md|DESIGN\.md|seed-notes|shared/|\]\(\.\./")
    hits = [f"{f.relative_to(root)}:{i + 1}" for f in files if f.name != "test_readme.py"
            for i, line in enumerate(f.read_text().splitlines()) if outside.search(line)]
    assert hits == []


def test_formula_page_sections_cited_by_number_exist():
    """Docstrings and tests cite "docs/formulas.md section N": every such N is a heading."""
    root = README.parent
    headings = set(re.findall(r"^## (\d+)\. ", (DOCS / "formulas.md").read_text(), flags=re.M))
    cited = set()
    for f in [*(root / "exactdp").rglob("*.py"), *(root / "tests").glob("*.py"),
              *DOCS.glob("*.md")]:
        cited |= set(re.findall(r"formulas(?:\.md|\]\(formulas\.md\))?,? section (\d+)",
                                f.read_text()))
    assert cited and cited <= headings, cited - headings


def test_readme_introduces_the_sparse_vector_work_and_the_suite():
    """Issue 35 item 13: the README said nothing of SparseVector or `exactdp suite`."""
    text = README.read_text()
    assert "SparseVector(" in text and "exactdp suite" in text and "docs/suite.md" in text


def test_the_readme_first_commands_output_is_ignored_by_git():
    """Issue 35 item 12: ``exactdp report`` writes ``exactdp-report/`` in the clone."""
    ignore = (README.parent / ".gitignore").read_text().splitlines()
    assert "exactdp-report/" in ignore
