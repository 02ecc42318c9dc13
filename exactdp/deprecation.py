"""Deprecated names (pre-1.0: kept one release, each warning with the new name).

The naming table of docs/architecture.md gives one name per concept; a renamed function or
method keeps its old name as an alias that emits a :class:`DeprecationWarning` and calls the
new one. An alias never takes the name of another public function.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

__all__ = ["deprecated_alias", "deprecated_method", "warn_renamed"]


def warn_renamed(old: str, new: str, stacklevel: int = 3) -> None:
    """Emit the one DeprecationWarning text of the package: ``old`` is deprecated, use ``new``."""
    warnings.warn(f"{old} is deprecated; use {new}", DeprecationWarning, stacklevel=stacklevel)


def deprecated_alias(new: Callable[..., Any], old_name: str) -> Callable[..., Any]:
    """A function named ``old_name`` that warns, then calls ``new`` with the same arguments."""

    @functools.wraps(new)
    def alias(*args: Any, **kwargs: Any) -> Any:
        warn_renamed(old_name, new.__name__)
        return new(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = old_name
    alias.__doc__ = f"Deprecated alias of :func:`{new.__module__}.{new.__name__}`."
    return alias


def deprecated_method(new_name: str, old_name: str) -> Callable[..., Any]:
    """A method named ``old_name`` that warns, then calls ``self.<new_name>``."""

    def alias(self: Any, *args: Any, **kwargs: Any) -> Any:
        warn_renamed(f"{type(self).__name__}.{old_name}()", f".{new_name}()")
        return getattr(self, new_name)(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = old_name
    alias.__doc__ = f"Deprecated alias of :meth:`{new_name}`."
    return alias
