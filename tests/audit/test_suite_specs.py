"""The suite's data (exactdp/audit/suite_specs.py): StatDP's patterns written out by hand
from statdp/generators.py, and the published numbers against issue 24's table
(tests/reference.py)."""

from __future__ import annotations

import pytest
import sympy

from exactdp.audit.suite_specs import (
    ALGORITHMS,
    CLAIM,
    PATTERNS,
    SPECS,
    SVT_QUERIES,
    pattern_pair,
    patterns,
)
from exactdp.mechanisms import REGISTRY
from tests.reference import (
    DPSNIPER_RNM,
    DPSNIPER_SVT3_LCB,
    DPSNIPER_SVT_LCB,
    STATDP_RNM_EPS,
    STATDP_SVT_LCB,
)

SPEC = {s.name: s for s in SPECS}


def test_patterns_at_ten_queries_are_statdps():
    p = patterns(10)
    ones = (1,) * 10
    assert p == {
        "one below": (ones, (0, 1, 1, 1, 1, 1, 1, 1, 1, 1)),
        "one above": (ones, (2, 1, 1, 1, 1, 1, 1, 1, 1, 1)),
        "one above rest below": (ones, (2, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
        "one below rest above": (ones, (0, 2, 2, 2, 2, 2, 2, 2, 2, 2)),
        "half half": (ones, (2, 2, 2, 2, 2, 0, 0, 0, 0, 0)),
        "all above": (ones, (2,) * 10),
        "all below": (ones, (0,) * 10),
        "X shape": ((1, 1, 1, 1, 1, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 1, 1, 1, 1, 1)),
    }


def test_patterns_drop_repeats_at_small_m():
    """m = 1: 'one above rest below' is 'one above'; 'half half' is 'all below' (no twos)."""
    p = patterns(1)
    assert list(p) == ["one below", "one above", "X shape"]
    assert p["X shape"] == ((0,), (1,))
    assert len(patterns(3)) == 7  # half half = one above rest below at m = 3
    assert all(len(a) == len(b) == 7 for a, b in patterns(7).values())
    assert list(patterns(10)) == list(PATTERNS)
    assert pattern_pair("half half", 3) == pattern_pair("one above rest below", 3)
    with pytest.raises(KeyError):
        pattern_pair("diagonal", 3)


def test_published_numbers_are_issue_24s_table():
    for k in (1, 2, 3, 4):
        pub = SPEC[f"RNM{k}"].dpsniper
        assert (round(pub.epsilon, 4), round(pub.lower_bound, 4)) == DPSNIPER_RNM[k]
        assert round(SPEC[f"RNM{k}"].statdp.epsilon, 4) == STATDP_RNM_EPS[k]
    for v, lcb in DPSNIPER_SVT_LCB.items():
        assert round(SPEC[f"SVT{v}"].dpsniper.lower_bound, 4) == lcb
    assert round(SPEC["SVT3"].dpsniper.lower_bound, 4) == DPSNIPER_SVT3_LCB
    for v, lcb in STATDP_SVT_LCB.items():
        assert round(SPEC[f"SVT{v}"].statdp.lower_bound, 4) == lcb
    assert SPEC["NumericalSVT"].statdp is None


def test_published_pairs_are_the_logs_pairs():
    """The pairs in DP-Sniper's log (dd_search_reg_data.log: a1, a2) from the patterns."""
    def pair(name):
        spec = SPEC[name].dpsniper
        a, b = patterns(SVT_QUERIES if name.startswith("SVT") else 5)[spec.pattern]
        return (b, a) if spec.swapped else (a, b)
    assert pair("RNM1") == ((1,) * 5, (0, 2, 2, 2, 2))
    assert pair("RNM3") == ((0,) * 5, (1,) * 5)
    assert pair("SVT1") == ((0,) * 5 + (1,) * 5, (1,) * 5 + (0,) * 5)
    assert pair("SVT4") == ((1,) * 10, (2,) * 5 + (0,) * 5)
    assert pair("SVT5") == ((2,) * 5 + (0,) * 5, (1,) * 10)
    assert pair("SVT6") == ((1,) * 5 + (0,) * 5, (0,) * 5 + (1,) * 5)


def test_every_spec_is_well_formed():
    assert ALGORITHMS == ("RNM1", "RNM2", "RNM3", "RNM4", "SVT1", "SVT2", "SVT3", "SVT4",
                          "SVT5", "SVT6", "NumericalSVT")
    assert CLAIM == sympy.Rational(1, 10)
    classes = {e.cls.__name__ for e in REGISTRY.values()}
    for spec in SPECS:
        assert spec.published()[0].tool == "DP-Sniper"
        assert all(p.pattern in patterns(10) for p in spec.published())
        assert spec.private == (spec.name in ("RNM1", "RNM2", "SVT1", "SVT2", "NumericalSVT"))
        if spec.name not in ("NumericalSVT",):
            assert spec.mechanism in classes
    assert [s.name for s in SPECS if s.certify] == ["RNM2"]


@pytest.mark.parametrize("name,value", [("SVT1", sympy.Rational(1, 2)), ("SVT2", 1),
                                        ("NumericalSVT", 1)])
def test_the_tools_parameters(name, value):
    """exp_default.py: SVT1 threshold 0.5, the others 1; NumericalSVT at its defaults c = 2."""
    spec = SPEC[name]
    assert spec.parameters["threshold"] == value
    assert spec.parameters["c"] == (2 if name == "NumericalSVT" else 1)
