"""Compatibility path: the exact algebra now lives in :mod:`exactdp.exact`.

Re-exports the names of the former ``exactdp.algebra`` module from
:mod:`exactdp.exact.poly` and :mod:`exactdp.exact.unit_interval`.
"""

from .exact.poly import (
    Y,
    as_fmpq_poly,
    fmpq_poly_to_sympy,
    sign_at,
    to_arb,
    xform_from_probabilities,
)
from .exact.unit_interval import (
    UnitIntervalSign,
    descartes_bound,
    is_nonnegative_on_unit_interval,
    sign_on_unit_interval,
    verify_sign_analysis,
)

__all__ = [
    "UnitIntervalSign",
    "Y",
    "as_fmpq_poly",
    "descartes_bound",
    "fmpq_poly_to_sympy",
    "is_nonnegative_on_unit_interval",
    "sign_at",
    "sign_on_unit_interval",
    "to_arb",
    "verify_sign_analysis",
    "xform_from_probabilities",
]
