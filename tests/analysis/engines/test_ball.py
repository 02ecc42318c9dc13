"""The certified ball route of the privacy analyzer (mechanisms without exact probabilities).

Report-noisy-max with Gaussian noise has no closed form, so privacy_loss, check_dp,
bounded_range and check_zcdp decide it with python-flint balls (``engine == "ball"``).
Independent routes used here:

- two items: ``Pr[lose] = Phi(-g/(sigma sqrt 2))`` (difference of two normals), in mpmath;
- any n: ``Pr[r] = integral phi(y + z_r) prod_{s != r} Phi(y + z_s) dy`` by
  ``mpmath.quad`` written in this file (``z = (q* - q)/sigma``);
- the Gaussian mechanism's zCDP bound (Bun & Steinke 2016, Prop. 1.6 and Lemma 2.4) with
  post-processing: RNM-Gaussian is ``min_c ||q - q' - c 1||_2^2 / (2 sigma^2)``-zCDP on a
  pair, since the argmax is invariant under shifts.
"""

from __future__ import annotations

import itertools
from functools import cache

import mpmath
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import exactdp
import exactdp.analysis.engines.ball as ball_engine
from exactdp import GaussianNoisyMax, PermuteAndFlip, ReportNoisyMax
from exactdp.analysis import bounded_range, check_zcdp, renyi_divergence
from exactdp.analysis.check import Witness, check_dp
from exactdp.analysis.engines.ball import BallUndecided
from exactdp.analysis.loss import privacy_loss
from exactdp.exact import UndecidedSignError, sign
from tests.reference import GAUSSIAN_PAIR_LOSS_SIGMA1

DPS = 60


def gaussian(sigma) -> GaussianNoisyMax:
    return GaussianNoisyMax(sigma)


def mpq(x) -> mpmath.mpf:
    """An exact rational (int, "p/q", sympy Rational) as an mpf at the working precision."""
    r = sympy.Rational(x)
    return mpmath.mpf(int(r.p)) / int(r.q)


def lose2(g, sigma) -> mpmath.mpf:
    """Two items, gap g: Pr[the lower item wins] = Phi(-g/(sigma sqrt 2))."""
    with mpmath.workdps(DPS):
        return mpmath.ncdf(-mpq(g) / (mpq(sigma) * mpmath.sqrt(2)))


def quad_probs(scores: tuple, sigma) -> tuple:
    """RNM-Gaussian probabilities by mpmath quadrature of the defining integral (22 digits).

    The integral depends only on the gaps, and relabelling the items permutes the result,
    so it is computed once per sorted gap vector.
    """
    top = max(scores)
    gaps = [top - v for v in scores]
    order = sorted(range(len(gaps)), key=lambda k: gaps[k])
    vals = _quad_gaps(tuple(gaps[k] for k in order), sigma)
    out = [None] * len(gaps)
    for pos, k in enumerate(order):
        out[k] = vals[pos]
    return tuple(out)


@cache
def _quad_gaps(gaps: tuple, sigma) -> tuple:
    with mpmath.workdps(22):
        s = mpq(sigma)
        z = [mpq(g) / s for g in gaps]
        out = []
        for r, zr in enumerate(z):
            others = [x for k, x in enumerate(z) if k != r]

            def f(y, zr=zr, others=others):
                return mpmath.npdf(y + zr) * mpmath.fprod(mpmath.ncdf(y + x) for x in others)

            out.append(mpmath.quad(f, [-mpmath.inf, -zr, 0, mpmath.inf]))
        return tuple(out)


def quad_loss(q, q2, sigma) -> mpmath.mpf:
    P, Q = quad_probs(tuple(q), sigma), quad_probs(tuple(q2), sigma)
    with mpmath.workdps(22):
        return max(abs(mpmath.log(a / b)) for a, b in zip(P, Q, strict=True))


def inside(interval, value, slack=None) -> bool:
    """``lo - slack <= value <= hi + slack`` for an interval of sympy Floats (exact)."""
    lo, hi = interval
    slack = mpmath.mpf(10) ** -45 if slack is None else slack
    with mpmath.workprec(400):
        a, b = mpmath.mpf(lo._mpf_), mpmath.mpf(hi._mpf_)
        return bool(a - slack <= value <= b + slack)


