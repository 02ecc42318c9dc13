"""The exact supremum over two released values (exactdp.programs.release_two): GapSVT with
c = 2, where the search gave a certified bracket. Independent routes: the density as a
one-dimensional integral over the threshold noise written from the algorithm (mpmath
quadrature at 30 digits) on a dense grid of released gaps (its largest log ratio is at most
the supremum, and close to it), and the program's own sampler (Monte Carlo)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy

import exactdp
from exactdp.programs import library_release as L
from exactdp.programs.release_loss import _tools
from exactdp.programs.release_select import select
from exactdp.programs.release_two import plane_shape, two_candidates

from .quadrature import _integral, laplace_cdf, laplace_pdf


def gap_density(q, pattern, gaps, T=1, rho_b=2, nu_b=8):
    """GapSVT's density of ``pattern`` (False / REAL / None per query) at the released
    gaps: ``int f_rho(z) prod_False F(T + z - a_i) prod_REAL f_nu(g_j + T + z - a_j) dz``."""
    falses = [a for a, o in zip(q, pattern, strict=True) if o is False]
    reals = [a for a, o in zip(q, pattern, strict=True) if o == "REAL"]

    def h(z):
        out = laplace_pdf(z, rho_b)
        for a in falses:
            out *= laplace_cdf(T + z - a, nu_b)
        for a, g in zip(reals, gaps, strict=True):
            out *= laplace_pdf(g + T + z - a, nu_b)
        return out

    kinks = [0, *(a - T for a in falses), *(a - T - g for a, g in zip(reals, gaps, strict=True))]
    return _integral(h, kinks)


def _pattern_sup(prog, a, b, text):
    d, e = prog.distribution(a), prog.distribution(b)
    key = next(k for k, o in zip(d.keys, d.outputs, strict=True) if str(o) == text)
    found, settled = two_candidates(d.runs[key], e.runs[key], f"the pattern {text}", "t",
                                    _tools(None))
    return select(found)[0], settled


def _grid_max(a, b, pattern):
    mpmath.mp.dps = 20
    top = mpmath.mpf(0)
    pts = [0, 0.5, 1, 2, 3, 5, 10, 20, 60]
    for u in pts:
        for v in pts:
            r = abs(mpmath.log(gap_density(a, pattern, (u, v)) / gap_density(b, pattern, (u, v))))
            top = max(top, r)
    return top


def test_gapsvt_c2_two_gaps_is_exact_where_it_was_a_bracket():
    """(1, 1, 0, 0) vs (0, 0, 1, 1): the bracket [0.458749, 0.5] is now the exact supremum
    0.458749..., approached as both gaps grow (never attained); a dense grid of the
    quadrature density stays below it and reaches it within 1e-5."""
    g = L.gap_svt(epsilon=1, threshold=1, c=2)
    loss = exactdp.privacy_loss(g, (1, 1, 0, 0), (0, 0, 1, 1))
    assert loss.interval is None and loss.value is not None and not loss.attained
    assert "(False, False, REAL, REAL)" in loss.output and "t -> +oo" in loss.output
    top = _grid_max((1, 1, 0, 0), (0, 0, 1, 1), (False, False, "REAL", "REAL"))
    v = mpmath.mpf(sympy.N(loss.value, 30))
    assert top <= v + mpmath.mpf(10) ** -15 and v - top < 1e-5
    assert sympy.Rational(458748, 10**6) < loss.value < sympy.Rational(1, 2)


def test_gapsvt_c2_three_queries_each_two_gap_pattern_against_the_grid():
    """3 queries: the pair's loss was the bracket [0.319496, 0.375]; exact now. Each
    two-gap pattern's supremum is settled and bounds a dense quadrature grid from above,
    closely."""
    g = L.gap_svt(epsilon=1, threshold=1, c=2)
    a, b = (1, 1, 0), (0, 0, 1)
    loss = exactdp.privacy_loss(g, a, b)
    assert loss.interval is None
    assert sympy.Rational(319495, 10**6) < loss.value < sympy.Rational(3, 8)
    for text, pattern in (("(False, REAL, REAL)", (False, "REAL", "REAL")),
                          ("(REAL, REAL, None)", ("REAL", "REAL", None))):
        sup, settled = _pattern_sup(g, a, b, text)
        assert settled and sup.interval is None
        v = mpmath.mpf(sympy.N(sup.loss, 30))
        top = _grid_max(a, b, pattern)
        assert top <= v + mpmath.mpf(10) ** -15 and v - top < 1e-3
        assert v <= mpmath.mpf(sympy.N(loss.value, 30))


def test_the_density_of_two_gaps_matches_the_sampler():
    """Monte Carlo (5e4 runs of the program's sampler): the frequency of (False, False,
    REAL, REAL) with both gaps in [0, 2) matches its probability by quadrature over the
    threshold noise, the gaps integrated as CDF differences (within 5 standard errors); the
    exact density equals the quadrature at a point to 25 digits."""
    g = L.gap_svt(epsilon=1, threshold=1, c=2)
    q, n = (1, 1, 0, 0), 50_000
    d = g.distribution(q)
    pos, values = d.split(d.sample(n, rng=7))
    at = [str(o) for o in d.outputs].index("(False, False, REAL, REAL)")
    box = (pos == at) & (values[:, 0] < 2) & (values[:, 1] < 2)
    mpmath.mp.dps = 15

    def h(z):  # both gaps in [0, 2): each query noise between two CDF points
        out = laplace_pdf(z, 2) * laplace_cdf(z, 8) ** 2
        return out * (laplace_cdf(3 + z, 8) - laplace_cdf(1 + z, 8)) ** 2

    mass = _integral(h, [0, -1, -3])
    se = (mass * (1 - mass) / n) ** 0.5
    assert abs(box.mean() - mass) < 5 * se
    mpmath.mp.dps = 30
    exact = d.density((False, False, Fraction(1, 3), Fraction(5, 2)))
    ref = gap_density(q, (False, False, "REAL", "REAL"), (mpmath.mpf(1) / 3, mpmath.mpf(5) / 2))
    assert abs(mpmath.mpf(sympy.N(exact, 40)) - ref) < mpmath.mpf(10) ** -25 * ref


def test_plane_shape_needs_two_values_of_laplace_noise():
    g = L.gap_svt(epsilon=1, threshold=1, c=2)
    d = g.distribution((1, 1, 0))
    two = [k for k, o in zip(d.keys, d.outputs, strict=True)
           if sum(1 for x in o if x not in (False, None)) == 2]
    one = [k for k, o in zip(d.keys, d.outputs, strict=True)
           if sum(1 for x in o if x not in (False, None)) == 1]
    assert plane_shape(d.runs[two[0]], d.runs[two[0]])
    assert not plane_shape(d.runs[one[0]], d.runs[one[0]])


def test_the_plane_route_takes_runs_of_at_most_plane_draws_noises():
    """GapSVT c = 2 at 4 answers (5 noises) is the plane's; at 5 answers (6 noises) the
    route grew to 19 s CPU a pair (over 120 s at 10 against an estimate of 22 s): those
    runs keep the search's certified bracket."""
    from exactdp.programs import release_two as T
    from exactdp.programs.release import release_trace

    g = L.gap_svt(epsilon=1, threshold=1, c=2)
    four = [r for r in release_trace(g, (1,) * 4).runs if len(r.released) == 2]
    assert four and all(len(r.draws) <= T.PLANE_DRAWS for r in four)
    assert all(T.plane_shape([r], [r]) for r in four)
    five = [r for r in release_trace(g, (1,) * 5).runs
            if len(r.released) == 2 and len(r.draws) > T.PLANE_DRAWS]
    assert five and not any(T.plane_shape([r], [r]) for r in five)
