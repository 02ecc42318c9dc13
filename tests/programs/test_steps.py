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
    StepCounter,
    StepLimit,
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
