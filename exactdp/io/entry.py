"""The ``exactdp`` console entry point: ``--version`` answers before the command line loads.

``exactdp --version`` prints the version from :data:`exactdp.__version__` (standard library
only: no sympy, mpmath or registry import); every other command is
:func:`exactdp.io.cli.main`, imported on demand (issue 36: the start-up of ``--version``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

#: The arguments answered without loading the command line.
VERSION_FLAGS = (["--version"],)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``exactdp`` command.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status.

    Examples
    --------
    >>> main(["--version"])  # doctest: +ELLIPSIS
    exactdp ...
    0
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if args in VERSION_FLAGS:
        from .. import __version__

        print(f"exactdp {__version__}")
        return 0
    from .cli import main as cli_main

    return cli_main(args)
