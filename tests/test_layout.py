"""Layout rules of the package (docs/architecture.md): small modules, short functions, no
import of another module's underscore names, no import loop (not even through function-level
imports)."""

from __future__ import annotations

import ast
import pathlib
import re
from functools import cache
from pathlib import Path

import pytest

import exactdp

PACKAGE = Path(__file__).resolve().parent.parent / "exactdp"
MAX_LINES = 600
MAX_FUNCTION_LINES = 80

#: Temporary exceptions to the size rule: module -> why it is still larger.
SIZE_EXCEPTIONS: dict[str, str] = {}


@cache
def parse(path: Path) -> ast.Module:
    """The syntax tree of a package file (parsed once per test session)."""
    return ast.parse(path.read_text())


def modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = modules()


def resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute module an ``ImportFrom`` names (relative imports resolved)."""
    if node.level == 0:
        return node.module or ""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(module: str, path: Path) -> list[tuple[str, str, int]]:
    """``(imported module, name, line)`` for every import of the package in ``module``."""
    tree = parse(path)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = resolve(module, path, node)
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in MODULES:  # "from . import module"
                    found.append((sub, "", node.lineno))
                else:
                    found.append((target, alias.name, node.lineno))
        elif isinstance(node, ast.Import):
            found += [(a.name, "", node.lineno) for a in node.names]
    return [f for f in found if f[0].split(".")[0] == "exactdp"]


def type_checking_lines(path: Path) -> set[int]:
    """Lines inside ``if TYPE_CHECKING:`` blocks (annotations only, never executed)."""
    lines: set[int] = set()
    for node in ast.walk(parse(path)):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for sub in node.body:
                lines.update(range(sub.lineno, (sub.end_lineno or sub.lineno) + 1))
    return lines


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_size(module):
    path = MODULES[module]
    rel = str(path.relative_to(PACKAGE))
    n = len(path.read_text().splitlines())
    if rel in SIZE_EXCEPTIONS:
        return
    assert n <= MAX_LINES, f"{rel} has {n} lines (> {MAX_LINES}): split it"


def function_lengths(path: Path) -> list[tuple[str, int, int]]:
    """``(qualified name, line, length)`` of every function and method in ``path``; the
    length counts the lines after the docstring (blank and comment lines included)."""
    out = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body = child.body
                first = body[0]
                doc = (
                    isinstance(first, ast.Expr)
                    and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)
                )
                start = (first.end_lineno or first.lineno) + 1 if doc else first.lineno
                name = f"{prefix}{child.name}"
                out.append((name, child.lineno, (child.end_lineno or start) - start + 1))
                visit(child, f"{name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(parse(path), "")
    return out


def test_function_length():
    """Every function and method has at most MAX_FUNCTION_LINES lines after its docstring."""
    long = [
        f"{path.relative_to(PACKAGE.parent)}:{line} {name} has {n} lines"
        for path in MODULES.values()
        for name, line, n in function_lengths(path)
        if n > MAX_FUNCTION_LINES
    ]
    assert not long, f"split these (> {MAX_FUNCTION_LINES} lines):\n" + "\n".join(long)


def test_function_length_counts_the_body_after_the_docstring(tmp_path):
    src = tmp_path / "m.py"
    src.write_text(
        "def f():\n"  # 1
        '    """Doc\n'
        "\n"
        '    more."""\n'
        "    a = 1\n"  # 5: first line counted
        "\n"
        "    # a comment\n"
        "    return a\n"  # 8: 4 lines
        "\n"
        "\n"
        "class C:\n"
        "    def g(self):\n"  # 12
        "        def h():\n"
        "            return 1\n"
        "        return h\n"  # 15: 3 lines
    )
    assert function_lengths(src) == [("f", 1, 4), ("C.g", 12, 3), ("C.g.h", 13, 1)]


def test_no_import_of_another_modules_underscore_names():
    bad = []
    for module, path in MODULES.items():
        for target, name, line in imports_of(module, path):
            dunder = name.startswith("__") and name.endswith("__")
            if name.startswith("_") and not dunder and target != module:
                bad.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {target}.{name}")
    assert not bad, "\n".join(bad)


def test_no_import_loop():
    """The graph of module-level AND function-level imports of the package has no cycle
    (imports under ``if TYPE_CHECKING:`` are annotations only and are left out)."""
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for module, path in MODULES.items():
        skip = type_checking_lines(path)
        for target, _name, line in imports_of(module, path):
            if line in skip:
                continue
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            # importing a.b.c runs the packages a.b and a first: edges to them too, except
            # to the importer's own ancestors (already running when it is imported)
            while target:
                if target != module and not module.startswith(target + "."):
                    graph[module].add(target)
                target = target.rpartition(".")[0]
    cycles = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                cycles.append(" -> ".join(stack[stack.index(t):] + [t]))
            elif t not in state:
                visit(t)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    assert not cycles, "import loops:\n" + "\n".join(cycles)


