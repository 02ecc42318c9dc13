"""Which patterns the release loss computes (exactdp.programs.release_loss_price): the
pruning test against exact logarithms, and the cells ahead against a closed form."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

from exactdp.exact import flint_prec
from exactdp.programs.release_loss_price import Ahead, reaches
from exactdp.programs.release_select import Candidate
from exactdp.programs.runs import REAL

F = Fraction
R = sympy.Rational


def _exact(f, g):
    return Candidate((sympy.sympify(f), sympy.sympify(g)), None, 0, True, "here")


def test_reaches_decides_the_log_ratio_against_the_bound_exactly():
    three = _exact(3, 1)  # |ln 3| = 1.0986...
    assert reaches(three, R(1)) and not reaches(three, R(11, 10))
    assert reaches(three, sympy.log(3))  # equal: decided by the exact comparison
    assert reaches(_exact(1, 3), sympy.log(3))  # |ln 1/3|: the same
    assert not reaches(_exact(1, 3), sympy.log(3) + R(1, 10**30))
    assert reaches(Candidate(None, None, 1, True, "one input only"), R(10**6))


def test_the_cells_ahead_give_their_largest_end_as_a_lower_bound():
    """A pattern whose cell (0, 1) carries L = ln((e^v + 2) / (e^v + 1)): its end v = 0
    gives ln(3/2); the one of the same bound after it is fetched, and a bound reached by
    the loss found fetches nothing."""
    f = {(F(1), F(0)): (F(1),), (F(0), F(0)): (F(2),)}
    g = {(F(1), F(0)): (F(1),), (F(0), F(0)): (F(1),)}
    pieces = [(f, g, F(1), F(0), F(1), {})]

    class Dist:  # three patterns: two release one value, the last none
        keys = ("a", "b", "c")
        outputs = ((REAL,), (REAL,), ())
        runs: dict = {"a": [], "b": [], "c": []}

    ahead = Ahead(lambda d, o, key, func: (sympy.Integer(1), pieces))
    ahead.fetch(Dist, Dist, [("b", R(1)), ("c", R(1))], R(1), None, "t")
    assert list(ahead.cells) == ["b"]
    with flint_prec(64):
        assert abs(float(ahead.level(None).mid()) - float(sympy.log(R(3, 2)))) < 1e-15
    done = Ahead(lambda *a: (sympy.Integer(1), pieces))
    done.fetch(Dist, Dist, [("b", R(1))], R(1), _exact(3, 1), "t")  # ln 3 >= 1: reached
    assert not done.cells and not done.lows
    signed = Ahead(lambda *a: (sympy.Integer(1), pieces))
    signed.fetch(Dist, Dist, [("b", R(1))], R(1), None, "t", sign=1)
    assert not signed.cells


def _pair(prog, a, b):
    return prog.distribution(a), prog.distribution(b)


def test_a_pattern_the_plane_declines_pays_the_search_price():
    """AdaptiveSVT c = 2 at 3 answers: ``(False, REAL, REAL)`` has four runs, not all the
    plane's (plane_shape of both inputs), so the route declines it and the search runs
    (0.3 s CPU): priced per run at the plane's 23 s before, the search's now; a pattern
    the plane takes (GapSVT c = 2) keeps the plane's price."""
    from exactdp.programs import library_release as L
    from exactdp.programs.release_cost import loss_seconds
    from exactdp.programs.release_loss_price import pattern_seconds
    from exactdp.programs.release_two import plane_shape

    d, o = _pair(L.adaptive_svt(epsilon=1, threshold=0, c=2), [0, 0, 0], [0, 0, 1])
    key = next(k for k, p in zip(d.keys, d.outputs, strict=True) if p == (False, REAL, REAL))
    runs_p, runs_q = d.runs[key], o.runs[key]
    assert not plane_shape(runs_p, runs_q)
    assert pattern_seconds(runs_p, runs_q) == sum(loss_seconds(r, False) for r in runs_p)
    assert 20 < sum(map(loss_seconds, runs_p)) and pattern_seconds(runs_p, runs_q) < 2
    g, h = _pair(L.gap_svt(epsilon=1, threshold=1, c=2), [1, 1, 0, 0], [0, 0, 1, 1])
    two = [k for k, p in zip(g.keys, g.outputs, strict=True) if p.count(REAL) == 2
           and k in h.runs and plane_shape(g.runs[k], h.runs[k])]
    assert two and all(pattern_seconds(g.runs[k], h.runs[k]) == sum(
        map(loss_seconds, g.runs[k])) for k in two)


