"""Tests of user-defined mechanisms and the catalogue of wrong variants."""

import mpmath
import numpy as np
import pytest
import sympy

import exactdp
from exactdp.analysis.check import check_dp
from exactdp.analysis.loss import privacy_loss
from exactdp.mechanisms.custom import (
    WRONG_VARIANTS,
    MisdeclaredMechanism,
    mechanism_from_function,
    wrong_exponential,
)

EPS = sympy.Symbol("epsilon", positive=True)
R = sympy.Rational


def em_fn(q, eps):
    w = [sympy.exp(eps * v / 2) for v in q]
    total = sum(w)
    return [x / total for x in w]


def test_function_em_equals_core_em_exactly():
    m = mechanism_from_function(em_fn, epsilon=2)
    d = m.distribution([3, 1, 0, 0, -2])
    core = exactdp.ExponentialMechanism(2).distribution([3, 1, 0, 0, -2]).probabilities
    assert all(sympy.simplify(a - b) == 0 for a, b in zip(d.probabilities, core, strict=True))
    # docs/formulas.md section 7 numbers
    ref = [0.805382, 0.108997, 0.040098, 0.040098, 0.005427]
    assert np.allclose(d.to_numpy(), ref, atol=5e-7)
    assert abs(float(d.evalf(40)[0]) - 0.805382) < 5e-7
    y, forms = d.rational_form()
    assert len(forms) == 5 and d.rational_form().value == sympy.exp(-1)


def test_with_epsilon_and_symbolic():
    m = mechanism_from_function(em_fn, epsilon=EPS)
    assert m.with_epsilon(1).epsilon == 1
    assert m.distribution([0, 0]).probabilities == (R(1, 2), R(1, 2))
    fixed = mechanism_from_function(lambda q: [R(1, len(q))] * len(q))
    with pytest.raises(ValueError, match="takes no epsilon"):
        fixed.with_epsilon(1)


def test_bad_functions_raise():
    with pytest.raises(ValueError, match="callable"):
        mechanism_from_function(3)
    with pytest.raises(ValueError, match=r"\(scores, epsilon\)"):
        mechanism_from_function(lambda q: q, epsilon=1)
    floats = mechanism_from_function(lambda q: [0.5, 0.5])
    with pytest.raises(ValueError, match="float"):
        _ = floats.distribution([0, 0]).probabilities
    short = mechanism_from_function(lambda q: [1])
    with pytest.raises(ValueError, match="1 probabilities for 2 scores"):
        privacy_loss(short, [0, 0], [0, 1])


def test_sampling_agrees_with_probabilities():
    d = mechanism_from_function(em_fn, epsilon=2).distribution([0, -1, -2])
    draws = d.sample(20000, rng=1)
    freq = np.bincount(draws, minlength=3) / 20000
    assert np.allclose(freq, d.to_numpy(), atol=0.015)


def test_catalogue_and_declarations():
    assert set(WRONG_VARIANTS) == {
        "rnm_laplace_half_scale", "em_exponent_eps_q_over_delta", "pf_coins_eps_over_delta"
    }
    for make in WRONG_VARIANTS.values():
        m = make(1)
        assert isinstance(m, MisdeclaredMechanism)
        assert m.monotonic is False and m.c == 2 and m.inner.c == 1
        assert m.with_epsilon(R(1, 3)).epsilon == R(1, 3)


@pytest.mark.parametrize("name", sorted(WRONG_VARIANTS))
def test_every_wrong_variant_is_caught(name):
    res = check_dp(WRONG_VARIANTS[name](1), [0, 0, -1])
    assert not res.holds and float(res) > 1


def test_function_route_and_catalogue_route_agree():
    # independent routes to the wrong EM: user closed form vs exactdp's EM with c = 1
    wrong_fn = mechanism_from_function(
        lambda q, e: [x / sum(sympy.exp(e * v) for v in q) for x in
                      (sympy.exp(e * v) for v in q)],
        epsilon=1,
    )
    a = check_dp(wrong_fn, [0, -1, 1])
    b = check_dp(wrong_exponential(1), [0, -1, 1])
    assert not a.holds and sympy.simplify(a.loss - b.loss) == 0


# ---------------------------------------------------------------- FunctionDistribution
LOG4 = 2 * sympy.log(2)  # EM at epsilon = 2 log 2 on (0, -1, -2): weights 1, 1/2, 1/4
P = (R(4, 7), R(2, 7), R(1, 7))


def _dist(eps=LOG4, scores=(0, -1, -2)):
    return mechanism_from_function(em_fn, epsilon=eps).distribution(list(scores))


