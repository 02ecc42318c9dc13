"""``@program``: the declaration, the parameters, the decoration-time refusals."""

from __future__ import annotations

import pytest
import sympy

import exactdp
from exactdp.programs import (
    ProgramError,
    argmax,
    laplace,
    program,
)

from .support import R, line_of, runs_of


# ------------------------------------------------------------------ declaring
@program()
def reads_sensitivity(q, epsilon, sensitivity):
    return laplace(sensitivity / epsilon) > 0


def test_sensitivity_is_the_declared_one():
    t = runs_of(program(sensitivity=3)(reads_sensitivity.func), [0])
    assert t.runs[0].draws[0].scale == 3


def test_a_generator_is_refused_at_decoration():
    def gen(q, epsilon):
        yield laplace(1) > 0

    with pytest.raises(ProgramError, match=r"gen at test_language.py:\d+ is a generator"):
        program(gen)


def test_parameters():
    def f(q, epsilon, threshold, c=1):
        return laplace(1) > threshold

    def no_eps(q, threshold):
        return True

    with pytest.raises(ProgramError, match="has no epsilon parameter"):
        program(no_eps)
    p = program(f)
    with pytest.raises(ValueError, match="missing parameter 'threshold'"):
        p(epsilon=1)
    with pytest.raises(ValueError, match="unknown parameter 'd'"):
        p(epsilon=1, threshold=0, d=2)
    with pytest.raises(ValueError, match="threshold"):
        p(epsilon=1, threshold=sympy.sqrt(2))
    with pytest.raises(ValueError, match="epsilon"):
        p(epsilon=-1, threshold=0)
    with pytest.raises(ValueError, match="sensitivity"):
        p(epsilon=1, threshold=0, sensitivity=2)
    m = p(epsilon=R(1, 2), threshold="1/3", c=2)
    assert m.epsilon == R(1, 2) and dict(m.arguments) == {"threshold": R(1, 3), "c": 2}
    assert repr(m) == "f(epsilon=1/2, threshold=1/3, c=2)"
    assert m.with_epsilon(3).epsilon == 3


def test_parameters_are_keywords_only():
    # svt1(1/2, 1) was accepted, matching values to parameters by their order
    p = program(lambda_free)
    with pytest.raises(ValueError) as err:
        p(R(1, 2), 2)
    assert str(err.value) == ("lambda_free: parameters are keywords only: "
                              "lambda_free(epsilon=..., c=...), got 2 by position")
    with pytest.raises(ValueError, match=r"^lambda_free: parameters are keywords only"):
        p(R(1, 2), c=2)
    assert dict(p(epsilon=R(1, 2), c=2).arguments) == {"c": 2}


@pytest.mark.parametrize(("eps", "shown"), [(0, "0"), (sympy.oo, "oo"), (float("inf"), "oo"),
                                            ("oo", "oo")])
def test_epsilon_limits_are_refused_in_one_line_saying_why(eps, shown):
    # the shipped mechanisms take 0 and oo as exact limits; a program's scales 2/epsilon
    # have none: the message says so (it said "epsilon must be > 0, got 0")
    with pytest.raises(ValueError) as err:
        program(lambda_free)(epsilon=eps)
    text = str(err.value)
    assert text.startswith("lambda_free: epsilon must be > 0 and finite for a program (")
    assert text.endswith(f", got {shown}") and "\n" not in text
    assert "shipped mechanisms" in text
    with pytest.raises(ValueError, match=r"^lambda_free: epsilon must be > 0, got -1"):
        program(lambda_free)(epsilon=-1)  # not a limit: the usual message


def test_max_epsilon_is_refused_when_the_mechanism_is_made():
    # the incorrect randomized response at epsilon 2 was refused only when read, as a
    # bernoulli probability -1/2
    p = program(max_epsilon=1)(lambda_free)
    with pytest.raises(ValueError) as err:
        p(epsilon=2)
    assert str(err.value) == ("lambda_free: epsilon must be <= 1 (the program declares "
                              "max_epsilon=1), got 2")
    m = p(epsilon=1)
    assert m.epsilon == 1
    with pytest.raises(ValueError, match=r"^lambda_free: epsilon must be <= 1"):
        m.with_epsilon(R(3, 2))
    eps = sympy.Symbol("e", positive=True)
    assert p(epsilon=eps).epsilon == eps  # undecided for a symbol: passes
    with pytest.raises(ValueError, match=r"^program: max_epsilon must be None or a number > 0"):
        program(max_epsilon=0)


def lambda_free(q, epsilon, c=1):
    return laplace(c / epsilon) > 0


@pytest.mark.parametrize("bad", [0, -1, "1/2", "5/2"])
def test_a_count_is_refused_when_the_mechanism_is_made(bad):
    # once refused only when probabilities were read, as a Laplace noise of scale 0
    with pytest.raises(ValueError, match=r"^lambda_free: c must be a positive integer"):
        program(counts=("c",))(lambda_free)(epsilon=1, c=bad)
    assert dict(program(counts=("c",))(lambda_free)(epsilon=1, c=3).arguments) == {"c": 3}


