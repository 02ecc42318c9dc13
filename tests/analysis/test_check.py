"""Tests of the exact privacy analyzer (issue 4): loss, neighbour search, certificates, sup."""

import itertools
import math

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import exactdp
from exactdp.analysis.certify import certify_dp
from exactdp.analysis.check import check_dp
from exactdp.analysis.loss import privacy_loss
from exactdp.analysis.neighbourhood import neighbours
from exactdp.analysis.supremum import sup_privacy_loss
from exactdp.mechanisms.custom import (
    mechanism_from_function,
    wrong_exponential,
    wrong_permute_and_flip,
    wrong_rnm_laplace,
)

EPS = sympy.Symbol("epsilon", positive=True)
R = sympy.Rational
TENTH = R(1, 10)


def _same(a, b) -> bool:
    return sympy.simplify(sympy.sympify(a) - sympy.sympify(b)) == 0


# ----------------------------------------------------------------- privacy_loss: known values
@pytest.mark.parametrize("eps", [TENTH, R(3, 2), EPS])
def test_rnm_exponential_loss_is_exactly_epsilon(eps):
    m = exactdp.ReportNoisyMax(eps, noise="exponential")
    loss = privacy_loss(m, [1, 1, 1, 1, 1], [0, 2, 2, 2, 2])
    assert loss.value == eps
    assert loss.output == 0 and loss.direction == 1
    assert loss.ratios[0] == sympy.exp(eps)


def test_rnm_laplace_section7_values_against_quadrature():
    m = exactdp.ReportNoisyMax(TENTH, noise="laplace")
    a = privacy_loss(m, [1, 1, 1, 1, 1], [2, 0, 0, 0, 0])
    b = privacy_loss(m, [1, 1, 1, 1, 1], [0, 2, 2, 2, 2])
    assert a.output == 0 and b.output == 0
    assert abs(float(a) - 0.0926959) < 5e-8
    assert abs(float(b) - 0.0946149) < 5e-8
    # independent route: the noisy-max integral by mpmath quadrature, scale b = 20
    mpmath.mp.dps = 30
    scale = mpmath.mpf(20)
    f = lambda t: mpmath.exp(-abs(t) / scale) / (2 * scale)  # noqa: E731
    F = lambda t: (  # noqa: E731
        1 - mpmath.exp(-t / scale) / 2 if t >= 0 else mpmath.exp(t / scale) / 2
    )
    p0 = mpmath.quad(lambda y: f(y - 2) * F(y) ** 4, [-mpmath.inf, 0, 2, mpmath.inf])
    assert abs(p0 - mpmath.mpf("0.2194256121")) < 1e-10
    assert abs(mpmath.log(p0 / mpmath.mpf("0.2")) - mpmath.mpf(float(a))) < 1e-12


def test_loss_matches_float_brute_force_and_is_symmetric():
    q, q2 = [3, 1, 0, 0, -2], [2, 2, 1, -1, -1]
    for m in (exactdp.PermuteAndFlip(2), exactdp.ExponentialMechanism(2)):
        loss = privacy_loss(m, q, q2)
        back = privacy_loss(m, q2, q)
        assert loss.value == back.value and loss.direction == -back.direction
        p = np.array([float(v) for v in m.distribution(q).probabilities])
        p2 = np.array([float(v) for v in m.distribution(q2).probabilities])
        assert abs(float(loss) - np.max(np.abs(np.log(p / p2)))) < 1e-12


def test_section7_pf_em_numbers_enter_the_loss():
    # docs/formulas.md section 7: q = (3,1,0,0,-2), eps = 2; the shift by +1 gives loss 0 exactly.
    for m in (exactdp.PermuteAndFlip(2), exactdp.ExponentialMechanism(2)):
        assert privacy_loss(m, [3, 1, 0, 0, -2], [4, 2, 1, 1, -1]).value == 0


def test_infinite_loss_when_supports_differ():
    def point_mass(q):
        top = max(q)
        first = next(i for i, v in enumerate(q) if v == top)
        return [1 if i == first else 0 for i in range(len(q))]

    m = mechanism_from_function(point_mass)
    loss = privacy_loss(m, [0, 0], [0, 1])
    assert loss.value is sympy.oo and math.isinf(float(loss))
    assert loss.output in (0, 1)
    assert not check_dp(m, [0, 0], epsilon=5).holds


def test_symbolic_epsilon_loss_and_max():
    m = exactdp.PermuteAndFlip(EPS, monotone=True)
    loss = privacy_loss(m, [0, 0], [0, 1])
    assert loss.value == EPS and loss.output == 0


