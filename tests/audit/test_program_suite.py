"""The verification suite's search (exactdp/audit/program_suite.py).

Independent routes: the worst pairs' losses recomputed on the library's *program* (the
programs' integrator, not the SparseVector class that computes the rows), the numbers of an
independent check filed with the suite's issue (SVT1 0.0985244 on 1^10 vs 2^9 0, SVT2
0.0984191, SVT4 0.174880: strictly worse than the pattern table's 0.0885258, 0.0882304,
0.172471; check_dp's heuristic search finds the same pair), and closed forms of the release
programs (the Laplace mechanism: exactly epsilon; the histogram at the inverted scale: 1 /
epsilon; the noisy sum with half the noise: 2 epsilon).
"""

from __future__ import annotations

import mpmath
import pytest
import sympy

import exactdp
from exactdp.audit import program_suite as ps
from exactdp.audit.suite_specs import patterns
from exactdp.programs import laplace, library_release, program
from exactdp.programs import library as discrete

CLAIM = sympy.Rational(1, 10)


@pytest.fixture(scope="module")
def searched() -> dict[str, ps.Search]:
    return {n: ps.search_program(n) for n in ("svt1", "svt2", "svt4")}


@pytest.mark.parametrize(("name", "value", "table"), [
    ("svt1", "0.0985244", "0.0885258"), ("svt2", "0.0984191", "0.0882304"),
    ("svt4", "0.17488", "0.172471")])
def test_mirrored_patterns_find_the_heuristics_worst_pairs(searched, name, value, table):
    """The regression values at 10 queries, (1)^10 vs (2)^9 0, output FFFFFFFFFT: the
    mirrored "one below rest above" and check_dp's heuristic reach the same exact loss; the
    loss recomputed on the program itself (the programs' integrator) is the same number."""
    s = searched[name]
    worst = exactdp.audit.suite.worst_pair(s.found)
    assert exactdp.printing.format_number(worst.loss, 6) == value
    assert worst.pattern == "one below rest above" + ps.MIRRORED
    assert worst.output == "FFFFFFFFFT"
    assert worst.scores == (1,) * 10 and worst.neighbour == (2,) * 9 + (0,)
    heuristic = s.found[-1]
    assert heuristic.pattern == ps.HEURISTIC
    assert exactdp.exact.compare(heuristic.loss, worst.loss) == 0
    assert sympy.Float(table) < worst.loss  # strictly worse than the pattern table's worst
    own = ps.library()[name](epsilon=CLAIM, **ps.setting(name).parameters)
    assert ps.build(name) is not own and s.route == "SparseVector, equal to the program"
    same = exactdp.privacy_loss(own, worst.scores, worst.neighbour).loss
    assert exactdp.exact.compare(same, worst.loss) == 0
    # the enclosure screens out all but one pattern and one neighbour
    assert s.search == (f"8 StatDP patterns + 5 mirrored + 12 screened out ({ps.SCREENED})"
                        " + check_dp heuristic from 1111111111 (152 neighbours, 151 screened "
                        "out)")
    assert s.pairs_searched == 13 + 152 and s.queries == 10 and not s.refused


def test_pattern_pairs_mirror_monotone_and_adjacency_one():
    svt = ps.build("svt1")
    plain, mirrored = ps.pattern_pairs(svt, 4), ps.pattern_pairs(svt, 4, mirror=True)
    assert [p[1:] for p in plain] == list(patterns(4).values())
    extra = mirrored[len(plain):]
    assert all(n.endswith(ps.MIRRORED) for n, _, _ in extra)
    # a mirrored pair equal to a pattern (or to a pattern swapped) is kept once
    assert ("all above" + ps.MIRRORED) not in [n for n, _, _ in extra]
    assert ((1, 1, 1, 1), (2, 2, 2, 0)) in [(a, b) for _, a, b in extra]
    mono = ps.pattern_pairs(ps.build("svt_monotone"), 4)
    assert {n for n, _, _ in mono} == {"one below", "one above", "all above", "all below"}
    assert ps.pattern_pairs(ps.build("randomized_response"), 3) == []


