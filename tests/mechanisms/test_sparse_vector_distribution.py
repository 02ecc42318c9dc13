"""The closed-form adapters of the sparse vector's distribution: the same values
``sum q lam**e exp(lam W)`` as sympy expressions, as forms in ``x = exp(-lam/L)`` and as arb
balls, each checked against a direct mpmath evaluation of the sum at 30 digits; and the
distribution's outputs and normalisation against the engine's own enumeration."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import flint
import mpmath
import pytest
import sympy

import exactdp
from exactdp import SparseVector
from exactdp.exact import flint_prec
from exactdp.mechanisms.sparse_vector_distribution import (
    SparseVectorDistribution,
    probability_balls,
    probability_exprs,
    x_form,
)

#: Two values with terms lam**e exp(lam W): W in thirds and halves (L = 6), one lam term.
A = {(0, F(0)): F(1, 2), (1, F(-1, 3)): F(3, 4), (0, F(-3, 2)): F(-1, 5)}
B = {(0, F(-1, 2)): F(2, 7)}
LAM = sympy.Rational(2, 3)


def direct(v, lam) -> mpmath.mpf:
    """``sum q lam**e exp(lam W)`` by mpmath, term by term."""
    lam = mpmath.mpf(lam.p) / lam.q
    return mpmath.fsum(mpmath.mpf(q.numerator) / q.denominator * lam**e
                       * mpmath.exp(lam * mpmath.mpf(w.numerator) / w.denominator)
                       for (e, w), q in v.items())


def test_probability_exprs_equal_the_sum_and_share_equal_values():
    a, b, a2 = probability_exprs([A, B, A], LAM)
    with mpmath.workdps(30):
        assert abs(mpmath.mpf(sympy.N(a, 30)) - direct(A, LAM)) < mpmath.mpf(10) ** -28
        assert abs(mpmath.mpf(sympy.N(b, 30)) - direct(B, LAM)) < mpmath.mpf(10) ** -28
    assert a2 is a  # one expression per distinct value object


def test_x_form_polynomials_over_the_common_power_evaluate_to_the_sum():
    form = x_form([A, B], LAM, flint.fmpq(2, 3))
    assert form is not None and form.L == 6
    with mpmath.workdps(30):
        x = mpmath.exp(-mpmath.mpf(2) / 3 / 6)
        for poly, v in zip(form.polys, (A, B), strict=True):
            num = mpmath.fsum(mpmath.mpf(int(c.p)) / int(c.q) * x**k
                              for k, c in enumerate(poly.coeffs()))
            den = mpmath.fsum(mpmath.mpf(int(c.p)) / int(c.q) * x**k
                              for k, c in enumerate(form.denominator.coeffs()))
            assert abs(num / den - direct(v, LAM)) < mpmath.mpf(10) ** -28
    # no lam term: lq None is accepted
    assert x_form([B], LAM, None) is not None


def test_probability_balls_enclose_the_sum_to_the_digits_asked():
    balls = probability_balls([A, B, {}], LAM, 30)
    with mpmath.workdps(60), flint_prec(256):
        for ball, v in zip(balls[:2], (A, B), strict=True):
            assert ball.contains(flint.arb(mpmath.nstr(direct(v, LAM), 60)))
            assert ball.rad() < abs(ball.mid()) * flint.arb(10) ** -30
    assert balls[2] == 0 and balls[2].is_exact()  # the empty sum is the exact 0


def test_the_distribution_lists_every_answer_sequence_and_sums_to_one():
    d = SparseVector(sympy.Rational(1, 2), 1, c=1).distribution([1, 0, 2])
    assert type(d) is SparseVectorDistribution
    # every sequence of answers up to and including the first True, then None
    want = []
    for bits in itertools.product((True, False), repeat=3):
        seq = list(bits)
        if True in seq:
            k = seq.index(True)
            seq = seq[:k + 1] + [None] * (2 - k)
        if tuple(seq) not in want:
            want.append(tuple(seq))
    assert d.outputs == tuple(want)
    assert sympy.simplify(sum(d.probabilities) - 1) == 0
    assert abs(float(sum(d.to_numpy())) - 1) < 1e-12


def test_loss_upper_bound_bounds_every_answer_sequence():
    """The bound is at least ``|ln P_a(o) / P_a'(o)|`` on every answer sequence (the
    program engine's probabilities at 40 digits), on pairs moving one way, both ways and
    by different amounts, and within 1e-30 of the largest (an enclosure) except for
    Algorithm 2 at c = 2 (a threshold redrawn before a comparison: the translation bound;
    at c = 1 it stops first); Algorithm 5 has no bound on moves of different sizes (its
    loss is infinite there) and ``t1 |d|`` on equal ones; a neighbour of another length is
    refused."""
    pairs = [((0, 1, 1), (1, 2, 2)), ((1, 1, 1), (2, 0, 1)), ((0, 0, 1), (1, -1, 0)),
             ((1, 0, 2), (1, 0, 1))]
    for variant, c in ((1, 2), (2, 2), (2, 1), (4, 2), (6, 1)):
        mech = SparseVector(epsilon=1, threshold=1, c=c, variant=variant)
        for a, b in pairs:
            bound = mech.distribution(a).loss_upper_bound(b)
            p, q = mech.distribution(a).evalf(40), mech.distribution(b).evalf(40)
            with mpmath.workdps(40):
                worst = max(abs(mpmath.log(x / y)) for x, y in zip(p, q, strict=True))
                assert worst <= mpmath.mpf(sympy.N(bound, 40)) + mpmath.mpf(10)**-30
                if (variant, c) != (2, 2):
                    assert mpmath.mpf(sympy.N(bound, 40)) - worst < mpmath.mpf(10)**-30
    five = SparseVector(epsilon=1, threshold=1, variant=5).distribution([0, 0])
    assert five.loss_upper_bound([1, 0]) is None
    assert five.loss_upper_bound([1, 1]) == sympy.Rational(1, 2)
    with pytest.raises(ValueError, match="neighbour"):
        five.loss_upper_bound([1, 1, 1])


def test_loss_upper_bound_below_a_loss_found_skips_the_enclosure():
    """With ``below``: the translation bound alone where it is strictly below (still an
    upper bound: the exact loss at 40 digits is under it), else the bound without it."""
    mech = SparseVector(epsilon=1, threshold=0, variant=6)
    d = mech.distribution([0, 0, 0])
    # all three answers up by 1: translation t1 * 1 = 1/2, the enclosure is tighter
    full = d.loss_upper_bound([1, 1, 1])
    alone = d.loss_upper_bound([1, 1, 1], below=sympy.Rational(3, 5))
    assert alone == sympy.Rational(1, 2) and full <= alone
    exact = exactdp.privacy_loss(mech, [0, 0, 0], [1, 1, 1]).loss
    assert exactdp.exact.compare(exact, alone) <= 0
    # not below: the same bound as without
    assert d.loss_upper_bound([1, 1, 1], below=sympy.Rational(1, 2)) == full
    assert d.loss_upper_bound([1, -1, 0], below=sympy.Rational(1, 2)) == d.loss_upper_bound(
        [1, -1, 0])


def test_the_notebook_shows_a_table_as_every_distribution():
    # at q_1 = T the answer noise and the threshold noise are symmetric: P(T,) = P(F,) = 1/2
    d = SparseVector(1, threshold=1).distribution([1])
    html = d._repr_html_()
    assert html.startswith('<table><caption style="text-align:left"><b>SparseVectorDistribution')
    assert "2 outputs, most likely (T,) and 1 more tied, each at 0.5 (exact: 1/2)" in html
    assert "<th style=\"text-align:left\">(F,)</th><td style=\"text-align:left\">0.5 (exact: " \
           "1/2)</td>" in html and "SparseVector(epsilon=1, threshold=1" in html
    assert d._repr_latex_().startswith(r"$\begin{array}{ll} \mathbf{SparseVectorDistribution}")
    # many answers: the table says so, computing nothing
    big = SparseVector(1, threshold=1).distribution([0] * 30)
    assert "probabilities not computed here" in big._repr_html_()
    assert "probabilities" not in big.__dict__
