"""Released gaps along a chain of noisy values (exactdp/programs/release_chain.py).
Independent routes: the engine's one-value route (cells and critical points of the density
of one gap) on top-2, where the path of least gaps must give the same exact loss; the
defining one-dimensional integral at 30 digits (mpmath) of the density ratio of top-3 at
the witness and on a grid; the chain read by hand from the data."""

from __future__ import annotations

import itertools
import re
from fractions import Fraction

import mpmath
import pytest
import sympy

import exactdp
from exactdp.exact import flint_prec
from exactdp.programs import exponential, program, release_loss
from exactdp.programs import library_release as L
from exactdp.programs import release_chain as RC
from exactdp.programs.release_cells import VPoly
from exactdp.programs.release_chain import (
    GapChain,
    _attained,
    chain_candidates,
    exponential_candidates,
    gap_chain,
    ray_values,
    several_values,
)
from exactdp.programs.release_density import run_density
from exactdp.programs.release_loss import _tools
from exactdp.programs.release_select import abs_ball
from exactdp.programs.release_sup import prec

from . import quadrature as Q
from .support import sampled_like_probabilities

F = Fraction


def _runs(prog, q, pattern):
    d = prog.distribution(q)
    return d.runs[d.keys[d.outputs.index(pattern)]]


def test_gap_chain_reads_the_chain_and_the_losers_from_a_top_k_run():
    # the pattern (2, 3, 1) of [0, 1, 2, 3]: a_k = a_1 = 1, d = (2 - 1, 3 - 1), e_0 = -1
    runs = _runs(L.noisy_top_k_gap_exponential(epsilon=1, k=3), [0, 1, 2, 3],
                 (2, 3, 1, exactdp.programs.REAL, exactdp.programs.REAL))
    assert gap_chain(runs[0]) == GapChain("exponential", F(6), (F(1), F(2)), (F(-1),))
    lap = _runs(L.noisy_top_k_gap(epsilon=2, k=2), [5, 0, 1], (0, 2, exactdp.programs.REAL))
    assert gap_chain(lap[0]) == GapChain("laplace", F(2), (F(4),), (F(-1),))
    # a gap to the threshold, not along a chain of the answers: not this shape
    svt = L.gap_svt(epsilon=1, threshold=1, c=1).distribution([0, 2])
    assert all(gap_chain(r) is None for runs in svt.runs.values() for r in runs)


@program(output="release")
def unordered_gap(q, epsilon):
    """A difference of two exponential values that no comparison orders: not a chain."""
    return (q[0] + exponential(1 / epsilon) - (q[1] + exponential(1 / epsilon)),)


def test_gap_chain_needs_each_gap_held_nonnegative():
    d = unordered_gap(epsilon=1).distribution([0, 1])
    assert gap_chain(d.runs[d.keys[0]][0]) is None
    # its loss is the engine's: a Laplace law of scale 1 shifted by 1 (Feller II, II.4)
    assert exactdp.privacy_loss(unordered_gap(epsilon=1), [0, 1], [1, 1]).value == 1


def test_ray_values_are_distinct_directions():
    assert ray_values(2) == [(F(1),), (F(2),), (F(1, 2),)]
    assert len(ray_values(3)) == 5 and ray_values(3)[0] == (F(1), F(1))


def test_attained_needs_positive_gaps_with_the_same_two_values():
    # no losers, chain d = (1,) on both inputs: s = max(0, 1 - G_1); s = 1 needs G_1 = 0
    c = GapChain("exponential", F(1), (F(1),), ())
    assert not _attained(c, c, F(1), F(1))  # only the zero gap gives s = 1
    assert _attained(c, c, F(1, 2), F(1, 2))  # G_1 = 1/2
    assert _attained(c, c, F(0), F(0))  # any G_1 >= 1


@pytest.mark.parametrize(("q", "q2"), [([0, 1, 2], [1, 0, 1]), ([3, 0, 1], [2, 1, 2]),
                                       ([0, 0, 0, 1], [1, 1, 1, 0]), ([2, 1], [1, 2])])