# =============================================================================== privacy_loss
def test_two_items_loss_matches_closed_form():
    sigma = 1
    L = privacy_loss(gaussian(sigma), (0, 0), (0, -1))
    with mpmath.workdps(DPS):
        # P = (1/2, 1/2), P' = (1 - lose, lose): the worst output is the one that lost
        expected = mpmath.log(mpmath.mpf(1) / 2 / lose2(1, sigma))
        other = abs(mpmath.log(mpmath.mpf(1) / 2 / (1 - lose2(1, sigma))))
        assert expected > other
        assert L.engine == "ball" and L.dps == 30
        assert isinstance(L.loss, sympy.Float) and L.value is None  # no exact value
        assert inside(L.interval, expected)
        lo, hi = L.interval
        assert hi - lo < sympy.Float("1e-30")
        assert abs(mpmath.mpf(str(L.loss)) - expected) < mpmath.mpf(10) ** -28
        assert L.output == 1 and L.direction == 1 and L.candidates == (1,)
        assert abs(mpmath.mpf(str(L.ratios[1])) - mpmath.mpf(1) / 2 / lose2(1, sigma)) < 1e-28
    assert abs(float(L) - GAUSSIAN_PAIR_LOSS_SIGMA1) < 1e-15


@settings(max_examples=15, deadline=None)
@given(
    st.integers(min_value=0, max_value=4),
    st.sampled_from(["1/2", "1", "3/2", "3"]),
    st.sampled_from([(0, -1), (1, -1), (-1, 1), (0, 1)]),
)
def test_two_items_property(g, sigma, move):
    q = (0, -g)
    q2 = (q[0] + move[0], q[1] + move[1])
    L = privacy_loss(gaussian(sigma), q, q2)
    with mpmath.workdps(DPS):
        def probs(v):
            lose = lose2(v[0] - v[1], sigma) if v[0] >= v[1] else 1 - lose2(v[1] - v[0], sigma)
            return (1 - lose, lose)

        P, Q = probs(q), probs(q2)
        expected = max(abs(mpmath.log(a / b)) for a, b in zip(P, Q, strict=True))
        assert inside(L.interval, expected, mpmath.mpf(10) ** -40)
        # the core's balls share one absolute radius (~1e-35 at dps 30): tiny probabilities
        # (down to 1e-17 here) would be known to ~18 digits only; the engine then retries
        assert L.interval[1] - L.interval[0] < sympy.Float("1e-20")


def test_three_items_loss_matches_quadrature():
    q, q2, sigma = (0, -1, -2), (1, -2, -1), "3/2"
    L = privacy_loss(gaussian(sigma), q, q2)
    P, Q = quad_probs(q, sigma), quad_probs(q2, sigma)
    with mpmath.workdps(22):
        per = [abs(mpmath.log(a / b)) for a, b in zip(P, Q, strict=True)]
        assert inside(L.interval, max(per), mpmath.mpf(10) ** -18)
        assert L.output == per.index(max(per))
        for k in range(3):
            assert abs(mpmath.mpf(str(L.ratios[k])) - P[k] / Q[k]) < 1e-18


def test_exact_tie_is_reported_as_candidates_not_guessed():
    # outputs 1 and 2 are exchangeable: their losses are equal, which balls cannot decide
    q, q2 = (0, 0, 0), (-1, -1, 1)
    L = privacy_loss(gaussian(1), q, q2)
    P, Q = quad_probs(q, 1), quad_probs(q2, 1)
    with mpmath.workdps(22):
        per = [abs(mpmath.log(a / b)) for a, b in zip(P, Q, strict=True)]
        assert abs(per[0] - per[1]) < 1e-25 and per[0] > per[2]
    assert L.candidates == (0, 1)
    assert L.output in (0, 1) and L.direction == 1
    assert inside(L.interval, quad_loss(q, q2, 1), mpmath.mpf(10) ** -18)


# =============================================================================== check_dp
def test_check_dp_needs_an_explicit_epsilon():
    with pytest.raises(ValueError, match="check_dp.*epsilon=None.*epsilon=..."):
        check_dp(gaussian(1), (0, 0), (0, -1))


def test_check_dp_decided_by_the_interval():
    m = gaussian(1)
    with mpmath.workdps(DPS):
        loss = mpmath.log(mpmath.mpf(1) / 2 / lose2(1, 1))
        above = sympy.Rational(mpmath.nstr(loss + mpmath.mpf(10) ** -18, 35))
        below = sympy.Rational(mpmath.nstr(loss - mpmath.mpf(10) ** -18, 35))
    yes = check_dp(m, (0, 0), (0, -1), epsilon=above)
    no = check_dp(m, (0, 0), (0, -1), epsilon=below)
    assert yes.holds and not no.holds
    assert yes.engine == no.engine == "ball"
    assert no.witness == Witness((0, 0), (0, -1), 1)
    assert no.epsilon == below
    assert inside(no.interval, loss)


