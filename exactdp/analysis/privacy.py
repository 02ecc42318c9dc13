"""Deprecated path: the privacy analyzer is split into :mod:`exactdp.analysis.loss`,
:mod:`~exactdp.analysis.check`, :mod:`~exactdp.analysis.certify`,
:mod:`~exactdp.analysis.supremum`, :mod:`~exactdp.analysis.neighbourhood` and
:mod:`exactdp.analysis.engines`; names are forwarded to them with a ``DeprecationWarning``
(:func:`exactdp.deprecation.moved_module`).
"""

from ..deprecation import moved_module

__getattr__, __dir__, __all__ = moved_module(
    __name__,
    (
        "exactdp.analysis.common",
        "exactdp.analysis.loss",
        "exactdp.analysis.check",
        "exactdp.analysis.certify",
        "exactdp.analysis.supremum",
        "exactdp.analysis.neighbourhood",
        "exactdp.analysis.engines.ball",
        "exactdp.analysis.engines.select",
        "exactdp.analysis.engines.sparse",
    ),
    deprecated=True,
    also=("EPSILON", "Y"),
    # former private names of the single module (and Y, the generator's old name: X)
    renamed={
        "Y": "X",
        "_arb_float": "arb_float", "_arb_prec": "arb_prec", "_ArbKey": "ArbKey",
        "_BallEngine": "BallEngine", "_check_pair": "check_pair",
        "_distribution": "distribution_of", "_epsilon": "mechanism_epsilon", "_Iv": "Iv",
        "_iv_max": "iv_max", "_make_engine": "make_engine", "_name": "mechanism_name",
        "_numeric_mechanism": "numeric_mechanism", "_plain": "plain", "_sv": "score_vector",
        "_SparseXEngine": "SparseXEngine", "_intervals": "set_intervals",
        "_sparse_unit_sign": "sparse_unit_sign",
    },
)
