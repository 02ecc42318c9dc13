"""The sparse vector loss from the one-threshold closed forms (exactdp/analysis/one_threshold.py).

Independent route: :func:`exactdp.privacy_loss` on the same mechanism, whose probabilities
come from the program engine (one run per answer sequence) and, for the m = 10 pairs, on the
library's program itself; the loss, its sympy form, the output named and the direction must be
the very same (structural equality, not only equal values).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

import exactdp
from exactdp import SparseVector
from exactdp.analysis.one_threshold import collapse, one_threshold_loss
from exactdp.programs import library

EPS = sympy.Rational(1, 10)

# (variant, c, threshold, a, a'): ties between sequences, zero probabilities (Algorithm 5),
# answers moving both ways, a cut-off, Algorithm 2 stopping at the first True
PAIRS = [
    (6, None, 1, (2, 0, 1, 2, 1, 2), (3, -1, 2, 1, 1, 2)),
    (6, None, 0, (1, 0), (1, -1)),
    (6, None, 0, (0, 0), (0, 0)),
    (5, None, 1, (0, 2, 2, 0, 2, 2), (0, 2, 1, -1, 2, 3)),
    (5, None, 1, (1, 2, 1, 2, 0, 0), (1, 1, 0, 1, 1, 1)),
    (1, 1, sympy.Rational(1, 2), (2, 1, 0, 2), (1, 2, -1, 2)),
    (1, 2, 1, (0, 1, 2, 0, 1, 1), (1, 0, 3, 0, 2, 0)),
    (2, 1, 0, (1, 0, 1, 0, 1), (1, 1, 1, 1, 1)),
    (4, 2, 1, (1, 2, 0, 2, 1, 2), (2, 1, 1, 3, 0, 2)),
]


def _mech(variant, c, threshold):
    kw = {} if c is None else {"c": c}
    return SparseVector(epsilon=EPS, threshold=threshold, variant=variant, **kw)


@pytest.mark.parametrize(("variant", "c", "threshold", "a", "b"), PAIRS)
def test_the_same_loss_output_and_form_as_the_program_engine(variant, c, threshold, a, b):
    mech = _mech(variant, c, threshold)
    mine, engine = one_threshold_loss(mech, a, b), exactdp.privacy_loss(mech, a, b)
    assert mine is not None
    assert mine.loss == engine.loss  # structurally: the same sympy expression
    assert (mine.output, mine.label, mine.direction, mine.candidates) == (
        engine.output, engine.label, engine.direction, engine.candidates)
    assert mine.engine == "x-form" and mine.ratios == ()


@pytest.mark.parametrize(("name", "a", "b", "loss"), [
    ("svt6", (1,) * 4 + (0,) * 4, (2,) * 4 + (-1,) * 4, "0.335035"),
    ("svt5", (1,) * 8, (0,) + (1,) * 7, "inf")])
def test_eight_queries_against_the_librarys_program(name, a, b, loss):
    """256 answer sequences: the program's own integrator gives the same loss and output
    (ten queries: tests/audit/test_program_suite.py, the suite's SVT6 row)."""
    variant = int(name[-1])
    mine = one_threshold_loss(_mech(variant, None, 1), a, b)
    own = exactdp.privacy_loss(getattr(library, name)(epsilon=EPS, threshold=1), a, b)
    assert mine is not None and mine.loss == own.loss and mine.label == own.label
    assert exactdp.printing.format_number(mine.loss, 6) == loss


def test_where_the_route_does_not_apply():
    # a threshold redrawn after every True before the next comparison
    assert one_threshold_loss(_mech(2, 2, 1), (1, 0, 1), (2, 1, 0)) is None
    # a symbolic epsilon
    e = sympy.Symbol("epsilon", positive=True)
    assert one_threshold_loss(SparseVector(epsilon=e, threshold=0, variant=6), (0, 1),
                              (1, 0)) is None
    # an irrational epsilon
    assert one_threshold_loss(SparseVector(epsilon=sympy.sqrt(2), threshold=0, variant=6),
                              (0, 1), (1, 0)) is None


def test_bad_pairs_are_refused_as_privacy_loss_refuses_them():
    mech = _mech(6, None, 0)
    with pytest.raises(ValueError, match="one_threshold_loss"):
        one_threshold_loss(mech, (0, 0), (2, 0))  # not neighbours
    with pytest.raises(ValueError, match="one_threshold_loss"):
        one_threshold_loss(mech, (0, 0), (0, 0, 0))


def test_collapse_merges_equal_exponents_exactly():
    """``1 * exp(lam W) - 10 * lam * exp(lam W)`` is 0 at lam = 1/10; other W stay."""
    w = Fraction(-1, 2)
    v = {(0, w): Fraction(1), (1, w): Fraction(-10), (0, Fraction(0)): Fraction(3)}
    assert collapse(v, Fraction(1, 10)) == {Fraction(0): Fraction(3)}
    assert collapse(v, Fraction(1, 5)) == {w: Fraction(-1), Fraction(0): Fraction(3)}