#: Import cycles still allowed, each a set of modules (a strongly connected component of the
#: graph): none. No entry may be added.
KNOWN_CYCLES: set[frozenset[str]] = set()


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """module -> the package modules it imports: every import, at module level, in a
    function or under ``if TYPE_CHECKING:`` (importing ``a.b.c`` also runs the packages
    ``a.b`` and ``a``: edges to them too, except to the importer's own ancestors)."""
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        for target, _name, _line in imports_of(module, path):
            while target and target not in modules:
                target = target.rpartition(".")[0]
            while target:
                if target != module and not module.startswith(target + "."):
                    graph[module].add(target)
                target = target.rpartition(".")[0]
    return graph


def import_cycles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, with
    an explicit stack): each holds every module of the cycles through it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    component.add(m)
                    if m == node:
                        break
                if len(component) > 1:
                    found.add(frozenset(component))
    return found


def test_no_import_cycle_not_even_under_type_checking():
    """The graph of every import of the package (module level, function level and
    ``if TYPE_CHECKING:``) has no cycle but the :data:`KNOWN_CYCLES`: a helper module takes
    numbers or a protocol declared in the lower layer, never its caller's class."""
    cycles = import_cycles(import_graph(MODULES))
    new = sorted(sorted(c) for c in cycles - KNOWN_CYCLES)
    assert not new, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in new)
    stale = sorted(sorted(c) for c in KNOWN_CYCLES - cycles)
    assert not stale, f"KNOWN_CYCLES entries that are gone (remove them): {stale}"


def test_import_cycles_are_found_through_type_checking_and_packages(tmp_path):
    """The detector sees a cycle through an ``if TYPE_CHECKING:`` import, one through a
    function-level import, and one through a package's ``__init__``; none in a chain."""
    pkg = tmp_path / "exactdp"
    (pkg / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n",
        "b.py": "from .a import f\n",
        "c.py": "def g():\n    from .d import y\n",
        "d.py": "from .c import g\n",
        "e.py": "from .sub.s import h\n",
        "sub/__init__.py": "from ..e import x\n",
        "sub/s.py": "",
        "chain.py": "from .a import f\nfrom .sub.s import h\n",
    }
    for name, text in files.items():
        (pkg / name).write_text(text)
    mods = {}
    for path in sorted(pkg.rglob("*.py")):
        parts = list(path.relative_to(tmp_path).with_suffix("").parts)
        mods[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    assert import_cycles(import_graph(mods)) == {
        frozenset({"exactdp.a", "exactdp.b"}), frozenset({"exactdp.c", "exactdp.d"}),
        frozenset({"exactdp.e", "exactdp.sub"})}


#: Function-level imports of the package that remain: (importer, imported) -> why. A new one
#: needs a reason here; "to dodge an import loop" is not one (fix the layering instead).
LAZY_IMPORTS = {
    ("exactdp.io.document", "exactdp.io.figures"): "matplotlib (extra 'plots') only for figures",
    ("exactdp.io.report", "exactdp.io.figures"): "matplotlib (extra 'plots') only for figures",
    ("exactdp.io.cli", "exactdp.io.commands"): "arguments are checked before the library loads",
    ("exactdp.io.commands", "exactdp.io.document"): "a subcommand's modules load when it runs",
    ("exactdp.io.commands", "exactdp.io.report"): "a subcommand's modules load when it runs",
    ("exactdp.io.commands", "exactdp.io.composition"): "a subcommand's modules load when it runs",
    ("exactdp.io.commands", "exactdp.examples.pricing"): "a subcommand's modules load when it runs",
    ("exactdp.io.commands", "exactdp.audit.verification"): "exactdp suite loads it when it runs",
    ("exactdp.io.commands", "exactdp.audit.program_suite"): "exactdp suite loads it when it runs",
    ("exactdp.io.commands", "exactdp.audit.library_table"): "exactdp suite loads it when it runs",
    ("exactdp.io.report", "exactdp.examples.pricing"): "the pricing section only when asked for",
    ("exactdp.io.composition", "exactdp.io.figures"): "matplotlib (extra 'plots') only for figures",
    ("exactdp.io.document", "exactdp.io.composition"): "the composition section only for --compose",
    ("exactdp.io.entry", "exactdp"): "--version answers with the standard library only",
    ("exactdp.io.entry", "exactdp.io.cli"): "--version answers before the command line loads",
    ("exactdp.mechanisms.sparse_vector_engine", "exactdp.programs.library"):
        "SparseVector's discrete variants are the engine's programs (one layer up)",
    ("exactdp.mechanisms.sparse_vector_engine", "exactdp.programs.language"):
        "SparseVector's discrete variants are the engine's programs (one layer up)",
    ("exactdp.mechanisms.sparse_vector_engine", "exactdp.programs.mechanism"):
        "SparseVector's discrete variants are the engine's programs (one layer up)",
    ("exactdp.mechanisms.sparse_vector_engine", "exactdp.programs.trace"):
        "SparseVector's discrete variants are the engine's programs (one layer up)",
    ("exactdp.mechanisms.sparse_vector_release_engine", "exactdp.programs.library_release"):
        "Algorithm 3's pairs moving both ways and NumSVT's losses are the engine's (one layer up)",
    ("exactdp.mechanisms.sparse_vector_release_engine", "exactdp.programs.language"):
        "Algorithm 3's pairs moving both ways and NumSVT's losses are the engine's (one layer up)",
    ("exactdp.mechanisms.noisy_max_value_engine", "exactdp.programs.library_release"):
        "report-noisy-max's released value: its loss is the engine's (one layer up)",
    ("exactdp.mechanisms.noisy_max_value_engine", "exactdp.programs.language"):
        "report-noisy-max's released value: its loss is the engine's (one layer up)",
    ("exactdp.mechanisms.noisy_max_value_engine", "exactdp.programs.release_law"):
        "report-noisy-max's released value: its piecewise law is the engine's (one layer up)",
}


def function_level_imports(module: str, path: Path) -> list[tuple[str, int]]:
    """``(imported module, line)`` for every import of the package inside a function."""
    tree = parse(path)
    found = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.ImportFrom):
                target = resolve(module, path, node)
                found += [
                    (f"{target}.{a.name}" if f"{target}.{a.name}" in MODULES else target,
                     node.lineno)
                    for a in node.names
                ]
            elif isinstance(node, ast.Import):
                found += [(a.name, node.lineno) for a in node.names]
    return sorted({f for f in found if f[0].split(".")[0] == "exactdp"})


