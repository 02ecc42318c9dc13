"""Deprecated path: the exact algebra now lives in :mod:`exactdp.exact`.

The names of the former ``exactdp.algebra`` module are forwarded, with a
``DeprecationWarning``, to :mod:`exactdp.exact.poly` and :mod:`exactdp.exact.unit_interval`
(:func:`exactdp.deprecation.moved_module`).
"""

from .deprecation import moved_module

__getattr__, __dir__, __all__ = moved_module(
    __name__,
    ("exactdp.exact.poly", "exactdp.exact.unit_interval"),
    deprecated=True,
    also=("Y",),
)
