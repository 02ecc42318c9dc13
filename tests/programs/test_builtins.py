"""argmax, argmin, max_value and topk: probabilities against independent routes (the closed form of
report-noisy-max with exponential noise, i.e. permute-and-flip, for two scores; mpmath
quadrature of the Laplace order statistics), the ties rule, and one-line refusals."""

from __future__ import annotations

import doctest

import mpmath
import pytest
import sympy

import exactdp
from exactdp.programs import ProgramError, argmax, argmin, exponential, laplace, program, topk

R = sympy.Rational


@program(output="selection")
def rnm_exp(q, epsilon):
    return argmax([a + exponential(2 / epsilon) for a in q])


@program(output="selection")
def rnm_min(q, epsilon):
    return argmin([a + laplace(2 / epsilon) for a in q])


@program(output="sequence")
def top3(q, epsilon):
    return topk([a + laplace(2 / epsilon) for a in q], 3)


def test_argmax_with_exponential_noise_is_permute_and_flip_on_two_scores():
    # PF on (0, d), d >= 0, at epsilon (sensitivity 1): the lower score wins with
    # probability exp(-eps d / 2) / 2 (McKenna and Sheldon 2020, two items, by hand)
    d = R(3)
    probs = rnm_exp(epsilon=1).distribution([0, d]).probabilities
    assert sympy.simplify(probs[0] - sympy.exp(-d / 2) / 2) == 0
    assert sympy.simplify(probs[1] - 1 + sympy.exp(-d / 2) / 2) == 0


def test_argmin_is_argmax_of_the_negated_scores():
    mins = rnm_min(epsilon=1).distribution([0, 1, R(5, 2)]).probabilities

    @program(output="selection")
    def rnm_max(q, epsilon):
        return argmax([a + laplace(2 / epsilon) for a in q])

    maxs = rnm_max(epsilon=1).distribution([0, -1, R(-5, 2)]).probabilities
    assert all(sympy.simplify(a - b) == 0 for a, b in zip(mins, maxs, strict=True))
    assert sympy.simplify(sum(mins) - 1) == 0


def test_topk_of_three_against_the_quadrature_of_the_ordered_laplace_values():
    q = [0, 1, R(1, 2)]
    d = top3(epsilon=1).distribution(q)
    assert len(d.outputs) == 6 and sympy.expand(sum(d.probabilities) - 1) == 0
    b = mpmath.mpf(2)
    pdf = lambda z: mpmath.exp(-abs(z) / b) / (2 * b)  # noqa: E731
    cdf = lambda z: mpmath.exp(z / b) / 2 if z < 0 else 1 - mpmath.exp(-z / b) / 2  # noqa: E731
    qq = [mpmath.mpf(0), mpmath.mpf(1), mpmath.mpf(1) / 2]
    kinks = sorted(set(qq))

    def ordered(w1, w2, w3):
        # P(v_w1 > v_w2 > v_w3) = int f3(z) int_z^oo f2(y) (1 - F1(y)) dy dz, split at kinks
        def inner(z):
            pts = [z, *[k for k in kinks if k > z], mpmath.inf]
            return mpmath.quad(lambda y: pdf(y - qq[w2]) * (1 - cdf(y - qq[w1])), pts)

        return mpmath.quad(lambda z: pdf(z - qq[w3]) * inner(z),
                           [-mpmath.inf, *kinks, mpmath.inf])

    with mpmath.workdps(20):
        for out, p in zip(d.outputs, d.probabilities, strict=True):
            assert abs(sympy.N(p, 20) - ordered(*out)) < 1e-12, out


def test_topk_docstring_example_runs():
    test = doctest.DocTestParser().get_doctest(topk.__doc__, {}, "topk", None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0 and test.examples


@pytest.mark.parametrize("call", [lambda: argmax([]), lambda: argmin([1]),
                                  lambda: topk([1, 2], 1)])
def test_a_builtin_outside_a_program_is_a_one_line_refusal(call):
    with pytest.raises(ProgramError, match=r"^(argmax|argmin|topk): called outside a program"):
        call()


def test_bad_arguments_are_refused_naming_the_line():
    @program(output="sequence")
    def bad_k(q, epsilon):
        return topk([a + laplace(1) for a in q], 5)

    @program(output="selection")
    def empty(q, epsilon):
        return argmax([])

    with pytest.raises(ProgramError, match=r"test_builtins\.py:\d+: topk\(values, k\) needs "
                       r"an integer k with 1 <= k <= len\(values\) = 2, got k = 5 \(more "
                       r"than the 2 values\)"):
        bad_k(epsilon=1).distribution([0, 1]).probabilities  # noqa: B018
    with pytest.raises(ProgramError, match=r"test_builtins\.py:\d+: argmax of an empty"):
        empty(epsilon=1).distribution([0, 1]).probabilities  # noqa: B018


def test_max_value_is_the_winner_s_value_and_its_loss_the_noisy_maximum_s():
    from exactdp.programs import library_release as L
    from exactdp.programs import max_value

    @program(output="release")
    def top(q, epsilon):
        return max_value([a + laplace(2 / epsilon) for a in q])

    @program(output="release")
    def top_exp(q, epsilon):
        return max_value([a + exponential(2 / epsilon) for a in q])

    # the same runs as values[argmax(values)]: the same exact density and loss
    d, ref = top(epsilon=1).distribution([0, 1, 3]), L.noisy_max_value_laplace(
        epsilon=1).distribution([0, 1, 3])
    assert sympy.simplify(d.density(2) - ref.density(2)) == 0
    # closed form: left of every score the ratio is e^{n/b} (n = 4, b = 2), attained
    loss = exactdp.privacy_loss(top(epsilon=1), [0] * 4, [1] * 4)
    assert loss.loss == 2 and loss.attained
    inf = exactdp.privacy_loss(top_exp(epsilon=1), [0, 0], [1, 1])
    assert inf.loss == sympy.oo and inf.output.endswith("(probability 0 under one input only)")
    # the sampler returns the largest drawn value: never below the largest answer with
    # exponential noise
    draws = top_exp(epsilon=1).distribution([0, 5]).sample(2000, rng=3)
    assert min(float(x) for x in draws) >= 5

    @program(output="release")
    def empty(q, epsilon):
        return max_value([])

    with pytest.raises(ProgramError, match="max_value of an empty sequence"):
        assert empty(epsilon=1).distribution([0]).outputs is None
