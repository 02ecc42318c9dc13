"""Third-party accountants' claimed deltas (float; ``certified=False``).

- ``dp_accounting`` (Google's differential-privacy accounting library, the optional
  ``accounting`` extra): its privacy-loss-distribution accountant for an epsilon-DP mechanism,
  ``from_privacy_parameters(DifferentialPrivacyParameters(epsilon, 0))`` composed k times with
  ``self_compose``, read with ``get_delta_for_epsilon``.
- OpenDP (the optional ``peers`` extra): the map of the OpenDP measurement that implements the
  mechanism, composed k times with ``make_composition``: ``make_noisy_max`` with
  ``zero_concentrated_divergence`` (Gumbel noise: the exponential mechanism, ``rho =
  epsilon**2/8``) converted with ``make_zCDP_to_approxDP``; with ``max_divergence``
  (exponential noise: permute-and-flip) the pure-DP map ``k * epsilon``.

The claimed value is the library's float, converted exactly; the comparison with the certified
lower bound is exact, but the claim itself is only as good as the library's floats.
"""

from __future__ import annotations

import importlib.metadata
import math
from fractions import Fraction

import sympy

from ..mechanisms.base import Mechanism
from .accountants import ClaimedDelta
from .common import mechanism_monotonic


def package_version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def dp_accounting_delta(epsilon0: sympy.Expr, k: int, epsilon: sympy.Expr) -> ClaimedDelta:
    """``dp_accounting``'s PLD accountant for k rounds of an ``epsilon0``-DP mechanism.

    Raises
    ------
    ImportError
        If ``dp_accounting`` is not installed (``pip install exactdp[accounting]``).
    """
    common, pld_lib = _dp_accounting()
    base = pld_lib.from_privacy_parameters(
        common.DifferentialPrivacyParameters(float(epsilon0), 0.0))
    value = base.self_compose(int(k)).get_delta_for_epsilon(float(epsilon))
    version = package_version("dp-accounting")
    return ClaimedDelta("dp_accounting", min(Fraction(1), Fraction(float(value))), False,
                        f"dp_accounting PLD accountant, float (version {version})")


def _dp_accounting():
    try:
        from dp_accounting.pld import common
        from dp_accounting.pld import privacy_loss_distribution as pld_lib
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("check_accountant: the 'dp_accounting' claims need the optional "
                          "'accounting' extra (pip install 'exactdp[accounting]')") from exc
    return common, pld_lib


def dp_accounting_pair_delta(p, q, k: int, epsilon: sympy.Expr) -> ClaimedDelta:
    """``dp_accounting``'s PLD of one pair (float pmfs, pessimistic), composed k times.

    The float counterpart of the exact composition: ``from_two_probability_mass_functions``
    with ``mu_upper = P`` and ``mu_lower = Q`` (log-pmfs of the float64 probabilities),
    ``pessimistic_estimate=True``, ``self_compose(k)``, ``get_delta_for_epsilon``. Its value
    should never be below the exact delta of the same pair.

    Parameters
    ----------
    p, q : array of float, shape (n,)
        ``M(scores)`` and ``M(neighbour)`` in float64.
    """
    _, pld_lib = _dp_accounting()
    upper = {i: math.log(v) for i, v in enumerate(p) if v > 0}
    lower = {i: math.log(v) for i, v in enumerate(q) if v > 0}
    base = pld_lib.from_two_probability_mass_functions(lower, upper, pessimistic_estimate=True)
    value = base.self_compose(int(k)).get_delta_for_epsilon(float(epsilon))
    version = package_version("dp-accounting")
    return ClaimedDelta("dp_accounting_pld", min(Fraction(1), Fraction(float(value))), False,
                        f"dp_accounting PLD of the witness pair, float (version {version})")


def dp_accounting_pair_curve(p, q, k: int, epsilons, pessimistic: bool) -> tuple[float, ...]:
    """``dp_accounting``'s k-fold PLD of one pair at several epsilons (float, not certified).

    As :func:`dp_accounting_pair_delta` (``mu_upper = P``, ``mu_lower = Q``), composed once and
    read at every epsilon; ``pessimistic`` chooses the library's pessimistic estimate (its
    losses rounded up: an upper estimate) or its optimistic one (rounded down).

    Parameters
    ----------
    p, q : array of float, shape (n,)
        ``M(scores)`` and ``M(neighbour)`` in float64.
    k : int
    epsilons : sequence of numbers
    pessimistic : bool

    Raises
    ------
    ImportError
        If ``dp_accounting`` is not installed.
    """
    _, pld_lib = _dp_accounting()
    upper = {i: math.log(v) for i, v in enumerate(p) if v > 0}
    lower = {i: math.log(v) for i, v in enumerate(q) if v > 0}
    base = pld_lib.from_two_probability_mass_functions(lower, upper,
                                                       pessimistic_estimate=pessimistic)
    composed = base.self_compose(int(k))
    return tuple(min(1.0, float(composed.get_delta_for_epsilon(float(e)))) for e in epsilons)


