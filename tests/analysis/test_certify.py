"""exactdp.analysis.certify: certify_dp certificates for every epsilon, verify(), holds_at,
the failing interval of a partial violation, refusals."""

import dataclasses
import itertools
import math

import pytest
import sympy

import exactdp
from exactdp import PermuteAndFlip
from exactdp.analysis.certify import certify_dp
from exactdp.analysis.check import check_dp
from exactdp.mechanisms.custom import (
    mechanism_from_function,
    wrong_exponential,
    wrong_permute_and_flip,
)

from .test_outputs import overlap

R = sympy.Rational


def _same(a, b) -> bool:
    return sympy.simplify(sympy.sympify(a) - sympy.sympify(b)) == 0


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
    pytest.param(exactdp.PermuteAndFlip(1, monotonic=True), marks=pytest.mark.slow),
    pytest.param(exactdp.ExponentialMechanism(1, monotonic=True), marks=pytest.mark.slow),
])
def test_certificates_exhaustive_n_up_to_4_gaps_up_to_3(mech):
    """Issue 4's done-when: every integer vector with n <= 4, gaps <= 3, all its vertex
    neighbours, certified for every epsilon and re-verified (monotone variants: --runslow)."""
    total = sum(_certify_all(mech, n, 3) for n in (1, 2, 3, 4))
    assert total == 1 + 4 + 10 + 20


def test_certificate_monotone_and_sensitivity_half():
    cert = certify_dp(exactdp.PermuteAndFlip(1, sensitivity=R(1, 2)), [0, R(1, 2)])
    assert cert.holds and cert.verify()
    cert = certify_dp(exactdp.ExponentialMechanism(1, monotonic=True), [0, -1, -1])
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


def test_certify_laplace_forms_and_refuses_irrational_scores():
    # RNM-Laplace: exponential polynomials in epsilon (exactdp.analysis.certify_laplace)
    cert = certify_dp(exactdp.ReportNoisyMax(1, noise="laplace"), [0, -1], [1, -2])
    assert type(cert).__name__ == "LaplaceDPCertificate" and cert.holds and cert.verify()
    with pytest.raises(ValueError, match="rational"):
        certify_dp(exactdp.PermuteAndFlip(1), [0, "sqrt(2)"], [0, 1])


# ----------------------------------------------------------------- huge score gaps (sparse)
HUGE = 10**300


def _timed(func, *args, **kwargs):
    import time

    t = time.process_time()
    out = func(*args, **kwargs)
    return out, time.process_time() - t


def test_huge_gap_certify_raises_clearly_and_quickly():
    (_, seconds) = (None, 0.0)
    with pytest.raises(ValueError, match="certify_dp: .*DENSE_DEGREE_LIMIT"):
        _, seconds = _timed(certify_dp, exactdp.PermuteAndFlip(1), [0, -HUGE], [1, -HUGE])
    assert seconds < 3


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


def test_certify_dp_refuses_epsilon_limits():
    # The certificate covers 0 < epsilon < oo; at the argmax limit PF's loss on this pair is
    # infinite (privacy_loss says so), so a certificate there would contradict it.
    assert exactdp.privacy_loss(PermuteAndFlip("oo"), [0, 1, 1], [1, 0, 1]).value == sympy.oo
    for eps in ("oo", 0):
        with pytest.raises(ValueError, match="limit"):
            exactdp.certify_dp(PermuteAndFlip(eps), [0, 1, 1], [1, 0, 1])
    # a finite epsilon still certifies (PF is eps-DP for every eps > 0)
    assert exactdp.certify_dp(PermuteAndFlip(1), [0, 1, 1], [1, 0, 1]).holds

EPS = sympy.Symbol("epsilon", positive=True)


