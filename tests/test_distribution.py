"""The numeric views of every mechanism: evalf digits, float64 accuracy, scale and laziness.

References are the exact sympy probabilities evaluated at 60 digits (an independent route
from the numeric engines).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy

import exactdp
from exactdp import ExponentialMechanism, GaussianNoisyMax, PermuteAndFlip, ReportNoisyMax
from exactdp.exact import mpf_to_arb
from tests.reference import PF_Q31002_EPS2

MECHS = {
    "EM": lambda e: ExponentialMechanism(e),
    "PF": lambda e: PermuteAndFlip(e),
    "RNM-Exp": lambda e: ReportNoisyMax(e, noise="exponential"),
    "RNM-Gumbel": lambda e: ReportNoisyMax(e, noise="gumbel"),
    "RNM-Laplace": lambda e: ReportNoisyMax(e, noise="laplace"),
}
VECTORS = [(3, 1, 0, 0, -2), ("1/2", 0, "-7/3", "1/2"), (0, -1, -2, -40), (7,)]


@pytest.mark.parametrize("key", sorted(MECHS))
@pytest.mark.parametrize("q", VECTORS)
@pytest.mark.parametrize("eps", ["2", "1/10", "log(3)"])
def test_evalf_30_digits_and_float64_against_exact(key, q, eps):
    d = MECHS[key](eps).distribution(q)
    got = d.evalf(30)
    fl = d.to_numpy()
    with mpmath.workdps(60):
        exact = [mpmath.mpf(sympy.N(p, 60)) for p in d.probabilities]
        for e, g, f in zip(exact, got, fl, strict=True):
            assert abs(g - e) <= mpmath.mpf(10) ** -29 * e  # 30 significant digits
            assert abs(f - float(e)) <= 1e-12 * float(e)
    assert abs(fl.sum() - 1) < 1e-12


@pytest.mark.parametrize("key", sorted(MECHS))
def test_known_values_to_1e25(key):
    known = {
        "PF": list(PF_Q31002_EPS2),
        "EM": [0.805382, 0.108997, 0.040098, 0.040098, 0.005427],
    }
    d = MECHS[key](2).distribution([3, 1, 0, 0, -2])
    ref = d.evalf(45)
    with mpmath.workdps(45):
        for a, b in zip(d.evalf(30), ref, strict=True):
            assert abs(a - b) < 1e-25
    base = "PF" if key == "RNM-Exp" else "EM" if key == "RNM-Gumbel" else key
    if base in known:
        assert [float(v) for v in d.evalf(30)] == pytest.approx(known[base], abs=1e-6)


@pytest.mark.parametrize("key", sorted(MECHS))
@pytest.mark.parametrize("eps", [1e-9, 1e-3, 1.0, 1e3, 1e9])
def test_float_path_stable_over_epsilon_and_huge_scores(key, eps):
    rng = np.random.default_rng(7)
    n = 2000 if key == "RNM-Laplace" else 100_000
    for q in (rng.normal(0, 1, n), rng.uniform(-1e300, 1e300, n), np.zeros(n)):
        mech = MECHS[key](sympy.Rational(*float(eps).as_integer_ratio()))
        p = mech.distribution(q).to_numpy()
        assert p.shape == (n,)
        assert np.all(np.isfinite(p)) and np.all(p >= 0)
        assert abs(p.sum() - 1) < 1e-12


@pytest.mark.parametrize("key", sorted(MECHS))
@pytest.mark.parametrize("eps", ["1e6", "1e-12"])
def test_extreme_epsilon_exact_and_mpmath_agree(key, eps):
    d = MECHS[key](eps).distribution([1, 0, -3])
    with mpmath.workdps(50):
        exact = [mpmath.mpf(sympy.N(p, 50)) for p in d.probabilities]
        assert abs(mpmath.fsum(exact) - 1) < mpmath.mpf(10) ** -45
        for e, g in zip(exact, d.evalf(30), strict=True):
            assert abs(g - e) <= mpmath.mpf(10) ** -29 * e
    if eps == "1e-12":  # nearly uniform
        assert all(abs(float(v) - 1 / 3) < 1e-11 for v in exact)
    else:  # the winner takes all; the runner-up has probability about e^{-5e5}
        assert float(exact[0]) == 1.0
        assert exact[1] < mpmath.mpf(10) ** -200000


def test_huge_exact_scores():
    q = [sympy.Integer(10) ** 300, sympy.Integer(10) ** 300 - 1, -sympy.Integer(10) ** 300]
    d = PermuteAndFlip(1).distribution(q)
    x, forms = d.rational_form()
    big = 2 * 10**300
    # exact even with a gap of 2e300 (sparse generators): the formula page's (0, -1, -g) polynomials
    assert sympy.expand(forms[1] - (x / 2 - x ** (big + 1) / 6)) == 0
    assert sympy.expand(sum(forms) - 1) == 0
    p = d.to_numpy()
    assert p[2] == 0 and abs(p.sum() - 1) < 1e-15


def test_float_view_of_a_million_scores_is_lazy():
    q = np.random.default_rng(0).normal(size=1_000_000)
    d = PermuteAndFlip(1).distribution(q)
    p = d.to_numpy()
    assert abs(p.sum() - 1) < 1e-12
    assert "exact" not in d.scores.__dict__  # no sympy objects were built
    assert "probabilities" not in d.__dict__


def test_mpmath_view_at_n_1e5():
    q = np.arange(100_000) % 97
    d = PermuteAndFlip(1).distribution(q)
    v = d.evalf(20)
    with mpmath.workdps(25):
        assert abs(mpmath.fsum(v) - 1) < mpmath.mpf(10) ** -18
    f = d.to_numpy()
    assert max(abs(float(a) - b) / b for a, b in zip(v[:200], f[:200], strict=True)) < 1e-12


def test_evalf_balls_contain_the_exact_values():
    import flint

    q = ["1/2", 0, "-7/3"]
    for key in sorted(MECHS):
        d = MECHS[key]("3/2").distribution(q)
        balls = d.evalf_balls(25)
        old = flint.ctx.prec
        flint.ctx.prec = 200
        try:
            for b, p in zip(balls, d.probabilities, strict=True):
                assert b.contains(flint.arb(str(sympy.N(p, 90))))  # balls may be tighter
                assert float(b.rad()) < 1e-24
        finally:
            flint.ctx.prec = old


def test_gaussian_balls_two_items_closed_form():
    import flint

    d = GaussianNoisyMax(2).distribution([0, -1])
    # Pr[lose] = Phi(-g/(sigma sqrt 2)) = erfc(g/(2 sigma))/2 with g = 1, sigma = 2
    lose = sympy.N(sympy.erfc(sympy.Rational(1, 4)) / 2, 50)
    b = d.evalf_balls(30)[1]
    old = flint.ctx.prec
    flint.ctx.prec = 200
    try:
        assert b.contains(flint.arb(str(lose)))
    finally:
        flint.ctx.prec = old


@pytest.mark.parametrize("key", ["EM", "PF", "RNM-Exp", "RNM-Gumbel"])
def test_float_view_beyond_the_float_range_of_epsilon(key):
    # eps = 1e400 and a gap of 1e-400: the scaled gap is 1/2 (c = 2), exactly representable
    d = MECHS[key]("1e400").distribution([0, "-1e-400"])
    ref = [float(v) for v in d.evalf(20)]
    assert d.to_numpy() == pytest.approx(ref, rel=1e-14)
    tiny = MECHS[key]("1e-400").distribution([0, 1, 2]).to_numpy()
    assert tiny == pytest.approx([1 / 3] * 3, rel=1e-14)


@pytest.mark.parametrize("bad", [0, -1, 10**6, 2.5, "30", True])
def test_evalf_dps_bounds(bad):
    with pytest.raises(ValueError, match="dps"):
        PermuteAndFlip(1).distribution([0, 1]).evalf(bad)


def test_evalf_accepts_sympy_and_numpy_integers():
    d = PermuteAndFlip(1).distribution([0, 1])
    assert d.evalf(sympy.Integer(20)) == d.evalf(np.int64(20))


def test_pmf_bad_index_is_a_value_error():
    d = PermuteAndFlip(1).distribution([0, 1])
    for bad in (2, -1, 1.0, True):
        with pytest.raises(ValueError, match="output index"):
            d.pmf(bad)

S, R, Z = sympy.sqrt, sympy.Rational, sympy.Integer


# ---------------------------------------------------------------- hole 4: assumed radii
def test_pf_balls_at_log2_with_a_huge_irrational_gap_are_proved():
    # two items, gap g = 10^7 + sqrt 2, eps = log 2, c = 2: PF loses w.p. p/2 with
    # p = exp(-eps g / 2) = 2^(-g/2) (docs/formulas.md section 2). mpmath at 80 digits is the
    # independent route.
    g = 10**7 + S(2)
    d = PermuteAndFlip(sympy.log(2)).distribution([0, -g])
    lose = d.evalf_balls(30)[1]
    with mpmath.workdps(80):
        ref = mpmath.power(2, -(10**7 + mpmath.sqrt(2)) / 2) / 2
    assert lose.contains(mpf_to_arb(ref))
    assert lose.rel_accuracy_bits() > 95  # about 30 digits, as asked
    assert d.balls_certified == (True, None)


def test_em_and_laplace_balls_contain_closed_forms():
    # EM two items: lose w.p. p/(1+p); RNM-Laplace three items at eps = 1: formulas section 7
    d = ExponentialMechanism(sympy.log(3)).distribution([0, -2])  # p = 3^(-1) = 1/3
    b = d.evalf_balls(40)
    assert b[1].contains(mpf_to_arb(mpmath.mpf(1) / 4)) and b[1].rad() < mpmath.mpf(10) ** -39
    lap = ReportNoisyMax(1, noise="laplace").distribution([0, -1, -2]).evalf_balls(20)
    for ball_, ref in zip(lap, ("0.519651", "0.305706", "0.174643"), strict=True):
        assert abs(float(ball_.mid()) - float(ref)) < 6e-7

EPS = sympy.Symbol("epsilon", positive=True)
R = sympy.Rational


def two_item_pf(eps, gap=1, c=2):
    """PF on (0, -gap): the runner-up wins with p/2, p = exp(-eps*gap/(c*Delta))."""
    p = sympy.exp(-eps * gap / c)
    return (1 - p / 2, p / 2)


def test_subs_matches_a_fresh_distribution_at_that_epsilon():
    d = exactdp.PermuteAndFlip(EPS).distribution([0, -1])
    at = d.subs(epsilon=2)
    assert at.probabilities == exactdp.PermuteAndFlip(2).distribution([0, -1]).probabilities
    want = two_item_pf(sympy.Integer(2))
    assert all(sympy.simplify(a - b) == 0 for a, b in zip(at.probabilities, want, strict=True))
    assert d.subs(EPS, 2).probabilities == at.probabilities
    with pytest.raises(ValueError, match="subs"):
        d.subs(delta=1)


def test_entropy_three_views_against_hand_formula():
    d = exactdp.PermuteAndFlip(2).distribution([0, -1])
    p = math.exp(-1) / 2  # runner-up probability
    want = -(p * math.log(p) + (1 - p) * math.log(1 - p))
    assert d.entropy() == pytest.approx(want, rel=1e-14)
    assert float(d.entropy("mpmath", 30)) == pytest.approx(want, rel=1e-14)
    assert float(sympy.N(d.entropy("exact"), 30)) == pytest.approx(want, rel=1e-14)
    # uniform on n outputs: ln n (docs/formulas.md section 5, the T -> oo end)
    assert exactdp.ExponentialMechanism(1).distribution([0] * 7).entropy() == pytest.approx(
        math.log(7), rel=1e-14)


def test_expect_and_error_tail_against_enumeration():
    q = [0, -1, -1, -3]
    d = exactdp.ExponentialMechanism(1).distribution(q)
    w = [math.exp(v / 2) for v in q]  # softmax at temperature 2*Delta/eps = 2
    p = [x / sum(w) for x in w]
    assert d.expect(lambda r: r * r) == pytest.approx(sum(r * r * p[r] for r in range(4)))
    assert float(d.expect(lambda r: r, method="exact")) == pytest.approx(
        sum(r * p[r] for r in range(4)))
    for t in (0, 1, R(3, 2), 3, 4):
        want = sum(pr for pr, v in zip(p, q, strict=True) if -v >= t)
        assert float(d.error_tail(t)) == pytest.approx(want, abs=1e-15)
        assert d.error_tail(t, method="float") == pytest.approx(want, abs=1e-15)


def test_pmf_and_expected_error_views():
    d = exactdp.PermuteAndFlip(2).distribution([0, -1])
    lose = sympy.exp(-1) / 2
    assert sympy.simplify(d.pmf(1) - lose) == 0
    assert sympy.simplify(d.expected_error() - lose) == 0
    assert float(d.expected_error("mpmath")) == pytest.approx(math.exp(-1) / 2, rel=1e-14)
    assert d.expected_error("float") == pytest.approx(math.exp(-1) / 2, rel=1e-14)
    with pytest.raises(ValueError):
        d.pmf(2)


def test_repr_latex_shows_the_exact_probabilities():
    d = exactdp.PermuteAndFlip(2).distribution([0, -1])
    tex = d._repr_latex_()
    assert tex.startswith("$") and tex.endswith("$")
    # each exact probability appears as sympy prints it (1/(2e) for the runner-up)
    assert sympy.latex(sympy.exp(-1) / 2) in tex
    assert tex.count(r"\Pr[") == 2


def test_sample_size_shapes_and_seed_reproducibility():
    d = exactdp.PermuteAndFlip(1).distribution([0, -1, -2])
    a = d.sample((3, 4), np.random.default_rng(5))
    b = d.sample((3, 4), np.random.default_rng(5))
    assert a.shape == (3, 4) and np.array_equal(a, b)
    assert isinstance(d.sample(rng=1), int)
    with mpmath.workdps(15):
        assert set(np.unique(d.sample(2000, 3))) <= {0, 1, 2}


def test_output_distribution_built_directly_matches_docs_numbers():
    """OutputDistribution(mechanism, scores) directly: PF at eps = 2 on q = (3, 1, 0, 0, -2)
    against the six-decimal values of docs/formulas.md section 7 (tests/reference.py)."""
    sv = exactdp.ScoreVector.from_input([3, 1, 0, 0, -2])
    d = exactdp.OutputDistribution(PermuteAndFlip(2), sv)
    assert d.to_numpy() == pytest.approx(PF_Q31002_EPS2, abs=1e-6)
    assert [float(p) for p in d.probabilities] == pytest.approx(PF_Q31002_EPS2, abs=1e-6)


def test_summaries_refuse_an_unknown_method_and_compare_gaps_exactly():
    """entropy/expect/error_tail named an unknown method "float" silently before (lead)."""
    import pytest
    import sympy

    import exactdp

    d = exactdp.ExponentialMechanism(sympy.log(4), 1).distribution([0, 1, 2])
    for call in (lambda: d.entropy(method="exakt"), lambda: d.expect(lambda r: r, "mp"),
                 lambda: d.error_tail(1, method="arb")):
        with pytest.raises(ValueError, match=r"(entropy|expect|error_tail): method must be "):
            call()
    # EM with e^eps = 4, Delta = 1: weights 4^(q/2) = 1, 2, 4 -> gaps 2, 1, 0
    assert d.error_tail(1) == sympy.Rational(3, 7)
    # an irrational gap sqrt(2) - 1.4142 > 0 decided exactly, never by a float
    e = exactdp.PermuteAndFlip(1, 1).distribution([sympy.sqrt(2), 0])
    t = sympy.Rational(14142, 10000)
    assert e.error_tail(t) == e.probabilities[1]
    assert e.error_tail(sympy.sqrt(2)) == e.probabilities[1]
    assert e.error_tail(sympy.sqrt(2) + sympy.Integer(10) ** -30) == 0


def test_every_distribution_offers_the_declared_protocol():
    from exactdp.distribution import Distribution

    members = {m for k in Distribution.__mro__ if k.__module__ == "exactdp.distribution"
               for m in vars(k) if not m.startswith("_")} | {"__len__"}
    assert {"mechanism", "scores", "outputs", "probabilities", "sample"} <= members
    f = exactdp.mechanism_from_function(lambda q: (sympy.Rational(1, 3), sympy.Rational(2, 3)))
    for d in (PermuteAndFlip(1).distribution([0, 1]), f.distribution([0, 1]),
              exactdp.TopK(PermuteAndFlip(1), 2).distribution([0, 1, 2])):
        assert all(hasattr(d, m) for m in members), type(d)
        # the views agree with each other and with the output space
        assert len(d) == len(d.outputs) == len(d.probabilities)
        assert d.pmf(d.outputs[-1]) == d.probabilities[-1]
        assert np.allclose(d.to_numpy(), [float(p) for p in d.probabilities], rtol=1e-12)
        assert sympy.simplify(sum(d.probabilities) - 1) == 0


def test_lazy_probabilities_build_per_output_and_act_as_the_tuple():
    """PF's exact probabilities on rational scores are built per distinct gap on access;
    the sequence compares, hashes, prints, slices, adds and pickles as its tuple, and its
    values agree with the float engine (an independent route)."""
    import pickle

    import numpy as np
    import sympy

    from exactdp import PermuteAndFlip
    from exactdp.lazy_probabilities import LazyProbabilities

    q = [0, 3, 3, 1, 5]
    d = PermuteAndFlip(1).distribution(q)
    p = d.probabilities
    assert isinstance(p, LazyProbabilities) and len(p) == 5
    assert p._built == {}  # nothing built before access
    first = p[1]
    assert len(p._built) == 1 and p[2] is first  # equal scores share one expression
    full = tuple(p)
    assert p == full and full == p and hash(p) == hash(full) and repr(p) == repr(full)
    assert p[1:3] == full[1:3] and p + (1,) == full + (1,) and (1,) + p == (1,) + full
    assert pickle.loads(pickle.dumps(p)) == full and p != full[:4]
    assert d.pmf(4) == full[4]
    assert sympy.simplify(sum(full) - 1) == 0
    np.testing.assert_allclose([float(v) for v in full], d.to_numpy(), rtol=1e-12)


def test_notebook_display_leads_with_the_exact_answer():
    """EM at eps = 2 log 2 on q = (0, 0, 1): weights exp(eps q / 2) = (1, 1, 2), so the
    probabilities are (1/4, 1/4, 1/2) (closed form, McSherry-Talwar 2007)."""
    d = ExponentialMechanism("2*log(2)").distribution([0, 0, 1])
    html = d._repr_html_()
    assert "3 outputs, most likely 2 at 0.5 (exact: 1/2)" in html
    assert html.count("0.25 (exact: 1/4)") == 2 and repr(d.mechanism).split("(")[0] in html
    assert r"\Pr[\mathrm{EM}(q) = 2] &= \frac{1}{2}" in d._repr_latex_()


def test_notebook_display_of_a_large_n_computes_no_probability(monkeypatch):
    """PF on 10**5 scores: the display says the probabilities are not computed, and never
    asks for them (every exact route raises here)."""
    d = PermuteAndFlip(1).distribution(list(range(10**5)))

    def refuse(*args):
        raise AssertionError("the display computed a probability")

    monkeypatch.setattr(type(d), "_view", refuse)
    for text in (d._repr_html_(), d._repr_latex_().replace("\\ ", " ")):
        assert "100000 outputs, probabilities not computed" in text
