"""Discrete-noise programs as flint quotients in x (exactdp/programs/fraction_form.py).

Independent routes: the sympy probabilities of the same runs (``run_probability``, summed per
output), evaluated at 50 digits; the exact sum to 1 of the form itself; and the privacy loss
through the old route (the sympy probabilities converted by ``cancel``), which must be the very
same expression and output.
"""

from __future__ import annotations

from fractions import Fraction as F

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


# ------------------------------------------------------------------------------ coins
def test_weight_value_reads_rational_and_exponential_coins():
    """A coin's weight as ``sum q exp(unit W)``: each value's expression is the weight
    itself (sympy, simplified to 0 difference); weights of other shapes are None."""
    from exactdp.exact.piecewise_exp import value_expr

    e = sympy.Symbol("epsilon", positive=True)
    for weight, unit in [(sympy.Rational(1, 2), e / 2), (sympy.Rational(2, 9), sympy.Integer(1)),
                         (sympy.exp(-e) / 3, e / 4), ((1 - sympy.exp(-e)) ** 2, e),
                         (sympy.exp(-sympy.Rational(1, 5)), sympy.Rational(1, 10))]:
        v = ff.weight_value(weight, unit)
        assert v is not None and sympy.simplify(value_expr(v, unit) - weight) == 0
    assert ff.weight_value(sympy.Integer(1), e) == {(0, 0): 1}
    for weight in (1 / (1 + sympy.exp(e)), (1 - e) / 2, sympy.sqrt(2) / 2,
                   sympy.exp(-sympy.sqrt(2) * e)):
        assert ff.weight_value(weight, e) is None
    assert ff.is_constant({(0, 0): F(1, 3)}) and ff.is_constant({})
    assert not ff.is_constant({(0, F(-1)): F(1)}) and not ff.is_constant({(1, F(0)): F(1)})


def test_weighted_sums_and_coin_obstruction():
    """Two runs of one output, weights 1/3 and 2/3 (q = 1/2 and exp(-lam)): the sum
    1/6 + 2/3 exp(-lam) by hand; a randomized-response weight is refused by name."""
    from exactdp.programs.runs import Run

    third = sympy.Rational(1, 3)
    runs = [(Run((), (), third, "o"), {(0, F(0)): F(1, 2)}),
            (Run((), (), 2 * third, "o"), {(0, F(-1)): F(1)})]
    assert ff.weighted_sums(runs, sympy.Integer(1)) == {
        "o": {(0, F(0)): F(1, 6), (0, F(-1)): F(2, 3)}}
    e = sympy.Symbol("epsilon", positive=True)
    rr = Run((), (), 1 / (1 + sympy.exp(e)), "o")
    assert ff.weighted_sums([(rr, {(0, F(0)): F(1)})], e) is None
    assert ff.coin_obstruction([r for r, _ in runs], e) is None
    assert ff.coin_obstruction([rr], e) == (
        "a coin weight 1/(exp(epsilon) + 1) is not a sum of rationals times exp(c*epsilon), "
        "c rational")


def _coin_threshold(law, query_scale, flip):
    """AboveThreshold (threshold noise ``law(2/epsilon)``, query noise
    ``law(query_scale/epsilon)``) whose every answer is flipped by a coin of probability
    ``flip`` before it is released (randomized response), stopping at the first True."""
    from exactdp.programs import bernoulli, program

    @program(sensitivity=1)
    def coin_threshold(q, epsilon, threshold):
        rho = law(2 / epsilon)
        out = []
        for a in q:
            bit = a + law(query_scale / epsilon) >= threshold + rho
            if bernoulli(flip):
                bit = not bit
            out.append(bit)
            if bit:
                break
        return tuple(out)

    return coin_threshold


def _run_sums(mech, answers):
    """Each output's probability as the plain sum of ``run_probability`` (the sympy weight
    times the run's integral) over its runs: the route that never reads a coin's value."""
    from exactdp.programs.integrate import run_probability

    sv = exactdp.scores.as_scores(list(answers))
    terms: dict = {}
    for run in mech.trace(sv).runs:
        terms.setdefault(run.output, []).append(run_probability(run))
    return [sympy.Add(*terms.get(k, [])) for k in mech.output_keys(sv)]


@pytest.mark.parametrize("law", ["laplace", "discrete_laplace"])
def test_a_coin_multiplies_the_runs_terms(law):
    """Continuous and discrete noise with a coin of 1/16: the probabilities (through the
    weighted values, or the flint quotients) equal the plain sympy sums of the runs at 50
    digits, and the form in x sums to 1 exactly."""
    from exactdp.programs import draws

    prog = _coin_threshold(getattr(draws, law), 4, sympy.Rational(1, 16))
    mech = prog(epsilon=sympy.Rational(1, 2), threshold=0)
    sv = exactdp.scores.as_scores([1, 0])
    assert mech.rational_obstruction(sv) is None
    rf = mech.distribution([1, 0]).rational_form()
    assert sum(rf.polys[1:], rf.polys[0]) == rf.denominator
    probs = mech.distribution([1, 0]).probabilities
    with mpmath.workdps(50):
        for p, form, ref in zip(probs, rf.forms, _run_sums(mech, (1, 0)), strict=True):
            ref50 = mpmath.mpf(sympy.N(ref, 60))
            assert abs(mpmath.mpf(sympy.N(p, 60)) - ref50) < mpmath.mpf(10) ** -45
            x = sympy.N(form.subs(rf.x, rf.value), 60)
            assert abs(mpmath.mpf(x) - ref50) < mpmath.mpf(10) ** -45


