"""Theorem 6.1 of the notes: permute-and-flip = report-noisy-max with exponential noise.

Statement. For every score vector q, epsilon > 0 and sensitivity Delta, PF with coins
``p_r = exp(epsilon (q_r - q*)/(2 Delta))`` and RNM with i.i.d. ``Exp(rate epsilon/(2Delta))``
noise have the same output distribution (Ding et al. 2021, arXiv:2105.07260, Thm 1).

What is machine-checked here (sympy, exact):

1. The chain of the notes, step by step, with symbolic quantities:
   (i)  ``Pr[q_r + Exp(lam) >= q*] = exp(-lam (q* - q_r))``: the flip probability (PF = A);
   (ii) memorylessness ``Pr[X > s + t | X > s] = Pr[X > t]`` and the fresh-noise argmax over a
        set of m candidates is uniform, ``int lam e^{-lam z} (1 - e^{-lam z})^{m-1} dz = 1/m``
        (A = B);
   (iii) the end-to-end identity below (B = RNM).
2. The end-to-end identity as a polynomial identity in *independent* coin symbols
   ``p_1..p_n`` (so for all real scores at once, not only on a lattice), for n <= 5:
   PF's probability by its definition (uniform first head in a random order = expectation
   of ``1/(K+1)`` over the other coins) equals RNM-Exp's defining integral, integrated by
   sympy.
3. The library's two independent exact engines (PF by coins, RNM-Exp by the noise
   integral) give identical polynomials in x for every integer gap multiset with n <= 6
   and gaps <= 3, up to n = 7.
"""

from __future__ import annotations

import itertools

import pytest
import sympy

from exactdp import PermuteAndFlip, ReportNoisyMax

lam, s, t, z, g = sympy.symbols("lambda s t z g", positive=True)


def test_step_i_flip_probability_is_the_exponential_survival_function():
    density = lam * sympy.exp(-lam * z)
    survival = sympy.integrate(density, (z, g, sympy.oo))
    assert sympy.simplify(survival - sympy.exp(-lam * g)) == 0


def test_step_ii_memoryless_property():
    surv = lambda a: sympy.exp(-lam * a)  # noqa: E731
    assert sympy.simplify(surv(s + t) / surv(s) - surv(t)) == 0


@pytest.mark.parametrize("m", range(1, 7))
def test_step_ii_fresh_noise_argmax_is_uniform(m):
    integrand = lam * sympy.exp(-lam * z) * (1 - sympy.exp(-lam * z)) ** (m - 1)
    assert sympy.simplify(sympy.integrate(integrand, (z, 0, sympy.oo)) - sympy.Rational(1, m)) == 0


def pf_by_definition(p, r):
    """Coins of the others, K heads; r first among the heads w.p. 1/(K+1)."""
    others = [q for i, q in enumerate(p) if i != r]
    total = 0
    for mask in itertools.product((0, 1), repeat=len(others)):
        w = sympy.Integer(1)
        for coin, head in zip(others, mask, strict=False):
            w *= coin if head else 1 - coin
        total += w / (sum(mask) + 1)
    return sympy.expand(p[r] * total)


def rnm_exp_by_integral(p, r):
    """int_{q*}^oo f(y - q_r) prod_{s != r} F(y - q_s) dy with w = e^{-(y-q*)/b}: in z units."""
    integrand = p[r] * sympy.exp(-z)
    for i, coin in enumerate(p):
        if i != r:
            integrand *= 1 - coin * sympy.exp(-z)
    return sympy.expand(sympy.integrate(sympy.expand(integrand), (z, 0, sympy.oo)))


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_end_to_end_identity_in_independent_coins(n):
    p = sympy.symbols(f"p1:{n + 1}", positive=True)
    for r in range(n):
        assert sympy.expand(pf_by_definition(p, r) - rnm_exp_by_integral(p, r)) == 0


def gap_multisets(n, top):
    for rest in itertools.combinations_with_replacement(range(top + 1), n - 1):
        yield (0, *rest)


@pytest.mark.parametrize("n", range(1, 8))
def test_library_engines_agree_on_the_lattice(n):
    pf, rnm = PermuteAndFlip(1), ReportNoisyMax(1, noise="exponential")
    count = 0
    for gaps in gap_multisets(n, 3):
        q = [-v for v in gaps]
        _, a = pf.distribution(q).rational_form()
        _, b = rnm.distribution(q).rational_form()
        assert a == b, q
        count += 1
    assert count == len(list(itertools.combinations_with_replacement(range(4), n - 1)))
