"""Deferred sums (exactdp.lazy_expr) against the eager build of exactdp.xform.poly_expr:
the same expression (==, hash, srepr, args, class) whatever is read first, and
sympy.simplify(a - b) == 0 on permute-and-flip's probabilities."""

from __future__ import annotations

import copy
import pickle

import flint
import pytest
import sympy

from exactdp import PermuteAndFlip
from exactdp.lazy_expr import deferred_add, deferred_poly_expr
from exactdp.xform import Atoms, pf_polynomials_tree, poly_expr

GAPS = (0, 3, 3, 7, 12, 0, 5)


def _pairs():
    """(deferred, eager) for each output's PF polynomial on GAPS."""
    polys = pf_polynomials_tree(GAPS)
    lam = sympy.Rational(1, 3)
    atoms = Atoms.coins(lam)
    return [(deferred_poly_expr(polys[g], atoms), poly_expr(polys[g], Atoms.coins(lam)))
            for g in GAPS]


READS = {
    "eq": lambda d, e: d == e,
    "reflected eq": lambda d, e: e == d,
    "ne": lambda d, e: not (d != e),
    "hash": lambda d, e: hash(d) == hash(e),
    "args": lambda d, e: d.args == e.args,
    "class": lambda d, e: d.__class__ is sympy.Add,
    "srepr": lambda d, e: sympy.srepr(d) == sympy.srepr(e),
    "str": lambda d, e: str(d) == str(e),
    "pickle": lambda d, e: pickle.loads(pickle.dumps(d)) == e,
    "copy": lambda d, e: copy.copy(d) == e,
    "dict key": lambda d, e: {e: 1}[d] == 1,
    "tuple eq": lambda d, e: (e, 1) == (d, 1),
    "arithmetic": lambda d, e: (d - e) == 0,
    "evalf": lambda d, e: d.evalf(30) == e.evalf(30),
}


@pytest.mark.parametrize("read", sorted(READS))
def test_first_read_of_any_kind_gives_the_eager_expression(read):
    for d, e in _pairs():
        assert READS[read](d, e)
        assert type(d) is sympy.Add  # built in place on that first read
        assert d == e and hash(d) == hash(e) and sympy.srepr(d) == sympy.srepr(e)
        assert d.args == e.args


def test_pf_probabilities_equal_the_eager_route_exactly():
    # the deferred probabilities against the eager build and the exact algebra
    q = [3, 0, 7, 7, 1, 4]
    probs = tuple(PermuteAndFlip(1).distribution(q).probabilities)
    L, G = 1, tuple(max(q) - v for v in q)
    polys = pf_polynomials_tree(G)
    lam = PermuteAndFlip(1).rate / L
    for p, g in zip(probs, G, strict=True):
        eager = poly_expr(polys[g], Atoms.coins(lam))
        assert sympy.simplify(p - eager) == 0
        assert p == eager and type(p) is sympy.Add
    assert sympy.simplify(sum(probs) - 1) == 0


def test_not_deferred_when_the_result_is_not_a_sum():
    atoms = Atoms.powers(sympy.Symbol("x"))
    for coeffs in ([5], [0, 3], [0, 0, 0, 1]):
        got = deferred_poly_expr(flint.fmpz_poly(coeffs), atoms)
        assert type(got) is not sympy.Add
        assert got == poly_expr(flint.fmpz_poly(coeffs), atoms)


def test_a_builder_that_does_not_return_a_sum_is_refused_at_the_first_read():
    d = deferred_add(lambda: sympy.Integer(3))
    with pytest.raises(RuntimeError, match="not an Add"):
        _ = d.args


def test_deferred_with_atoms_that_may_evaluate_to_numbers():
    # exp(-k log 2) = 2**-k is not a canonical atom: such a sum is built at once by
    # sympy's Add, and an irrational rate whose atoms stay exponentials is deferred
    poly = flint.fmpq_poly([1, 2, 3])
    for lam, deferred in ((sympy.log(2), False), (sympy.sqrt(2), True)):
        atoms = Atoms.coins(lam)
        assert not atoms.plain
        got = deferred_poly_expr(poly, atoms)
        want = sympy.Add(1, 2 * sympy.exp(-lam), 3 * sympy.exp(-2 * lam))
        # type() reads nothing of it: a deferred sum is an Add of another class until read
        assert (isinstance(got, sympy.Add) and type(got) is not sympy.Add) == deferred
        assert got == want and sympy.simplify(got - want) == 0
    assert Atoms.coins(sympy.Rational(1, 2)).plain and Atoms.powers(sympy.Symbol("x")).plain