def test_no_function_level_import_of_the_package():
    """Imports of exactdp modules sit at module level (LAZY_IMPORTS lists each exception)."""
    bad = [
        f"{path.relative_to(PACKAGE.parent)}:{line} imports {target} inside a function"
        for module, path in MODULES.items()
        for target, line in function_level_imports(module, path)
        if (module, target) not in LAZY_IMPORTS
    ]
    assert not bad, "\n".join(bad)


#: Layer of each top-level module or package of exactdp (docs/architecture.md): a module
#: imports only from its own layer or lower ones.
LAYER = {
    "rng": 0, "cost": 0, "_validate": 0, "_lazy": 0, "progress": 0, "pf_cost": 2,
    "numbers": 1, "exact": 1, "numeric": 1,
    "scores": 2, "xform": 2, "printing": 2, "result": 2, "result_text": 2, "rational_form": 2,
    "lazy_probabilities": 2, "lazy_expr": 2, "answer": 2,
    "distribution": 3, "summaries": 3,
    "mechanisms": 4,
    "analysis": 5, "optimality": 5, "programs": 5,
    "audit": 6, "examples": 6,
    "io": 7, "proofs": 7, "__main__": 7,
    # the package, and exactdp.latex (the public path of the table printers of io/latex.py)
    "exactdp": 8, "latex": 8,
}

#: Imports that go up the layers, each with its reason.
LAYER_EXCEPTIONS = {
    ("io", "exactdp"): "io.cli reads the package's __version__",
    ("mechanisms", "programs"): "SparseVector's discrete variants are computed by the program "
                                "engine (issue 33, item 5), imported inside functions of "
                                "mechanisms/sparse_vector_engine.py (and Algorithm 3's pairs "
                                "moving both ways, mechanisms/sparse_vector_release_engine.py; the "
                                "loss of report-noisy-max's released value, "
                                "mechanisms/noisy_max_value_engine.py)",
}


def layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "exactdp"


def test_layers():
    unknown = sorted({layer_of(m) for m in MODULES} - set(LAYER))
    assert not unknown, f"give these a layer in LAYER (and docs/architecture.md): {unknown}"
    bad = []
    for module, path in MODULES.items():
        skip = type_checking_lines(path)
        for target, _name, line in imports_of(module, path):
            a, b = layer_of(module), layer_of(target)
            if line in skip or a == b or (a, b) in LAYER_EXCEPTIONS:
                continue
            if LAYER[b] > LAYER[a]:
                bad.append(f"{path.relative_to(PACKAGE.parent)}:{line} ({a}) imports {target}")
    assert not bad, "imports up the layers:\n" + "\n".join(bad)


#: Top-level modules not (yet) in the architecture page's layer table, each with its reason.
UNLISTED_TOP_LEVEL = {
}


def architecture_layers() -> dict[str, int]:
    """Top-level module -> layer, read from the layer table of docs/architecture.md
    (backticked ``name.py`` / ``name/`` of the "modules" column; parenthesised submodules
    skipped)."""
    text = (PACKAGE.parent / "docs" / "architecture.md").read_text()
    out = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        head = re.match(r"(\d+)\.", cells[0]) if len(cells) >= 3 else None
        if not head:
            continue
        column = cells[1]
        while re.search(r"\([^()]*\)", column):
            column = re.sub(r"\([^()]*\)", "", column)
        for name in re.findall(r"`([A-Za-z_]+)(?:\.py|/)`", column):
            out[name] = int(head.group(1))
    return out


def test_top_level_modules_are_the_architecture_pages_layers():
    """Every top-level module is in the page's layer table, at its LAYER, and the page names
    no module that does not exist."""
    documented = architecture_layers()
    documented["exactdp"] = documented.pop("__init__")
    present = {layer_of(m) for m in MODULES}
    assert present - set(documented) == set(UNLISTED_TOP_LEVEL), (
        "top-level modules missing from docs/architecture.md's layer table: "
        f"{sorted(present - set(documented) - set(UNLISTED_TOP_LEVEL))}")
    assert set(documented) <= present, f"the page names: {sorted(set(documented) - present)}"
    assert {m: LAYER[m] for m in documented} == documented


