"""The exact supremum over two released values (exactdp.programs.release_two): GapSVT with
c = 2, where the search gave a certified bracket. Independent routes: the density as a
one-dimensional integral over the threshold noise written from the algorithm (mpmath
quadrature at 30 digits) on a dense grid of released gaps (its largest log ratio is at most
the supremum, and close to it), and the program's own sampler (Monte Carlo)."""

from __future__ import annotations

import re
import time
from fractions import Fraction

import mpmath
import sympy

import exactdp
from exactdp.programs import laplace, program
from exactdp.programs import library_release as L
from exactdp.programs.release_loss import _tools
from exactdp.programs.release_select import abs_ball, select
from exactdp.programs.release_sup import exact_at
from exactdp.programs.release_two import (
    face_halves,
    line_density,
    two_candidates,
    undecided_text,
)
from exactdp.programs.release_two_cost import plane_base_seconds, plane_seconds

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
    found, settled, _ = two_candidates(d.runs[key], e.runs[key], f"the pattern {text}",
                                       "t", _tools(None))
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


@program(sensitivity=1, output="release", counts=("c",))
def adaptive_gt(q, epsilon, threshold, c=1, sigma=16, sensitivity=1):
    """AdaptiveSVT (library_release.adaptive_svt) with strict comparisons: a gap is
    released when above ``sigma`` (cheap) or above 0 (costly), never at exactly 0."""
    rho = laplace(2 * sensitivity / epsilon)
    out, spent = [], 0
    for a in q:
        if spent > 2 * c - 2:
            out.append(None)
            continue
        top = a + laplace(8 * c * sensitivity / epsilon) - (threshold + rho)
        if top > sigma:
            out.append(top)
            spent += 1
            continue
        middle = a + laplace(4 * c * sensitivity / epsilon) - (threshold + rho)
        if middle > 0:
            out.append(middle)
            spent += 2
        else:
            out.append(False)
    return tuple(out)


def adaptive_density(q, gaps, strict, sigma=1, rho_b=2, eta_b=16, xi_b=8):
    """AdaptiveSVT's density (c = 2, T = 0) of two released gaps, from the algorithm:
    ``int f_rho(z) prod_i h_i(z) dz`` with ``h_i = [g_i >= sigma] f_eta(g_i + z - a_i) +
    [g_i >= 0] F_eta(sigma + z - a_i) f_xi(g_i + z - a_i)`` (``>`` when ``strict``)."""
    gaps = [mpmath.mpf(Fraction(g).numerator) / Fraction(g).denominator
            if isinstance(g, (int, Fraction)) else g for g in gaps]

    def above(x, level):
        return x > level if strict else x >= level

    def h(z):
        out = laplace_pdf(z, rho_b)
        for a, g in zip(q, gaps, strict=True):
            part = laplace_pdf(g + z - a, eta_b) if above(g, sigma) else 0
            if above(g, 0):
                part += laplace_cdf(sigma + z - a, eta_b) * laplace_pdf(g + z - a, xi_b)
            out *= part
        return out

    return _integral(h, [0, *(a - g for a, g in zip(q, gaps, strict=True)),
                         *(a - sigma for a in q)])


def test_an_edge_on_a_strict_support_boundary_is_approached_not_attained():
    """AdaptiveSVT, c = 2, sigma = 1, (0, 0) against (0, 1), the pattern (REAL, REAL): its
    largest edge value is a critical point on the edge v = 0 (the costly branch's support
    boundary). With ``>=`` the output there has that density (attained: the quadrature's
    ratio on the edge equals it); with ``>`` the density on the edge is 0 under both inputs
    (quadrature and the exact one-point density), the value only approached from inside
    (the quadrature's ratio at v = 1e-9 equals it)."""
    for prog, strict in ((L.adaptive_svt(epsilon=1, threshold=0, c=2, sigma=1), False),
                         (adaptive_gt(epsilon=1, threshold=0, c=2, sigma=1), True)):
        d, e = prog.distribution((0, 0)), prog.distribution((0, 1))
        key = next(k for k, o in zip(d.keys, d.outputs, strict=True)
                   if str(o) == "(REAL, REAL)")
        found, *_ = two_candidates(d.runs[key], e.runs[key], "P", "t", _tools(None))
        edge = [c for c in found if "(0, 0) + t (1, 0) with t at" in c.witness]
        top = max(edge, key=lambda c: abs_ball(c).lower())
        assert top.attained is not strict and select(found)[0].attained is not strict
        x, y = (Fraction(s) for s in re.search(r"t at \[(\S+), (\S+)\]", top.witness).groups())
        u = (x + y) / 2
        mpmath.mp.dps = 30
        value = mpmath.mpf(abs_ball(top).mid().str(25, radius=False))
        f0 = adaptive_density((0, 0), (u, 0), strict)
        g0 = adaptive_density((0, 1), (u, 0), strict)
        exact = d.density((u, Fraction(0))), e.density((u, Fraction(0)))
        if strict:
            assert f0 == g0 == 0 and exact == (0, 0)
        else:
            assert abs(abs(mpmath.log(f0 / g0)) - value) < 1e-9
            assert abs(mpmath.mpf(sympy.N(exact[0], 30)) - f0) < 1e-25
        near = (u, mpmath.mpf(10) ** -9)
        inside = mpmath.log(adaptive_density((0, 0), near, strict)
                            / adaptive_density((0, 1), near, strict))
        assert abs(abs(inside) - value) < 1e-8


