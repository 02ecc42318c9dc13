"""exactdp/programs/release_max.py: the released noisy maximum read by the release engine
(the density as the derivative of a product of CDFs), against quadrature at 30 digits of
the density from its definition, the closed forms (n epsilon / 2 attained for Laplace
noise, infinite with the witness event for exponential noise), and the losses of the
deleted polynomial route of ReportNoisyMax(output="value"), frozen."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
import sympy

import exactdp
from exactdp.cost import SECONDS_LIMIT, TooCostly
from exactdp.exact.signs import compare
from exactdp.programs import argmax, argmin, laplace, program
from exactdp.programs import library_release as L
from exactdp.programs.release_max import (
    TRANSLATED,
    MaxForm,
    form_seconds,
    max_form,
    max_loss,
    max_run,
    max_seconds,
    pair_seconds,
)

from .quadrature import exponential_pdf, laplace_cdf, laplace_pdf

FROZEN = json.loads((Path(__file__).parent / "release_max_frozen.json").read_text())


def prog(noise):
    return (L.noisy_max_value_laplace if noise == "laplace"
            else L.noisy_max_value_exponential)(epsilon=1)  # scale b = 2


def loss(noise, q, q2):
    return exactdp.privacy_loss(prog(noise), q, q2, allow_non_neighbour=True)


def quad_density(noise, q, v, b=2):
    """The maximum's density at v from its definition: ``d/dv Pr[max <= v] = sum_w
    f(v - a_w) prod_{j != w} F(v - a_j)``, each CDF a quadrature of the density."""
    pdf = laplace_pdf if noise == "laplace" else exponential_pdf
    lower = -mpmath.inf if noise == "laplace" else 0

    def cdf(t):
        if t <= lower:
            return mpmath.mpf(0)
        pts = [lower, 0, t] if lower < 0 < t else [lower, t]
        return mpmath.quad(lambda z: pdf(z, b), pts)

    cdfs = [cdf(v - a) for a in q]
    return mpmath.fsum(pdf(v - a, b) * mpmath.fprod(c for j, c in enumerate(cdfs) if j != i)
                       for i, a in enumerate(q))


def test_max_form_reads_the_winners_of_one_argmax():
    d = prog("laplace").distribution([0, 3, 1])
    runs = d.runs[d.keys[0]]
    form = max_form(runs)
    assert form == MaxForm("laplace", sympy.Integer(2), (Fraction(0), Fraction(3), Fraction(1)))
    assert sorted(max_run(r)[0] for r in runs) == [0, 1, 2]
    assert max_form(runs[:2]) is None  # a winner missing

    @program(output="release")
    def min_value(q, epsilon):
        values = [a + laplace(2 / epsilon) for a in q]
        return values[argmin(values)]

    @program(output="release")
    def two_scales(q, epsilon):
        values = [a + laplace((i + 1) / epsilon) for i, a in enumerate(q)]
        return values[argmax(values)]

    for other in (min_value, two_scales, L.svt3):
        kw = {"threshold": 0} if other is L.svt3 else {}
        d = other(epsilon=1, **kw).distribution([0, 1])
        assert all(max_form(d.runs[k]) is None for k in d.keys)
    # the minimum is left to the engine's cells: its loss is the maximum's of -q
    got = exactdp.privacy_loss(min_value(epsilon=1), [0, 1, 3], [1, 0, 2])
    assert got.value == loss("laplace", [0, -1, -3], [-1, 0, -2]).value


def _witness_value(got):
    """A value where the loss is attained, read from the witness text."""
    text = got.output
    if text.endswith("(a constant ratio)"):
        lo, hi = text.split("(")[1].split(")")[0].split(", ")
        return mpmath.mpf(sympy.Rational(hi)) - 1 if lo == "-oo" else mpmath.mpf(
            sympy.Rational(lo)) + 1 if hi == "oo" else (mpmath.mpf(sympy.Rational(lo))
                                                        + mpmath.mpf(sympy.Rational(hi))) / 2
    if got.interval is not None:  # an interior critical point: the ratio is flat there
        lo, hi = (mpmath.mpf(t) for t in text.split("[")[1].split("]")[0].split(", "))
        return (lo + hi) / 2
    return mpmath.mpf(sympy.Rational(text.rsplit(" ", 1)[1]))


@pytest.mark.parametrize("q,q2", [([1, 1, 1, 1, 1], [0, 2, 2, 2, 2]),
                                  ([3, 0, 0, 1, 2, 2, 4, 1], [2, 1, 0, 1, 2, 3, 4, 1]),
                                  ([-1, -1, 1, 2, 1, 2, 0, 1], [-2, -1, 1, 3, 0, 2, -1, 2]),
                                  ([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 1, 2, 3, 4, 5, 6, 7, 8, 8])])
def test_laplace_loss_is_the_density_ratio_at_its_witness_by_quadrature(q, q2):
    got = loss("laplace", q, q2)
    assert got.attained
    v = _witness_value(got)
    with mpmath.workdps(35):
        want = mpmath.mpf(str(sympy.N(got.loss, 35)))
        ratio = mpmath.log(quad_density("laplace", q, v) / quad_density("laplace", q2, v))
        # at a critical point the witness prints v to 12 digits: off by 1e-24 (second order)
        tol = mpmath.mpf(10) ** (-28 if got.interval is None else -20)
        assert abs(abs(ratio) - want) < tol
        assert (ratio > 0) == (got.direction > 0)
    # no value of a grid does better (closed-form CDFs, 20 digits)
    with mpmath.workdps(20):
        for t in range(-60, 61):
            w = mpmath.mpf(t) / 4
            r = mpmath.log(closed_density(q, w) / closed_density(q2, w))
            assert abs(r) <= want + mpmath.mpf(10) ** -15


def closed_density(q, v, b=2):
    cdfs = [laplace_cdf(v - a, b) for a in q]
    return mpmath.fsum(laplace_pdf(v - a, b) * mpmath.fprod(
        c for j, c in enumerate(cdfs) if j != i) for i, a in enumerate(q))


def test_a_critical_point_is_certified_narrow_and_checked_by_quadrature():
    q, q2 = [0, 0, 1, 0, 0], [0, -1, 1, 0, 1]
    got = loss("laplace", q, q2)
    lo, hi = got.interval
    assert got.attained and 0 < hi - lo < sympy.Float("1e-30")
    assert "(a critical point of the log density ratio)" in got.output
    with mpmath.workdps(40):
        at = [abs(mpmath.log(quad_density("laplace", q, v) / quad_density("laplace", q2, v)))
              for v in (mpmath.mpf("0.0049589") + k * mpmath.mpf("1e-7") for k in range(3))]
    assert max(at) <= mpmath.mpf(str(hi)) and mpmath.mpf(str(hi)) - max(at) < 1e-12


@pytest.mark.parametrize("n", [1, 2, 3, 8, 12])
def test_laplace_closed_form_n_epsilon_over_two_attained(n):
    got = loss("laplace", [0] * n, [1] * n)
    assert got.value == sympy.Rational(n, 2) and got.attained and got.direction == 1


def test_exponential_moved_maximum_is_infinite_with_the_witness_event():
    got = loss("exponential", [0, 1, 0, 1, 0, 1, 0, 1], [1, 2, 1, 2, 1, 2, 1, 2])
    assert got.value == sympy.oo and got.attained and got.direction == 1
    assert got.output == ("the pattern REAL with the value in (1, 2) (probability 0 under "
                          "one input only)")
    # the event V < 2: prod (1 - e^{-(2 - a)/2}) under the first input, 0 under the second
    with mpmath.workdps(30):
        p = mpmath.fprod(1 - mpmath.exp(-(2 - mpmath.mpf(a)) / 2) for a in [0, 1] * 4)
        assert p > 0.0001
    assert quad_density("exponential", [1, 2] * 4, mpmath.mpf("1.5")) == 0
    # equal maxima, a tie at the top of one input only: oo approached at the edge
    got = loss("exponential", [0, 0, -1, -1, -2, -3, -4], [0, -1, -1, -1, -2, -3, -4])
    assert got.value == sympy.oo and not got.attained and got.output.endswith("-> 0")


@pytest.mark.parametrize("i", range(len(FROZEN["rows"])))
def test_the_deleted_polynomial_route_s_losses_frozen(i):
    row = FROZEN["rows"][i]
    q, q2 = ([sympy.Rational(a) for a in row[k]] for k in ("first", "second"))
    got = loss(row["noise"], q, q2)
    assert (got.attained, got.direction) == (row["attained"], row["direction"])
    if "interval" in row:
        lo, hi = (sympy.Float(t, 40) for t in row["interval"])
        assert got.interval[0] <= hi and lo <= got.interval[1]  # the balls overlap
        assert abs(got.loss - (lo + hi) / 2) < sympy.Float("1e-30")
    elif row["loss"] == "oo":
        assert got.value == sympy.oo
    else:
        assert compare(got.value, sympy.sympify(row["loss"])) == 0  # exact


def test_cost_model_refuses_at_once_naming_the_estimate_and_the_cheaper_route():
    """Consecutive scores pass the limit between 70 and 80 (n^5 units); 10 irregular scores
    spanning 310080 steps (196 s CPU measured) are refused, in the estimate that the
    loss's own check states before its bar (pair_seconds), naming the cheaper route."""
    assert max_seconds(70, 70, 69) < SECONDS_LIMIT < max_seconds(80, 80, 79)
    q = [Fraction(k * k, 7) + Fraction(1, k + 2) for k in range(10)]
    q2 = [v + (k == 5) for k, v in enumerate(q)]
    two = pair_seconds(*(MaxForm("laplace", sympy.Integer(2), tuple(v)) for v in (q, q2)))
    assert two > SECONDS_LIMIT
    with pytest.raises(TooCostly, match=r"privacy_loss: the loss supremum over about 10 "
                       rf"runs' patterns \(a released maximum\) would need about {two:.3g} s "
                       r".*fewer scores"):
        loss("laplace", q, q2)