def test_function_distribution_is_an_output_distribution_exact_views():
    from exactdp.distribution import OutputDistribution

    d = _dist()
    assert isinstance(d, OutputDistribution) and d.n == len(d) == 3
    assert tuple(sympy.simplify(p) for p in d.probabilities) == P
    assert sympy.simplify(d.pmf(1) - R(2, 7)) == 0
    with pytest.raises(IndexError):
        d.pmf(3)
    with pytest.raises(ValueError, match="output index"):
        d.pmf(-1)
    # summaries against the closed form: gaps (0, 1, 2)
    assert sympy.simplify(d.expected_error("exact") - R(4, 7)) == 0
    assert sympy.simplify(d.error_tail(1) - R(3, 7)) == 0
    assert sympy.simplify(d.expect(lambda r: r, "exact") - R(4, 7)) == 0
    h = -sum(p * sympy.log(p) for p in P)
    assert sympy.simplify(d.entropy("exact") - h) == 0
    assert abs(d.entropy("float") - float(h)) < 1e-14
    with mpmath.workdps(40):
        assert abs(d.entropy("mpmath", 40) - mpmath.mpf(sympy.N(h, 50))) < mpmath.mpf(10) ** -38
    # the x-form at a symbolic epsilon: x = exp(-epsilon/2), which is 1/2 at 2 log 2, where
    # the forms are the probabilities above
    rf = _dist(EPS).rational_form()
    x, forms = rf
    assert rf.value == sympy.exp(-EPS / 2)
    assert all(sympy.simplify(f.subs(x, R(1, 2)) - p) == 0 for f, p in zip(forms, P, strict=True))
    # the same numbers as the built-in mechanism (an independent implementation)
    core = exactdp.ExponentialMechanism(LOG4).distribution([0, -1, -2]).probabilities
    assert all(sympy.simplify(a - b) == 0 for a, b in zip(d.probabilities, core, strict=True))
    assert r"\frac{4}{7}" in d._repr_latex_()


def test_function_distribution_numeric_views_and_sampler():
    d = _dist()
    assert np.allclose(d.to_numpy(), [4 / 7, 2 / 7, 1 / 7], atol=1e-15, rtol=0)
    with mpmath.workdps(50):
        vals = d.evalf(50)
        assert all(abs(v - mpmath.mpf(p.p) / p.q) < mpmath.mpf(10) ** -48
                   for v, p in zip(vals, P, strict=True))
    for b, p in zip(d.evalf_balls(30), P, strict=True):
        (m, e), (rm, re) = b.mid().man_exp(), b.rad().man_exp()  # exact dyadic endpoints
        mid, rad = R(m) * R(2) ** e, R(rm) * R(2) ** re
        assert abs(mid - p) <= rad < R(1, 10**29)
    assert d.balls_certified == (True, None)
    draws = d.sample(60_000, rng=np.random.default_rng(7))
    freq = np.bincount(draws, minlength=3) / draws.size
    sd = np.sqrt(np.array([4, 2, 1]) / 7 * (1 - np.array([4, 2, 1]) / 7) / draws.size)
    assert np.all(np.abs(freq - np.array([4, 2, 1]) / 7) < 5 * sd)
    assert isinstance(d.sample(rng=1), int) and d.sample((2, 3), rng=1).shape == (2, 3)
    with pytest.raises(ValueError, match="size"):
        d.sample(-1)


def test_function_distribution_subs_and_clear_errors():
    sym = _dist(EPS)
    with pytest.raises(ValueError, match="subs"):
        sym.evalf(20)
    at = sym.subs(epsilon=LOG4)
    assert tuple(sympy.simplify(p) for p in at.probabilities) == P
    no_eps = mechanism_from_function(lambda q: [R(1, len(q))] * len(q)).distribution([0, 1])
    with pytest.raises(ValueError, match="no epsilon"):
        no_eps.subs(epsilon=1)
    with pytest.raises(ValueError, match="no epsilon"):
        no_eps.rational_form()
    t = sympy.Symbol("t")
    family = mechanism_from_function(em_fn, epsilon=2).distribution([0, t])
    with pytest.raises(ValueError, match="symbols"):
        family.expected_error("exact")


def test_function_mechanism_bad_scores_name_the_method():
    m = mechanism_from_function(em_fn, epsilon=2)
    with pytest.raises(ValueError, match=r"^FunctionMechanism\.distribution: scores\[0\] "
                                         r"must be a finite real number, got nan$"):
        m.distribution([float("nan"), 0])


def test_the_declarations_of_a_function_mechanism():
    m = mechanism_from_function(em_fn, epsilon=1)
    assert (m.regular, m.adjacency, m.score_domain, m.regular_claimed) == (
        False, "all", "real", True)
    m = mechanism_from_function(em_fn, epsilon=1, regular=True, adjacency="one",
                                score_domain="integer")
    assert (m.regular, m.adjacency, m.score_domain) == (True, "one", "integer")
    assert m.with_epsilon(2).adjacency == "one"  # kept by replace
    for kw, message in [
        ({"regular": "yes"}, "mechanism_from_function: regular must be True or False"),
        ({"adjacency": "some"}, "mechanism_from_function: adjacency must be 'all' or 'one'"),
        ({"score_domain": "rational"},
         "mechanism_from_function: score_domain must be 'real' or 'integer'"),
    ]:
        with pytest.raises(ValueError, match=message):
            mechanism_from_function(em_fn, epsilon=1, **kw)


def test_wrong_variants_are_regular_as_their_inner_mechanism():
    """The distribution is the inner (regular) mechanism's: the reduced search stays exact."""
    for make in WRONG_VARIANTS.values():
        m = make(1)
        assert m.regular and m.regular == m.inner.regular and not m.regular_claimed