def test_svt6_moves_from_the_x_shapes_input_beat_the_patterns():
    """SVT6 (half half from 1^5 0^5): 0.424914, above the patterns' 0.420032 and the 0.420393
    an independent check found; the loss recomputed on the program is the same number."""
    s = ps.search_program("svt6")
    worst = exactdp.audit.suite.worst_pair(s.found)
    assert worst.pattern == "half half" + ps.REBASED and worst.output == "FFFFFTTTTT"
    assert worst.scores == (1,) * 5 + (0,) * 5 and worst.neighbour == (2,) * 5 + (-1,) * 5
    assert exactdp.printing.format_number(worst.loss, 6) == "0.424914"
    own = ps.library()["svt6"](epsilon=CLAIM, **ps.setting("svt6").parameters)
    same = exactdp.privacy_loss(own, worst.scores, worst.neighbour).loss
    assert exactdp.exact.compare(same, worst.loss) == 0
    assert s.search.startswith("8 StatDP patterns + 7 moves from the X shape's input + 14 "
                               "screened out")
    assert len(s.found) == 1  # the only pair whose bound (an enclosure) reaches 0.424914
    assert s.search.endswith("check_dp heuristic from 1111111111 (152 neighbours, 152 "
                             "screened out)") and s.pairs_searched == 15 + 152
    # the pair's loss from the one-threshold closed forms, not the engine's 1024 runs
    assert s.route == "SparseVector's one-threshold closed forms, equal to the program"
    rebased = ps.pattern_pairs(ps.build("svt6"), 4, rebase=True)[:7]
    assert (("one above" + ps.REBASED, (1, 1, 0, 0), (2, 1, 0, 0)) in rebased
            and len(rebased) == 7)


def test_library_reads_both_registries_and_the_literature():
    lib = ps.library()
    assert list(lib)[:len(discrete.PROGRAMS)] == list(discrete.PROGRAMS)
    assert set(library_release.PROGRAMS) <= set(lib)
    assert ps.claims_private("svt1") is True and ps.claims_private("svt4") is False
    assert ps.claims_private("noisy_max_value_laplace") is False  # "the value is not private"
    assert ps.claims_private("laplace_mechanism") is True
    assert ps.setting("laplace_mechanism") == ps.SuiteSetting()
    with pytest.raises(ValueError, match="verification_suite: programs must be names from"):
        ps.build("svt9")


@pytest.mark.parametrize(("name", "loss"), [
    ("laplace_mechanism", CLAIM), ("histogram_wrong_scale", 1 / CLAIM),
    ("bad_partial_sum", 2 * CLAIM), ("histogram", CLAIM), ("partial_sum", CLAIM)])
def test_release_programs_closed_forms(name, loss):
    """Adjacency "one": check_dp's search from (1, 1, 1); the supremum of the log density
    ratio of Laplace noise of scale b moving by 1 is 1/b (attained far out)."""
    s = ps.search_program(name)
    assert s.search == "check_dp heuristic from 111 (6 neighbours)"
    assert [p.loss for p in s.found] == [loss] and s.route == "the program"


def test_release_patterns_supremum_and_refusal():
    """Report-noisy-max returning the value: n epsilon / 2 on a vs a + 1 (n = 5: 1/4); with
    exponential noise an infinite loss (the heuristic is then not run). A refused search is
    said, with its reason, and the search goes on."""
    lap = ps.search_program("noisy_max_value_laplace")
    assert max(p.loss for p in lap.found) == sympy.Rational(1, 4)
    exp = ps.search_program("noisy_max_value_exponential")
    assert any(p.loss is sympy.oo for p in exp.found)
    assert "not run: a pattern's loss is already infinite" in exp.search
    prefix = ps.search_program("prefix_sum")  # a triangular map of free noises: exact
    assert max(p.loss for p in prefix.found) == CLAIM and not prefix.refused


def test_a_row_over_its_cpu_limit_stops_and_says_so(monkeypatch):
    """A program slow at the tools' sizes (added without a setting) stops at the row's CPU
    limit; the pairs left are named, the heuristic is not run."""
    monkeypatch.setattr(ps, "ROW_LIMIT", -1.0)
    s = ps.search_program("svt1")
    assert s.found == () and s.refused == (
        "13 patterns not searched: over the row's -1 s CPU limit",)
    assert s.search.endswith("check_dp heuristic not run: over the row's -1 s CPU limit")


