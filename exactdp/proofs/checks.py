"""Picklable per-vector checks for :func:`exactdp.audit.sweeps.sweep`.

Each check takes a canonical integer score vector (a tuple of ints, maximum 0) and returns
a bool; it proves its statement for *every* epsilon > 0 at that vector by exact real-root
isolation in ``x = exp(-epsilon/N)`` (never by sampling epsilon). Module-level functions
(and :func:`functools.partial` of them) so that process pools and Dask workers can run them.
"""

from __future__ import annotations

from collections.abc import Callable

import sympy

from exactdp.analysis import certify_dominance, certify_dp
from exactdp.exact.unit_interval import sign_on_unit_interval
from exactdp.mechanisms import ExponentialMechanism, Mechanism, PermuteAndFlip
from exactdp.mechanisms.custom import WRONG_VARIANTS

EPSILON = sympy.Symbol("epsilon", positive=True)

#: name -> constructor ``(epsilon) -> mechanism``; the wrong variants are negative controls.
MECHANISMS: dict[str, Callable[..., Mechanism]] = {
    "pf": PermuteAndFlip,
    "em": ExponentialMechanism,
    **{f"wrong_{k}": v for k, v in WRONG_VARIANTS.items()},
}


def pf_dominates_em(scores: tuple) -> bool:
    """Thm 5.2 at one vector: ``Pr[err_PF >= t] <= Pr[err_EM >= t]`` for all t, all eps.

    :func:`exactdp.certify_dominance` decides each tail margin's sign on (0, 1) exactly;
    ``check()`` re-verifies every sign analysis by Sturm counting.
    """
    cert = certify_dominance(PermuteAndFlip(EPSILON), ExponentialMechanism(EPSILON), scores)
    return bool(cert.holds and cert.verify())


def em_dominates_pf(scores: tuple) -> bool:
    """The reversed (false) statement, as a negative control for :func:`pf_dominates_em`."""
    cert = certify_dominance(ExponentialMechanism(EPSILON), PermuteAndFlip(EPSILON), scores)
    return bool(cert.holds)


def error_ratio_at_most(factor: object, scores: tuple) -> bool:
    """``E[err_EM] <= factor * E[err_PF]`` at one vector, for every epsilon > 0.

    Both expected errors are rational functions of ``x = exp(-epsilon/2)``; the numerator
    of ``factor * E[err_PF] - E[err_EM]`` (over a denominator proved positive on (0, 1)) is
    proved ``>= 0`` on (0, 1) by exact real-root isolation. ``factor = 2`` is the true bound
    (docs/claims.md); ``factor = 19/10`` is false (two items: the ratio is
    ``2/(1 + x^g)``) and serves as the negative control.
    """
    factor = sympy.Rational(factor)
    if all(v == 0 for v in scores):
        return True  # both errors are 0
    pf = PermuteAndFlip(1).distribution(scores).rational_form()
    em = ExponentialMechanism(1).distribution(scores).rational_form()
    x = pf.x
    gaps = [-v for v in scores]
    diff = sympy.together(sum(
        g * (factor * a - b) for g, a, b in zip(gaps, pf.forms, em.forms, strict=True)
    ))
    num, den = sympy.fraction(diff)
    den_sign = sign_on_unit_interval(sympy.Poly(den, x), x)
    if den_sign.roots or den_sign.constant_sign not in (1, -1):
        raise ValueError(f"error_ratio_at_most: denominator vanishes in (0, 1) at {scores}")
    num_poly = sympy.Poly(den_sign.constant_sign * num, x)
    return bool(sign_on_unit_interval(num_poly, x).nonnegative)


def dp_certified(mechanism: str, scores: tuple, search: str = "reduced") -> bool:
    """epsilon-DP of ``MECHANISMS[mechanism]`` at one vector, for every epsilon > 0.

    :func:`exactdp.certify_dp`: every output, both directions, against the neighbours of
    ``search`` (``"reduced"``: ``q +- Delta (2 e_r - 1)`` and the all-up / all-down shifts,
    sufficient for regular mechanisms, see :mod:`exactdp.proofs.reduction_to_raise_one`;
    ``"exhaustive"``: every vertex of the neighbour box ``q + Delta {-1, 0, 1}^n``).
    """
    mech = MECHANISMS[mechanism](EPSILON)
    return bool(certify_dp(mech, scores, search=search).holds)
