"""The library's release programs (exactdp.programs.library_release): exact densities,
pattern probabilities and CDFs against the hand-written classes (exactly), closed forms,
quadrature and numerical differentiation at 30 digits."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy

import exactdp
from exactdp import NumericalSparseVector, ReportNoisyMax, SparseVector, TopK
from exactdp.exact import compare
from exactdp.programs import REAL, program
from exactdp.programs import library_release as L

from . import quadrature as Q
from .test_release import R, as_svt, at, exactly_equal, mpf_fraction


@pytest.mark.parametrize("noise", ["laplace", "exponential"])
def test_noisy_max_value_is_report_noisy_max_s_value_exactly(noise):
    prog = L.noisy_max_value_laplace if noise == "laplace" else L.noisy_max_value_exponential
    for q in ([0, 1, 3], [R(1, 2), 0], [2, 2, 0]):
        mine = prog(epsilon=1).distribution(q)
        theirs = ReportNoisyMax(1, noise=noise, output="value").distribution(q)
        assert mine.outputs == (REAL,)
        for v in (-1, 0, R(1, 2), 2, 3, 5):
            assert exactly_equal(mine.density(v), theirs.density(v)), (q, v)
            assert exactly_equal(mine.cdf(REAL, 0, v), theirs.cdf((True,), 0, v)), (q, v)


@pytest.mark.parametrize("c", [1, 2])
def test_svt3_and_numerical_svt_are_the_hand_written_classes_exactly(c):
    for q in ([0], [2, 0, 1], [R(1, 2), 3, -1, 0]):
        for mine, theirs in ((L.svt3(epsilon=1, threshold=1, c=c),
                              SparseVector(1, 1, c, variant=3)),
                             (L.numerical_svt(epsilon=1, threshold=1, c=c),
                              NumericalSparseVector(1, 1, c))):
            d, e = mine.distribution(q), theirs.distribution(q)
            assert sorted(map(as_svt, d.outputs), key=str) == sorted(e.outputs, key=str)
            for p in d.outputs:
                assert exactly_equal(d.pmf(p), e.pmf(as_svt(p)))
                for v in (R(3, 2), R(-1, 3)):
                    assert exactly_equal(d.density(at(p, v)), e.density(at(p, v)))


def test_gap_svt_density_against_quadrature_and_the_cdf_at_30_digits():
    d = L.gap_svt(epsilon=1, threshold=1, c=1).distribution([2, 0])
    assert d.outputs == ((False, False), (False, REAL), (REAL, None))
    assert exactly_equal(sum(d.probabilities), 1)
    with mpmath.workdps(30):
        for p in ((False, REAL), (REAL, None)):
            def dens(g, p=p):
                return mpmath.mpf(sympy.N(d.density(at(p, mpf_fraction(g))), 40))
            total = mpmath.quad(dens, [0, 1, 4, 8, mpmath.inf])
            assert abs(total - sympy.N(d.pmf(p), 40)) < mpmath.mpf(10) ** -28
            for g in (R(1, 3), R(5, 2)):
                def cdf(x, p=p):
                    return mpmath.mpf(sympy.N(d.cdf(p, 0, mpf_fraction(x)), 50))
                slope = mpmath.diff(cdf, mpmath.mpf(g.p) / g.q) * sympy.N(d.pmf(p), 50)
                assert abs(slope - sympy.N(d.density(at(p, g)), 40)) < mpmath.mpf(10) ** -15


def test_programs_registry_names_every_release_program():
    assert set(L.PROGRAMS) >= {
        "laplace_mechanism", "histogram", "svt3", "numerical_svt", "gap_svt", "prefix_sum",
        "noisy_max_value_laplace", "noisy_max_value_exponential",
    }
    for name, prog in L.PROGRAMS.items():
        assert prog.name == name and getattr(L, name) is prog


# ------------------------------------------------------------------ the free-gap, sum and
# parallel benchmarks: independent references
def _lap_pdf(x, b):
    return mpmath.exp(-abs(x) / b) / (2 * b)


def _lap_cdf(x, b):
    return mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2


def _adaptive_reference(q, T, sigma, eps, c, output, bad=False):
    """``P(pattern)`` (``output`` with REAL) or the density at ``output`` (numbers) of the
    adaptive sparse vector with gap, from its definition: given the threshold noise
    ``rho = z`` the queries are independent; a ``False`` has probability ``F_eta(x +
    sigma) F_xi(x)``, ``x = T + z - a``; a released gap ``g`` has density ``f_eta(g + x)
    [g >= sigma] + F_eta(x + sigma) f_xi(g + x) [g >= 0]``, its pattern probability ``1 -
    F_eta(x + sigma) F_xi(x)``; the bad twin (``bad``) releases ``v = a + eta`` in the
    cheap branch: density ``f_eta(v - a) [v - a >= x + sigma]``. Only c = 1 outputs (one
    release, then ``None``)."""
    be, bx, br = 8 * c / eps, 4 * c / eps, 2 / eps

    def g(z):
        out = _lap_pdf(z, br)
        for a, o in zip(q, output, strict=True):
            x = T + z - a
            if o is False:
                out *= _lap_cdf(x + sigma, be) * _lap_cdf(x, bx)
            elif o is REAL:
                out *= 1 - _lap_cdf(x + sigma, be) * _lap_cdf(x, bx)
            elif o is not None:
                if bad:
                    top = _lap_pdf(o - a, be) if o - a >= x + sigma else 0
                else:
                    top = _lap_pdf(o + x, be) if o >= sigma else 0
                out *= top + (_lap_cdf(x + sigma, be) * _lap_pdf(o + x, bx) if o >= 0 else 0)
        return out

    kinks = sorted({a - T + s for a in q for s in (0, -sigma)} | {
        k for a, o in zip(q, output, strict=True) if o not in (False, None) and o is not REAL
        for k in (a - T - o, o - T - sigma)})
    return mpmath.quad(g, [-mpmath.inf, *kinks, mpmath.inf])


def test_adaptive_svt_probabilities_and_densities_against_quadrature_at_30_digits():
    m = L.adaptive_svt(epsilon=R(1, 2), threshold=1, sigma=2)
    q = [2, 0, 1]
    d = m.distribution(q)
    assert d.outputs == ((False, False, False), (False, False, REAL), (False, REAL, None),
                         (REAL, None, None))
    with mpmath.workdps(40):
        want = [_adaptive_reference(q, 1, 2, mpmath.mpf(1) / 2, 1, o) for o in d.outputs]
        assert abs(mpmath.fsum(want) - 1) < mpmath.mpf(10) ** -30
        for p, w in zip(d.probabilities, want, strict=True):
            assert abs(sympy.N(p, 40) - w) < mpmath.mpf(10) ** -30
        for o in ((False, R(1, 2), None), (False, False, R(3)), (R(5, 2), None, None)):
            w = _adaptive_reference(q, 1, 2, mpmath.mpf(1) / 2, 1,
                                    tuple(x if x is None or x is False else mpmath.mpf(x.p) / x.q
                                          for x in o))
            assert abs(sympy.N(d.density(o), 40) - w) < mpmath.mpf(10) ** -30, o


def test_bad_adaptive_svt_against_quadrature_at_30_digits():
    """The twin's events are the good one's (same probabilities); its cheap branch's
    density is that of ``a + eta`` below ``T + rho + sigma``."""
    q = [2, 0, 1]
    d = L.bad_adaptive_svt(epsilon=R(1, 2), threshold=1, sigma=2).distribution(q)
    good = L.adaptive_svt(epsilon=R(1, 2), threshold=1, sigma=2).distribution(q)
    assert d.outputs == good.outputs and d.probabilities == good.probabilities
    with mpmath.workdps(40):
        for o in ((False, R(1, 2), None), (False, False, R(7)), (R(-3), None, None)):
            w = _adaptive_reference(q, 1, 2, mpmath.mpf(1) / 2, 1,
                                    tuple(x if x is None or x is False else mpmath.mpf(x.p) / x.q
                                          for x in o), bad=True)
            assert abs(sympy.N(d.density(o), 40) - w) < mpmath.mpf(10) ** -30, o


def test_adaptive_svt_loss_within_its_claim_and_the_bad_twin_above_it():
    loss = exactdp.privacy_loss(L.adaptive_svt(epsilon=1, threshold=1, sigma=2), [2, 0], [1, 1])
    assert loss.interval is None or loss.interval[1] < 1
    assert 0 < loss.value < 1
    bad = L.bad_adaptive_svt(epsilon=1, threshold=0, sigma=2)
    # the docstring's witness: three Falses then a cheap release far below the threshold,
    # (1, 1, 1, 1) against (0, 0, 0, 0): the density ratio is exactly exp(5/4) > e
    d, e = bad.distribution([1, 1, 1, 1]), bad.distribution([0, 0, 0, 0])
    for v in (-5, -40):
        o = (False, False, False, v)
        assert exactly_equal(e.density(o), sympy.exp(R(5, 4)) * d.density(o))
    # with one query before the release the ratio is exp(3/8 + 1/8) only: the loss grows
    # with the number of Falses, 3/8 each (the queries' noises Lap(8), Lap(4) at epsilon 1)
    d, e = bad.distribution([1, 1]), bad.distribution([0, 0])
    assert exactly_equal(e.density((False, -20)), sympy.exp(R(1, 2)) * d.density((False, -20)))


@pytest.mark.slow
def test_bad_adaptive_svt_privacy_loss_at_four_queries():
    bad = L.bad_adaptive_svt(epsilon=1, threshold=0, sigma=2)
    loss = exactdp.privacy_loss(bad, [1, 1, 1, 1], [0, 0, 0, 0])
    assert loss.value == R(5, 4) and loss.attained  # about 25 s CPU


def test_svt34_parallel_is_the_product_of_svt3_and_svt4_at_half_epsilon():
    q, q2 = [2, 0], [1, 1]
    m = L.svt34_parallel(epsilon=1, c=1)
    d = m.distribution(q)
    three = SparseVector(R(1, 2), 1, 1, variant=3).distribution(q)
    four = SparseVector(R(1, 2), 1, 1, variant=4).distribution(q)
    assert len(d.outputs) == len(three.outputs) * len(four.outputs)
    for (p3, p4), p in zip(d.outputs, d.probabilities, strict=True):
        assert exactly_equal(p, three.pmf(as_svt(p3)) * four.pmf(p4))
    # the log ratio is the sum of the parts': the worst outputs of both lean the same way
    loss = exactdp.privacy_loss(m, q, q2)
    l3 = exactdp.privacy_loss(L.svt3(epsilon=R(1, 2), threshold=1, c=1), q, q2)
    l4 = exactdp.privacy_loss(SparseVector(R(1, 2), 1, 1, variant=4), q, q2)
    parts = sympy.N(l3.value + l4.value, 50)  # 1/2 + 0.558136: the sum of the parts'
    if loss.value is not None:
        assert abs(sympy.N(loss.value, 50) - parts) < 1e-45
    else:  # the release loss may give a certified bracket: it holds the parts' sum
        low, high = loss.interval
        assert low - 1e-12 <= parts <= high + 1e-12 and low > 1
    assert parts > 1


RELEASE_MC = {
    "noisy_top_k_gap": ({}, [0, 1, 2]),
    "noisy_top_k_gap_exponential": ({}, [0, 1, 2]),
    "adaptive_svt": ({"threshold": 1, "sigma": 2}, [2, 0, 1]),
    "bad_adaptive_svt": ({"threshold": 1, "sigma": 2}, [2, 0, 1]),
    "svt34_parallel": ({"c": 1}, [2, 0]),
}


@pytest.mark.parametrize("n", [20_000, pytest.param(100_000, marks=pytest.mark.slow)])
@pytest.mark.parametrize("name", sorted(RELEASE_MC))
def test_new_programs_sampler_against_exact_pattern_probabilities(name, n):
    params, q = RELEASE_MC[name]
    d = L.PROGRAMS[name](epsilon=1, **params).distribution(q)
    counts = np.bincount(d.sample_index(n, rng=2025), minlength=len(d.outputs)) / n
    probs = d.to_numpy()
    assert np.all(np.abs(counts - probs) <= 5 * np.sqrt(probs * (1 - probs) / n) + 10 / n)


def _top2_reference(q, w1, w2, b, noise, gap=None):
    """``P(w1, w2)`` (or the density at gap ``g``) of top-2 from its definition: given the
    runner-up's value ``z``, ``P = int f(z - a_w2) [1 - F(z - a_w1)] prod_rest F(z - a_j)
    dz`` (the winner above ``z``, the rest below); the density puts ``f(z + g - a_w1)`` in
    place of ``1 - F``."""
    pdf, cdf = ((Q.laplace_pdf, Q.laplace_cdf) if noise == "laplace"
                else (Q.exponential_pdf, Q.exponential_cdf))

    def g(z):
        out = pdf(z - q[w2], b)
        out *= 1 - cdf(z - q[w1], b) if gap is None else pdf(z + gap - q[w1], b)
        for j, a in enumerate(q):
            if j not in (w1, w2):
                out *= cdf(z - a, b)
        return out

    kinks = sorted({*q, *((q[w1] - gap,) if gap is not None else ())})
    return mpmath.quad(g, [-mpmath.inf, *kinks, mpmath.inf])


@pytest.mark.parametrize("noise", ["laplace", "exponential"])
def test_noisy_top_2_with_gap_against_quadrature_at_30_digits(noise):
    prog = L.noisy_top_k_gap if noise == "laplace" else L.noisy_top_k_gap_exponential
    q = [0, R(1, 2), 2]
    d = prog(epsilon=1).distribution(q)
    assert d.outputs == tuple((i, j, REAL) for i in range(3) for j in range(3) if i != j)
    with mpmath.workdps(40):
        qq = [mpmath.mpf(a.p) / a.q for a in map(sympy.Rational, q)]
        for (w1, w2, _), p in zip(d.outputs, d.probabilities, strict=True):
            want = _top2_reference(qq, w1, w2, mpmath.mpf(4), noise)
            assert abs(sympy.N(p, 40) - want) < mpmath.mpf(10) ** -30
            for g in (R(1, 3), R(5, 2)):
                want = _top2_reference(qq, w1, w2, mpmath.mpf(4), noise, mpmath.mpf(g.p) / g.q)
                assert abs(sympy.N(d.density((w1, w2, g)), 40) - want) < mpmath.mpf(10) ** -30


def test_noisy_top_k_gap_losses_and_refusal():
    # two answers: the output is the difference v_0 - v_1 of two noises of scale 2k/epsilon
    # = 4: a Laplace difference (density (1 + |x|/b) exp(-|x|/b) / (4b)) for Laplace noise,
    # whose ratio tends to exp(s/b) without reaching it; a Laplace law of scale 4 for
    # exponential noise (Feller II, section II.4), ratio exp(s/b) attained. Shift s = 2.
    lap = exactdp.privacy_loss(L.noisy_top_k_gap(epsilon=1), [0, 1], [1, 0])
    assert lap.value == R(1, 2) and not lap.attained
    ex = exactdp.privacy_loss(L.noisy_top_k_gap_exponential(epsilon=1), [0, 1], [1, 0])
    assert ex.value == R(1, 2) and ex.attained
    three = exactdp.privacy_loss(L.noisy_top_k_gap(epsilon=1), [0, 1, 2], [1, 0, 1])
    assert 0 < three.value <= 1


# ------------------------------------------------------------------ the hand-written classes,
# frozen: release_closed_forms.json holds the exact values of NumericalSparseVector,
# SparseVector(variant=3) and ReportNoisyMax(output="value") computed by their own code (its
# "about" names the commit), so the programs' equality with them stays tested when the
# classes are rebuilt on the engine
FROZEN = json.loads((Path(__file__).parent / "release_closed_forms.json").read_text())


def frozen_expr(terms, lam):
    """``sum q lam**e exp(lam W)`` of the frozen ``[e, W, q]`` terms."""
    return sympy.Add(*[sympy.Rational(q) * lam**e * sympy.exp(lam * sympy.Rational(w))
                       for e, w, q in terms])


FROZEN_VALUES = [R(3, 2), R(-1, 3), R(5, 2), R(1, 2), R(7, 4)]


@pytest.mark.parametrize("name", ["numerical_svt", "svt3"])
def test_svt3_and_numerical_svt_equal_the_frozen_class_values(name):
    """Every pattern probability and every pattern's density at fixed released values (108
    vectors of 1-5 answers, c = 1 and 2, sensitivity 1 and 2), at epsilon 1 and 1/2."""
    rows = FROZEN[name]
    assert len(rows) == 108 and {(r["c"], r["sensitivity"]) for r in rows} == {
        (1, 1), (2, 1), (1, 2)}
    for k, row in enumerate(rows):
        eps = R(1) if k % 2 else R(1, 2)
        prog = program(getattr(L, name).func, sensitivity=row["sensitivity"],
                       output="release")(epsilon=eps, threshold=1, c=row["c"])
        d = prog.distribution([R(a) for a in row["answers"]])
        lam = eps / row["sensitivity"]
        assert sorted(map(as_svt, d.outputs), key=str) == sorted(
            map(tuple, row["outputs"]), key=str), row
        for pattern, value, dens in zip(row["outputs"], row["values"], row["densities"],
                                        strict=True):
            mine = next(p for p in d.outputs if as_svt(p) == tuple(pattern))
            assert exactly_equal(d.pmf(mine), frozen_expr(value, lam)), (row, pattern)
            out = tuple(FROZEN_VALUES[i] if x is True else x for i, x in enumerate(pattern))
            assert exactly_equal(d.density(out), frozen_expr(dens, lam)), (row, pattern)


def test_noisy_max_value_equals_the_frozen_class_values():
    rows = FROZEN["noisy_max_value"]
    assert {r["noise"] for r in rows} == {"laplace", "exponential"} and len(rows) == 10
    for row in rows:
        prog = (L.noisy_max_value_laplace if row["noise"] == "laplace"
                else L.noisy_max_value_exponential)
        d = prog(epsilon=1).distribution([R(a) for a in row["scores"]])
        for v, dens, cdf in zip(row["points"], row["density"], row["cdf"], strict=True):
            assert exactly_equal(d.density(R(v)), sympy.sympify(dens)), (row["scores"], v)
            assert exactly_equal(d.cdf(REAL, 0, R(v)), sympy.sympify(cdf)), (row["scores"], v)


FROZEN_LOSS_PROGRAMS = {
    "numerical_svt": lambda: L.numerical_svt(epsilon=1, threshold=1, c=2),
    "svt3": lambda: L.svt3(epsilon=1, threshold=1, c=2),
    "noisy_max_value_laplace": lambda: L.noisy_max_value_laplace(epsilon=1),
    "noisy_max_value_exponential": lambda: L.noisy_max_value_exponential(epsilon=1),
}


@pytest.mark.parametrize("name", sorted(FROZEN_LOSS_PROGRAMS))
def test_release_losses_equal_or_sharpen_the_frozen_class_losses(name):
    """The exact loss of each frozen pair: equal where the class was exact, inside the
    class's bracket where it refused with one (exact here: SVT3 at c = 2 on answers moving
    both ways)."""
    mech = FROZEN_LOSS_PROGRAMS[name]()
    for row in FROZEN["losses"][name]:
        loss = exactdp.privacy_loss(mech, row["first"], row["second"],
                                    allow_non_neighbour=True)
        if "loss" in row:
            want = sympy.sympify(row["loss"])
            assert loss.attained == row["attained"], row
            if want == sympy.oo:
                assert loss.value == sympy.oo, row
                continue
            assert abs(sympy.N(loss.value - want, 40)) < sympy.Float(10) ** -35, row
            continue
        lo, hi = re.search(r"at least ([0-9.]+) .* at most (\S+) \(", row["refused"]).groups()
        assert loss.interval is None and loss.attained, (row, loss)
        assert float(lo) <= float(loss.value) and compare(loss.value, sympy.Rational(hi)) <= 0


@pytest.mark.parametrize(("name", "count"), [
    ("noisy_top_k_gap", "k"), ("noisy_top_k_gap_exponential", "k"), ("svt3", "c"),
    ("numerical_svt", "c"), ("gap_svt", "c"), ("adaptive_svt", "c"), ("svt34_parallel", "c"),
    ("laplace_parallel", "copies"), ("smart_sum", "block"), ("bad_smart_sum", "block"),
])
def test_a_count_of_zero_is_refused_at_construction_naming_it(name, count):
    p = L.PROGRAMS[name]
    extra = {"threshold": 0} if "threshold" in p.parameter_names else {}
    for bad in (0, -2, sympy.Rational(3, 2)):
        with pytest.raises(ValueError, match=rf"^{name}: {count} must be a positive integer"):
            p(epsilon=1, **extra, **{count: bad})


def _top3_gap_density(q, w, b, noise, g1, g2):
    """The density of top-3 ``w`` with gaps ``(g1, g2)`` from its definition: given the
    third's value ``z``, ``int f(z - a_w3) f(z + g2 - a_w2) f(z + g2 + g1 - a_w1)
    prod_rest F(z - a_j) dz``."""
    pdf, cdf = ((Q.laplace_pdf, Q.laplace_cdf) if noise == "laplace"
                else (Q.exponential_pdf, Q.exponential_cdf))

    def f(z):
        out = pdf(z - q[w[2]], b) * pdf(z + g2 - q[w[1]], b) * pdf(z + g2 + g1 - q[w[0]], b)
        for j, a in enumerate(q):
            if j not in w:
                out *= cdf(z - a, b)
        return out

    kinks = sorted({*q, q[w[1]] - g2, q[w[0]] - g1 - g2})
    return mpmath.quad(f, [-mpmath.inf, *kinks, mpmath.inf])


@pytest.mark.parametrize("noise", ["laplace", "exponential"])
def test_noisy_top_3_with_gaps_exact_against_topk_and_quadrature(noise):
    """k = 3 of four answers: the chain ``v_w1 >= v_w2 >= v_w3 >= the rest`` integrated
    leaf first; the 24 ordered triples sum to 1 exactly, equal the one-shot top-k of
    :class:`~exactdp.TopK` (an independent exact route: iterated integrals in ``Q(x,
    lam)``) at 30 digits, and the density of the two gaps equals its one-dimensional
    defining integral at 30 digits."""
    prog = L.noisy_top_k_gap if noise == "laplace" else L.noisy_top_k_gap_exponential
    q = [0, R(1, 2), 2, 3]
    d = prog(epsilon=1, k=3).distribution(q)
    assert len(d.outputs) == 24 and sympy.expand(sum(d.probabilities) - 1) == 0
    ref = TopK(ReportNoisyMax(R(1, 3), noise=noise), 3).distribution(q)  # scale 2k/eps = 6
    with mpmath.workdps(40):
        qq = [mpmath.mpf(a.p) / a.q for a in map(sympy.Rational, q)]
        for o, p in zip(d.outputs, d.probabilities, strict=True):
            assert abs(sympy.N(p - ref.pmf(o[:3]), 40)) < 1e-30
        for w in ((3, 2, 1), (0, 3, 1)):
            for g1, g2 in ((R(1, 3), R(5, 2)), (R(2), R(1, 4))):
                want = _top3_gap_density(qq, w, mpmath.mpf(6), noise,
                                         mpmath.mpf(g1.p) / g1.q, mpmath.mpf(g2.p) / g2.q)
                got = mpmath.mpf(str(sympy.N(d.density((*w, g1, g2)), 40)))
                assert abs(got - want) < mpmath.mpf(10) ** -30


@pytest.mark.parametrize("n", [20_000, pytest.param(100_000, marks=pytest.mark.slow)])
def test_noisy_top_3_sampler_against_exact_pattern_probabilities(n):
    d = L.noisy_top_k_gap_exponential(epsilon=1, k=3).distribution([0, 1, 2, 2])
    counts = np.bincount(d.sample_index(n, rng=34), minlength=len(d.outputs)) / n
    probs = d.to_numpy()
    assert np.all(np.abs(counts - probs) <= 5 * np.sqrt(probs * (1 - probs) / n) + 10 / n)


def test_noisy_top_3_loss_is_exact_against_quadrature():
    """k = 3 releases two gaps (:mod:`exactdp.programs.release_chain`). Laplace noise: the
    supremum is the translation bound 1/3 = (1 + 1) / 6, approached as the gaps grow along
    (v, v), not attained; exponential noise: ``ln(4 e^(1/2) - 3 e^(1/3))``, attained. The
    defining integral at 30 digits: the Laplace ratio at gaps (120, 120) within 1e-6 of
    1/3 and below it, the exponential ratio equal to the value at the positive gaps
    (3/4, 13/4) and at the witness (1/2, 2), and no pattern's ratio above either value on
    a grid of gaps."""
    q, q2 = [0, 1, 2, 3], [1, 0, 1, 2]
    lap = exactdp.privacy_loss(L.noisy_top_k_gap(epsilon=1, k=3), q, q2)
    assert lap.value == R(1, 3) and not lap.attained and lap.interval is None
    assert lap.output == "the pattern (0, 1, 2, REAL, REAL) with the gaps (1 v, 1 v) as v -> +oo"
    ex = exactdp.privacy_loss(L.noisy_top_k_gap_exponential(epsilon=1, k=3), q, q2)
    want = sympy.log(4 * sympy.exp(R(1, 2)) - 3 * sympy.exp(R(1, 3)))
    assert sympy.simplify(ex.value - want) == 0 and ex.attained
    assert ex.output == "the pattern (2, 3, 1, REAL, REAL) with the gaps (1/2, 2)"
    b = mpmath.mpf(6)
    with mpmath.workdps(30):
        qq, qq2 = [mpmath.mpf(a) for a in q], [mpmath.mpf(a) for a in q2]

        def log_ratio(w, noise, g1, g2):
            return mpmath.log(_top3_gap_density(qq, w, b, noise, g1, g2)
                              / _top3_gap_density(qq2, w, b, noise, g1, g2))

        far = log_ratio((0, 1, 2), "laplace", mpmath.mpf(120), mpmath.mpf(120))
        assert 0 < mpmath.mpf(1) / 3 - abs(far) < 1e-6
        at = log_ratio((2, 3, 1), "exponential", mpmath.mpf(3) / 4, mpmath.mpf(13) / 4)
        assert abs(at - mpmath.mpf(str(sympy.N(want, 40)))) < mpmath.mpf(10) ** -25
        witness = log_ratio((2, 3, 1), "exponential", mpmath.mpf(1) / 2, mpmath.mpf(2))
        assert abs(witness - at) < mpmath.mpf(10) ** -25
    with mpmath.workdps(15):  # the grid: a check of the order only, at 15 digits
        qq, qq2 = [mpmath.mpf(a) for a in q], [mpmath.mpf(a) for a in q2]
        grid = ((mpmath.mpf(1) / 2, mpmath.mpf(3)), (mpmath.mpf(3), mpmath.mpf(1) / 2))
        for w in itertools.permutations(range(4), 3):
            for g1, g2 in grid:
                assert abs(log_ratio(w, "laplace", g1, g2)) < mpmath.mpf(1) / 3 - 1e-9
                assert abs(log_ratio(w, "exponential", g1, g2)) <= at + 1e-12


@pytest.mark.parametrize(("noise", "neighbour", "epsilon", "want", "gap"), [
    ("exponential", (2,) + (0,) * 9, R(1, 10), R(1, 20), 2),
    ("exponential", (0, 0) + (2,) * 8, R(1, 10), R(1, 10), R(1, 2)),
    ("laplace", (0, 0) + (2,) * 8, R(1, 10),
     sympy.log(4097 * sympy.exp(R(1, 2)) / (4112 * sympy.exp(R(2, 5)) - 15 * sympy.exp(R(1, 10)))),
     None),
])
def test_noisy_top_2_with_gap_at_ten_answers_against_quadrature(noise, neighbour, epsilon,
                                                                 want, gap):
    """The suite's pairs at its settings (ten answers, epsilon 1/10, scale 2k/epsilon = 40):
    ``1^10`` against one above the rest below (exponential noise: the log ratio's
    derivative vanishes to order 8 at a gap's end, once undecided) and against check_dp's
    worst neighbour ``0 0 2^8`` (exponential: exactly epsilon, attained; Laplace: a limit as
    the gap grows). The defining integral (:func:`_top2_reference`, 20 digits) gives the
    value at the witness (Laplace: the limit of ``e^(g/b)`` times it, by dominated
    convergence), and no pattern class (the answers under both inputs) above it on a grid
    of gaps."""
    prog = L.noisy_top_k_gap if noise == "laplace" else L.noisy_top_k_gap_exponential
    q = (1,) * 10
    r = exactdp.privacy_loss(prog(epsilon=epsilon), q, neighbour)
    assert sympy.simplify(sympy.exp(r.value) - sympy.exp(want)) == 0  # one value
    assert r.attained == (gap is not None)
    assert r.output.startswith("the pattern (0, 1, REAL)")
    with mpmath.workdps(20):
        b = mpmath.mpf(40)
        qq, qq2 = [mpmath.mpf(a) for a in q], [mpmath.mpf(a) for a in neighbour]

        def log_ratio(w1, w2, g):
            return mpmath.log(_top2_reference(qq, w1, w2, b, noise, g)
                              / _top2_reference(qq2, w1, w2, b, noise, g))

        value = mpmath.mpf(str(sympy.N(want, 30)))
        if gap is None:  # e^(g/b) f(g) as g -> oo: the winner's density e^(-(z + g - a)/b)/2b
            def tail(qs):
                return mpmath.quad(lambda z: Q.laplace_pdf(z - qs[1], b) * mpmath.exp(
                    -(z - qs[0]) / b) / (2 * b) * mpmath.fprod(
                    Q.laplace_cdf(z - a, b) for a in qs[2:]), [-mpmath.inf, *sorted(set(qs)),
                                                               mpmath.inf])

            assert abs(abs(mpmath.log(tail(qq) / tail(qq2))) - value) < mpmath.mpf(10) ** -15
        else:
            assert abs(abs(log_ratio(0, 1, mpmath.mpf(gap))) - value) < mpmath.mpf(10) ** -15
        classes = {(neighbour[i], neighbour[j]): (i, j) for i in range(10) for j in range(10)
                   if i != j}
        for w1, w2 in classes.values():
            for g in (mpmath.mpf(1) / 4, mpmath.mpf(2), mpmath.mpf(10), mpmath.mpf(60)):
                assert abs(log_ratio(w1, w2, g)) <= value + 1e-12


def test_noisy_top_k_cost_model_counts_the_ordered_tuples_and_refuses():
    """n!/(n-k)! runs: past the run limit refused after the first run; below it, refused by
    the integrator's estimate (about 1 ms a unit of tree work) before any integral."""
    from exactdp.cost import TooCostly

    d = L.noisy_top_k_gap(epsilon=1, k=3).distribution(list(range(6)))
    assert len(d.runs) == 120  # one pattern per ordered triple
    with pytest.raises(TooCostly, match=r"would need about .* s \(limit"):
        _ = L.noisy_top_k_gap(epsilon=1, k=3).distribution(list(range(13))).probabilities
    with pytest.raises(TooCostly, match="runs"):
        _ = L.noisy_top_k_gap(epsilon=1, k=4).distribution(list(range(12))).outputs