# ----------------------------------------------------------------- bad input
def test_bad_neighbours_raise():
    m = exactdp.PermuteAndFlip(1)
    with pytest.raises(ValueError, match="same range"):
        privacy_loss(m, [0, 1], [0, 1, 2])
    with pytest.raises(ValueError, match="exceeds the sensitivity"):
        privacy_loss(m, [0, 0], [0, 2])
    assert privacy_loss(m, [0, 0], [0, 2], allow_non_neighbour=True).value > 0
    mono = exactdp.PermuteAndFlip(1, monotone=True)
    with pytest.raises(ValueError, match="monotone"):
        privacy_loss(mono, [0, 0], [1, -1])
    big = exactdp.ExponentialMechanism(1, sensitivity=2)
    assert privacy_loss(big, [0, 0], [2, -2]).output is not None


def test_probabilities_not_summing_to_one_raise_before_any_loss():
    m = mechanism_from_function(lambda q: [R(1, 2)] * len(q), name="halves")
    with pytest.raises(ValueError, match="do not sum to 1"):
        privacy_loss(m, [0, 0, 0], [1, 1, 1])
    neg = mechanism_from_function(lambda q: [R(3, 2), R(-1, 2)])
    with pytest.raises(ValueError, match="negative"):
        privacy_loss(neg, [0, 0], [1, 1])


def test_symbolic_mechanism_needs_numeric_epsilon_for_check():
    with pytest.raises(ValueError, match="certify_dp"):
        check_dp(exactdp.PermuteAndFlip(EPS), [0, 1])
    assert check_dp(exactdp.PermuteAndFlip(EPS), [0, 1], epsilon=1).holds


# ----------------------------------------------------------------- neighbour search
def test_neighbour_sets():
    pf = exactdp.PermuteAndFlip(1)
    assert len(neighbours(pf, [0, 0, 0])[0]) == 26
    assert len(neighbours(exactdp.PermuteAndFlip(1, monotone=True), [0, 0, 0])[0]) == 14
    nb, how = neighbours(pf, list(range(8)))
    assert len(nb) == 2 * 8 + 2 and "reduced" in how
    nb, _ = neighbours(exactdp.PermuteAndFlip(1, sensitivity=R(1, 2)), [0, 1])
    assert all(max(abs(a - b) for a, b in zip(v.exact, (0, 1), strict=True)) == R(1, 2)
               for v in nb)


@pytest.mark.parametrize("q", [[0, -1, -2], [0, 0, 0, 1], [3, 1, 0, 0, -2]])
def test_pf_em_rnm_hold_and_loss_is_brute_force_max(q):
    for m in (exactdp.PermuteAndFlip(1), exactdp.ExponentialMechanism(1),
              exactdp.ReportNoisyMax(1, noise="gumbel")):
        res = check_dp(m, q)
        assert res.holds and res.neighbours_checked == 3 ** len(q) - 1
        p = np.array([float(v) for v in m.distribution(q).probabilities])
        brute = 0.0
        for s in itertools.product((-1, 0, 1), repeat=len(q)):
            if any(s):
                q2 = [a + b for a, b in zip(q, s, strict=True)]
                p2 = np.array([float(v) for v in m.distribution(q2).probabilities])
                brute = max(brute, np.max(np.abs(np.log(p / p2))))
        assert abs(res.loss_float() - brute) < 1e-12


def test_pf_tight_loss_equals_epsilon_exactly():
    res = check_dp(exactdp.PermuteAndFlip(R(1, 3)), [0, -1, -2])
    assert res.loss == R(1, 3) and res.holds  # the tie loss == epsilon holds
    assert not check_dp(exactdp.PermuteAndFlip(R(1, 3)), [0, -1, -2], epsilon=R(1, 4)).holds


def test_rnm_laplace_correct_scale_holds_at_tenth():
    m = exactdp.ReportNoisyMax(TENTH, noise="laplace")
    res = check_dp(m, [1, 1, 1])
    assert res.holds and 0 < res.loss_float() <= 0.1


# ----------------------------------------------------------------- wrong variants
def test_wrong_em_caught_with_exact_loss():
    res = check_dp(wrong_exponential(1), [0, 0])
    assert not res.holds
    assert _same(res.loss, sympy.log((1 + sympy.E**2) / 2))
    assert res.witness.neighbour in ((-1, 1), (1, -1))


