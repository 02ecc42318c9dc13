"""``python -m exactdp``: the same as the ``exactdp`` command."""

import sys

from .io.entry import main

if __name__ == "__main__":
    sys.exit(main())