@program(sensitivity=1, output="release", counts=("c",))
def gap_gt(q, epsilon, threshold, c=1, sensitivity=1):
    """GapSVT (library_release.gap_svt) releasing the gap only when above 0."""
    rho = laplace(2 * sensitivity / epsilon)
    out, count = [], 0
    for a in q:
        if count == c:
            out.append(None)
            continue
        gap = a + laplace(4 * c * sensitivity / epsilon) - (threshold + rho)
        if gap > 0:
            out.append(gap)
            count += 1
        else:
            out.append(False)
    return tuple(out)


def test_line_density_is_the_density_on_the_line_itself():
    """GapSVT c = 2 on (0, 1): on the line v = 0 the line's own densities equal the exact
    one-point density at rational points (``>=``: the face's closure); with ``>`` they are
    0 on the whole line, while the quadrature density just above it is not."""
    tools = _tools(None)
    for prog, strict in ((L.gap_svt(epsilon=1, threshold=1, c=2), False),
                         (gap_gt(epsilon=1, threshold=1, c=2), True)):
        d, e = prog.distribution((0, 1)), prog.distribution((1, 0))
        key = next(k for k, o in zip(d.keys, d.outputs, strict=True)
                   if str(o) == "(REAL, REAL)")
        lam = tools.lam(tools.density(d.runs[key], (Fraction(1), Fraction(1)), "t")[0], "t")
        pieces = line_density((Fraction(0), Fraction(0), Fraction(1)), d.runs[key],
                              e.runs[key], lam, "t", tools)
        assert pieces and pieces[0][0] is None and pieces[-1][1] is None
        for t in (Fraction(-1, 3), Fraction(1, 3), Fraction(5, 2), Fraction(40)):
            lo, hi, f, g = next(p for p in pieces if (p[0] is None or p[0] < t)
                                and (p[1] is None or t < p[1]))
            want = d.density((t, Fraction(0))) if t > 0 else 0
            assert sympy.simplify(exact_at(f, t, lam) - want) == 0
            if strict:
                assert not f and not g
        mpmath.mp.dps = 20
        above = gap_density((0, 1), ("REAL", "REAL"), (mpmath.mpf(1) / 3, mpmath.mpf(10) ** -9))
        assert above > 1e-3


def test_gapsvt_c2_six_answers_is_exact_against_the_grid():
    """6 answers (7 noises a run, past the old PLANE_DRAWS = 5: a certified bracket
    before): exact now, approached as both gaps grow on its witness pattern; a dense grid of
    the quadrature density of that pattern stays below it and comes within 1e-4."""
    g = L.gap_svt(epsilon=1, threshold=1, c=2)
    a, b = (1, 1, 1, 0, 0, 0), (0, 0, 0, 1, 1, 1)
    loss = exactdp.privacy_loss(g, a, b)
    assert loss.interval is None and not loss.attained
    pattern = (False, False, False, "REAL", "REAL", None)
    assert "(False, False, False, REAL, REAL, None)" in loss.output
    v = mpmath.mpf(sympy.N(loss.value, 30))
    top = _grid_max(a, b, pattern)
    assert top <= v + mpmath.mpf(10) ** -15 and v - top < 1e-4


