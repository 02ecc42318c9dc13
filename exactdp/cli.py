"""Public path ``exactdp.cli``: the code lives in :mod:`exactdp.io.cli`, forwarded silently.

A contract (not deprecated): see :func:`exactdp.deprecation.moved_module`.
"""

from .deprecation import moved_module

__getattr__, __dir__, __all__ = moved_module(__name__, ("exactdp.io.cli",), deprecated=False)