def test_wrong_pf_caught_with_loss_two_epsilon():
    res = check_dp(wrong_permute_and_flip(TENTH), [0, 0])
    assert not res.holds and res.loss == 2 * TENTH
    assert res.witness.scores == (0, 0)


def test_wrong_rnm_laplace_caught_with_exact_loss():
    res = check_dp(wrong_rnm_laplace(1), [0, -3], neighbour=[-1, -2])
    assert not res.holds and res.witness.output == 1
    # two items, b = 1: losing probability (1 + g/2) e^{-g}/2 (docs/formulas.md section 2)
    lose = lambda g: (1 + sympy.Integer(g) / 2) * sympy.exp(-g) / 2  # noqa: E731
    assert _same(res.loss, sympy.log(lose(1) / lose(3)))
    assert abs(res.loss_float() - (2 + math.log(1.5 / 2.5))) < 1e-12


# ----------------------------------------------------------------- certificates
def _canonical(n, gmax):
    for rest in itertools.combinations_with_replacement(range(gmax + 1), n - 1):
        yield [0] + [-g for g in rest]


def _certify_all(m, n, gmax, check_every=1):
    count = 0
    for q in _canonical(n, gmax):
        cert = certify_dp(m, q)
        assert cert.holds, (q, cert.failing[:1])
        if count % check_every == 0:
            assert cert.verify()
        count += 1
    return count


@pytest.mark.parametrize("mech", [exactdp.PermuteAndFlip(1), exactdp.ExponentialMechanism(1)])
def test_certificates_verify_for_small_n(mech):
    assert _certify_all(mech, 2, 3) == 4
    assert _certify_all(mech, 3, 3) == 10


@pytest.mark.parametrize("mech", [exactdp.PermuteAndFlip(1), exactdp.ExponentialMechanism(1)])
def test_certificates_n4_representative(mech):
    for q in ([0, 0, 0, 0], [0, -1, -2, -3], [0, 0, -3, -3]):
        cert = certify_dp(mech, q)
        assert cert.holds and cert.verify()


@pytest.mark.parametrize("mech", [
    exactdp.PermuteAndFlip(1),
    exactdp.ExponentialMechanism(1),
    pytest.param(exactdp.PermuteAndFlip(1, monotone=True), marks=pytest.mark.slow),
    pytest.param(exactdp.ExponentialMechanism(1, monotone=True), marks=pytest.mark.slow),
])
def test_certificates_exhaustive_n_up_to_4_gaps_up_to_3(mech):
    """Issue 4's done-when: every integer vector with n <= 4, gaps <= 3, all its vertex
    neighbours, certified for every epsilon and re-verified (monotone variants: --runslow)."""
    total = sum(_certify_all(mech, n, 3) for n in (1, 2, 3, 4))
    assert total == 1 + 4 + 10 + 20


def test_certificate_monotone_and_sensitivity_half():
    cert = certify_dp(exactdp.PermuteAndFlip(1, sensitivity=R(1, 2)), [0, R(1, 2)])
    assert cert.holds and cert.verify()
    cert = certify_dp(exactdp.ExponentialMechanism(1, monotone=True), [0, -1, -1])
    assert cert.holds and cert.verify()


def test_wrong_variants_fail_for_every_epsilon():
    for make in (wrong_exponential, wrong_permute_and_flip):
        cert = certify_dp(make(1), [0, 0])
        assert not cert.holds and cert.verify()
        assert cert.failing_epsilon_intervals == sympy.Interval.open(0, sympy.oo)
        assert not cert.holds_at(R(1, 100))


def test_certificate_failing_interval_of_a_partial_violation():
    # A user mechanism that is eps-DP on this pair only for eps >= ln 2: mass 1/4 on the
    # runner-up whatever epsilon, a fair coin on ties.
    def bump(q, eps):
        if q[0] == q[1]:
            return [R(1, 2), R(1, 2)]
        lo = R(1, 4)
        return [1 - lo, lo] if q[0] > q[1] else [lo, 1 - lo]

    m = mechanism_from_function(bump, epsilon=1)
    assert check_dp(m, [0, 0], [1, 0]).holds  # ln 2 < 1
    res = check_dp(m, [0, 0], [1, 0], epsilon=R(1, 2))
    assert not res.holds and _same(res.loss, sympy.log(2))
    cert = certify_dp(m, [0, 0], [1, 0])
    assert not cert.holds
    # fails exactly for eps < ln 2 (ratio 2 = (1/2)/(1/4))
    assert _same(cert.failing_epsilon_intervals.end, sympy.log(2))
    assert cert.failing_epsilon_intervals.start == 0


