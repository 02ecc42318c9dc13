"""mkdocs hooks of the documentation site (``hooks:`` and the mkdocstrings extension in
``mkdocs.yml``).

- Math is rendered at build time, so the site loads no script for it and works offline:
  :func:`on_config` installs KaTeX (``package.json``) into ``node_modules/`` when it is
  missing, :func:`on_page_content` renders each page's ``arithmatex`` formulas with it (one
  ``node`` run per page), and :func:`on_files` copies KaTeX's stylesheet and fonts into the
  site.
- :func:`on_page_markdown` expands three markers: :data:`VERSION` (the version of this
  checkout's exactdp, on the home page), :data:`MARKER` (the API page's list of
  mechanisms, read from ``exactdp.mechanisms.REGISTRY``, so a mechanism added in a new module
  appears with no other file touched) and ``<!-- api: PACKAGE [except MODULE ...] -->`` (one
  mkdocstrings entry per name of ``PACKAGE.__all__``, grouped by the module that defines it).
- :class:`SphinxRoles` turns the numpydoc roles of the docstrings (``:class:`X```,
  ``:func:`f```, ``:meth:``, ``:attr:``, ``:data:``, ``:mod:``, ``:exc:``, ``:obj:``) into
  cross-references, resolved in the docstring's own scope as Python would resolve the name.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from html import escape, unescape
from pathlib import Path

import griffe
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

MARKER = "<!-- mechanisms: exactdp.mechanisms.REGISTRY -->"
VERSION = "<!-- version -->"
API_MARKER = re.compile(r"<!-- api: (?P<package>[\w.]+)(?: except (?P<skip>[\w. ]+?))? -->")
ENTRY = re.compile(r"^::: ([\w.]+)", flags=re.M)
ROOT = Path(__file__).resolve().parent


def mechanism_entries() -> str:
    """The registry table and the ``::: module.Class`` entries, in registry order."""
    from exactdp.mechanisms import REGISTRY

    rows = ["| short name | label | outputs | class |", "|---|---|---|---|"]
    classes: list[type] = []
    for key, spec in REGISTRY.items():
        path = f"{spec.cls.__module__}.{spec.cls.__qualname__}"
        rows.append(f"| `{key}` | {spec.label} | {spec.kind} | [`{spec.cls.__name__}`][{path}] |")
        if spec.cls not in classes:
            classes.append(spec.cls)
    entries = [f"::: {cls.__module__}.{cls.__qualname__}" for cls in classes]
    return "\n".join(rows) + "\n\n" + "\n\n".join(entries) + "\n"


def api_entries(package: str, skip: tuple[str, ...] = (), present: tuple[str, ...] = ()) -> str:
    """One ``::: package.name`` entry per class or function of ``package.__all__``, under a
    heading per defining module (the first line of its docstring), in ``__all__`` order.

    Names defined in a module of ``skip`` (or below it), and objects already entered on the
    page (``present``: their defining ``module.qualname``), are left out.
    """
    import importlib
    import inspect

    pkg = importlib.import_module(package)
    groups: dict[str, list[str]] = {}
    for name in pkg.__all__:
        obj = getattr(pkg, name)
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        module = obj.__module__
        if f"{module}.{obj.__qualname__}" in present or any(
                module == s or module.startswith(s + ".") for s in skip):
            continue
        groups.setdefault(module, []).append(f"::: {package}.{name}")
    out = []
    for module, entries in groups.items():
        doc = (inspect.getdoc(importlib.import_module(module)) or module).splitlines()[0]
        title = ROLE.sub(lambda m: f"`{m['target']}`", doc.rstrip(".").replace("``", "`"))
        out.append(f"## {title}\n\n`{module}`\n\n" + "\n\n".join(entries))
    return "\n\n".join(out) + "\n"


def _child(code: str) -> str:
    """Run ``code`` in a child Python started in this checkout (the build's own process may
    hold another installed exactdp) and return what it prints."""
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout


KATEX = ROOT / "node_modules" / "katex"
KATEX_ASSETS = "assets/katex"
# arithmatex (generic mode) writes \(...\) in a span and \[...\] in a div, HTML-escaped
MATH = re.compile(r'<(?P<tag>span|div) class="arithmatex">(?P<body>.*?)</(?P=tag)>', re.S)
RENDER_JS = """
const katex = require('katex');
let input = '';
process.stdin.on('data', (d) => { input += d; }).on('end', () => {
  const out = JSON.parse(input).map(([tex, display]) => {
    try {
      return [true, katex.renderToString(tex, {displayMode: display, throwOnError: true,
                                                strict: 'error'})];
    } catch (err) { return [false, `${err.message} in: ${tex}`]; }
  });
  process.stdout.write(JSON.stringify(out));
});
"""


def on_config(config):
    """Install the KaTeX of ``package.json`` into ``node_modules/`` when it is not there."""
    if not (KATEX / "package.json").is_file():
        npm = shutil.which("npm")
        if npm is None:
            raise PluginError("docs: KaTeX renders the math at build time; install node, npm")
        subprocess.run([npm, "install", "--no-package-lock", "--no-audit", "--no-fund",
                        "--loglevel=error"], cwd=ROOT, check=True)
    return config


def render_math(formulas: list[tuple[str, bool]]) -> list[str]:
    """KaTeX's HTML for each ``(tex, display)``, in one ``node`` run; a formula KaTeX cannot
    parse raises :class:`PluginError` naming it."""
    run = subprocess.run(["node", "-e", RENDER_JS], cwd=ROOT, input=json.dumps(formulas),
                         capture_output=True, text=True, check=True)
    out = []
    for ok, text in json.loads(run.stdout):
        if not ok:
            raise PluginError(f"docs: KaTeX: {text}")
        out.append(text)
    return out


def on_page_content(html: str, page, config, files) -> str:
    """Replace the page's ``arithmatex`` formulas by KaTeX's HTML."""
    matches = list(MATH.finditer(html))
    if not matches:
        return html
    formulas = []
    for m in matches:
        body = unescape(m["body"]).strip()
        formulas.append((body[2:-2], m["tag"] == "div"))  # strip \( \) or \[ \]
    rendered = iter(render_math(formulas))
    return MATH.sub(lambda m: f'<{m["tag"]} class="arithmatex">{next(rendered)}</{m["tag"]}>',
                    html)


def on_files(files, config):
    """Add KaTeX's stylesheet and fonts to the site, under :data:`KATEX_ASSETS`."""
    dist = KATEX / "dist"
    for src in [dist / "katex.min.css", *sorted((dist / "fonts").glob("*.woff2"))]:
        rel = src.relative_to(dist).as_posix()
        files.append(File.generated(config, f"{KATEX_ASSETS}/{rel}", abs_src_path=str(src)))
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    """Expand :data:`VERSION`, :data:`MARKER` and the ``<!-- api: ... -->`` markers (mkdocs
    ``hooks:`` entry point)."""
    if VERSION in markdown:
        version = _child("import exactdp; print(exactdp.__version__, end='')")
        markdown = markdown.replace(VERSION, f"version {version}")
    if MARKER in markdown:
        code = "from mkdocs_hooks import mechanism_entries; print(mechanism_entries(), end='')"
        markdown = markdown.replace(MARKER, _child(code))
    for match in list(API_MARKER.finditer(markdown)):
        skip = tuple((match["skip"] or "").split())
        present = tuple(ENTRY.findall(markdown))
        code = ("from mkdocs_hooks import api_entries; "
                f"print(api_entries({match['package']!r}, {skip!r}, {present!r}), end='')")
        markdown = markdown.replace(match[0], _child(code))
    return markdown


