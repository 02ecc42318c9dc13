"""Compatibility path: the optimal regular mechanism now lives in :mod:`exactdp.mechanisms.optimal`.
"""

from .mechanisms.optimal import (
    METHODS,
    OptimalDistribution,
    OptimalRegularMechanism,
    optimal_mechanism,
    pf_polynomials,
    section5_exact,
)

__all__ = [
    "OptimalDistribution",
    "OptimalRegularMechanism",
    "optimal_mechanism",
    "pf_polynomials",
    "section5_exact",
    "METHODS",
]
