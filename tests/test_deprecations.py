"""Renamed public names (docs/architecture.md, naming table): each old name still works,
warns DeprecationWarning naming the new one, and gives the same result; no alias takes the
name of another public function."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import sympy

import exactdp
from exactdp import analysis

EPS = sympy.Symbol("epsilon", positive=True)

#: old top-level name -> new top-level name
RENAMED_FUNCTIONS = {
    "zcdp_check": "check_zcdp",
    "dominates": "check_dominance",
    "is_monotone": "is_monotonic",
}


@pytest.mark.parametrize("old", sorted(RENAMED_FUNCTIONS))
def test_old_function_names_are_warning_aliases(old):
    new = RENAMED_FUNCTIONS[old]
    for ns in (exactdp, analysis):
        alias, target = getattr(ns, old), getattr(ns, new)
        assert alias is not target and alias.__wrapped__ is target
        assert inspect.signature(alias) == inspect.signature(target)


def test_aliases_call_the_new_functions_and_warn():
    pf, em = exactdp.PermuteAndFlip(1), exactdp.ExponentialMechanism(1)
    with pytest.warns(DeprecationWarning, match="use check_zcdp"):
        old = exactdp.zcdp_check(em, [0, -1], sympy.Rational(1, 8))
    assert old.holds == exactdp.check_zcdp(em, [0, -1], sympy.Rational(1, 8)).holds
    a, b = pf.distribution([0, -1, -2]), em.distribution([0, -1, -2])
    with pytest.warns(DeprecationWarning, match="use check_dominance"):
        old = exactdp.dominates(a, b)
    assert old.holds and exactdp.check_dominance(a, b).holds
    with pytest.warns(DeprecationWarning, match="use is_monotonic"):
        old = exactdp.is_monotone(pf, n=2, values=[0, 1])
    assert old.holds == exactdp.is_monotonic(pf, n=2, values=[0, 1]).holds


def test_certificate_check_is_verify():
    cert = exactdp.certify_dp(exactdp.PermuteAndFlip(EPS), [0, -1])
    assert cert.verify()
    with pytest.warns(DeprecationWarning, match=r"\.verify\(\)"):
        assert cert.check()
    dom = exactdp.certify_dominance(exactdp.PermuteAndFlip(EPS),
                                    exactdp.ExponentialMechanism(EPS), [0, -1, -2])
    assert dom.verify()
    with pytest.warns(DeprecationWarning):
        assert dom.check()
    res = exactdp.lattice_lp(2, 2, sympy.log(sympy.Rational(3, 2)), method="exact")
    assert res.certificate.verify()
    with pytest.warns(DeprecationWarning):
        assert res.certificate.verified


def test_optimal_method_certified_is_arb():
    new = exactdp.optimal_mechanism([0, -1], 1, method="arb", dps=20)
    with pytest.warns(DeprecationWarning, match='method="arb"'):
        old = exactdp.optimal_mechanism([0, -1], 1, method="certified", dps=20)
    assert old.method == "arb" and old.radii == new.radii
    assert all(a.overlaps(b) for a, b in zip(old.values, new.values, strict=True))


def test_view_is_method_and_rvs_is_sample():
    d = exactdp.PermuteAndFlip(2).distribution([0, -1])
    with pytest.warns(DeprecationWarning, match="method="):
        old = d.expected_error(view="float")
    assert old == d.expected_error(method="float") == d.expected_error("float")
    with pytest.warns(DeprecationWarning):
        assert d.entropy(view="float") == d.entropy(method="float")
    with pytest.warns(DeprecationWarning, match=r"\.sample\(\)"):
        old = d.rvs(5, np.random.default_rng(1))
    assert np.array_equal(old, d.sample(5, np.random.default_rng(1)))


def test_no_alias_shadows_a_public_function():
    public = {n for n in exactdp.__all__ if callable(getattr(exactdp, n))}
    for old, new in RENAMED_FUNCTIONS.items():
        assert new in public
        # the old name is exactly the alias: not another function with a different meaning
        assert getattr(exactdp, old).__wrapped__ is getattr(exactdp, new)


@pytest.mark.parametrize("make", [
    lambda **kw: exactdp.ExponentialMechanism(1, **kw),
    lambda **kw: exactdp.PermuteAndFlip(1, **kw),
    lambda **kw: exactdp.ReportNoisyMax(1, noise="laplace", **kw),
    lambda **kw: exactdp.GaussianNoisyMax(1, **kw),
])
def test_monotone_keyword_and_attribute_warn_once(make):
    import warnings

    new = make(monotonic=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = make(monotone=True)
    assert [str(w.message) for w in caught if w.category is DeprecationWarning] == [
        f"{type(new).__name__}(monotone=...) is deprecated; use monotonic=..."]
    assert old == new and old.monotonic is True and old.c == 1
    # the positional third argument is the flag itself (no warning)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert type(new)(*([1, 1, True] if type(new).__name__ != "ReportNoisyMax"
                           else [1, 1, True, "laplace"])).monotonic is True
    with pytest.warns(DeprecationWarning, match=r"\.monotonic"):
        assert old.monotone is True
    assert make().monotonic is False and make().c == 2


def test_monotone_keyword_elsewhere():
    from exactdp.analysis.sensitivity import ScoreFunction
    from exactdp.mechanisms.custom import mechanism_from_function

    with pytest.warns(DeprecationWarning, match="mechanism_from_function"):
        f = mechanism_from_function(lambda q: [sympy.Rational(1, len(q))] * len(q),
                                    monotone=True)
    assert f.monotonic is True and f.c == 1
    with pytest.warns(DeprecationWarning, match="optimal_mechanism"):
        old = exactdp.optimal_mechanism([0, -1], 1, monotone=True)
    new = exactdp.optimal_mechanism([0, -1], 1, monotonic=True)
    # the two spellings give the same exact values, and differ from c = 2
    assert old.probabilities == new.probabilities
    assert new.probabilities != exactdp.optimal_mechanism([0, -1], 1).probabilities
    top = exactdp.TopK(exactdp.PermuteAndFlip(1, monotonic=True), 1)
    assert top.monotonic is True
    with pytest.warns(DeprecationWarning):
        assert top.monotone is True
    func = ScoreFunction(lambda db, r: sum(1 for x in db if x == r), (0, 1))
    res = exactdp.sensitivity(func, (0, 1), "add_remove", max_size=1)
    assert res.monotonic is True
    with pytest.warns(DeprecationWarning, match=r"\.monotonic"):
        assert res.monotone is True


def test_replace_and_with_epsilon_do_not_warn():
    import dataclasses
    import warnings

    from exactdp.mechanisms.custom import mechanism_from_function

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for m in (exactdp.PermuteAndFlip(1, monotonic=True), exactdp.GaussianNoisyMax(1, 1, True),
                  mechanism_from_function(lambda q, e: [1], epsilon=1, monotonic=True)):
            m2 = m.with_epsilon(2) if hasattr(m, "with_epsilon") else m
            m3 = dataclasses.replace(m, sensitivity=2)
            assert m2.monotonic is True and m3.monotonic is True and m3.sensitivity == 2


def test_digits_is_the_deprecated_name_of_dps():
    from fractions import Fraction

    from exactdp.io.latex import probability_table, table
    from exactdp.printing import format_number, scores_latex

    with pytest.warns(DeprecationWarning, match=r"format_number\(digits=\.\.\.\)"):
        old = format_number(Fraction(1, 3), digits=4)
    assert old == format_number(Fraction(1, 3), dps=4) == "0.3333"
    with pytest.warns(DeprecationWarning):
        assert scores_latex([Fraction(2, 3)], digits=3).text == "(0.667)"
    with pytest.warns(DeprecationWarning):
        assert table([[Fraction(1, 7)]], ["p"], digits=3) == table([[Fraction(1, 7)]], ["p"],
                                                                   dps=3)
    d = {"PF": exactdp.PermuteAndFlip(1).distribution([0, -1])}
    with pytest.warns(DeprecationWarning):
        assert probability_table(d, digits=8) == probability_table(d, dps=8)
    with pytest.raises(TypeError, match="dps"):
        format_number(1, dps=3, digits=3)
    assert "dps" in inspect.signature(probability_table).parameters


def test_region_names_the_generator_x():
    reg = exactdp.pf_optimality_region(4, 3)
    (b,) = reg.boundaries
    # boundary of PF's region on the (4, 3) lattice: x + x^2 + x^3 = 1 (docs/lp.md)
    x = sympy.Symbol("x")
    assert b.polynomial.as_expr() == x + x**2 + x**3 - 1
    assert sympy.simplify(b.x + b.x**2 + b.x**3 - 1) == 0
    assert sympy.simplify(b.epsilon + sympy.log(b.x)) == 0
    with pytest.warns(DeprecationWarning, match=r"\.x"):
        assert b.y == b.x
    with pytest.warns(DeprecationWarning, match=r"\.x_interval"):
        assert b.y_interval == b.x_interval
    with pytest.warns(DeprecationWarning, match=r"\.x_intervals"):
        assert reg.y_intervals == reg.x_intervals
