"""mkdocs hook: the API page's list of mechanisms, read from ``exactdp.mechanisms.REGISTRY``.

``docs/api.md`` holds the marker :data:`MARKER`; :func:`on_page_markdown` replaces it by a
table of the registry and one mkdocstrings entry per registered class, so a mechanism added
in a new module appears on the page with no other file touched.
"""

from __future__ import annotations

import sys
from pathlib import Path

# document the exactdp of this checkout (the one mkdocstrings reads: ``paths: [.]``)
sys.path.insert(0, str(Path(__file__).resolve().parent))

MARKER = "<!-- mechanisms: exactdp.mechanisms.REGISTRY -->"


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
    """Expand :data:`MARKER` (mkdocs ``hooks:`` entry point)."""
    return markdown.replace(MARKER, mechanism_entries()) if MARKER in markdown else markdown