def test_no_name_shadows_a_submodule():
    """A package exports no name equal to one of its submodules (``import a.b as m`` must give
    the module, docs/architecture.md "Design choices")."""
    import importlib

    bad = []
    for module, path in MODULES.items():
        if path.name != "__init__.py":
            continue
        package = importlib.import_module(module)
        subs = {p.stem for p in path.parent.glob("*.py") if p.stem != "__init__"}
        subs |= {p.parent.name for p in path.parent.glob("*/__init__.py")}
        bad += [f"{module}.{name}" for name in set(getattr(package, "__all__", ())) & subs]
    assert not bad, f"exported names equal to a submodule's name: {bad}"


#: Modules (not packages) that keep an ``__all__``, each with its reason; every other module's
#: public names are exported by its package's one ``__all__``.
MODULE_ALL = {
    "latex.py": "the public path exactdp.latex: one plain re-export of the table printers",
}


def defines_all(path: Path) -> bool:
    return any(
        isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
        for node in parse(path).body
    )


def test_one_all_per_package():
    bad = sorted(
        str(path.relative_to(PACKAGE))
        for path in MODULES.values()
        if path.name != "__init__.py" and defines_all(path)
        and str(path.relative_to(PACKAGE)) not in MODULE_ALL
    )
    assert not bad, f"modules with their own __all__ (export from the package): {bad}"
    stale = [m for m in MODULE_ALL if not (PACKAGE / m).exists() or not defines_all(PACKAGE / m)]
    assert not stale, f"stale MODULE_ALL entries: {stale}"


def test_top_level_all_has_no_duplicates_and_no_aliases():
    names = exactdp.__all__
    assert len(names) == len(set(names)), "duplicates in exactdp.__all__"
    objects: dict[int, str] = {}
    for name in names:
        obj = getattr(exactdp, name)
        assert id(obj) not in objects, f"{name} is an alias of {objects[id(obj)]}"
        objects[id(obj)] = name
        own = getattr(obj, "__name__", name)
        assert own == name, f"exactdp.{name} is named {own}"


ROOT = pathlib.Path(exactdp.__file__).parent


# ---------------------------------------------------------------- no numeric guesses
_FORBIDDEN = [
    (re.compile(r"\bnsimplify\b"), "nsimplify"),
    (re.compile(r"\bN\([^()]*(\([^()]*\))?[^()]*\)\s*(<|>|<=|>=|==|!=)"), "N(...) compared"),
    (re.compile(r"(<|>|<=|>=|==|!=)\s*(float\()?(sympy\.)?\bN\("), "compared with N(...)"),
    (re.compile(r"\.evalf\([^)]*\)\s*(<|>|<=|>=)"), "evalf compared"),
]


def _exact_layer_and_analyzer() -> list[pathlib.Path]:
    files = sorted((ROOT / "exact").rglob("*.py")) + sorted((ROOT / "analysis").rglob("*.py"))
    for name in ("scores.py", "xform.py"):
        if (ROOT / name).exists():
            files.append(ROOT / name)
    for sub in ("optimality",):
        files += sorted((ROOT / sub).rglob("*.py")) if (ROOT / sub).exists() else []
    return files


def test_no_nsimplify_or_numeric_comparison_in_the_exact_layer_or_the_analyzer():
    bad = []
    for path in _exact_layer_and_analyzer():
        for no, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            for pattern, what in _FORBIDDEN:
                if pattern.search(code):
                    bad.append(f"{path.relative_to(ROOT)}:{no}: {what}: {line.strip()}")
    assert not bad, "\n".join(bad)


# ---------------------------------------------------------------- tests/ mirrors the package
TESTS = Path(__file__).resolve().parent
DOCS = PACKAGE.parent / "docs"

#: Test modules at tests/ top level that test no single module, each with its reason.
CROSS_CUTTING = {
    "test_readme.py": "the README's examples, run as written",
    "test_layout.py": "rules over every module of the package (sizes, imports, this mirror)",
    "test_common.py": "the registry: the same properties over every mechanism class",
    "test_ci_strict.py": "the CI hook of the root conftest.py",
    "test_public_api_tested.py": "every public name of exactdp.__all__ appears in a test",
    "test_docs_site.py": "the documentation site, built strictly: offline math, API pages",
    "test_docstring_examples.py": "the Examples of every docstring of exactdp.__all__, run",
    "test_startup.py": "what `import exactdp` loads: the lazy exports of every package",
    "test_fuzz.py": "the public API fuzzed over the registry: invariants and one-line refusals",
}


def mirrored_module(test: Path) -> str | None:
    """The module or doc page ``test`` covers: tests/a/test_b.py -> exactdp/a/b.py (or a
    private ``_b.py``, or a package ``b/``); tests/test_<page>_docs.py -> docs/<page>.md."""
    rel = test.relative_to(TESTS)
    name = rel.name.removeprefix("test_").removesuffix(".py")
    folder = PACKAGE.joinpath(*rel.parts[:-1])
    for cand in (folder / f"{name}.py", folder / f"_{name}.py", folder / name / "__init__.py"):
        if cand.exists():
            return str(cand.relative_to(PACKAGE.parent))
    page = DOCS / f"{name.removesuffix('_docs')}.md"
    if len(rel.parts) == 1 and name.endswith("_docs") and page.exists():
        return str(page.relative_to(PACKAGE.parent))
    return None


