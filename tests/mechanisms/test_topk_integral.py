"""exactdp.mechanisms.topk_integral: the iterated integrals of one-shot noisy top-k,
against nested scipy quadrature of the defining integral, the known RNM-Laplace numbers
of docs/formulas.md and the exact values of one-shot exponential noise (x = 1/2)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from exactdp import PermuteAndFlip, ReportNoisyMax, TopK
from exactdp.mechanisms.topk_integral import FIELD, one_shot_topk
from tests.reference import RNM_LAPLACE_Q012_EPS1

LOG4 = "2*log(2)"  # epsilon with x = exp(-eps/2) = 1/2


def test_one_shot_topk_gives_field_elements_summing_to_one():
    # exponential noise, gaps (0, 1, 2), every ordered pair: a distribution over 6 pairs
    outputs = [(a, b) for a in range(3) for b in range(3) if a != b]
    probs = one_shot_topk("exponential", [0, 1, 2], outputs)
    assert len(probs) == 6 and sum(probs) == FIELD.one
    # top-1 of exponential noise is permute-and-flip (Ding et al. 2021): P[0 first] at
    # gaps (0, 1, 2) is PF's p_0 = 1 - x/2 - x**2/2 + x**3/3 (summed over the second)
    first = probs[0] + probs[1]
    pf = PermuteAndFlip(1).distribution([0, -1, -2]).rational_form().forms[0]
    assert str(FIELD.gens[0]) == "x" and str(pf.free_symbols.pop()) == "x"
    assert sympy.expand(sympy.sympify(str(first.as_expr())) - sympy.sympify(str(pf))) == 0


def test_one_shot_exponential_versus_peeling_pf():
    """Top-1: one-shot exponential noise is PF (Ding et al. 2021). Top-2 of 4: it is not
    peeling PF; the exact values differ (x = 1/2)."""
    q = (0, -1, -2, -2)
    one = TopK(ReportNoisyMax(LOG4), 1).distribution(q).probabilities
    pf = PermuteAndFlip(LOG4).distribution(q).probabilities
    assert [sympy.nsimplify(a - b) for a, b in zip(one, pf, strict=True)] == [0] * 4
    shot = TopK(ReportNoisyMax(LOG4), 2).distribution(q)
    peel = TopK(PermuteAndFlip(LOG4), 2).distribution(q)
    assert shot.pmf((0, 1)) == sympy.Rational(143, 384)
    assert peel.pmf((0, 1)) == sympy.Rational(1603, 4608)
    # with two outputs the pair is fixed by the winner: equal
    a = TopK(ReportNoisyMax(LOG4), 2).distribution([0, -1]).probabilities
    b = TopK(PermuteAndFlip(LOG4), 2).distribution([0, -1]).probabilities
    assert a == b


def _quad_topk(noise, d, t):
    """Pr[(t_1, t_2)] for one-shot noise by nested scipy quadrature (scale 1, gaps d)."""
    from scipy.integrate import quad

    if noise == "laplace":
        def f(z):
            return np.exp(-abs(z)) / 2

        def F(z):
            return np.exp(z) / 2 if z < 0 else 1 - np.exp(-z) / 2
    else:
        def f(z):
            return np.exp(-z) if z >= 0 else 0.0

        def F(z):
            return -np.expm1(-z) if z >= 0 else 0.0
    others = [s for s in range(len(d)) if s not in t]
    pts = sorted({-v for v in d})

    def pieces(g, lo, hi):
        cuts = [lo] + [p for p in pts if lo < p < hi] + [hi]
        return sum(quad(g, a, b, epsabs=1e-14, epsrel=1e-12, limit=200)[0]
                   for a, b in zip(cuts, cuts[1:], strict=False))

    def inner(y1):
        return pieces(lambda y2: f(y2 + d[t[1]]) * np.prod([F(y2 + d[s]) for s in others]),
                      -40.0, y1)

    return pieces(lambda y1: f(y1 + d[t[0]]) * inner(y1), -40.0, 40.0)


@pytest.mark.parametrize("noise", ["laplace", "exponential"])
def test_one_shot_against_quadrature(noise):
    q = (0, -1, -3, -4)
    dist = TopK(ReportNoisyMax(1, noise=noise), 2).distribution(q)
    p = dist.to_numpy()
    d = [-v / 2 for v in q]  # eps = 1, c = 2: gaps in units of b = 2
    for t in [(0, 1), (2, 3)]:
        assert abs(p[dist.index(t)] - _quad_topk(noise, d, t)) < 1e-9


def test_one_shot_laplace_top1_known_numbers():
    # docs/formulas.md section 7: q = (0, -1, -2), eps = 1, RNM-Laplace: .519651 .305706 .174643
    d = TopK(ReportNoisyMax(1, noise="laplace"), 1).distribution([0, -1, -2])
    assert np.allclose(d.to_numpy(), list(RNM_LAPLACE_Q012_EPS1), atol=1e-6)
    assert sympy.simplify(sum(d.probabilities) - 1) == 0
    with pytest.raises(ValueError, match="not rational in"):
        d.rational_form()


