"""Deprecated path: the optimal regular mechanism now lives in :mod:`exactdp.mechanisms.optimal`.

Names are forwarded with a ``DeprecationWarning`` (:func:`exactdp.deprecation.moved_module`).
"""

from .deprecation import moved_module

__getattr__, __dir__, __all__ = moved_module(
    __name__, ("exactdp.mechanisms.optimal",), deprecated=True, also=("METHODS",)
)
