"""Sources of randomness: one validation for every ``rng`` argument of the package.

NumPy's :class:`numpy.random.Generator` is the only generator used; a seed, a SeedSequence or
None make one (NEP 19, "Random number generator policy").
"""

from __future__ import annotations

import numbers

import numpy as np

from ._validate import argument_error


def as_generator(rng: object = None, func: str = "goodness_of_fit") -> np.random.Generator:
    """Validate a source of randomness and return a :class:`numpy.random.Generator`.

    Parameters
    ----------
    rng : None, int, numpy.random.Generator or numpy.random.SeedSequence
        ``None`` (fresh OS entropy), a non-negative integer seed (``bool`` is rejected), a
        Generator (returned as it is, so draws continue its stream) or a SeedSequence.
    func : str
        Name of the calling function, used in the error message.

    Returns
    -------
    numpy.random.Generator

    Raises
    ------
    ValueError
        For anything else (a negative int, a bool, a float, a string, a legacy
        ``RandomState``, ...); the message names ``func``, ``rng`` and the value.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, np.random.SeedSequence):
        return np.random.default_rng(rng)
    if isinstance(rng, (numbers.Integral, np.integer)) and not isinstance(
        rng, (bool, np.bool_)
    ):
        if int(rng) >= 0:
            return np.random.default_rng(int(rng))
    raise argument_error(
        func, "rng", "None, a non-negative int seed, a numpy.random.Generator or a "
        "numpy.random.SeedSequence", rng)
