"""exactdp.analysis.supremum: sup_privacy_loss over gap families (limits checked by hand)."""



import pytest
import sympy

import exactdp
from exactdp import ExponentialMechanism, PermuteAndFlip, ReportNoisyMax
from exactdp.analysis.supremum import sup_privacy_loss
from exactdp.mechanisms.custom import (
    mechanism_from_function,
    wrong_rnm_laplace,
)

EPS = sympy.Symbol("epsilon", positive=True)
R = sympy.Rational


# ----------------------------------------------------------------- suprema
def _gap_family(g):
    # gap g + 2 between the two scores; the neighbour narrows it by 2
    return (0, -g - 2), (-1, -g - 1)


def test_sup_wrong_rnm_laplace_tends_to_two_epsilon():
    res = sup_privacy_loss(wrong_rnm_laplace(EPS), _gap_family)
    assert res.limit == 2 * EPS and res.output == 1
    # symbolic epsilon: the limit is a proved lower bound, the supremum is not claimed
    assert res.value is None and not res.certified and 2 * EPS in res.lower_bound.args


def test_sup_correct_rnm_laplace_tends_to_epsilon_numeric():
    res = sup_privacy_loss(exactdp.ReportNoisyMax(R(1, 2), noise="laplace"), _gap_family)
    # g e^{-g} terms: the interior is not enclosed, so only the limit is claimed
    assert res.value is None and res.lower_bound == R(1, 2) and not res.certified


def test_sup_with_user_closed_form_two_item_laplace():
    def lap2(q, eps):
        b = 1 / eps
        d = q[0] - q[1]
        if sympy.sympify(d).is_nonnegative:
            lose = (1 + d / (2 * b)) * sympy.exp(-d / b) / 2
            return [1 - lose, lose]
        lose = (1 - d / (2 * b)) * sympy.exp(d / b) / 2
        return [lose, 1 - lose]

    m = mechanism_from_function(lap2, epsilon=EPS, name="RNM-Laplace(1/eps), 2 items")
    res = sup_privacy_loss(m, _gap_family)
    assert res.limit == 2 * EPS and not res.attained


def test_sup_family_errors():
    with pytest.raises(ValueError, match="same range"):
        sup_privacy_loss(exactdp.PermuteAndFlip(1), lambda g: ((0, -g), (0,)))
    with pytest.raises(ValueError, match="sensitivity"):
        sup_privacy_loss(exactdp.PermuteAndFlip(1), lambda g: ((0, -g), (0, -2 * g)))


def test_sup_privacy_loss_pf_on_a_symbolic_gap_family():
    # regression: the astronomical-coin guard must not compare a symbolic gap with a number
    eps = sympy.Symbol("epsilon", positive=True)
    family = lambda g: ((0, -g - 2), (-1, -g - 1))  # noqa: E731
    res = exactdp.sup_privacy_loss(exactdp.PermuteAndFlip(eps), family)
    assert res.value is None and not res.certified  # symbolic epsilon: a lower bound only
    assert res.lower_bound.has(eps)
    num = exactdp.sup_privacy_loss(exactdp.PermuteAndFlip(1), family)
    assert num.value == 1 and num.certified

S, R, Z, E = sympy.sqrt, sympy.Rational, sympy.Integer, sympy.exp


# ---------------------------------------------------------------- hole 3: suprema
def test_sup_em_family_is_one_and_proved():
    # issue example: q = (0, -g), q' = (1, -g - 1), EM eps = 1 (c = 2). Output 1 has loss
    # 1 + log((1 + e^-1 u)/(1 + u)), u = e^(-g/2) in (0, 1): below 1, -> 1 as g -> oo.
    res = exactdp.sup_privacy_loss(ExponentialMechanism(1), lambda g: ((0, -g), (1, -g - 1)))
    assert res.value == 1 and res.certified and not res.attained and res.output == 1
    assert res.lower_bound == 1


def test_sup_gumbel_and_pf_families():
    fam = lambda g: ((0, -g - 2), (-1, -g - 1))  # noqa: E731
    em_family = lambda g: ((0, -g), (1, -g - 1))  # noqa: E731
    res = exactdp.sup_privacy_loss(ReportNoisyMax(1, noise="gumbel"), em_family)
    assert res.value == 1 and res.certified
    pf = exactdp.sup_privacy_loss(PermuteAndFlip(sympy.log(2)), fam)
    # PF's losing coin ratio is exactly e^eps on this family: attained everywhere
    assert pf.value == sympy.log(2) and pf.certified and pf.attained


def test_sup_not_proved_has_no_value_but_a_lower_bound():
    fam = lambda g: ((0, -g - 2), (-1, -g - 1))  # noqa: E731
    res = exactdp.sup_privacy_loss(ReportNoisyMax(R(1, 2), noise="laplace"), fam)
    assert res.value is None and not res.certified and res.caveat
    assert res.lower_bound == R(1, 2)  # the exact limit at g -> oo (Dwork & Roth, Claim 3.9)
    with pytest.raises(ValueError, match="not proved"):
        float(res)
    eps = sympy.Symbol("epsilon", positive=True)
    sym = exactdp.sup_privacy_loss(PermuteAndFlip(eps), fam)
    assert sym.value is None and "symbolic" in sym.caveat


def test_a_family_that_is_not_callable_is_one_line():
    for family in ("x", None, ([0, 1], [1, 0])):
        with pytest.raises(ValueError, match=r"^sup_privacy_loss: family must be a callable"):
            sup_privacy_loss(PermuteAndFlip(1), family)