def test_condition_certificate_roots_are_the_sign_changes():
    # PF (0, -1) vs the neighbour (0, 0): output 0 needs P(q)_0 <= e^eps P(q')_0 everywhere;
    # pick a wrong mechanism whose condition changes sign at a known point instead: the root
    # of every certificate's polynomial in (0, 1) must make it vanish exactly.
    cert = exactdp.certify_dp(exactdp.PermuteAndFlip(EPS), [0, -1])
    assert cert.holds
    for c in cert.conditions:
        for root in c.roots:
            assert 0 < root < 1
            assert sympy.simplify(c.polynomial.as_expr().subs(c.polynomial.gens[0], root)) == 0
    with_roots = [c for c in cert.conditions if c.roots]
    # PF's tight rows touch 0 only at y -> 0/1, so a non-empty root list must still hold
    assert all(c.holds for c in with_roots)


# ----------------------------------------------------------------- the generator x and its N
X = sympy.Symbol("x", positive=True)


def test_certificate_is_in_x_with_its_N():
    cert = certify_dp(exactdp.PermuteAndFlip(EPS), [0, -1], [-1, 0])
    assert cert.holds and cert.x == X and cert.N == 2  # c = 2, Delta = 1, L = 1
    assert all(c.polynomial.gens == (X,) for c in cert.conditions)
    # the stored forms at x = exp(-epsilon/N) are PF's own probabilities (its closed form,
    # an independent route) at epsilon = 3/2
    e = sympy.Rational(3, 2)
    for vec, forms in zip((cert.scores,) + cert.neighbours, cert.forms, strict=True):
        probs = exactdp.PermuteAndFlip(e).distribution(list(vec)).probabilities
        for p, (num, den) in zip(probs, forms, strict=True):
            v = (num.as_expr() / den.as_expr()).subs(X, sympy.exp(-e / cert.N))
            assert sympy.simplify(v - p) == 0
    # PF on (0, -1): P_0 = 1 - x/2 with x = exp(-epsilon/2) (docs/formulas.md, PF with n = 2)
    num, den = cert.forms[0][0]
    assert sympy.simplify(num.as_expr() / den.as_expr() - (1 - X / 2)) == 0
    assert cert.x == X
    # holds is a stored bool field (naming table), equal to the conditions' verdicts
    assert {"holds", "x", "N"} <= {f.name for f in dataclasses.fields(cert)}
    assert cert.holds is all(c.holds for c in cert.conditions) is True
    bad = certify_dp(wrong_exponential(EPS), [0, 0], [1, -1])  # ratio (e^{2eps}+1)/2 > e^eps
    assert bad.holds is False and bad.failing


def test_xform_x_ball_encloses_the_generator():
    from exactdp.analysis.pld.xform import XForm

    xf = XForm(sympy.Integer(1), 2, (), (), (), ())
    new = xf.x_ball(64)  # x = exp(-rate/N) = exp(-1/2)
    assert abs(float(new.mid()) - math.exp(-0.5)) < 1e-15 and float(new.rad()) < 1e-15


def test_certificate_failing_set_away_from_zero():
    """A user mechanism with P(runner-up) = f(x) = x/2 - x^2 (1/2 - x)(1 - x), x = e^-eps,
    against a fair coin on the tie: the ratio (1/2)/f exceeds e^eps = 1/x iff f < x/2 iff
    x < 1/2, so DP fails exactly for eps > ln 2 (and holds at ln 2, where the ratio is e^eps)."""
    def fn(q, eps):
        x = sympy.exp(-eps)
        if q[0] == q[1]:
            return [R(1, 2), R(1, 2)]
        f = x / 2 - x**2 * (R(1, 2) - x) * (1 - x)
        return [1 - f, f] if q[0] > q[1] else [f, 1 - f]

    m = mechanism_from_function(fn, epsilon=1)
    cert = certify_dp(m, [1, 0], [0, 0])
    assert not cert.holds and cert.verify()
    iv = cert.failing_epsilon_intervals
    assert _same(iv.start, sympy.log(2)) and iv.end is sympy.oo and iv.left_open
    assert cert.holds_at(sympy.log(2)) and cert.holds_at(R(1, 2)) and not cert.holds_at(1)
    # the exact route at one epsilon agrees
    assert check_dp(mechanism_from_function(fn, epsilon=R(1, 2)), [1, 0], [0, 0]).holds
    assert not check_dp(m, [1, 0], [0, 0]).holds
    with pytest.raises(ValueError, match=r"^DPCertificate\.holds_at: epsilon must be a number"):
        cert.holds_at(sympy.Symbol("e", positive=True))


