r"""Theorem 5.2: permute-and-flip stochastically dominates the exponential mechanism.

Statement
---------
For every score vector :math:`q \in \mathbb{R}^n`, every :math:`\varepsilon > 0` and every
:math:`t \ge 0`,
:math:`\Pr[q_* - q_{PF(q)} \ge t] \le \Pr[q_* - q_{EM(q)} \ge t]`; hence
:math:`E[\mathrm{err}_{PF}] \le E[\mathrm{err}_{EM}]` (McKenna & Sheldon 2020, Thm 3).

Human proof (own words)
-----------------------
With coins :math:`p_r = e^{-\varepsilon(q_* - q_r)/(2\Delta)}`, EM picks r with probability
:math:`p_r/\sum_s p_s`, PF with probability
:math:`p_r \int_0^1 \prod_{s \ne r}(1 - t p_s)\,dt`. Both favour larger coins, but PF's
weight of r decreases faster in the others' coins: conditioning on the set of heads, PF
returns r only if r's coin is heads, and a better output's coin is heads more often. The
published proof compares the two laws of the error through this coupling; the check below
does not rely on it.

Method of the check
-------------------
*Integer scores, every epsilon:* for each vector the tail difference at each threshold is
a rational function of :math:`x = e^{-\varepsilon/2}` on (0, 1); its numerator's sign is
decided by exact real-root isolation (:func:`exactdp.certify_dominance`) and re-verified by
Sturm counting (``check()``). *Two items, all real gaps:* :math:`E[\mathrm{err}_{EM}] -
E[\mathrm{err}_{PF}] = g p (1 - p)/(2(1 + p)) \ge 0` with :math:`p = e^{-\varepsilon g/2}` (a
symbolic identity), and the only threshold's tails are :math:`p/2 \le p/(1 + p)`.

Scope
-----
Every epsilon > 0 on every integer score vector with :math:`n \le 5` outputs and gaps
:math:`q_* - q_r \le 4` (125 vectors; 70 at n = 5) in the default run, :math:`n \le 6`
under ``--runslow``; all real gaps for n = 2 (symbolic) and n = 3 (both tail margins, times
the positive EM denominator, are polynomials in the coins :math:`(x, xu)`, proved
:math:`\ge 0` on the unit square by Bernstein subdivision in exact rationals;
:mod:`exactdp.proofs.three_items`). Not covered: n >= 4 for real gaps.
"""

from __future__ import annotations

import sympy

from exactdp.mechanisms import ExponentialMechanism, PermuteAndFlip
from exactdp.proofs import three_items as t3
from exactdp.proofs.checks import pf_dominates_em
from exactdp.proofs.result import ProofResult, run_checks, sweep_check
from exactdp.proofs.unit_sign import nonnegative_on_square

NAME = "thm_5_2_dominance"
STATEMENT = "Thm 5.2: PF stochastically dominates EM (every eps)"


def two_items_all_real_gaps() -> tuple[bool, int]:
    """n = 2, every real gap g > 0 and epsilon > 0, symbolically.

    The probabilities depend on ``epsilon * g`` only, so the library's symbolic-epsilon
    distribution at gap 1 (``u = epsilon g``) covers every real gap; both errors are g times
    the losing probability.
    """
    u = sympy.Symbol("u", positive=True)  # u = epsilon * g
    pf = PermuteAndFlip(u).distribution([0, -1]).probabilities
    em = ExponentialMechanism(u).distribution([0, -1]).probabilities
    p = sympy.exp(-u / 2)
    tails_ok = (sympy.simplify(pf[1] - p / 2) == 0
                and sympy.simplify(em[1] - p / (1 + p)) == 0)
    # the only threshold: p/(1+p) - p/2 = p (1 - p) / (2 (1 + p)) >= 0 because 0 < p < 1
    gap_ok = sympy.simplify(em[1] - pf[1] - p * (1 - p) / (2 * (1 + p))) == 0
    return tails_ok and gap_ok, 1


def three_items_all_real_gaps() -> tuple[bool, int]:
    """n = 3, every real gap pair and epsilon: both tails, by Bernstein on the unit square.

    Thresholds ``t <= a``: ``Pr[err >= t] = P_2 + P_3``; ``a < t <= b``: ``P_3``. Each margin
    ``EM - PF`` times ``D > 0`` is a polynomial in (x, u) proved ``>= 0`` on [0, 1]^2.
    """
    lose = t3.poly(t3.EM_TIMES_D[1] + t3.EM_TIMES_D[2] - (t3.PF[1] + t3.PF[2]) * t3.D)
    third = t3.poly(t3.EM_TIMES_D[2] - t3.PF[2] * t3.D)
    ok = t3.formulas_match_library() and nonnegative_on_square(lose) and \
        nonnegative_on_square(third)
    return ok, 2


def verify(*, n_max: int = 5, gap_max: int = 4, executor=None) -> ProofResult:
    """Certify dominance on the integer family and for two items symbolically."""
    scope = (f"every eps > 0; exhaustive over integer vectors n <= {n_max}, gaps <= "
             f"{gap_max} (exact root isolation); n = 2 (symbolic) and n = 3 (Bernstein) for all "
             "real gaps")
    return run_checks(NAME, STATEMENT, scope, [
        ("integer family", lambda: sweep_check(pf_dominates_em, n_max, gap_max, executor)),
        ("two items, real gaps", two_items_all_real_gaps),
        ("three items, real gaps", three_items_all_real_gaps),
    ])
