"""Deprecated path: the lattice LP now lives in :mod:`exactdp.optimality`.

Every name of the former single module is forwarded (with a ``DeprecationWarning``) to the
module that holds it now; see :func:`exactdp.deprecation.moved_module`.
"""

from .deprecation import moved_module

__getattr__, __dir__, __all__ = moved_module(
    __name__,
    (
        "exactdp.optimality",
        "exactdp.optimality.program",
        "exactdp.optimality.region",
        "exactdp.optimality.lattice",
        "exactdp.optimality.float_solve",
        "exactdp.optimality.exact_solve",
    ),
    deprecated=True,
    renamed={"_lattice": "build_lattice", "_pf_dual_polys": "pf_dual_polys"},
)