def dp_accounting_rdp_delta(mechanism: Mechanism, k: int, epsilon: sympy.Expr) -> ClaimedDelta:
    """``dp_accounting``'s RDP accountant for k rounds of the mechanism, as a zCDP event.

    The exponential mechanism is ``epsilon0**2/8``-zCDP (bounded range, Cesar & Rogers 2021);
    any other ``epsilon0``-DP mechanism is ``epsilon0**2/2``-zCDP (Bun & Steinke 2016,
    Prop. 1.4). ``RdpAccountant().compose(ZCDpEvent(rho), k).get_delta(epsilon)``.

    Raises
    ------
    ImportError
        If ``dp_accounting`` is not installed.
    """
    _dp_accounting()
    from dp_accounting import dp_event
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    e0 = float(sympy.N(mechanism.epsilon, 30))
    em = type(mechanism).__name__ == "ExponentialMechanism"
    rho = e0 * e0 / 8 if em else e0 * e0 / 2
    acc = rdp.RdpAccountant()
    acc.compose(dp_event.ZCDpEvent(rho), int(k))
    value = acc.get_delta(float(epsilon))
    version = package_version("dp-accounting")
    return ClaimedDelta("dp_accounting_rdp", min(Fraction(1), Fraction(float(value))), False,
                        f"dp_accounting RDP accountant, zCDP rho = {rho:.6g} per round, float "
                        f"(version {version})")


def opendp_delta(mechanism: Mechanism, k: int, epsilon: sympy.Expr) -> ClaimedDelta:
    """OpenDP's own map for k rounds of the measurement that implements ``mechanism``.

    Exponential mechanism: ``make_noisy_max(..., zero_concentrated_divergence(), scale=b)``,
    ``make_composition`` of k copies, ``make_zCDP_to_approxDP``, ``profile.delta(epsilon)``.
    Permute-and-flip: ``max_divergence()``; the composed map is ``k * epsilon`` (pure DP).
    Other mechanisms have no OpenDP counterpart: the row claims nothing (delta 1).

    Raises
    ------
    ImportError
        If opendp is not installed (the ``peers`` extra).
    """
    try:
        import opendp.prelude as dp
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("check_accountant: the 'opendp' claim needs the optional 'peers' "
                          "extra (pip install 'exactdp[peers]')") from exc
    version = package_version("opendp")
    kind = type(mechanism).__name__
    if kind not in ("ExponentialMechanism", "PermuteAndFlip"):
        return ClaimedDelta("opendp", Fraction(1), False,
                            f"no OpenDP counterpart for {kind} (version {version})")
    dp.enable_features("contrib")
    monotonic = mechanism_monotonic(mechanism)
    scale = float(sympy.N(mechanism.scale, 30))
    d_in = float(sympy.N(mechanism.sensitivity, 30))
    space = (dp.vector_domain(dp.atom_domain(T=float, nan=False)),
             dp.linf_distance(T=float, monotonic=monotonic))
    zcdp = kind == "ExponentialMechanism"
    measure = dp.zero_concentrated_divergence() if zcdp else dp.max_divergence()
    meas = dp.m.make_noisy_max(*space, measure, scale=scale)
    compose = getattr(dp.c, "make_composition", None) or dp.c.make_basic_composition
    composed = compose([meas] * int(k))
    if zcdp:
        profile = dp.c.make_zCDP_to_approxDP(composed).map(d_in)
        value = Fraction(float(profile.delta(float(epsilon))))
        how = "make_noisy_max(zCDP) composed, make_zCDP_to_approxDP"
    else:
        eps_total = Fraction(float(composed.map(d_in)))
        value = Fraction(0) if Fraction(float(epsilon)) >= eps_total else Fraction(1)
        how = "make_noisy_max(max_divergence) composed: pure DP"
    return ClaimedDelta("opendp", min(Fraction(1), value), False,
                        f"OpenDP {how}, float (version {version})")