def test_face_halves_are_the_edges_half_planes():
    from exactdp.programs.release_plane import Face
    z, one = Fraction(0), Fraction(1)
    # u >= 0, v >= 0 and the line u + v = 5 on the face's far side: a triangle
    signs = (((z, one, z), 1), ((z, z, one), 1), ((Fraction(-5), one, one), -1))
    face = Face(signs, (one, one), None)
    want = [(z, one, z), (z, z, one), (Fraction(5), -one, -one)]
    assert sorted(face_halves(face)) == sorted(want)


def test_adaptive_svt_c2_two_gaps_exact_where_it_was_a_bracket():
    """AdaptiveSVT c = 2 (sigma 16) on (0, 0) against (0, 1): the two-gap pattern was
    unsettled (a face without a proved direction, and past the plane's old 28 lines); its
    bounded faces are now settled by their critical points (none inside) and its far strip
    slice by slice. Its supremum, approached at the corner (0, 16), bounds the quadrature
    density's log ratio on a grid and near that corner from above, within 1e-9."""
    g = L.adaptive_svt(epsilon=1, threshold=0, c=2)
    d, e = g.distribution((0, 0)), g.distribution((0, 1))
    key = next(k for k, o in zip(d.keys, d.outputs, strict=True) if str(o) == "(REAL, REAL)")
    runs = [*d.runs[key], *e.runs[key]]
    start = time.process_time()
    found, settled, why = two_candidates(d.runs[key], e.runs[key], "P", "t", _tools(None))
    cpu = time.process_time() - start
    assert settled and why == ""
    # the price counts the critical-point searches (about 940,000 enclosures): within 3x
    assert cpu <= 3 * sum(map(plane_seconds, runs)) / 2  # both inputs' runs: half each
    assert sum(map(plane_seconds, runs)) > 3 * sum(map(plane_base_seconds, runs))
    sup = select(found)[0]
    assert sup.interval is None and not sup.attained and "(0, 16)" in sup.witness
    mpmath.mp.dps = 20
    v = mpmath.mpf(sympy.N(sup.value, 30))
    top = mpmath.mpf(0)
    pts = [0, 1, 4, 15.9, 16, 20, 40]
    near = [(x, y) for x in (1e-7, -1e-7) for y in (16 - 1e-7, 16 + 1e-7)]
    for p in [(a, b) for a in pts for b in pts] + near:
        f0 = adaptive_density((0, 0), p, False, sigma=16)
        g0 = adaptive_density((0, 1), p, False, sigma=16)
        if f0 and g0:
            top = max(top, abs(mpmath.log(f0 / g0)))
    assert top <= v + mpmath.mpf(10) ** -15 and v - top < 1e-9


def test_an_undecided_face_is_named_in_the_bracket(monkeypatch):
    """A face left undecided (here every face, by a stub, none proved below the loss found)
    names itself in the pattern's bracket: a point inside it, its vertices and rays, the
    reason; the bracket's lower end is the exact candidate's value."""
    from exactdp.programs import release_two as T

    monkeypatch.setattr(T, "_face", lambda *a: ([], False))
    monkeypatch.setattr(T, "within", lambda *a: False)
    prog = L.bad_adaptive_svt(epsilon=1, threshold=0, c=2)
    d, e = prog.distribution((1, 1)), prog.distribution((0, 0))
    key = next(k for k, o in zip(d.keys, d.outputs, strict=True) if str(o) == "(REAL, REAL)")
    _, settled, why = two_candidates(d.runs[key], e.runs[key], "P", "t", _tools(None))
    assert not settled
    assert why.startswith("the face near (") and "vertices" in why and "undecided" in why
    loss = exactdp.privacy_loss(prog, (1, 1), (0, 0))
    assert loss.interval is not None and "values; the face near (" in loss.output
    # its lower end the exact ratio e^(-1/4) of the pattern (False, REAL) (by hand: the test
    # below), not an outward-rounded ball end
    assert loss.interval[0] == sympy.Rational(1, 4) and loss.interval[1] >= 0.375
    check = exactdp.check_dp(prog, (1, 1), (0, 0))  # reads the exact end: 3/8 <= epsilon 1
    assert check.holds and check.interval[0] == sympy.Rational(1, 4)


def test_undecided_text_names_the_cap():
    from exactdp.programs.release_plane import Face

    one, zero = Fraction(1), Fraction(0)
    face = Face((((zero, one, zero), 1), ((zero, zero, one), -1)), (one, -one), None)
    text = undecided_text(face, 3, [700, 600])
    assert text == ("the face near (1, -1) (one of 3; vertices (0, 0); unbounded along "
                    "(0, -1), (1, 0)) undecided: its work cap reached (700 enclosures of "
                    "the pattern so far, at most 600000 a face)")
    assert "no monotone direction" in undecided_text(face, 3, [10, 600])


