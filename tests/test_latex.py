"""exactdp.latex: the public path of the table printers is the very objects of
exactdp.io.latex and exactdp.printing, and prints PF's table to the closed form."""

from __future__ import annotations

import exactdp
import exactdp.latex as public
from exactdp import printing
from exactdp.io import latex as io_latex


def test_the_public_names_are_the_implementations():
    for name in public.__all__:
        home = io_latex if hasattr(io_latex, name) else printing
        assert getattr(public, name) is getattr(home, name), name


def test_the_public_table_prints_pf_at_its_closed_form():
    # PF(1) on (0, -1): p_1 = x/2 with x = e^{-1/2}: 0.303265 (6 digits); p_0 = 1 - x/2
    out = public.probability_table({"PF": exactdp.PermuteAndFlip(1).distribution([0, -1])},
                                   exact=False)
    assert out.splitlines()[-2].split() == ["0", "0.696735"]
    assert out.splitlines()[-1].split() == ["1", "0.303265"]
    assert public.format_number(exactdp.PermuteAndFlip(1).distribution([0, -1])
                                .probabilities[1], 6) == "0.303265"
