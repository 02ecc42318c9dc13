"""The translation bound of release patterns: the exact linear programme against a
brute-force minimum over the vertices of small programmes, and the bound against the
known exact losses (the Laplace mechanism, SVT3's one-way pairs: the class's closed
form ``t2 lam sum |d_i|``)."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import pytest
import sympy

import exactdp
from exactdp import SparseVector
from exactdp.programs import library_release as L
from exactdp.programs.release_bound import minimise, pattern_bound, run_shift_bound, runs_bound


def _brute(cost, rows):
    """The minimum over the basic solutions (every square subsystem of tight rows and
    zero variables), by exact Gaussian elimination: an independent route."""
    n = len(cost)
    eqs = [(r, b) for r, rel, b in rows if rel == "=="]
    if eqs:  # an independent set of equalities: the rows of the augmented row space
        space = sympy.Matrix([[*r, b] for r, b in eqs]).rowspace()
        eqs = [([F(str(x)) for x in row[:n]], F(str(row[n]))) for row in space]
        if any(not any(r) for r, _ in eqs):
            return None  # 0 = b != 0
    ineq = [(r, b) for r, rel, b in rows if rel == ">="]
    best = None
    for k in range(len(ineq) + 1):
        for tight in itertools.combinations(ineq, k):
            for zeros in itertools.combinations(range(n), max(0, n - len(eqs) - k)):
                m = sympy.Matrix([list(r) for r, _ in (*eqs, *tight)]
                                 + [[1 if j == z else 0 for j in range(n)] for z in zeros])
                rhs = sympy.Matrix([b for _, b in (*eqs, *tight)] + [0] * len(zeros))
                if m.shape[0] != n or m.det() == 0:
                    continue
                x = [F(str(v)) for v in m.LUsolve(rhs)]
                ok = all(v >= 0 for v in x) and all(
                    sum(a * v for a, v in zip(r, x, strict=True)) == b for r, b in eqs) and all(
                    sum(a * v for a, v in zip(r, x, strict=True)) >= b for r, b in ineq)
                if ok:
                    val = sum(c * v for c, v in zip(cost, x, strict=True))
                    best = val if best is None else min(best, val)
    return best


PROGRAMMES = [
    ([F(1), F(2)], [([F(1), F(1)], ">=", F(3))]),
    ([F(1), F(1), F(3)], [([F(1), F(-1), F(0)], "==", F(2)), ([F(0), F(1), F(1)], ">=", F(1))]),
    ([F(2), F(1)], [([F(1), F(-2)], ">=", F(-4)), ([F(-1), F(1)], ">=", F(1))]),
    ([F(1), F(1)], [([F(1), F(1)], "==", F(-1))]),  # infeasible
    ([F(1), F(1)], [([F(1), F(1)], "==", F(2)), ([F(2), F(2)], "==", F(4)),  # redundant
                    ([F(1), F(0)], ">=", F(1))]),
]


@pytest.mark.parametrize(("cost", "rows"), PROGRAMMES)
def test_minimise_equals_the_best_vertex(cost, rows):
    assert minimise(cost, rows) == _brute(cost, rows)


def test_laplace_mechanism_bound_is_epsilon():
    m = L.laplace_mechanism(epsilon=F(1, 3))
    d, d2 = m.distribution([0]), m.distribution([2])
    (key,) = d.keys
    assert run_shift_bound(d.runs[key][0], d2.runs[key][0]) == F(2, 3)  # rate 1/3 (unit 1), shift 2
    assert pattern_bound(d.runs[key], d2.runs[key]) == sympy.Rational(2, 3)


@pytest.mark.parametrize(("q", "q2"), [([0, 0, 0], [1, 1, 1]), ([1, 2, 0], [1, 1, -1])])
def test_svt3_bound_over_patterns_is_the_class_s_one_way_loss(q, q2):
    m = L.svt3(epsilon=1, threshold=1)
    d, d2 = m.distribution(q), m.distribution(q2)
    top = max(pattern_bound(d.runs[k], d2.runs[k]) for k in d.keys)
    assert top == exactdp.privacy_loss(SparseVector(1, 1, 1, variant=3), q, q2).value


def test_runs_without_a_partner_have_no_bound():
    m = L.svt3(epsilon=1, threshold=1)
    d = m.distribution([0, 0])
    k1, k2 = d.keys[0], d.keys[1]
    assert runs_bound(d.runs[k1], []) is None
    assert runs_bound(d.runs[k1], d.runs[k1]) == 0
    assert k1 != k2
