"""PF's lazy neighbourhood route (issue 36): every polynomial it forms from q's product is
the one the neighbour's own product tree gives, every ball contains the exact value, every
``shift_of`` identity holds, and check_dp's verdict, loss and witness are those of the
general x-form route.

Independent routes: :func:`exactdp.xform.pf_polynomials_tree` on the neighbour's own gaps
(McKenna & Sheldon's formula by a product tree) and the general route of ``make_engine``
(every vector's rational form, its own tree).
"""

from __future__ import annotations

import flint
import numpy as np
import pytest
import sympy

import exactdp.analysis.engines.select as select
from exactdp import PermuteAndFlip, check_dp
from exactdp.analysis.common import score_vector
from exactdp.analysis.engines.pf_neighbours import (
    LazyPair,
    LazyXEngine,
    _divide,
    pf_lazy_engine,
)
from exactdp.analysis.neighbourhood import neighbour_list
from exactdp.xform import pf_polynomials_tree, pf_product_blocks

RNG = np.random.default_rng(36)
# a unique top with small gaps below it (the moves with c = 1, 2, -1, -2), ties, spreads
CASES = [[5, 4, 3, 0, 4], [5, 3, 3, 1], [7, 7, 0, 2, 6], [0, 1], [3, 0, 0, 0, 0, 0, 0, 1],
         *[[int(v) for v in RNG.integers(0, 9, n)] for n in (3, 9, 13, 20)]]


def vectors_of(mech, q, search="auto"):
    sv = score_vector(q, "scores", "test")
    nbrs, _ = neighbour_list(mech, sv, None, search, False, "test")
    return [sv, *nbrs]


@pytest.mark.parametrize("monotonic", [False, True])
@pytest.mark.parametrize("q", CASES)
def test_every_polynomial_and_ball_is_the_trees(q, monotonic):
    mech = PermuteAndFlip(1, monotonic=monotonic)
    vectors = vectors_of(mech, q)
    engine = pf_lazy_engine(mech, sympy.Integer(1), vectors)
    assert isinstance(engine, LazyXEngine)
    for v, probs in zip(vectors, engine.probs, strict=True):
        _, G = v.integer_gaps()
        tree = pf_polynomials_tree(G)
        for g, pair in zip(G, probs, strict=True):
            assert isinstance(pair, LazyPair)
            with flint.ctx.workprec(400):  # the exact value to 400 bits
                value = tree[g].numer()(flint.arb(flint.fmpq(-1, engine.N)).exp()) / tree[g].denom()
            assert pair.ball.contains(value)
            assert pair[0] == tree[g] and pair[1] == 1
            if pair.shift_of is not None:
                other, k = pair.shift_of
                mono = flint.fmpq_poly([0] * abs(k) + [1])
                assert (pair[0] == other[0] * mono) if k >= 0 else (other[0] == pair[0] * mono)


@pytest.mark.parametrize("q", CASES[:6])
def test_exhaustive_neighbours_take_their_own_product(q):
    mech = PermuteAndFlip(sympy.Rational(2, 3))
    vectors = vectors_of(mech, q[:5], "exhaustive")
    engine = pf_lazy_engine(mech, sympy.Rational(2, 3), vectors)
    assert engine is not None
    for v, probs in zip(vectors, engine.probs, strict=True):
        _, G = v.integer_gaps()
        tree = pf_polynomials_tree(G)
        assert all(pair[0] == tree[g] for g, pair in zip(G, probs, strict=True))


def general(monkeypatch, *args, **kw):
    with monkeypatch.context() as m:
        m.setattr(select, "pf_lazy_engine", lambda *a: None)
        return check_dp(*args, **kw)


@pytest.mark.parametrize("q", CASES)
@pytest.mark.parametrize("claim", [None, sympy.Rational(9, 10), sympy.Rational(1, 2)])
def test_check_dp_is_the_general_routes(monkeypatch, q, claim):
    for mech in (PermuteAndFlip(1), PermuteAndFlip(sympy.Rational(1, 3), sensitivity=2),
                 PermuteAndFlip(2, monotonic=True)):
        fast = check_dp(mech, q, epsilon=claim)
        slow = general(monkeypatch, mech, q, epsilon=claim)
        assert (fast.holds, sympy.srepr(fast.loss), fast.witness, fast.neighbours_checked) == (
            slow.holds, sympy.srepr(slow.loss), slow.witness, slow.neighbours_checked)
    # rational scores with one common denominator
    third = [sympy.Rational(v, 3) for v in q]
    assert check_dp(PermuteAndFlip(1), third).loss == general(
        monkeypatch, PermuteAndFlip(1), third).loss