ROLE = re.compile(r":(?:class|func|meth|attr|data|mod|exc|obj):`(?P<tilde>~?)(?P<target>[^`]+)`")


class SphinxRoles(griffe.Extension):
    """A griffe extension: numpydoc's ``:role:`target``` becomes an autorefs cross-reference.

    The target is resolved in the scope of the object whose docstring holds it (its members,
    its module's names and imports, then the parents'); a dotted target is also tried from
    the top package. A target that is not on the site (a private helper) shows as code.
    """

    def on_package(self, *, pkg: griffe.Module, **kwargs) -> None:
        declared: list[griffe.Class] = []
        self._walk(pkg, set(), declared)
        _runtime_defaults(declared)

    def _walk(self, obj: griffe.Object, seen: set[str], declared: list) -> None:
        if obj.path in seen:
            return
        seen.add(obj.path)
        if obj.docstring is not None and ":" in obj.docstring.value:
            obj.docstring.value = ROLE.sub(lambda m: self._link(obj, m), obj.docstring.value)
        if obj.is_class and _declared_parameters(obj):
            declared.append(obj)  # type: ignore[arg-type]
        for member in obj.members.values():
            if not member.is_alias:
                self._walk(member, seen, declared)  # type: ignore[arg-type]

    @staticmethod
    def _link(obj: griffe.Object, match: re.Match) -> str:
        target = match["target"].removesuffix("()")
        title = target.rsplit(".", 1)[-1] if match["tilde"] else target
        head, _, rest = target.partition(".")
        try:
            path = obj.resolve(head) + (f".{rest}" if rest else "")
        except griffe.NameResolutionError:
            path = target
        return (f'<autoref identifier="{escape(path)}" optional>'
                f"<code>{escape(title)}</code></autoref>")


def _declared_parameters(cls: griffe.Object) -> bool:
    """Whether a field of the dataclass ``cls`` defaults to a declared mechanism parameter
    (``epsilon_parameter()``, ``parameter(...)``) rather than to a value."""
    return any(_is_declared(m) for m in cls.members.values())


def _is_declared(member) -> bool:
    return (not member.is_alias and member.is_attribute
            and isinstance(member.value, griffe.ExprCall)
            and str(member.value.function).endswith("parameter"))


def _runtime_defaults(classes: list) -> None:
    """Show a declared parameter's real default (``sensitivity = 1``; none when it is
    required), read from ``inspect.signature`` of the class in this checkout; griffe's
    dataclass support then builds ``__init__`` from these values."""
    if not classes:
        return
    code = ("import importlib, inspect, json, sys\n"
            "out = {}\n"
            "for mod, name in json.loads(sys.argv[1]):\n"
            "    sig = inspect.signature(getattr(importlib.import_module(mod), name))\n"
            "    out[mod + '.' + name] = {p.name: None if p.default is p.empty else repr(p.default)"
            " for p in sig.parameters.values()}\n"
            "print(json.dumps(out))")
    paths = json.dumps([[c.module.path, c.name] for c in classes])
    found = json.loads(subprocess.run([sys.executable, "-c", code, paths], cwd=ROOT,
                                      capture_output=True, text=True, check=True).stdout)
    for cls in classes:
        defaults = found[f"{cls.module.path}.{cls.name}"]
        for name, member in cls.members.items():
            if _is_declared(member) and name in defaults:
                member.value = defaults[name]
