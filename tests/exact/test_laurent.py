"""Laurent pieces against the dictionary pieces of :mod:`exactdp.exact.piecewise_exp` (the
independent route: term-by-term Fraction arithmetic), on random integer pieces."""

from __future__ import annotations

from fractions import Fraction as F

import flint
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.exact import piecewise_exp as pe
from exactdp.exact.laurent import (
    add,
    monomial,
    mul,
    piece_plus,
    piece_times,
    reduced,
    sum_piece,
)

#: y = exp(lam / 3): exponent k means W = k / 3.
L = 3

terms = st.dictionaries(st.tuples(st.integers(-3, 3), st.integers(-6, 6)),
                        st.integers(-4, 4).filter(bool), min_size=1, max_size=4)


def lpiece(t: dict) -> dict:
    """A Laurent piece from ``{(R, k): c}``."""
    out: dict = {}
    for (r, k), c in t.items():
        v = monomial(k, c)
        out[r] = add(out[r], v) if r in out else v
    return {r: v for r, v in out.items() if v[1] != 0}


def dpiece(t: dict) -> dict:
    """The same piece in piecewise_exp's form ``{(r, w): q}`` (rate r / L, offset k / L)."""
    out: dict = {}
    for (r, k), c in t.items():
        pe.add_term(out, (F(r, L), F(k, L)), F(c))
    return out


def as_dict(p: dict) -> dict:
    """A Laurent piece in piecewise_exp's form."""
    out: dict = {}
    for r, (low, poly) in p.items():
        for i, c in enumerate(poly.coeffs()):
            if c:
                pe.add_term(out, (F(r, L), F(low + i, L)), F(int(c)))
    return out


@settings(max_examples=60, deadline=None)
@given(terms, terms)
def test_products_and_sums_are_the_dictionary_routes(a, b):
    assert as_dict(piece_times(lpiece(a), lpiece(b))) == pe.times(dpiece(a), dpiece(b))
    assert as_dict(piece_plus(lpiece(a), lpiece(b), -2)) == pe.plus(dpiece(a), dpiece(b), -2)


@settings(max_examples=60, deadline=None)
@given(terms, st.integers(-5, 5), st.integers(0, 6))
def test_finite_geometric_sums_are_the_dictionary_route(a, lo, width):
    got: dict = {}
    sum_piece(got, lpiece(a), lo, lo + width)
    want: dict = {}
    pe.sum_piece(want, dpiece(a), lo, lo + width)
    for r, v in got.items():
        assert as_dict({0: v}) == {(F(0), w): q for (_, w), q in want.get(F(r, L), {}).items()}
    assert {F(r, L) for r in got} == {r for r, v in want.items() if v}


def test_infinite_sums_need_decay_and_reduced_is_reduce_fraction():
    with pytest.raises(ArithmeticError, match="does not decay"):
        sum_piece({}, {1: monomial(0)}, 0, None)
    with pytest.raises(ArithmeticError, match="constant term"):
        sum_piece({}, {0: monomial(0)}, None, 3)
    # (y^-1 - y^2) / (2 - 2 y^3) = y^-1 / 2 (a common factor 1 - y^3)
    num = add(monomial(-1), monomial(2), -1)
    den = add(monomial(0, 2), monomial(3, 2), -1)
    got = reduced(num, den, L)
    assert got == ({(0, F(-1, 3)): F(1, 2)}, {(0, F(0)): F(1)})
    to_dict = [{(0, F(low + i, L)): F(int(c)) for i, c in enumerate(p.coeffs()) if c}
               for low, p in (num, den)]
    assert got == pe.reduce_fraction(*to_dict)
    assert reduced((0, flint.fmpz_poly([0])), den, L)[0] == {}
    assert mul(monomial(1, 2), monomial(-3, 5)) == (-2, flint.fmpz_poly([10]))
