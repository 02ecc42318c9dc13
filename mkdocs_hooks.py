"""mkdocs hook: the API page's list of mechanisms, read from ``exactdp.mechanisms.REGISTRY``.

``docs/api.md`` holds the marker :data:`MARKER`; :func:`on_page_markdown` replaces it by a
table of the registry and one mkdocstrings entry per registered class, so a mechanism added
in a new module appears on the page with no other file touched.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

MARKER = "<!-- mechanisms: exactdp.mechanisms.REGISTRY -->"
ROOT = Path(__file__).resolve().parent


def mechanism_entries() -> str:
    """The registry table and the ``::: module.Class`` entries, in registry order."""
    from exactdp.mechanisms import REGISTRY

    rows = ["| short name | label | outputs | class |", "|---|---|---|---|"]
    classes: list[type] = []
    for key, spec in REGISTRY.items():
        rows.append(f"| `{key}` | {spec.label} | {spec.kind} | `{spec.cls.__name__}` |")
        if spec.cls not in classes:
            classes.append(spec.cls)
    entries = [f"::: {cls.__module__}.{cls.__qualname__}" for cls in classes]
    return "\n".join(rows) + "\n\n" + "\n\n".join(entries) + "\n"


def on_page_markdown(markdown: str, page, config, files) -> str:
    """Expand :data:`MARKER` (mkdocs ``hooks:`` entry point) with the registry of this
    checkout's exactdp (read in a child process started here: the build's own process may
    hold another installed exactdp)."""
    if MARKER not in markdown:
        return markdown
    code = "from mkdocs_hooks import mechanism_entries; print(mechanism_entries(), end='')"
    text = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout
    return markdown.replace(MARKER, text)