def test_certificate_tangency_holds_only_at_the_touching_epsilon():
    """Issue 20: a two-output mechanism with Pr[winner] = w/(w+1), w = e^eps h(e^-eps),
    h(x) = 1 + (x - 1/2)^2, on [1, 0] vs [0, 1]. The ratio of the winner's probabilities
    is w, so the bound w <= e^eps reads h(x) <= 1: it holds with equality at x = 1/2
    (eps = ln 2, a double root of the condition polynomial) and fails at every other eps."""
    def fn(q, eps):
        x = sympy.exp(-eps)
        w = sympy.exp(eps) * (1 + (x - R(1, 2)) ** 2)
        p = w / (w + 1)
        if q[0] == q[1]:
            return [R(1, 2), R(1, 2)]
        return [p, 1 - p] if q[0] > q[1] else [1 - p, p]

    m = mechanism_from_function(fn, epsilon=1)
    cert = certify_dp(m, [1, 0], [0, 1])
    assert not cert.holds and cert.verify()
    ln2 = sympy.log(2)
    assert cert.failing_epsilon_intervals == sympy.Union(
        sympy.Interval.open(0, ln2), sympy.Interval.open(ln2, sympy.oo))
    touching = [c for c in cert.failing if c.roots]
    assert touching and all(c.roots == (R(1, 2),) for c in touching)
    assert all([m_ for _, m_ in c.analysis.roots] == [2] for c in touching)
    small = R(1, 10**6)
    assert cert.holds_at(ln2)
    assert not cert.holds_at(ln2 - small) and not cert.holds_at(ln2 + small)
    assert not cert.holds_at(R(1, 10)) and not cert.holds_at(10)
    # the exact route at one epsilon agrees on both sides of the tangency and at it
    at = check_dp(mechanism_from_function(fn, epsilon=ln2), [1, 0], [0, 1])
    assert at.holds and _same(at.loss, ln2)
    for e in (ln2 - small, ln2 + small):
        assert not check_dp(mechanism_from_function(fn, epsilon=e), [1, 0], [0, 1]).holds


# ----------------------------------------------------------------- sparse vector
def test_certify_dp_on_sparse_vector_where_it_is_rational_in_x():
    """Algorithms 4 and 5 are rational in x on every input, Algorithm 1 on one query:
    the certificate against check_dp (exact, at numeric epsilons) on the same pair; where
    the probabilities have epsilon*exp terms (Algorithm 6 off the threshold) the
    certificate on exponential polynomials in epsilon (exactdp.analysis.certify_laplace),
    against check_dp at the same epsilons."""
    e = sympy.Symbol("epsilon", positive=True)
    for variant, a, b in [(4, [1, 1, 1], [2, 0, 0]), (5, [1, 1, 2], [0, 2, 1]),
                          (1, [1], [2]), (6, [1, 1], [1, 1])]:
        mech = exactdp.SparseVector(e, 1, variant=variant)
        cert = certify_dp(mech, a, b)
        assert cert.verify()
        for eps in (sympy.Rational(1, 10), sympy.Rational(1, 2), 3):
            check = check_dp(mech.with_epsilon(eps), a, b)
            assert check.holds is (eps not in cert.failing_epsilon_intervals)
    mech = exactdp.SparseVector(e, 1, variant=6)
    cert = certify_dp(mech, [1, 1], [2, 0])
    assert type(cert).__name__ == "LaplaceDPCertificate" and cert.verify()
    for eps in (sympy.Rational(1, 10), sympy.Rational(1, 2), 3):
        assert check_dp(mech.with_epsilon(eps), [1, 1], [2, 0]).holds is cert.holds_at(eps)