def test_check_dp_retries_at_higher_precision_then_refuses():
    m = gaussian(1)
    with mpmath.workdps(80):
        loss = mpmath.log(mpmath.mpf(1) / 2 / mpmath.ncdf(-1 / mpmath.sqrt(2)))
        # epsilon agrees with the loss to 45 digits: undecided at 30 digits, decided at 60
        eps = sympy.Rational(mpmath.nstr(loss, 45, strip_zeros=False))
        truth_holds = loss <= mpq(eps)
    res = check_dp(m, (0, 0), (0, -1), epsilon=eps)
    assert res.dps == 60
    assert res.holds == bool(truth_holds)
    old = ball_engine.BALL_DPS
    try:
        ball_engine.BALL_DPS = (30,)
        with pytest.raises(BallUndecided, match="undecided at dps=30"):
            check_dp(m, (0, 0), (0, -1), epsilon=eps)
    finally:
        ball_engine.BALL_DPS = old
    assert issubclass(BallUndecided, ValueError)


def test_check_dp_exhaustive_search_finds_the_worst_neighbour_n3():
    m, q, sigma = gaussian(2), (0, -1, -2), 2
    nbrs = [tuple(a + s for a, s in zip(q, mv, strict=True))
            for mv in itertools.product((-1, 0, 1), repeat=3) if any(mv)]
    losses = {v: quad_loss(q, v, sigma) for v in nbrs}
    worst = max(losses.values())
    res = check_dp(m, q, epsilon=1)
    assert res.neighbours_checked == 26 and res.search.startswith("exhaustive")
    assert res.engine == "ball" and res.holds == (worst <= 1)
    with mpmath.workdps(22):
        assert inside(res.interval, worst, mpmath.mpf(10) ** -18)
        assert abs(losses[res.witness.neighbour] - worst) < 1e-18
        # the witness output attains the loss on the witness pair
        P, Q = quad_probs(q, sigma), quad_probs(res.witness.neighbour, sigma)
        r = res.witness.output
        assert abs(abs(mpmath.log(P[r] / Q[r])) - worst) < 1e-18
    # on the witness pair, a claim just below the worst loss fails and just above holds
    lo, hi = res.interval
    nb = res.witness.neighbour
    assert not check_dp(m, q, nb, epsilon=sympy.Rational(lo) - sympy.Rational(1, 10**12))
    assert check_dp(m, q, nb, epsilon=sympy.Rational(hi) + sympy.Rational(1, 10**12))


def test_certify_dp_refuses_gaussian_clearly():
    with pytest.raises(ValueError, match="certify_dp.*no exact probabilities"):
        exactdp.certify_dp(gaussian(1), (0, -1), (1, -2))


# =============================================================================== bounded range
def test_bounded_range_two_items_closed_form():
    b = bounded_range(gaussian(1), (0, 0), (0, -1))
    with mpmath.workdps(DPS):
        lose = lose2(1, 1)
        expected = mpmath.log((1 - lose) / lose)  # ln(P_1/P'_1) - ln(P_0/P'_0)
    assert b.engine == "ball" and inside(b.interval, expected)
    assert (b.witness.output, b.low_output) == (1, 0)
    assert b.holds_at(sympy.Rational(116, 100)) and not b.holds_at(sympy.Rational(115, 100))


def test_bounded_range_n3_matches_quadrature():
    m, q, sigma = gaussian(1), (0, 0, 0), 1
    b = bounded_range(m, q)
    best = 0
    for mv in itertools.product((-1, 0, 1), repeat=3):
        if not any(mv):
            continue
        v = tuple(a + s for a, s in zip(q, mv, strict=True))
        P, Q = quad_probs(q, sigma), quad_probs(v, sigma)
        with mpmath.workdps(22):
            logs = [mpmath.log(a / c) for a, c in zip(P, Q, strict=True)]
            best = max(best, max(logs) - min(logs))
    assert inside(b.interval, best, mpmath.mpf(10) ** -18)
    assert b.pairs_checked == 26


