"""TopK: exact distributions over ordered k-tuples, checked against independent routes.

- Peeling EM / PF against brute-force enumeration of the algorithms' random choices (the
  categorical draw, or every permutation and every coin outcome) in exact rationals, with
  epsilon = 2 log 2 so that every coin ``exp(-eps*gap/2) = 2**-gap`` is rational.
- One-shot Gumbel against peeling EM, exactly, as rational functions of x (the Gumbel-max
  trick applied k times, computed by the iterated integral rather than assumed).
- One-shot exponential / Laplace against the sampler (goodness of fit); against quadrature
  of the defining integral and known numbers in tests/mechanisms/test_topk_integral.py.
"""

import math
from fractions import Fraction
from itertools import permutations, product

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import exactdp
from exactdp import (
    ExponentialMechanism,
    PermuteAndFlip,
    ReportNoisyMax,
    TopK,
    goodness_of_fit,
)
from exactdp.cost import TooCostly

LOG4 = "2*log(2)"  # epsilon with x = exp(-eps/2) = 1/2

CASES = [
    ((0, -1, -2), 2),
    ((0, -1, -2), 3),
    ((3, 1, 0, 0), 2),
    ((0, 0, -1, -3), 3),
    ((2, 0, -1, 1, -2), 3),
    ((1, 1, 1, 1, 0), 2),
]


def brute_peel_em(q, k):
    """Peeling EM: at each step draw r with probability 2**q_r / sum over the remaining."""
    out = {}
    for t in permutations(range(len(q)), k):
        prob, rest = Fraction(1), list(range(len(q)))
        for r in t:
            total = sum(Fraction(2) ** q[s] for s in rest)
            prob *= Fraction(2) ** q[r] / total
            rest.remove(r)
        out[t] = prob
    return out


def brute_pf_step(q, rest):
    """PF on the outputs ``rest``: every permutation, every coin outcome, exactly."""
    top = max(q[s] for s in rest)
    coins = {s: Fraction(1, 2 ** (top - q[s])) for s in rest}
    win = {s: Fraction(0) for s in rest}
    perms = list(permutations(rest))
    for perm in perms:
        for heads in product((True, False), repeat=len(rest)):
            pr = Fraction(1, len(perms))
            for s, h in zip(perm, heads, strict=True):
                pr *= coins[s] if h else 1 - coins[s]
            if pr == 0:
                continue
            first = next((s for s, h in zip(perm, heads, strict=True) if h), None)
            if first is None:  # impossible: the maximizer's coin is 1
                raise AssertionError
            win[first] += pr
    return win


def brute_peel_pf(q, k):
    out = {}
    for t in permutations(range(len(q)), k):
        prob, rest = Fraction(1), list(range(len(q)))
        for r in t:
            prob *= brute_pf_step(q, rest)[r]
            rest.remove(r)
        out[t] = prob
    return out


def as_fraction(v):
    v = sympy.Rational(v)
    return Fraction(int(v.p), int(v.q))


@pytest.mark.parametrize("q, k", CASES)
def test_peel_em_brute_force(q, k):
    d = TopK(ExponentialMechanism(LOG4), k).distribution(q)
    assert d.outputs == tuple(permutations(range(len(q)), k))
    expected = brute_peel_em(q, k)
    assert all(p.is_Rational for p in d.probabilities)
    assert {t: as_fraction(p) for t, p in zip(d.outputs, d.probabilities, strict=True)} == \
        expected


@pytest.mark.parametrize("q, k", CASES[:5])
def test_peel_pf_brute_force(q, k):
    d = TopK(PermuteAndFlip(LOG4), k).distribution(q)
    expected = brute_peel_pf(q, k)
    got = {t: as_fraction(p) for t, p in zip(d.outputs, d.probabilities, strict=True)}
    assert got == expected and sum(got.values()) == 1
    # the rational form at x = 1/2 gives the same numbers
    rf = d.rational_form()
    assert [f.subs(rf.x, sympy.Rational(1, 2)) for f in rf.forms] == list(d.probabilities)


