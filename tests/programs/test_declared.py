"""What a program's declaration refuses: epsilon's range, the answers' domains."""

from __future__ import annotations

import pytest
import sympy

from exactdp.programs.declared import NO_LIMITS, program_answers, program_epsilon
from exactdp.programs.library import randomized_response, svt1

R = sympy.Rational


def test_program_epsilon_accepts_positive_numbers_and_symbols():
    assert program_epsilon("p", "1/2") == R(1, 2)
    eps = sympy.Symbol("eps", positive=True)
    assert program_epsilon("p", eps, max_epsilon=1) == eps
    assert program_epsilon("p", 1, max_epsilon=1) == 1


@pytest.mark.parametrize("limit", [0, sympy.oo, "inf", float("inf")])
def test_program_epsilon_refuses_the_limits_saying_why(limit):
    with pytest.raises(ValueError) as err:
        program_epsilon("p", limit)
    assert f"({NO_LIMITS})" in str(err.value) and "\n" not in str(err.value)


def test_program_epsilon_refuses_above_the_declared_bound_and_other_values():
    with pytest.raises(ValueError, match=r"^p: epsilon must be <= 1/2 \(the program declares "
                       r"max_epsilon=1/2\), got 1$"):
        program_epsilon("p", 1, max_epsilon=R(1, 2))
    with pytest.raises(ValueError, match=r"^p: epsilon must be > 0, got -1"):
        program_epsilon("p", -1)
    with pytest.raises(ValueError, match="epsilon"):
        program_epsilon("p", "x")


def test_program_answers_checks_rationality_domain_and_integers():
    rr = randomized_response(epsilon=1)
    assert program_answers(rr, [1, 0, 1], "f").exact == (1, 0, 1)
    with pytest.raises(ValueError, match=r"^f: scores\[0\] must be an integer"):
        program_answers(rr, [R(1, 2)], "f")
    with pytest.raises(ValueError, match=r"^f: scores\[1\] must be in the declared domain"):
        program_answers(rr, [1, 2], "f")
    m = svt1(epsilon=1, threshold=0)
    assert program_answers(m, [R(1, 2), -3], "f").exact == (R(1, 2), -3)
    with pytest.raises(ValueError, match="rational answers"):
        program_answers(m, [sympy.sqrt(2)], "f")


def test_an_irrational_answer_is_named_and_refused_before_any_run():
    """Before, ``privacy_loss`` traced the program first and refused inside its code
    (``library.py:163: a constant sqrt(2) is not a rational number``)."""
    import exactdp
    m = svt1(epsilon=1, threshold=0)
    with pytest.raises(ValueError, match=r"^f: answer 1 is log\(2\): the exact analysis of a "
                       "program needs rational answers$"):
        program_answers(m, [0, "log(2)"], "f")
    for call in (lambda: exactdp.privacy_loss(m, ["sqrt(2)", 0], [1, 1]),
                 lambda: exactdp.check_dp(m, ["sqrt(2)", 0])):
        with pytest.raises(ValueError, match=r"^(privacy_loss|check_dp): answer 0 is sqrt\(2\)"):
            call()
