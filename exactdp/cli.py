"""Public path ``exactdp.cli``: the command line lives in :mod:`exactdp.io.cli`."""

from .io.cli import *  # noqa: F403
from .io.cli import __all__, main  # noqa: F401
