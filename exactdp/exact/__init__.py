"""The exact layer: signs, zero tests and rigorous ball enclosures of real numbers.

No differential-privacy concepts live here (LAYOUT.md: "the package's sympy.polys").

- :mod:`exactdp.exact.signs`: :func:`sign`, :func:`is_zero`, :func:`compare` decide exactly
  or raise :class:`UndecidedSignError`, never guess; :func:`proved_rational` and
  :func:`proved_equal` answer only what is proved (None / False otherwise);
- :mod:`exactdp.exact.arb`: :func:`to_arb` (rigorous enclosure of a sympy number),
  :func:`flint_prec` (the one flint precision context), and the signed
  mpf <-> arb <-> Float converters;
- :mod:`exactdp.exact.poly`: flint / sympy polynomial conversions, the sign of a polynomial at
  a ball, x-forms of probabilities;
- :mod:`exactdp.exact.unit_interval`: signs of polynomials on ``(0, 1)``, root isolation;
- :mod:`exactdp.exact.exp_poly`, :mod:`exactdp.exact.exp_poly_sign`: exponential
  polynomials ``sum_k p_k(t) exp(w_k t)`` and their signs on ``(0, oo)`` (Polya-Szego zero
  isolation).
"""

from .arb import (
    arb_mid_to_float,
    arb_mid_to_mpf,
    arb_to_interval,
    as_exact,
    ball,
    dps_to_prec,
    flint_dps,
    flint_prec,
    float_to_arb,
    mpf_to_arb,
    to_arb,
)
from .enclosure import enclose
from .exp_poly import ExpPoly
from .exp_poly_sign import PositiveRealsSign, Root, sign_on_positive_reals
from .signs import (
    MAX_PREC,
    UndecidedSignError,
    compare,
    exact_zero,
    is_zero,
    proved_equal,
    proved_rational,
    sign,
    sign_or_none,
)

__all__ = [
    "as_exact",
    "MAX_PREC",
    "UndecidedSignError",
    "arb_mid_to_float",
    "arb_mid_to_mpf",
    "arb_to_interval",
    "ball",
    "compare",
    "dps_to_prec",
    "ExpPoly",
    "enclose",
    "exact_zero",
    "flint_dps",
    "flint_prec",
    "float_to_arb",
    "is_zero",
    "mpf_to_arb",
    "PositiveRealsSign",
    "proved_equal",
    "proved_rational",
    "Root",
    "sign",
    "sign_on_positive_reals",
    "sign_or_none",
    "to_arb",
]