def test_an_undecided_sign_is_a_refusal(monkeypatch):
    def undecided(*args, **kwargs):
        raise exactdp.UndecidedSignError("pair_loss: the sign of x - y is not decided")

    monkeypatch.setattr(ps, "pair_loss", undecided)
    monkeypatch.setattr(ps, "one_threshold_loss", undecided)  # SVT5's closed-form route
    monkeypatch.setattr(ps, "check_dp", undecided)
    s = ps.search_program("svt5")
    assert s.found == () and len(s.refused) == 14
    assert s.refused[0] == "one below: refused: the sign of x - y is not decided"
    assert s.refused[-1].startswith("check_dp heuristic refused: ")


def test_refusal_drops_the_functions_name():
    assert ps.refusal(ValueError("f.privacy_loss: no closed form here")) == "no closed form here"
    assert ps.refusal(ValueError("a sentence: with a colon")) == "a sentence: with a colon"
    assert ps.refusal(ValueError("")) == "ValueError"
    assert len(ps.refusal(ValueError("g: " + "x" * 300))) <= 100


def test_settings_that_depart_from_the_tools_say_so():
    """Rows over the 1 s budget at the tools' sizes run fewer queries or skip the heuristic,
    and the row says which."""
    gap = ps.search_program("gap_svt")
    assert gap.queries == 10 and not ps.setting("gap_svt").heuristic
    assert gap.search.endswith(f"{ps.HEURISTIC} not run: over the row's 1 s CPU budget here")
    assert not ps.setting("adaptive_svt").heuristic and ps.setting("adaptive_svt").note
    discrete = ps.setting("above_threshold_discrete")
    assert discrete.queries == 10 and discrete.mirror and not discrete.heuristic
    for name in ("noisy_top_k_gap", "noisy_top_k_gap_exponential"):  # the pattern holds
        assert not ps.setting(name).heuristic and ps.setting(name).below == 2  # its worst
    adaptive = ps.setting("adaptive_svt")  # the tools' 10 queries, at c = 1
    assert adaptive.queries == 10 and adaptive.lead.endswith(ps.MIRRORED)
    assert not adaptive.mirror and adaptive.note.startswith("c = 1")
    svt34 = ps.setting("svt34_parallel")  # the tools' 10 queries, at c = 1
    assert svt34.queries == 10 and svt34.mirror and not svt34.heuristic
    assert svt34.note.startswith("c = 1")


def test_a_new_program_becomes_searchable(monkeypatch):
    """The search reads the library generically: a program without a setting is searched."""
    @program(sensitivity=1)
    def half_svt(q, epsilon, threshold=1):
        rho = laplace(2 / epsilon)
        return tuple(a + laplace(4 / epsilon) >= threshold + rho for a in q)

    monkeypatch.setattr(discrete, "PROGRAMS", {"half_svt": half_svt})
    monkeypatch.setattr(ps, "SETTINGS", {"half_svt": ps.SuiteSetting(queries=2)})
    s = ps.search_program("half_svt")
    assert s.route == "the program" and s.found
    assert s.search == "7 StatDP patterns + check_dp heuristic from 11 (8 neighbours)"


def test_release_pairs_screened_by_an_upper_bound():
    """SVT3 at 10 queries: "all above" has loss exactly 1/2; the translation bounds of the
    mixed pairs (9/20, 3/10: Lyu-Su-Li's noises shifted by the answers' moves) are below
    it, so those pairs are skipped and the worst pair is the one the full search names."""
    s = ps.search_program("svt3")
    worst = exactdp.audit.suite.worst_pair(s.found)
    assert worst.loss == sympy.Rational(1, 2) and worst.pattern == "all above"
    assert f"6 screened out ({ps.SCREENED})" in s.search and s.pairs_searched == 8
    assert len(s.found) == 2 and not s.refused
    own = ps.library()["svt3"](epsilon=CLAIM, **ps.setting("svt3").parameters)
    for pname, a, b in ps.pattern_pairs(ps.build("svt3"), 10):
        if pname not in {p.pattern for p in s.found}:
            bound = own.distribution(a).loss_upper_bound(b)
            assert bound is not None and bound < worst.loss
    assert not ps.setting("numerical_svt").screen