def test_tests_mirror_the_package():
    """Each test module sits where its module sits: tests/analysis/test_check.py tests
    exactdp/analysis/check.py (docs/architecture.md, "Tests")."""
    bad = []
    for test in sorted(TESTS.rglob("test_*.py")):
        rel = test.relative_to(TESTS)
        if rel.as_posix() in CROSS_CUTTING:
            continue
        target = mirrored_module(test)
        if target is None:
            bad.append(f"tests/{rel}")
    assert not bad, (
        "test modules that mirror no module of exactdp (tests/a/test_b.py must test "
        "exactdp/a/b.py; move them, or list a cross-cutting file in CROSS_CUTTING):\n"
        + "\n".join(bad)
    )
    for folder in sorted(p for p in TESTS.rglob("*")
                         if p.is_dir() and p.name not in ("__pycache__", "data")):
        rel = folder.relative_to(TESTS)
        assert (PACKAGE / rel / "__init__.py").exists(), f"tests/{rel} mirrors no exactdp package"
        assert (folder / "__init__.py").exists(), f"tests/{rel} needs an __init__.py"


def test_cross_cutting_list_is_current():
    missing = [name for name in CROSS_CUTTING if not (TESTS / name).exists()]
    assert not missing, f"stale CROSS_CUTTING entries: {missing}"

#: Modules that may still raise a hand-worded "... must ..." ValueError, each with its reason.
#: Every other argument check goes through exactdp/_validate.py (docs/architecture.md,
#: "Argument errors: one message style").
HAND_WORDED = {
    "_validate.py": "builds the one message style",
    "analysis/supremum.py": "refuses what the user's family(g) returned, not an argument",
    "mechanisms/custom.py": "refuses what the user's function returned, not an argument",
    "mechanisms/registry.py": "TypeError at class definition: a developer's declaration",
}


def hand_worded_argument_errors(path: Path) -> list[int]:
    """Lines of ``raise ValueError(...)`` / ``raise TypeError(...)`` whose message says
    "must": an argument check worded by hand instead of through ``exactdp._validate``."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
            continue
        call = node.exc
        if not (isinstance(call.func, ast.Name) and call.func.id in ("ValueError", "TypeError")):
            continue
        if call.args and " must " in ast.unparse(call.args[0]):
            lines.append(node.lineno)
    return lines


def test_hand_worded_argument_errors_detected():
    """The detector finds an f-string argument message and ignores other refusals."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.py"
        path.write_text(
            "def f(k):\n"
            "    if k < 1:\n"
            "        raise ValueError(f'f: k must be >= 1, got {k!r}')\n"
            "    raise ValueError('f: no rational form in x')\n"
        )
        assert hand_worded_argument_errors(path) == [3]


def test_argument_errors_go_through_validate():
    bad = []
    for path in MODULES.values():
        rel = str(path.relative_to(PACKAGE))
        if rel in HAND_WORDED:
            continue
        bad += [f"exactdp/{rel}:{line}" for line in hand_worded_argument_errors(path)]
    assert not bad, ("argument errors worded by hand; use exactdp._validate "
                     "(argument_error / check_*):\n" + "\n".join(bad))


# ---------------------------------------------------------------- tests of a function at home
#: Functions tested (imported) outside their home test file whose home file does not test them
#: yet: (module, function) -> why. A new entry needs a reason; "not moved yet" is one only
#: while the home test file does not exist.
_FIXTURE = "used there to build an input or a reference, not tested; no home test yet"
_END_TO_END = "exercised by the report's end-to-end tests; its module has no test file yet"
FUNCTION_TEST_EXCEPTIONS: dict[tuple[str, str], str] = {
    ("exactdp.analysis.common", "score_vector"): _FIXTURE,
    ("exactdp.analysis.pld.results", "bisect_epsilon"):
        "tested with the PLD values in tests/analysis/pld/test_core.py",
    ("exactdp.io.document", "find_engine"): _END_TO_END,
    ("exactdp.io.document", "overfull_boxes"): _END_TO_END,
    ("exactdp.io.figures", "plot_entropy"): _END_TO_END,
    ("exactdp.io.figures", "plot_privacy_loss"): _END_TO_END,
    ("exactdp.io.latex", "latex_document"): _END_TO_END,
    ("exactdp.io.latex", "table"): _END_TO_END,
    ("exactdp.mechanisms.custom", "wrong_permute_and_flip"):
        "a known-wrong mechanism: the analyzer's tests are the tests that it is caught",
    ("exactdp.mechanisms.custom", "wrong_rnm_laplace"):
        "a known-wrong mechanism: the analyzer's tests are the tests that it is caught",
    ("exactdp.mechanisms.noisy_max", "rnm_exponential_ring"):
        "tests/test_xform.py checks the ring of exactdp.xform against it (one test, both)",
    ("exactdp.mechanisms.permute_flip", "pf_ring_probabilities"):
        "tests/test_xform.py checks the ring of exactdp.xform against it (one test, both)",
    ("exactdp.optimality.lattice", "pf_dual_polys"):
        "the exact LP certificate test builds on it (tests/optimality/test_exact_solve.py)",
    ("exactdp.proofs", "load"): "tests/proofs/test_runner.py loads every proof module",
}

#: Test files that use functions of many modules by design (not the tests of those functions).
FUNCTION_USERS_EXEMPT = set(CROSS_CUTTING) | {"test_readme.py"}