def test_a_one_value_pattern_pays_its_cells_first():
    from exactdp.programs import library_release as L
    from exactdp.programs.integrate import run_cost
    from exactdp.programs.release_cost import ONE_VALUE_SECONDS, loss_seconds
    from exactdp.programs.release_loss_price import cells_seconds

    d = L.bad_adaptive_svt(epsilon=R(1, 10), threshold=1).distribution([1] * 10)
    runs = max((d.runs[k] for k, p in zip(d.keys, d.outputs, strict=True)
                if p.count(REAL) == 1), key=lambda rs: sum(map(loss_seconds, rs)))
    units = sum(len(r.draws) + len(r.constraints) for r in runs)
    assert cells_seconds(runs) == sum(run_cost(r) for r in runs) + 1e-4 * units + (
        ONE_VALUE_SECONDS * len(runs))
    assert cells_seconds(runs) < 0.05 < 2 < sum(map(loss_seconds, runs))  # 0.04 s CPU


def test_the_critical_search_is_priced_by_its_cells_terms():
    from exactdp.programs.release_loss_price import CRITICAL_TERM_SECONDS, critical_seconds

    f = {(F(k), F(0)): (F(1),) for k in range(3)}
    g = {(F(k), F(1)): (F(1), F(2)) for k in range(5)}
    cell = (f, g, F(1), None, F(0), {})
    assert critical_seconds([cell, cell]) == pytest.approx(CRITICAL_TERM_SECONDS * 2 * 3 * 5)
    assert critical_seconds([(f, {}, F(1), None, None, {})]) == 0


def _meter(spent=0.0):
    from time import process_time

    from exactdp.programs.release_loss_price import Meter

    return Meter("loss", {"a": R(1), "b": R(1, 2), "c": None},
                 {"a": 0.5, "b": 9.0, "c": 1.0}, {"a": 3.0, "b": 0.0, "c": 0.0},
                 {"a": 1, "b": 2, "c": 2}, start=process_time() - spent)


def test_the_meter_prices_the_patterns_left_above_the_loss_found():
    from exactdp.programs.release_loss_price import price_level

    m = _meter()
    assert m.left(["a", "b", "c"], [], None) == 13.5
    assert m.left(["b", "c"], ["a"], 0.75) == 3.0 + 1.0  # b's bound 1/2 reached: skipped
    half = _exact(sympy.exp(R(1, 2)), 1)  # |ln| = 1/2: reaches b's bound
    assert abs(price_level(half) - 0.5) < 1e-15 and price_level(None) is None
    assert m.left(["b"], [], price_level(half)) == 0.0


def test_the_meter_prints_one_line_once_the_loss_runs_long(capsys):
    """No line for a loss within PROBE_SECONDS whose next step stays within LINE_SECONDS;
    a line (once) when the loss has run PROBE_SECONDS with more than LINE_SECONDS left, or
    before a step that alone passes it."""
    m = _meter()
    every = [("a",), ("b",), ("c",)], 0, [], 0
    m.check(*every, None, 0.5)  # 13.5 s left, but nothing spent: wait
    assert capsys.readouterr().err == ""
    m.check(*every, None, 5.5)  # this step alone passes 5 s
    assert capsys.readouterr().err == "loss: started, about 14 s CPU estimated\n"
    m.check(*every, None, 5.5)
    assert capsys.readouterr().err == ""  # once
    late = _meter(spent=2.0)
    late.check([("c",)], 0, [], 0, None, 0.1)  # 3 s in all: no line
    late.check([("b",), ("c",)], 0, [], 0, None, 0.1)  # priced again a quarter second on
    assert capsys.readouterr().err == ""
    late.again = 0.0
    late.check([("b",), ("c",)], 0, [], 0, None, 0.1)  # 12 s in all
    assert capsys.readouterr().err == "loss: started, about 12 s CPU estimated\n"


def test_the_plane_line_prices_the_open_two_value_patterns(capsys):
    """The plane route on two gaps starts: the seconds spent, the patterns left, and its
    price a pattern for each open one releasing two values, at most its budget (noisy
    top-k with gap, k = 3, 1^5 vs 2 0 2 0 1: 33 s priced, 20.6 s CPU; its budget said
    78 s)."""
    m = _meter(spent=1.0)
    m.plane([("b",), ("c",)], 0, _exact(sympy.exp(R(3, 4)), 1), 8.0, 60.0)  # b reached
    err = capsys.readouterr().err  # 1 s spent, c's 1 s, the plane's 8 s on c
    assert err == "loss (the plane route on two gaps): started, about 10 s CPU estimated\n"
    m.check([("c",)], 0, [], 0, None, 50.0)
    assert capsys.readouterr().err == ""  # the plane's line was the loss's
    capped = _meter()
    capped.plane([("a",), ("b",), ("c",)], 0, None, 100.0, 60.0)
    assert "about 74 s" in capsys.readouterr().err  # 13.5 + min(60, 2 * 100)