def test_an_infinite_loss_ends_the_pattern_search():
    """SVT5 (no query noise): "one below" already has an output of probability 0 under one
    input only; the other 12 patterns are not needed."""
    s = ps.search_program("svt5")
    assert [p.loss for p in s.found] == [sympy.oo] and s.found[0].pattern == "one below"
    assert f"12 not needed ({ps.INFINITE})" in s.search and not s.refused
    assert s.found[0].output == "FTTTTTTTTT"  # privacy_loss's first infinite output


def test_bad_adaptive_svt_row_shows_its_violation():
    """At 10 queries "all above" has loss (3 (m - 1) + 1) epsilon / 8 = 7/2 epsilon = 7/20
    (the docstring's closed form: each False before the release adds 3 epsilon / 8), above
    the claim 1/10; at 3 queries it is 7/8 epsilon, within it."""
    s = ps.search_program("bad_adaptive_svt")
    worst = exactdp.audit.suite.worst_pair(s.found)
    assert s.queries == 10 and worst.loss == sympy.Rational(3 * 9 + 1, 8) * CLAIM
    assert worst.loss == sympy.Rational(7, 20)
    assert worst.pattern == "all above" and worst.loss > CLAIM and not s.refused
    assert worst.output.startswith("the pattern (False, False, False, False, False, False, "
                                   "False, False, False, REAL)")
    own = library_release.bad_adaptive_svt(epsilon=CLAIM, threshold=1)
    assert exactdp.privacy_loss(own, (1,) * 3, (2,) * 3).loss == sympy.Rational(7, 8) * CLAIM


def test_release_heuristic_screened_finds_check_dps_worst_pair(monkeypatch):
    """GapSVT at 3 queries (its former setting): check_dp's heuristic neighbours through
    the screen find (1, 1, 1) vs (2, 2, 0), worse than every StatDP pattern; check_dp
    itself (every neighbour's exact loss, no screen) reaches the same exact loss."""
    monkeypatch.setattr(ps, "SETTINGS", {"gap_svt": ps.SuiteSetting(_GAP, 3)})
    s = ps.search_program("gap_svt")
    worst = exactdp.audit.suite.worst_pair(s.found)
    assert worst.pattern == ps.HEURISTIC and s.found[-1] is worst
    assert worst.scores == (1, 1, 1) and worst.neighbour == (2, 2, 0)
    assert all(p.loss < worst.loss for p in s.found[:-1])
    assert s.search.endswith("check_dp heuristic from 111 (25 neighbours, 23 screened out)")
    r = exactdp.check_dp(ps.build("gap_svt"), (1, 1, 1), search="heuristic")
    assert exactdp.exact.compare(r.loss, worst.loss) == 0 and r.neighbours_checked == 25


_GAP = {"threshold": 1, "c": 1}


def _gap_limit_ratio(a: tuple, b: tuple) -> mpmath.mpf:
    """GapSVT (threshold 1, c = 1, epsilon 1/10) by quadrature, from its definition: the
    limit as v -> +oo of f_a / f_b on the output (False^(m-1), v), v the released gap.
    With rho of rate l1 = eps / 2, nu_i of rate l2 = eps / 4 and F the CDF of nu,
    f_a(v) = int p(r) prod_{i<m-1} F(T + r - a_i) g(v + T + r - a_last) dr, and
    g(x) exp(l2 v) -> (l2 / 2) exp(-l2 (T + r - a_last)) (dominated convergence: p(r)
    exp(-l2 r) is integrable since l1 > l2)."""
    mpmath.mp.dps = 40
    eps = mpmath.mpf(1) / 10
    l1, l2, t = eps / 2, eps / 4, 1

    def cdf(x: mpmath.mpf) -> mpmath.mpf:
        return mpmath.exp(l2 * x) / 2 if x < 0 else 1 - mpmath.exp(-l2 * x) / 2

    def part(q: tuple) -> mpmath.mpf:
        def f(r: mpmath.mpf) -> mpmath.mpf:
            below = mpmath.fprod(cdf(t + r - x) for x in q[:-1])
            return l1 / 2 * mpmath.exp(-l1 * abs(r)) * below * mpmath.exp(-l2 * r)
        return mpmath.quad(f, sorted({-mpmath.inf, 0, mpmath.inf, *(x - t for x in q[:-1])}))

    return mpmath.exp(l2 * (a[-1] - b[-1])) * part(a) / part(b)


