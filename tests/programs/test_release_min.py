"""Released values coupled only through their least (exactdp.programs.release_min): the
shape read from the runs, the lines, and the supremum on the lines against independent
routes (30-digit quadrature of SVT3's density over the threshold noise, dense grids of
outputs, the certified brackets the search gave before)."""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction as F

import mpmath
import pytest
import sympy

import exactdp
from exactdp.programs import library_release as L
from exactdp.programs import release_chain
from exactdp.programs.release_loss import _tools
from exactdp.programs.release_min import MinCoupled, lines, min_candidates, min_coupled
from exactdp.programs.release_select import select
from exactdp.programs.runs import REAL

from . import quadrature


def _runs(mech, q, q2, pattern):
    d, e = mech.distribution(q), mech.distribution(q2)
    key = d.keys[d.outputs.index(pattern)]
    return d.runs[key], e.runs[key]


def _pattern_sup(mech, q, q2, pattern):
    runs_p, runs_q = _runs(mech, q, q2, pattern)
    found = min_candidates(runs_p, runs_q, "P", "f", _tools(None))
    assert found is not None
    return select(found)[0]


@functools.lru_cache(maxsize=4096)
def _below(q: tuple, below: tuple, top: mpmath.mpf, b1: mpmath.mpf, b2: mpmath.mpf
           ) -> mpmath.mpf:
    """``int_{z <= top} f_rho(z) prod_{i in below} F_nu(1 + z - q_i) dz`` by quadrature
    (cached: on a grid the least released value takes few values)."""
    def g(z):
        out = quadrature.laplace_pdf(z, b1)
        for i in below:
            out *= quadrature.laplace_cdf(1 + z - q[i], b2)
        return out

    kinks = sorted({mpmath.mpf(k) for k in [0, *(q[i] - 1 for i in below)] if k < top})
    return mpmath.quad(g, [-mpmath.inf, *kinks, top])


def _svt3_ratio(q, q2, pattern, values, eps, c):
    """``|ln f/f'|`` of SVT3 at the output ``pattern`` with ``values`` at its REALs
    (threshold 1, scales 2/eps and 2c/eps): Lyu, Su and Li's Algorithm 3 conditioned on
    the threshold noise ``rho = z``, ``prod_released f_nu(v_i - q_i) int_{z <= min v - 1}
    f_rho(z) prod_below F_nu(1 + z - q_i) dz``, by quadrature."""
    pos = [i for i, x in enumerate(pattern) if x is REAL]
    below = tuple(i for i in range(max(pos)) if i not in pos)
    vals = [mpmath.mpf(sympy.Rational(v).p) / sympy.Rational(v).q for v in values]
    b1, b2 = mpmath.mpf(2) / eps, mpmath.mpf(2 * c) / eps
    top = min(vals) - 1

    def density(a):
        return _below(tuple(a), below, top, b1, b2) * mpmath.fprod(
            quadrature.laplace_pdf(v - a[i], b2) for i, v in zip(pos, vals, strict=True))

    return abs(mpmath.log(density(q) / density(q2)))


def test_min_coupled_reads_svt3s_released_values():
    (run,), (other,) = _runs(L.svt3(epsilon=1, threshold=1, c=2), (1, 1, 0, 0), (0, 0, 1, 1),
                             (False, False, REAL, REAL))
    # v_m = a_m + nu_m (a = 0, 0 here), compared with T + rho (kappa = T = 1), scale 2c/eps
    assert min_coupled(run) == MinCoupled((F(0), F(0)), (F(1), F(1)), (F(4), F(4)))
    assert min_coupled(other) == MinCoupled((F(1), F(1)), (F(1), F(1)), (F(4), F(4)))


@pytest.mark.parametrize(("mech", "pattern"), [
    # a gap a + nu - (T + rho) carries the shared noise: no factor per value
    (L.gap_svt(epsilon=1, threshold=1, c=2), (False, False, REAL, REAL)),
    # fresh noises compared with nothing: the separable route's, not this one's
    (L.numerical_svt(epsilon=1, threshold=1, c=2), (False, False, REAL, REAL)),
    # one released value: the one-value route's
    (L.svt3(epsilon=1, threshold=1, c=2), (False, False, False, REAL)),
])
def test_min_coupled_refuses_other_shapes(mech, pattern):
    (run,), _ = _runs(mech, (1, 1, 0, 0), (0, 0, 1, 1), pattern)
    assert min_coupled(run) is None


def test_lines_are_the_diagonal_and_each_value_held_past_both_centres():
    p = MinCoupled((F(0), F(3)), (F(1), F(2)), (F(4), F(4)))
    o = MinCoupled((F(1), F(2)), (F(1), F(2)), (F(4), F(4)))
    one, zero = F(1), F(0)
    assert lines(p, o) == [((one, zero), (one, one)),  # v_2 - 2 = v_1 - 1
                           ((one, zero), (zero, F(3))),  # v_2 = max(3, 2)
                           ((zero, F(1)), (one, zero))]  # v_1 = max(0, 1)
    three = MinCoupled((F(0),) * 3, (F(1),) * 3, (F(4),) * 3)
    assert len(lines(three, three)) == 7  # 2**3 - 1 nonempty sets of free values