def defining_module(module: str, name: str, depth: int = 0) -> str | None:
    """The package module whose top level defines function ``name`` reached as
    ``module.name`` (following re-exports), or None (a class, a constant, a module)."""
    path = MODULES.get(module)
    if path is None or depth > 10:
        return None
    body = parse(path).body
    # a lazy package (PEP 562) names its re-exports under ``if TYPE_CHECKING:``
    body += [n for b in body if isinstance(b, ast.If) for n in b.body]
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return module
    for node in body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    return defining_module(resolve(module, path, node), alias.name, depth + 1)
    return None


def functions_used(test: Path) -> set[tuple[str, str]]:
    """``(defining module, function)`` of every package function a test file imports or
    reaches as an attribute of an imported package module."""
    tree = ast.parse(test.read_text())
    found: set[tuple[str, str]] = set()
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            if (node.module or "").split(".")[0] != "exactdp":
                continue
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                if (home := defining_module(node.module or "", alias.name)) is not None:
                    found.add((home, alias.name))
                elif sub in MODULES:
                    aliases[alias.asname or alias.name] = sub
        elif isinstance(node, ast.Import):
            aliases.update({a.asname or a.name: a.name for a in node.names if a.name in MODULES})
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            owner = ast.unparse(node.value)
            owner = aliases.get(owner, owner)
            if owner in MODULES and (home := defining_module(owner, node.attr)) is not None:
                found.add((home, node.attr))
    return found


def home_tests(module: str, function: str) -> list[Path]:
    """Where the tests of ``module.function`` live: the module's mirror test file
    (tests/a/test_b.py for exactdp/a/b.py or exactdp/a/_b.py), or the mirror of a
    subpackage that re-exports it (tests/numeric/test_pf.py for exactdp/numeric/pf/*)."""
    rel = MODULES[module].relative_to(PACKAGE)
    parts = list(rel.parts[:-1])
    stem = rel.stem
    homes = []
    if stem != "__init__":
        homes += [TESTS.joinpath(*parts, f"test_{stem}.py"),
                  TESTS.joinpath(*parts, f"test_{stem.removeprefix('_')}.py")]
    while parts:
        package = "exactdp." + ".".join(parts)
        if package == module or defining_module(package, function) == module:
            homes.append(TESTS.joinpath(*parts[:-1], f"test_{parts[-1]}.py"))
        parts.pop()
    return homes


def identifiers(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.Attribute):
            out.add(node.attr)
        elif isinstance(node, ast.alias):
            out.add(node.name.rpartition(".")[2])
    return out


def misplaced_function_tests() -> dict[tuple[str, str], list[str]]:
    """``(module, function) -> [test files]`` for each public function that a test file
    imports while its home test file (:func:`home_tests`) never names it."""
    users: dict[tuple[str, str], list[str]] = {}
    for test in sorted(TESTS.rglob("test_*.py")):
        rel = test.relative_to(TESTS)
        if rel.as_posix() in FUNCTION_USERS_EXEMPT or (len(rel.parts) == 1
                                                         and rel.stem.endswith("_docs")):
            continue
        for key in functions_used(test):
            if not key[1].startswith("_"):
                users.setdefault(key, []).append(f"tests/{rel}")
    bad = {}
    for (module, function), tests in sorted(users.items()):
        homes = [h for h in home_tests(module, function) if h.exists()]
        if not any(function in identifiers(h) for h in homes):
            bad[(module, function)] = tests
    return bad


def test_tests_of_a_function_live_in_its_modules_test_file():
    """A function used by the tests is tested in the test file of the module that defines
    it (tests/exact/test_signs.py tests exactdp.exact.signs.proved_equal), not only
    elsewhere; FUNCTION_TEST_EXCEPTIONS lists the remaining cases with their reasons."""
    bad = [
        f"{module}.{function} (home {home_tests(module, function)[0].relative_to(TESTS.parent)})"
        f" is tested only in {', '.join(tests)}"
        for (module, function), tests in misplaced_function_tests().items()
        if (module, function) not in FUNCTION_TEST_EXCEPTIONS
    ]
    assert not bad, "move these tests to the home test file:\n" + "\n".join(bad)


def test_function_test_exceptions_are_current():
    misplaced = misplaced_function_tests()
    stale = [key for key in FUNCTION_TEST_EXCEPTIONS if key not in misplaced]
    assert not stale, f"stale FUNCTION_TEST_EXCEPTIONS entries (now tested at home): {stale}"


def test_function_home_detection(tmp_path):
    """The detector resolves re-exports to the defining module and finds the home file."""
    assert defining_module("exactdp.exact", "proved_equal") == "exactdp.exact.signs"
    assert defining_module("exactdp.exact", "sign") == "exactdp.exact.signs"
    assert defining_module("exactdp.exact", "UndecidedSignError") is None  # a class
    assert TESTS / "exact" / "test_signs.py" in home_tests("exactdp.exact.signs", "sign")
    assert TESTS / "numeric" / "test_pf.py" in home_tests("exactdp.numeric.pf.float64", "pf_float")
    test = tmp_path / "test_x.py"
    test.write_text(
        "import exactdp.exact.signs as s\n"
        "from exactdp.exact import compare\n"
        "def test():\n"
        "    assert s.is_zero(0) and compare(1, 0) == 1\n"
    )
    assert functions_used(test) == {("exactdp.exact.signs", "is_zero"),
                                    ("exactdp.exact.signs", "compare")}