def test_certificate_check_detects_tampering():
    cert = certify_dp(exactdp.PermuteAndFlip(1), [0, -1], [1, -2])
    assert cert.verify()
    from dataclasses import replace

    c0 = cert.conditions[0]
    fake = replace(c0, polynomial=c0.polynomial + 1)
    assert not replace(cert, conditions=(fake,) + cert.conditions[1:]).verify()


def test_certify_refuses_laplace_and_irrational_scores():
    with pytest.raises(ValueError, match="not rational functions"):
        certify_dp(exactdp.ReportNoisyMax(1, noise="laplace"), [0, -1], [1, -2])
    with pytest.raises(ValueError, match="rational"):
        certify_dp(exactdp.PermuteAndFlip(1), [0, "sqrt(2)"], [0, 1])


# ----------------------------------------------------------------- suprema
def _gap_family(g):
    # gap g + 2 between the two scores; the neighbour narrows it by 2
    return (0, -g - 2), (-1, -g - 1)


def test_sup_wrong_rnm_laplace_tends_to_two_epsilon():
    res = sup_privacy_loss(wrong_rnm_laplace(EPS), _gap_family)
    assert res.limit == 2 * EPS and res.output == 1
    # symbolic epsilon: the limit is a proved lower bound, the supremum is not claimed
    assert res.value is None and not res.certified and 2 * EPS in res.lower_bound.args


def test_sup_correct_rnm_laplace_tends_to_epsilon_numeric():
    res = sup_privacy_loss(exactdp.ReportNoisyMax(R(1, 2), noise="laplace"), _gap_family)
    # g e^{-g} terms: the interior is not enclosed, so only the limit is claimed
    assert res.value is None and res.lower_bound == R(1, 2) and not res.certified


def test_sup_with_user_closed_form_two_item_laplace():
    def lap2(q, eps):
        b = 1 / eps
        d = q[0] - q[1]
        if sympy.sympify(d).is_nonnegative:
            lose = (1 + d / (2 * b)) * sympy.exp(-d / b) / 2
            return [1 - lose, lose]
        lose = (1 - d / (2 * b)) * sympy.exp(d / b) / 2
        return [lose, 1 - lose]

    m = mechanism_from_function(lap2, epsilon=EPS, name="RNM-Laplace(1/eps), 2 items")
    res = sup_privacy_loss(m, _gap_family)
    assert res.limit == 2 * EPS and not res.attained


def test_sup_family_errors():
    with pytest.raises(ValueError, match="same range"):
        sup_privacy_loss(exactdp.PermuteAndFlip(1), lambda g: ((0, -g), (0,)))
    with pytest.raises(ValueError, match="sensitivity"):
        sup_privacy_loss(exactdp.PermuteAndFlip(1), lambda g: ((0, -g), (0, -2 * g)))


# ----------------------------------------------------------------- properties
small = st.lists(st.integers(-3, 3), min_size=2, max_size=4)


@settings(max_examples=25, deadline=None)
@given(small, st.data())
def test_pf_equals_rnm_exp_loss_and_respects_epsilon(q, data):
    s = data.draw(st.lists(st.integers(-1, 1), min_size=len(q), max_size=len(q)))
    q2 = [a + b for a, b in zip(q, s, strict=True)]
    pf = privacy_loss(exactdp.PermuteAndFlip(1), q, q2)
    rnm = privacy_loss(exactdp.ReportNoisyMax(1), q, q2)
    assert pf.value == rnm.value
    assert float(pf) <= 1 + 1e-15
    em = privacy_loss(exactdp.ExponentialMechanism(1), q, q2)
    assert float(em) <= 1 + 1e-15


# ----------------------------------------------------------------- huge score gaps (sparse)
HUGE = 10**300


def _timed(func, *args, **kwargs):
    import time

    t = time.perf_counter()
    out = func(*args, **kwargs)
    return out, time.perf_counter() - t


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("gap", [HUGE, -1e300, 10**7], ids=["1e300-int", "1e300-float", "1e7"])
def test_huge_gap_loss_is_exact_and_fast(gap):
    """The tester's pair: PF(1), (0, -g) vs (1, -g). Output 1 has ratio exactly e^{1/2}.

    (Before the sparse engine: 1e300 exhausted memory, 1e7 ran for minutes.)
    """
    g = abs(gap) if isinstance(gap, int) else gap
    lo = -g if isinstance(g, int) else gap
    res, seconds = _timed(privacy_loss, exactdp.PermuteAndFlip(1), [0, lo], [1, lo])
    assert res.value == R(1, 2) and res.output == 1 and res.direction == 1
    assert res.ratios[1] == sympy.exp(R(1, 2))
    assert float(res.ratios[0]) == 1.0  # (1 - p/2)/(1 - p e^{-1/2}/2), p = e^{-g/2}
    assert seconds < 3


