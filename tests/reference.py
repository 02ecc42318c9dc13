"""Every known number the tests compare against, once, with its source.

Sources: the formula page (docs/formulas.md, cited by section; its numbers were
recomputed independently of exactdp), a closed form derived by hand (stated beside the number),
or a published table. Tests import these names instead of repeating literals.
"""

from __future__ import annotations

import math

import mpmath

# ----------------------------------------------------------- docs/formulas.md section 7 (Delta = 1)
#: PF, q = (3, 1, 0, 0, -2), eps = 2, 6 decimals.
PF_Q31002_EPS2 = (0.884912, 0.065305, 0.023335, 0.023335, 0.003114)
#: EM (softmax at temperature 2*Delta/eps), same q and eps, 6 decimals.
EM_Q31002_EPS2 = (0.805382, 0.108997, 0.040098, 0.040098, 0.005427)
#: The scores of the two entries above.
Q31002 = (3, 1, 0, 0, -2)

#: RNM with Laplace noise (scale 2/eps), q = (0, -1, -2), eps = 1, 6 decimals.
RNM_LAPLACE_Q012_EPS1 = (0.519651, 0.305706, 0.174643)

#: StatDP's noisy-max pair: RNM-Laplace(2/eps), eps = 0.1, output 0:
#: (1,1,1,1,1) gives 1/5; (2,0,0,0,0) gives STATDP_UP; (0,2,2,2,2) gives STATDP_DOWN.
STATDP_UP = 0.2194256121
STATDP_DOWN = 0.1819446393
STATDP_LOSS_UP = 0.0926959  # log(STATDP_UP / (1/5))
STATDP_LOSS_DOWN = 0.0946149  # log((1/5) / STATDP_DOWN)

# ----------------------------------------------------------- docs/formulas.md section 6
#: Worst-case expected error (q = (0, -g, ..., -g), sup over g), eps = Delta = 1:
#: n -> (EM, PF); n = 2 PF is exactly 1/e.
WORST_CASE_ERROR = {2: (0.556929, 1 / math.e), 10: (2.202006, 1.786456)}
#: Their ratio EM/PF, 3 decimals.
WORST_CASE_RATIO = {2: 1.514, 3: 1.422, 10: 1.233, 100: 1.083, 1000: 1.036, 10_000: 1.019}

# ----------------------------------------------------------- docs/formulas.md section 4 (the LP)
#: The notes' reported threshold: PF is LP-optimal for eps >= ln((3 + sqrt 5)/2).
GOLDEN_THRESHOLD = math.log((3 + math.sqrt(5)) / 2)  # ~= 0.9624
#: EM/OPT expected-error ratio at eps = 1, k = 4, n = 2..5 (HiGHS, 4 decimals).
EM_OVER_OPT_K4_EPS1 = {2: 1.6174, 3: 1.5129, 4: 1.4399, 5: 1.3823}
#: Lattice LP variable counts with ties merged, k = 4, n = 2..5.
LP_VARIABLES_K4 = {2: 9, 3: 35, 4: 95, 5: 210}


# ------------------------------------------------------------------ closed forms
def pf_bounded_range_lower(eps):
    """PF's bounded-range parameter is at least ``eps + ln(2 - e^-eps)`` (Durfee & Rogers;
    docs/formulas.md section 6), attained by monotone scores (0, 0) vs (0, 1)."""
    return eps + mpmath.log(2 - mpmath.exp(-eps))


def gaussian_two_item_win(d, sigma):
    """RNM-Gaussian, two items with gap ``d``: the leader wins with probability
    ``Phi(d / (sigma sqrt 2))`` (the difference of two noises is N(0, 2 sigma^2))."""
    return mpmath.ncdf(mpmath.mpf(d) / (sigma * mpmath.sqrt(2)))


def laplace_two_item_lose(g):
    """RNM-Laplace, two items at scaled gap ``g``: the second wins with probability
    ``(1 + g/2) e^-g / 2`` (docs/formulas.md section 2)."""
    return (1 + mpmath.mpf(g) / 2) * mpmath.exp(-g) / 2


def pf_two_item_lose(p):
    """PF, two items with coin ``p = exp(-d)`` of the second: it wins with ``p/2`` and the
    leader with ``1 - p/2`` (McKenna & Sheldon 2020, section 3)."""
    return p / 2


#: RNM-Gaussian, sigma = 1: privacy loss of (0, 0) vs (0, -1) is
#: log((1/2) / Phi(-1/sqrt 2)) (output 1 loses its tie).
GAUSSIAN_PAIR_LOSS_SIGMA1 = 0.7350111298370844

# ----------------------------------------------------------- issue 24: the DP-testing suite
#: DP-Sniper's published lower confidence bounds on epsilon (eth-sri/dp-sniper,
#: eval_sp2021/reference-results, as quoted in issue 24) for Lyu-Su-Li's SVT1, 2, 4, 5, 6
#: at claimed eps = 0.1, 10 queries, c = 1, threshold 0.5 (SVT1) / 1 (the others).
DPSNIPER_SVT_LCB = {1: 0.0858, 2: 0.0859, 4: 0.1687, 5: 1.7612, 6: 0.2720}
#: Issue 24's table, the rest (4 decimals): DP-Sniper's (eps, eps_lcb) for RNM1-RNM4 and
#: eps_lcb for SVT3; StatDP's eps for RNM1-RNM4 and eps_lcb for SVT1, SVT2.
DPSNIPER_RNM = {1: (0.0945, 0.0923), 2: (0.0998, 0.0975), 3: (0.2500, 0.2478),
                4: (0.3485, 0.3463)}
DPSNIPER_SVT3_LCB = 0.1716
STATDP_RNM_EPS = {1: 0.0924, 2: 0.1001, 3: 0.2001, 4: 0.1970}
STATDP_SVT_LCB = {1: 0.0298, 2: 0.0316}