# =============================================================================== zCDP
def test_renyi_numerics_two_items():
    # D_alpha of (1/2, 1/2) || (1 - lose, lose), closed form, against check_zcdp's enclosure
    m = gaussian(1)
    with mpmath.workdps(DPS):
        lose = lose2(1, 1)
        P, Q = (mpmath.mpf(1) / 2, mpmath.mpf(1) / 2), (1 - lose, lose)

        def D(a):
            if a == 1:
                return mpmath.fsum(p * mpmath.log(p / c) for p, c in zip(P, Q, strict=True))
            s = mpmath.fsum(p**a * c ** (1 - a) for p, c in zip(P, Q, strict=True))
            return mpmath.log(s) / (a - 1)

        ratios = {a: D(a) / a for a in (1, mpmath.mpf(3) / 2, 2, 4)}
        top = max(ratios.values())
        rho_hi = sympy.Rational(mpmath.nstr(top + mpmath.mpf(10) ** -15, 30))
        rho_lo = sympy.Rational(mpmath.nstr(top - mpmath.mpf(10) ** -15, 30))
        a_star = max(ratios, key=ratios.get)
        d_star, d_two = D(a_star), D(2)
    alphas = ("1", "3/2", "2", "4")
    ok = check_zcdp(m, (0, 0), rho_hi, (0, -1), alphas=alphas)
    bad = check_zcdp(m, (0, 0), rho_lo, (0, -1), alphas=alphas)
    assert ok.holds and not bad.holds and ok.engine == bad.engine == "ball"
    assert mpmath.mpf(bad.alpha.p) / bad.alpha.q == a_star
    assert inside(bad.interval, d_star)
    # the exact renyi_divergence on the closed form agrees (independent sympy route)
    lose_s = sympy.erfc(1 / (sympy.sqrt(2) * sympy.sqrt(2))) / 2
    exact = renyi_divergence((sympy.S.Half, sympy.S.Half), (1 - lose_s, lose_s), 2).value
    assert abs(sympy.N(exact, 35) - sympy.Float(mpmath.nstr(d_two, 40), 40)) < sympy.Float("1e-30")


def test_zcdp_gaussian_post_processing_bound_holds_and_single_coordinate_rho_fails():
    m, q = gaussian(1), (0, 0, 0)
    # post-processing of the Gaussian mechanism: rho = max_s ||s - mean(s)||^2 / 2 = 4/3
    rho_pp = max(
        sum((x - sympy.Rational(sum(s), 3)) ** 2 for x in s) / 2
        for s in itertools.product((-1, 0, 1), repeat=3)
    )
    assert rho_pp == sympy.Rational(4, 3)
    assert check_zcdp(m, q, rho_pp).holds
    # the one-coordinate Gaussian rho = Delta^2/(2 sigma^2) = 1/2 is violated: a certificate
    res = check_zcdp(m, q, sympy.Rational(1, 2))
    assert not res.holds and res.engine == "ball"
    P, Q = quad_probs(q, 1), quad_probs(res.witness.neighbour, 1)
    with mpmath.workdps(22):
        a = mpmath.mpf(res.alpha.p) / res.alpha.q
        if a == 1:
            d = mpmath.fsum(p * mpmath.log(p / c) for p, c in zip(P, Q, strict=True))
        else:
            d = mpmath.log(mpmath.fsum(p**a * c ** (1 - a) for p, c in zip(P, Q, strict=True)))
            d /= a - 1
        assert d > a / 2
        assert inside(res.interval, d, mpmath.mpf(10) ** -18)
    with pytest.raises(ValueError, match="rho .* epsilon=None"):
        check_zcdp(m, q, sympy.Symbol("epsilon") ** 2)


# =============================================================================== exact unchanged
def test_exact_mechanisms_keep_exact_engines():
    pf = exactdp.PermuteAndFlip(1)
    L = privacy_loss(pf, (0, 0), (0, 1))
    assert L.engine == "x-form" and L.interval is None and L.dps is None
    # P(0,0) = (1/2, 1/2), P(0,1) = (e^{-1/2}/2, 1 - e^{-1/2}/2): the loss is 1/2 (output 0)
    assert L.value == sympy.S.Half and L.output == 0
    lap = ReportNoisyMax(1, noise="laplace")
    c = check_dp(lap, (0, -1, -2))
    assert c.engine in ("x-form", "generic") and c.interval is None and c.holds
    z = check_zcdp(exactdp.ExponentialMechanism(1), (0, -1), sympy.Rational(1, 8))
    assert z.engine == "exact" and z.holds

S, R, Z, E = sympy.sqrt, sympy.Rational, sympy.Integer, sympy.exp


# ---------------------------------------------------------------- hole 4 via the analyzer
def test_ball_engine_on_pf_with_a_huge_irrational_gap_is_certified():
    # q = (0, -g), q' = (1, -g - 1), g = 10^7 + sqrt 2, eps = log 2: the gap grows by 2, so
    # the losing coin ratio is exactly e^eps (docs/formulas.md section 2, two items: lose w.p. p/2)
    # and the loss is exactly log 2; the winner's ratio is 1 + O(2^-(g/2)).
    g = 10**7 + S(2)
    m = PermuteAndFlip(sympy.log(2))
    loss = exactdp.privacy_loss(m, [0, -g], [1, -g - 1])
    assert loss.engine == "ball" and loss.certified
    lo, hi = loss.interval
    assert sign(sympy.Rational(lo) - sympy.log(2)) <= 0 <= sign(sympy.Rational(hi) - sympy.log(2))
    # the tie loss == epsilon cannot be separated by balls: an honest refusal, not a guess
    with pytest.raises(UndecidedSignError):
        exactdp.check_dp(m, [0, -g], [1, -g - 1])