def test_huge_gap_check_dp_and_other_mechanisms():
    pf = exactdp.PermuteAndFlip(1)
    pair = ([0, -HUGE], [1, -HUGE])
    assert check_dp(pf, *pair, epsilon=R(1, 2)).holds
    bad = check_dp(pf, *pair, epsilon=R(49, 100))
    assert not bad.holds and bad.loss == R(1, 2) and bad.witness.output == 1
    res, seconds = _timed(check_dp, pf, [0, -HUGE, 5])  # exhaustive vertex search, n = 3
    assert res.holds and seconds < 10
    # the item at -10**300 is invisible in floats: a gap of 100 (dense engine) gives the
    # same loss to ~e^{-50}
    ref = check_dp(pf, [0, -100, 5])
    assert float(res.loss) == pytest.approx(float(ref.loss), rel=1e-15)
    assert check_dp(pf, [0, -HUGE]).loss == 1
    # EM, two items: ratio of output 1 is (1 + x^(g+1)) / (x (1 + x^g)), x = e^{-1/2}
    em = privacy_loss(exactdp.ExponentialMechanism(1), *pair)
    assert em.output == 1 and float(em) == pytest.approx(0.5, abs=1e-15)
    # RNM with exponential noise is PF (Ding et al. 2021): the same exact loss
    rnm = privacy_loss(exactdp.ReportNoisyMax(1, noise="exponential"), *pair)
    assert rnm.value == R(1, 2)
    # symbolic epsilon: sparse signs on (0, 1) by Descartes' rule
    assert privacy_loss(exactdp.PermuteAndFlip(EPS), *pair).value == EPS / 2


def test_huge_gap_certify_raises_clearly_and_quickly():
    (_, seconds) = (None, 0.0)
    with pytest.raises(ValueError, match="certify_dp: .*DENSE_DEGREE_LIMIT"):
        _, seconds = _timed(certify_dp, exactdp.PermuteAndFlip(1), [0, -HUGE], [1, -HUGE])
    assert seconds < 3


def test_huge_gap_with_log_epsilon_raises_clearly():
    with pytest.raises(ValueError, match="privacy_loss: epsilon = log"):
        privacy_loss(exactdp.PermuteAndFlip(sympy.log(2)), [0, -HUGE], [1, -HUGE])


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.integers(-3, 3), min_size=2, max_size=3),
    st.data(),
    st.sampled_from(["pf", "em", "rnm"]),
)
def test_sparse_engine_agrees_with_dense_engine(q, data, which):
    """Force the sparse engine on small gaps (limit 0) and compare with the dense one."""
    from exactdp.analysis.common import score_vector
    from exactdp.analysis.engines import select as select_mod
    from exactdp.analysis.engines import sparse as sparse_mod
    from exactdp.analysis.engines.select import make_engine

    eps = R(2, 3)
    mech = {
        "pf": exactdp.PermuteAndFlip(eps),
        "em": exactdp.ExponentialMechanism(eps),
        "rnm": exactdp.ReportNoisyMax(eps, noise="exponential"),
    }[which]
    moves = data.draw(st.lists(st.integers(-1, 1), min_size=len(q), max_size=len(q)))
    q2 = [a + b for a, b in zip(q, moves, strict=True)]
    dense = privacy_loss(mech, q, q2)
    dense_check = check_dp(mech, q)
    saved = select_mod.DENSE_DEGREE_LIMIT
    select_mod.DENSE_DEGREE_LIMIT = sparse_mod.DENSE_DEGREE_LIMIT = 0
    try:
        if max(q) != min(q):
            engine = make_engine(mech, [score_vector(q, "scores")], "test")
            assert isinstance(engine, sparse_mod.SparseXEngine)
        sparse = privacy_loss(mech, q, q2)
        sparse_check = check_dp(mech, q)
        try:
            sym = privacy_loss(mech.with_epsilon(EPS), q, q2)
        except ValueError as exc:  # not decided by Descartes' rule: said, not guessed
            assert "Descartes" in str(exc)
            sym = None
    finally:
        select_mod.DENSE_DEGREE_LIMIT = sparse_mod.DENSE_DEGREE_LIMIT = saved
    # the sparse engine cancels only monomial factors, so compare values at 60 digits
    assert _close(dense.value, sparse.value)
    assert dense.output == sparse.output or _same(dense.value, 0)
    for a, b in zip(dense.ratios, sparse.ratios, strict=True):
        assert _close(a, b)
    assert dense_check.holds == sparse_check.holds
    assert _close(dense_check.loss, sparse_check.loss)
    if sym is not None and sym.output is not None:
        assert _close(sym.value.subs(EPS, eps), dense.value)