def test_peel_pf_symbolic_x():
    """PF peeling as polynomials in x: brute force over the coins x**gap with x a symbol."""
    x = sympy.Symbol("x", positive=True)
    q = (0, -1, -2)
    d = TopK(PermuteAndFlip(1), 2).distribution(q)
    rf = d.rational_form()
    for t, form in zip(d.outputs, rf.forms, strict=True):
        prob, rest = sympy.Integer(1), [0, 1, 2]
        for r in t:
            top = max(q[s] for s in rest)
            step = 0
            for perm in permutations(rest):
                for heads in product((True, False), repeat=len(rest)):
                    if next((s for s, h in zip(perm, heads, strict=True) if h), None) != r:
                        continue
                    pr = sympy.Rational(1, len(list(permutations(rest))))
                    for s, h in zip(perm, heads, strict=True):
                        c = x ** (top - q[s])
                        pr *= c if h else 1 - c
                    step += pr
            prob *= step
            rest.remove(r)
        assert sympy.expand(form.subs(rf.x, x) - prob) == 0


@pytest.mark.parametrize("q, k", CASES)
def test_one_shot_gumbel_equals_peeling_em(q, k):
    gumbel = TopK(ReportNoisyMax(1, noise="gumbel"), k).distribution(q).rational_form()
    em = TopK(ExponentialMechanism(1), k).distribution(q).rational_form()
    assert gumbel.L == em.L and gumbel.value == em.value
    for a, b in zip(gumbel.forms, em.forms, strict=True):
        assert sympy.cancel(a - b) == 0


def test_one_shot_gumbel_symbolic_epsilon():
    eps = sympy.Symbol("epsilon", positive=True)
    d = TopK(ReportNoisyMax(eps, noise="gumbel"), 2).distribution([0, -1, -3])
    w = [1, sympy.exp(-eps / 2), sympy.exp(-3 * eps / 2)]
    # Pr[(1, 2)] = w1/(w0+w1+w2) * w2/(w0+w2)
    expected = w[1] / sum(w) * w[2] / (w[0] + w[2])
    assert sympy.simplify(d.pmf((1, 2)) - expected) == 0


@pytest.mark.parametrize(
    "mech",
    [PermuteAndFlip(1), ExponentialMechanism(1), ReportNoisyMax(1, noise="laplace"),
     ReportNoisyMax(1), ReportNoisyMax(1, noise="gumbel")],
    ids=["pf", "em", "laplace", "exponential", "gumbel"],
)
def test_sampler_matches_exact(mech):
    d = TopK(mech, 2).distribution([2, 1, 0, 0])
    p = d.to_numpy()
    assert abs(p.sum() - 1) < 1e-12
    assert np.allclose(p, [float(v) for v in d.probabilities], rtol=1e-12)
    res = goodness_of_fit(d.sample_index, p, 20_000, rng=7)
    assert res.verdict == "consistent", res
    draws = d.sample(5, rng=1)
    assert draws.shape == (5, 2) and all(len(set(r)) == 2 for r in draws.tolist())
    assert isinstance(d.sample(rng=3), tuple)


