r"""The one numeric engine for permute-and-flip (PF) and exponential-mechanism (EM) probabilities.

Every function here is a pure function of the *scaled gaps*

.. math::  d_r = \varepsilon (q^* - q_r) / (c \Delta) \ge 0,

(the maximizers have ``d_r = 0``; ``d_r = +inf`` means coin probability 0), with coins
``p_r = exp(-d_r)``. PF's output probabilities are (docs/formulas.md section 2,
stable integral form)

.. math::  \Pr_r = p_r \int_0^1 \prod_{s \ne r} (1 - t p_s)\, dt ,

and EM's are ``p_r / sum_s p_s``. The alternating subset sum is never evaluated in floating
point.

Method (``pf_float``, ``pf_mp``)
--------------------------------
Write ``F(t) = prod_s (1 - t p_s)``, ``S = sum_s p_s >= 1`` and ``h_r = F / (1 - t p_r)``.

1. **Truncation.** ``log h_r`` is concave with slope ``-(S - p_r)`` at 0, so
   ``h_r(t) <= exp(-(S - p_r) t)``; and ``log(1 - x) >= -x/(1 - x)`` gives
   ``h_r(t) >= exp(-2 t (S - p_r))`` on ``[0, 1/2]``, so ``I_r = int_0^1 h_r >= 0.316/(S - p_r)``
   when ``S - p_r >= 1``. Hence integrating only over ``[0, t_max]``, ``t_max = min(1, C/S)``,
   leaves a relative error ``<= e^{1 - C}/0.316``; ``C = b ln 2 + 2.5`` makes it ``<= 2^-b``
   (``b = 60`` in float64). In ``tau = t/t_max`` the integrand is
   ``g(tau) = prod_s (1 - tau u_s)`` with ``u_s = t_max p_s`` and
   ``Lambda = sum_s u_s = min(S, C)``: its scale is at least ``1/C`` whatever n and epsilon
   are (with many ``p_s`` near 1 the original integrand has width ``~1/n``; here it does not).
2. **Few large coins.** Outputs with ``u_s > 1/8`` form the set A; ``|A| < 8 C`` because
   ``sum u_s <= C``. Their factors are evaluated directly at every node, as
   ``(1 - tau) + tau (1 - u)`` (``pf_float``: at every node, two non-negative terms;
   ``pf_mp``: for ``tau > 1/2``) with
   ``1 - u = (1 - t_max) + t_max * (-expm1(-d))`` so that factors near 0 keep full relative
   accuracy (``pf_mp`` groups them by equal ``d``: ``(1 - tau u)^m``). ``pf_float``
   multiplies the factors at each node (at most ``8 C`` roundings, no logarithm; factors
   in ``(0, 1]``, so a product below the float64 range only means that g underflows) and
   takes logarithms only for grouped gaps (``m log(1 - tau u)``).
3. **Many small coins, by moments.** For the others (``u_s <= 1/8``)
   ``sum log(1 - tau u_s) = -sum_j tau^j M_j / j`` with power sums ``M_j = sum u_s^j``; the
   tail after ``J`` terms is at most ``Lambda u_max^J / ((J+1)(1 - u_max))`` (absolute error in
   ``log g``, i.e. relative error in g), and J is the least integer making it ``<= 2^-b``.
   Items are split at ``u = 2^-12`` so that the bulk needs only ~5 terms; each costs ``J``
   multiply-adds (no transcendental function).
4. **Quadrature.** ``g`` now costs ``O(|A| + J)`` per point, independent of n, so it is
   integrated with composite Gauss-Legendre on panels graded geometrically towards both ends
   of ``[0, 1]`` (``[0, 2^-k], ..., [1/2, 3/4], ..., [1 - 2^-k, 1]``).
   Why that converges: ``g`` is a polynomial (entire) with roots ``1/u_s`` in ``[1, inf)``,
   and on the Bernstein ellipse ``E_rho`` of a panel each factor obeys
   ``|1 - z u| <= 1 - u (1 - |1 - z|)`` and, where ``Re z < 1``,
   ``log|1 - z u| <= u (-Re z + |Im z| / (1 - max Re z))``; so ``|g| <= e^{Lambda phi}``
   with ``phi`` read off the ellipse (:func:`.scheme.ellipse_bound`), and the Gauss-Legendre
   bound ``h (64/15) M rho^{-2(N-1)} / (rho^2 - 1)`` (``N`` nodes, half-width ``h``)
   against ``int_0^1 g >= (1 - e^{-Lambda})/(2 Lambda)`` gives each panel's error.
   ``pf_float`` takes, for ``Lambda``'s bucket (six per octave), the panels and the least
   node counts whose bound is ``<= 2^-56`` relative (:func:`.scheme.quad_plan`; 27-34 nodes,
   cached per bucket); the integrands besides ``g`` (one factor divided out, the series of
   step 5, the truncated log-series) only change the constant. The sum of the
   probabilities is checked against 1 (``RuntimeError`` otherwise: never a silently wrong
   number). ``pf_mp`` uses ``N = 24`` and more nodes per panel and checks every integral
   against a second rule.
5. **Back to every output.** For ``r`` in A, ``I_r/t_max = sum_k w_k g(tau_k) / (1 - tau_k
   u_r)`` on the same nodes. For the others ``1/(1 - tau u_r) = sum_j (tau u_r)^j`` gives
   ``I_r/t_max = sum_{j <= J'} u_r^j mu_j`` with moments ``mu_j = int_0^1 tau^j g``; since
   ``mu_j <= mu_0 <= I_r/t_max`` the relative tail is ``<= u_r^{J'+1}/(1 - u_r) <= 2^-b``.
   Finally ``Pr_r = p_r * (t_max * I_r/t_max)`` with ``p_r = exp(-d_r)`` correctly rounded,
   so tiny probabilities (1e-200) keep full relative accuracy; only values below the
   float64 normal range (``< 2.2e-308``, i.e. ``d_r > ~700``) lose relative accuracy by
   underflow (their absolute error is below ``5e-324``).

Cost: one ``exp`` per output plus ``~5-20`` multiply-adds, plus ``O((|A| + J) * 34)`` for the
quadrature: ``O(n)`` with a small constant (no sort). Up to 4096 gaps the powers of the
small coins are one matrix (power sums and step 5 as two products), its rows ``u^e``
filled by products of equal-shaped blocks of rows (:func:`.scheme.power_schedule`: each
``u^e`` a product of ``e`` factors, at most ``e - 1`` roundings). Equal ``d`` give
bit-identical results because every output is a fixed function of its own ``d_r`` and of
shared sums.
Rounding: every sum is of positive terms (no cancellation), so the relative error of each
probability is a small multiple of the unit roundoff times ``log n``.

``pf_mp`` runs the same scheme in python-flint ``arb`` arithmetic at ``b = 3.33 dps + 24 +
2 log2 n`` bits (balls track the rounding; the truncations are bounded as above; the
quadrature uses more nodes and is checked against a second rule, its order raised until the
two agree to ``dps + 2`` digits). ``pf_arb`` is rigorous by another route (see there).

References
----------
R. McKenna and D. Sheldon, "Permute-and-Flip: A new mechanism for differentially private
selection", NeurIPS 2020, Algorithm 1 and Prop. 1 (the probabilities).
Z. Ding, D. Kifer, S. M. Saghaian et al., "The permute-and-flip mechanism is identical to
report-noisy-max with exponential noise", arXiv:2105.07260 (2021), Thm 1 (the integral form).
L. N. Trefethen, *Approximation Theory and Approximation Practice*, SIAM 2013, Thm 19.3
(Gauss-Legendre error on a Bernstein ellipse); Fungrim, "Gaussian quadrature",
https://fungrim.org/topic/Gaussian_quadrature/ (the same bound stated for n nodes).
F. Johansson, "Arb: efficient arbitrary-precision midpoint-radius interval arithmetic",
IEEE Trans. Computers 66 (2017) (ball arithmetic used by ``pf_arb`` and ``pf_mp``).

Modules
-------
:mod:`.scheme` (the truncation, series and quadrature parameters shared by the routes),
:mod:`.float64` (``em_float``, ``pf_float``, ``pf_float_owned``: the same on a
mechanism's own gaps, unvalidated), :mod:`.inputs` (exact gaps -> arb balls,
grouped by equal value), :mod:`.mp` (``em_mp``, ``pf_mp``), :mod:`.arb` (``pf_arb``).
"""

from .arb import pf_arb
from .float64 import em_float, pf_float, pf_float_owned
from .mp import em_mp, pf_mp

__all__ = ["em_float", "em_mp", "pf_arb", "pf_float", "pf_float_owned", "pf_mp"]
