"""The home page (docs/index.md): its example prints what the page says it prints, and it
says which version it documents."""

import contextlib
import io
import re
from pathlib import Path

import pytest

import exactdp

PAGE = Path(__file__).resolve().parents[1] / "docs" / "index.md"


def test_home_example_prints_what_the_page_shows():
    text = PAGE.read_text()
    code, shown = re.search(r"```python\n(.*?)```\n\nprints\n\n```text\n(.*?)```", text,
                            flags=re.S).groups()
    lines = [s for s in code.splitlines() if s and not s.startswith("import ")]
    assert len(lines) <= 10  # "ten lines, after the imports"
    assert max(len(s) for s in code.splitlines()) <= 72  # no line runs past the box
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/index.md", "exec"), {})  # noqa: S102 - the page's own code
    assert out.getvalue() == shown


def test_home_page_states_the_version_and_install_line():
    text = PAGE.read_text()
    assert "<!-- version -->" in text  # mkdocs_hooks.py writes exactdp.__version__ there
    assert "pip install" in text
    pytest.importorskip("griffe")  # mkdocs_hooks needs the docs extra
    from mkdocs_hooks import on_page_markdown

    assert f"version {exactdp.__version__}" in on_page_markdown(text, None, None, None)