# --------------------------------------------------------- the declared mechanism protocol
#: Folders that read mechanisms and distributions only through their declared protocol
#: (exactdp.mechanisms.base.Mechanism: parameters, capabilities, outputs, views).
PROTOCOL_READERS = ("analysis", "audit", "io")

#: The few hasattr/getattr calls there that probe no mechanism or distribution:
#: (module, source of the call's first argument) -> why.
PROBE_ALLOWED = {
    ("analysis/engines/sparse.py", "c"):
        "a coefficient of sympy's sparse ring: flint fmpq or PythonMPQ, by ground type",
    ("analysis/peer_accountants.py", "dp.c"):
        "dp_accounting's API differs between its versions (make_composition)",
    ("analysis/witness.py", "self"): "Witness.__repr__ reads its own dataclass fields by name",
    ("audit/peers.py", "mechanisms"): "diffprivlib's module: the peer class by its name",
}


def _probe_calls(path: Path) -> list[tuple[str, int]]:
    out = []
    for node in ast.walk(parse(path)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("hasattr", "getattr") and node.args):
            out.append((ast.unparse(node.args[0]), node.lineno))
    return out


def test_no_probing_of_mechanisms_or_distributions():
    """No hasattr/getattr on a mechanism or distribution in analysis/, audit/, io/: they read
    the declared protocol (capabilities, outputs, declared parameters) instead."""
    bad, used = [], set()
    for folder in PROTOCOL_READERS:
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            rel = str(path.relative_to(PACKAGE))
            for arg, line in _probe_calls(path):
                if (rel, arg) in PROBE_ALLOWED:
                    used.add((rel, arg))
                else:
                    bad.append(f"{rel}:{line}: probes {arg}")
    assert not bad, "probing instead of the protocol:\n" + "\n".join(bad)
    assert used == set(PROBE_ALLOWED), f"stale PROBE_ALLOWED entries: {set(PROBE_ALLOWED) - used}"


def test_no_underscore_method_of_a_mechanism_outside_mechanisms():
    """Only exactdp/mechanisms/ calls a mechanism's hooks (``mech._exact``, ...); everything
    else goes through ``evaluate``, ``balls_certified`` and the distribution's views."""
    bad = []
    for module, path in MODULES.items():
        if module.startswith("exactdp.mechanisms"):
            continue
        for node in ast.walk(parse(path)):
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                    and not node.attr.startswith("__")
                    and re.search(r"\bmech(anism)?\b", ast.unparse(node.value))):
                bad.append(f"{module}:{node.lineno}: {ast.unparse(node)}")
    assert not bad, "private hooks of a mechanism used outside mechanisms/:\n" + "\n".join(bad)