def bad_density(q, outs, sigma=16, rho_b=2, eta_b=16, xi_b=8):
    """BadAdaptiveSVT's density (c = 2, T = 0, epsilon 1) of two outputs (False, or a
    released value), from the algorithm: ``int f_rho(z) prod_i h_i(z) dz``, ``h_i =
    F_eta(sigma + z - a) F_xi(z - a)`` for False, else ``[o - z >= sigma] f_eta(o - a) +
    [o >= 0] F_eta(sigma + z - a) f_xi(o + z - a)`` (the cheap branch releases the noisy
    answer, the costly one the gap)."""
    def h(z):
        out = laplace_pdf(z, rho_b)
        for a, o in zip(q, outs, strict=True):
            if o is False:
                out *= laplace_cdf(sigma + z - a, eta_b) * laplace_cdf(z - a, xi_b)
                continue
            part = laplace_pdf(o - a, eta_b) if o - z >= sigma else 0
            if o >= 0:
                part += laplace_cdf(sigma + z - a, eta_b) * laplace_pdf(o + z - a, xi_b)
            out *= part
        return out

    kinks = [0, *(a - sigma for a in q), *q]
    kinks += [x for a, o in zip(q, outs, strict=True) if o is not False for x in (o - sigma, a - o)]
    return _integral(h, kinks)


def test_bad_adaptive_svt_c2_is_exactly_one_quarter():
    """BadAdaptiveSVT c = 2 on (1, 1) against (0, 0): exactly 1/4 (it was the bracket [1/4,
    3/8], 10.5 s CPU). The pattern (False, REAL) with a value v < 0 (only the cheap
    branch's noisy answer, so rho <= v - 16: every CDF in its left tail) has the ratio
    exp(-1/16 - 1/8 - 1/16) by hand; every face of (REAL, REAL) is proved below it.
    Independent routes: the quadrature density (30 digits) gives that ratio at v < 0, and
    on a grid of (REAL, REAL) values (and far along each axis) a log ratio below 1/4 (an
    interior critical value 0.1936 near (7.7, 7.6), 0.1977 on an edge); the program's
    sampler (Monte Carlo) matches the quadrature density's mass of (REAL, REAL) in [0, 4)^2
    within 5 standard errors."""
    prog = L.bad_adaptive_svt(epsilon=1, threshold=0, c=2)
    d = prog.distribution((1, 1))
    start = time.process_time()
    loss = exactdp.privacy_loss(prog, (1, 1), (0, 0))
    cpu = time.process_time() - start
    assert loss.interval is None and loss.loss == sympy.Rational(1, 4)
    assert "(False, REAL)" in loss.output and loss.certified
    assert cpu <= 3 * d.loss_seconds("t")  # the estimate bounds it (measured 1.8 s CPU)
    mpmath.mp.dps = 30
    for v in (-1, mpmath.mpf(-1) / 3, -7):
        ratio = bad_density((1, 1), (False, v)) / bad_density((0, 0), (False, v))
        assert abs(mpmath.log(ratio) + mpmath.mpf(1) / 4) < mpmath.mpf(10) ** -20
    mpmath.mp.dps = 15
    pts = [0, 1, 4, 7.6, 8, 16, 16.5, 20, 60]
    top = max(abs(mpmath.log(bad_density((1, 1), p) / bad_density((0, 0), p)))
              for p in [(x, y) for x in pts for y in pts])
    assert 0.19 < top < 0.2
    n = 50_000
    pos, values = d.split(d.sample(n, rng=11))
    at = [str(o) for o in d.outputs].index("(REAL, REAL)")
    inside = (pos == at) & (values >= 0).all(axis=1) & (values < 4).all(axis=1)

    def mass(z, lo=0, hi=4, a=1):  # one output in [lo, hi): cheap or costly branch
        out = laplace_cdf(16 + z - a, 16) * (laplace_cdf(hi + z - a, 8) - laplace_cdf(
            lo + z - a, 8))
        cheap = max(lo, z + 16)
        return out + (laplace_cdf(hi - a, 16) - laplace_cdf(cheap - a, 16) if cheap < hi
                      else 0)

    m = _integral(lambda z: laplace_pdf(z, 2) * mass(z) ** 2, [0, -16, -12, 1, -3, -15])
    assert abs(inside.mean() - m) < 5 * (m * (1 - m) / n) ** 0.5
