"""The verification suite (exactdp/audit/suite.py).

Values are checked against independent routes: mpmath quadrature of the defining integrals
(the sparse vector variants: tests/mechanisms/test_sparse_vector.py's quadrature; RNM-Laplace:
the integral over the winner's noise written here), ``privacy_loss`` on the same pairs, the
tools' published lower bounds (a sound lower bound lies below the exact loss) and the
literature's verdicts. The default tests run at 3 queries; the tools' 10 are ``slow``.
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath
import pytest
import sympy

import exactdp
from exactdp import SuiteRow, verification_suite
from exactdp.audit.suite import (
    PairLoss,
    build_mechanism,
    loss_growth,
    pair_loss,
    precheck,
    suite_row,
    vertex_search,
)
from exactdp.audit.suite_specs import SPECS, patterns
from exactdp.distribution import LossSupremum
from exactdp.exact import compare
from exactdp.mechanisms import Mechanism
from tests.mechanisms.test_sparse_vector import quadrature
from tests.reference import STATDP_LOSS_DOWN, STATDP_LOSS_UP

AVAILABLE = ["RNM1", "RNM2", "SVT1", "SVT2", "SVT4", "SVT5", "SVT6"]
SPEC = {s.name: s for s in SPECS}
CLAIM = sympy.Rational(1, 10)


@pytest.fixture(scope="module")
def rows() -> dict[str, SuiteRow]:
    return {r.algorithm: r for r in verification_suite(3, algorithms=AVAILABLE,
                                                       search_queries=2)}


# ---------------------------------------------------------------- independent routes
def _svt_quadrature_loss(mech, a, b) -> mpmath.mpf:
    outs = mech.distribution(a).outputs
    p = [quadrature(mech, a, o, dps=20) for o in outs]
    q = [quadrature(mech, b, o, dps=20) for o in outs]
    return max((mpmath.inf if (x == 0) != (y == 0) else abs(mpmath.log(x / y)))
               for x, y in zip(p, q, strict=True) if x or y)


def _rnm_laplace_quadrature(scores, b=20) -> list[mpmath.mpf]:
    """Pr[index i] = int f_b(x - a_i) prod_{j != i} F_b(x - a_j) dx (Laplace(b))."""
    def cdf(z):
        return mpmath.exp(z / b) / 2 if z < 0 else 1 - mpmath.exp(-z / b) / 2
    out = []
    for i, ai in enumerate(scores):
        def f(x, i=i, ai=ai):
            v = mpmath.exp(-abs(x - ai) / b) / (2 * b)
            for j, aj in enumerate(scores):
                if j != i:
                    v *= cdf(x - aj)
            return v
        out.append(mpmath.quad(f, [-mpmath.inf, *sorted(set(scores)), mpmath.inf]))
    return out


@pytest.mark.parametrize("name", ["SVT1", "SVT2", "SVT4", "SVT6"])
def test_svt_losses_match_quadrature(rows, name):
    mech = build_mechanism(SPEC[name])
    with mpmath.workdps(20):
        for p in (rows[name].pairs[-1], rows[name].worst):  # the X shape, the worst
            ref = _svt_quadrature_loss(mech, p.scores, p.neighbour)
            assert abs(mpmath.mpf(sympy.N(p.loss, 25)) - ref) < mpmath.mpf(10) ** -15


def test_svt5_is_infinite_already_at_two_queries():
    """Equal answers are answered alike; a pair that moves them apart has an output of
    probability 0 under one input (quadrature: 0 there, positive under the other)."""
    row = verification_suite(2, algorithms=["SVT5"], search_queries=2)[0]
    assert row.loss is sympy.oo and not row.holds
    mech = build_mechanism(SPEC["SVT5"])
    assert _svt_quadrature_loss(mech, row.worst.scores, row.worst.neighbour) == mpmath.inf


def test_rnm1_matches_quadrature_and_statdps_pair(rows):
    row = rows["RNM1"]
    with mpmath.workdps(20):
        for p in row.pairs[2:5]:
            a, b = _rnm_laplace_quadrature(p.scores), _rnm_laplace_quadrature(p.neighbour)
            ref = max(abs(mpmath.log(x / y)) for x, y in zip(a, b, strict=True))
            assert abs(mpmath.mpf(sympy.N(p.loss, 25)) - ref) < mpmath.mpf(10) ** -15
    assert float(row.tool_pair("StatDP").loss) == pytest.approx(STATDP_LOSS_UP, abs=1e-7)
    assert float(row.tool_pair("DP-Sniper").loss) == pytest.approx(STATDP_LOSS_DOWN, abs=1e-7)


def test_the_table_is_privacy_loss_on_the_same_pairs(rows):
    for name in AVAILABLE:
        mech = build_mechanism(SPEC[name])
        for p in (rows[name].worst, rows[name].pairs[0]):
            assert compare(exactdp.privacy_loss(mech, p.scores, p.neighbour).loss, p.loss) == 0


# ---------------------------------------------------------------- the verdicts
def test_correct_rows_hold_and_the_published_bounds_lie_below(rows):
    """At the tools' own sizes (RNM: 5 scores here too) the sampled lower bounds are below
    the exact loss on the same pair, and the exact loss is at most the claim."""
    for name in ("RNM1", "RNM2"):
        row = rows[name]
        assert row.holds and row.private and row.verdict == "private on the pairs checked"
        assert compare(row.loss, CLAIM) <= 0
        for pub in row.published:
            assert pub.lower_bound <= float(row.tool_pair(pub.tool).loss) <= 0.1
    assert rows["RNM2"].loss == CLAIM and rows["RNM2"].all_epsilon is True
    assert rows["RNM1"].all_epsilon is None
    for name in ("SVT1", "SVT2"):
        assert rows[name].holds and compare(rows[name].loss, CLAIM) < 0


def test_incorrect_rows_are_refuted_with_a_witness(rows):
    for name in ("SVT4", "SVT5", "SVT6"):
        row = rows[name]
        assert not row.holds and not row.private and row.verdict == "not private"
        assert compare(row.loss, CLAIM) > 0
        assert set(row.worst.output) <= set("TF-") and len(row.worst.output) == 3
    # SVT4 stays within Lyu-Su-Li's (1 + 6c)/4 eps = 0.175
    assert compare(rows["SVT4"].loss, sympy.Rational(7, 40)) < 0
    assert float(rows["SVT6"].loss) == pytest.approx(0.10746971052895497, abs=1e-12)


def test_svt6_loss_grows_with_the_queries(rows):
    """No bound independent of m: the worst loss rises from m = 2 to m = 3 (docs/suite.md's
    half-half values 0.07591, 0.10747)."""
    two = verification_suite(2, algorithms=["SVT6"], search_queries=None)[0]
    assert float(two.loss) == pytest.approx(0.07591, abs=5e-6)
    assert compare(two.loss, rows["SVT6"].loss) < 0


def test_loss_growth_is_the_docs_svt6_table():
    growth = loss_growth("SVT6", [1, 2, 3, 4])
    assert [m for m, _ in growth] == [1, 2, 3, 4]
    assert [round(float(p.loss), 5) for _, p in growth] == [0.02531, 0.07591, 0.10747,
                                                             0.15821]
    assert growth[3][1].scores == (1, 1, 1, 1) and growth[3][1].neighbour == (2, 2, 0, 0)
    assert float(loss_growth("SVT1", [2], "X shape")[0][1].loss) < 0.1
    for kwargs, match in [({"algorithm": "SVT9"}, "loss_growth: algorithm must be one of"),
                          ({"pattern": "diagonal"}, "loss_growth: pattern must be one of"),
                          ({"queries": [0]}, "loss_growth: queries must be a positive")]:
        args = {"algorithm": "SVT6", "queries": [1]} | kwargs
        with pytest.raises(ValueError, match=match):
            loss_growth(**args)


def test_svt3_loss_grows_linearly_on_a_vs_a_plus_d():
    """On ``a`` vs ``a + D`` ("all above") Algorithm 3's loss is m eps / (2c) (the
    pointwise bound, attained); on "half half" it is finite and non-decreasing in m."""
    above = [(m, p.loss) for m, p in loss_growth("SVT3", [1, 2, 3, 4, 5], "all above")]
    assert above == [(m, m * CLAIM / 2) for m in range(1, 6)]
    half = [p.loss for _, p in loss_growth("SVT3", [1, 2, 3, 4])]
    assert all(v.is_finite for v in half)
    assert all(compare(a, b) <= 0 for a, b in zip(half, half[1:], strict=False))
    assert compare(half[0], half[-1]) < 0


def test_vertex_search_finds_the_patterns_worst_at_small_m():
    mech = build_mechanism(SPEC["SVT4"])
    found, checked = vertex_search(mech, 3)
    assert checked == 26
    pats = [pair_loss(mech, n, a, b) for n, (a, b) in patterns(3).items()]
    assert all(compare(found.loss, p.loss) >= 0 for p in pats)
    assert isinstance(found, PairLoss) and found.pattern == "vertex search"


@dataclass(frozen=True)
class _Release(Mechanism):
    """Releases every a_i + Lap(1): the loss is the L1 distance (attained far out)."""

    output_kind = "release"
    sensitivity = sympy.Integer(1)
    monotonic = False
    optimize = "max"

    def _loss_supremum(self, sv, sv2):
        gap = sum(abs(sympy.Integer(x) - sympy.Integer(y))
                  for x, y in zip(sv.values, sv2.values, strict=True))
        return LossSupremum(gap, True, 1 if gap else 0, "every output beyond both inputs")


def test_the_density_route_reads_the_density_hook():
    """Mechanisms that release real values (output kind "release") go through
    privacy_loss and their _loss_supremum hook, in the pairs and in the vertex search alike."""
    mech = _Release()
    p = pair_loss(mech, "half half", *patterns(4)["half half"])
    assert p.loss == 4 and p.attained and p.output == "every output beyond both inputs"
    found, checked = vertex_search(mech, 2)
    assert checked == 8 and found.loss == 2 and found.scores == (1, 1)
    assert found.neighbour in ((0, 0), (0, 2), (2, 0), (2, 2))


# ---------------------------------------------------------------- the result protocol
def test_result_protocol(rows):
    row = rows["SVT6"]
    assert repr(row).startswith("SuiteRow(holds=False, loss=0.10747")
    assert row.value == row.loss and float(row) == pytest.approx(0.10747, abs=1e-5)
    text = row.summary()
    assert "vertex search at m = 2" in text and "DP-Sniper: eps 0.2742" in text
    assert row._repr_latex_().startswith("$")
    assert row.witness == str(row.worst) and "loss 0.10747 at" in row.witness
    assert row.shortfall("DP-Sniper") == pytest.approx(float(row.loss) - 0.27204, abs=1e-5)
    assert row.shortfall("nobody") is None and row.tool_pair("nobody") is None
    assert rows["SVT5"].shortfall("StatDP") == float("inf")
    assert row.queries == 3 and row.search_queries == 2 and row.neighbours_checked == 8
    assert row.seconds > 0 and row.search_seconds > 0
    assert "RNM2" in rows and rows["RNM2"].summary().count("certify_dp") == 1


def test_suite_row_and_precheck_directly():
    row = suite_row(SPEC["RNM2"], 10, None)
    assert row.queries == 5 and row.search is None and row.neighbours_checked == 0
    precheck(SPEC["SVT1"], 3)  # no error
    with pytest.raises(ValueError, match="verification_suite: SVT6 on 13 queries: Sparse"):
        precheck(SPEC["SVT6"], 13)


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("kwargs,match", [
    ({"queries": 0}, "verification_suite: queries must be a positive integer, got 0"),
    ({"algorithms": ["RNM9"]}, "verification_suite: algorithms must be names from RNM1"),
    ({"algorithms": "RNM1"}, "verification_suite: algorithms must be a non-empty list"),
    ({"algorithms": []}, "verification_suite: algorithms must be a non-empty list"),
    ({"search_queries": 7}, "verification_suite: search_queries must be an integer in 1..6"),
])
def test_bad_input_is_one_line_error(kwargs, match):
    with pytest.raises(ValueError, match=match):
        verification_suite(**kwargs)


def test_too_many_queries_refuse_at_once():
    import time
    start = time.process_time()
    with pytest.raises(ValueError, match="SVT6 on 20 queries: .*answer sequences"):
        verification_suite(20, algorithms=["RNM1", "SVT6"])
    assert time.process_time() - start < 2


# ---------------------------------------------------------------- rows of the other branches
def test_rnm3_supremum_is_attained_on_the_tools_pair():
    """On (1)^5 vs (2)^5 (StatDP's "all above") with Laplace(b = 2/eps) noise the density
    ratio of the noisy maximum is exactly e^{5/b} = e^{1/4} at every value v <= 1 (both
    inputs in the left tails): the supremum n eps / 2 is attained, not only approached."""
    row = verification_suite(algorithms=["RNM3"], search_queries=None)[0]
    p = next(x for x in row.pairs if x.pattern == "all above")
    assert p.loss == sympy.Rational(1, 4) and p.attained
    b = mpmath.mpf(20)

    def density(v, a):  # max of 5 i.i.d. a + Lap(b): 5 g(v - a) G(v - a)^4
        z = v - a
        g = mpmath.exp(-abs(z) / b) / (2 * b)
        cdf = mpmath.exp(z / b) / 2 if z < 0 else 1 - mpmath.exp(-z / b) / 2
        return 5 * g * cdf ** 4

    with mpmath.workdps(30):
        for v in (mpmath.mpf(1), mpmath.mpf(-3)):
            assert abs(mpmath.log(density(v, 1) / density(v, 2)) - mpmath.mpf(1) / 4) < 1e-25
        assert mpmath.log(density(mpmath.mpf(3), 1) / density(mpmath.mpf(3), 2)) < 0.25
    assert not row.holds and compare(row.loss, sympy.Rational(1, 4)) >= 0
    statdp = row.tool_pair("StatDP")
    assert statdp is p  # StatDP's 0.2001 was on this pair
    for pub in row.published:
        assert pub.lower_bound <= float(row.tool_pair(pub.tool).loss)


def test_rnm4_is_infinite_on_the_tools_pair():
    """Issue 24: values reachable under (2)^5 only (exponential noise is >= 0)."""
    row = verification_suite(algorithms=["RNM4"], search_queries=None)[0]
    assert row.tool_pair("DP-Sniper").loss is sympy.oo and row.loss is sympy.oo
    assert not row.holds and row.tool_pair("DP-Sniper").output


def test_svt3_is_finite_at_fixed_m_and_grows():
    small = verification_suite(2, algorithms=["SVT3"], search_queries=None)[0]
    larger = verification_suite(3, algorithms=["SVT3"], search_queries=None)[0]
    assert small.loss.is_finite and larger.loss.is_finite
    assert compare(small.loss, larger.loss) < 0 and not larger.private


def test_numerical_svt_holds_on_the_pairs_checked():
    row = verification_suite(3, algorithms=["NumericalSVT"], search_queries=2)[0]
    assert row.holds and compare(row.loss, CLAIM) <= 0 and row.search is not None


def test_the_whole_suite_runs_at_small_m():
    rows = verification_suite(3, search_queries=None)
    assert [r.algorithm for r in rows] == [s.name for s in SPECS]
    # at m = 3 every incorrect row but SVT3 (whose loss grows with m) is already refuted
    assert [r.holds for r in rows if r.algorithm != "SVT3"] == [
        s.private for s in SPECS if s.name != "SVT3"]


# ---------------------------------------------------------------- the tools' sizes
@pytest.mark.slow
def test_correct_svt_rows_at_the_tools_ten_queries():
    for row in verification_suite(10, algorithms=["SVT1", "SVT2"], search_queries=None):
        assert row.holds
        for pub in row.published:
            assert pub.lower_bound <= float(row.tool_pair(pub.tool).loss) <= 0.1


def test_worst_prefers_an_attained_loss_among_exact_ties():
    """RNM4: every pattern is infinite; the witness is an event of positive probability
    under one input only, not a family of values approaching it."""
    from exactdp.audit.suite import worst_pair

    near = PairLoss("one below", (1,), (0,), sympy.oo, "values v -> 1", False)
    event = PairLoss("one above", (1,), (2,), sympy.oo, "values v in [1, 2)", True)
    assert worst_pair([near, event]) is event and worst_pair([event, near]) is event
    assert worst_pair([near, PairLoss("x", (1,), (2,), sympy.Integer(1), "o")]) is near


def test_svt3_pair_with_no_closed_form_gives_its_certified_interval():
    """Answers moving both ways (the X shape at m = 4): privacy_loss refuses with a bracket;
    the suite keeps it as the pair's interval, the lower end as its loss."""
    from exactdp.mechanisms.sparse_vector_loss import LossBracketError

    mech = build_mechanism(SPEC["SVT3"])
    a, b = patterns(4)["X shape"]
    with pytest.raises(LossBracketError) as info:
        exactdp.privacy_loss(mech, a, b)
    p = pair_loss(mech, "X shape", a, b)
    assert p.interval == (info.value.lower, info.value.upper) and p.loss == info.value.lower
    assert p.upper == sympy.Rational(3, 20) and compare(p.loss, p.upper) < 0
    assert compare(p.loss, sympy.Rational(149, 1000)) > 0  # 0.149768 at (F, F, v, -)
    assert "loss in [0.149768, 0.15]" in str(p) and "no closed form" in str(p)
    # the pointwise bound of the pair (the X shape moves every answer by 1): m eps / (2c)
    assert p.upper <= 4 * CLAIM / 2