def test_views_and_errors():
    d = TopK(PermuteAndFlip("1/2"), 3).distribution([0, -1, -2, -5, 1])
    assert len(d) == 60 and d.outputs[0] == (0, 1, 2)
    mp = d.evalf(40)
    with mpmath.workdps(40):
        for e, v in zip(d.probabilities[:5], mp[:5], strict=True):
            assert abs(mpmath.mpf(sympy.N(e, 50)) - v) < mpmath.mpf(10) ** -38 * v
    with pytest.raises(ValueError, match="TopK: k must be at most the number of outputs n = 5"):
        TopK(PermuteAndFlip(1), 6).distribution([0, 1, 2, 3, 4])
    with pytest.raises(ValueError, match="k must be a positive integer"):
        TopK(PermuteAndFlip(1), 0)
    with pytest.raises(ValueError, match="gaussian"):
        TopK(exactdp.GaussianNoisyMax(1), 2)
    with pytest.raises(ValueError, match="MAX_TUPLES"):
        TopK(PermuteAndFlip(1), 5).distribution(list(range(30)))
    with pytest.raises(TooCostly) as err:
        TopK(PermuteAndFlip(1), 5).distribution(list(range(1000)))
    assert err.value.func == "TopK.distribution"
    assert err.value.estimate == f"{float(math.perm(1000, 5)):.3g} ordered tuples"
    assert "smaller k or n" in str(err.value) and "sample()" in str(err.value)
    with pytest.raises(ValueError, match=r"TopK: output must be an ordered 3-tuple .* in 0\.\.4"):
        d.pmf((0, 0, 1))
    with pytest.raises(ValueError, match="TopK: mechanism must be an exactdp Mechanism"):
        TopK("pf", 2)


def test_top_k_privacy_claims_exact():
    """docs/peers.md: k*eps pure DP holds (nearly tight) for peeling PF at the witness pairs;
    eps^2/8 Renyi bound fails for PF and holds for EM at alpha = 3/2 (exact signs)."""
    from exactdp.exact import sign

    k2 = TopK(PermuteAndFlip(LOG4), 2)
    a = k2.distribution([0, 0, -1, -3]).pmf((2, 3))
    b = k2.distribution([1, 1, -2, -4]).pmf((2, 3))
    assert (a, b) == (sympy.Rational(31, 4608), sympy.Rational(127, 294912))
    assert a / b == sympy.Rational(1984, 127) < 4**2  # e^{2 eps} = 16
    eps = 2 * sympy.log(2)
    alpha = sympy.Rational(3, 2)
    for mech, expected in ((PermuteAndFlip(LOG4), 1), (ExponentialMechanism(LOG4), -1)):
        P = mech.distribution([0, -1, -2, -2]).probabilities
        Q = mech.distribution([-1, 0, -3, -3]).probabilities
        renyi = 2 * sympy.log(sum(p ** (1 - alpha) * q**alpha for p, q in zip(P, Q, strict=True)))
        assert sign(renyi - alpha * eps**2 / 8) == expected


# ---------------------------------------------------------------- the analyzer on top-k
def test_analyzer_privacy_loss_on_topk():
    """privacy_loss on TopK = max over tuples of |ln(P/Q)|, recomputed from the two exact
    distributions with Fractions (x = 1/2)."""
    t = TopK(PermuteAndFlip(LOG4), 2)
    q, q2 = (0, 0, -1, -3), (1, 1, -2, -4)
    res = exactdp.privacy_loss(t, q, q2)
    P = [as_fraction(p) for p in t.distribution(q).probabilities]
    Q = [as_fraction(p) for p in t.distribution(q2).probabilities]
    ratio = max(max(a / b, b / a) for a, b in zip(P, Q, strict=True))
    assert ratio == Fraction(1984, 127)
    assert sympy.simplify(res.value - sympy.log(sympy.Rational(1984, 127))) == 0
    assert t.distribution(q).outputs[res.output] == (2, 3)


def test_analyzer_check_dp_and_zcdp_on_topk():
    t = TopK(PermuteAndFlip(1), 2)
    assert t.epsilon == 2 and t.selection_epsilon == 1
    res = exactdp.check_dp(t, [0, -1, -2])  # against k * eps = 2
    assert res.holds and 1 < float(res.loss) <= 2
    assert not exactdp.check_dp(t, [0, -1, -2], epsilon=1).holds  # one selection's eps: no
    # k eps^2 / 8 zCDP: holds for peeling EM, fails for PF (already at k = 1)
    em = exactdp.check_zcdp(TopK(ExponentialMechanism(1), 2), [0, -1, -2], sympy.Rational(1, 4),
                            [-1, 0, -3])  # the closest pair of the full search
    assert em.holds
    pf = exactdp.check_zcdp(TopK(PermuteAndFlip(LOG4), 1), [0, -1, -2, -2],
                            2 * sympy.log(2) ** 2 / 4, [-1, 0, -3, -3])
    assert not pf.holds
    # epsilon = 0: top-k is uniform, loss 0
    assert exactdp.privacy_loss(TopK(PermuteAndFlip(0), 2), [0, 1, 2], [1, 0, 1]).value == 0


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=2, max_size=4),
       st.sampled_from(["exponential", "gumbel", "laplace"]))
