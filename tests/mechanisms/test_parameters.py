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
