"""Report-noisy-max with Laplace noise: exact, mpmath and float64 engines, one module per route.

- :mod:`.closed_form`: exact exp-polynomials (:func:`laplace_exact_polys`, :func:`laplace_exact`,
  :func:`laplace_exact_general`);
- :mod:`.mp`: any mpmath precision (:func:`laplace_mp`; closed form in balls, or :mod:`.series`);
- :mod:`.quadrature`: numerical integration (:func:`laplace_quad`), an independent check;
- :mod:`.float64`: the O(n log n) float route (:func:`laplace_float`);
- :mod:`.pieces`: the piecewise expansion shared by the exact and ball routes.

Convention (used by every function here)
---------------------------------------
Everything is measured in units of the noise scale ``b = c*sensitivity/epsilon``. Item ``r``
has the *scaled gap* ``d_r = (q* - q_r)/b >= 0`` (the best item has ``d = 0``); its noisy
value is ``Y_r = -d_r + L_r`` with ``L_r ~ Lap(1)``, density ``f(z) = e^{-|z|}/2`` and CDF
``F(z) = e^z/2`` (``z < 0``), ``1 - e^{-z}/2`` (``z >= 0``). Then

    Pr[RNM = r] = integral_{-oo}^{oo} f(y + d_r) prod_{s != r} F(y + d_s) dy,

with breakpoints at ``y = -d_s``. On the piece ``[-u_k, -u_{k-1}]`` between two consecutive
distinct gaps ``u_{k-1} < u_k`` the items with ``d_s <= u_{k-1}`` are *low*
(``F = e^{y+d_s}/2``) and those with ``d_s >= u_k`` are *high*
(``F = 1 - e^{-(y+d_s)}/2``). With ``X = e^{y + u_{k-1}}`` (anchored at the right end) and
``Y = e^{-(y + u_k)}`` (anchored at the left end) the integrand is
``X^{k1} * sum_j h_j Y^j``, and ``integral X^{k1} Y^{k2} dy`` over the piece of width ``W``
is ``(e^{-k2 W} - e^{-k1 W})/(k1 - k2)`` (or ``W e^{-k1 W}`` when ``k1 = k2``). Every
coefficient is a product of ``e^{-(nonnegative gap difference)}``: no overflow, and with
integer gaps ``d = G*lam`` everything is a polynomial in ``x = e^{-lam}`` plus ``lam`` times
one (the probabilities are exp-polynomials, *not* rational in ``x``).

The float64 engine uses a different, O(n log n) route (see :func:`laplace_float`).

References
----------
.. [1] C. Dwork and A. Roth, *The Algorithmic Foundations of Differential Privacy*, 2014,
   section 3.3 (report noisy max, Laplace noise).
.. [2] exactdp formula page ``docs/formulas.md``, section 2 (the integral above and the two-item
   loss probability ``(1 + d/2) e^{-d}/2``).
"""

from ..gaps import fail_value, float_gaps, mp_gaps
from .closed_form import laplace_exact, laplace_exact_general, laplace_exact_polys
from .float64 import laplace_float
from .mp import laplace_mp
from .quadrature import laplace_quad

__all__ = [
    "laplace_exact",
    "laplace_exact_general",
    "laplace_exact_polys",
    "laplace_mp",
    "laplace_quad",
    "laplace_float",
]

# Former private names of ``exactdp.numeric.laplace`` (a single module until the layout split),
# kept for code written against it; new code imports the public names from ``exactdp.numeric.gaps``.
_fail = fail_value
_float_gaps = float_gaps
_mp_gaps = mp_gaps