def test_probe_detection(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("def f(mech):\n    return hasattr(mech, 'noise') or getattr(mech.x, 'y', 0)\n")
    assert _probe_calls(f) == [("mech", 2), ("mech.x", 2)]


# ---------------------------------------------------------------- declarations, not classes
#: Modules that still test a mechanism's class, and why (none left).
CLASS_CHECK_EXCEPTIONS: dict[str, str] = {}
#: The one door that tests for the protocol itself: ``as_mechanism`` refuses other objects.
DOOR = "exactdp.analysis.common"


def mechanism_class_names() -> set[str]:
    """The names of every mechanism class of the package (``Mechanism`` and its subclasses)."""
    from exactdp.mechanisms import Mechanism

    seen: set[str] = set()
    todo = [Mechanism]
    while todo:
        cls = todo.pop()
        seen.add(cls.__name__)
        todo += cls.__subclasses__()
    return seen


def class_checks(path: Path, names: set[str]) -> list[tuple[str, int]]:
    """``(class, line)`` of every ``isinstance(x, C)`` / ``issubclass`` whose ``C`` (or an
    element of its tuple) is one of ``names``."""
    found = []
    for node in ast.walk(parse(path)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("isinstance", "issubclass") and len(node.args) == 2):
            continue
        arg = node.args[1]
        for el in arg.elts if isinstance(arg, ast.Tuple) else [arg]:
            name = el.id if isinstance(el, ast.Name) else (
                el.attr if isinstance(el, ast.Attribute) else None)
            if name in names:
                found.append((name, node.lineno))
    return found


def test_the_analyzer_reads_declarations_not_mechanism_classes():
    """No ``isinstance`` on a mechanism class in ``analysis/``, ``audit/`` or ``io/``: they
    read the declared protocol (``output_kind``, ``capabilities``, ``product_tree``,
    ``check_cost``), so a new mechanism of any kind needs no edit there."""
    names = mechanism_class_names()
    assert {"Mechanism", "SparseVector", "PermuteAndFlip", "TopK"} <= names
    bad = []
    for module, path in MODULES.items():
        if module.split(".")[1:2] not in (["analysis"], ["audit"], ["io"]):
            continue
        if module in CLASS_CHECK_EXCEPTIONS:
            continue
        for name, line in class_checks(path, names):
            if module == DOOR and name == "Mechanism":
                continue
            bad.append(f"{module}:{line} isinstance(..., {name})")
    assert not bad, "read the mechanism's declarations instead: " + ", ".join(bad)


def test_class_checks_are_found(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("isinstance(m, (int, TopK))\nisinstance(m, mechanisms.SparseVector)\n"
                   "isinstance(m, float)\n")
    assert class_checks(src, {"TopK", "SparseVector"}) == [("TopK", 1), ("SparseVector", 2)]


# ---------------------------------------------------------------- declared capabilities
#: The public view of a distribution that backs each capability, per output kind.
DISCRETE_VIEWS = {
    "exact": lambda d: d.probabilities,
    "rational_form": lambda d: d.rational_form(),
    "numeric_rational_form": lambda d: d.numeric_rational_form(),
    "mpmath": lambda d: d.evalf(15),
    "float": lambda d: d.to_numpy(),
    "balls": lambda d: d.evalf_balls(15),
    "sample": lambda d: d.sample(5, rng=1),
}


def _release_output(d):
    """An output of a release distribution: its last pattern with 1/2 at each release (the
    one value 1/2 for a single released value)."""
    import sympy

    half = sympy.Rational(1, 2)
    pattern = d.outputs[-1]
    return half if pattern == (True,) else tuple(half if p is True else p for p in pattern)


RELEASE_VIEWS = {
    "density": lambda d: (d.density(_release_output(d)), d.loss_supremum(d.scores)),
    "sample": lambda d: d.sample(5, rng=1),
}


@pytest.mark.parametrize("key", sorted(exactdp.mechanisms.REGISTRY))
def test_every_declared_capability_is_backed(key):
    """For every registry entry, each capability its example declares on a small score
    vector is answered by the corresponding public view of its distribution (no view that
    the protocol promises and the hooks do not back)."""
    mech = exactdp.mechanisms.REGISTRY[key].instance()
    sv = exactdp.as_scores([0, 1, "1/2"])
    caps = mech.capabilities_on(sv)
    assert caps, key
    d = mech.distribution(sv.raw)
    views = RELEASE_VIEWS if mech.output_kind == "release" else DISCRETE_VIEWS
    assert caps <= set(views), f"{key}: {sorted(caps - set(views))} has no public view"
    for cap in sorted(caps):
        views[cap](d)  # answers: no exception



# ---------------------------------------------------------------- tests mirror the package
REPO = PACKAGE.parent

#: Modules without a test file of their own, each with where it is tested instead.
MIRROR_EXEMPT = {
    "exactdp/__main__.py": "python -m exactdp: tests/test_startup.py runs it",
    "exactdp/_lazy.py": "the lazy exports: tests/test_startup.py",
}
#: Routes of one function, tested route against route in the package's test file.
MIRROR_PACKAGES = {
    "exactdp/numeric/laplace/": "tests/numeric/test_laplace.py",
    "exactdp/numeric/pf/": "tests/numeric/test_pf.py",
    "exactdp/proofs/": "tests/proofs/test_runner.py runs and checks every proof module",
}
#: Test files about the whole package rather than one module.
CROSS_CUTTING_TESTS = {
    "test_ci_strict.py", "test_common.py", "test_composition_docs.py", "test_docs_site.py",
    "test_docstring_examples.py", "test_fuzz.py", "test_index_docs.py", "test_layout.py",
    "test_options_docs.py", "test_public_api_tested.py", "test_readme.py", "test_startup.py",
    "test_suite_docs.py",
}


def _test_names(module: Path) -> list[Path]:
    """``tests/<dirs>/test_<name>.py`` of ``exactdp/<dirs>/<name>.py`` (a private module
    ``_name.py`` may drop its underscore)."""
    rel = module.relative_to(PACKAGE)
    folder = REPO / "tests" / rel.parent
    return [folder / f"test_{rel.stem}.py", folder / f"test_{rel.stem.lstrip('_')}.py"]


def test_every_module_has_a_test_file_of_its_own():
    missing = []
    for module in sorted(PACKAGE.rglob("*.py")):
        rel = str(module.relative_to(REPO))
        if module.name == "__init__.py" or rel in MIRROR_EXEMPT or "__pycache__" in rel:
            continue
        if any(rel.startswith(p) for p in MIRROR_PACKAGES):
            continue
        if not any(t.exists() for t in _test_names(module)):
            missing.append(f"{rel}: no {_test_names(module)[0].relative_to(REPO)}")
    assert not missing, "\n".join(missing)
    for rel in MIRROR_EXEMPT:  # the list stays small and true: each entry still needed
        assert (REPO / rel).exists() and not any(
            t.exists() for t in _test_names(REPO / rel)), rel


def test_every_test_file_names_a_module():
    orphans = []
    for test in sorted((REPO / "tests").rglob("test_*.py")):
        rel = test.relative_to(REPO / "tests")
        if (rel.parent == Path(".") and rel.name in CROSS_CUTTING_TESTS
                or rel.as_posix() in CROSS_CUTTING):
            continue
        stem = rel.stem.removeprefix("test_")
        base = PACKAGE / rel.parent
        if not any((base / f"{s}.py").exists() or (base / s / "__init__.py").exists()
                   for s in (stem, f"_{stem}")):
            orphans.append(str(rel))
    assert not orphans, orphans
