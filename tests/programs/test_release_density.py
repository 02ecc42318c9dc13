"""Densities of released values by conditioning (exactdp.programs.release_density): one
run's density against closed forms and quadrature at 30 digits."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy

from exactdp.programs import exponential, laplace, program
from exactdp.programs.release_density import run_density
from exactdp.scores import as_scores

R = sympy.Rational


@program(output="release")
def noisy_sum(q, epsilon):
    return q[0] + laplace(1 / epsilon) + exponential(2 / epsilon)


def test_a_sum_of_independent_noises_is_their_convolution():
    d = noisy_sum(epsilon=1).distribution([1])
    with mpmath.workdps(30):
        for v in (R(-2), R(1, 2), R(4)):
            x = mpmath.mpf(v.p) / v.q
            def integrand(e, x=x):
                return mpmath.exp(-abs(x - 1 - e)) / 2 * mpmath.exp(-e / 2) / 2
            conv = mpmath.quad(integrand, [0, max(x - 1, 0), mpmath.inf])
            assert abs(conv - sympy.N(d.density(v), 40)) < mpmath.mpf(10) ** -28


@program(output="release")
def gap(q, epsilon):
    g = q[0] + laplace(2) - (1 + laplace(1))
    return g if g >= 0 else None


def test_run_density_of_a_gap_fixes_the_leaf_against_its_centre():
    # g = a + nu - (1 + rho), nu ~ Lap(2), rho ~ Lap(1): the density of g at 1 on g >= 0 is
    # int f_rho(r) f_nu(g + 1 + r - a) dr, by quadrature at 30 digits
    (run,) = [r for r in gap(epsilon=1).trace(as_scores([0])).runs if r.released]
    unit, value = run_density(run, (Fraction(1),), "here")
    got = sum(q * unit**e * sympy.exp(unit * sympy.Rational(w)) for (e, w), q in value.items())
    with mpmath.workdps(30):
        quad = mpmath.quad(lambda r: mpmath.exp(-abs(r)) / 2 * mpmath.exp(-abs(2 + r) / 2) / 4,
                           [-mpmath.inf, -2, 0, mpmath.inf])
        assert abs(sympy.N(got, 40) - quad) < mpmath.mpf(10) ** -28


def _pdf(x, b):
    return mpmath.exp(-abs(x) / b) / (2 * b)


def _cdf(x, b):
    return mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2


def test_adaptive_svt_density_at_10_queries_against_quadrature_at_30_digits():
    # the adaptive sparse vector (eps = 1/10, T = 1, sigma = 16, c = 1): five False answers
    # (five pairs of leaves, equal in two groups: one power each), then the gap v released;
    # given rho = z: prod F_eta(x + 16) F_xi(x) times f_eta(v + x) [v >= 16] + F_eta(x + 16)
    # f_xi(v + x), x = 1 + z - a, eta ~ Lap(80), xi ~ Lap(40), rho ~ Lap(20) (kinks: z = 0,
    # a - 17, a - 1, -1 - v)
    from exactdp.programs.library_release import adaptive_svt
    q = (2, 2, 2, 2, 2, 0, 0, 0, 0, 0)
    d = adaptive_svt(epsilon=R(1, 10), threshold=1).distribution(q)
    for v in (R(3), R(17)):
        def g(z, v=v):
            v = mpmath.mpf(v.p) / v.q
            out = _pdf(z, 20)
            for a in q[:5]:
                out *= _cdf(1 + z - a + 16, 80) * _cdf(1 + z - a, 40)
            x = 1 + z - q[5]
            top = _pdf(v + x, 80) if v >= 16 else 0
            return out * (top + _cdf(x + 16, 80) * _pdf(v + x, 40))
        with mpmath.workdps(30):
            kinks = sorted({-17, -15, -1, 0, 1, -1 - int(v)})
            want = mpmath.quad(g, [-mpmath.inf, *kinks, mpmath.inf])
            got = sympy.N(d.density((False,) * 5 + (v,) + (None,) * 4), 40)
            assert abs(got - want) < mpmath.mpf(10) ** -28 * abs(want), v


def test_power_and_leaves_product_against_the_product_leaf_by_leaf():
    from exactdp.exact.piecewise_exp import times
    from exactdp.programs.integrate_plan import Bound
    from exactdp.programs.release_density import leaf_groups, leaves_product, power

    F = Fraction
    g = {(F(0), F(0)): F(1), (F(-1, 2), F(3)): F(-1, 2), (F(1), F(-1)): F(1, 3)}
    for piece in (g, dict(list(g.items())[:2])):
        want = piece
        for n in range(2, 7):
            want = times(want, piece)
            assert power(piece, n) == want
    up = (Bound(F(1), F(2), False, True, "a.py:1"),)
    both = (Bound(F(1), F(-3), True, True, "a.py:2"), Bound(F(1), F(2), False, True, "a.py:3"))
    leaves = ((1, up), (2, both), (3, up), (4, up), (5, both))
    laws, rates = ["laplace"] * 6, (F(1), F(1), F(1), F(2), F(1), F(1))
    groups = leaf_groups(leaves, laws, rates)
    assert [n for *_, n in groups] == [2, 2, 1]
    for t in (F(-7), F(-5, 2), F(1), F(9)):
        want = {(F(0), F(0)): F(1)}
        for leaf, bounds in leaves:  # P(leaf in its interval | z = t) by its closed form
            x = [b.at(t) for b in bounds]
            factor = _leaf_probability(bounds, rates[leaf], t, x)
            want = times(want, factor)
        assert leaves_product(groups, t) == want, t


def _leaf_probability(bounds, rate, t, x):
    """``P(lo < nu < hi | z)`` of a Laplace leaf of rate ``rate`` near ``z = t``: each
    end's CDF, ``exp(rate e) / 2`` below 0 else ``1 - exp(-rate e) / 2``, ``e = s z + o``."""
    from exactdp.exact.piecewise_exp import plus

    def cdf(b, at):
        if at < 0:
            return {(rate * b.slope, rate * b.offset): Fraction(1, 2)}
        return plus({(Fraction(0), Fraction(0)): Fraction(1)},
                    {(-rate * b.slope, -rate * b.offset): Fraction(-1, 2)})

    (hi,) = [(b, a) for b, a in zip(bounds, x, strict=True) if not b.lower]
    out = cdf(*hi)
    for b, a in zip(bounds, x, strict=True):
        if b.lower:
            out = plus(out, cdf(b, a), -1)
    return out


def test_clear_caches_after_polynomial_values():
    """The densities run with the released values as polynomials (the plane's cells) leave
    cache entries a constant polynomial shares with its Fraction; after clear_caches the
    rational run's terms are rationals again (AdaptiveSVT c = 2 on (0, 0))."""
    from exactdp.programs.library_release import adaptive_svt
    from exactdp.programs.release_density import clear_caches
    from exactdp.programs.release_plane import U, V, plane_at
    d = adaptive_svt(epsilon=1, threshold=0, c=2).distribution((0, 0))
    key = next(k for k, o in zip(d.keys, d.outputs, strict=True) if str(o) == "(REAL, REAL)")
    run = d.runs[key][0]
    with plane_at((Fraction(1, 6), Fraction(1, 4))):
        run_density(run, (U, V), "t")
    clear_caches()
    _, value = run_density(run, (Fraction(1, 6), Fraction(1, 4)), "t")
    assert all(isinstance(w, Fraction) and isinstance(q, Fraction)
               for (_, w), q in value.items())
