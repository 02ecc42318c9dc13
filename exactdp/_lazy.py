"""Lazy exports (PEP 562): a package's public names imported on first use.

``import exactdp`` loads none of its modules; each package's ``__getattr__`` imports a name
from the module its ``_EXPORTS`` map names, or a subpackage, the first time it is asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from importlib import import_module
from importlib.util import find_spec
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str], names: Sequence[str],
                 namespace: dict[str, Any]) -> tuple[Callable[[str], Any], Callable[[], list]]:
    """``(__getattr__, __dir__)`` for ``package``: ``exports`` maps a name to the relative
    module defining it; a loaded name is kept in the package's ``namespace``."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is not None:
            value = getattr(import_module(module, package), name)
        elif not name.startswith("_") and find_spec(f"{package}.{name}") is not None:
            value = import_module(f".{name}", package)  # a subpackage or submodule
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(names))

    return __getattr__, __dir__