def test_top2_exponential_path_equals_the_engines_one_value_route(q, q2, monkeypatch):
    """Top-2 releases one gap: the engine's cells and critical points give the exact loss
    (the path switched off); the path of least gaps (both signs) must give the same
    supremum over every pattern, and privacy_loss (on the path) the same exact value."""
    prog = L.noisy_top_k_gap_exponential(epsilon=1)
    on_path = exactdp.privacy_loss(prog, q, q2)
    with monkeypatch.context() as m:
        m.setattr(release_loss, "exponential_chain", lambda *runs: False)
        exactdp.programs.release._loss_distribution.cache_clear()
        want = exactdp.privacy_loss(L.noisy_top_k_gap_exponential(epsilon=1), q, q2)
    assert exactdp.exact.compare(on_path.value, want.value) == 0
    assert on_path.attained == want.attained
    assert "the gaps" in on_path.output and "the gaps" not in want.output  # two routes
    a, b = prog.distribution(q), prog.distribution(q2)
    best = None
    for key in a.keys:
        label = f"the pattern {a.outputs[a.keys.index(key)]!r}"
        res = chain_candidates(a.runs[key], b.runs[key], label, "t", _tools(None))
        assert res is not None and res.exact
        for c in res.found:
            with flint_prec(prec()):
                ball = abs_ball(c)
            best = ball if best is None or ball.mid() > best.mid() else best
    with flint_prec(prec()):
        assert abs(best - exactdp.exact.to_arb(want.value, prec())) < 1e-40


def _density(q, w, b, noise, gaps):
    """The density of top-k ``w`` with ``gaps`` from its definition (any k), at the
    working precision: ``int prod_j f(z + G_j - a_wj) prod_rest F(z - a_i) dz``."""
    pdf, cdf = ((Q.laplace_pdf, Q.laplace_cdf) if noise == "laplace"
                else (Q.exponential_pdf, Q.exponential_cdf))
    G = [sum(gaps[j:]) for j in range(len(gaps))] + [0]

    def f(z):
        out = mpmath.mpf(1)
        for j, i in enumerate(w):
            out *= pdf(z + G[j] - q[i], b)
        for i, a in enumerate(q):
            if i not in w:
                out *= cdf(z - a, b)
        return out

    kinks = sorted({*q, *(q[i] - G[j] for j, i in enumerate(w))})
    return mpmath.quad(f, [-mpmath.inf, *kinks, mpmath.inf])


def test_top4_exponential_exact_against_quadrature():
    """k = 4 releases three gaps: the exact loss (the path of least gaps) equals the
    defining integral's log ratio at 30 digits at the witness (gaps all positive: attained)
    and no point of a grid of gaps on the witness's pattern and its mirror exceeds it."""
    q, q2 = [0, 2, 1, 3, 1], [1, 1, 0, 2, 2]
    loss = exactdp.privacy_loss(L.noisy_top_k_gap_exponential(epsilon=1, k=4), q, q2)
    assert loss.value == sympy.Rational(3, 4) and loss.attained
    m = re.fullmatch(r"the pattern \((\d), (\d), (\d), (\d), REAL, REAL, REAL\) with the gaps "
                     r"\(([\d/]+), ([\d/]+), ([\d/]+)\)", loss.output)
    assert m, loss.output
    w = tuple(int(m.group(i)) for i in range(1, 5))
    gaps = [mpmath.mpf(Fraction(m.group(i)).numerator) / Fraction(m.group(i)).denominator
            for i in range(5, 8)]
    b = mpmath.mpf(8)  # 2 k / epsilon
    with mpmath.workdps(30):
        def ratio(w, g):
            return mpmath.log(_density(q, w, b, "exponential", g)
                              / _density(q2, w, b, "exponential", g))

        assert abs(ratio(w, gaps) - mpmath.mpf(3) / 4) < mpmath.mpf(10) ** -25
        grid = (mpmath.mpf(1) / 4, mpmath.mpf(3))
        for pattern in (w, (w[1], w[0], *w[2:])):
            for g in itertools.product(grid, repeat=3):
                assert abs(ratio(pattern, g)) <= mpmath.mpf(3) / 4 + mpmath.mpf(10) ** -25


def test_several_values_refuses_without_a_chain_or_a_bound():
    # three values (two of Laplace noise go to the plane's faces, release_two)
    d = L.prefix_sum(epsilon=1).distribution([0, 1, 0])
    o = L.prefix_sum(epsilon=1).distribution([1, 1, 0])
    key = d.keys[0]
    tools = _tools(None)
    with pytest.raises(ValueError, match="not in this version"):
        several_values(d.runs[key] * 2, o.runs[key], "p", "f", tools, list)


