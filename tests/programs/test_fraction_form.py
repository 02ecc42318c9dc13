"""Discrete-noise programs as flint quotients in x (exactdp/programs/fraction_form.py).

Independent routes: the sympy probabilities of the same runs (``run_probability``, summed per
output), evaluated at 50 digits; the exact sum to 1 of the form itself; and the privacy loss
through the old route (the sympy probabilities converted by ``cancel``), which must be the very
same expression and output.
"""

from __future__ import annotations

import mpmath
import pytest
import sympy

import exactdp
from exactdp.programs import fraction_form as ff
from exactdp.programs import library
from exactdp.programs.mechanism import ProgramMechanism

EPS = sympy.Rational(1, 10)


def _answers(*a):
    return tuple(sympy.Integer(v) for v in a)


@pytest.mark.parametrize("answers", [(1, 1), (0, 2), (2, -1, 1)])
def test_the_form_equals_the_sympy_probabilities(answers):
    mech = library.above_threshold_discrete(epsilon=EPS, threshold=1)
    sv = exactdp.scores.as_scores(list(answers))
    form = ff.fraction_form(mech.trace(sv), mech.output_keys(sv))
    assert form is not None
    # the exact sum of the probabilities is 1: the polys add up to the denominator
    assert sum(form.polys[1:], form.polys[0]) == form.denominator
    probs = mech.distribution(list(answers)).probabilities  # run_probability's sympy sums
    with mpmath.workdps(50):
        x = mpmath.mpf(sympy.N(form.value, 60))
        for p, poly in zip(probs, form.polys, strict=True):
            mine = sum(mpmath.mpf(int(c.p)) / int(c.q) * x**k
                       for k, c in enumerate(poly.coeffs())) / sum(
                mpmath.mpf(int(c.p)) / int(c.q) * x**k
                for k, c in enumerate(form.denominator.coeffs()))
            assert abs(mine - mpmath.mpf(sympy.N(p, 60))) < mpmath.mpf(10) ** -45


def test_cached_per_trace_and_none_for_coins():
    mech = library.above_threshold_discrete(epsilon=EPS, threshold=1)
    sv = exactdp.scores.as_scores([1, 1])
    trace = mech.trace(sv)
    assert ff.fraction_form(trace, mech.output_keys(sv)) is ff.fraction_form(
        trace, mech.output_keys(sv))
    rr = library.randomized_response(epsilon=EPS)  # a coin weight: no x-form here
    rv = exactdp.scores.as_scores([1, 0, 1])
    assert ff.fraction_form(rr.trace(rv), rr.output_keys(rv)) is None


@pytest.mark.parametrize(("a", "b"), [((1, 1), (2, 0)), ((1, 0), (0, 1)), ((2, -1, 1), (1, 0, 2))])
def test_the_loss_is_the_old_routes_expression(monkeypatch, a, b):
    mech = library.above_threshold_discrete(epsilon=EPS, threshold=1)
    new = exactdp.privacy_loss(mech, a, b)
    ff._FORMS.clear()
    monkeypatch.setattr(ProgramMechanism, "_numeric_rational_form",
                        lambda self, sv: None)  # the sympy probabilities and cancel
    old = exactdp.privacy_loss(library.above_threshold_discrete(epsilon=EPS, threshold=1),
                               a, b)
    assert new.loss == old.loss and new.label == old.label and new.output == old.output


def _discrete_threshold(query_scale):
    """AboveThreshold with two-sided geometric noise, the query noise's scale
    ``query_scale / epsilon`` (4: the library's, private; 1/2: too little noise)."""
    from exactdp.programs import program
    from exactdp.programs.draws import discrete_laplace

    @program(sensitivity=1)
    def threshold_geometric(q, epsilon, threshold):
        rho = discrete_laplace(2 / epsilon)
        out, stopped = [], False
        for a in q:
            if stopped:
                out.append(None)
            elif a + discrete_laplace(query_scale / epsilon) >= threshold + rho:
                out.append(True)
                stopped = True
            else:
                out.append(False)
        return tuple(out)

    return threshold_geometric


def test_the_form_at_a_symbolic_epsilon_holds_for_every_epsilon():
    """At a symbolic epsilon the runs sum to the same quotients in x = exp(-epsilon/4):
    substituting epsilon = 1/10 gives the numeric route's form exactly (same polynomials,
    same x), and its probabilities are the sympy sums at 50 digits at epsilon = 3."""
    e = sympy.Symbol("epsilon", positive=True)
    sym = library.above_threshold_discrete(epsilon=e, threshold=1)
    assert sym.rational_obstruction(exactdp.scores.as_scores([2, -1, 1])) is None
    rf = sym.distribution([2, -1, 1]).rational_form()
    assert rf.value == sympy.exp(-e / 4)
    num = library.above_threshold_discrete(epsilon=EPS, threshold=1)
    sv = exactdp.scores.as_scores([2, -1, 1])
    at = ff.fraction_form(num.trace(sv), num.output_keys(sv))
    assert at.value == rf.value.subs(e, EPS) and at.polys == rf.polys
    assert at.denominator == rf.denominator
    three = library.above_threshold_discrete(epsilon=3, threshold=1)
    with mpmath.workdps(50):
        for form, p in zip(rf.forms, three.distribution([2, -1, 1]).probabilities, strict=True):
            got = mpmath.mpf(sympy.N(form.subs(rf.x, sympy.exp(-sympy.Rational(3, 4))), 60))
            assert abs(got - mpmath.mpf(sympy.N(p, 60))) < mpmath.mpf(10) ** -45


@pytest.mark.parametrize(("scale", "holds"), [(4, True), (sympy.Rational(1, 2), False)])
def test_certify_dp_for_every_epsilon_matches_dense_evaluation(scale, holds):
    """certify_dp on discrete noise decides every epsilon; its failing set agrees with
    the exact privacy loss at a grid of numeric epsilons (the loss above epsilon exactly
    where the certificate says the bound fails)."""
    prog = _discrete_threshold(scale)
    a, b = (1, 0, 1), (0, 1, 0)
    cert = exactdp.certify_dp(prog(epsilon=sympy.Symbol("epsilon", positive=True),
                                   threshold=0), a, b)
    assert cert.holds is holds
    for eps in (sympy.Rational(1, 10), sympy.Rational(1, 2), 1, 2, 5):
        loss = exactdp.privacy_loss(prog(epsilon=eps, threshold=0), a, b).loss
        inside = any(sympy.N(iv.lower - eps, 30) < 0 and (
            iv.upper is None or sympy.N(iv.upper - eps, 30) > 0) for iv in cert.failing_epsilons)
        assert bool(sympy.N(loss - eps, 30) > 0) is inside
