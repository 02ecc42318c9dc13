"""exactdp/programs/release_max_poly.py: the released maximum's density as polynomials in
(u, x), against the density written from its definition (sum over the winner of its
density times the others' CDFs) in mpmath, and the pieces' exact candidates."""

from __future__ import annotations

from fractions import Fraction

import flint
import mpmath
import pytest
import sympy

from exactdp.programs.release_max_poly import (
    Exact,
    Lattice,
    Search,
    coeffs_in_u,
    leading,
    scan_pieces,
    taylor_at_one,
    trailing,
)

from .quadrature import exponential_cdf, exponential_pdf, laplace_cdf, laplace_pdf


def direct(law, q, v, b):
    pdf, cdf = ((laplace_pdf, laplace_cdf) if law == "laplace"
                else (exponential_pdf, exponential_cdf))
    cs = [cdf(v - a, b) for a in q]
    return mpmath.fsum(pdf(v - a, b) * mpmath.fprod(c for j, c in enumerate(cs) if j != i)
                       for i, a in enumerate(q))


def at(lat, P, s, v):
    """``P(u, x)`` at the value v (``u = exp(r (L v - s))``, ``x = exp(-r)``)."""
    r = mpmath.mpf(lat.r.numerator) / lat.r.denominator
    u, x = mpmath.exp(r * (lat.L * v - s)), mpmath.exp(-r)
    return mpmath.fsum(mpmath.polyval(list(reversed([int(t) for t in c.coeffs()])), x)
                       * u**k for k, c in enumerate(coeffs_in_u(P)))


@pytest.mark.parametrize("law", ["laplace", "exponential"])
def test_density_polynomials_are_the_density_up_to_the_common_factor(law):
    q = [Fraction(1, 2), Fraction(0), Fraction(3, 2), Fraction(1, 2)]
    b = mpmath.mpf(3)
    lat = Lattice(law, Fraction(1, 3), q, q)
    assert (lat.L, lat.Q, lat.span) == (2, [1, 0, 3, 1], 3)
    with mpmath.workdps(30):
        for lo, hi, v in ((None, 0, mpmath.mpf(-1)), (0, 1, mpmath.mpf("0.3")),
                          (1, 3, mpmath.mpf("1.2")), (3, None, mpmath.mpf(4))):
            s = lo if lo is not None else hi
            P = lat.density(lat.Q, s, lo)
            want = direct(law, [mpmath.mpf(a.numerator) / a.denominator for a in q], v, b)
            if law == "exponential" and (lo is None or lo < 3):
                assert P.to_dict() == {} and want == 0
                continue
            u = mpmath.exp((lat.L * v - s) / (b * lat.L))
            factor = (2 * u if law == "laplace" else u) ** len(q) * b
            assert abs(at(lat, P, s, v) - factor * want) < mpmath.mpf(10) ** -25


def test_taylor_trailing_and_leading_coefficients():
    lat = Lattice("laplace", Fraction(1), [Fraction(0), Fraction(0)], [Fraction(0)] * 2)
    P = lat.density(lat.Q, 0, 0)  # right of both scores: f F + F f = 2 (2u - 1)
    assert [c.coeffs() for c in coeffs_in_u(P)] == [[-2], [4]]
    cs = coeffs_in_u(P)
    assert taylor_at_one(cs) == (0, flint.fmpz_poly([2]))
    assert trailing(cs) == (0, flint.fmpz_poly([-2])) and leading(cs) == (1, flint.fmpz_poly([4]))
    left = coeffs_in_u(lat.density(lat.Q, 0, None))  # left of both: 2 u^4
    assert trailing(left) == leading(left) == (4, flint.fmpz_poly([2]))


def test_scan_pieces_finds_the_closed_form_and_its_witness():
    # [0, 0] against [1, 1], b = 1: left of every score the ratio is e^{n/b} = e^2
    lat = Lattice("laplace", Fraction(1), [Fraction(0)] * 2, [Fraction(1)] * 2)
    search = Search(lat, "P")
    scan_pieces(search)
    best = search.best()
    assert best.attained and best.direction == 1
    assert best.where == "P with the value in (-oo, 0) (a constant ratio)"
    assert lat.value(best) == 2
    assert sympy.simplify(lat.at_x(best.A) / lat.at_x(best.B) - sympy.exp(2)) == 0
    assert len(search.pieces) == 2  # (0, 1) and (1, oo) are left for critical points


def test_a_vanishing_edge_gives_an_infinite_candidate():
    # exponential noise, a tie at the top of the first input only: its density is 0 at 0
    lat = Lattice("exponential", Fraction(1), [Fraction(0)] * 2, [Fraction(0), Fraction(-1)])
    search = Search(lat, "P")
    scan_pieces(search)
    best = search.best()
    assert best.B == 0 and not best.attained and best.direction == -1
    assert best.where == "P as the value -> 0"
    assert lat.value(best) == sympy.oo
    assert search.compare(best, Exact(flint.fmpz_poly([1]), flint.fmpz_poly([1]), 0, "",
                                      True)) == 1