def test_gap_svt_row_at_ten_queries_against_quadrature():
    """GapSVT at the tools' 10 queries: the mirrored "one below rest above" is check_dp's
    worst pair, 1^10 vs 2^9 0 (the odd query last), and its exact loss is the log of the
    density ratio's limit as the released gap grows (quadrature at 40 digits, an
    independent route), above the unmirrored patterns' worst (0.0890034 on "half half")."""
    s = ps.search_program("gap_svt")
    worst = exactdp.audit.suite.worst_pair(s.found)
    assert s.queries == 10 and not s.refused
    assert worst.pattern == "one below rest above" + ps.MIRRORED
    assert (worst.scores, worst.neighbour) == ((1,) * 10, (2,) * 9 + (0,))
    assert not worst.attained and worst.output.endswith("as the value -> +oo")
    want = mpmath.log(_gap_limit_ratio(worst.scores, worst.neighbour))
    assert abs(sympy.N(worst.loss, 40) - sympy.Float(want, 40)) < 1e-30
    assert exactdp.printing.format_number(worst.loss, 6) == "0.0985001"
    assert all(p.loss < worst.loss for p in s.found if not p.pattern.endswith(ps.MIRRORED))


def _discrete_law(p: mpmath.mpf, k_max: int) -> dict[int, mpmath.mpf]:
    """The two-sided geometric law ``P(k) = (1 - p)/(1 + p) p^|k|`` on ``|k| <= k_max``."""
    c = (1 - p) / (1 + p)
    return {k: c * p ** abs(k) for k in range(-k_max, k_max + 1)}


def test_above_threshold_discrete_row_at_ten_queries_against_direct_sums():
    """AboveThreshold with discrete Laplace noise at 10 queries: the mirrored patterns hold
    the worst pair 1^10 vs 2^9 0 (check_dp's heuristic finds the same loss), and the loss
    at the witness "9 below, the last above" is the log ratio of two direct sums over the
    noises' supports (truncated where the tails weigh below exp(-100))."""
    s = ps.search_program("above_threshold_discrete")
    worst = exactdp.audit.suite.worst_pair(s.found)
    assert s.queries == 10 and not s.refused
    assert (worst.scores, worst.neighbour) == ((1,) * 10, (2,) * 9 + (0,))
    assert worst.output == "FFFFFFFFFT" and worst.attained
    with mpmath.workdps(40):
        eps = mpmath.mpf(1) / 10
        rho = _discrete_law(mpmath.exp(-eps / 2), 2000)  # DLap(2/eps)
        nu = _discrete_law(mpmath.exp(-eps / 4), 4000)  # DLap(4/eps)
        below: dict[int, mpmath.mpf] = {}  # P(nu <= n), by a running sum
        acc = mpmath.mpf(0)
        for k in range(-4000, 4001):
            acc += nu[k]
            below[k] = acc

        def prob(q: tuple) -> mpmath.mpf:
            # answer i below: q_i + nu < 1 + r, i.e. nu <= r - q_i (integers)
            return mpmath.fsum(pr * mpmath.fprod(below[r - x] for x in q[:-1])
                               * (1 - below[r - q[-1]]) for r, pr in rho.items())
        want = mpmath.log(prob(worst.scores) / prob(worst.neighbour))
    assert abs(sympy.N(worst.loss, 35) - sympy.Float(want, 35)) < 1e-28
    assert exactdp.printing.format_number(worst.loss, 6) == "0.0985309"


def test_counts_in_the_search_column_agree_in_number():
    from exactdp.audit.program_suite import _count

    assert _count(1, "neighbour") == "1 neighbour"
    assert _count(6, "neighbour") == "6 neighbours"
    assert _count(0, "StatDP pattern") == "0 StatDP patterns"


_D = 25108406941546723055343157692830665664409421777856138051584  # the brackets' 2**194


def _log(ratio: str) -> sympy.Expr:
    return sympy.log(sympy.sympify(ratio))


