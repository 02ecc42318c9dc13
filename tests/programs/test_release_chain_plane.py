"""Two released Laplace gaps (noisy top-k with gap, k = 3): the plane's polygons and the
proof that undecided ones stay below a loss found."""

from fractions import Fraction as F

import flint

from exactdp.programs import library_release as L
from exactdp.programs.release_chain_plane import (
    Undecided,
    below_level,
    chain_plane_seconds,
    undecided_text,
)

SQUARE = [(F(0), F(1), F(0)), (F(0), F(0), F(1)), (F(1), F(-1), F(0)), (F(1), F(0), F(-1))]


def test_below_level_proves_both_ratios_under_exp_level():
    # f = e^-u, g = e^-u + e^-2u / 2 on [0, 1]^2: g / f = 1 + e^-u / 2 in [1 + e^-1 / 2, 3/2]
    f = {(F(-1), F(0), F(0)): {(0, 0): F(1)}}
    g = {(F(-1), F(0), F(0)): {(0, 0): F(1)}, (F(-2), F(0), F(0)): {(0, 0): F(1, 2)}}
    face = Undecided("p", (F(1, 2), F(1, 2)), f, g, SQUARE, F(1))
    import math
    top = math.log(1.5)  # the supremum of |ln f/g|, attained at u = 0
    assert below_level([face], flint.arb(top + 1e-6), [0])
    assert not below_level([face], flint.arb(top - 1e-6), [0])
    assert not below_level([face], flint.arb(0), [0])  # no E in [1, 1)
    assert below_level([], flint.arb(0), [0])


def test_undecided_text_names_up_to_three_polygons():
    faces = [Undecided("p", (F(i), F(1, 2)), {}, {}, [], F(1)) for i in range(5)]
    text = undecided_text(faces)
    assert text.startswith("its polygons of gaps near (0, 1/2), (1, 1/2), (2, 1/2) and 2 more")


def test_chain_plane_seconds_is_the_plane_price():
    from exactdp.programs.release_two import plane_seconds
    d = L.noisy_top_k_gap(epsilon=1, k=3).distribution([0, 1, 2, 3, 4])
    run = d.runs[d.keys[0]][0]
    assert chain_plane_seconds(run) == plane_seconds(run) > 0
