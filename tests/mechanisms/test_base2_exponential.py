"""The base-2 exponential mechanism (exactdp/mechanisms/base2_exponential.py): values by
hand, its DP level eta ln 2, and its place in the registry, the CLI, the report and the API
page (it is the worked example of docs/architecture.md: no other file names it)."""

from __future__ import annotations

import pytest
import sympy

import exactdp
from exactdp.io.cli import main
from exactdp.io.report import build_report
from exactdp.mechanisms import REGISTRY
from exactdp.mechanisms.base2_exponential import Base2ExponentialMechanism as Base2

R = sympy.Rational


def test_probabilities_by_hand():
    # eta = 2, c = 2: Pr[r] ∝ 2^(-(q* - q_r)); gaps (0, 1, 2) give weights 1, 1/2, 1/4
    m = Base2(2)
    assert m.distribution([0, -1, -2]).probabilities == (R(4, 7), R(2, 7), R(1, 7))
    # monotonic (c = 1), eta = 1, sensitivity 2: Pr ∝ 2^(-gap/2): 1 and 2^(-1/2)
    p = Base2(1, 2, True).distribution([3, 2]).probabilities
    assert sympy.simplify(p[0] - 1 / (1 + 1 / sympy.sqrt(2))) == 0
    x, forms = Base2(2).distribution([0, -1]).rational_form()
    assert sympy.simplify(forms[1].subs(x, R(1, 2)) - R(1, 3)) == 0  # x = 2^(-eta/(c Delta))
    assert Base2(0).distribution([0, 7]).probabilities == (R(1, 2), R(1, 2))
    assert Base2("oo").distribution([0, 7, 7]).probabilities == (0, R(1, 2), R(1, 2))


def test_epsilon_is_eta_ln2_and_with_epsilon_sets_eta():
    m = Base2(3, optimize="min")
    assert m.epsilon == 3 * sympy.log(2)
    e = sympy.Symbol("epsilon", positive=True)
    assert m.with_epsilon(e).eta == e / sympy.log(2) and m.with_epsilon(e).optimize == "min"
    assert m.with_epsilon(sympy.log(8)).eta == 3
    # the same law as the exponential mechanism at epsilon = eta ln 2 (closed forms compared)
    q = [0, "-1/2", -3]
    a = Base2(R(3, 2)).distribution(q).probabilities
    b = exactdp.ExponentialMechanism(R(3, 2) * sympy.log(2)).distribution(q).probabilities
    assert all(sympy.simplify(u - v) == 0 for u, v in zip(a, b, strict=True))


def test_bad_eta_is_one_line():
    import pytest

    with pytest.raises(ValueError, match=r"^Base2ExponentialMechanism: eta must be >= 0"):
        Base2(-1)


def test_check_dp_and_certify_dp():
    m = Base2(2)
    # worst vertex neighbour of (0, -1, -2) is (1, 0, -3) on output 2: 1/7 against 1/25
    res = exactdp.check_dp(m, [0, -1, -2])
    assert res.holds and res.loss == sympy.log(R(25, 7)) and res.epsilon == 2 * sympy.log(2)
    assert not exactdp.check_dp(m, [0, -1, -2], epsilon=R(5, 4))  # log(25/7) ~ 1.273 > 5/4
    cert = exactdp.certify_dp(m, [0, -1, -2], [1, 0, -3])
    assert cert.holds and cert.verify()


def test_in_the_registry_cli_report_and_api_page(capsys):
    spec = REGISTRY["em-base2"]
    assert spec.cls is Base2 and spec.kind == "selection" and spec.calibrated
    assert [p.name for p in spec.parameters] == ["eta", "sensitivity", "monotonic", "optimize"]
    assert spec.at_epsilon(sympy.log(4)).eta == 2
    assert main(["table", "--scores", "0,-1,-2", "--epsilon", "2*log(2)",
                 "--mechanisms", "em-base2,em"]) == 0
    out = capsys.readouterr().out
    assert "EM-base2" in out and "0.571429" in out  # 4/7, as EM at 2 ln 2
    report = build_report(sympy.log(4), example=None, scores=[0, -1, -2],
                          mechanisms=["em-base2"])
    (result,) = report.cases[0].results
    assert result.label == "EM-base2" and result.worst.holds
    pytest.importorskip("griffe")  # mkdocs_hooks needs the docs extra
    from mkdocs_hooks import mechanism_entries

    assert "::: exactdp.mechanisms.base2_exponential.Base2ExponentialMechanism" in (
        mechanism_entries())
