"""Every public name of exactdp is exercised by a test: each name of ``exactdp.__all__``, each
function of the subpackages' ``__all__`` (analysis, mechanisms, optimality, exact, audit, io), and
each public method or property of the classes exported by any of them (the result types
included) appears in at least one test module (tests/ or proofs/), read by an AST scan
(names, attributes, imported names). Module-level constants are left out.

The scan says a name is used, not that its value is checked: the tests it finds must assert
values from an independent route (docs/architecture.md, "Tests"). A name left out below
carries its reason.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import exactdp

ROOT = Path(__file__).resolve().parent.parent
SUBPACKAGES = ("analysis", "mechanisms", "optimality", "exact", "audit", "io")

#: Public names deliberately without a test of their own, each with its reason.
ALLOWED_UNTESTED: dict[str, str] = {}


def names_in_tests() -> set[str]:
    seen: set[str] = set()
    files = sorted((ROOT / "tests").rglob("test_*.py"))
    files += sorted((ROOT / "proofs").glob("prove_*.py"))
    for path in files:
        if path.name == Path(__file__).name:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Name):
                seen.add(node.id)
            elif isinstance(node, ast.Attribute):
                seen.add(node.attr)
            elif isinstance(node, ast.alias):
                seen.add(node.name.rpartition(".")[2])
    return seen


def exported() -> list[tuple[str, object, bool]]:
    """``(qualified name, object, name must appear)`` for every name exported by exactdp and
    its subpackages; a subpackage's classes and constants need not appear by name (result
    types are reached through the functions that return them), their members must."""
    out = [(name, getattr(exactdp, name), True) for name in exactdp.__all__]
    for sub in SUBPACKAGES:
        module = importlib.import_module(f"exactdp.{sub}")
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            out.append((f"{sub}.{name}", obj, inspect.isfunction(obj)))
    return out


def public_api() -> list[str]:
    """Names that must appear: exported names, and ``Class.member`` for each public method /
    property a package class defines (inherited ones once, under the defining class)."""
    out, done = [], set()
    for name, obj, must in exported():
        if must and name not in out:
            out.append(name)
        if not inspect.isclass(obj):
            continue
        for cls in obj.__mro__:
            if cls in done or not cls.__module__.startswith("exactdp"):
                continue
            done.add(cls)
            for member, value in vars(cls).items():
                if member.startswith("_") and member != "_repr_latex_":
                    continue
                if inspect.isfunction(value) or isinstance(
                        value, (property, classmethod, staticmethod)):
                    out.append(f"{cls.__name__}.{member}")
    return out


def test_every_public_name_appears_in_a_test():
    seen = names_in_tests()
    missing = [n for n in public_api()
               if n.rpartition(".")[2] not in seen and n not in ALLOWED_UNTESTED]
    assert not missing, (
        "public names no test uses (add a test asserting a value from an independent route, "
        "or list the name in ALLOWED_UNTESTED with the reason):\n" + "\n".join(missing)
    )


def test_allow_list_is_current():
    api = set(public_api())
    assert not [n for n in ALLOWED_UNTESTED if n not in api], "stale ALLOWED_UNTESTED entries"