# ---------------------------------------------------------- mutation survivors (issue 20)
def test_conditions_cover_both_directions_with_their_polynomials():
    """PF(eps) on (0, -1) vs (-1, 0), x = exp(-eps/2): P_0 = 1 - x/2 against x/2 (PF with
    two items), so output 0 in the direction q->q' reads x/2 - x^2 (1 - x/2) =
    x (1 - x)^2 / 2 >= 0 (up to the positive denominators), and q'->q reads
    1 - x/2 - x^2 x/2 >= 0."""
    cert = certify_dp(exactdp.PermuteAndFlip(EPS), [0, -1], [-1, 0])
    assert {(c.output, c.direction) for c in cert.conditions} == {
        (r, d) for r in (0, 1) for d in ("q->q'", "q'->q")}
    by = {(c.output, c.direction): c.polynomial.as_expr() for c in cert.conditions}
    for key, expect in (((0, "q->q'"), X * (1 - X) ** 2 / 2),
                        ((0, "q'->q"), 1 - X / 2 - X**3 / 2)):
        ratio = sympy.cancel(by[key] / expect)
        assert ratio.is_Rational and ratio > 0, (key, ratio)


def test_a_denominator_negative_in_its_normal_form_is_flipped():
    """P_0 = (2 - x)/(3 - x), x = e^-eps, against a fair coin: sympy writes the fraction
    as (x - 2)/(x - 3), a denominator negative on (0, 1) that the certificate flips. By
    hand every condition holds: 2x(2 - x) <= 3 - x iff (2x - 3)(x - 1) >= 0,
    x(3 - x) <= 2(2 - x) iff (x - 1)(x - 4) >= 0, 2x <= 3 - x, x(3 - x) <= 2 iff
    (x - 1)(x - 2) >= 0, all true for 0 < x < 1."""
    def fn(q, eps):
        x = sympy.exp(-eps)
        if q[0] == q[1]:
            return [R(1, 2), R(1, 2)]
        a = (2 - x) / (3 - x)
        return [a, 1 - a] if q[0] > q[1] else [1 - a, a]

    cert = certify_dp(mechanism_from_function(fn, epsilon=1), [1, 0], [0, 0])
    assert cert.holds and cert.verify()
    assert all(d.positive for d in cert.denominators)
    x = cert.x
    num, den = cert.forms[0][0]
    assert sympy.cancel(num.as_expr() / den.as_expr() - (2 - x) / (3 - x)) == 0
    assert all(den.as_expr().subs(x, R(1, 2)) > 0 for num, den in cert.forms[0])


def test_certify_dp_argument_errors_name_certify_dp():
    pf = exactdp.PermuteAndFlip(1)
    with pytest.raises(ValueError, match=r"^certify_dp: scores must be rational \(integers or "
                                         r"fractions\), got \[0, 'sqrt\(2\)'\]$"):
        certify_dp(pf, [0, "sqrt(2)"], [0, 1])
    with pytest.raises(ValueError, match=r"^certify_dp: neighbour must be rational \(integers "
                                         r"or fractions\), got \[0, 'sqrt\(2\)'\]$"):
        certify_dp(pf, [0, 1], [0, "sqrt(2)"])
    with pytest.raises(ValueError, match=r"^certify_dp: mechanism must be an exactdp Mechanism"):
        certify_dp(object(), [0, 1], [0, 0])
    with pytest.raises(ValueError, match=r"^certify_dp: scores\[1\] must be a number"):
        certify_dp(pf, [0, "a"], [0, 1])


def test_certify_dp_size_refusal_names_the_cheaper_routes():
    """PF on 0..39: 2 * 80 * 40 sign analyses of degree ~ 40 * 39 refused at once (the cost
    model, exactdp/cost.py), with the routes that answer instead."""
    with pytest.raises(ValueError, match=r"^certify_dp: the exact sign analyses of") as info:
        certify_dp(exactdp.PermuteAndFlip(EPS), list(range(40)))
    assert ("pass the one neighbour to certify (neighbour=...), certify fewer scores, or use "
            "check_dp at a numeric epsilon") in str(info.value)


def test_verify_detects_a_verdict_that_contradicts_its_sign_analysis():
    """PF(1) on (0, -1) vs (1, -2) holds (PF is eps-DP, McKenna & Sheldon 2020): a condition
    claiming to fail while its polynomial is proved non-negative is caught by verify()."""
    cert = certify_dp(exactdp.PermuteAndFlip(1), [0, -1], [1, -2])
    c0 = cert.conditions[0]
    assert cert.verify() and c0.holds and c0.analysis.nonnegative
    fake = dataclasses.replace(c0, holds=False)
    tampered = dataclasses.replace(cert, conditions=(fake,) + cert.conditions[1:])
    assert not tampered.holds and not tampered.verify()


