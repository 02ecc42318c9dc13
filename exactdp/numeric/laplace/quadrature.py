"""Laplace report-noisy-max by numerical quadrature (mpmath): an independent check route.

Convention and references: :mod:`exactdp.numeric.laplace`.
"""

from __future__ import annotations

from collections.abc import Sequence

import mpmath

from ..._validate import check_int
from ..gaps import mp_gaps


def laplace_quad(d: Sequence, dps: int = 30) -> list[mpmath.mpf]:
    """RNM-Laplace probabilities by mpmath quadrature of the defining integral.

    An independent route for cross-checks: ``mpmath.quad`` (tanh-sinh) of
    ``f(y + d_r) prod_{s != r} F(y + d_s)`` with every breakpoint ``-d_s`` as a
    subdivision point (the integrand is analytic between breakpoints), at ``dps + 15``
    working digits. Intended for small n and moderate gaps (n^2 quadratures).

    Parameters
    ----------
    d : sequence of real numbers, shape (n,)
        Scaled gaps ``d_r >= 0`` (inf allowed, probability 0).
    dps : int
        Decimal digits of the returned numbers.

    Returns
    -------
    list of mpmath.mpf, length n

    Raises
    ------
    ValueError
        As :func:`laplace_mp`.

    References
    ----------
    docs/formulas.md section 2 (defining integral).
    """
    func = "laplace_quad"
    dps = check_int(func, "dps", dps, 1)
    with mpmath.workdps(int(dps) + 15):
        gaps = mp_gaps(d, func)
        fin = [x for x in gaps if not mpmath.isinf(x)]
        pts = sorted(set(-x for x in fin))
        pts = [-mpmath.inf] + pts + [mpmath.inf]

        def F(z):
            return mpmath.exp(z) / 2 if z < 0 else 1 - mpmath.exp(-z) / 2

        out = []
        for dr in gaps:
            if mpmath.isinf(dr):
                out.append(mpmath.mpf(0))
                continue

            def integrand(y, dr=dr):
                val = mpmath.exp(-abs(y + dr)) / 2
                skipped = False
                for ds in fin:
                    if ds == dr and not skipped:
                        skipped = True
                        continue
                    val *= F(y + ds)
                return val

            out.append(mpmath.quad(integrand, pts))
    with mpmath.workdps(int(dps)):
        return [+x for x in out]
