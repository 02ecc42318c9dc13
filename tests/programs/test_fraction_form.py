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