@pytest.mark.parametrize(("name", "scores", "neighbour", "loss"), [
    ("noisy_top_k_gap", (1,) * 10, (0, 0) + (2,) * 8, _log(
        "-4097*exp(1/2)/(-4112*exp(2/5) + 15*exp(1/10))")),
    ("noisy_top_k_gap_exponential", (1,) * 10, (0, 0) + (2,) * 8, CLAIM),
    # these two were certified brackets whose lower ends (the exact ratio at the witness,
    # rounded outward by the union's 30-bit radius: 1.9e-11 and 7.9e-12 below) were pinned
    # as 3702709599677851726450415471464940711796609785763603908573 / _D and
    # 1097609071887085221163278354456359263104710712750510367035 / _D; the Taylor-form
    # enclosures isolate every critical point, so that ratio is the exact supremum
    # 10 queries: the mirrored "one below rest above" (the odd query last), the worst pair
    # of check_dp's heuristic search too (0.337429, this exact loss: its 152 neighbours)
    ("svt34_parallel", (1,) * 10, (2,) * 9 + (0,), _log(
        "11830656694*exp(19/10)/(-2358356*exp(51/40) - 562419*exp(77/80)"
        " + 11833577469*exp(25/16))"))])
def test_screened_release_rows_keep_their_worst_pairs(name, scores, neighbour, loss):
    """The release rows whose pairs are computed only where their patterns' translation
    bounds reach the loss found (``ProgramRelease.loss_at_least``) keep the worst pair and
    loss of the full search (the values before the screen: exact where the loss has a
    closed form, the certified bracket's lower end never lower)."""
    s = ps.search_program(name)
    worst = exactdp.audit.suite.worst_pair(s.found)
    assert (worst.scores, worst.neighbour) == (scores, neighbour)
    if worst.interval is None and loss.is_Rational:  # a former bracket, exact now: its
        # lower end sat below this loss by the union's 30-bit radius (about 2e-11)
        assert loss <= sympy.N(worst.loss, 80) < loss + sympy.Rational(1, 10**9)
    elif worst.interval is None:
        assert exactdp.exact.compare(worst.loss, loss) == 0
    else:
        assert worst.loss >= loss and worst.interval[1] >= worst.loss
    assert "screened out" in s.search and not s.refused


def test_adaptive_svt_row_holds_check_dps_worst_pair_at_ten_queries():
    """AdaptiveSVT at the tools' 10 queries: the mirrored "one below rest above" (1^10 vs
    2^9 0, the odd query last), searched first (``lead``), is the worst pair of check_dp's
    heuristic search (0.0931595; the plain patterns' worst is "half half", 0.0875826); its
    loss is the full (unscreened) exact loss of that pair, and the 8 plain patterns are
    screened out below it (their translation bounds, or their patterns proved below it)."""
    s = ps.search_program("adaptive_svt")
    worst = exactdp.audit.suite.worst_pair(s.found)
    assert s.queries == 10 and not s.refused and len(s.found) == 1
    assert (worst.scores, worst.neighbour) == ((1,) * 10, (2,) * 9 + (0,))
    assert s.search.startswith("8 StatDP patterns + 1 mirrored + 8 screened out")
    full = exactdp.privacy_loss(ps.build("adaptive_svt"), worst.scores, worst.neighbour)
    assert full.certified and exactdp.exact.compare(worst.loss, full.loss) == 0
    assert exactdp.printing.format_number(worst.loss, 6) == "0.0931595"


def test_pattern_pairs_lead_comes_first():
    mech = ps.build("adaptive_svt")
    plain = ps.pattern_pairs(mech, 4, mirror=True)
    led = ps.pattern_pairs(mech, 4, mirror=True, lead="one below rest above" + ps.MIRRORED)
    assert led[0] == next(p for p in plain if p[0] == "one below rest above" + ps.MIRRORED)
    assert led[1:] == [p for p in plain if p != led[0]]  # the others in their order
    assert ps.pattern_pairs(mech, 4, mirror=True, lead="no such pattern") == plain
    alone = ps.pattern_pairs(mech, 4, lead=led[0][0])  # without mirror: it alone mirrored
    assert alone == [led[0], *ps.pattern_pairs(mech, 4)]


