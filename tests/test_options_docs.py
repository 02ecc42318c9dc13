"""docs/options.md: its Python blocks run as written, and the numbers it states hold."""

import pathlib
import re

import sympy

DOC = pathlib.Path(__file__).resolve().parents[1] / "docs" / "options.md"


def test_options_doc_blocks_run_and_agree():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) == 5
    ns: dict = {}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), ns)  # noqa: S102 - the page's own code
    assert ns["peel"].pmf((0, 1)) == sympy.Rational(1603, 4608)
    assert ns["shot"].pmf((0, 1)) == sympy.Rational(143, 384)
    assert ns["res"].sensitivity == sympy.Rational(2, 3)
    assert ns["d"].pmf((0, 1)) == sympy.Rational(8, 21)