def test_exponential_candidates_both_signs_on_a_pattern():
    c = GapChain("exponential", F(6), (F(1), F(2)), (F(-1),))
    o = GapChain("exponential", F(6), (F(1), F(2)), (F(1),))
    mine = exponential_candidates(c, o, "p", "f", False, _tools(None))
    theirs = exponential_candidates(o, c, "p", "f", True, _tools(None))
    assert mine and theirs and all(x.exact or x.enclosure is not None for x in mine + theirs)


def test_rays_clear_the_density_caches_of_polynomial_values(monkeypatch):
    """The rays run the densities at polynomial gaps ``v * direction``; a constant polynomial
    hashes as its Fraction, so their cached integrals were read back by the search's
    rational gaps (a TypeError at k = 4 after other pairs): each ray clears them."""
    calls: list[int] = []
    real = RC.clear_caches
    monkeypatch.setattr(RC, "clear_caches", lambda: (calls.append(1), real())[1])
    m = L.noisy_top_k_gap(epsilon=1, k=4)
    d, e = m.distribution([2, 0, 0, 0, 0]), m.distribution([2, -1, 0, -1, 0])
    key = d.keys[0]
    found = chain_candidates(d.runs[key], e.runs[key], "p", "f", _tools(sympy.Rational(1, 4)))
    assert found is not None and calls and len(calls) <= len(ray_values(4))
    value = run_density(d.runs[key][0], (F(1), F(2), F(3)), "f")[1]
    assert not any(isinstance(x, VPoly) for k, q in value.items() for x in (k[1], q))


# ---------------------------------------- Laplace, k = 4 (three gaps): the rays reach the bound
# 1^5 vs 2 2 0 0 1 (the k = 3 worst shapes' kind of move): exact 1/2, the translation bound,
# approached along the diagonal ray of the pattern (0, 1, 4, 2); at 5 and 6 answers every
# pair measured is exact this way (docs/benchmarks.md), the first bracket is at 7 answers.
Q4, Q4B, W4 = [1, 1, 1, 1, 1], [2, 2, 0, 0, 1], (0, 1, 4, 2)


def _ratio(w, gaps):
    b = mpmath.mpf(8)  # 2 k / epsilon
    return mpmath.log(_density(Q4, w, b, "laplace", gaps) / _density(Q4B, w, b, "laplace", gaps))


def test_top4_laplace_loss_is_the_ray_limit_against_quadrature():
    """The loss 1/2, not attained, along (v, v, v) of W4: the defining integral at 30
    digits rises to 1/2 along the ray and stays below it."""
    loss = exactdp.privacy_loss(L.noisy_top_k_gap(epsilon=1, k=4), Q4, Q4B)
    assert loss.value == sympy.Rational(1, 2) and not loss.attained and loss.certified
    assert loss.output.startswith("the pattern (0, 1, 4, 2, REAL, REAL, REAL) with the gaps "
                                  "(1 v, 1 v, 1 v) as v -> +oo")
    with mpmath.workdps(30):
        along = [abs(_ratio(W4, [mpmath.mpf(v)] * 3)) for v in (1, 8, 32, 128)]
    assert along == sorted(along) and mpmath.mpf(1) / 2 - 10**-6 < along[-1] < mpmath.mpf(1) / 2


@pytest.mark.slow
def test_top4_laplace_no_pattern_exceeds_the_loss_on_a_grid():
    """Every pattern of Q4 vs Q4B (one per kind: the answers of Q4 are equal, so a pattern's
    densities depend only on the values of Q4B it orders) on a grid of gaps: at most 1/2."""
    kinds = {}
    for w in itertools.permutations(range(5), 4):
        loser = next(i for i in range(5) if i not in w)
        kinds.setdefault((tuple(Q4B[i] for i in w), Q4B[loser]), w)
    grid = [[mpmath.mpf(x) for x in g] for g in ((0.25, 0.25, 0.25), (3, 0.25, 24), (24, 24, 24))]
    with mpmath.workdps(15):
        worst = max(abs(_ratio(w, g)) for w in kinds.values() for g in grid)
    assert len(kinds) == 30 and mpmath.mpf("0.49") < worst <= mpmath.mpf(1) / 2


def test_top4_laplace_sampler_against_pattern_probabilities():
    sampled_like_probabilities(L.noisy_top_k_gap(epsilon=1, k=4).distribution(Q4B), 20_000,
                               5, 120)