def test_declarations_are_checked():
    with pytest.raises(ValueError, match="adjacency"):
        program(adjacency="some")
    with pytest.raises(ValueError, match="output"):
        program(output="value")
    with pytest.raises(ValueError, match="domain"):
        program(domain=(1, 0))
    with pytest.raises(ValueError, match="counts"):
        program(counts="c")
    with pytest.raises(ProgramError, match="counts names 'm', not a parameter"):
        program(counts=("m",))(lambda_free)
    def rnm(q, epsilon):
        return argmax([a + laplace(2 / epsilon) for a in q])

    m = program(adjacency="one", output="selection", monotonic=True)(rnm)(epsilon=1)
    assert (m.adjacency, m.output_kind, m.monotonic, m.regular) == ("one", "selection", True,
                                                                     False)


@program(domain=(0, 1))
def bits(q, epsilon):
    return tuple(a + laplace(1) > 0 for a in q)


def test_answers_outside_the_domain():
    with pytest.raises(ValueError, match=r"scores\[1\] must be in the declared domain"):
        bits(epsilon=1).distribution([0, 2])


def test_score_domain_integer_refuses_a_fraction_of_a_bit():
    # domain=(0, 1) alone accepted 1/2 (int(1/2) = 0 inside the program)
    p = program(domain=(0, 1), score_domain="integer")(bits.func)
    assert p.declaration.score_domain == "integer"
    with pytest.raises(ValueError) as err:
        p(epsilon=1).distribution([1, R(1, 2)])
    assert str(err.value) == ("bits.distribution: scores[1] must be an integer (bits declares "
                              "score_domain='integer'), got 1/2")
    assert p(epsilon=1).distribution([1, 0]).outputs
    assert bits(epsilon=1).distribution([1, R(1, 2)]).outputs  # a real domain: accepted
    with pytest.raises(ValueError, match="score_domain"):
        program(score_domain="bits")


@program(output="selection")
def not_an_index(q, epsilon):
    return len(q) if laplace(1) > 0 else 0


def test_a_selection_program_returns_an_index():
    with pytest.raises(ProgramError, match=r"an index of range\(len\(q\)\) = range\(2\)") as info:
        _ = not_an_index(epsilon=1).distribution([0, 0]).outputs
    assert line_of(__file__, "def not_an_index") in str(info.value)  # the program's line




# ------------------------------------------------------------------ comparisons compared
@program(adjacency="one")
def counted(q, epsilon):
    answers = [a + laplace(1 / (10 * epsilon)) > 0 for a in q]
    return answers.count(True)


@program(adjacency="one")
def compared(q, epsilon):
    c1 = q[0] + laplace(1 / epsilon) > 0
    c2 = q[1] + laplace(1 / epsilon) > 0
    return (c1 == c2, c1 != True, True in [c1, c2], [c1, c2, True].index(True), c1 < c2)  # noqa: E712


def test_comparisons_compared_with_eq_fork_like_bool():
    """``==``, ``!=``, ``in``, ``list.count``, ``list.index`` and ``<`` on comparisons fork and
    compare truth values (before: Python compared identities, and ``counted`` gave output 0
    with probability 1, a certified 'holds' for a 5-DP program). Two independent fair coins
    c1, c2 (q = 0): each of the four cases has probability 1/4; the count of two independent
    fair coins is binomial(2, 1/2)."""
    d = counted(epsilon=sympy.Rational(1, 2)).distribution([0, 0])
    assert d.outputs == (0, 1, 2)
    assert d.probabilities == (sympy.Rational(1, 4), sympy.Rational(1, 2), sympy.Rational(1, 4))
    # one answer moves by 1: P(a + Lap(1/5) > 0) moves from 1/2 to 1 - e^-5/2, loss 5 = 10 eps
    check = exactdp.check_dp(counted(epsilon=sympy.Rational(1, 2)), [0, 0])
    assert not check.holds and check.loss == 5
    d = compared(epsilon=1).distribution([0, 0])
    law = dict(zip(d.outputs, d.probabilities, strict=True))
    quarter = sympy.Rational(1, 4)
    assert law == {(True, False, True, 0, False): quarter,   # c1 and c2 True
                   (False, False, True, 0, False): quarter,  # c1 True, c2 False
                   (False, True, True, 1, True): quarter,    # c1 False, c2 True
                   (True, True, False, 2, False): quarter}   # both False


def test_a_float_parameter_warns_in_the_program_s_name():
    from exactdp import ExactConversionWarning
    from exactdp.programs import library as lib

    with pytest.warns(ExactConversionWarning, match=r"^svt1: 1 float input\(s\) \(first: "
                                                    r"threshold=0\.3\)"):
        m = lib.svt1(epsilon=1, threshold=0.3)
    assert dict(m.arguments)["threshold"] == sympy.Rational(5404319552844595, 2**54)
