"""The draws: each law's probabilities against an independent route (mpmath quadrature of
the density at 30 digits, direct summation of the discrete law, the coin's weights), and the
one-line refusal outside a program or with a bad scale."""

from __future__ import annotations

import mpmath
import pytest
import sympy

from exactdp.programs import (
    ProgramError,
    argmax,
    bernoulli,
    discrete_laplace,
    exponential,
    gumbel,
    laplace,
    program,
)

mpmath.mp.dps = 30
THIRD = sympy.Rational(1, 3)


def _above(draw):
    @program(adjacency="one")
    def above(q, epsilon):
        return q[0] + draw(1 / epsilon) >= 1

    return above


def _close(expr, value) -> bool:
    return abs(mpmath.mpf(sympy.N(expr, 30)) - value) < mpmath.mpf(10) ** -25


def test_laplace_tail_equals_the_quadrature_of_its_density():
    p = _above(laplace)(epsilon=THIRD).distribution([sympy.Rational(-1, 2)]).probabilities[0]
    # P(-1/2 + Z >= 1) = integral over z >= 3/2 of exp(-|z|/b) / (2b)
    quad = mpmath.quad(lambda z: mpmath.exp(-abs(z) / 3) / 6, [mpmath.mpf(3) / 2, mpmath.inf])
    assert _close(p, quad)


def test_exponential_tail_equals_the_quadrature_of_its_density():
    p = _above(exponential)(epsilon=THIRD).distribution([sympy.Rational(-1, 2)]).probabilities[0]
    quad = mpmath.quad(lambda z: mpmath.exp(-z / 3) / 3, [mpmath.mpf(3) / 2, mpmath.inf])
    assert _close(p, quad)
    # one-sided: a value already above the threshold is above with probability 1
    assert _above(exponential)(epsilon=1).distribution([1]).probabilities[0] == 1


def test_discrete_laplace_tail_equals_the_direct_sum():
    p = _above(discrete_laplace)(epsilon=THIRD).distribution([-2]).probabilities[0]
    # P(-2 + K >= 1) = sum_{k >= 3} e^{-k/3} / sum_k e^{-|k|/3}
    w = lambda k: mpmath.exp(-abs(k) / mpmath.mpf(3))  # noqa: E731
    total = mpmath.nsum(w, [-mpmath.inf, mpmath.inf])
    assert _close(p, mpmath.nsum(w, [3, mpmath.inf]) / total)


def test_gumbel_argmax_equals_the_quadrature_of_the_gumbel_max():
    @program(output="selection")
    def rnm(q, epsilon):
        return argmax([a + gumbel(2 / epsilon) for a in q])

    probs = rnm(epsilon=1).distribution([0, 1, 3]).probabilities
    assert sympy.cancel(sum(probs) - 1) == 0
    # the tails beyond [-40, 250] weigh below 1e-50 (exp(-e^20) and e^-125)
    q, b = [0, 1, 3], mpmath.mpf(2)
    cdf = lambda z: mpmath.exp(-mpmath.exp(-z / b))  # noqa: E731
    pdf = lambda z: cdf(z) * mpmath.exp(-z / b) / b  # noqa: E731
    for w in range(3):
        def density(t, w=w):
            return pdf(t - q[w]) * mpmath.fprod(cdf(t - q[j]) for j in range(3) if j != w)

        quad = mpmath.quad(density, [-40, -10, 0, 10, 40, 250])
        assert _close(probs[w], quad)


def test_bernoulli_weights_the_two_branches():
    @program(adjacency="one", domain=(0, 1))
    def rr(q, epsilon):
        truth = bernoulli(sympy.exp(epsilon) / (1 + sympy.exp(epsilon)))
        return q[0] == 1 if truth else q[0] != 1

    d = rr(epsilon=sympy.log(3)).distribution([1])
    assert d.outputs == (True, False)
    assert [sympy.simplify(p) for p in d.probabilities] == [
        sympy.Rational(3, 4), sympy.Rational(1, 4)]


@pytest.mark.parametrize("draw", [laplace, exponential, discrete_laplace, gumbel])
def test_a_draw_outside_a_program_is_a_one_line_refusal(draw):
    with pytest.raises(ProgramError, match=f"^{draw.__name__}: called outside a program"):
        draw(1)
    with pytest.raises(ProgramError, match="^bernoulli: called outside a program"):
        bernoulli(sympy.Rational(1, 2))


@pytest.mark.parametrize("draw", [laplace, exponential, discrete_laplace])
@pytest.mark.parametrize("scale", [0, -1, 0.5, sympy.oo])
def test_a_bad_scale_is_refused_in_one_line(draw, scale):
    @program(adjacency="one")
    def bad(q, epsilon):
        return q[0] + draw(scale) >= 0

    with pytest.raises(ProgramError) as err:
        bad(epsilon=1).distribution([0]).probabilities  # noqa: B018
    assert "\n" not in str(err.value) and "scale" in str(err.value)
