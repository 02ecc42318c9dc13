"""Old path ``exactdp.numeric.pf_engine``: the engine is the package :mod:`exactdp.numeric.pf`
(one module per route), forwarded silently (see :func:`exactdp.deprecation.moved_module`)."""

from ..deprecation import moved_module

__getattr__, __dir__, __all__ = moved_module(__name__, ("exactdp.numeric.pf",), deprecated=False)
