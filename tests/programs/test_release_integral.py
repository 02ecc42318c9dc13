"""One centre interval's integral in integers (exactdp.programs.release_integral): the same
terms, order and key types as integrate_piece of the product, against closed forms and
against that route on random pieces."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from exactdp.exact.piecewise_exp import integrate_piece, times
from exactdp.programs.release_cells import VPoly
from exactdp.programs.release_integral import integrate_times

F = Fraction


def _both(piece, prod, lo, hi, e=1):
    a: dict = {}
    b: dict = {}
    integrate_times(a, piece, prod, lo, hi, e)
    integrate_piece(b, times(piece, prod), lo, hi, e)
    return a, b


def test_closed_form_of_a_laplace_tail_times_a_cdf():
    # int_0^oo e^-z (1 - e^-z / 2) dz = 1 - 1/4 (lam = 1: exponents at the ends vanish)
    out: dict = {}
    integrate_times(out, {(F(-1), F(0)): F(1)}, {(F(0), F(0)): F(1), (F(-1), F(0)): F(-1, 2)},
                    F(0), None, 1)
    assert out == {(0, F(0)): F(3, 4)}
    # on (1, 2) with a released value's offset: int_1^2 e^(z - v) dz = e^(2 - v) - e^(1 - v)
    out = {}
    integrate_times(out, {(F(1), VPoly((F(0), F(-1)))): F(1)}, {(F(0), F(0)): F(1)},
                    F(1), F(2), 1)
    assert out == {(0, VPoly((F(2), F(-1)))): F(1), (0, VPoly((F(1), F(-1)))): F(-1)}


@pytest.mark.parametrize("seed", range(6))
def test_random_pieces_match_the_product_route_term_for_term(seed):
    rng = random.Random(seed)

    def frac():
        return F(rng.randint(-9, 9), rng.choice([1, 2, 3, 4, 8, 40]))

    def end():
        return rng.choice([frac(), VPoly((frac(), F(rng.choice([-1, 1])))),
                           VPoly((frac(), F(0)))])

    prod = {}
    for _ in range(rng.randint(1, 30)):
        prod[(frac(), frac())] = frac() or F(1)
    prod[(F(2), F(0))] = F(1, 3)  # a term of rate -r0: its constant integral
    w0 = rng.choice([frac(), VPoly((frac(), F(1)))])
    piece = {(F(-2), w0): F(rng.randint(1, 5), 7)}
    lo, hi = end(), end()
    a, b = _both(piece, prod, lo, hi)
    assert list(a.items()) == list(b.items())
    assert [type(k[1]) for k in a] == [type(k[1]) for k in b]


def test_other_pieces_take_the_product_route_and_divergence_raises():
    two = {(F(-1), F(0)): F(1), (F(-2), F(1)): F(1, 2)}
    prod = {(F(0), F(0)): F(1), (F(-1), F(3)): F(-1, 2)}
    a, b = _both(two, prod, F(0), None)
    assert list(a.items()) == list(b.items())
    with pytest.raises(ArithmeticError):
        integrate_times({}, {(F(1), F(0)): F(1)}, prod, F(0), None, 1)
    with pytest.raises(ArithmeticError):
        integrate_times({}, {(F(0), F(0)): F(1)}, prod, None, F(0), 1)


@pytest.mark.parametrize("seed", range(6))
def test_times_in_integers_is_times_key_for_key(seed):
    # random pieces with cancelling sums (a key whose sum vanishes leaves, and comes back
    # last): the same mapping, order and numbers as piecewise_exp.times
    from exactdp.exact.piecewise_exp import ONE_PIECE
    from exactdp.programs.release_integral import times_integers

    rng = random.Random(100 + seed)

    def piece(n):
        return {(F(rng.randint(-3, 3), rng.choice([1, 2, 5])), F(rng.randint(-3, 3), 4)):
                F(rng.choice([-1, 1]) * rng.randint(1, 4), rng.choice([1, 2, 3]))
                for _ in range(n)}

    a, b = piece(rng.randint(1, 12)), piece(rng.randint(1, 12))
    for x, y in ((a, b), (b, a), (a, ONE_PIECE), (a, {(F(0), VPoly((F(0), F(1)))): F(1)})):
        got, want = times_integers(x, y), times(x, y)
        assert list(got.items()) == list(want.items())


@pytest.mark.parametrize("seed", range(4))
def test_scaled_products_and_a_filled_value_match_the_fraction_route(seed):
    # a chain of products kept over common denominators is times' chain (scaled_piece);
    # integrated from it, or into a value already holding terms, term for term as
    # integrate_piece of the Fraction product
    from exactdp.programs.release_integral import Scaled, scaled_piece, scaled_times
    rng = random.Random(200 + seed)

    def piece(n):
        return {(F(rng.randint(-3, 3), rng.choice([1, 2, 5])), F(rng.randint(-3, 3), 4)):
                F(rng.choice([-1, 1]) * rng.randint(1, 4), rng.choice([1, 2, 3]))
                for _ in range(n)}

    parts = [piece(rng.randint(1, 6)) for _ in range(3)]
    want = times(times(parts[0], parts[1]), parts[2])
    got = scaled_times(scaled_times(parts[0], parts[1]), parts[2])
    assert isinstance(got, Scaled)
    assert list(scaled_piece(got).items()) == list(want.items())
    assert scaled_times({(F(0), F(0)): 1.0}, parts[0]) is None
    one = {(F(-1), VPoly((F(0), F(1)))): F(2, 3)}
    a: dict = {}
    b: dict = {}
    integrate_times(a, one, got, F(-1), VPoly((F(1), F(1))), 1)
    integrate_piece(b, times(one, want), F(-1), VPoly((F(1), F(1))), 1)
    assert list(a.items()) == list(b.items())
    integrate_times(a, one, want, F(-2), F(3), 2)
    integrate_piece(b, times(one, want), F(-2), F(3), 2)
    assert list(a.items()) == list(b.items())
    empty: dict = {}
    integrate_times(empty, one, Scaled(1, 1, 1, []), F(0), F(1), 1)
    assert empty == {}