def test_one_shot_top1_is_report_noisy_max(q, noise):
    """k = 1: the iterated integral against the mechanisms' own exact engines (PF coins for
    exponential noise, softmax for Gumbel, numeric/laplace for Laplace), at 30 digits."""
    mech = ReportNoisyMax("3/2", noise=noise)
    top = TopK(mech, 1).distribution(q).evalf(30)
    ref = mech.distribution(q).evalf(30)
    with mpmath.workdps(30):
        assert all(abs(a - b) < mpmath.mpf(10) ** -27 for a, b in zip(top, ref, strict=True))


def test_latex_table():
    d = TopK(PermuteAndFlip(LOG4), 2).distribution([0, -1, -2])
    tex = d._repr_latex_()
    # PF on (0, -1, -2) at x = 1/2: Pr[0] = 1 - 1/4 - 1/8 + 1/24 = 2/3, then PF on (-1, -2):
    # Pr[1] = 1 - 1/4 = 3/4, so Pr[(0, 1)] = 1/2 (x = 1/2 in docs/formulas.md section 2's forms)
    assert tex.startswith("$\\displaystyle \\begin{array}") and "(0, 1) & \\frac{1}{2}" in tex


def test_one_shot_flag_and_peeling_by_hand():
    """Peeling EM at eps = 2 log 2 on q = (0, -1, -2): weights (1, 1/2, 1/4), so
    Pr[(0, 1)] = (1/(7/4)) * ((1/2)/(3/4)) = 8/21 (by hand); one-shot Gumbel gives the same
    law (the Gumbel-max trick), but through the one-shot integral."""
    eps = 2 * sympy.log(2)
    peel = TopK(ExponentialMechanism(eps), 2)
    shot = TopK(ReportNoisyMax(eps, noise="gumbel"), 2)
    assert (peel.one_shot, shot.one_shot) == (False, True)
    assert TopK(PermuteAndFlip(1), 2).one_shot is False
    d, g = peel.distribution([0, -1, -2]), shot.distribution([0, -1, -2])
    assert isinstance(d, exactdp.mechanisms.TopKDistribution)
    assert d.pmf((0, 1)) == sympy.Rational(8, 21)
    assert d.outputs[0] == (0, 1) and d.probabilities[0] == sympy.Rational(8, 21)
    assert all(sympy.simplify(a - b) == 0
               for a, b in zip(d.probabilities, g.probabilities, strict=True))


def test_notebook_display_leads_with_the_exact_answer(monkeypatch):
    """PF at x = 1/2 on (0, -1, -2), k = 2: Pr[(0, 1)] = 2/3 * 3/4 = 1/2 and
    Pr[(0, 2)] = 2/3 * 1/4 = 1/6 (by hand, as in test_latex_table)."""
    d = TopK(PermuteAndFlip(LOG4), 2).distribution([0, -1, -2])
    html = d._repr_html_()
    assert "6 outputs, most likely (0, 1) at 0.5 (exact: 1/2)" in html
    assert "0.166667 (exact: 1/6)" in html and "TopK(" in html
    big = TopK(PermuteAndFlip(1), 2).distribution(list(range(300)))

    def refuse(self):
        raise AssertionError("the display computed a probability")

    monkeypatch.setattr(type(big), "probabilities", property(refuse))
    for text in (big._repr_html_(), big._repr_latex_().replace("\\ ", " ")):
        assert "89700 outputs, probabilities not computed" in text
