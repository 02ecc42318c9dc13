"""Declared parameters (exactdp/mechanisms/parameters.py)."""

from __future__ import annotations

import pytest
import sympy

import exactdp


def test_declarations_give_validation_in_one_style():
    eps, sens, mono, opt = exactdp.PermuteAndFlip.parameters()
    assert (eps.name, eps.required, eps.symbolic) == ("epsilon", True, True)
    assert (sens.name, sens.default, sens.required) == ("sensitivity", 1, False)
    assert opt.keyword_only and opt.default == "max"
    assert eps.validate("F", "1/2") == sympy.Rational(1, 2)
    assert mono.validate("F", None) is False
    with pytest.raises(ValueError, match=r"^F: sensitivity must be > 0, got -1$"):
        sens.validate("F", -1)
    with pytest.raises(ValueError, match=r"^F: optimize must be 'max' or 'min', got 'mean'$"):
        opt.validate("F", "mean")


def test_a_declared_field_validates_at_construction():
    from dataclasses import dataclass

    from exactdp._validate import check_int
    from exactdp.mechanisms import Mechanism
    from exactdp.mechanisms.parameters import parameter, sensitivity_parameter

    @dataclass(frozen=True)
    class Half(Mechanism):  # a toy: the declaration alone gives __init__ and validation
        k: int = parameter(lambda f, n, v: check_int(f, n, v, 1), "a positive integer")
        sensitivity: sympy.Expr = sensitivity_parameter()

    h = Half(3, "1/2")
    assert h.k == 3 and h.sensitivity == sympy.Rational(1, 2)
    assert [p.name for p in Half.parameters()] == ["k", "sensitivity"]
    with pytest.raises(ValueError, match=r"^Half: sensitivity must be > 0, got 0$"):
        Half(1, 0)
    with pytest.raises(ValueError, match=r"^Half: k must be a positive integer"):
        Half(0)