def test_max_loss_refuses_mismatched_or_irrational_forms():
    a = MaxForm("laplace", sympy.Integer(2), (Fraction(0), Fraction(1)))
    with pytest.raises(ValueError, match="differ in law, scale or length"):
        max_loss(a, MaxForm("exponential", sympy.Integer(2), a.offsets), "P", "f")
    irr = MaxForm("laplace", 2 / sympy.log(3), a.offsets)
    with pytest.raises(ValueError, match="rational noise rate"):
        max_loss(irr, irr, "P", "f")
    same = max_loss(a, a, "P", "f")
    assert same.value == 0 and same.attained and same.exact is not None


def test_form_seconds_counts_the_pieces_and_the_factors_degree():
    """The cost of a released maximum's loss: distinct^5 units (pieces and comparisons) and
    distinct^1.5 d^1.37 for the factors of degree d = span n in x, fitted on the CPU
    (docs/benchmarks.md): 0..n-1 against one moved score, Laplace 0.99 / 4.4 s at n = 30 /
    40; irregular scores k^2/7 + 1/(k + 2) at n = 8 / 9 (span 16720 / 22092): 4.1 / 7.2 s;
    each within 2.5x; exponential noise cheaper; ties counted once in the units; a pair
    on the common lattice of both inputs, translated TRANSLATED times more."""
    def form(offsets, law="laplace"):
        return MaxForm(law, sympy.Integer(2), tuple(map(Fraction, offsets)))

    def irregular(n):
        return [Fraction(k * k, 7) + Fraction(1, k + 2) for k in range(n)]

    for offsets, measured in ((range(30), 0.99), (range(40), 4.4), (irregular(8), 4.1),
                              (irregular(9), 7.2)):
        assert measured / 2.5 < form_seconds(form(offsets)) < 2.5 * measured
    assert form_seconds(form(range(40), "exponential")) < form_seconds(form(range(40))) / 4
    halves = form([Fraction(k, 2) for k in range(10)])  # lattice 1/2: span 9 steps
    assert form_seconds(halves) == max_seconds(10, 10, 9)
    assert max_seconds(30, 2, 1000) < max_seconds(30, 30, 1000) / 50  # [0, 1] * 15
    one, moved = form(range(20)), form([*range(19), 20])
    assert pair_seconds(one, moved) == max_seconds(20, 21, 20)  # the common lattice
    # translated: the factor is the steps per score, up to TRANSLATED (12x measured at 20
    # scores spanning 476 steps; 0..39 moved by one: 4.1 s CPU, refused at 141 s before)
    assert pair_seconds(one, form(range(1, 21))) == max_seconds(20, 21, 20)
    spread = form([24 * k for k in range(20)])  # 457 steps: 22.85 a score
    assert pair_seconds(spread, form([24 * k + 1 for k in range(20)])) == (
        457 / 20 * max_seconds(20, 40, 457))
    wide = form([30 * k for k in range(20)])  # 571 steps: 28.55 a score, capped
    assert pair_seconds(wide, form([30 * k + 1 for k in range(20)])) == (
        TRANSLATED * max_seconds(20, 40, 571))
    assert 4.1 / 2.5 < pair_seconds(form(range(40)), form(range(1, 41))) < 2.5 * 4.1
    tiny = form([Fraction(1, 10**6)] * 60)  # one step alone, 10^6 steps with [0, 1] * 30
    assert pair_seconds(form([0, 1] * 30), tiny) > 10 * SECONDS_LIMIT > form_seconds(tiny)


def test_the_loss_states_its_price_before_the_cells(monkeypatch):
    """One long step and no loop: 60 scores ran 36 s CPU with nothing on standard error
    (a newcomer's trial); the price goes to ``start_line``, which prints it off a terminal
    above its threshold (here recorded: 0..7 against one moved score, the pair's price)."""
    import exactdp
    import exactdp.programs.release_max as RM
    from exactdp.programs import library_release as LR

    said = []
    monkeypatch.setattr(RM, "start_line", lambda desc, progress, seconds: said.append(
        (desc, seconds)))
    q, q2 = list(range(8)), [*range(1, 8), 6]
    loss = exactdp.privacy_loss(LR.noisy_max_value_laplace(epsilon=1), q, q2)
    # the left tail (v -> -oo): the density ratio is exp(sum (q'_i - q_i) / b), b = 2 / epsilon:
    # seven scores up by one, one down by one: (7 - 1) / 2 = 3, by hand
    assert loss.loss == 3
    assert [d for d, _ in said] == ["noisy_max_value_laplace.privacy_loss"]
    assert said[0][1] == pair_seconds(*(MaxForm("laplace", sympy.Integer(2), tuple(
        map(Fraction, v))) for v in (q, q2)))