def test_certificate_check_detects_a_tampered_denominator():
    """The denominators of PF's forms are positive on (0, 1) (probabilities); a certificate
    whose denominator analysis claims the opposite signs, or another polynomial, fails its
    re-verification."""
    from dataclasses import replace

    cert = certify_dp(exactdp.PermuteAndFlip(1), [0, -1], [1, -2])
    assert cert.verify() and cert.denominators
    d0 = cert.denominators[0]
    flipped = replace(d0, signs=tuple(-s for s in d0.signs))
    other = replace(d0, poly=-d0.poly)
    for bad in (flipped, other):
        tampered = replace(cert, denominators=(bad,) + cert.denominators[1:])
        assert not tampered.verify()


def test_holds_at_a_positive_symbol_is_refused_naming_it():
    """Mutation seed 11: a positive symbol passes the epsilon check but has no answer here:
    the refusal names the value given."""
    cert = certify_dp(exactdp.PermuteAndFlip(1), [0, 0, -1])
    e = sympy.Symbol("e", positive=True)
    with pytest.raises(ValueError, match=r"^DPCertificate\.holds_at: epsilon must be a "
                                         r"number, not a symbol, got e$"):
        cert.holds_at(e)


def test_certify_dp_names_itself_refusing_a_non_neighbour():
    """Mutation seed 11: a neighbour 5 away at sensitivity 1 is refused in certify_dp's name."""
    e = sympy.Symbol("epsilon", positive=True)
    with pytest.raises(ValueError, match=r"^certify_dp: neighbour\[0\] must be within the "
                                         r"sensitivity 1 of scores\[0\]"):
        certify_dp(exactdp.PermuteAndFlip(e), [0, 0], [5, 0])


def test_a_certificate_repr_names_its_scores_and_counts():
    """Mutation seed 11: PF on 3 scores has 3^3 - 1 = 26 neighbours, each with 3 outputs in
    both directions: 156 conditions (by hand); N = 2 (x = exp(-epsilon/2))."""
    cert = certify_dp(PermuteAndFlip(1), [0, 0, -1])
    assert repr(cert) == ("DPCertificate(holds=True, scores=(0, 0, -1), neighbours=26, "
                          "conditions=156, failing=0, N=2, certified)")


def test_a_missing_rational_form_is_refused_with_the_view_s_own_reason():
    """Mutation seed 11: a mechanism declaring forms in x that has none on some scores is
    refused by certify_dp with the ``rational_form`` view's own reason (a stand-in
    mechanism whose view names the view it was asked for)."""
    from exactdp.analysis.certify import _check_rational_forms
    from exactdp.scores import as_scores

    class NoFormHere:
        capabilities = frozenset({"rational_form"})

        def capabilities_on(self, v):
            return frozenset()

        def evaluate(self, view, v):
            raise ValueError(f"the {view} view has none on {list(v.exact)}")

    with pytest.raises(ValueError, match=r"^certify_dp: NoFormHere on \[0, 1\] has no form "
                                         r"rational in x = exp\(-epsilon/N\): the "
                                         r"rational_form view has none on \[0, 1\]; use"):
        _check_rational_forms(NoFormHere(), [as_scores([0, 1])])


def test_certify_dp_over_different_output_sets_fails_for_every_epsilon():
    """True is reached on (1,) only: P(True | (1,)) = 1/2 <= e^eps * 0 fails for every
    epsilon > 0; the certificate is over the union (True, False, 1) and re-verifies."""
    eps = sympy.Symbol("epsilon", positive=True)
    cert = certify_dp(overlap(epsilon=eps), [1], [0])
    assert not cert.holds
    assert cert.outputs == (True, False, 1)
    assert cert.failing_epsilon_intervals == sympy.Interval.open(0, sympy.oo)
    assert cert.verify()
