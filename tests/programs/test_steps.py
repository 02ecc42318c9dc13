"""The step counter of program runs (exactdp.programs.steps): lines and bytecodes of user
code are counted, exactdp's own code and installed packages are not."""

from __future__ import annotations

import os
import time

import pytest
import sympy

import exactdp
from exactdp.programs import program
from exactdp.programs.steps import (
    MAX_STEPS,
    OPCODES_PER_STEP,
    GlobalRandom,
    StepCounter,
    StepLimit,
    global_random_state,
    module_generators,
    user_file,
)


@program(output="selection")
def spins_on_one_line(q, epsilon):
    while True: pass  # noqa: E701  (one line: one line event, then bytecodes only)


def test_a_loop_on_one_line_is_refused_by_its_bytecodes():
    """``while True: pass`` gives no line event after its first (Python 3.11): before, the
    call ran until killed (17 s CPU, then timeout); now the bytecode count refuses it."""
    start = time.process_time()
    with pytest.raises(StepLimit) as info:
        spins_on_one_line(epsilon=1).distribution([0, 1]).probabilities  # noqa: B018
    msg = str(info.value)
    assert "\n" not in msg
    assert f"step limit of {MAX_STEPS} lines ({OPCODES_PER_STEP * MAX_STEPS} bytecodes)" in msg
    assert f"{os.path.basename(__file__)}:" in msg
    assert time.process_time() - start < 10  # the limit's own cost (about 1 s) with margin


def test_the_counter_counts_bytecodes_and_lines_of_user_code_only():
    def work(k):
        total = 0
        for i in range(k):
            total += i
        return total

    counter = StepCounter(__file__, 10_000, "work")
    with counter:
        assert work(100) == 4950
        assert sympy.Integer(2) ** 10 == 1024  # sympy's lines are not counted
    # 100 turns of two lines (the for and the sum) plus the return, and more bytecodes
    assert 200 <= counter.steps <= 210
    assert counter.ops > counter.steps
    with pytest.raises(StepLimit, match=r"step limit of 50 lines \(400 bytecodes\)"):
        with StepCounter(__file__, 50, "work"):
            work(1000)


def test_user_file_tells_user_code_from_library_code():
    assert user_file(__file__)
    assert not user_file(exactdp.__file__)
    assert not user_file(sympy.__file__)
    assert not user_file(os.__file__)
    assert not user_file("<string>")


@program(output="selection")
def coin_from_random(q, epsilon):
    import random
    return 0 if random.random() < 0.5 else 1


@program(output="selection")
def coin_from_numpy(q, epsilon):
    import numpy
    return 0 if numpy.random.rand() < 0.5 else 1  # noqa: NPY002 (the mistake tested)


@pytest.mark.parametrize("prog", [coin_from_random, coin_from_numpy])
def test_a_program_drawing_from_a_global_generator_is_refused(prog):
    """Before, a coin from ``random`` that landed the same way on the replay gave the exact
    distribution (1, 0) or (0, 1) (a wrong number); now every call is refused in one line,
    whichever way the coin lands (checked over 20 calls)."""
    for _ in range(20):
        with pytest.raises(GlobalRandom) as info:
            prog(epsilon=1).distribution([0, 1]).probabilities  # noqa: B018
        msg = str(info.value)
        assert "\n" not in msg
        assert msg.startswith(f"{prog.__name__}: a run drew from Python's random module")


def test_global_random_state_sees_each_generator():
    import random

    import numpy

    before = global_random_state()
    assert global_random_state() == before
    random.random()
    after = global_random_state()
    assert after != before
    numpy.random.rand()  # noqa: NPY002 (the global generator on purpose)
    assert global_random_state() != after


def test_a_seeded_generator_of_the_users_own_is_allowed():
    """A program may use its own ``random.Random`` (not the global one) for a constant."""
    @program(output="selection")
    def own(q, epsilon):
        import random
        return 0 if random.Random(1).random() < 2 else 1
    assert own(epsilon=1).distribution([0, 1]).probabilities == (1, 0)


GEN = __import__("numpy").random.default_rng(0)  # a module-level generator (the mistake)


@program(output="selection")
def coin_from_module_generator(q, epsilon):
    return 0 if GEN.random() < 0.5 else 1


def test_a_generator_of_the_program_s_module_is_watched_too():
    """``G = np.random.default_rng(0)`` at the top of the user's file: before, a coin that
    landed the same way on the replay gave an exact-looking law (True 1/2 where it is 3/4,
    a newcomer's trial); now refused in one line on every call (20 calls)."""
    assert GEN in module_generators(__file__)
    for _ in range(20):
        with pytest.raises(GlobalRandom, match="a generator of the program's module"):
            coin_from_module_generator(epsilon=1).distribution([0, 1]).probabilities  # noqa: B018
