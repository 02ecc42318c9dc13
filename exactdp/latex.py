"""Public path ``exactdp.latex``: the printer lives in :mod:`exactdp.io.latex`."""

from .io.latex import *  # noqa: F403
from .io.latex import __all__  # noqa: F401