def test_routes_it_leaves_to_the_general_engine():
    mech = PermuteAndFlip(1)
    sv = [score_vector(q, "scores", "test") for q in ([0, 1, 2], [1, 0, 1])]
    assert pf_lazy_engine(PermuteAndFlip(sympy.Symbol("e", positive=True)),
                          sympy.Symbol("e", positive=True), sv) is None
    assert pf_lazy_engine(PermuteAndFlip(1, sensitivity=sympy.sqrt(2)), sympy.Integer(1),
                          sv) is None
    irr = [score_vector([0, sympy.sqrt(2)], "scores", "test")] * 2
    assert pf_lazy_engine(mech, sympy.Integer(1), irr) is None


@pytest.mark.parametrize("q", [[int(v) for v in RNG.integers(0, 6, n)] for n in (2, 3, 4, 5, 6)])
def test_loss_is_the_exact_probabilities_own(q):
    """check_dp's loss on the lazy route against the largest ``|ln P_r(q) - ln P_r(v)|`` over
    the same neighbours, each probability from the distribution's exact ``probabilities``
    (sympy, McKenna & Sheldon's formula) evaluated to 40 digits."""
    mech = PermuteAndFlip(1)
    vectors = vectors_of(mech, q)
    exact = [[sympy.N(p, 40) for p in mech.distribution(list(v.data)).probabilities]
             for v in vectors]
    want = max(abs(sympy.log(a) - sympy.log(b))
               for other in exact[1:] for a, b in zip(exact[0], other, strict=True))
    got = check_dp(mech, q).loss
    assert abs(sympy.N(got, 40) - want) < sympy.Float("1e-30")


@pytest.mark.parametrize("n", [10, 40])
def test_moved_balls_are_narrow(n):
    """The moved neighbours' balls (q's roots, one series division) are as narrow as the
    neighbour's own product's (:func:`_balls`): relative radius below 2^-60, so they decide
    the comparisons without the exact polynomials."""
    from exactdp.analysis.engines.pf_neighbours import _balls

    q = [int(v) for v in np.random.default_rng(n).integers(0, 11, n)]
    mech = PermuteAndFlip(1)
    vectors = vectors_of(mech, q)
    engine = pf_lazy_engine(mech, sympy.Integer(1), vectors)
    assert engine is not None
    x = flint.arb(flint.fmpq(-1, engine.N)).exp()
    for v, probs in zip(vectors[1:4], engine.probs[1:4], strict=True):
        _, G = v.integer_gaps()
        distinct = list(dict.fromkeys(G))
        with flint.ctx.workprec(64 + n):
            own = dict(zip(distinct, _balls(G, distinct, n, x), strict=True))
        for g, pair in zip(G, probs, strict=True):
            assert pair.ball.overlaps(own[g])
            assert pair.ball.rad() < pair.ball.mid() * flint.arb(2) ** -60


@pytest.mark.parametrize("q", CASES)
def test_every_vectors_probabilities_sum_to_one_exactly(q):
    """check_normalised proves the sum by PF's identity (``1 - prod_s (1 - x^G_s)``); here
    the sum of every vector's exact polynomials, one per output, is 1 as a polynomial."""
    mech = PermuteAndFlip(1)
    vectors = vectors_of(mech, q)
    engine = pf_lazy_engine(mech, sympy.Integer(1), vectors)
    assert engine is not None and all(engine.zero_gap)
    for probs in engine.probs:
        total = flint.fmpq_poly([0])
        for pair in probs:
            total += pair[0]
        assert total == 1


def test_a_division_that_is_not_exact_raises():
    blocks = pf_product_blocks([0, 1, 3])  # (1 - t)(1 - t x)(1 - t x^3)
    assert len(_divide(blocks, 3)) == 3
    with pytest.raises(ArithmeticError):
        _divide(blocks, 2)


def test_a_sum_the_identity_does_not_cover_is_summed_exactly():
    """Without a zero gap, or with balls whose sum misses 1, the exact test decides: a
    wrong probability is refused, a right one passes."""
    mech = PermuteAndFlip(1)
    vectors = vectors_of(mech, [3, 1, 0])
    engine = pf_lazy_engine(mech, sympy.Integer(1), vectors)
    assert engine is not None
    engine.zero_gap = [False] * len(vectors)
    engine.check_normalised(0, "test", "q", [3, 1, 0])  # the true probabilities pass
    engine.zero_gap = [True] * len(vectors)
    good = engine.probs[1][1]
    wrong = LazyPair(good.ball * 2, lambda: good[0] * 2)
    engine.probs[1] = [engine.probs[1][0], wrong, engine.probs[1][2]]
    with pytest.raises(ValueError, match="do not sum to 1"):
        engine.check_normalised(1, "test", "q'", [2, 1, 0])
