"""Patterns with the same pair of densities (exactdp/programs/release_classes.py).

Independent routes: the loss supremum over every pattern (the engine without the classes)
gives the same exact loss, witness and attainment as over one pattern per class; the
classes of noisy top-2 counted by hand (which answers the released indices sit among, and
their order where a tie of the released pair decides the density at the gap 0); the
densities of two patterns of one class compared at rational points, exactly.
"""

from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace

import sympy

from exactdp.exact import compare
from exactdp.programs import library_release as L
from exactdp.programs import release
from exactdp.programs import release_classes as C
from exactdp.programs.runs import REAL

EPS = sympy.Rational(1, 10)


def test_classes_of_noisy_top_two_counted_by_hand():
    """(1^10, 0 0 2^8): i and j each among the two lowered or the eight raised answers,
    and i < j or not where both are among the same ones: 2 + 16 + 16 + 56 patterns in 6
    classes."""
    m = L.noisy_top_k_gap(epsilon=EPS)
    a, b = m.distribution((1,) * 10), m.distribution((0, 0) + (2,) * 8)
    classes = C.pattern_classes(a, b)
    assert classes is not None

    def kind(key: object) -> tuple:
        i, j = a.outputs[a.keys.index(key)][:2]
        return (i < 2, j < 2, i < j if (i < 2) == (j < 2) else None)

    assert sorted(len(c) for c in classes) == [1, 1, 16, 16, 28, 28]
    assert all(len({kind(k) for k in c}) == 1 for c in classes)
    assert len({kind(c[0]) for c in classes}) == 6


def test_patterns_of_one_class_have_equal_densities():
    m = L.noisy_top_k_gap(epsilon=EPS)
    a, b = m.distribution((1,) * 5), m.distribution((0, 0, 2, 2, 2))
    (first, second, *_), *_ = (c for c in C.pattern_classes(a, b) if len(c) > 1)
    for d in (a, b):
        p, q = (d.outputs[d.keys.index(k)] for k in (first, second))
        for g in (Fraction(0), Fraction(1, 3), Fraction(7)):
            assert d.density((*p[:2], g)) == d.density((*q[:2], g))


def test_the_loss_over_one_pattern_per_class_is_the_full_loss(monkeypatch):
    """The loss supremum of ProgramRelease (one pattern per class) against the same
    supremum over every pattern (the classes patched out)."""
    cases = ((L.noisy_top_k_gap, (0, 0, 2, 2, 2)), (L.noisy_top_k_gap_exponential,
                                                   (0, 0, 2, 2, 2)),
             (L.noisy_top_k_gap, (2, 2, 0, 0, 0)))
    part = []
    for prog, b in cases:
        m = prog(epsilon=EPS)
        a, other = m.distribution((1,) * 5), m.distribution(b)
        mine, theirs = C.representatives(a, other)
        assert len(mine.keys) < len(a.keys) and mine.keys == theirs.keys
        part.append(a.loss_supremum(b))
    monkeypatch.setattr(release, "representatives", lambda a, b: (a, b))
    for (prog, b), p in zip(cases, part, strict=True):
        full = prog(epsilon=EPS).distribution((1,) * 5).loss_supremum(b)
        assert compare(full.loss, p.loss) == 0
        assert (full.attained, full.witness) == (p.attained, p.witness)


def test_a_pattern_view_reads_the_full_distribution():
    m = L.noisy_top_k_gap(epsilon=EPS)
    a, b = C.representatives(m.distribution((1, 1, 1)), m.distribution((0, 2, 2)))
    assert isinstance(a, C.Representatives) and a.outputs[0] == (0, 1, REAL)
    assert a.probabilities == tuple(a.full.pmf(o) for o in a.outputs)
    assert a.pmf((0, 1, REAL)) == a.full.pmf((0, 1, REAL)) and a.scores == a.full.scores
    assert a.mechanism is m and list(a.runs) == list(a.keys)
    assert a.loss_seconds("f") == a.full.loss_seconds("f")


def test_no_shared_class_or_other_patterns_leave_the_pair_unchanged():
    m = L.noisy_top_k_gap(epsilon=EPS)
    a, b = m.distribution((1, 2)), m.distribution((2, 1))
    assert C.representatives(a, b) == (a, b)  # two patterns, two classes
    one, other = SimpleNamespace(keys=(1,), runs={}), SimpleNamespace(keys=(2,), runs={})
    assert C.pattern_classes(one, other) is None
    assert C.representatives(one, other) == (one, other)
