"""Which patterns the release loss computes (exactdp.programs.release_loss_price): the
pruning test against exact logarithms, and the cells ahead against a closed form."""

from __future__ import annotations

from fractions import Fraction

import sympy

from exactdp.exact import flint_prec
from exactdp.programs.release_loss_price import Ahead, reaches
from exactdp.programs.release_select import Candidate
from exactdp.programs.runs import REAL

F = Fraction
R = sympy.Rational


def _exact(f, g):
    return Candidate((sympy.sympify(f), sympy.sympify(g)), None, 0, True, "here")


def test_reaches_decides_the_log_ratio_against_the_bound_exactly():
    three = _exact(3, 1)  # |ln 3| = 1.0986...
    assert reaches(three, R(1)) and not reaches(three, R(11, 10))
    assert reaches(three, sympy.log(3))  # equal: decided by the exact comparison
    assert reaches(_exact(1, 3), sympy.log(3))  # |ln 1/3|: the same
    assert not reaches(_exact(1, 3), sympy.log(3) + R(1, 10**30))
    assert reaches(Candidate(None, None, 1, True, "one input only"), R(10**6))


def test_the_cells_ahead_give_their_largest_end_as_a_lower_bound():
    """A pattern whose cell (0, 1) carries L = ln((e^v + 2) / (e^v + 1)): its end v = 0
    gives ln(3/2); the one of the same bound after it is fetched, and a bound reached by
    the loss found fetches nothing."""
    f = {(F(1), F(0)): (F(1),), (F(0), F(0)): (F(2),)}
    g = {(F(1), F(0)): (F(1),), (F(0), F(0)): (F(1),)}
    pieces = [(f, g, F(1), F(0), F(1), {})]

    class Dist:  # three patterns: two release one value, the last none
        keys = ("a", "b", "c")
        outputs = ((REAL,), (REAL,), ())
        runs: dict = {"a": [], "b": [], "c": []}

    ahead = Ahead(lambda d, o, key, func: (sympy.Integer(1), pieces))
    ahead.fetch(Dist, Dist, [("b", R(1)), ("c", R(1))], R(1), None, "t")
    assert list(ahead.cells) == ["b"]
    with flint_prec(64):
        assert abs(float(ahead.level(None).mid()) - float(sympy.log(R(3, 2)))) < 1e-15
    done = Ahead(lambda *a: (sympy.Integer(1), pieces))
    done.fetch(Dist, Dist, [("b", R(1))], R(1), _exact(3, 1), "t")  # ln 3 >= 1: reached
    assert not done.cells and not done.lows
    signed = Ahead(lambda *a: (sympy.Integer(1), pieces))
    signed.fetch(Dist, Dist, [("b", R(1))], R(1), None, "t", sign=1)
    assert not signed.cells
