"""Choosing the supremum among a release's candidates: exact comparisons of log ratios of
exponential sums, infinite candidates first, brackets with outward ends. Independent
route: the logs by hand (ln 2, ln 3, ...) and mpmath at 50 digits."""

from __future__ import annotations

import flint
import mpmath
import sympy

from exactdp.programs.release_select import (
    Candidate,
    abs_ball,
    hull_ends,
    kept,
    larger,
    log_sign,
    select,
    signed_ball,
)

E = sympy.exp


def exact(f, g, witness="w", attained=True):
    return Candidate((sympy.sympify(f), sympy.sympify(g)), None, 0, attained, witness)


def test_signs_and_sizes_of_exact_candidates():
    assert log_sign(exact(2, 1)) == 1 and log_sign(exact(1, 3)) == -1
    assert log_sign(exact(E(sympy.Rational(1, 2)), E(sympy.Rational(1, 2)))) == 0
    # |ln 1/3| = ln 3 > ln 2 = |ln 2/1|
    assert larger(exact(1, 3), exact(2, 1)) == 1 and larger(exact(2, 1), exact(1, 3)) == -1
    # e^(1/2) + e^(-1/2) against e^(-1/2) (e + 1), unexpanded: equal, decided exactly
    h = sympy.Rational(1, 2)
    assert larger(exact(E(h) + E(-h), 1),
                  exact(sympy.Mul(E(-h), sympy.E + 1, evaluate=False), 1)) == 0
    ball = abs_ball(exact(1, 3))
    assert ball.contains(flint.arb(3).log()) and signed_ball(exact(1, 3)) < 0


def test_select_takes_the_largest_exact_log_ratio_with_its_witness():
    sup, best = select([exact(2, 1, "a"), exact(1, 3, "b"), exact(5, 4, "c")])
    assert best.witness == "b" and sup.attained and sup.direction == -1
    assert abs(mpmath.mpf(sympy.N(sup.loss, 50)) - mpmath.log(3)) < mpmath.mpf(10) ** -45
    assert sup.interval is None


def test_an_infinite_candidate_wins_and_a_limit_is_not_attained():
    inf = Candidate(None, None, 1, False, "the value -> +oo")
    sup, best = select([exact(2, 1), inf])
    assert sup.loss is sympy.oo and best is None and not sup.attained


def test_hull_ends_round_each_ball_outward():
    lo, hi = hull_ends([flint.arb(sympy.Rational(2, 5).p) / 5, flint.arb(9) / 20])
    assert lo <= sympy.Rational(2, 5) <= lo + sympy.Rational(1, 10**15)
    assert hi - sympy.Rational(1, 10**15) <= sympy.Rational(9, 20) <= hi


def test_a_tightened_enclosure_keeps_its_candidate_attained_or_not():
    """A critical value approached only (an edge of a face whose line has other densities)
    stays approached once its enclosure is tightened: ln 2 enclosed to 1e-6, tightened (the
    result within 1e-15 of mpmath's ln 2 at 50 digits)."""
    mpmath.mp.dps = 50
    wide = flint.arb(flint.arb(2).log().mid(), 1e-6)
    for attained in (True, False):
        c = Candidate(None, wide, 0, attained, "w", tighten=lambda: flint.arb(2).log())
        result, best = select([c])
        assert best is not None and best.attained is attained and result.attained is attained
        lo, hi = result.interval
        assert abs((lo + hi) / 2 - sympy.Float(mpmath.log(2), 50)) < 1e-15 and hi - lo < 1e-15


def test_kept_takes_the_candidates_of_one_direction():
    # ln 2 > 0, ln 1/3 < 0, ln 1 = 0 (both directions), an enclosure around -1/2, and an
    # infinite candidate of sign +1
    up, down, even = exact(2, 1), exact(1, 3), exact(5, 5)
    ball = Candidate(None, flint.arb(-0.5, 1e-10), 0, True, "w")
    inf = Candidate(None, None, 1, True, "w")
    assert [kept(c, 1) for c in (up, down, even, ball, inf)] == [True, False, True, False, True]
    assert [kept(c, -1) for c in (up, down, even, ball, inf)] == [False, True, True, True, False]
    assert all(kept(c, 0) for c in (up, down, even, ball, inf))
