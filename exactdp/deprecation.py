"""Deprecated names (pre-1.0: kept one release, each warning with the new name).

The naming table of docs/architecture.md gives one name per concept; a renamed function or
method keeps its old name as an alias that emits a :class:`DeprecationWarning` and calls the
new one. An alias never takes the name of another public function. A module that moved keeps
its old dotted path through :func:`moved_module` (a module-level ``__getattr__`` that forwards
to the new modules).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import os
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = [
    "deprecated_alias",
    "deprecated_attributes",
    "deprecated_method",
    "moved_module",
    "deprecated_keyword_property",
    "deprecated_property",
    "outside_stacklevel",
    "renamed_keyword",
    "renamed_parameter",
    "warn_renamed",
]


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


def moved_module(
    name: str,
    sources: Sequence[str],
    *,
    deprecated: bool,
    also: Sequence[str] = (),
    renamed: Mapping[str, str] | None = None,
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """``(__getattr__, __dir__, __all__)`` for an old module path whose code moved.

    The old module ``name`` (e.g. ``"exactdp.lp"``) holds no copy of its names: attribute
    access is forwarded (PEP 562, module ``__getattr__``) to the source that lists the name
    in its ``__all__``, else the one that defines it, else the first of ``sources`` that has
    it, so ``from exactdp.lp import lattice_lp`` returns the very object of the new module.
    Names starting with ``_`` are forwarded only through ``renamed``.

    Parameters
    ----------
    name : str
        The old module's ``__name__``.
    sources : sequence of str
        Dotted names of the modules the code lives in now, searched in order (imported now).
    deprecated : bool
        True: every forwarded access warns ``DeprecationWarning`` naming the new path. False:
        a public path kept as a contract (``exactdp.latex``), forwarded silently.
    also : sequence of str
        Names in the old ``__all__`` beyond the sources' ``__all__`` (constants).
    renamed : mapping of str to str, optional
        Old (private) names of the single module -> their names in the sources.

    Returns
    -------
    (callable, callable, list of str)
        The module's ``__getattr__``, its ``__dir__`` and its ``__all__`` (the union of the
        sources' ``__all__`` and ``also``).

    Raises
    ------
    AttributeError
        From the returned ``__getattr__``, for a name no source has.
    """
    modules = [importlib.import_module(s) for s in sources]
    renamed = dict(renamed or {})
    names = [n for m in modules for n in getattr(m, "__all__", ())] + list(also)
    public = list(dict.fromkeys(names))

    def home(target: str) -> Any:
        """The source that exports ``target`` (its ``__all__``, else where it is defined)."""
        holders = [m for m in modules if hasattr(m, target)]
        if not holders:
            return None
        for mod in holders:
            if target in getattr(mod, "__all__", ()):
                return mod
        defined_in = getattr(getattr(holders[0], target), "__module__", None)
        return next((m for m in holders if m.__name__ == defined_in), holders[0])

    def __getattr__(attr: str) -> Any:
        target = renamed.get(attr, attr)
        if not attr.startswith("__") and (attr in renamed or not attr.startswith("_")):
            mod = home(target)
            if mod is not None:
                if deprecated:
                    warn_renamed(f"{name}.{attr}", f"{mod.__name__}.{target}")
                return getattr(mod, target)
        raise AttributeError(f"module {name!r} has no attribute {attr!r}")

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[name])) | set(public) | set(renamed))

    return __getattr__, __dir__, public


def deprecated_attributes(module: str, renamed: dict[str, tuple[str, Any]]) -> Callable[[str], Any]:
    """A module ``__getattr__`` serving renamed module attributes (classes, constants).

    ``renamed`` maps each old name to ``(new name, object)``; reading ``module.<old name>``
    warns and returns the object itself, so ``isinstance`` checks against the old name keep
    working (PEP 562).
    """

    def __getattr__(name: str) -> Any:
        if name in renamed:
            new, obj = renamed[name]
            warn_renamed(f"{module}.{name}", new)
            return obj
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__


def deprecated_property(new_name: str, old_name: str) -> property:
    """A read-only property ``old_name`` that warns, then returns ``self.<new_name>``."""

    def getter(self: Any) -> Any:
        warn_renamed(f"{type(self).__name__}.{old_name}", f".{new_name}")
        return getattr(self, new_name)

    getter.__name__ = old_name
    return property(getter, doc=f"Deprecated alias of :attr:`{new_name}`.")


def deprecated_keyword_property(new_name: str, old_name: str) -> property:
    """:func:`deprecated_property` for a name that is also a deprecated dataclass keyword.

    The keyword is an ``InitVar`` of the dataclass; :func:`dataclasses.replace` copies
    InitVars by reading the attribute, so for that caller the property answers None (not
    given: the new field is copied instead) without a warning.
    """

    def getter(self: Any) -> Any:
        caller = sys._getframe(1).f_code
        if caller.co_filename == dataclasses.__file__ and caller.co_name in ("replace", "_replace"):
            return None
        warn_renamed(f"{type(self).__name__}.{old_name}", f".{new_name}")
        return getattr(self, new_name)

    getter.__name__ = old_name
    return property(getter, doc=f"Deprecated alias of :attr:`{new_name}`.")


def outside_stacklevel() -> int:
    """The ``stacklevel`` for :func:`warn_renamed` that points at the first caller outside
    exactdp (and outside dataclass-generated ``__init__`` code), seen from the caller."""
    package = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(2), 3
    while frame is not None and (frame.f_code.co_filename.startswith(package)
                                 or frame.f_code.co_filename.startswith("<")):
        frame, level = frame.f_back, level + 1
    return level


def renamed_keyword(func: str, new: str, new_value: Any, old: str, old_value: Any,
                    stacklevel: int | None = None) -> Any:
    """The value of a renamed keyword argument: ``new_value``, or ``old_value`` (warning once).

    Both default to None (not given). Giving the old keyword warns ``func(old=...) is
    deprecated; use new=...`` (attributed to the first caller outside exactdp unless
    ``stacklevel`` is given); giving both with different values raises ValueError.
    """
    if old_value is None:
        return new_value
    level = outside_stacklevel() if stacklevel is None else stacklevel
    warn_renamed(f"{func}({old}=...)", f"{new}=...", stacklevel=level)
    if new_value is not None and new_value != old_value:
        raise ValueError(
            f"{func}: {old}={old_value!r} and {new}={new_value!r} contradict each other "
            f"({old} is the deprecated name of {new})"
        )
    return old_value


def renamed_parameter(old: str, new: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: the keyword ``old`` is a deprecated name of the parameter ``new``.

    ``f(old=v)`` warns DeprecationWarning (``f(old=...) is deprecated; use new=...``) and
    calls ``f(new=v)``; giving both raises TypeError. The signature shown is the new one.
    """

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if old in kwargs:
                if new in kwargs:
                    raise TypeError(
                        f"{func.__name__}: give {new}= only ({old}= is its deprecated name)"
                    )
                warn_renamed(f"{func.__name__}({old}=...)", f"{new}=...")
                kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        return wrapper

    return decorate
