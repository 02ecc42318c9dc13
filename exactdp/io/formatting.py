"""Path ``exactdp.io.formatting``: the number formatting lives in :mod:`exactdp.printing` (a
low layer, so distributions and results print through it), forwarded silently.

See :func:`exactdp.deprecation.moved_module`.
"""

from ..deprecation import moved_module

__getattr__, __dir__, __all__ = moved_module(__name__, ("exactdp.printing",), deprecated=False)