def _dense_verdict(prog, a, b, eps) -> bool:
    """Whether ``Pr[M(u) = o] <= e^eps Pr[M(v) = o]`` for both orders and every output, from
    the exact run sums at this rational epsilon (50 digits: no condition here is within
    1e-40 of 0)."""
    mech = prog(epsilon=eps, threshold=0)
    pa, pb = _run_sums(mech, a), _run_sums(mech, b)
    ok = True
    for u, v in ((pa, pb), (pb, pa)):
        for p, q in zip(u, v, strict=True):
            gap = sympy.N(sympy.exp(eps) * q - p, 50)
            assert abs(gap) > sympy.Float(10) ** -40
            ok = ok and bool(gap > 0)
    return ok


@pytest.mark.parametrize("law", ["laplace", "discrete_laplace"])
@pytest.mark.parametrize(("scale", "holds"), [(4, True), (sympy.Rational(1, 2), False)])
def test_certify_dp_with_a_coin_matches_dense_evaluation(law, scale, holds):
    """A randomized-response coin of 1/16 after each noisy comparison: with query noise
    4/epsilon the certificate holds for every epsilon; with 1/(2 epsilon) it fails on an
    interval (0, e*) (the coin caps the loss at log 15 above it). At 9 rational epsilons
    the verdict of the exact probabilities (the runs' plain sympy sums) is the
    certificate's: inside its failing set exactly where some condition fails."""
    from exactdp.programs import draws

    prog = _coin_threshold(getattr(draws, law), scale, sympy.Rational(1, 16))
    a, b = (1, 0), (0, 1)
    cert = exactdp.certify_dp(prog(epsilon=sympy.Symbol("epsilon", positive=True),
                                   threshold=0), a, b)
    assert cert.holds is holds and cert.verify()
    if not holds:
        (iv,) = cert.failing_epsilons
        assert iv.lower == 0 and 1 < sympy.N(iv.upper) < sympy.log(15)
    for eps in (sympy.Rational(k, 8) for k in (1, 5, 8, 10, 11, 12, 14, 17, 32)):
        inside = any(sympy.N(iv.lower - eps, 30) < 0 and (
            iv.upper is None or sympy.N(iv.upper - eps, 30) > 0) for iv in cert.failing_epsilons)
        assert _dense_verdict(prog, a, b, eps) is (not inside) is cert.holds_at(eps)


@pytest.mark.parametrize(("scale", "holds"), [(4, True), (sympy.Rational(1, 4), False)])
def test_a_coin_of_probability_exp_minus_epsilon_is_a_polynomial_in_x(scale, holds):
    """``bernoulli(exp(-epsilon))`` choosing the query noise (``scale/epsilon`` or
    ``4/epsilon``): the form holds for every epsilon (x = exp(-epsilon/4)); the certificate
    (private with ``scale`` 4; with 1/4, not for small epsilon, where the coin mostly picks
    the little noise) agrees with the run sums at 6 epsilons. A coin of
    ``1/(1 + exp(epsilon))`` is refused with its one-line reason."""
    from exactdp.programs import bernoulli, discrete_laplace, program

    @program(sensitivity=1)
    def exp_coin(q, epsilon, threshold):
        if bernoulli(sympy.exp(-epsilon)):
            return q[0] + discrete_laplace(scale / epsilon) >= threshold
        return q[0] + discrete_laplace(4 / epsilon) >= threshold

    e = sympy.Symbol("epsilon", positive=True)
    mech = exp_coin(epsilon=e, threshold=0)
    assert mech.rational_obstruction(exactdp.scores.as_scores([1])) is None
    assert mech.distribution([1]).rational_form().value == sympy.exp(-e / 4)
    cert = exactdp.certify_dp(mech, [1], [0])
    assert cert.holds is holds
    for eps in (sympy.Rational(1, 10), sympy.Rational(1, 4), sympy.Rational(1, 2), 1, 2, 5):
        assert _dense_verdict(exp_coin, (1,), (0,), eps) is cert.holds_at(eps)
    rr = library.randomized_response(epsilon=e)
    why = rr.rational_obstruction(exactdp.scores.as_scores([1]))
    assert why == ("a coin weight 1/(exp(epsilon) + 1) is not a sum of rationals times "
                   "exp(c*epsilon), c rational")