def _top_two_gap_density(q: tuple, g: mpmath.mpf, noise: str) -> mpmath.mpf:
    """Noisy top-2 with gap (scale b = 2k / epsilon = 40) by quadrature, from its
    definition: the density of the output (0, 1, g), ``int f(t + g - q_0) f(t - q_1)
    prod_{l >= 2} F(t - q_l) dt`` (t the second largest noisy value); for Laplace noise
    the density times ``exp(g / b)`` (its limit as g -> +oo: ``f(t + g - q_0) exp(g / b)
    -> exp(-(t - q_0) / b) / (2 b)``, dominated by that bound), ``g`` then ignored."""
    mpmath.mp.dps = 40
    b = mpmath.mpf(40)
    if noise == "exponential":
        def f(x):
            return mpmath.exp(-x / b) / b if x >= 0 else mpmath.mpf(0)

        def cdf(x):
            return 1 - mpmath.exp(-x / b) if x >= 0 else mpmath.mpf(0)

        def top(t):
            return f(t + g - q[0])
    else:
        def f(x):
            return mpmath.exp(-abs(x) / b) / (2 * b)

        def cdf(x):
            return mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2

        def top(t):
            return mpmath.exp(-(t - q[0]) / b) / (2 * b)

    def integrand(t):
        return top(t) * f(t - q[1]) * mpmath.fprod(cdf(t - x) for x in q[2:])

    cuts = sorted({*q, *(x - g for x in q)}) if noise == "exponential" else sorted(set(q))
    return mpmath.quad(integrand, [-mpmath.inf, *cuts, mpmath.inf])


@pytest.mark.parametrize("name", ["noisy_top_k_gap", "noisy_top_k_gap_exponential"])
def test_noisy_top_k_gap_rows_at_ten_queries_against_quadrature(name):
    """Noisy top-k with gap (k = 2) at the tools' 10 queries, check_dp's heuristic off:
    the pattern "2 below rest above" (1^10 vs 0 0 2^8, the released indices below the
    rest) is check_dp's worst pair (the heuristic's 152 neighbours reach the same loss),
    and its exact loss is the log density ratio by quadrature at 40 digits: with
    exponential noise exactly epsilon = 1/10 at the gap 1/2 (at most 1/10 elsewhere), with
    Laplace noise the limit as the gap grows (0.0990515, not attained)."""
    s = ps.search_program(name)
    worst = exactdp.audit.suite.worst_pair(s.found)
    assert s.queries == 10 and not s.refused and worst.pattern == "2 below rest above"
    assert (worst.scores, worst.neighbour) == ((1,) * 10, (0, 0) + (2,) * 8)
    assert s.search.startswith("8 StatDP patterns + '2 below rest above' + 8 screened out")
    a, b = worst.scores, worst.neighbour
    noise = "exponential" if name.endswith("exponential") else "laplace"
    gaps = [mpmath.mpf(1) / 2, mpmath.mpf(3), mpmath.mpf(40)]
    logs = [mpmath.log(_top_two_gap_density(a, g, noise) / _top_two_gap_density(b, g, noise))
            for g in gaps]
    if noise == "exponential":
        assert worst.loss == CLAIM and abs(logs[0] - mpmath.mpf(1) / 10) < 1e-30
        assert all(abs(x) <= mpmath.mpf(1) / 10 + 1e-30 for x in logs)
    else:
        assert abs(sympy.N(worst.loss, 40) - sympy.Float(abs(logs[0]), 40)) < 1e-30
        assert not worst.attained and worst.output.endswith("as the value -> +oo")
        assert exactdp.printing.format_number(worst.loss, 6) == "0.0990515"


def test_pattern_pairs_below_come_first():
    pairs = ps.pattern_pairs(ps.build("noisy_top_k_gap"), 4, below=2)
    assert pairs[0] == ("2 below rest above", (1, 1, 1, 1), (0, 0, 2, 2))
    assert len(pairs) == len(patterns(4)) + 1
    # at h = 1 it is StatDP's "one below rest above": kept once, under the first name
    assert len(ps.pattern_pairs(ps.build("noisy_top_k_gap"), 4, below=1)) == len(patterns(4))
