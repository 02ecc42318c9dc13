"""Cost model of permute-and-flip's exact product tree (:mod:`exactdp.xform`).

The tree multiplies ``n`` Kronecker-packed polynomials into one of ``size = n (sum G + 1)``
coefficients (:func:`exactdp.xform.exact_pf_size`), and those coefficients have about
``n`` bits (binomials ``C(n, i)``, and the scale ``lcm(1..n)`` of about ``1.44 n`` bits
in the correlation), so flint's multiplications cost about ``size * n`` word operations:
the time grows like ``n^4`` on the scores ``0..n-1``, which the coefficient count alone
(``n^3``) under-estimates.
"""

from __future__ import annotations

import math
from typing import Any

from .cost import check_seconds
from .progress import progress_bar

#: Seconds per coefficient of the packed tree and per score (process time on the 2-core
#: reference machine, scores ``0..n-1``: n = 100 / 140 / 180 took 1.8 / 7.1 / 20.8 s,
#: 3.7e-8 to 4.0e-8 per ``size * n``; docs/benchmarks.md).
PF_TREE_SECONDS = 4e-8

#: CPU seconds per score and per squared total gap ``S = sum G`` of the exact signs on
#: ``(0, 1)`` that a symbolic epsilon asks of one vector's permute-and-flip polynomials
#: (about ``6 n`` signs, each by Descartes' rule after ``x = 1/(1 + t)``: a Taylor shift
#: whose output holds about ``degree^2`` bits, the degree about ``2 S``).
PF_SIGN_SECONDS = 1.2e-8
#: CPU seconds per squared score and per unit of total gap of the rest of that analysis
#: (each output's terms formed, compared and converted: ``n`` outputs of about ``S`` terms,
#: about ``n`` times). Fitted on ``privacy_loss`` pairs (docs/benchmarks.md): ``0..10`` and
#: a twelfth score 300 / 1000 up, ``0, 100, ..., 1100``, ``0..n-1`` for n = 45 / 60 took
#: 3.5 / 35 / 11 / 3.2 / 10.7 s CPU against estimates of 3.5 / 36 / 13.5 / 3.0 / 10.7 s.
PF_SIGN_TERM_SECONDS = 4.9e-7

#: The route that answers permute-and-flip's signs without the exact polynomials.
PF_NUMERIC_EPSILON = ("give a numeric epsilon (PermuteAndFlip(1)): the signs are then decided "
                      "at that point by balls")

#: The routes that answer a large permute-and-flip call without the exact tree.
PF_CHEAPER = "use .to_numpy() (float64) or .evalf(dps) / .evalf_balls(dps) instead"


def pf_tree_product_seconds(n: int, size: int) -> float:
    """Estimated seconds of the exact product tree of ``n`` scores packed in ``size``
    coefficients: ``PF_TREE_SECONDS * size * n``.

    Parameters
    ----------
    n : int
        Outputs (scores).
    size : int
        Coefficients of the packed tree, ``n (sum G + 1)``
        (:func:`exactdp.xform.exact_pf_size`).

    Returns
    -------
    float
        CPU seconds on the reference machine (within 0.95-1.6x of the measured times,
        docs/benchmarks.md).

    Examples
    --------
    >>> round(pf_tree_product_seconds(200, 200 * (199 * 200 // 2 + 1)), 1)
    31.8
    """
    return PF_TREE_SECONDS * size * n


def pf_signs_seconds(n: int, total_gap: int) -> float:
    """Estimated seconds of the exact signs on ``(0, 1)`` of one vector's permute-and-flip
    polynomials at a symbolic epsilon: ``PF_SIGN_SECONDS * n * S**2 +
    PF_SIGN_TERM_SECONDS * n**2 * S`` with ``S = total_gap``.

    Parameters
    ----------
    n : int
        Outputs (scores).
    total_gap : int
        ``sum G``, the integer gaps to the top score (the polynomials' degree is about
        twice it).

    Returns
    -------
    float
        CPU seconds on the reference machine (within 0.8-1.25x of the five measured
        pairs, :data:`PF_SIGN_TERM_SECONDS`).

    Examples
    --------
    >>> round(2 * pf_signs_seconds(12, 10945), 1)   # 0..10 and 1000: 35 s measured
    36.0
    """
    return PF_SIGN_SECONDS * n * total_gap**2 + PF_SIGN_TERM_SECONDS * n * n * total_gap


def check_pf_tree(func: str, n: int, total_gap: int, size: int) -> None:
    """Refuse, naming ``func``, an exact tree estimated beyond
    :data:`exactdp.cost.SECONDS_LIMIT`.

    Parameters
    ----------
    func : str
        The function called (named in the refusal).
    n, total_gap, size : int
        Outputs, ``sum G`` and the packed tree's coefficients.

    Raises
    ------
    exactdp.cost.TooCostly
        A ``ValueError``: the function, the estimate and :data:`PF_CHEAPER`.
    """
    check_seconds(func, f"exact permute-and-flip polynomials for n = {n} outputs and total "
                  f"gap {total_gap}", pf_tree_product_seconds(n, size), PF_CHEAPER)


def pf_tree_bar(n: int, distinct: int, size: int) -> Any:
    """The bar of one exact tree: a step per level of the product tree over ``distinct``
    leaves and one for the correlation; shown on a terminal when the estimate exceeds
    :data:`exactdp.progress.SHOW_SECONDS`.

    Parameters
    ----------
    n, distinct, size : int
        Outputs, distinct gaps (the tree's leaves) and the packed tree's coefficients.

    Returns
    -------
    tqdm or exactdp.progress.NoBar
        ``ceil(log2(distinct)) + 1`` steps.
    """
    levels = max(1, math.ceil(math.log2(max(distinct, 1)))) + 1
    return progress_bar(levels, "permute-and-flip", seconds=pf_tree_product_seconds(n, size),
                        unit="level")