def test_pairs_whose_first_patterns_settle_the_rest_print_no_line(capsys):
    """The brief's false alarms (docs/benchmarks.md): the suite row of the bad AdaptiveSVT
    (0.27 s CPU, "about 10 s" before), AdaptiveSVT c = 2 at 3 answers (0.9 s, "about 64
    s") and GapSVT c = 2 at 12 answers (0.86 s, "about 55 s") print nothing now, while
    the price of every run still stands for the refusal (upper-bound-ish)."""
    import exactdp
    from exactdp.programs import library_release as L

    cases = [(L.bad_adaptive_svt(epsilon=R(1, 10), threshold=1), [1] * 10, [2] * 10, 9),
             (L.adaptive_svt(epsilon=1, threshold=0, c=2), [0, 0, 0], [0, 0, 1], 60),
             (L.gap_svt(epsilon=1, threshold=1, c=2), [1] * 6 + [0] * 6, [0] * 6 + [1] * 6,
              30)]
    for m, a, b, before in cases:
        assert m.distribution(a).loss_seconds("t") > before
        exactdp.privacy_loss(m, a, b)
        assert capsys.readouterr().err == "", m


def test_the_one_above_rest_below_pair_needs_no_critical_search(capsys):
    """The bad AdaptiveSVT's "one above rest below" pair (1^10 vs 2 0^9): its top
    pattern's critical points took 17.9-21 s CPU, priced 9.6 s in all; its one-value
    patterns are now proved below the loss found first (release_below's second-order
    form), so no critical search runs: the same loss, 11/40 (the session's main before:
    0.275, exact 11/40), in about 0.5 s CPU and without a start line."""
    import time

    import exactdp
    import exactdp.programs.release_loss as M
    from exactdp.programs import library_release as L

    calls = []
    real = M._one_value_critical

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    M._one_value_critical = counted
    try:
        m = L.bad_adaptive_svt(epsilon=R(1, 10), threshold=1)
        start = time.process_time()
        loss = exactdp.privacy_loss(m, [1] * 10, [2] + [0] * 9)
        assert time.process_time() - start < 5  # CPU seconds (0.5 measured, 18-21 before)
    finally:
        M._one_value_critical = real
    assert loss.loss == R(11, 40) and loss.interval is None and not calls
    assert capsys.readouterr().err == ""


def test_a_pattern_bounded_by_0_is_priced_as_skipped():
    """A translation bound 0 (equal densities: AdaptiveSVT c = 2's patterns whose released
    gaps come after the differing answer) is reached by any candidate found before it:
    its price does not count, even before a loss is found."""
    from exactdp.programs.release_loss_price import Meter

    m = Meter("loss", {"a": R(0), "b": R(1, 2)}, {"a": 9.0, "b": 1.0}, {"a": 0.0, "b": 0.0},
              {"a": 2, "b": 2})
    assert m.left(["a", "b"], [], None) == 1.0 and m.left(["a", "b"], [], 0.25) == 1.0


def test_the_refusal_prices_each_pattern_of_the_pair():
    """pair_seconds: pattern_seconds of each common pattern, loss_seconds of a pattern of
    the first input alone; with the pair's distributions, the first pattern of each class
    alone (representatives: what the loss reads). The refusal's estimate
    (ReleaseProgramMechanism._estimate) is that sum (AdaptiveSVT c = 2 at 3 answers: 63 s
    per run, 18.5 s per pattern, 17.9 s per class, 0.9 s CPU; GapSVT c = 2 at 12 answers:
    36.6 s per pattern, 8.6 s per class, 0.86 s CPU)."""
    from exactdp.programs import library_release as L
    from exactdp.programs.release_classes import representatives
    from exactdp.programs.release_cost import loss_seconds
    from exactdp.programs.release_loss_price import pair_seconds, pattern_seconds
    from exactdp.scores import as_scores

    m = L.adaptive_svt(epsilon=1, threshold=0, c=2)
    d, o = _pair(m, [0, 0, 0], [0, 0, 1])
    runs, other = m.trace(d.scores).runs, m.trace(o.scores).runs
    want = sum(pattern_seconds(d.runs[k], o.runs[k]) if k in o.runs else
               sum(map(loss_seconds, d.runs[k])) for k in d.keys)
    assert pair_seconds(runs, other) == pytest.approx(want, rel=1e-12)
    assert 15 < want < 25 < 60 < sum(map(loss_seconds, runs))
    assert pair_seconds(runs, []) == pytest.approx(sum(map(loss_seconds, runs)), rel=1e-12)
    g = L.gap_svt(epsilon=1, threshold=1, c=2)
    a, b = [1] * 6 + [0] * 6, [0] * 6 + [1] * 6
    d, o = _pair(g, a, b)
    kept = representatives(d, o)[0].keys
    assert len(kept) == 19 and len(d.keys) == 79
    runs, other = g.trace(d.scores).runs, g.trace(o.scores).runs
    classes = sum(pattern_seconds(d.runs[k], o.runs[k]) for k in kept)
    assert pair_seconds(runs, other, (d, o)) == pytest.approx(classes, rel=1e-12)
    assert 5 < classes < 15 < 30 < pair_seconds(runs, other)
    est, _ = g._estimate(as_scores(a), as_scores(b))
    assert est.seconds == pytest.approx(classes, rel=1e-12)  # no released maximum
