"""``f' g - f g'`` as products of integer polynomials (exactdp.programs.release_products)
against the term-by-term Fraction route of exactdp.programs.release_sup: the same terms
(sorted by exponent), on random exponential polynomials, where a key's sum cancels, and on
sparse exponents (the term-by-term integer route)."""

from __future__ import annotations

import random
from fractions import Fraction

from exactdp.programs import release_products as P
from exactdp.programs import release_sup as S
from exactdp.programs.release_products import cross

F = Fraction


def _slow(f, g, lam):
    return S.add(S.mul(S.derivative(f, lam), g), S.mul(f, S.derivative(g, lam)), -1)


def _random_terms(rng, n):
    out = {}
    for _ in range(n):
        p = tuple(F(rng.randint(-5, 5), rng.randint(1, 7)) for _ in range(rng.randint(1, 3)))
        while p and p[-1] == 0:
            p = p[:-1]
        if p:
            out[(F(rng.randint(-3, 3), 4), F(rng.randint(-3, 3), 5))] = p
    return out


def test_cross_is_the_term_by_term_route():
    rng = random.Random(1)
    for _ in range(400):
        f, g = _random_terms(rng, rng.randint(1, 8)), _random_terms(rng, rng.randint(1, 8))
        lam = F(rng.randint(1, 5), rng.randint(1, 5))
        fast, slow = cross(f, g, lam), _slow(f, g, lam)
        assert fast == slow and list(fast) == sorted(slow)


def test_a_constant_ratio_has_no_cross_term():
    # f = 3 g: (3g)' g - 3g g' = 0 exactly; f = e^v + 2, g = e^v + 1: -e^v (hand)
    g = {(F(1), F(0)): (F(1),), (F(-1, 2), F(1, 3)): (F(2), F(1))}
    assert cross({k: tuple(3 * a for a in p) for k, p in g.items()}, g, F(1, 2)) == {}
    f = {(F(1), F(0)): (F(1),), (F(0), F(0)): (F(2),)}
    h = {(F(1), F(0)): (F(1),), (F(0), F(0)): (F(1),)}
    assert cross(f, h, F(1)) == {(F(1), F(0)): (F(-1),)}


def test_cross_on_longer_terms_and_mixed_denominators():
    """Up to 12 terms of degree up to 3, exponents with denominators 1-10 (the integers'
    common scales), and ``g`` a multiple of ``f`` (every key cancels): the Fraction route
    exactly."""
    rng = random.Random(7)

    def terms(n):
        out = {}
        for _ in range(n):
            p = tuple(F(rng.randint(-9, 9), rng.randint(1, 12)) for _ in range(rng.randint(1, 4)))
            while p and p[-1] == 0:
                p = p[:-1]
            if p:
                out[(F(rng.randint(-6, 6), rng.choice([1, 2, 3, 4])),
                     F(rng.randint(-5, 5), rng.choice([1, 5, 7, 10])))] = p
        return out

    for i in range(300):
        f, g = terms(rng.randint(0, 12)), terms(rng.randint(0, 12))
        if i % 5 == 0:
            g = {k: tuple(F(rng.randint(1, 3)) * a for a in p) for k, p in f.items()}
        lam = F(rng.randint(1, 9), rng.randint(1, 9))
        fast, slow = cross(f, g, lam), _slow(f, g, lam)
        assert fast == slow and list(fast) == sorted(slow)


def test_sparse_exponents_take_the_term_by_term_route_with_the_same_terms():
    # exponents 10**6 apart: past SPREAD, the flint polynomials would be mostly zeros
    f = {(F(1), F(0)): (F(1),), (F(1), F(10**6)): (F(2), F(1, 3)), (F(-1), F(5)): (F(3),)}
    g = {(F(0), F(0)): (F(1, 2),), (F(1), F(-10**6)): (F(-1),)}
    assert P._poly_cross([(P._scaled(f, 1, 1, 3), P._scaled(g, 1, 1, 2), 1)]) is None
    fast, slow = cross(f, g, F(1, 3)), _slow(f, g, F(1, 3))
    assert fast == slow and list(fast) == sorted(slow)
