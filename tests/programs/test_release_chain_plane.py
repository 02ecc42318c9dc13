"""Two released Laplace gaps (noisy top-k with gap, k = 3): the plane's polygons and the
proof that undecided ones stay below a loss found."""

import math
from fractions import Fraction as F

import flint
import mpmath
import sympy
from sympy import Rational as R

from exactdp.programs import library_release as L
from exactdp.programs.release_chain_plane import (
    Undecided,
    below_level,
    chain_plane_seconds,
    plane_chain,
    undecided_text,
)
from exactdp.programs.release_loss import _tools

from .support import sampled_like_probabilities
from .test_release_face import ev

SQUARE = [(F(0), F(1), F(0)), (F(0), F(0), F(1)), (F(1), F(-1), F(0)), (F(1), F(0), F(-1))]


def test_below_level_proves_both_ratios_under_exp_level():
    # f = e^-u, g = e^-u + e^-2u / 2 on [0, 1]^2: g / f = 1 + e^-u / 2 in [1 + e^-1 / 2, 3/2]
    f = {(F(-1), F(0), F(0)): {(0, 0): F(1)}}
    g = {(F(-1), F(0), F(0)): {(0, 0): F(1)}, (F(-2), F(0), F(0)): {(0, 0): F(1, 2)}}
    face = Undecided("p", (F(1, 2), F(1, 2)), f, g, SQUARE, F(1))
    top = math.log(1.5)  # the supremum of |ln f/g|, attained at u = 0
    assert below_level([face], flint.arb(top + 1e-6), [0])
    assert not below_level([face], flint.arb(top - 1e-6), [0])
    assert not below_level([face], flint.arb(0), [0])  # no E in [1, 1)
    assert below_level([], flint.arb(0), [0])


def test_undecided_text_names_up_to_three_polygons():
    faces = [Undecided("p", (F(i), F(1, 2)), {}, {}, [], F(1)) for i in range(5)]
    text = undecided_text(faces)
    assert text.startswith("its polygons of gaps near (0, 1/2), (1, 1/2), (2, 1/2) and 2 more")


def test_chain_plane_seconds_grows_with_the_answers():
    # measured: about 1 s CPU a pattern at 5 answers (docs/benchmarks.md); the estimate within
    # the budget for a few dozen patterns, and larger with more losers
    runs = [L.noisy_top_k_gap(epsilon=1, k=3).distribution(list(range(n))) for n in (4, 5, 6)]
    cost = [chain_plane_seconds(d.runs[d.keys[0]][0]) for d in runs]
    assert 0.3 < cost[1] < 2 and cost[0] < cost[1] < cost[2]


# ------------------------------------------------------------- the pair of 5 answers, k = 3
# 1^5 vs 2 0 2 0 1: the rays settle no pattern reaching the translation bound 2/3 (it was a
# certified bracket [0.621002, 0.666667]); the plane's polygons and the proofs below the
# loss found make it exact: the ray limit of the pattern (1, 3, 4), not attained.
Q5, Q5B = [1, 1, 1, 1, 1], [2, 0, 2, 0, 1]
WANT = sympy.log(23 * sympy.exp(R(3, 2)) / (30 * sympy.exp(R(5, 6)) - 7 * sympy.exp(R(2, 3))))


def test_undecided_polygons_of_a_pattern_are_below_the_loss_found():
    """The pattern (0, 2, 1): the plane leaves a polygon open (no monotone direction within
    the proofs' work; three before the mean-value form of release_sign2d), proved below the
    loss 0.621 and below 0.3, not below 0.28: on a dense grid of it (far along its ray) its
    largest |ln f/g| is 0.28665."""
    m = L.noisy_top_k_gap(epsilon=1, k=3)
    d, e = m.distribution(Q5), m.distribution(Q5B)
    key = next(k for k, o in zip(d.keys, d.outputs, strict=True) if o[:3] == (0, 2, 1))
    found, faces = plane_chain(d.runs[key], e.runs[key], "p", "t", _tools(None), [30.0])
    assert faces and found
    assert below_level(faces, flint.arb(float(WANT)), [0])
    assert below_level(faces, flint.arb("0.3"), [0])
    assert not below_level(faces, flint.arb("0.28"), [0])
    grid = [(F(2 + i, 2), F(j, 20)) for i in range(400) for j in range(21)]
    top = max(abs(float(mpmath.log(ev(x.f, *p, x.lam) / ev(x.g, *p, x.lam))))
              for x in faces for p in grid if all(a + b * p[0] + c * p[1] >= 0
                                                  for a, b, c in x.halves))
    assert 0.28 < top < 0.3
    assert plane_chain(d.runs[key], e.runs[key], "p", "t", _tools(None), [0.01]) is None


def test_noisy_top_3_five_answers_sampler_against_pattern_probabilities():
    sampled_like_probabilities(L.noisy_top_k_gap(epsilon=1, k=3).distribution(Q5B), 20_000,
                               3, 60)