@pytest.mark.parametrize(("q", "q2"), [((1, 1, 0, 0), (0, 0, 1, 1)),
                                       ((0, 1, 2, 0), (1, 0, 1, 1))])
def test_pattern_supremum_against_a_dense_grid(q, q2):
    """Every pattern with two released values at epsilon 1, c = 2: the supremum on the
    lines is at least every value of a grid of outputs (quadrature, 20 digits; spacing
    1/2 over [-4, 8]^2, the kinks at the answers and the threshold on it), and the
    grid's best is within 0.05 of it (the log ratio is 1/4-Lipschitz in each value here:
    each value's factor moves by at most 1/b = 1/4 per unit)."""
    mech = L.svt3(epsilon=1, threshold=1, c=2)
    d = mech.distribution(q)
    pats = [o for o in d.outputs if sum(x is REAL for x in o) == 2]
    pts = [F(k, 2) for k in range(-8, 17)]
    with mpmath.workdps(20):
        for pat in pats:
            sup = _pattern_sup(mech, q, q2, pat)
            assert sup.interval is None
            value = mpmath.mpf(str(sympy.N(sup.value, 30)))
            best = max(_svt3_ratio(q, q2, pat, (x, y), 1, 2)
                       for x, y in itertools.product(pts, pts))
            assert best <= value + mpmath.mpf(10) ** -15, pat
            assert value - best < 0.05, pat


def test_three_values_against_quadrature_and_a_grid():
    """c = 3, three released values, seven lines: the pattern's supremum at its witness by
    quadrature, and no point of a grid above it."""
    mech, q, q2 = L.svt3(epsilon=1, threshold=1, c=3), (1, 0, 1, 0), (0, 1, 2, 1)
    pat = (REAL, False, REAL, REAL)
    sup = _pattern_sup(mech, q, q2, pat)
    assert sup.interval is None and sup.attained
    values = sup.witness.split("with the values (")[1].split(")")[0].split(", ")
    with mpmath.workdps(30):
        value = mpmath.mpf(str(sympy.N(sup.value, 30)))
        at = _svt3_ratio(q, q2, pat, values, 1, 3)
        assert abs(at - value) < mpmath.mpf(10) ** -20
    pts = [F(k) for k in range(-4, 7, 2)] + [F(1)]
    with mpmath.workdps(15):
        for o in itertools.product(pts, repeat=3):
            assert _svt3_ratio(q, q2, pat, o, 1, 3) <= value + mpmath.mpf(10) ** -10


def test_an_undecided_line_falls_back_to_the_search_and_its_bracket(monkeypatch):
    """A critical point the lines cannot isolate (a ValueError) leaves the pattern to the
    search: the certified bracket of before, labelled as such."""
    def undecided(*args):
        raise ValueError("a critical point was not isolated")

    monkeypatch.setattr(release_chain, "min_candidates", undecided)
    monkeypatch.setattr(release_chain, "two_candidates", lambda *args: None)  # nor the plane
    loss = exactdp.privacy_loss(L.svt3(epsilon=1, threshold=1, c=2), (1, 1, 0, 0),
                                (0, 0, 1, 1))
    assert "a certified bracket [0.972808, 1.00000]" in loss.output


def test_svt34_parallel_at_c2_is_the_sum_of_its_parts_inside_its_former_bracket():
    """SVT34Parallel's log density ratio is the sum of its two parts' (independent noises),
    so its loss is at most the sum of theirs, equal when their worst outputs lean the same
    way; on (1, 1, 0) vs (0, 0, 1) at c = 2 they do: SVT3 at epsilon 1/2 (two released
    values, exact on the lines) plus SVT4 at epsilon 1/2 (no released value). The search
    gave the bracket [1.08290, 1.25] before."""
    from exactdp.programs import library as LB

    a, b, half = (1, 1, 0), (0, 0, 1), sympy.Rational(1, 2)
    both = exactdp.privacy_loss(L.svt34_parallel(epsilon=1, threshold=1, c=2), a, b)
    three = exactdp.privacy_loss(L.svt3(epsilon=half, threshold=1, c=2), a, b)
    four = exactdp.privacy_loss(LB.svt4(epsilon=half, threshold=1, c=2), a, b)
    assert both.interval is None and three.interval is None and both.attained
    assert abs(sympy.N(both.value - three.value - four.value, 60)) < sympy.Float(10) ** -50
    assert sympy.Rational(108289828, 10**8) <= both.value <= sympy.Rational(5, 4)
