"""Argument checks of :func:`exactdp.audit.goodness_of_fit` and the validated probability vector."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import sympy

from .._validate import argument_error, check_choice, check_int
from ..cost import MAX_SAMPLE_DRAWS, fmt_size, refuse
from ..distribution import DISCRETE_KINDS, output_kind_of

#: The tests offered, by name -> ``lambda_`` of :func:`scipy.stats.power_divergence`.
TESTS = {"chi2": "pearson", "gtest": "log-likelihood"}
_SUM_TOL = 1e-9


def check_n_samples(n_samples: object) -> int:
    """``n_samples`` as a positive ``int``.

    Raises
    ------
    ValueError
        If it is not a positive integer.
    exactdp.TooCostly
        Past :data:`exactdp.cost.MAX_SAMPLE_DRAWS` (checked before the sampler is called).
    """
    total = check_int("goodness_of_fit", "n_samples", n_samples, 1)
    if total > MAX_SAMPLE_DRAWS:
        raise refuse(
            "goodness_of_fit", f"n_samples = {fmt_size(total)} draws",
            f"{fmt_size(8 * total)} bytes of draws and about {fmt_size(total)} sampler outputs",
            f"{MAX_SAMPLE_DRAWS:.0e} draws",
            f"use a smaller n_samples (at most {MAX_SAMPLE_DRAWS:.0e}; 10**6 draws already "
            "detect deviations of about 1e-3 in a cell's probability)")
    return total


def check_alpha(alpha: object) -> float:
    """``alpha`` as a float in (0, 1).

    Raises
    ------
    ValueError
        If it is not a number in (0, 1).
    """
    try:
        value = float(alpha)  # type: ignore[arg-type]  # any object: float() is the test
    except (TypeError, ValueError):
        value = math.nan
    if isinstance(alpha, bool) or not 0.0 < value < 1.0:
        raise argument_error("goodness_of_fit", "alpha", "a number in (0, 1)", alpha)
    return value


def check_test(test: object) -> str:
    """``test``, checked to be one of the known goodness-of-fit tests.

    Raises
    ------
    ValueError
        If it is not one of ``TESTS``.
    """
    return check_choice("goodness_of_fit", "test", test, tuple(TESTS))


def check_min_expected(min_expected: object) -> float:
    """``min_expected`` as a finite float > 0.

    Raises
    ------
    ValueError
        If it is not a finite number > 0.
    """
    try:
        value = float(min_expected)  # type: ignore[arg-type]  # any object: float() is the test
    except (TypeError, ValueError):
        value = math.nan
    if not value > 0 or not math.isfinite(value):
        raise argument_error("goodness_of_fit", "min_expected", "a finite number > 0",
                             min_expected)
    return value


def probability_vector(distribution: object) -> np.ndarray:
    """The float64 probability vector of a distribution, validated.

    Parameters
    ----------
    distribution : DiscreteDistribution or array-like of shape (n,)
        A :class:`~exactdp.distribution.DiscreteDistribution` (an output distribution, top-k
        or the sparse vector's answer sequences: its ``to_numpy()`` view in ``outputs``
        order; if
        the numeric engine is unavailable, its exact probabilities evaluated to 30 digits
        by sympy and rounded to float64), or probabilities: finite, non-negative, summing
        to 1 within 1e-9.

    Returns
    -------
    numpy.ndarray of float64, shape (n,)
        The probabilities divided by their sum (a change of at most 1e-9 relative), or
        as given when the sum is within 8 ulps of 1 (so normalising twice changes nothing).

    Raises
    ------
    ValueError
        Empty, not 1-D, non-numeric, NaN / infinite, negative entries, or a sum further
        than 1e-9 from 1 (the message names the position or the sum).
    """
    if output_kind_of(distribution) in DISCRETE_KINDS:  # a distribution (discrete kinds)
        law: Any = distribution
        try:
            p = np.asarray(law.to_numpy(), dtype=np.float64)
        except (ImportError, NotImplementedError):
            p = np.array([float(sympy.N(v, 30)) for v in law.probabilities])
    else:
        if isinstance(distribution, (str, bytes)):
            raise argument_error("goodness_of_fit", "distribution", "a distribution or a "
                                 "probability vector", distribution)
        try:
            p = np.asarray(distribution, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise argument_error("goodness_of_fit", "distribution", "a distribution or a "
                                 "probability vector of numbers", distribution) from exc
    if p.ndim != 1 or p.size == 0:
        raise argument_error("goodness_of_fit", "distribution.shape",
                             "(n,) with n >= 1 (a non-empty 1-D vector)", p.shape)
    bad = np.flatnonzero(~np.isfinite(p))
    if bad.size:
        i = int(bad[0])
        raise argument_error("goodness_of_fit", f"distribution[{i}]", "finite", p[i])
    neg = np.flatnonzero(p < 0)
    if neg.size:
        i = int(neg[0])
        raise argument_error("goodness_of_fit", f"distribution[{i}]", "non-negative", p[i])
    total = math.fsum(p.tolist())
    if abs(total - 1.0) > _SUM_TOL:
        raise argument_error("goodness_of_fit", "sum(distribution)", f"1 within {_SUM_TOL:g}",
                             total)
    # within a few ulps of 1 the vector is kept as given, so that the normalisation is
    # idempotent: a vector normalised once audits exactly as the distribution it came from
    return p if abs(total - 1.0) <= 8 * np.finfo(np.float64).eps else p / total
