"""Public path ``exactdp.report``: the report lives in :mod:`exactdp.io.report`."""

from .io.report import *  # noqa: F403
from .io.report import __all__  # noqa: F401
