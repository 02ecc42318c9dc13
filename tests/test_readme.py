"""The README's Python examples run as written, and print what the README says they do."""

import pathlib
import re

import pytest
import sympy

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_blocks_run():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert len(blocks) >= 2
    ns: dict = {}
    for block in blocks:
        exec(compile(block, str(README), "exec"), ns)  # noqa: S102 - the README's own code
    # spot-check the values the comments promise
    assert ns["forms"][0] == sympy.sympify("x**3/3 - x**2/2 - x/2 + 1").subs(
        "x", ns["x"])
    assert ns["cert"].holds and ns["cert"].verify()
    assert (ns["swept"].cases, ns["swept"].holds, ns["swept"].failures) == (9, True, ())
    assert float(ns["exactdp"].privacy_loss(
        ns["ReportNoisyMax"]("1/10", noise="laplace"), [1] * 5, [2, 0, 0, 0, 0]
    )) == pytest.approx(0.0926959, abs=1e-7)
