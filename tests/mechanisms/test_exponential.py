"""exactdp.mechanisms.exponential: EM (and PF beside it) against docs/formulas.md section 7 and
the two-item closed forms."""

from __future__ import annotations

import pytest
import sympy

from exactdp import ExponentialMechanism, PermuteAndFlip
from tests.reference import EM_Q31002_EPS2, PF_Q31002_EPS2, Q31002

EPS = sympy.Symbol("epsilon", positive=True)


def as_float(exprs):
    return [float(sympy.N(e, 30)) for e in exprs]


# --------------------------------------------------------------------------- known values
def test_math_md_section7_pf_and_em():
    q = Q31002
    pf = as_float(PermuteAndFlip(2).distribution(q).probabilities)
    em = as_float(ExponentialMechanism(2).distribution(q).probabilities)
    assert pf == pytest.approx(PF_Q31002_EPS2, abs=1e-6)
    assert em == pytest.approx(EM_Q31002_EPS2, abs=1e-6)


def test_two_items_loss_probabilities():
    # docs/formulas.md section 2: gap g, p = e^{-g/b}: PF loses w.p. p/2; EM w.p. p/(1+p).
    g = sympy.Rational(3, 2)
    p = sympy.exp(-EPS * g / 2)
    pf = PermuteAndFlip(EPS).distribution([g, 0]).probabilities
    em = ExponentialMechanism(EPS).distribution([g, 0]).probabilities
    assert sympy.simplify(pf[1] - p / 2) == 0
    assert sympy.simplify(em[1] - p / (1 + p)) == 0
