"""The pairs of the tools' suite (exactdp/audit/suite.py): pair_loss on StatDP's patterns.

The tools' eleven algorithms (RNM1-RNM4, SVT1-SVT6, the numerical SVT;
:data:`~exactdp.audit.suite_specs.SPECS`) on StatDP's patterns at a small number of queries,
checked against independent routes: mpmath quadrature of the defining integrals (the sparse
vector variants: tests/mechanisms/test_sparse_vector.py's quadrature; RNM-Laplace: the
integral over the winner's noise written here), the tools' published lower bounds (a sound
lower bound lies below the exact loss) and the literature's verdicts. The suite itself (every
program of the library) is tests/audit/test_verification.py's.
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath
import pytest
import sympy

import exactdp
from exactdp.audit import suite as S
from exactdp.audit.suite import (
    PairLoss,
    build_mechanism,
    loss_growth,
    output_text,
    pair_loss,
    worst_pair,
)
from exactdp.audit.suite_specs import SPECS, pattern_pair, patterns
from exactdp.distribution import LossSupremum
from exactdp.exact import compare
from exactdp.mechanisms import Mechanism
from exactdp.programs import library_release as L
from exactdp.programs.release_tidy import quick
from tests.mechanisms.test_sparse_vector import quadrature
from tests.reference import STATDP_LOSS_DOWN, STATDP_LOSS_UP

AVAILABLE = ["RNM1", "RNM2", "SVT1", "SVT2", "SVT4", "SVT5", "SVT6"]
SPEC = {s.name: s for s in SPECS}
CLAIM = sympy.Rational(1, 10)


@dataclass(frozen=True)
class Pairs:
    """One algorithm's exact losses on StatDP's patterns (the old rows' numbers)."""

    name: str
    queries: int
    pairs: tuple[PairLoss, ...]

    @property
    def worst(self) -> PairLoss:
        return worst_pair(self.pairs)

    @property
    def loss(self) -> sympy.Expr:
        return self.worst.loss

    @property
    def holds(self) -> bool:
        return all(compare(p.upper, CLAIM) <= 0 for p in self.pairs)

    def tool_pair(self, tool: str) -> PairLoss | None:
        """The pair the tool reported (its pattern at these queries)."""
        pub = next((p for p in SPEC[self.name].published() if p.tool == tool), None)
        if pub is None:
            return None
        pair = pattern_pair(pub.pattern, self.queries)
        return next(p for p in self.pairs if (p.scores, p.neighbour) == pair)


def pattern_losses(name: str, m: int = 3) -> Pairs:
    mech = build_mechanism(SPEC[name])
    m = SPEC[name].queries or m
    return Pairs(name, m, tuple(pair_loss(mech, n, a, b) for n, (a, b) in patterns(m).items()))


@pytest.fixture(scope="module")
def rows() -> dict[str, Pairs]:
    return {name: pattern_losses(name) for name in AVAILABLE}


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
    row = pattern_losses("SVT5", 2)
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
        assert row.holds and SPEC[name].private
        assert compare(row.loss, CLAIM) <= 0
        for pub in SPEC[name].published():
            assert pub.lower_bound <= float(row.tool_pair(pub.tool).loss) <= 0.1
    assert rows["RNM2"].loss == CLAIM
    mech = build_mechanism(SPEC["RNM2"])  # permute-and-flip: every epsilon on every pattern
    assert all(exactdp.certify_dp(mech, p.scores, p.neighbour).holds for p in rows["RNM2"].pairs)
    for name in ("SVT1", "SVT2"):
        assert rows[name].holds and compare(rows[name].loss, CLAIM) < 0


def test_incorrect_rows_are_refuted_with_a_witness(rows):
    for name in ("SVT4", "SVT5", "SVT6"):
        row = rows[name]
        assert not row.holds and not SPEC[name].private
        assert compare(row.loss, CLAIM) > 0
        assert set(row.worst.output) <= set("TF-") and len(row.worst.output) == 3
    # SVT4 stays within Lyu-Su-Li's (1 + 6c)/4 eps = 0.175
    assert compare(rows["SVT4"].loss, sympy.Rational(7, 40)) < 0
    assert float(rows["SVT6"].loss) == pytest.approx(0.10746971052895497, abs=1e-12)


def test_svt6_loss_grows_with_the_queries(rows):
    """No bound independent of m: the worst loss rises from m = 2 to m = 3 (docs/suite.md's
    half-half values 0.07591, 0.10747)."""
    two = pattern_losses("SVT6", 2)
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
    privacy_loss and their _loss_supremum hook."""
    mech = _Release()
    p = pair_loss(mech, "half half", *patterns(4)["half half"])
    assert p.loss == 4 and p.attained and p.output == "every output beyond both inputs"
    assert pair_loss(mech, "one above", (1, 1), (2, 1)).loss == 1


# ---------------------------------------------------------------- rows of the other branches
def test_rnm3_supremum_is_attained_on_the_tools_pair():
    """On (1)^5 vs (2)^5 (StatDP's "all above") with Laplace(b = 2/eps) noise the density
    ratio of the noisy maximum is exactly e^{5/b} = e^{1/4} at every value v <= 1 (both
    inputs in the left tails): the supremum n eps / 2 is attained, not only approached."""
    row = pattern_losses("RNM3")
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
    for pub in SPEC["RNM3"].published():
        assert pub.lower_bound <= float(row.tool_pair(pub.tool).loss)


def test_rnm4_is_infinite_on_the_tools_pair():
    """Issue 24: values reachable under (2)^5 only (exponential noise is >= 0)."""
    row = pattern_losses("RNM4")
    assert row.tool_pair("DP-Sniper").loss is sympy.oo and row.loss is sympy.oo
    assert not row.holds and row.tool_pair("DP-Sniper").output


def test_numerical_svt_holds_on_the_patterns():
    row = pattern_losses("NumericalSVT", 3)
    assert row.holds and compare(row.loss, CLAIM) <= 0


def test_worst_prefers_an_attained_loss_among_exact_ties():
    """RNM4: every pattern is infinite; the witness is an event of positive probability
    under one input only, not a family of values approaching it."""
    near = PairLoss("one below", (1,), (0,), sympy.oo, "values v -> 1", False)
    event = PairLoss("one above", (1,), (2,), sympy.oo, "values v in [1, 2)", True)
    assert worst_pair([near, event]) is event and worst_pair([event, near]) is event
    assert worst_pair([near, PairLoss("x", (1,), (2,), sympy.Integer(1), "o")]) is near


def test_pairs_that_were_certified_brackets_are_exact_inside_them():
    """Pairs that were certified brackets are exact now, inside them. The X shape at m = 4,
    c = 1, was such a bracket ([0.149768, 0.15]); its critical points are isolated now
    (Taylor forms) and its loss is exact, inside it. So is SVT3's X shape at c = 2 and 10
    queries (was [0.174829, 0.175]): its released values are coupled only through their
    least."""
    mech = build_mechanism(SPEC["SVT3"])
    a, b = patterns(4)["X shape"]
    exact = exactdp.privacy_loss(mech, a, b)
    assert exact.interval is None and exact.attained
    assert sympy.Rational(149768, 10**6) < exact.value <= sympy.Rational(3, 20)
    from exactdp.programs.library_release import gap_svt, svt3

    two = svt3(epsilon=sympy.Rational(1, 10), threshold=1, c=2)
    x = pair_loss(two, "X shape", (1,) * 5 + (0,) * 5, (0,) * 5 + (1,) * 5)
    assert x.interval is None and compare(x.loss, x.upper) == 0
    assert sympy.Rational(174828, 10**6) < x.loss < sympy.Rational(7, 40)
    # GapSVT with c = 2 (two released gaps, each carrying the threshold noise) was the
    # bracket [0.458749, 0.5]; exact over the plane's faces now (release_two): its pair
    # loss has no interval, the supremum approached as both gaps grow
    gap = gap_svt(epsilon=1, threshold=1, c=2)
    a, b = (1, 1, 0, 0), (0, 0, 1, 1)
    sup = exactdp.privacy_loss(gap, a, b)
    assert sup.interval is None and not sup.attained
    p = pair_loss(gap, "X shape", a, b)
    assert p.interval is None and compare(p.loss, sympy.Rational(1, 2)) < 0
    assert sympy.Rational(458748, 10**6) < p.loss < sympy.Rational(458750, 10**6)


def test_a_program_returning_integers_names_its_output_by_itself():
    """A program whose outputs are integers: the loss's output is the integer released,
    never an index into the outputs (pair_loss raised IndexError on 10 past (10, 11, 12))."""
    from exactdp.programs.draws import discrete_laplace
    from exactdp.programs.language import program

    @program(sensitivity=1, adjacency="one", counts=("n",))
    def shifted_count(q, epsilon, n):
        """A count plus two-sided geometric noise, clamped to [0, n], released as 10 + it."""
        return min(max(q[0] + discrete_laplace(1 / epsilon), 0), n) + 10

    m = shifted_count(epsilon=1, n=2)
    assert m.output_kind == "sequence" and m.distribution((0,)).outputs == (10, 11, 12)
    p = pair_loss(m, "up", (0,), (1,))
    out = int(p.output.removeprefix("output "))
    assert p.output == f"output {out}" and out in (10, 12)
    # independent route: the closed form of the clamped geometric law, p = e^-1:
    # P(10 | 0) = 1/(1+p), P(10 | 1) = p/(1+p); P(12 | 0) = p/(1+p), P(12 | 1) = 1/(1+p)
    assert p.loss == 1
    a, b = m.distribution((0,)), m.distribution((1,))
    i = a.outputs.index(out)
    ratio = sympy.simplify(a.probabilities[i] / b.probabilities[i])
    assert sympy.simplify(sympy.Abs(sympy.log(ratio)) - 1) == 0
    # an index is read as one, a named output as itself
    assert output_text(m, (0,), 0) == "output 10"
    assert output_text(m, (0,), 0, named=True) == "output 0"


def test_named_loss_gives_the_worst_pair_the_closed_form_of_a_search_outside_quick(
        monkeypatch):
    """GapSVT on (1, 1) vs (2, 0): inside the quick block the loss is a reduced ratio of
    the same value; named_loss gives back the form privacy_loss gives outside it, and
    where the quick form is ambiguous computes the pair again."""
    m = L.gap_svt(epsilon=1, threshold=1)
    plain = S.pair_loss(m, "p", (1, 1), (2, 0))
    with quick():
        fast = S.pair_loss(m, "p", (1, 1), (2, 0))
        low = S.pair_loss(m, "q", (1, 1), (1, 1))
    assert fast.loss != plain.loss  # another form (compare cannot tell two forms equal)
    assert abs(sympy.N(fast.loss - plain.loss, 50)) < sympy.Float("1e-45")
    named = S.named_loss(m, [low, fast, fast])
    assert named[0] is low and named[1].loss == named[2].loss == plain.loss == sympy.log(
        11 * sympy.exp(sympy.Rational(3, 2)) / (-sympy.exp(sympy.Rational(1, 2)) + 12 * sympy.E))
    monkeypatch.setattr(S, "tidy_loss", lambda loss: None)  # ambiguous: computed again
    assert S.named_loss(m, [low, fast])[1].loss == plain.loss
    assert S.named_loss(m, []) == []
