"""Tests of user-defined mechanisms and the catalogue of wrong variants."""

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
    assert not res.holds and res.loss_float() > 1


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
