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
from exactdp.programs import release_bound as RB
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


def test_warm_minimise_reuses_a_basis_only_where_it_is_optimal():
    """One LP shape, many right-hand sides (both signs, some infeasible): the warm start
    from the bases of earlier solves equals the brute-force vertex minimum every time, and
    it holds at most a few bases for the shape."""
    cost = [F(1), F(1), F(2), F(3)]
    lines = [([F(1), F(-1), F(0), F(1)], ">="), ([F(0), F(1), F(-1), F(0)], ">="),
             ([F(1), F(0), F(1), F(-1)], "==")]
    RB._BASES.pop(-1, None)
    for b in itertools.product([F(-2), F(0), F(1, 2), F(3)], repeat=3):
        rows = [(line, rel, v) for (line, rel), v in zip(lines, b, strict=True)]
        assert RB.warm_minimise(-1, cost, rows) == _brute(cost, rows), b
    assert 1 <= len(RB._BASES[-1]) <= RB.MAX_BASES
    RB._BASES.pop(-1)


def test_the_dual_simplex_from_a_held_basis_equals_the_best_vertex(monkeypatch):
    """Where no held basis fits a right-hand side, the dual simplex from the last one
    (``_dual``) solves the LP: its minimum (None where infeasible) equals the brute-force
    vertex minimum on 64 right-hand sides of one shape, and the two-phase simplex runs
    only for the first (no basis held yet) and where the dual gives up."""
    cost = [F(1), F(2), F(1), F(3)]
    lines = [([F(1), F(-1), F(0), F(1)], ">="), ([F(0), F(0), F(-1), F(-1)], ">="),
             ([F(1), F(0), F(1), F(-1)], "==")]  # the second infeasible for b > 0
    solves, duals = [], []
    solve, dual = RB._solve, RB._dual
    monkeypatch.setattr(RB, "_solve", lambda *a: solves.append(1) or solve(*a))
    monkeypatch.setattr(RB, "_dual", lambda *a: duals.append(r := dual(*a)) or r)
    RB._BASES.pop(-2, None)
    for b in itertools.product([F(-3), F(-1, 2), F(1), F(5, 2)], repeat=3):
        rows = [(line, rel, v) for (line, rel), v in zip(lines, b, strict=True)]
        assert RB.warm_minimise(-2, cost, rows) == _brute(cost, rows), b
    RB._BASES.pop(-2)
    assert len(duals) >= 5 and all(r is not None for r in duals)  # infeasible ones too
    assert any(r == (None, None) for r in duals) and len(solves) == 1


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


def test_bounds_seconds_counts_rows_squared_times_columns_per_run():
    # Laplace mechanism: one run, one draw (2 columns), one released value (1 row)
    d = L.laplace_mechanism(epsilon=F(1, 3)).distribution([0])
    (key,) = d.keys
    assert RB.bounds_seconds(d.runs[key]) == RB.LP_RUN_SECONDS + RB.LP_UNIT_SECONDS * 1 * 2
    # adaptive SVT at 2 queries: by hand over every run of both inputs
    m = L.adaptive_svt(epsilon=sympy.Rational(1, 10), threshold=1, c=1)
    a, b = m.distribution((1, 1)), m.distribution((2, 0))
    runs = [r for k in a.keys for r in (*a.runs[k], *b.runs[k])]
    units = sum((len(r.constraints) + len(r.released)) ** 2 * 2 * len(r.draws) for r in runs)
    assert RB.bounds_seconds(runs) == pytest.approx(
        len(runs) * RB.LP_RUN_SECONDS + units * RB.LP_UNIT_SECONDS, rel=1e-12)


def test_check_bounds_refuses_in_one_line_naming_the_cheaper_route(monkeypatch):
    m = L.adaptive_svt(epsilon=sympy.Rational(1, 10), threshold=1, c=1)
    a, b = m.distribution((1, 1)), m.distribution((2, 0))
    RB.check_bounds("f", a.runs, b.runs, a.keys)  # milliseconds: passes
    monkeypatch.setattr(RB, "LP_UNIT_SECONDS", 1.0)
    with pytest.raises(ValueError, match=r"^f: .*translation bounds of \d+ patterns .*fewer "
                       r"answers, or a smaller cut-off c or k") as err:
        RB.check_bounds("f", a.runs, b.runs, a.keys)
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match=r"loss_upper_bound: .*translation bounds"):
        a.loss_upper_bound((2, 0))
    with pytest.raises(ValueError, match=r"privacy_loss: .*the loss of \d+ patterns"):
        exactdp.privacy_loss(m, (1, 1), (2, 0))


def test_ordered_patterns_puts_the_largest_bound_first():
    import sympy

    from exactdp.programs import library_release as L
    from exactdp.programs.release_bound import ordered_patterns, pattern_bound

    m = L.svt3(epsilon=1, threshold=1)
    a, b = m.distribution([0, 0, 0]), m.distribution([1, 1, 1])
    keys = [k for k in a.keys if k in set(b.keys)]
    order = ordered_patterns(a, b, keys)
    assert sorted(k for k, _ in order) == sorted(keys)
    bounds = [bound for _, bound in order]
    assert bounds == [pattern_bound(a.runs[k], b.runs[k]) for k, _ in order]
    finite = [x for x in bounds if x is not None]
    assert finite == sorted(finite, reverse=True) and max(finite) == sympy.Rational(3, 2)


def test_shift_bounds_memoised_on_shape_and_constant_differences():
    """The Laplace mechanism moved by 2 from 0 and from 5: one linear programme (the same
    shape, the same difference of constants), the same bound 2/3; moved by 3: another."""
    m = L.laplace_mechanism(epsilon=F(1, 3))
    RB._SHIFTS.clear()
    pairs = [([0], [2]), ([5], [7]), ([0], [3])]
    got = []
    for q, q2 in pairs:
        d, d2 = m.distribution(q), m.distribution(q2)
        (key,) = d.keys
        got.append(run_shift_bound(d.runs[key][0], d2.runs[key][0]))
    assert got == [F(2, 3), F(2, 3), F(1)] and len(RB._SHIFTS) == 2
