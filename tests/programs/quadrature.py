"""Quadrature references for the library's programs with continuous noise, written from the
algorithms' definitions (not from the runs the language enumerates, nor from the
integrator): each output's probability as a one-dimensional integral over the shared noise,
by ``mpmath.quad`` split at the integrand's kinks, at the working precision (40 digits in
the tests, compared to 30).

- The sparse vector (Lyu, Su and Li 2017, Figure 1): conditionally on the threshold noise
  ``rho = z`` the query noises are independent, so ``P(o) = int f_rho(z) prod_i g_i(z) dz``
  with ``g_i = P(a_i + nu_i >= T + z) = 1 - F_nu(T + z - a_i)`` where ``o_i`` is True,
  ``F_nu(T + z - a_i)`` where it is False, 1 after the stop (``None``); without query noise
  (Algorithm 5) ``g_i`` is the indicator of ``a_i >= T + z``. A threshold redrawn after
  each True (Algorithm 2) makes the stretches between Trues independent: the product of
  one such integral per stretch.
- Report-noisy-max: ``P(argmax = i) = int f(z) prod_{j != i} F(z + a_i - a_j) dz`` (ties
  have probability 0 with continuous noise).
"""

from __future__ import annotations

import mpmath


def laplace_pdf(x, b):
    return mpmath.exp(-abs(x) / b) / (2 * b)


def laplace_cdf(x, b):
    return mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2


def exponential_pdf(x, b):
    return mpmath.exp(-x / b) / b if x >= 0 else mpmath.mpf(0)


def exponential_cdf(x, b):
    return 1 - mpmath.exp(-x / b) if x >= 0 else mpmath.mpf(0)


def _integral(f, kinks, lower=-mpmath.inf):
    """``int_lower^oo f``, split at the kinks above ``lower``."""
    points = sorted({mpmath.mpf(k) for k in kinks if k > lower})
    return mpmath.quad(f, [lower, *points, mpmath.inf])


def _stretch(items, T, rho_b, nu_b):
    """``int f_rho(z) prod g_i(z) dz`` over one stretch ``[(a_i, o_i), ...]`` of one
    threshold noise ``Lap(rho_b)``; ``nu_b`` None: no query noise."""

    def g(z):
        out = laplace_pdf(z, rho_b)
        for a, o in items:
            x = T + z - a
            if nu_b is None:
                out *= 1 if (a >= T + z) == o else 0
            else:
                out *= 1 - laplace_cdf(x, nu_b) if o else laplace_cdf(x, nu_b)
        return out

    return _integral(g, [0, *(a - T for a, _ in items)])


def sparse_vector(output, q, T, rho_b, nu_b, redraw=False):
    """``P(output)`` of the sparse vector on the answers ``q`` (mpmath numbers),
    threshold ``T``, threshold noise ``Lap(rho_b)`` (redrawn after each True when
    ``redraw``), query noise ``Lap(nu_b)`` (None: none)."""
    items = [(mpmath.mpf(a), o) for a, o in zip(q, output, strict=True) if o is not None]
    if not redraw:
        return _stretch(items, T, rho_b, nu_b)
    total, start = mpmath.mpf(1), 0
    for k, (_, o) in enumerate(items):
        if o:
            total *= _stretch(items[start:k + 1], T, rho_b, nu_b)
            start = k + 1
    if start < len(items):
        total *= _stretch(items[start:], T, rho_b, nu_b)
    return total


def noisy_max(i, q, b, noise):
    """``P(argmax_j (a_j + Z_j) = i)``, ``Z_j`` i.i.d. Laplace or exponential of scale
    ``b``."""
    pdf, cdf = ((laplace_pdf, laplace_cdf) if noise == "laplace"
                else (exponential_pdf, exponential_cdf))
    a = [mpmath.mpf(v) for v in q]

    def g(z):
        out = pdf(z, b)
        for j, aj in enumerate(a):
            if j != i:
                out *= cdf(z + a[i] - aj, b)
        return out

    kinks = [0, *(aj - a[i] for aj in a)]
    return _integral(g, kinks, lower=-mpmath.inf if noise == "laplace" else mpmath.mpf(0))


def svt3_density(q, released, T, rho_b, nu_b):
    """The density of SVT3 (Lyu, Su and Li 2017, Algorithm 3: threshold noise ``Lap(rho_b)``,
    query noises ``Lap(nu_b)``) releasing the values ``released = {i: v_i}`` with every other
    answer before the last release below the threshold (``False``) and none after it:
    ``prod_i f_nu(v_i - a_i) int_{z <= min v_i - T} f_rho(z) prod_{i below} F_nu(T + z -
    a_i) dz`` (the query noises are independent given ``rho = z``)."""
    last = max(released)
    below = [mpmath.mpf(q[i]) for i in range(last) if i not in released]
    top = min(mpmath.mpf(v) for v in released.values()) - T

    def g(z):
        out = laplace_pdf(z, rho_b)
        for a in below:
            out *= laplace_cdf(T + z - a, nu_b)
        return out

    kinks = sorted({mpmath.mpf(k) for k in [0, *(a - T for a in below)] if k < top})
    integral = mpmath.quad(g, [-mpmath.inf, *kinks, top])
    return integral * mpmath.fprod(laplace_pdf(mpmath.mpf(v) - q[i], nu_b)
                                   for i, v in released.items())
