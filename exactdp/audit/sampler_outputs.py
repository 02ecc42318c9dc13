"""Drawing from a sampler under test and validating what it returns (the sampler protocol).

A sampler is any callable taking a size (and optionally ``rng``); its outputs must be output
indices ``0..n-1``. Used by :func:`exactdp.audit.goodness_of_fit`.
"""

from __future__ import annotations

import inspect
import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from .._validate import check_callable
from ..distribution import output_kind_of
from ..rng import as_generator


def signature_params(func: Callable) -> set[str]:
    """The names ``func`` accepts by keyword (empty if it has no signature)."""
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return set()
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return {name for name, par in sig.parameters.items() if par.kind in kinds}


def draw(sample: Callable, n_samples: int, rng=None) -> list | np.ndarray:
    """Run ``sample`` by the protocol of this module and return the raw draws.

    Parameters
    ----------
    sample : callable
        See the module docstring (batch via ``size=`` or ``n=``, else repeated calls; an
        ``rng`` parameter receives the generator).
    n_samples : int
        Number of draws wanted.
    rng : None, non-negative int, numpy.random.Generator or numpy.random.SeedSequence
        Validated by :func:`as_generator`.

    Returns
    -------
    list or numpy.ndarray
        The values as returned (validate them with :func:`validate_outputs`).

    Raises
    ------
    ValueError
        If ``sample`` is not callable, or ``rng`` is invalid (:func:`as_generator`).
    """
    check_callable("goodness_of_fit", "sample", sample)
    gen = as_generator(rng, "goodness_of_fit")
    params = signature_params(sample)
    extra = {"rng": gen} if "rng" in params else {}
    if "size" in params:
        return sample(size=n_samples, **extra)
    if "n" in params:
        return sample(n=n_samples, **extra)
    return [sample(**extra) for _ in range(n_samples)]


def _key(v: object) -> object:
    """An output as a dict key that tells ``True`` from ``1`` (equal and of one hash),
    inside tuples too."""
    if isinstance(v, (bool, np.bool_)):
        return ("bool", bool(v))
    if isinstance(v, tuple):
        return tuple(_key(x) for x in v)
    return v


def as_positions(values: object, distribution: object) -> object:
    """Draws of a distribution of output kind ``"sequence"`` given as its outputs (what
    ``d.sample`` returns: an object array, or a list holding a value that is not an int)
    as their positions in ``distribution.outputs``; any other draws unchanged (indices,
    :func:`validate_outputs` checks them).

    Raises
    ------
    ValueError
        A draw that is not one of the outputs (named, with ``d.sample_index``, which gives
        the positions).
    """
    if output_kind_of(distribution) != "sequence":
        return values
    if isinstance(values, np.ndarray) and values.dtype == object:
        items = values.ravel().tolist()
    elif isinstance(values, (list, tuple)) and not all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
        items = list(values)
    else:
        return values
    law: Any = distribution  # a sequence distribution: its outputs name the positions
    where = {_key(o): i for i, o in enumerate(law.outputs)}
    out = []
    for v in items:
        try:
            out.append(where[_key(v)])
        except (KeyError, TypeError):
            raise ValueError(
                f"goodness_of_fit: the sampler returned {v!r}, neither an output of the "
                "distribution nor an output index (d.sample_index(size, rng) gives the "
                "indices)") from None
    return np.array(out, dtype=np.int64)


def _as_index(value: object, n: int) -> int:
    """One output index, validated (integral, in range)."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"goodness_of_fit: the sampler returned a bool, not an index: {value!r}")
    if isinstance(value, (numbers.Integral, np.integer)):
        k = int(value)
    elif isinstance(value, (float, np.floating)):
        if not math.isfinite(value) or not float(value).is_integer():
            raise ValueError(
                f"goodness_of_fit: the sampler returned {value!r}, not an integer output index"
            )
        k = int(value)
    else:
        raise ValueError(
            f"goodness_of_fit: the sampler returned {value!r} (type {type(value).__name__}), "
            "not an integer output index (a distribution's d.sample_index(size, rng) gives "
            "its draws as indices)"
        )
    if not 0 <= k < n:
        raise ValueError(
            f"goodness_of_fit: the sampler returned output index {value!r}, outside 0..{n - 1}"
        )
    return k


def validate_outputs(values: object, n_samples: int, n: int) -> np.ndarray:
    """Validate raw draws: exactly ``n_samples`` integer indices in ``0..n-1``.

    Parameters
    ----------
    values : sequence or numpy.ndarray, shape (n_samples,)
        The draws (a scalar is accepted when ``n_samples == 1``).
    n_samples : int
        Number of draws expected.
    n : int
        Size of the range.

    Returns
    -------
    numpy.ndarray of int64, shape (n_samples,)

    Raises
    ------
    ValueError
        Wrong number of draws, or a value that is not an integer index in range (the
        message names the first bad value).
    """
    if isinstance(values, (str, bytes)):
        raise ValueError(f"goodness_of_fit: the sampler returned {values!r}, not output indices")
    values_: list | tuple | np.ndarray
    if isinstance(values, (list, tuple, np.ndarray)):
        values_ = values
    elif np.asarray(values).ndim == 0:
        if n_samples != 1:
            raise ValueError(
                f"goodness_of_fit: expected a batch of {n_samples} output indices, "
                f"the sampler returned the single value {values!r}"
            )
        values_ = [values]
    else:  # a batch of another array-like type (ndim >= 1): iterable, as list() needs
        values_ = list(values)  # type: ignore[call-overload]
    values = values_
    if isinstance(values, np.ndarray):
        if values.ndim == 0 and n_samples == 1:
            values = values.reshape(1)
        if values.ndim != 1 or values.shape[0] != n_samples:
            raise ValueError(
                f"goodness_of_fit: the sampler returned a batch of shape {values.shape}, "
                f"expected ({n_samples},): one output index per draw"
            )
        arr = values
    else:
        if len(values) != n_samples:
            raise ValueError(
                f"goodness_of_fit: the sampler returned a batch of {len(values)} value(s), "
                f"expected {n_samples}"
            )
        if all(type(v) is int for v in values):
            arr = np.array(values, dtype=np.int64) if values else np.zeros(0, np.int64)
        else:
            return np.array([_as_index(v, n) for v in values], dtype=np.int64)
    kind = arr.dtype.kind
    if kind in "iu":
        bad = np.flatnonzero((arr < 0) | (arr >= n))
        if bad.size:
            value = arr[int(bad[0])].item()
            raise ValueError(
                f"goodness_of_fit: the sampler returned output index {value!r}, outside 0..{n - 1}"
            )
        return arr.astype(np.int64, copy=False)
    if kind == "f":
        bad = np.flatnonzero(~np.isfinite(arr) | (arr != np.floor(arr)))
        if bad.size:
            value = arr[int(bad[0])].item()
            raise ValueError(
                f"goodness_of_fit: the sampler returned {value!r}, not an integer output index"
            )
        outside = np.flatnonzero((arr < 0) | (arr >= n))
        if outside.size:
            value = arr[int(outside[0])].item()
            raise ValueError(
                f"goodness_of_fit: the sampler returned output index {value!r}, outside 0..{n - 1}"
            )
        return arr.astype(np.int64)
    # object arrays are checked one by one; bools, strings, complex fail in _as_index
    return np.array([_as_index(v, n) for v in arr.tolist()], dtype=np.int64)
