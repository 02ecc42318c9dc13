"""The registry (exactdp/mechanisms/registry.py) and the protocol it lists
(exactdp/mechanisms/base.py: capabilities from the hooks a class overrides)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
import sympy

import exactdp
from exactdp.mechanisms import REGISTRY, Mechanism, register
from exactdp.mechanisms.parameters import parameter, sensitivity_parameter
from exactdp.scores import as_scores

R = sympy.Rational


def test_entries_and_their_parameters():
    assert list(REGISTRY)[:5] == ["em", "pf", "rnm-exp", "rnm-gumbel", "rnm-laplace"]
    lap = REGISTRY["rnm-laplace"]
    assert lap.cls is exactdp.ReportNoisyMax and dict(lap.fixed) == {"noise": "laplace"}
    assert "noise" not in [p.name for p in lap.parameters]
    assert lap.make(epsilon=1).noise == "laplace"
    gauss = REGISTRY["gaussian"]
    assert not gauss.calibrated and gauss.instance().sigma == 2
    with pytest.raises(TypeError, match="not set by epsilon"):
        gauss.at_epsilon(1)
    assert REGISTRY["top-k"].kind == "top-k" and REGISTRY["top-k"].instance().k == 2
    with pytest.raises(TypeError):
        REGISTRY["em"] = REGISTRY["pf"]  # read-only


def test_kind_is_the_declared_output_kind():
    # one source: an entry's kind is its example instance's output_kind
    for key, spec in REGISTRY.items():
        assert spec.kind in exactdp.mechanisms.registry.KINDS, key
        assert spec.kind == spec.instance().output_kind, key
    assert exactdp.PermuteAndFlip(1).output_kind == "selection"
    assert exactdp.ReportNoisyMax(1, output="value").output_kind == "release"
    assert REGISTRY["rnm-laplace-value"].kind == "release"
    assert REGISTRY["numerical-svt"].kind == "release"
    assert exactdp.TopK(exactdp.PermuteAndFlip(1), 2).output_kind == "top-k"


def test_register_refuses_a_mechanism_with_a_broken_with_epsilon():
    @dataclass(frozen=True)
    class Scaled(Mechanism):  # first parameter not epsilon, no from_epsilon, no example
        width: sympy.Expr = parameter(lambda f, n, v: sympy.sympify(v), "a number")
        sensitivity: sympy.Expr = sensitivity_parameter()

    with pytest.raises(TypeError, match="does not take epsilon first"):
        register("scaled-test", label="S")(Scaled)
    with pytest.raises(TypeError, match="already"):
        register("pf", label="PF again")(exactdp.PermuteAndFlip)
    assert "scaled-test" not in REGISTRY
    with pytest.raises(ValueError, match="no epsilon parameter"):
        Scaled(2).with_epsilon(1)


def test_parameters_and_from_epsilon():
    m = exactdp.PermuteAndFlip.from_epsilon(R(1, 2), sensitivity=3, monotonic=True)
    assert m.parameter_values() == {"epsilon": R(1, 2), "sensitivity": 3, "monotonic": True,
                                    "optimize": "max"}
    assert m.replace(epsilon=2).rate == R(2, 3)  # epsilon / (c Delta), c = 1


def test_capabilities_from_the_overridden_hooks():
    assert exactdp.PermuteAndFlip(1).capabilities == frozenset(
        {"exact", "rational_form", "mpmath", "float", "balls", "sample"})
    assert exactdp.GaussianNoisyMax(1).capabilities == frozenset(
        {"mpmath", "float", "balls", "sample"})
    lap = exactdp.ReportNoisyMax(1, noise="laplace")
    assert "rational_form" not in lap.capabilities
    assert "numeric_rational_form" in lap.capabilities
    pf = exactdp.PermuteAndFlip(sympy.Symbol("epsilon", positive=True))
    assert pf.capabilities_on(as_scores([0, "sqrt(2)"])) == frozenset({"exact"})
    assert exactdp.PermuteAndFlip(0).capabilities_on(as_scores([0, 1])) >= {"exact", "balls"}
    top = exactdp.TopK(exactdp.ExponentialMechanism(1), 2)
    assert "rational_form" not in top.capabilities_on(as_scores([0, "sqrt(2)", 1]))
    assert "balls" not in top.capabilities_on(as_scores([0, 1, 2]))


def test_evaluate_routes_every_view():
    # PF on (0, -1): x = e^{-1/2}, Pr[1] = x/2 (the loser's coin, then a fair order)
    m, sv = exactdp.PermuteAndFlip(1), as_scores([0, -1])
    assert m.evaluate("exact", sv)[1] == sympy.exp(-R(1, 2)) / 2
    assert abs(m.evaluate("float", sv)[1] - np.exp(-0.5) / 2) < 1e-15
    assert m.evaluate("numeric_rational_form", sv) is None
    with pytest.raises(ValueError, match="no closed form"):
        exactdp.GaussianNoisyMax(1).evaluate("exact", sv)


def test_numeric_rational_form_of_rnm_laplace():
    # RNM-Laplace at epsilon = 2 on (0, -1): lam = 1, x = e^{-1}; the forms hold here only
    d = exactdp.ReportNoisyMax(2, noise="laplace").distribution([0, -1])
    rf = d.numeric_rational_form()
    assert rf.value == sympy.exp(-1)
    vals = [sympy.Poly(list(reversed([sympy.Rational(str(c)) for c in p.coeffs()])),
                       sympy.Symbol("x")).as_expr().subs("x", sympy.exp(-1)) for p in rf.polys]
    for v, p in zip(vals, d.probabilities, strict=True):
        assert sympy.simplify(v - p) == 0
    assert exactdp.PermuteAndFlip(1).distribution([0, -1]).numeric_rational_form() is None