def _close(a, b) -> bool:
    a, b = sympy.sympify(a), sympy.sympify(b)
    if a.has(sympy.oo, sympy.nan) or b.has(sympy.oo, sympy.nan):
        return a == b
    return _same(a, b) or abs(sympy.N(a - b, 60)) < sympy.Float(10) ** -45


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 12), st.integers(-4, 4)), min_size=1, max_size=6))
def test_sparse_unit_sign_agrees_with_root_isolation(terms):
    """Descartes / partial-sum rules vs exact root isolation (algebra.sign_on_unit_interval)."""
    import flint

    from exactdp.analysis.engines.sparse import sparse_unit_sign as _sparse_unit_sign
    from exactdp.exact.unit_interval import sign_on_unit_interval

    coeffs: dict[int, int] = {}
    for e, c in terms:
        coeffs[e] = coeffs.get(e, 0) + c
    items = sorted((e, sympy.Integer(c)) for e, c in coeffs.items() if c)
    if not items:
        return
    dense = flint.fmpq_poly([coeffs.get(k, 0) for k in range(max(coeffs) + 1)])
    truth = sign_on_unit_interval(dense).constant_sign
    try:
        got = _sparse_unit_sign(items)
    except ValueError:
        return  # undecided is allowed (and said); a wrong answer is not
    assert got == truth


def test_sparse_unit_sign_examples():
    from exactdp.analysis.engines.sparse import sparse_unit_sign as _sparse_unit_sign

    Z = sympy.Integer
    A = 10**300
    # (1 - y)(-2 + y^A (1 + y)) = -2 + 2y + y^A - y^(A+2): double root at 1, < 0 inside
    assert _sparse_unit_sign([(0, Z(-2)), (1, Z(2)), (A, Z(1)), (A + 2, Z(-1))]) == -1
    assert _sparse_unit_sign([(0, Z(1)), (A, Z(-1))]) == 1  # 1 - y^A
    assert _sparse_unit_sign([(0, Z(1)), (A, Z(-3))]) is None  # 1 - 3 y^A changes sign
    assert _sparse_unit_sign([(A, Z(2)), (A + 1, Z(1))]) == 1


# ----------------------------------------------------------------- certificate: holds_at
def test_holds_at_rejects_epsilon_not_positive():
    cert = certify_dp(exactdp.PermuteAndFlip(1), [0, 0, -1])
    assert cert.holds and cert.holds_at(1) and cert.holds_at(R(1, 1000))
    for bad in (0, -1, R(-1, 2), "x", float("nan"), sympy.oo):
        with pytest.raises(ValueError, match="holds_at: .*epsilon"):
            cert.holds_at(bad)
    # a failing certificate answers per epsilon, exactly
    wrong = certify_dp(wrong_permute_and_flip(1), [0, -1], [1, -2])
    intervals = wrong.failing_epsilon_intervals
    assert intervals != sympy.EmptySet
    inside = next(iter(exactdp.analysis.certify.set_intervals(intervals)))
    mid = (inside.start + min(inside.end, inside.start + 2)) / 2
    assert not wrong.holds_at(sympy.nsimplify(mid))


def test_sup_privacy_loss_pf_on_a_symbolic_gap_family():
    # regression: the astronomical-coin guard must not compare a symbolic gap with a number
    eps = sympy.Symbol("epsilon", positive=True)
    family = lambda g: ((0, -g - 2), (-1, -g - 1))  # noqa: E731
    res = exactdp.sup_privacy_loss(exactdp.PermuteAndFlip(eps), family)
    assert res.value is None and not res.certified  # symbolic epsilon: a lower bound only
    assert res.lower_bound.has(eps)
    num = exactdp.sup_privacy_loss(exactdp.PermuteAndFlip(1), family)
    assert num.value == 1 and num.certified
