"""The canonical renumbering of a run's noises: runs of one pattern under permuted answers
share a key, and the renumbered run has the same density of its released value (checked
against the density of the permuted pattern itself, :meth:`ProgramRelease.density`, and
against the original run's own density at several values)."""

from __future__ import annotations

from fractions import Fraction as F

import sympy

from exactdp.programs import library_release as L
from exactdp.programs.release_loss import _density
from exactdp.programs.run_canon import canonical, pair_key
from exactdp.programs.runs import Constraint, Draw, Linear, Run

EPS = sympy.Rational(1, 10)


def _run(d, pattern):
    (key,) = [k for k, p in zip(d.keys, d.outputs, strict=True) if p[:2] == pattern]
    (run,) = d.runs[key]
    return run


def test_permuted_answers_give_one_key_and_one_density():
    m = L.noisy_top_k_gap(epsilon=EPS)
    a, b = m.distribution((1, 2, 0, 0, 3)), m.distribution((0, 0, 3, 2, 1))
    # the permutation 0->4, 1->3, 2->0, 3->1, 4->2 maps a to b; pattern (4, 1) to (2, 3)
    ra, rb = _run(a, (4, 1)), _run(b, (2, 3))
    assert ra != rb and canonical(ra)[1] == canonical(rb)[1]
    ca = canonical(ra)[0]
    # off the cell ends (at 0 a tie's strictness decides the density at one point: the
    # cells are open intervals, their ends are read on the original runs)
    for v in (F(-3), F(-1, 7), F(1, 3), F(5, 2)):
        assert a.density((4, 1, v)) == b.density((2, 3, v))
        assert _density([ca], (v,), "f") == _density([ra], (v,), "f")


def test_other_constants_give_other_keys():
    m = L.noisy_top_k_gap(epsilon=EPS)
    a, b = m.distribution((1, 2, 0, 0, 3)), m.distribution((1, 2, 0, 1, 3))
    assert canonical(_run(a, (4, 1)))[1] != canonical(_run(b, (4, 1)))[1]


def test_strictness_of_continuous_noise_is_dropped():
    draws = (Draw(0, "laplace", sympy.Integer(2), "x"), Draw(1, "laplace", sympy.Integer(2), "x"))
    one = sympy.Integer(1)

    def run(rel):
        return Run(draws, (Constraint(Linear(one, ((0, -one), (1, one))), rel, "y"),), one,
                   "o", (Linear(sympy.Integer(0), ((0, one),)),))

    assert canonical(run(">"))[1] == canonical(run(">="))[1]
    assert canonical(run(">"))[0].constraints[0].relation == ">="
    assert canonical(run("=="))[1] != canonical(run(">="))[1]
    # strict: the event itself (a density at a cell end may differ)
    assert canonical(run(">"), strict=True)[1] != canonical(run(">="), strict=True)[1]
    assert canonical(run(">"), strict=True)[0].constraints[0].relation == ">"
    for v in (F(-1), F(1, 2), F(3)):
        assert _density([run(">")], (v,), "f") == _density([canonical(run(">"))[0]], (v,), "f")


def test_pair_keys_match_permuted_pairs_and_refuse_other_shapes():
    m = L.noisy_top_k_gap(epsilon=EPS)
    one = m.distribution((1, 1, 1, 1, 1))
    a, b = m.distribution((2, 2, 0, 0, 0)), m.distribution((0, 0, 0, 2, 2))
    # the permutation i -> 4 - i maps (2, 2, 0, 0, 0) to (0, 0, 0, 2, 2), pattern (0, 1)
    # to (4, 3)
    assert pair_key(_run(one, (0, 1)), _run(a, (0, 1))) == pair_key(_run(one, (4, 3)),
                                                                     _run(b, (4, 3)))
    assert pair_key(_run(one, (0, 1)), _run(a, (0, 1))) != pair_key(_run(one, (0, 1)),
                                                                     _run(b, (0, 1)))
    assert pair_key(_run(one, (0, 1)), _run(a, (1, 0))) is None  # other comparisons
